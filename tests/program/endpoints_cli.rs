//! Rooms of several models as a facilitator starts them: the real binary
//! with named endpoints in its config — bad ones stop the start before
//! anything is sent, the rehearsal speaks for all, a resumed session keeps
//! each agent's endpoint, the listings show each member's model.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use bmad_party::testing::FakeOpenAi;

use crate::process;

/// Every file under `dir` (the session, the output folder, the state and
/// log folders), read as text.
fn files_under(dir: &std::path::Path) -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
                out.push((path, text));
            }
        }
    }
    out
}

/// Two loopback servers and a config of both (`two_server_config`) in a
/// fresh folder; the servers answer while they are held.
async fn two_servers() -> (tempfile::TempDir, FakeOpenAi, FakeOpenAi, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let local = FakeOpenAi::varied().await;
    let remote = FakeOpenAi::varied().await;
    let config = two_server_config(dir.path(), &local, &remote);
    (dir, local, remote, config)
}

/// A config with a default endpoint on `local` and two named ones: `hosted`
/// on `remote`, `twin` on `local` again with a key of its own.
fn two_server_config(dir: &std::path::Path, local: &FakeOpenAi, remote: &FakeOpenAi) -> std::path::PathBuf {
    let path = dir.join("config.yaml");
    let text = format!(
        "bmad:\n  llm:\n    base_url: {}\n    model: test-model\n    endpoints:\n      hosted:\n        base_url: {}\n        model: hosted-model\n        api_key_env: BMAD_TEST_HOSTED_KEY\n      twin:\n        base_url: {}\n        api_key_env: BMAD_TEST_TWIN_KEY\n",
        local.base_url(),
        remote.base_url(),
        local.base_url()
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test]
async fn bad_endpoints_stop_the_start_before_anything_is_sent_and_good_ones_send_their_own_keys() {
    let (dir, local, remote, config) = two_servers().await;
    let run = |extra: &[&str], keys: bool| {
        let mut cmd = process::party(dir.path());
        cmd.arg("--config").arg(&config).env("OPENAI_API_KEY", "local-key");
        cmd.args(["--endpoint", "Ingrid=hosted", "--endpoint", "developer=twin"]);
        if keys {
            cmd.env("BMAD_TEST_HOSTED_KEY", "hosted-secret")
                .env("BMAD_TEST_TWIN_KEY", "twin-secret");
        } else {
            cmd.env_remove("BMAD_TEST_HOSTED_KEY").env("BMAD_TEST_TWIN_KEY", "twin-secret");
        }
        cmd.args(extra);
        cmd
    };
    let party = ["--headless", "--events", "json"];
    let say = "Ingrid and Kofi: which database?\n";

    let (code, _, stderr) = process::run_with_input(run(&party, false), say).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("config.yaml:9: `bmad.llm.endpoints.hosted.api_key_env`") && stderr.contains("BMAD_TEST_HOSTED_KEY"),
        "{stderr}"
    );
    let mut unknown = run(&party, true);
    unknown.args(["--endpoint", "pm=nowhere"]);
    let (code, _, stderr) = process::run_with_input(unknown, say).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--endpoint: no endpoint named `nowhere`"), "{stderr}");
    assert!(local.received().is_empty() && remote.received().is_empty(), "nothing sent");
    assert!(local.gets().is_empty() && remote.gets().is_empty(), "nothing asked");

    let (code, stdout, stderr) = process::run_with_input(run(&["--list-agents"], false), "").await;
    assert_eq!(code, 0, "{stderr}");
    let line = |name: &str| stdout.lines().find(|l| l.contains(name)).unwrap_or_default().to_string();
    assert!(line("Ingrid").contains("· hosted: hosted-model"), "{stdout}");
    assert!(line("Kofi").contains("· twin: the model its server lists"), "{stdout}");
    assert!(line("Maya").contains("· default: test-model"), "{stdout}");

    let (code, stdout, stderr) = process::run_with_input(run(&party, true), say).await;
    assert_eq!(code, 0, "{stderr}");
    let said = format!("{stdout}{stderr}");
    assert!(said.contains("`default` and `twin`"), "one address, two keys: {said}");
    assert!(!stdout.contains("-secret") && !stderr.contains("-secret"), "no key is shown");
    let written = files_under(dir.path());
    assert!(
        written
            .iter()
            .any(|(p, _)| p.extension().is_some_and(|e| e == "md") && p.to_string_lossy().contains("party-mode")),
        "the session was written: {written:?}"
    );
    for (path, text) in &written {
        assert!(!text.contains("-secret"), "no key is written: {}", path.display());
    }
    let hosted: Vec<_> = remote.received();
    assert!(!hosted.is_empty());
    assert!(hosted.iter().all(|r| r.header("authorization") == Some("Bearer hosted-secret")));
    assert!(hosted.iter().all(|r| r.body["model"] == "hosted-model"));
    let on_local = local.received();
    let keys = |key: &str| on_local.iter().filter(|r| r.header("authorization") == Some(key)).count();
    assert!(keys("Bearer twin-secret") >= 1 && keys("Bearer local-key") >= 1, "{on_local:?}");
    for r in &on_local {
        let twin = r.header("authorization") == Some("Bearer twin-secret");
        assert_eq!(twin, r.speaker().as_deref() == Some("Kofi"), "{:?}", r.speaker());
    }
}

