//! The real binary as a child process: a clean environment, stdin fed,
//! stdout and stderr read back; the session files it wrote.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::Command;

pub const BIN: &str = env!("CARGO_BIN_EXE_bmad-party");

/// A child process with a clean environment, run from an empty folder (so
/// the built-in agents and workflow are used, as after `cargo install`).
pub fn party(cwd: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.current_dir(cwd)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OPENAI_MODEL")
        .env("BMAD_PARTY_REHEARSAL_DELAY_MS", "0")
        .env("BMAD_PARTY_MIN_BACKOFF_MS", "20")
        .env("LANG", "C.UTF-8")
        // The developer's own config and colour choice change no test.
        .env("XDG_CONFIG_HOME", cwd.join(".config"))
        // A session that cannot be saved in place goes to the state folder.
        .env("XDG_STATE_HOME", cwd.join(".state"))
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    c
}

pub async fn run_with_input(mut cmd: Command, input: &str) -> (i32, String, String) {
    let mut child = cmd.spawn().expect("spawn bmad-party");
    let mut stdin = child.stdin.take().unwrap();
    // A program that stops at a bad file exits before it reads a line: the
    // pipe is closed then, which is no failure of the test.
    if let Err(e) = stdin.write_all(input.as_bytes()).await {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    drop(stdin);
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("finished in time")
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub fn session_files(out: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(out.join("party-mode"))
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "md"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Temp files a save left beside the sessions in `out`.
pub fn temp_files(out: &Path) -> Vec<String> {
    std::fs::read_dir(out.join("party-mode"))
        .expect("the sessions folder")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

pub fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect()
}
