//! The exit status of the real binary, the same in every front end (the
//! table in `--help`): 0 for a party that ended and is saved, 3 when the
//! model could not be reached, 4 when the session's end could not be saved,
//! 130 after a signal. The full screen's own runs are in `tmux_e2e.rs`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::process;

use std::time::Duration;

use process::*;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A config whose endpoint gives up at once.
fn quick_give_up(dir: &std::path::Path) -> std::path::PathBuf {
    let config = dir.join("c.yaml");
    std::fs::write(&config, "bmad:\n  llm:\n    max_retries: 0\n    retry_window_seconds: 1\n").unwrap();
    config
}

#[tokio::test]
async fn a_model_out_of_reach_exits_3_in_every_front_end() {
    for front in [
        &["--headless"][..],
        &["--headless", "--events", "json"],
        &["--non-interactive", "--rounds", "1"],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let config = quick_give_up(dir.path());
        let mut cmd = party(dir.path());
        cmd.env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
            .env("OPENAI_API_KEY", "test")
            .args(front)
            .arg("--config")
            .arg(&config)
            .arg("Topic");
        let (code, stdout, stderr) = run_with_input(cmd, "").await;
        assert_eq!(code, 3, "{front:?}: {stdout}\n{stderr}");
    }
}

#[tokio::test]
async fn a_party_that_ended_and_is_saved_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = party(dir.path());
    cmd.args(["--headless", "--events", "json", "--output"]).arg(dir.path().join("out"));
    let (code, stdout, stderr) = run_with_input(cmd, "Which name?\n/exit\n").await;
    assert_eq!(code, 0, "{stderr}");
    let end = json_lines(&stdout).into_iter().find(|e| e["type"] == "session_ended").unwrap();
    assert_eq!(end["saved"], true);
    assert_eq!(end["completed"], true);
}

#[tokio::test]
async fn a_disk_that_fills_up_exits_4_says_so_and_leaves_no_temp_file() {
    for front in [
        &["--headless"][..],
        &["--headless", "--events", "json"],
        &["--non-interactive", "--rounds", "2"],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let mut cmd = party(dir.path());
        // Every save after the first fails with ENOSPC (debug builds).
        cmd.env("BMAD_PARTY_FAULT", "disk-full").args(front).arg("--output").arg(&out);
        let input = if front[0] == "--headless" { "Which name?\n/exit\n" } else { "" };
        if front[0] != "--headless" {
            cmd.arg("Which name?");
        }
        let (code, stdout, stderr) = run_with_input(cmd, input).await;
        assert_eq!(code, 4, "{front:?}: {stdout}\n{stderr}");
        assert!(!stdout.contains("Session saved to"), "never said saved when it was not: {stdout}");
        if front.contains(&"json") {
            let end = json_lines(&stdout).into_iter().find(|e| e["type"] == "session_ended").unwrap();
            assert_eq!(end["saved"], false, "{end}");
            assert_eq!(end["completed"], false, "{end}");
        } else if front[0] == "--headless" {
            assert!(stdout.contains("could not be saved"), "{stdout}");
        }
        let left = temp_files(&out);
        assert!(left.is_empty(), "{left:?}");
    }
}

#[tokio::test]
async fn a_signal_stops_the_party_saved_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = party(dir.path());
    cmd.args(["--headless", "--events", "json", "--output"]).arg(dir.path().join("out"));
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"Which name?\n").await.unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // The room answered and waits for the next message: stop it there.
    let mut waits = 0;
    while let Ok(Some(l)) = tokio::time::timeout(Duration::from_secs(30), lines.next_line()).await.unwrap() {
        if l.contains("\"awaiting_input\"") {
            waits += 1;
            if waits == 2 {
                break;
            }
        }
    }
    assert_eq!(waits, 2, "the first round was played");
    let pid = child.id().unwrap().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let mut rest = String::new();
    while let Ok(Some(l)) = lines.next_line().await {
        rest.push_str(&l);
        rest.push('\n');
    }
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait()).await.unwrap().unwrap();
    assert_eq!(status.code(), Some(130), "{rest}");
    assert!(rest.contains("\"saved\":true"), "{rest}");
    drop(stdin);
}
