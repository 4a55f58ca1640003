//! The real binary, headless: the README's commands, the JSON protocol,
//! bad input, crash safety (SIGKILL) and resume.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use bmad_party::testing::{events_of, FakeOpenAi, Reply};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::process;
use process::*;

#[tokio::test]
async fn readme_party_runs_offline_on_the_rehearsal_provider() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = party(dir.path());
    cmd.args(["--headless", "--max-rounds", "3", "--output"])
        .arg(dir.path().join("out"));
    let (code, stdout, stderr) = run_with_input(cmd, "How should we design a plugin system?\n").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("offline rehearsal"), "the rehearsal is labelled: {stdout}");
    let files = session_files(&dir.path().join("out"));
    assert_eq!(files.len(), 1);
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.ends_with("-how-should-we-design-a-plugin-system.md"), "{name}");
    let s = bmad_party::session::load(&files[0]).unwrap();
    assert!(s.fm.workflow_completed && !s.fm.party_active);
    assert_eq!(s.fm.conversation_state.exit_reason.as_deref(), Some("facilitator_left"));
    assert_eq!(s.fm.provider.kind, "rehearsal");
    assert!(s.turns.iter().any(|t| t.kind == bmad_party::session::TurnKind::Agent));
    assert!(stdout.contains(&files[0].display().to_string()), "the file's path is shown");
}

#[tokio::test]
async fn a_chinese_party_shows_the_built_in_personas_in_chinese() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = party(dir.path());
    cmd.args(["--headless", "--events", "json", "--lang", "zh", "--max-rounds", "1", "--output"])
        .arg(dir.path());
    let (code, stdout, stderr) = run_with_input(cmd, "我们该如何设计插件系统？\n").await;
    assert_eq!(code, 0, "{stderr}");
    let ev = json_lines(&stdout);
    let started = ev.iter().find(|e| e["type"] == "session_started").unwrap();
    let titles: Vec<&str> = started["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert!(titles.contains(&"架构师") && titles.contains(&"产品经理"), "{titles:?}");
    let said: Vec<&str> = ev
        .iter()
        .filter(|e| e["type"] == "agent_message")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(!said.is_empty());
    for text in said {
        // The rehearsal speaks from the persona: its words, not the English file's.
        for english in [
            "Architect",
            "boring technology",
            "security architecture",
            "Working software",
            "Ship the smallest",
        ] {
            assert!(!text.contains(english), "{english:?} in {text:?}");
        }
    }
}

