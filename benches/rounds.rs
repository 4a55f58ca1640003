//! Rounds as fast as the model allows: the release binary, headless,
//! against the loopback OpenAI server answering like a model — 1 s before
//! the first token (reading the prompt), then 40 tokens 25 ms apart, so one
//! reply takes about 2 s — three agents a round.
//!
//! - per `round_mode`: a round's wall time (round_started → round_finished)
//!   over one reply's (agent_started → agent_message, the median), over
//!   five rounds;
//! - prompt size: a 25-round party under `context_tokens: 2500` (replies at
//!   once), every request's prompt estimated at 4 characters a token, by
//!   round: it levels off under the budget instead of growing each round.
//!
//! `cargo bench --bench rounds` (about 1 minute); figures in docs/performance.md;
//! `-- --smoke` (2 rounds a mode, a 6-round party: CI).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bmad_party::testing::{events_of, varied_reply, FakeOpenAi, Recorded, Reply};

const BIN: &str = env!("CARGO_BIN_EXE_bmad-party");
const SPEAKERS: usize = 3;

/// A reply of exactly `words` streamed words, different for every request.
fn words(n: usize, words: usize) -> Vec<String> {
    let text = format!("{} {} {}", varied_reply(n), varied_reply(n + 5000), varied_reply(n + 9000));
    let mut w: Vec<&str> = text.split_whitespace().take(words).collect();
    let last = format!("{}.", w.pop().unwrap_or("done").trim_end_matches('.'));
    let mut text = w.join(" ");
    text.push(' ');
    text.push_str(&last);
    events_of(&text)
}

fn config(dir: &Path, mode: &str, extra: &str) -> std::path::PathBuf {
    let cfg = dir.join(format!("{mode}.yaml"));
    std::fs::write(
        &cfg,
        format!(
            "bmad:\n  party_mode:\n    round_mode: {mode}\n    max_rounds: 60\n    warn_at_rounds: 59\n    max_duration_minutes: 600\n    warn_at_minutes: 590\n    agents_per_round: {{ min: {SPEAKERS}, max: {SPEAKERS} }}\n    consensus: {{ enabled: false }}\n    silence: {{ enabled: false }}\n{extra}"
        ),
    )
    .unwrap();
    cfg
}

/// Runs `messages` rounds headless; each JSON event with the time it came.
fn party(server: &FakeOpenAi, dir: &Path, cfg: &Path, messages: usize) -> Vec<(Instant, serde_json::Value)> {
    let mut child = Command::new(BIN)
        .current_dir(dir)
        .env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", "bench")
        .env("BMAD_PARTY_LOG", "warn")
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .args(["--headless", "--events", "json", "--config"])
        .arg(cfg)
        .arg("--output")
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        for i in 0..messages {
            writeln!(stdin, "Point {i}: what should we decide next about the plugin system?").unwrap();
        }
        writeln!(stdin, r#"{{"type":"quit"}}"#).unwrap();
    }
    let events = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| (Instant::now(), serde_json::from_str(&l.unwrap()).unwrap()))
        .collect();
    assert!(child.wait().unwrap().success());
    events
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// (round wall time / one reply's time, median round s, median reply s).
fn round_ratio(events: &[(Instant, serde_json::Value)], messages: usize) -> (f64, f64, f64) {
    let kind = |e: &serde_json::Value| e["type"].as_str().unwrap_or("").to_string();
    let (mut rounds, mut replies) = (Vec::new(), Vec::new());
    let mut round_start = None;
    let mut started = std::collections::HashMap::new();
    for (at, e) in events {
        match kind(e).as_str() {
            "round_started" => round_start = Some(*at),
            "round_finished" => {
                if let Some(s) = round_start.take() {
                    rounds.push(at.duration_since(s).as_secs_f64());
                }
            }
            "agent_started" if round_start.is_some() => {
                started.insert(e["agent"].as_str().unwrap_or("").to_string(), *at);
            }
            "agent_message" => {
                if let Some(s) = started.remove(e["agent"].as_str().unwrap_or("")) {
                    replies.push(at.duration_since(s).as_secs_f64());
                }
            }
            _ => {}
        }
    }
    assert!(rounds.len() >= messages, "{} rounds", rounds.len());
    assert_eq!(replies.len(), rounds.len() * SPEAKERS, "every speaker replied");
    let (round, reply) = (median(rounds), median(replies));
    (round / reply, round, reply)
}

fn estimate(r: &Recorded) -> usize {
    r.body["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter_map(|x| x["content"].as_str())
                .map(|c| c.chars().count())
                .sum::<usize>()
        })
        .unwrap_or(0)
        .div_ceil(4)
}

fn main() {
    let smoke = std::env::args().any(|a| a == "--smoke");
    let (messages, long) = if smoke { (2, 6) } else { (5, 25) };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let _guard = rt.enter();
    let dir = tempfile::tempdir().unwrap();

    println!("## Round wall time over one reply (1 s to the first token, 40 tokens at 25 ms, {SPEAKERS} agents, {messages} rounds)\n");
    println!("| round_mode | round (median) | one reply (median) | round / reply |");
    println!("|---|---|---|---|");
    let model_like = |_: &Recorded, n: usize| Reply::Paced {
        first: Duration::from_secs(1),
        each: Duration::from_millis(25),
        events: words(n, 40),
    };
    for mode in ["sequential", "hybrid", "parallel"] {
        let server = rt.block_on(FakeOpenAi::start(model_like));
        let events = party(&server, dir.path(), &config(dir.path(), mode, ""), messages);
        let (ratio, round, reply) = round_ratio(&events, messages);
        println!("| {mode} | {round:.2} s | {reply:.2} s | {ratio:.2} |");
    }

    println!("\n## Prompt tokens per call, {long} rounds under context_tokens: 2500 (estimated at 4 characters a token)\n");
    let server = rt.block_on(FakeOpenAi::start(|_, n| bmad_party::testing::stream_events(words(n, 60))));
    let cfg = config(dir.path(), "hybrid", "  llm:\n    context_tokens: 2500\n");
    let events = party(&server, dir.path(), &cfg, long);
    let finished = events.iter().filter(|(_, e)| e["type"] == "round_finished").count();
    assert_eq!(finished, long, "the party ran every round");
    let reqs = server.received();
    // The requests in order, three speakers a round: the turns' prompts by round.
    let turns: Vec<&Recorded> = reqs.iter().filter(|r| r.speaker().is_some()).collect();
    println!("| round | prompt tokens per call (largest of the round's {SPEAKERS}) |");
    println!("|---|---|");
    let rounds: Vec<&[&Recorded]> = turns.chunks(SPEAKERS).collect();
    for round in [1, 2, 3, 4, 5, 10, 15, 20, 25].into_iter().filter(|&r| r <= long) {
        let largest = rounds[round - 1].iter().map(|r| estimate(r)).max().unwrap();
        println!("| {round} | {largest} |");
    }
    let worst = reqs
        .iter()
        .map(|r| estimate(r) + r.body["max_tokens"].as_u64().unwrap_or(0) as usize)
        .max()
        .unwrap();
    println!(
        "\nLargest request, prompt + reply cap: {worst} tokens of 2500 ({} requests).",
        reqs.len()
    );
    assert!(worst <= 2500, "a request exceeded the budget");
}
