//! Parties that remember, the real binary headless against the loopback
//! server: a named party brings only its members and its scene; a second
//! session of the party receives what the first wrote to its memory; a
//! memlog written by hand in BMAD's format is read and extended; a BMAD
//! project's groups and custom members; `--no-memory`; documents from
//! `--context` and `/context` reach the model, a long one cut with a note,
//! and a resumed session keeps them.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::process;

use std::path::Path;

use bmad_party::testing::{stream_of, FakeOpenAi, Recorded};
use process::*;

const CONFIG: &str = "\
bmad:
  party_mode:
    round_mode: sequential
  parties:
    crew:
      name: Launch crew
      members: [pm, Maya]
      scene: A cramped war room the night before launch.
    quiet:
      members: [architect, developer]
      memory: false
";

const MEMORY_LINES: &str =
    "- (outcome) The crew settled on a Tuesday launch behind a feature flag\n- (dynamic by Maya) Maya kept asking who pays for support\n";

/// Turns answer with a line; the memory's note-taker with `MEMORY_LINES`.
async fn server() -> FakeOpenAi {
    FakeOpenAi::start(|req, _| {
        if req.system_prompt().contains("You keep the memory") {
            stream_of(MEMORY_LINES)
        } else {
            stream_of("We should test the riskiest assumption first.")
        }
    })
    .await
}

fn cmd(dir: &Path, server: &FakeOpenAi, args: &[&str]) -> tokio::process::Command {
    let mut c = party(dir);
    c.env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", "test")
        .env("OPENAI_MODEL", "m")
        .args(["--headless", "--config", "c.yaml", "--output", "out"])
        .args(args);
    c
}

/// The speakers' calls (not the note-takers').
fn turns(server: &FakeOpenAi) -> Vec<Recorded> {
    server
        .received()
        .into_iter()
        .filter(|r| r.path.ends_with("/chat/completions") && r.speaker().is_some())
        .collect()
}

fn memlog(dir: &Path, party: &str) -> String {
    std::fs::read_to_string(dir.join("out/party-mode/memories").join(party).join(".memlog.md")).unwrap_or_default()
}

#[tokio::test]
async fn a_named_party_brings_its_members_and_remembers_the_session_before() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.yaml"), CONFIG).unwrap();
    let server = server().await;
    let (code, stdout, stderr) = run_with_input(cmd(dir.path(), &server, &["--party", "crew", "Friday launch?"]), "").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("PARTY MODE ACTIVATED: Launch crew"),
        "the welcome names the party: {stdout}"
    );
    let first = turns(&server);
    assert!(!first.is_empty());
    for r in &first {
        let who = r.speaker().unwrap();
        assert!(["Tomás", "Maya"].contains(&who.as_str()), "only the crew speaks: {who}");
        assert!(
            r.system_prompt().contains("A cramped war room the night before launch."),
            "the scene"
        );
        assert!(!r.system_prompt().contains("feature flag"), "nothing remembered yet");
    }
    let s = bmad_party::session::load(&session_files(&dir.path().join("out"))[0]).unwrap();
    assert_eq!(s.fm.agents, ["pm", "analyst"]);
    assert_eq!(s.fm.party.as_deref(), Some("crew"));
    let log = memlog(dir.path(), "crew");
    assert!(log.starts_with("---\nupdated: "), "BMAD's memlog frontmatter: {log}");
    assert!(
        log.contains("- (outcome) The crew settled on a Tuesday launch behind a feature flag\n"),
        "{log}"
    );
    assert!(
        log.contains("- (dynamic by analyst) Maya kept asking"),
        "by the persona's code: {log}"
    );

    // The second session of the crew hears it, as the room's own history.
    let (code, _, stderr) = run_with_input(cmd(dir.path(), &server, &["--party", "crew", "Pricing?"]), "").await;
    assert_eq!(code, 0, "{stderr}");
    let second = &turns(&server)[first.len()..];
    let system = second[0].system_prompt();
    assert!(system.contains("remembers from earlier sessions"), "{system}");
    assert!(
        system.contains("- The crew settled on a Tuesday launch behind a feature flag"),
        "{system}"
    );
    assert!(system.contains("- Maya kept asking who pays for support (Maya)"), "{system}");

    // --no-memory: nothing read, nothing written.
    let before = memlog(dir.path(), "crew");
    let n = turns(&server).len();
    let (code, _, _) = run_with_input(cmd(dir.path(), &server, &["--party", "crew", "--no-memory", "Hiring?"]), "").await;
    assert_eq!(code, 0);
    assert!(!turns(&server)[n..][0].system_prompt().contains("feature flag"));
    assert_eq!(memlog(dir.path(), "crew"), before);

    // A party without memory writes none; the default room has its own.
    let (code, _, _) = run_with_input(cmd(dir.path(), &server, &["--party", "quiet", "Caching?"]), "").await;
    assert_eq!(code, 0);
    assert!(!dir.path().join("out/party-mode/memories/quiet").exists());
    // A rehearsal remembers nothing: its lines are no memory of anything.
    let mut c = party(dir.path());
    c.args([
        "--headless",
        "--config",
        "c.yaml",
        "--output",
        "rehearsed",
        "--party",
        "crew",
        "Topic",
    ]);
    let (code, _, _) = run_with_input(c, "").await;
    assert_eq!(code, 0);
    assert!(dir.path().join("rehearsed/party-mode").is_dir() && !dir.path().join("rehearsed/party-mode/memories").exists());
    let (code, _, _) = run_with_input(cmd(dir.path(), &server, &["Caching?"]), "").await;
    assert_eq!(code, 0);
    assert!(memlog(dir.path(), "installed").contains("feature flag"));
}