#[tokio::test]
async fn rehearsal_proposes_an_end_and_an_empty_line_confirms_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = party(dir.path());
    cmd.args(["--headless", "--events", "json", "--output"]).arg(dir.path());
    let (code, stdout, stderr) = run_with_input(cmd, "Topic\nTwo\nThree\nFour\n\n").await;
    assert_eq!(code, 0, "{stderr}");
    let ev = json_lines(&stdout);
    assert!(
        ev.iter().any(|e| e["type"] == "end_proposal"),
        "the rehearsal proposes to end at round 4"
    );
    let end = ev.iter().find(|e| e["type"] == "session_ended").unwrap();
    assert_eq!(end["reason"], "agent_proposed");
    assert_eq!(end["completed"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn json_protocol_against_a_real_endpoint() {
    let server = FakeOpenAi::varied().await;
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = party(dir.path());
    cmd.env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", "k")
        .args(["--headless", "--events", "json", "--max-rounds", "2", "--model", "m-1", "--output"])
        .arg(dir.path());
    // A draft answers nothing: the topic on the next line goes at once.
    let input = "{\"type\":\"draft\",\"text\":\"Top\"}\nTopic\n{\"type\":\"message\",\"text\":\"Second, as JSON\"}\n{\"type\":\"dance\"}\n{\"type\":\"answer\",\"request_id\":\"req-1\",\"confirmed\":true}\n";
    let (code, stdout, stderr) = run_with_input(cmd, input).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("stdin line 4: not a command"), "{stderr}");
    let ev = json_lines(&stdout);
    let said: Vec<&str> = ev
        .iter()
        .filter(|e| e["type"] == "facilitator_message")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(said[..2], ["Topic", "Second, as JSON"], "the draft is no message");
    let types: Vec<&str> = ev.iter().map(|e| e["type"].as_str().unwrap()).collect();
    for t in [
        "session_started",
        "welcome",
        "session_file",
        "round_started",
        "agent_started",
        "agent_token",
        "agent_message",
        "round_finished",
        "notice",
        "confirmation_request",
        "confirmation_resolved",
        "termination",
        "farewell",
        "highlights",
        "closing",
        "status",
        "awaiting_input",
        "session_ended",
    ] {
        assert!(types.contains(&t), "missing event {t}: {types:?}");
    }
    let started = &ev[0];
    assert_eq!(started["provider"], "openai");
    assert_eq!(started["model"], "m-1");
    assert_eq!(started["rehearsal"], false);
    assert!(ev
        .iter()
        .any(|e| e["type"] == "facilitator_message" && e["text"] == "Second, as JSON"));
    let end = ev.iter().find(|e| e["type"] == "session_ended").unwrap();
    assert_eq!(end["reason"], "round_limit");
    assert!(server.received().iter().all(|r| r.body["model"] == "m-1"));
}

#[tokio::test]
async fn config_errors_name_file_line_column_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("party.yaml");
    std::fs::write(&cfg, "bmad:\n  party_mode:\n    max_roundz: 3\n").unwrap();
    let mut cmd = party(dir.path());
    cmd.arg("--headless").arg("--config").arg(&cfg);
    let (code, _, stderr) = run_with_input(cmd, "x\n").await;
    assert_eq!(code, 2);
    assert!(
        stderr.contains(&format!(
            "{}:3:5: `bmad.party_mode.max_roundz`: unknown key `max_roundz`; did you mean `max_rounds`?",
            cfg.display()
        )),
        "{stderr}"
    );

    std::fs::write(&cfg, "bmad:\n  party_mode:\n    max_rounds: 4\n    warn_at_rounds: 6\n").unwrap();
    let mut cmd = party(dir.path());
    cmd.arg("--headless").arg("--lang").arg("zh").arg("--config").arg(&cfg);
    let (code, _, stderr) = run_with_input(cmd, "x\n").await;
    assert_eq!(code, 2);
    assert!(
        stderr.contains("必须小于 max_rounds（4）"),
        "errors in Chinese with --lang zh: {stderr}"
    );

    let mut cmd = party(dir.path());
    cmd.arg("--headless").arg("--config").arg(&cfg);
    let (code, _, stderr) = run_with_input(cmd, "x\n").await;
    assert_eq!(code, 2);
    assert!(
        stderr.contains(":4:") && stderr.contains("warn_at_rounds") && stderr.contains("below max_rounds (4)"),
        "{stderr}"
    );
}

#[tokio::test]
async fn a_flags_bad_value_names_the_flag_not_a_config_the_user_never_wrote() {
    for (flag, value) in [
        ("--max-rounds", "0"),
        ("--max-minutes", "0"),
        ("--max-minutes", "-3"),
        ("--max-minutes", "soon"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = party(dir.path());
        cmd.args(["--headless", flag, value]);
        let (code, _, stderr) = run_with_input(cmd, "x\n").await;
        assert_eq!(code, 2, "{flag} {value}: {stderr}");
        assert!(stderr.contains(flag), "{flag} {value}: {stderr}");
        assert!(!stderr.contains("config.yaml") && !stderr.contains("bmad.party_mode"), "{stderr}");
    }
}

#[tokio::test]
async fn agent_errors_name_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("room");
    std::fs::create_dir(&agents).unwrap();
    std::fs::write(
        agents.join("a.md"),
        "---\nid: a\nname: A\ntitle: T\nicon: x\nrole: r\nidentity: i\ncommunication_style: c\nprinciples: p\n---\n",
    )
    .unwrap();
    std::fs::write(
        agents.join("b.md"),
        "---\nid: b\nname: B\nicon: x\nrole: r\nidentity: i\ncommunication_style: c\nprinciples: p\n---\n",
    )
    .unwrap();
    std::fs::write(
        agents.join("c.md"),
        "---\nid: a\nname: C\ntitle: T\nicon: x\nrole: r\nidentity: i\ncommunication_style: c\nprinciples: p\n---\n",
    )
    .unwrap();
    let mut cmd = party(dir.path());
    cmd.arg("--headless").arg("--agents").arg(&agents);
    let (code, _, stderr) = run_with_input(cmd, "x\n").await;
    assert_eq!(code, 2);
    assert!(
        stderr.contains("b.md") && stderr.contains("`title`") && stderr.contains("`title` is missing"),
        "{stderr}"
    );
    assert!(stderr.contains("c.md: `id`: duplicate id `a`"), "{stderr}");
}

