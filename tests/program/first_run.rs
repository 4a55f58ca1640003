//! A newcomer's first run on a local server, with nothing configured: the
//! real binary against an Ollama-style loopback server that lists one model
//! and answers any other name with Ollama's 404.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::process;

use bmad_party::testing::{stream_of, varied_reply, FakeOpenAi, Recorded, Reply};
use process::*;

const LISTED: &str = "llama3.2:latest";

/// Ollama's `/v1`: one model listed, any other refused as Ollama does.
async fn ollama_like() -> FakeOpenAi {
    ollama_like_at("127.0.0.1:0").await
}

async fn ollama_like_at(addr: &str) -> FakeOpenAi {
    let server = FakeOpenAi::start_at(addr, |r: &Recorded, n| {
        let model = r.body["model"].as_str().unwrap_or_default().to_string();
        if model == LISTED || model == "llama3.2" {
            stream_of(&varied_reply(n))
        } else {
            Reply::Status {
                code: 404,
                headers: vec![("Content-Type".into(), "application/json".into())],
                body: serde_json::json!({
                    "error": {"message": format!("model \"{model}\" not found, try pulling it first"), "type": "api_error"}
                })
                .to_string(),
            }
        }
    })
    .await;
    server.route(
        "/v1/models",
        serde_json::json!({"object": "list", "data": [{"id": LISTED, "object": "model", "owned_by": "library"}]}),
    );
    server
}

fn on(server: &FakeOpenAi, dir: &std::path::Path) -> tokio::process::Command {
    let mut cmd = party(dir);
    cmd.env("OPENAI_BASE_URL", server.base_url())
        .args(["--headless", "--events", "json", "--max-rounds", "1", "--output"])
        .arg(dir.join("out"));
    cmd
}

fn notices(events: &[serde_json::Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] == "notice")
        .map(|e| e["text"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test]
async fn with_no_model_named_the_one_the_server_lists_is_used_and_said() {
    let server = ollama_like().await;
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run_with_input(on(&server, dir.path()), "How should we name the tool?\n").await;
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let events = json_lines(&stdout);
    assert_eq!(events[0]["type"], "session_started");
    assert_eq!(events[0]["model"], LISTED, "the header names it from the start");
    assert!(
        events.iter().any(|e| e["type"] == "model_chosen" && e["model"] == LISTED),
        "{stdout}"
    );
    assert!(
        notices(&events)
            .iter()
            .any(|n| n.contains(LISTED) && n.contains(&server.base_url())),
        "{:?}",
        notices(&events)
    );
    assert!(!events.iter().any(|e| e["type"] == "agent_failed"), "{stdout}");
    let chats: Vec<_> = server.received().into_iter().filter(|r| r.method == "POST").collect();
    assert!(!chats.is_empty());
    assert!(chats.iter().all(|r| r.body["model"] == LISTED), "every call names the listed model");
    let file = std::fs::read_to_string(&session_files(&dir.path().join("out"))[0]).unwrap();
    assert!(
        file.contains(&format!("model: {LISTED}")),
        "the session records the model it ran on:\n{file}"
    );
}

#[tokio::test]
async fn a_model_the_server_lacks_is_warned_of_at_start_and_its_failure_names_what_it_has() {
    let server = ollama_like().await;
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = on(&server, dir.path());
    cmd.args(["--model", "gpt-4o-mini"]);
    let (code, stdout, stderr) = run_with_input(cmd, "How should we name the tool?\n").await;
    assert_eq!(code, 3, "a party no agent could answer in: {stdout}\n{stderr}");
    let events = json_lines(&stdout);
    let warned = notices(&events);
    assert!(
        warned
            .iter()
            .any(|n| n.contains("`gpt-4o-mini`") && n.contains(LISTED) && n.contains("--model")),
        "{warned:?}"
    );
    let failures: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "agent_failed")
        .filter_map(|e| e["cause"].as_str())
        .collect();
    assert!(!failures.is_empty(), "{stdout}");
    assert!(
        failures
            .iter()
            .all(|f| f.contains("try pulling it first") && f.contains(LISTED) && f.contains("--model")),
        "{failures:?}"
    );
    // Refused at once: a missing model is not retried.
    let chats = server
        .received()
        .into_iter()
        .filter(|r| r.method == "POST" && r.body["max_tokens"] != 1)
        .count();
    assert!(chats <= 3, "{chats} requests");
}

#[tokio::test]
async fn an_agents_own_model_still_wins_over_the_listed_one() {
    let server = ollama_like().await;
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    for (id, model) in [("ana", Some("llama3.2")), ("bo", None)] {
        let model = model.map(|m| format!("model: {m}\n")).unwrap_or_default();
        std::fs::write(
            agents.join(format!("{id}.md")),
            format!("---\nid: {id}\nname: {id}\ntitle: Tester\nicon: \"🧪\"\nrole: Tests\nidentity: A tester\ncommunication_style: Plain\nprinciples: \"- test\"\n{model}---\nA tester.\n"),
        )
        .unwrap();
    }
    let mut cmd = on(&server, dir.path());
    cmd.arg("--agents").arg(&agents);
    let (code, stdout, stderr) = run_with_input(cmd, "How should we name the tool?\n").await;
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let models: std::collections::BTreeSet<String> = server
        .received()
        .into_iter()
        .filter(|r| r.method == "POST")
        .filter_map(|r| r.body["model"].as_str().map(str::to_string))
        .collect();
    assert!(models.contains("llama3.2"), "{models:?}");
    assert!(models.iter().all(|m| m == "llama3.2" || m == LISTED), "{models:?}");
}