#[tokio::test]
async fn a_resumed_session_keeps_its_party_and_a_silent_note_taker_leaves_the_transcripts_lines() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.yaml"), CONFIG).unwrap();
    // The note-taker writes nothing in the asked form.
    let server = FakeOpenAi::start(|req, _| {
        if req.system_prompt().contains("You keep the memory") {
            stream_of("Sorry, I cannot summarise that.")
        } else {
            stream_of("We should ship behind a feature flag first.")
        }
    })
    .await;
    let (code, _, stderr) = run_with_input(
        cmd(dir.path(), &server, &["--party", "crew"]),
        "Friday launch?\n{\"type\":\"quit\"}\n",
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    let file = session_files(&dir.path().join("out")).pop().unwrap();
    let n = turns(&server).len();
    let mut c = party(dir.path());
    c.env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", "test")
        .args(["--headless", "--config", "c.yaml", "--resume"])
        .arg(&file);
    let (code, stdout, stderr) = run_with_input(c, "And the rollback plan?\n").await;
    assert_eq!(code, 0, "{stderr}");
    let speakers: Vec<String> = turns(&server)[n..].iter().filter_map(Recorded::speaker).collect();
    assert!(
        !speakers.is_empty() && speakers.iter().all(|s| s == "Tomás" || s == "Maya"),
        "{speakers:?}"
    );
    assert!(stdout.contains("Launch crew"), "{stdout}");
    let log = memlog(dir.path(), "crew");
    assert!(
        log.contains("- (outcome) ") && log.contains("We should ship behind a feature flag first"),
        "the transcript's decision, as an outcome: {log}"
    );
    assert!(!log.contains("Sorry"), "{log}");
}

#[tokio::test]
async fn an_unknown_party_lists_the_known_ones_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.yaml"), CONFIG).unwrap();
    let mut c = party(dir.path());
    c.args(["--config", "c.yaml", "--party", "crue", "Topic"]);
    let (code, stdout, stderr) = run_with_input(c, "").await;
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("no party named `crue`") && stderr.contains("crew, quiet"),
        "{stderr}"
    );
    assert!(stdout.is_empty());
    let mut c = party(dir.path());
    c.args(["--config", "c.yaml", "--list-parties"]);
    let (code, stdout, _) = run_with_input(c, "").await;
    assert_eq!(code, 0);
    assert!(
        stdout.contains("crew “Launch crew” · remembers") && stdout.contains("📋 Tomás, 📊 Maya"),
        "{stdout}"
    );
    assert!(stdout.contains("A cramped war room"), "{stdout}");
    let bad = "bmad:\n  parties:\n    \"war room\":\n      members: [pm]\n";
    std::fs::write(dir.path().join("c.yaml"), bad).unwrap();
    let mut c = party(dir.path());
    c.args(["--config", "c.yaml", "--list-parties"]);
    let (code, _, stderr) = run_with_input(c, "").await;
    assert_eq!(code, 2);
    assert!(stderr.contains("c.yaml:4") && stderr.contains("bmad.parties.war room"), "{stderr}");
}