#[tokio::test]
async fn resuming_a_finished_session_says_so_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = party(dir.path());
    cmd.args(["--headless", "--output"]).arg(dir.path());
    let (code, _, _) = run_with_input(cmd, "Topic\n").await;
    assert_eq!(code, 0);
    let file = session_files(dir.path()).pop().unwrap();
    let mut cmd = party(dir.path());
    cmd.arg("--headless").arg("--resume").arg(&file);
    let (code, _, stderr) = run_with_input(cmd, "more\n").await;
    assert_eq!(code, 1);
    assert!(stderr.contains("already finished"), "{stderr}");

    std::fs::write(dir.path().join("broken.md"), "---\nworkflowType: party-mode\ntopic: [\n---\n").unwrap();
    let mut cmd = party(dir.path());
    cmd.arg("--headless").arg("--resume").arg(dir.path().join("broken.md"));
    let (code, _, stderr) = run_with_input(cmd, "").await;
    assert_eq!(code, 2);
    assert!(stderr.contains("broken.md:3:"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_api_key_never_reaches_files_or_output() {
    let sentinel = "sk-SENTINEL-7f3a9c1e";
    let server = FakeOpenAi::always("Fine.").await;
    server.push([Reply::Status {
        code: 401,
        headers: vec![],
        body: format!(r#"{{"error":{{"message":"bad key {sentinel}"}}}}"#),
    }]);
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = party(dir.path());
    cmd.env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", sentinel)
        .env("BMAD_PARTY_LOG", "trace")
        .args(["--headless", "--output"])
        .arg(dir.path());
    let (code, stdout, stderr) = run_with_input(cmd, "Topic\n").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(server
        .received()
        .iter()
        .all(|r| r.header("authorization") == Some(&format!("Bearer {sentinel}"))));
    // Only the server's echo of it (a hostile or careless error body) could
    // carry it; nothing of ours writes it.
    let mut all = vec![stdout, stderr];
    for entry in walk(dir.path()) {
        all.push(std::fs::read_to_string(&entry).unwrap_or_default());
    }
    let leaks: Vec<_> = all.iter().filter(|t| t.contains(sentinel)).collect();
    assert!(leaks.is_empty(), "the key leaked: {leaks:?}");
    // Session files and the log are the owner's alone.
    use std::os::unix::fs::PermissionsExt;
    let files = walk(dir.path());
    assert!(files.iter().any(|f| f.ends_with("bmad-party.log")), "{files:?}");
    for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "md" || e == "log")) {
        assert_eq!(std::fs::metadata(f).unwrap().permissions().mode() & 0o777, 0o600, "{}", f.display());
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Starts a party, kills it with SIGKILL once `kill_after` agent messages
/// (plus `extra_tokens` streamed tokens of the next) were reported, and
/// returns the messages it had reported complete.
async fn run_and_kill(server: &FakeOpenAi, out: &Path, kill_after: usize, extra_tokens: usize) -> Vec<String> {
    let mut cmd = party(out);
    cmd.env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", "k")
        .args(["--headless", "--events", "json", "--output"])
        .arg(out);
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for i in 1..=6 {
        stdin.write_all(format!("Message number {i}\n").as_bytes()).await.unwrap();
    }
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut done = Vec::new();
    let mut tokens_after = 0;
    let pid = child.id().unwrap() as i32;
    while let Ok(Some(line)) = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("events keep coming")
    {
        let ev: serde_json::Value = serde_json::from_str(&line).unwrap();
        match ev["type"].as_str() {
            Some("agent_message") => done.push(ev["text"].as_str().unwrap().to_string()),
            Some("agent_token") if done.len() >= kill_after => tokens_after += 1,
            _ => {}
        }
        if done.len() >= kill_after && tokens_after >= extra_tokens {
            break;
        }
    }
    // SIGKILL: no handler runs, nothing gets flushed.
    kill_9(pid);
    let _ = child.wait().await;
    drop(stdin);
    done
}

fn kill_9(pid: i32) {
    let status = std::process::Command::new("kill")
        .arg("-9")
        .arg(pid.to_string())
        .status()
        .expect("kill");
    assert!(status.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn sigkill_at_any_moment_loses_no_completed_message_and_resume_works() {
    let server = FakeOpenAi::start(|r, n| {
        // Each reply is unique so duplicates or losses are visible.
        let who = r.speaker().unwrap_or_default();
        Reply::Stream {
            events: events_of(&format!("Reply {n} from {who}. {}", bmad_party::testing::varied_reply(n))),
            done: true,
            delay: Duration::from_millis(15),
            cut_after: None,
            stall_after: None,
        }
    })
    .await;
    for (kill_after, extra) in [(1, 0), (2, 3), (3, 1), (4, 5), (5, 0)] {
        let dir = tempfile::tempdir().unwrap();
        let done = run_and_kill(&server, dir.path(), kill_after, extra).await;
        assert!(done.len() >= kill_after);
        let file = session_files(dir.path()).pop().expect("a session file exists");
        let s = bmad_party::session::load(&file).unwrap_or_else(|e| panic!("kill after {kill_after}+{extra}: {e}"));
        let saved: Vec<String> = s
            .turns
            .iter()
            .filter(|t| t.kind == bmad_party::session::TurnKind::Agent)
            .map(|t| t.text.clone())
            .collect();
        for m in &done {
            assert_eq!(
                saved.iter().filter(|t| *t == m).count(),
                1,
                "kill after {kill_after}+{extra}: `{m}` must be saved exactly once; saved: {saved:?}"
            );
        }
        assert!(s.fm.party_active && !s.fm.workflow_completed);
        assert!(
            bmad_party::session::lock_path(&file).exists(),
            "the killed party's lock file is still there; the OS released its lock"
        );

        let mut cmd = party(dir.path());
        cmd.env("OPENAI_BASE_URL", server.base_url())
            .env("OPENAI_API_KEY", "k")
            .args(["--headless", "--events", "json"])
            .arg("--resume")
            .arg(&file);
        let (code, stdout, stderr) = run_with_input(cmd, "After the crash\n").await;
        assert_eq!(code, 0, "{stderr}");
        let ev = json_lines(&stdout);
        let round = ev.iter().find(|e| e["type"] == "round_started").expect("a round after resume")["round"]
            .as_u64()
            .unwrap();
        assert_eq!(
            round,
            u64::from(s.fm.conversation_state.current_round) + 1,
            "round numbering continues"
        );
        let after = bmad_party::session::load(&file).unwrap();
        assert_eq!(after.turns[..s.turns.len()], s.turns[..], "resume keeps every saved turn as it was");
        assert!(after.fm.workflow_completed);
        assert!(session_files(dir.path()).len() == 1, "resume writes to the same file");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_in_use_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = party(dir.path());
    cmd.env("BMAD_PARTY_REHEARSAL_DELAY_MS", "50")
        .args(["--headless", "--events", "json", "--output"])
        .arg(dir.path());
    let mut first = cmd.spawn().unwrap();
    let mut stdin = first.stdin.take().unwrap();
    stdin.write_all(b"How should we price the API?\n").await.unwrap();
    let mut lines = BufReader::new(first.stdout.take().unwrap()).lines();
    let mut file = None;
    while let Ok(Some(line)) = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("events keep coming")
    {
        let ev: serde_json::Value = serde_json::from_str(&line).unwrap();
        if ev["type"] == "session_file" {
            file = Some(PathBuf::from(ev["path"].as_str().unwrap()));
        }
        if ev["type"] == "agent_message" {
            break;
        }
    }
    let file = file.expect("the first party names its file");

    let mut cmd = party(dir.path());
    cmd.args(["--headless", "--events", "json", "--resume"]).arg(&file);
    let (code, stdout, stderr) = run_with_input(cmd, "An intruding message\n").await;
    assert_eq!(code, 2, "{stdout}{stderr}");
    let pid = first.id().unwrap();
    assert!(
        stderr.contains("open in another bmad-party") && stderr.contains(&format!("process {pid}")),
        "{stderr}"
    );
    assert!(stdout.is_empty(), "nothing started: {stdout}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains("intruding"), "the second process wrote nothing");
    assert_eq!(session_files(dir.path()).len(), 1);
    drop(stdin);
    let _ = first.wait().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn headless_json_reset_and_question() {
    let server = FakeOpenAi::start(|_, n| {
        if n == 1 {
            bmad_party::testing::stream_of("One thing first.\n!?@human Who is the main user?")
        } else {
            bmad_party::testing::stream_of(&bmad_party::testing::varied_reply(n))
        }
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = party(dir.path());
    cmd.env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", "k")
        .args(["--headless", "--events", "json", "--output"])
        .arg(dir.path());
    let input = "Topic\nDevelopers.\n/reset\n{\"type\":\"turn_confirmation_response\",\"request_id\":\"req-1\",\"confirmed\":true,\"reason\":\"fresh start\"}\nNew topic\n";
    let (code, stdout, stderr) = run_with_input(cmd, input).await;
    assert_eq!(code, 0, "{stderr}");
    let ev = json_lines(&stdout);
    let q = ev.iter().find(|e| e["type"] == "agent_question").expect("agent_question event");
    assert_eq!(q["question"], "Who is the main user?");
    let asker = q["agent"].clone();
    let rounds: Vec<&serde_json::Value> = ev.iter().filter(|e| e["type"] == "round_started").collect();
    assert_eq!(rounds[1]["agents"][0], asker, "the answer goes to the asker first");
    let req = ev
        .iter()
        .find(|e| e["type"] == "turn_confirmation_request")
        .expect("turn_confirmation_request event");
    assert_eq!(req["request_id"], "req-1");
    assert_eq!(req["message"], "/reset");
    assert!(req["description"].as_str().unwrap().contains("round counter"));
    assert_eq!(rounds.last().unwrap()["round"], 1, "rounds restart after the reset");
    let resolved = ev.iter().find(|e| e["type"] == "confirmation_resolved").unwrap();
    assert_eq!(resolved["status"], "confirmed");
    assert_eq!(resolved["reason"], "fresh start");
    assert!(ev.iter().any(|e| e["type"] == "consensus_score"));
    assert!(ev.iter().any(|e| e["type"] == "status" && e["push_budget"] == 3));
}

#[test]
fn help_speaks_the_facilitators_language() {
    let out = std::process::Command::new(BIN).args(["--lang", "zh", "--help"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.contains("用法：") && text.contains("继续一个已保存的会话") && text.contains("显示帮助"),
        "{text}"
    );
    let out = std::process::Command::new(BIN)
        .env("LANG", "zh_CN.UTF-8")
        .env_remove("LC_ALL")
        .arg("--help")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("选项："),
        "the locale decides without --lang"
    );
    let out = std::process::Command::new(BIN)
        .env("LANG", "C.UTF-8")
        .env_remove("LC_ALL")
        .arg("--help")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("Continue a saved session"));
}

#[test]
fn the_agent_list_speaks_the_configs_language() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.yaml");
    std::fs::write(&config, "bmad:\n  party_mode:\n    lang: zh\n").unwrap();
    let out = std::process::Command::new(BIN)
        .current_dir(dir.path())
        .env("LANG", "C.UTF-8")
        .env_remove("LC_ALL")
        .env("XDG_CONFIG_HOME", dir.path())
        .arg("--config")
        .arg(&config)
        .arg("--list-agents")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("位智能体，来自"), "{text}");
}

/// Each bad file the way a user would write it, and what they are told:
/// their own key path and line, what was expected, never the YAML
/// library's advice to its programmers.
#[tokio::test]
async fn bad_files_are_reported_in_the_users_own_words() {
    let dir = tempfile::tempdir().unwrap();
    // A real session, left open, then edited by hand.
    let mut cmd = party(dir.path());
    cmd.args(["--non-interactive", "--rounds", "1", "--output"])
        .arg(dir.path().join("out"))
        .arg("Which name?");
    let (code, _, stderr) = run_with_input(cmd, "").await;
    assert_eq!(code, 0, "{stderr}");
    let real = std::fs::read_to_string(&session_files(&dir.path().join("out"))[0])
        .unwrap()
        .replace("party_active: false", "party_active: true")
        .replace("workflow_completed: true", "workflow_completed: false");
    assert!(real.contains("\n  max_rounds: 1\n") && real.contains("\nuser_name: "), "{real}");
    let cases: Vec<(&str, String)> = vec![
        ("config.yaml", "bmad:\n  party_mode:\n    max_rounds: lots\n".into()),
        ("config.yaml", "bmad:\n  party_mode:\n    max_rounds: 3\n    max_rounds: 4\n".into()),
        ("config.yaml", "bmad:\n  party_mode:\n    max_round: 3\n".into()),
        ("config.yaml", "bmad:\n  llm:\n    temperature: [0.7]\n".into()),
        ("config.yaml", "bmad:\n  llm:\n    tempreature: 0.7\n".into()),
        ("session.md", real.replace("\n  max_rounds: 1\n", "\n  max_round: 1\n")),
        ("session.md", real.replacen("\nuser_name: ", "\nuser_name: Me\nuser_name: ", 1)),
    ];
    let mut report = String::new();
    for (i, (kind, text)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("{i}-{kind}"));
        std::fs::write(&path, text).unwrap();
        let mut cmd = party(dir.path());
        cmd.arg("--headless");
        if *kind == "config.yaml" {
            cmd.arg("--config").arg(&path);
        } else {
            cmd.arg("--resume").arg(&path);
        }
        let (code, _, stderr) = run_with_input(cmd, "").await;
        assert_eq!(code, 2, "{stderr}");
        assert!(
            !stderr.contains("Options") && !stderr.contains("invalid u32"),
            "no library words: {stderr}"
        );
        report.push_str(&stderr.replace(&dir.path().display().to_string(), "DIR"));
        report.push('\n');
    }
    insta::assert_snapshot!("bad_files_in_the_users_words", report);
}

#[tokio::test]
async fn the_facilitators_controls_work_over_json_on_the_real_binary() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.yaml");
    std::fs::write(
        &config,
        "bmad:\n  parties:\n    street-crew:\n      name: Street crew\n      members: [pm, test-architect]\n      scene: A rainy Monday.\n",
    )
    .unwrap();
    let mut cmd = party(dir.path());
    cmd.args(["--headless", "--events", "json", "--max-rounds", "6", "--config"])
        .arg(&config)
        .arg("--output")
        .arg(dir.path().join("out"));
    let line = |text: &str| format!("{}\n", serde_json::json!({"type": "message", "text": text}));
    let input: String = [
        "How should we deliver by bicycle?",
        "/redo",
        "/undo",
        "/take 2",
        "/pin",
        "/summary",
        "/takeaways",
        "/dismiss maya",
        "/invite maya",
        "/mute kofi",
        "/edit How should we deliver by bicycle in winter?",
        "/party street crew",
        "What could break tonight?",
    ]
    .iter()
    .map(|t| line(t))
    .collect();
    let (code, stdout, stderr) = run_with_input(cmd, &input).await;
    assert_eq!(code, 0, "{stderr}");
    let ev = json_lines(&stdout);
    assert!(!ev.iter().any(|e| e["type"] == "rejected"), "every control was taken: {stdout}");
    let notices: Vec<&str> = ev
        .iter()
        .filter(|e| e["type"] == "notice")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    for said in [
        "set aside as take 1",
        "round 1 taken back",
        "round 1 taken back, set aside as take 2",
        "take 2 is back",
        "pinned as a decision",
        "📍 Where we are after round 1",
        "takeaways written to",
        "Maya (analyst) left the room",
        "Maya (analyst) joined the room",
        "muted: Kofi",
        "played again from your edited message",
        "the room is Street crew now",
    ] {
        assert!(notices.iter().any(|n| n.contains(said)), "{said:?} in {notices:#?}");
    }
    let changed: Vec<_> = ev.iter().filter(|e| e["type"] == "room_changed").collect();
    assert_eq!(changed.len(), 3, "dismiss, invite, party");
    assert_eq!(changed[2]["party"], "Street crew");
    let files = session_files(&dir.path().join("out"));
    let s = bmad_party::session::load(&files[0]).unwrap();
    assert_eq!(
        s.fm.topic, "How should we deliver by bicycle in winter?",
        "round 1 edited: the topic"
    );
    assert_eq!(s.fm.party.as_deref(), Some("street-crew"));
    assert!(!s.fm.set_aside.is_empty() && s.fm.pinned.len() == 1);
    assert!(std::fs::read_dir(files[0].parent().unwrap()).unwrap().any(|f| f
        .unwrap()
        .file_name()
        .to_string_lossy()
        .ends_with(".takeaways.md")));
}
