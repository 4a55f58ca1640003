//! `--non-interactive`: the party as a step of another workflow — N rounds
//! with no facilitator and nothing read from stdin, then takeaways (the model's notes, or
//! the transcript's when the model gives none), the path on stdout, exit 0;
//! a clear message and a non-zero exit when the model cannot be reached.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;
use crate::process;

use std::process::Stdio;

use bmad_party::engine::TakeawaysTo;
use bmad_party::testing::{stream_of, FakeOpenAi};
use common::*;
use process::*;

#[tokio::test]
async fn a_party_without_a_facilitator_plays_its_rounds_and_writes_takeaways() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut cmd = party(dir.path());
    cmd.args(["--non-interactive", "--rounds", "2", "--output"])
        .arg(&out)
        .arg("How should we price the API?");
    // Its stdin is closed at once: nothing is ever read from it.
    let (code, stdout, stderr) = run_with_input(cmd, "").await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 1, "the path alone: {stdout}");
    let takeaways = std::fs::read_to_string(stdout.trim()).expect("the takeaways file");
    for section in [
        "# Takeaways: How should we price the API?",
        "## Decisions",
        "## Open questions",
        "## Disagreements",
        "## Positions",
        "- **",
    ] {
        assert!(takeaways.contains(section), "{section} in {takeaways}");
    }
    assert!(stderr.contains("round 2/2 done"), "progress on stderr: {stderr}");
    let file = session_files(&out)
        .into_iter()
        .find(|p| !p.to_string_lossy().ends_with(".takeaways.md"))
        .unwrap();
    let s = bmad_party::session::load(&file).unwrap();
    assert!(s.fm.workflow_completed);
    assert_eq!(s.fm.conversation_state.current_round, 2);
    assert_eq!(s.fm.conversation_state.exit_reason.as_deref(), Some("round_limit"));
    let kinds: Vec<_> = s.turns.iter().map(|t| t.kind).collect();
    use bmad_party::session::TurnKind;
    assert_eq!(kinds.iter().filter(|k| **k == TurnKind::Facilitator).count(), 1, "the topic only");
    assert_eq!(
        kinds.iter().filter(|k| **k == TurnKind::Continue).count(),
        1,
        "then the room went on by itself"
    );
    assert_eq!(kinds.iter().filter(|k| **k == TurnKind::Push).count(), 0, "no pushes");
}

#[tokio::test]
async fn the_command_line_says_what_a_non_interactive_party_needs() {
    let dir = tempfile::tempdir().unwrap();
    for (args, needle) in [
        (&["--non-interactive"][..], "TOPIC"),
        (&["--rounds", "2", "Topic"][..], "--non-interactive"),
        (&["--non-interactive", "--rounds", "0", "Topic"][..], "--rounds"),
        (&["--non-interactive", "--resume", "x.md", "Topic"][..], "--resume"),
    ] {
        let mut cmd = party(dir.path());
        cmd.args(args).stdin(Stdio::null());
        let output = cmd.output().await.unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

#[tokio::test]
async fn a_model_out_of_reach_is_a_clear_failure() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(&config, "bmad:\n  llm:\n    max_retries: 0\n    retry_window_seconds: 1\n").unwrap();
    let mut cmd = party(dir.path());
    cmd.env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .env("OPENAI_API_KEY", "test")
        .args(["--non-interactive", "--rounds", "1", "--config"])
        .arg(&config)
        .arg("Topic");
    let (code, stdout, stderr) = run_with_input(cmd, "").await;
    assert_eq!(code, 3, "the exit status for a model out of reach: {stderr}");
    assert!(stderr.contains("could not be reached"), "{stderr}");
    assert!(stdout.is_empty());
}

/// A server that answers turns with `turn`, and the note-taker's call with `notes`.
async fn server(turn: &'static str, notes: &'static str) -> FakeOpenAi {
    FakeOpenAi::start(move |req, _| {
        if req.prompt_text().contains("## Open questions") {
            stream_of(notes)
        } else {
            stream_of(turn)
        }
    })
    .await
}

#[tokio::test]
async fn the_notes_come_from_the_model_else_from_the_transcript() {
    let turn = "We should run a pilot with two teams first. Who pays for the extra support?";
    let notes = "## Decisions\n- Run a two-team pilot.\n## Open questions\n- Who covers Fridays?\n## Disagreements\n- none\n";
    for (notes, decision, question) in [
        (notes, "- Run a two-team pilot.", "- Who covers Fridays?"),
        // No headings at all: the transcript's own words.
        (
            "The room talked about pilots a lot.",
            ": We should run a pilot with two teams first.",
            ": Who pays for the extra support?",
        ),
    ] {
        let server = server(turn, notes).await;
        let mut party = Party::new(&server);
        let path = party.dir.path().join("takeaways.md");
        party.takeaways = TakeawaysTo::File(path.clone());
        let events = party
            .run(vec![Step::Say("Four-day week?"), Step::Cmd(bmad_party::engine::Command::Exit)])
            .await;
        assert!(events.iter().any(|e| matches!(e, bmad_party::engine::Event::Takeaways { .. })));
        let doc = std::fs::read_to_string(&path).unwrap();
        assert!(doc.contains(decision), "{decision} in {doc}");
        assert!(doc.contains(question), "{question} in {doc}");
        assert!(doc.contains("## Positions\n\n- **"), "{doc}");
    }
}
