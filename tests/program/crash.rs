//! Nothing lost: the real binary killed with SIGKILL at 32 different
//! moments (mid-stream, between messages, while saving, during the graceful
//! exit); after each the session file parses, `--resume` works, and every
//! agent message reported complete before the kill is saved exactly once.
//! And an output folder that cannot be written: the party goes on in
//! memory, says so once, and saves as soon as it can.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use bmad_party::engine::Event;
use bmad_party::session::TurnKind;
use bmad_party::testing::{events_of, FakeOpenAi, Reply};
use common::*;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const BIN: &str = env!("CARGO_BIN_EXE_bmad-party");

fn command(server: &FakeOpenAi, out: &Path) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(BIN);
    c.current_dir(out)
        .env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", "k")
        .env("BMAD_PARTY_MIN_BACKOFF_MS", "20")
        .env("LANG", "C.UTF-8")
        .args(["--headless", "--events", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    c
}

/// What to wait for before the kill.
#[derive(Clone, Copy, Debug)]
enum Moment {
    /// After n completed agent messages and k more streamed tokens.
    Messages(usize, usize),
    /// After the graceful exit started and k farewell tokens streamed.
    Exit(usize),
    /// A fixed time after start.
    Millis(u64),
}

async fn run_and_kill(server: &FakeOpenAi, dir: &Path, moment: Moment, messages: usize) -> (Vec<String>, Option<PathBuf>) {
    let mut child = command(server, dir).arg("--output").arg(dir).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines: String = (1..=messages).map(|i| format!("Message {i}\n")).collect();
    stdin.write_all(lines.as_bytes()).await.unwrap();
    if matches!(moment, Moment::Exit(_)) {
        drop(stdin); // end of input: the graceful exit follows the last round
    } else {
        std::mem::forget(stdin);
    }
    let pid = child.id().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let (mut done, mut file, mut tokens, mut exiting) = (Vec::new(), None, 0usize, false);
    let started = std::time::Instant::now();
    loop {
        let next = tokio::time::timeout(Duration::from_millis(5), out.next_line()).await;
        if let Moment::Millis(ms) = moment {
            if started.elapsed() >= Duration::from_millis(ms) {
                break;
            }
        }
        let Ok(line) = next else { continue };
        let Ok(Some(line)) = line else { break };
        let ev: serde_json::Value = serde_json::from_str(&line).unwrap();
        match ev["type"].as_str().unwrap_or("") {
            "agent_message" => done.push(ev["text"].as_str().unwrap().to_string()),
            "session_file" => file = Some(PathBuf::from(ev["path"].as_str().unwrap())),
            "termination" => exiting = true,
            "agent_token" => tokens += 1,
            "agent_started" => tokens = 0,
            _ => {}
        }
        let stop = match moment {
            Moment::Messages(n, k) => done.len() >= n && tokens >= k,
            Moment::Exit(k) => exiting && tokens >= k,
            Moment::Millis(_) => false,
        };
        if stop {
            break;
        }
    }
    std::process::Command::new("kill").arg("-9").arg(pid.to_string()).status().unwrap();
    let _ = child.wait().await;
    (done, file)
}

#[tokio::test(flavor = "multi_thread")]
async fn sigkill_at_thirty_two_moments() {
    let server = FakeOpenAi::start(|r, n| {
        let who = r.speaker().unwrap_or_default();
        Reply::Stream {
            events: events_of(&format!("Reply {n} from {who}: {}", bmad_party::testing::varied_reply(n))),
            done: true,
            delay: Duration::from_millis(1),
            cut_after: None,
            stall_after: None,
        }
    })
    .await;
    let mut moments: Vec<Moment> = Vec::new();
    for n in 0..=7 {
        // Panes get a sentence at a time: a reply here is three pieces.
        for k in [0, 1, 2] {
            moments.push(Moment::Messages(n, k));
        }
    }
    moments.extend([Moment::Exit(0), Moment::Exit(1), Moment::Exit(2), Moment::Exit(3)]);
    moments.extend([Moment::Millis(10), Moment::Millis(25), Moment::Millis(50), Moment::Millis(90)]);
    assert!(moments.len() >= 32);
    let mut resumed = 0;
    for moment in moments {
        let dir = tempfile::tempdir().unwrap();
        let (done, file) = run_and_kill(&server, dir.path(), moment, 6).await;
        let Some(file) = file.filter(|f| f.exists()) else {
            assert!(done.is_empty(), "{moment:?}: messages were reported but no file exists");
            continue;
        };
        let s = bmad_party::session::load(&file).unwrap_or_else(|e| panic!("{moment:?}: the file does not parse: {e}"));
        let saved: Vec<&String> = s.turns.iter().filter(|t| t.kind == TurnKind::Agent).map(|t| &t.text).collect();
        for m in &done {
            assert_eq!(
                saved.iter().filter(|t| **t == m).count(),
                1,
                "{moment:?}: `{m}` must be saved exactly once"
            );
        }
        if s.fm.workflow_completed {
            continue; // killed after the exit had already finished
        }
        let mut child = command(&server, dir.path()).arg("--resume").arg(&file).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"After the crash\n").await.unwrap();
        drop(stdin);
        let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
            .await
            .unwrap()
            .unwrap();
        assert!(out.status.success(), "{moment:?}: resume failed");
        let after = bmad_party::session::load(&file).unwrap();
        assert_eq!(
            after.turns[..s.turns.len()],
            s.turns[..],
            "{moment:?}: resume keeps every saved turn"
        );
        assert!(after.fm.workflow_completed);
        // A round cut by the kill counts: the resumed one gets a new number.
        let played = s
            .turns
            .iter()
            .filter(|t| t.kind == TurnKind::Agent)
            .map(|t| t.round)
            .max()
            .unwrap_or(0);
        let next = after.turns[s.turns.len()..]
            .iter()
            .find(|t| t.kind == TurnKind::Facilitator)
            .map(|t| t.round);
        assert!(
            next.is_none_or(|r| r > played),
            "{moment:?}: round {played} was cut by the kill, yet the resumed round is numbered {next:?}"
        );
        resumed += 1;
    }
    assert!(resumed >= 25, "most kills leave a resumable session ({resumed})");
}

