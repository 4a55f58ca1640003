//! Sessions from the command line, the real binary headless: a topic given
//! as an argument, the list of sessions, `--resume` with no file, a resumed
//! session's earlier turns, and a driver that keeps its pipe open.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use std::time::Duration;

use tokio::io::AsyncWriteExt;

use crate::process;
use process::*;

#[tokio::test]
async fn headless_exits_when_the_party_ends_though_its_stdin_stays_open() {
    // A driver that keeps its pipe open (another program running the party)
    // must see the process end with the party, and resume shows the turns
    // of the earlier sitting before the divider.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut cmd = party(dir.path());
    cmd.args(["--headless", "--output"]).arg(&out);
    let (code, _, _) = run_with_input(cmd, "How do we price the API?\n{\"type\":\"quit\"}\n").await;
    assert_eq!(code, 0);
    let file = session_files(&out).pop().expect("a session file");

    let mut cmd = party(dir.path());
    cmd.args(["--headless", "--output"]).arg(&out).arg("--resume").arg(&file);
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"{\"type\":\"quit\"}\n").await.unwrap();
    // stdin is held open for the rest of the test.
    let done = tokio::time::timeout(Duration::from_secs(10), child.wait_with_output())
        .await
        .expect("the process ended with the party")
        .unwrap();
    drop(stdin);
    assert!(done.status.success());
    let text = String::from_utf8_lossy(&done.stdout);
    let divider = text.find("this sitting begins here").expect("the divider");
    assert!(
        text[..divider].contains(": How do we price the API?"),
        "the earlier sitting's opening comes before the divider: {text}"
    );
}

#[tokio::test]
async fn a_topic_on_the_command_line_opens_the_party() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut cmd = party(dir.path());
    cmd.args(["--headless", "--events", "json", "--output"])
        .arg(&out)
        .arg("How should we price the API?");
    // No stdin at all: the topic's round runs, then the facilitator has left.
    let (code, stdout, _) = run_with_input(cmd, "").await;
    assert_eq!(code, 0);
    let events = json_lines(&stdout);
    let opened = events
        .iter()
        .find(|e| e["type"] == "facilitator_message")
        .expect("the topic was said");
    assert_eq!(opened["text"], "How should we price the API?");
    assert!(events.iter().any(|e| e["type"] == "agent_message"), "the room answered it");
    let file = session_files(&out).pop().expect("a session file");
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("topic: How should we price the API?"));

    // A topic and --resume contradict each other: said, nothing written.
    let mut cmd = party(dir.path());
    cmd.args(["--headless", "--output"])
        .arg(&out)
        .arg("--resume")
        .arg(&file)
        .arg("Another topic");
    let before = std::fs::read_to_string(&file).unwrap();
    let (code, _, stderr) = run_with_input(cmd, "").await;
    assert_eq!(code, 2);
    assert!(stderr.contains("would open a new party") && stderr.contains("--resume"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
}

#[tokio::test]
async fn sessions_lists_newest_first_and_resume_alone_continues_the_newest_unfinished() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = |topic: &'static str, then: &'static str| {
        let mut cmd = party(dir.path());
        cmd.args(["--headless", "--output"]).arg(&out).arg(topic);
        run_with_input(cmd, then)
    };
    // Left at the end of input: finished. Quit: resumable. Then one more,
    // finished, and newest of all.
    assert_eq!(run("Onboarding in a week", "").await.0, 0);
    assert_eq!(run("Pricing the API", "{\"type\":\"quit\"}\n").await.0, 0);
    assert_eq!(run("Naming the product", "").await.0, 0);
    std::fs::write(out.join("party-mode/notes.md"), "just notes\n").unwrap();

    let mut cmd = party(dir.path());
    cmd.arg("sessions").arg("--output").arg(&out);
    let (code, stdout, stderr) = run_with_input(cmd, "").await;
    assert_eq!(code, 0, "{stderr}");
    let order: Vec<&str> = ["Naming the product", "Pricing the API", "Onboarding in a week"]
        .into_iter()
        .filter(|t| stdout.contains(t))
        .collect();
    assert_eq!(order.len(), 3, "{stdout}");
    let at = |t: &str| stdout.find(t).unwrap();
    assert!(
        at("Naming") < at("Pricing") && at("Pricing") < at("Onboarding"),
        "newest first: {stdout}"
    );
    let line = |t: &str| stdout.lines().find(|l| l.contains(t)).unwrap().to_string();
    assert!(
        line("Pricing").contains("resumable") && line("Naming").contains("finished"),
        "{stdout}"
    );
    assert!(stdout.contains(".md"), "the files are named: {stdout}");
    assert!(stderr.contains("notes.md"), "a file that is no session is named: {stderr}");

    // --resume with no file: the newest unfinished session, not the newest.
    let mut cmd = party(dir.path());
    cmd.args(["--headless", "--output"]).arg(&out).arg("--resume");
    let (code, stdout, stderr) = run_with_input(cmd, "{\"type\":\"quit\"}\n").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Resuming the party on “Pricing the API”"), "{stdout}");

    // Nothing left to resume: said, exit 1.
    let empty = dir.path().join("empty");
    let mut cmd = party(dir.path());
    cmd.args(["--headless", "--output"]).arg(&empty).arg("--resume");
    let (code, _, stderr) = run_with_input(cmd, "").await;
    assert_eq!(code, 1);
    assert!(stderr.contains("no session to resume"), "{stderr}");
}
