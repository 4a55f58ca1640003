//! Hostile text: model output and file content carrying ESC/CSI/OSC
//! sequences (title change, OSC 52 clipboard write, cursor moves, screen
//! clear), C1 controls, NUL, lone surrogates in JSON and bidi overrides.
//! Nothing reaches the terminal as a control sequence — through the engine
//! into the TUI's TestBackend, and through the headless transcript — and the
//! session file stays readable and reloadable.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use bmad_party::engine::Event;
use bmad_party::frontend::tui::app::App;
use bmad_party::frontend::tui::view;
use bmad_party::i18n::Lang;
use bmad_party::testing::{chunk, stream_events, FakeOpenAi};
use common::*;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use tokio::io::AsyncWriteExt;

/// Pieces a hostile model might send, split mid-sequence on purpose.
fn hostile_pieces() -> Vec<String> {
    vec![
        "Sure. \u{1b}]0;pwned title\u{7}".into(),
        "Copy this \u{1b}]52;c;cm0gLXJmIH4=\u{1b}".into(),
        "\\ now \u{1b}[2".into(),
        "J\u{1b}[10;10H moved \u{9b}31m red \u{0}nul \u{85}nel ".into(),
        "\u{202e}reversed\u{202c} \u{2066}isolate\u{2069} end.".into(),
    ]
}

fn hostile_server_events() -> Vec<String> {
    let mut ev: Vec<String> = hostile_pieces().iter().map(|p| chunk(Some(p), None)).collect();
    // A lone surrogate escape: not valid UTF-16, must not break anything.
    ev.push(r#"{"choices":[{"index":0,"delta":{"content":"\ud800 lone"}}]}"#.to_string());
    ev.push(chunk(None, Some("stop")));
    ev
}

fn assert_clean(text: &str, what: &str) {
    for c in text.chars() {
        let bad = (c.is_control() && c != '\n' && c != '\t')
            || ('\u{80}'..='\u{9f}').contains(&c)
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c);
        assert!(!bad, "{what}: control character U+{:04X} in {text:?}", c as u32);
    }
}

#[tokio::test]
async fn hostile_model_output_through_engine_file_and_full_screen() {
    let server = FakeOpenAi::start(|_, _| stream_events(hostile_server_events())).await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    for e in &events {
        assert_clean(
            &serde_json::to_string(e).unwrap().replace("\\n", " ").replace("\\t", " "),
            "event JSON",
        );
        if let Event::AgentToken { text, .. } | Event::AgentMessage { text, .. } = e {
            assert_clean(text, "event text");
        }
    }
    let msg = &agent_messages(&events)[0].1;
    assert!(
        msg.contains("Sure.") && msg.contains("moved") && msg.contains("end."),
        "the readable text survives: {msg}"
    );
    assert!(
        !msg.contains("pwned") && !msg.contains("cm0gLXJmIH4="),
        "sequence payloads are dropped: {msg}"
    );

    // The file is readable and reloads to the same text.
    let path = session_file(&events);
    let raw = std::fs::read_to_string(&path).unwrap();
    assert_clean(&raw, "session file");
    let s = load(&path);
    assert!(s.turns.iter().any(|t| &t.text == msg));

    // The full screen, fed the same events.
    let mut app = App::new(Lang::En);
    for e in &events {
        app.on_event(e.clone());
    }
    let mut t = Terminal::new(TestBackend::new(100, 40)).unwrap();
    t.draw(|f| view::draw(f, &app, Instant::now())).unwrap();
    for cell in t.backend().buffer().content() {
        assert_clean(cell.symbol(), "screen cell");
    }
}

#[tokio::test]
async fn hostile_text_in_files_and_the_headless_transcript() {
    let server = FakeOpenAi::start(|_, _| stream_events(hostile_server_events())).await;
    let dir = tempfile::tempdir().unwrap();
    // An agent file and a workflow template with escape sequences in them.
    let agents = dir.path().join("agents");
    std::fs::create_dir(&agents).unwrap();
    // YAML's own escapes (\e, \x9b) parse into control characters.
    std::fs::write(agents.join("x.md"), "---\nid: x\nname: \"Evil\\e[31m Eve\"\ntitle: \"T\\x9b2J\"\nicon: \"😈\"\nrole: r\nidentity: i\ncommunication_style: c\nprinciples: p\n---\n").unwrap();
    std::fs::write(
        agents.join("y.md"),
        "---\nid: y\nname: Yan\ntitle: T\nicon: \"🙂\"\nrole: r\nidentity: i\ncommunication_style: c\nprinciples: p\n---\n",
    )
    .unwrap();
    let wf = dir.path().join("workflows/party-mode/steps");
    std::fs::create_dir_all(&wf).unwrap();
    let step = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/workflows/party-mode/steps/step-02-discussion-orchestration.md"
    ))
    .unwrap();
    std::fs::write(
        wf.join("step-02-discussion-orchestration.md"),
        step.replace("[E] Exit Party Mode", "[E] Exit \u{1b}]0;owned\u{7}Party Mode"),
    )
    .unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_bmad-party"))
        .current_dir(dir.path())
        .env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", "k")
        .args(["--headless", "--output"])
        .arg(dir.path().join("out"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all("Topic \u{1b}[1mbold\u{1b}[0m\n".as_bytes())
        .await
        .unwrap();
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_clean(&stdout, "headless transcript");
    assert_clean(&String::from_utf8_lossy(&out.stderr), "stderr");
    assert!(stdout.contains("Evil Eve") && stdout.contains("[E] Exit Party Mode"), "{stdout}");
}

#[test]
fn a_raw_escape_in_an_agent_file_is_a_located_error_with_a_clean_snippet() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("agents")).unwrap();
    std::fs::write(dir.path().join("agents/x.md"), "---\nid: x\nname: \"Evil\u{1b}[31m Eve\"\n---\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bmad-party"))
        .current_dir(dir.path())
        .arg("--list-agents")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("agents/x.md:3:"), "{err}");
    assert_clean(&err, "error message");
}
