//! Runs one headless party and plays the facilitator: the topic, a message
//! that names an agent who has not spoken, one that invites a question to
//! the facilitator, and a late one that invites the end marker. Every event
//! is kept in a JSON-lines log, so a party can be scored again later.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::events;

pub struct Plan {
    pub chinese: bool,
    pub topic: String,
}

impl Plan {
    fn facilitator(&self) -> &'static str {
        if self.chinese {
            "小林"
        } else {
            "Sam"
        }
    }

    /// The message after `sent` messages, given who spoke so far.
    fn message(&self, sent: usize, roster: &[(String, String)], spoke: &[String]) -> Option<String> {
        let quiet = roster
            .iter()
            .filter(|(id, _)| id != "moderator")
            .find(|(id, _)| !spoke.contains(id))
            .or(roster.first())
            .map(|(_, name)| name.clone())
            .unwrap_or_default();
        let text = match (sent, self.chinese) {
            (0, _) => self.topic.clone(),
            (1, false) => format!("{quiet}, we haven't heard from you yet. What would you do differently, and why?"),
            (1, true) => format!("{quiet}，还没听到你的意见。你会怎么做？为什么？"),
            (2, false) => "Before you go further: is there anything you need to ask me to give a better recommendation?".into(),
            (2, true) => "在继续之前：为了给出更好的建议，你们有什么需要问我的吗？".into(),
            (3, false) => {
                "I think we have covered the essentials. If the room agrees the discussion has run its course, propose to end it.".into()
            }
            (3, true) => "我觉得要点都讨论到了。如果大家认为讨论已经充分，可以提议结束。".into(),
            _ => return None,
        };
        Some(text)
    }

    fn answer(&self) -> &'static str {
        if self.chinese {
            "好问题。我们是一个五人小团队，预算有限，需要在三个月内做出能用的东西。"
        } else {
            "Good question. We are a team of five with a tight budget, and we need something working within three months."
        }
    }
}

pub struct Outcome {
    pub log: PathBuf,
    pub wall: Duration,
    pub timed_out: bool,
}

/// Runs the party; the log goes to `log`.
pub fn run(bin: &Path, base_url: &str, plan: &Plan, log: &Path, limit: Duration, extra: &[String]) -> Outcome {
    let work = tempfile::tempdir().expect("a temporary folder");
    let mut child = Command::new(bin)
        .current_dir(work.path())
        .env("OPENAI_API_KEY", "local")
        .env("OPENAI_BASE_URL", base_url)
        // No `--model`: the party takes the one model the server lists, as a
        // newcomer's would. The party's log (every cut, with its text) is
        // kept beside its events, to read what hygiene took from a reply.
        .args(["--headless", "--events", "json", "--max-rounds", "12"])
        .arg("--log-file")
        .arg(std::path::absolute(log.with_extension("log")).expect("the log's path"))
        .args(["--lang", if plan.chinese { "zh" } else { "en" }])
        .args(["--user-name", plan.facilitator()])
        .arg("--output")
        .arg(work.path())
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(
            std::fs::File::create(log.with_extension("stderr")).expect("stderr file"),
        ))
        .spawn()
        .expect("the bmad-party binary starts");
    let mut stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut out = std::fs::File::create(log).expect("log file");
    let start = Instant::now();
    let (mut sent, mut roster, mut spoke) = (0usize, Vec::<(String, String)>::new(), Vec::<String>::new());
    let mut question = false;
    let mut timed_out = false;
    // `what`: `message N` (the plan's Nth message), `answer`, `confirm`, `exit`.
    let say = |stdin: &mut std::process::ChildStdin, out: &mut std::fs::File, text: &str, what: String| {
        let line = serde_json::json!({"type": "bench_sent", "what": what, "text": text, "at_ms": start.elapsed().as_millis() as u64});
        let _ = writeln!(out, "{line}");
        let _ = writeln!(stdin, "{text}");
        let _ = stdin.flush();
    };
    loop {
        let left = limit.saturating_sub(start.elapsed());
        let line = match rx.recv_timeout(left) {
            Ok(l) => l,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                timed_out = true;
                let _ = child.kill();
                break;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        let Ok(ev) = serde_json::from_str::<Value>(&line) else { continue };
        let kind = ev["type"].as_str().unwrap_or_default();
        events::log(&mut out, &ev, start);
        match kind {
            "session_started" => roster = events::roster(&ev),
            "agent_message" => spoke.push(ev["agent"].as_str().unwrap_or_default().to_string()),
            "agent_question" => question = true,
            "awaiting_input" => {
                if ev["kind"] == "answer" {
                    // An end proposal before it was invited is declined by
                    // going on; an invited one (or a limit) is confirmed.
                    match plan.message(sent, &roster, &spoke) {
                        Some(text) => {
                            say(&mut stdin, &mut out, &text, format!("message {sent}"));
                            sent += 1;
                        }
                        None => say(&mut stdin, &mut out, "", "confirm".into()),
                    }
                } else if question {
                    question = false;
                    say(&mut stdin, &mut out, plan.answer(), "answer".into());
                } else if let Some(text) = plan.message(sent, &roster, &spoke) {
                    say(&mut stdin, &mut out, &text, format!("message {sent}"));
                    sent += 1;
                } else {
                    say(&mut stdin, &mut out, r#"{"type":"exit"}"#, "exit".into());
                }
            }
            "session_ended" => break,
            _ => {}
        }
    }
    drop(stdin);
    let _ = child.wait();
    let wall = start.elapsed();
    let _ = writeln!(
        out,
        "{}",
        serde_json::json!({"type": "bench_end", "wall_ms": wall.as_millis() as u64, "timed_out": timed_out})
    );
    Outcome {
        log: log.to_path_buf(),
        wall,
        timed_out,
    }
}