#[tokio::test]
async fn a_rehearsal_speaks_for_the_whole_room_and_says_the_endpoints_go_unused() {
    let dir = tempfile::tempdir().unwrap();
    let remote = FakeOpenAi::varied().await;
    // No default server and no OPENAI_API_KEY: the default is the rehearsal.
    let implicit = dir.path().join("implicit.yaml");
    let text = format!(
        "bmad:\n  llm:\n    endpoints:\n      hosted:\n        base_url: {}\n        api_key_env: BMAD_TEST_HOSTED_KEY\n",
        remote.base_url()
    );
    std::fs::write(&implicit, text).unwrap();
    let local = FakeOpenAi::varied().await;
    let asked = two_server_config(dir.path(), &local, &remote);
    for (config, flag) in [(&implicit, None), (&asked, Some("--rehearsal"))] {
        let out = tempfile::tempdir().unwrap();
        let mut cmd = process::party(dir.path());
        cmd.arg("--config").arg(config).arg("--output").arg(out.path());
        cmd.args(["--endpoint", "Ingrid=hosted", "--headless", "--events", "json"]);
        cmd.env("BMAD_TEST_HOSTED_KEY", "hosted-secret");
        cmd.args(flag);
        let (code, stdout, stderr) = process::run_with_input(cmd, "Ingrid and Kofi: which database?\n").await;
        assert_eq!(code, 0, "{stderr}");
        let said = format!("{stdout}{stderr}");
        assert!(
            said.contains("The rehearsal speaks for every agent: the endpoints given to agents (hosted) are not used."),
            "{said}"
        );
        assert!(said.contains("Ingrid"), "Ingrid speaks: {said}");
        let session = std::fs::read_to_string(&process::session_files(out.path())[0]).unwrap();
        assert!(session.contains("agent=architect"), "{session}");
        assert!(!session.contains("endpoint="), "no turn records a server: {session}");
    }
    assert!(
        remote.received().is_empty() && remote.gets().is_empty(),
        "nothing sent to the endpoint"
    );
    assert!(local.received().is_empty(), "nothing sent to the default");
}

/// Opens a finished headless session again, as if the party had been left
/// open, so that it can be resumed.
fn reopen(file: &std::path::Path) {
    let text = std::fs::read_to_string(file).unwrap();
    let text =
        text.replacen("workflow_completed: true", "workflow_completed: false", 1)
            .replacen("party_active: false", "party_active: true", 1);
    std::fs::write(file, text).unwrap();
}

#[tokio::test]
async fn a_resumed_session_keeps_each_agents_endpoint_and_says_what_changed() {
    // The hosted server stays up while the test runs: the config names it.
    let (dir, local, _remote, config) = two_servers().await;
    let run = |extra: &[&str]| {
        let mut cmd = process::party(dir.path());
        cmd.arg("--config").arg(&config).env("OPENAI_API_KEY", "local-key");
        cmd.env("BMAD_TEST_HOSTED_KEY", "hosted-secret")
            .env("BMAD_TEST_TWIN_KEY", "twin-secret");
        cmd.args(["--headless", "--events", "json"]).args(extra);
        cmd
    };
    let (code, _, stderr) = process::run_with_input(run(&["--endpoint", "Kofi=twin"]), "Ingrid and Kofi: which database?\n").await;
    assert_eq!(code, 0, "{stderr}");
    let file = process::session_files(&dir.path().join("_bmad-output"))[0].clone();
    reopen(&file);
    let before = local.received().len();

    // No flag now: Kofi still speaks through `twin`, not the default a new
    // session would give him, and the room is told so; nobody moved.
    let mut resumed = run(&["--resume"]);
    resumed.arg(&file);
    let (code, stdout, stderr) = process::run_with_input(resumed, "Kofi, and the backups?\n").await;
    assert_eq!(code, 0, "{stderr}");
    let said = format!("{stdout}{stderr}");
    assert!(!said.contains("now speaks through"), "{said}");
    assert!(said.contains("Kofi still speaks through twin"), "{said}");
    let kofi: Vec<_> = local.received()[before..]
        .iter()
        .filter(|r| r.speaker().as_deref() == Some("Kofi"))
        .map(|r| r.header("authorization").unwrap_or_default().to_string())
        .collect();
    assert!(!kofi.is_empty() && kofi.iter().all(|k| k == "Bearer twin-secret"), "{kofi:?}");
    let s = bmad_party::session::load(&file).unwrap();
    let kofis: Vec<_> = s.turns.iter().filter(|t| t.agent.as_deref() == Some("developer")).collect();
    assert!(
        kofis.len() >= 2 && kofis.iter().all(|t| t.endpoint.as_deref() == Some("twin")),
        "{kofis:?}"
    );

    // A flag now moves him, and the room is told.
    reopen(&file);
    let mut moved = run(&["--endpoint", "Kofi=hosted", "--resume"]);
    moved.arg(&file);
    let (code, stdout, stderr) = process::run_with_input(moved, "Kofi?\n").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        format!("{stdout}{stderr}").contains("Kofi now speaks through hosted, was twin."),
        "{stdout}{stderr}"
    );
}

#[tokio::test]
async fn list_parties_shows_the_model_beside_each_member_and_its_endpoint() {
    let (dir, local, remote, config) = two_servers().await;
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("  parties:\n    crew:\n      members: [architect@hosted, developer, pm@twin]\n");
    std::fs::write(&config, text).unwrap();
    let mut cmd = process::party(dir.path());
    cmd.arg("--config").arg(&config).arg("--list-parties");
    let (code, stdout, stderr) = process::run_with_input(cmd, "").await;
    assert_eq!(code, 0, "{stderr}");
    let crew = stdout
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("crew"))
        .nth(1)
        .unwrap_or_default();
    assert!(
        crew.contains("Ingrid@hosted (hosted-model), 💻 Kofi (test-model), 📋 Tomás@twin (the model its server lists)"),
        "{stdout}"
    );
    assert!(local.received().is_empty() && remote.gets().is_empty(), "nothing asked");
}