const PARTY_MODE_TOML: &str = include_str!("../fixtures/party-mode/customize.toml");

const HAND_WRITTEN: &str = "---\nproject: shop\nupdated: 2026-06-07T14:22\n---\n\n- (dynamic) Winston and Vex clashed over input validation at the edge\n- (callback by sec-hawk) Vex's running bit: \"trust nothing, not even the logs\"\n";

/// A BMAD project under `root`: the fixture's `_bmad` folder and this
/// party-mode customization.
fn bmad_project(root: &Path, customize: &str) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/toml/_bmad");
    copy_dir(&fixture, &root.join("_bmad"));
    std::fs::create_dir_all(root.join("_bmad/core/bmad-party-mode")).unwrap();
    std::fs::write(root.join("_bmad/core/bmad-party-mode/customize.toml"), customize).unwrap();
}

#[tokio::test]
async fn a_bmad_projects_group_reads_and_extends_a_hand_written_memlog() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    bmad_project(root, PARTY_MODE_TOML);
    let memory = root.join("_bmad-output/party-mode/memories/review/.memlog.md");
    std::fs::create_dir_all(memory.parent().unwrap()).unwrap();
    std::fs::write(&memory, HAND_WRITTEN).unwrap();
    let server = server().await;
    let mut c = party(root);
    c.env("OPENAI_BASE_URL", server.base_url()).env("OPENAI_API_KEY", "test").args([
        "--headless",
        "--party",
        "review",
        "Rate limits for the public API?",
    ]);
    let (code, stdout, stderr) = run_with_input(c, "").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Review crew"), "{stdout}");
    let calls = turns(&server);
    let speakers: Vec<String> = calls.iter().filter_map(Recorded::speaker).collect();
    assert!(speakers.iter().all(|s| s == "Vex" || s == "Winston"), "{speakers:?}");
    assert!(
        speakers.iter().any(|s| s == "Vex"),
        "the custom member joins its group: {speakers:?}"
    );
    let system = calls[0].system_prompt();
    assert!(
        system.contains("- Winston and Vex clashed over input validation at the edge"),
        "{system}"
    );
    assert!(system.contains("trust nothing, not even the logs\" (Vex)"), "{system}");
    let log = std::fs::read_to_string(&memory).unwrap();
    assert!(
        log.starts_with("---\nproject: shop\nupdated: "),
        "fields kept, `updated` stamped last: {log}"
    );
    assert!(
        log.contains(HAND_WRITTEN.split("---\n\n").nth(1).unwrap()),
        "every line kept: {log}"
    );
    assert!(
        log.ends_with("- (dynamic) Maya kept asking who pays for support\n"),
        "appended; Maya is no member, so no `by`: {log}"
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

#[tokio::test]
async fn documents_reach_the_model_a_long_one_cut_and_a_resume_keeps_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("c.yaml"),
        "bmad:\n  party_mode:\n    round_mode: sequential\n  llm:\n    context_tokens: 4096\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("brief.md"), "# Brief\nThe launch date is the 14th of March.\n").unwrap();
    let long: String = (0..3000).map(|i| format!("Requirement {i}: the widget shall comply.\n")).collect();
    std::fs::write(dir.path().join("spec.md"), &long).unwrap();
    std::fs::write(dir.path().join("later.txt"), "Budget: 40k, no more.\n").unwrap();
    std::fs::write(dir.path().join("early.txt"), "Team: four people.\n").unwrap();
    let server = server().await;
    let mut c = cmd(dir.path(), &server, &["--context", "brief.md", "--context", "spec.md"]);
    c.arg("--no-memory");
    // Before the topic, and mid-party: neither is a word to the room.
    let script = "/context early.txt\nLaunch plan?\n/context later.txt\nAnd the budget?\n/context nowhere.md\n{\"type\":\"quit\"}\n";
    let (code, stdout, stderr) = run_with_input(c, script).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("📎 early.txt is in front of the room"), "{stdout}");
    assert!(stdout.contains("📎 later.txt is in front of the room"), "{stdout}");
    assert!(stderr.contains("nowhere.md: cannot read"), "refused, naming it: {stderr}");
    let calls = turns(&server);
    let system = calls[0].system_prompt();
    assert!(
        system.contains("=== brief.md ===\n# Brief\nThe launch date is the 14th of March."),
        "{system}"
    );
    assert!(system.contains("Requirement 0: the widget shall comply."), "{system}");
    assert!(!system.contains("Requirement 2999"), "the long one is cut");
    assert!(system.contains("% shown]\n=== end of spec.md ==="), "with a note: {system}");
    assert!(!system.contains("40k"), "not attached yet");
    assert!(system.contains("=== early.txt ===\nTeam: four people."), "{system}");
    let last = calls.last().unwrap().system_prompt();
    assert!(last.contains("=== later.txt ===\nBudget: 40k, no more."), "{last}");
    for r in &calls {
        let tokens = bmad_party::engine::budget::estimate_tokens(&r.prompt_text());
        assert!(tokens + 350 <= 4096, "every prompt fits the window: {tokens}");
    }
    let file = session_files(&dir.path().join("out")).pop().unwrap();
    let s = bmad_party::session::load(&file).unwrap();
    assert_eq!(s.fm.context.len(), 4, "{:?}", s.fm.context);
    assert_eq!(s.fm.topic, "Launch plan?", "a /context before the topic is not the topic");

    // Resumed: the three are in front of the room again, one that is gone is said.
    std::fs::remove_file(dir.path().join("brief.md")).unwrap();
    let n = turns(&server).len();
    let mut c = party(dir.path());
    c.env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", "test")
        .args(["--headless", "--config", "c.yaml", "--no-memory", "--resume"])
        .arg(&file);
    let (code, stdout, stderr) = run_with_input(c, "One more thing?\n").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("brief.md") && stdout.contains("goes on without it"), "{stdout}");
    let system = turns(&server)[n].system_prompt();
    assert!(
        system.contains("=== later.txt ===") && system.contains("=== spec.md ==="),
        "{system}"
    );
}