#[tokio::test]
async fn a_server_out_of_reach_is_named_at_start_and_in_every_wait() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(&config, "bmad:\n  llm:\n    max_retries: 0\n    retry_window_seconds: 1\n").unwrap();
    for format in ["json", "text"] {
        let mut cmd = party(dir.path());
        cmd.env("OPENAI_BASE_URL", &url)
            .args(["--headless", "--events", format, "--max-rounds", "1", "--config"])
            .arg(&config)
            .arg("--output")
            .arg(dir.path().join(format));
        let (code, stdout, stderr) = run_with_input(cmd, "How should we name the tool?\n").await;
        assert_eq!(code, 3, "{stdout}\n{stderr}");
        if format == "json" {
            let events = json_lines(&stdout);
            let warned = notices(&events);
            assert!(
                warned.iter().any(|n| n.contains(&url) && n.contains("cannot be reached")),
                "{warned:?}"
            );
            let first_wait = events.iter().position(|e| e["type"] == "server_waiting");
            let warned_at = events
                .iter()
                .position(|e| e["type"] == "notice" && e["text"].as_str().unwrap_or("").contains(&url));
            assert!(
                warned_at < first_wait || first_wait.is_none(),
                "said before anything waits: {stdout}"
            );
        } else {
            assert!(stdout.contains(&format!("waiting for the server at {url}")), "{stdout}");
        }
    }
}

#[tokio::test]
async fn an_outage_longer_than_the_window_keeps_the_session_open_and_resume_continues_it() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let config = dir.path().join("c.yaml");
    std::fs::write(&config, "bmad:\n  llm:\n    max_retries: 0\n    retry_window_seconds: 1\n").unwrap();
    let mut cmd = party(dir.path());
    cmd.env("OPENAI_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .args(["--headless", "--events", "json", "--model", "m", "--config"])
        .arg(&config)
        .arg("--output")
        .arg(&out);
    let (code, stdout, stderr) = run_with_input(cmd, "How should we name the tool?\n").await;
    assert_eq!(code, 3, "{stdout}\n{stderr}");
    let end = json_lines(&stdout).into_iter().find(|e| e["type"] == "session_ended").unwrap();
    assert_eq!(end["reason"], "unreachable");
    assert_eq!(end["completed"], false, "not finished: it can be resumed");
    assert_eq!(end["saved"], true);
    let file = session_files(&out).pop().unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("party_active: true") && text.contains("workflow_completed: false"),
        "{text}"
    );
    assert!(!text.contains("kind: farewell"), "nobody could say goodbye: {text}");

    // The server is back: `--resume` offers the session and goes on.
    let server = FakeOpenAi::varied().await;
    let mut cmd = party(dir.path());
    cmd.env("OPENAI_BASE_URL", server.base_url())
        .args(["--headless", "--events", "json", "--model", "m", "--output"])
        .arg(&out)
        .arg("--resume");
    let (code, stdout, stderr) = run_with_input(cmd, "Let's try again.\n/exit\n").await;
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let events = json_lines(&stdout);
    let earlier = events.iter().find(|e| e["type"] == "earlier").expect("the earlier turns are shown");
    assert!(earlier.to_string().contains("How should we name the tool?"), "{earlier}");
    assert!(
        events.iter().any(|e| e["type"] == "agent_message"),
        "the room answers now: {stdout}"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("workflow_completed: true") && text.contains("Let's try again."),
        "{text}"
    );
}

#[tokio::test]
async fn a_server_that_comes_up_after_the_party_started_gets_the_model_it_lists() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(&config, "bmad:\n  llm:\n    retry_window_seconds: 30\n").unwrap();
    let mut cmd = party(dir.path());
    cmd.env("OPENAI_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .args(["--headless", "--events", "json", "--max-rounds", "1", "--config"])
        .arg(&config)
        .arg("--output")
        .arg(dir.path().join("out"));
    // Ollama is started a little after the party, as people do.
    let late = async {
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        ollama_like_at(&format!("127.0.0.1:{port}")).await
    };
    let ((code, stdout, stderr), server) = tokio::join!(run_with_input(cmd, "How should we name the tool?\n"), late);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let events = json_lines(&stdout);
    assert!(!events.iter().any(|e| e["type"] == "agent_failed"), "{stdout}");
    assert!(
        events.iter().any(|e| e["type"] == "model_chosen" && e["model"] == LISTED),
        "the header follows: {stdout}"
    );
    let chats: Vec<_> = server.received().into_iter().filter(|r| r.method == "POST").collect();
    assert!(
        !chats.is_empty() && chats.iter().all(|r| r.body["model"] == LISTED),
        "every call the server saw named its model"
    );
    let file = std::fs::read_to_string(&session_files(&dir.path().join("out"))[0]).unwrap();
    assert!(file.contains(&format!("model: {LISTED}")), "{file}");
}