#[tokio::test]
async fn an_unwritable_output_folder_keeps_the_party_in_memory_and_retries() {
    let server = FakeOpenAi::varied().await;
    let mut party = Party::new(&server);
    // `party-mode` is a file, so the sessions folder cannot be created
    // (a permission test would not hold for root, which CI is).
    let blocker = party.dir.path().join("party-mode");
    std::fs::write(&blocker, "in the way").unwrap();
    party.config.party.diligence.idle_seconds = 3600;
    let unblock = blocker.clone();
    let events = party
        .run(vec![
            Step::Say("Topic"),
            Step::Say("Second"),
            Step::Do(Box::new(move || std::fs::remove_file(&unblock).unwrap())),
            Step::Say("Third"),
        ])
        .await;
    let failures: Vec<_> = events.iter().filter(|e| matches!(e, Event::SaveFailed { .. })).collect();
    assert_eq!(failures.len(), 1, "said once per failure streak");
    assert!(
        events.iter().any(|e| matches!(e, Event::RoundStarted { round: 3, .. })),
        "the party went on"
    );
    let s = load(&session_file(&events));
    assert!(s.fm.workflow_completed, "saved as soon as it could be");
    let facilitator: Vec<_> = s
        .turns
        .iter()
        .filter(|t| t.kind == TurnKind::Facilitator)
        .map(|t| t.text.as_str())
        .collect();
    assert_eq!(
        facilitator,
        ["Topic", "Second", "Third"],
        "nothing said while saving failed is lost"
    );
}

#[tokio::test]
async fn a_full_disk_damages_nothing_and_saving_resumes() {
    let server = FakeOpenAi::varied().await;
    let party = Party::new(&server);
    // A first run leaves a resumable session.
    let mut h = bmad_party::engine::spawn(party.setup());
    let (mut file, mut said) = (None, 0);
    while let Some(ev) = h.events.recv().await {
        match ev {
            Event::SessionFile { path } => file = Some(PathBuf::from(path)),
            Event::AwaitingInput { .. } if said == 0 => {
                said += 1;
                h.commands
                    .send(bmad_party::engine::Command::Message { text: "Topic".into() })
                    .unwrap();
            }
            Event::AwaitingInput { .. } => h.commands.send(bmad_party::engine::Command::Quit).unwrap(),
            Event::SessionEnded { .. } => break,
            _ => {}
        }
    }
    let file = file.unwrap();
    let before = std::fs::read_to_string(&file).unwrap();
    // The next save's temp file is /dev/full: every write fails with ENOSPC.
    let tmp = file.with_file_name(format!(".{}.tmp", file.file_name().unwrap().to_string_lossy()));
    std::os::unix::fs::symlink("/dev/full", &tmp).unwrap();
    let mut again = Party::new(&server);
    again.resume = Some(file.clone());
    let check = file.clone();
    let expected = before.clone();
    let unblock = tmp.clone();
    let events = again
        .run(vec![
            Step::Say("While the disk is full"),
            Step::Do(Box::new(move || {
                // Nothing already saved was damaged by the failed saves.
                assert_eq!(std::fs::read_to_string(&check).unwrap(), expected);
                std::fs::remove_file(&unblock).unwrap();
            })),
            Step::Say("After space is back"),
        ])
        .await;
    let failed: Vec<String> = events
        .iter()
        .filter_map(|e| {
            if let Event::SaveFailed { error, .. } = e {
                Some(error.clone())
            } else {
                None
            }
        })
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0].contains("No space left on device"), "{failed:?}");
    let s = load(&file);
    assert!(s.fm.workflow_completed);
    let said: Vec<_> = s
        .turns
        .iter()
        .filter(|t| t.kind == TurnKind::Facilitator)
        .map(|t| t.text.as_str())
        .collect();
    assert_eq!(
        said,
        ["Topic", "While the disk is full", "After space is back"],
        "nothing said meanwhile was lost"
    );
}