#[tokio::test]
async fn a_reply_that_reads_the_scene_back_loses_that_sentence() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.yaml"), CONFIG).unwrap();
    let server =
        FakeOpenAi::start(|_, _| stream_of("In a cramped war room the night before launch, everyone waits. Ship it behind a flag.")).await;
    let mut c = cmd(
        dir.path(),
        &server,
        &["--party", "crew", "--events", "json", "--no-memory", "Friday?"],
    );
    c.arg("--max-rounds").arg("1");
    let (code, stdout, stderr) = run_with_input(c, "").await;
    assert_eq!(code, 0, "{stderr}");
    let said: Vec<String> = json_lines(&stdout)
        .into_iter()
        .filter(|e| e["type"] == "agent_message")
        .map(|e| e["text"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(!said.is_empty(), "{stdout}");
    for text in &said {
        assert_eq!(text.trim(), "Ship it behind a flag.", "the scene is staging, not a reply");
    }
}

#[tokio::test]
async fn an_unknown_endpoint_in_a_bmad_customization_is_located_there_not_in_the_agent_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let custom = format!(
        "{PARTY_MODE_TOML}\n[[workflow.party_members]]\ncode = \"architect\"\nendpoint = \"nowhere\"\n\n[[workflow.party_groups]]\nid = \"split\"\nmembers = [\"sec-hawk@elsewhere\", \"architect\"]\n"
    );
    bmad_project(root, &custom);
    let server = server().await;
    let mut c = party(root);
    c.env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", "test")
        .args(["--headless", "--party", "split", "Rate limits?"]);
    let (code, _, stderr) = run_with_input(c, "").await;
    assert_eq!(code, 2, "{stderr}");
    let file = "_bmad/core/bmad-party-mode/customize.toml";
    assert!(
        stderr.contains(&format!(
            "{file} [workflow.party_members[1]]: `endpoint`: no endpoint named `nowhere`"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "{file} [workflow.party_groups[2]]: `members`: no endpoint named `elsewhere`"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("agents/"), "not the agent's file: {stderr}");
    assert!(server.received().is_empty(), "nothing sent");
}
