//! The judgement bench: does the room judge for itself on a real model?
//! Scenarios of facilitator messages, each tagged with what should happen
//! in the round it opens (`benches/judgement/scenarios.toml`: a close the
//! facilitator invites, a request that lacks what the room needs, a stated
//! agreement, a live disagreement, a room left to go on until it runs
//! dry), played headless against a local model; then counted: end
//! proposals where invited and elsewhere, questions where information is
//! missing and elsewhere, consensus after a stated agreement and during a
//! disagreement, a dry room noticed, and what the self-checks cost.
//!
//! Not run in CI: it needs a model server, and starts one itself when none
//! answers on the port (`benches/voice/local-model.sh`).
//!
//! ```sh
//! cargo bench --bench judgement                                  # 1.5B, scenarios.toml, both languages
//! cargo bench --bench judgement -- --scenarios benches/judgement/holdout.toml
//! cargo bench --bench judgement -- --model 0.5b
//! cargo bench --bench judgement -- --rescore target/judgement-bench/LABEL
//! ```
//! Options: `--port N` (18555), `--lang en|zh|both`, `--only ID[,ID…]`, `--bin PATH`
//! (another build, for before/after), `--reading off` (the markers
//! alone: no host reading the facilitator's messages), `--self-check on`
//! (each speaker judges the room after its reply), `--label NAME`, `--minutes N` (the limit of one scenario, 30),
//! `--` then extra bmad-party arguments.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

#[path = "voice/events.rs"]
mod events;
#[path = "voice/server.rs"]
mod server;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct File {
    scenario: Vec<Scenario>,
}

#[derive(Deserialize, Clone)]
struct Scenario {
    id: String,
    lang: String,
    answer: String,
    messages: Vec<Step>,
}

#[derive(Deserialize, Clone)]
struct Step {
    expect: String,
    #[serde(default)]
    text: Option<String>,
}

struct Args {
    model: String,
    port: u16,
    scenarios: PathBuf,
    lang: String,
    only: Option<String>,
    bin: PathBuf,
    label: String,
    minutes: u64,
    rescore: Option<PathBuf>,
    /// `--self-check on`: each speaker judges the room after its reply (off by default, as in the product).
    self_check: bool,
    /// `--reading off`: the host does not read the facilitator's messages (on by default, as in the product).
    reading: bool,
    extra: Vec<String>,
}

fn args() -> Args {
    let mut a = Args {
        model: "1.5b".into(),
        port: 18555,
        scenarios: PathBuf::from("benches/judgement/scenarios.toml"),
        lang: "both".into(),
        only: None,
        bin: PathBuf::from(env!("CARGO_BIN_EXE_bmad-party")),
        label: String::new(),
        minutes: 30,
        rescore: None,
        self_check: false,
        reading: true,
        extra: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut v = || it.next().unwrap_or_else(|| panic!("{k} needs a value"));
        match k.as_str() {
            "--model" => a.model = v(),
            "--port" => a.port = v().parse().expect("--port N"),
            "--scenarios" => a.scenarios = v().into(),
            "--lang" => a.lang = v(),
            "--only" => a.only = Some(v()),
            "--bin" => a.bin = v().into(),
            "--label" => a.label = v(),
            "--minutes" => a.minutes = v().parse().expect("--minutes N"),
            "--rescore" => a.rescore = Some(v().into()),
            "--self-check" => a.self_check = v() != "off",
            "--reading" => a.reading = v() != "off",
            "--bench" => {}
            "--" => a.extra = it.by_ref().collect(),
            other => panic!("unknown option {other}"),
        }
    }
    if a.label.is_empty() {
        let stem = a.scenarios.file_stem().map_or("run".into(), |s| s.to_string_lossy().into_owned());
        let out = Command::new("date").arg("+%Y%m%d-%H%M").output().ok();
        let now = out
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        a.label = format!("{}-{stem}-{now}", a.model);
    }
    a
}

/// What the facilitator sends next, and how the log names it.
fn say(stdin: &mut std::process::ChildStdin, log: &mut std::fs::File, start: Instant, text: &str, what: &str, expect: &str) {
    let line = serde_json::json!({"type": "bench_sent", "what": what, "expect": expect, "text": text, "at_ms": start.elapsed().as_millis() as u64});
    let _ = writeln!(log, "{line}");
    let _ = writeln!(stdin, "{text}");
    let _ = stdin.flush();
}

/// Plays one scenario headless; every event goes to `log`.
fn play(a: &Args, s: &Scenario, base_url: &str, log: &Path) {
    let work = tempfile::tempdir().expect("a temporary folder");
    // Every proposal is declined by the next message; with no rounds of
    // quiet after a declined one, each round's judgement is its own.
    let config = work.path().join("config.yaml");
    let yaml = format!(
        "bmad:\n  party_mode:\n    end_detection: {{ quiet_rounds: 0 }}\n    self_check: {}\n    read_messages: {}\n",
        a.self_check, a.reading
    );
    std::fs::write(&config, yaml).expect("config");
    let chinese = s.lang == "zh";
    let mut child = Command::new(&a.bin)
        .current_dir(work.path())
        .env("OPENAI_API_KEY", "local")
        .env("OPENAI_BASE_URL", base_url)
        .args(["--headless", "--events", "json", "--max-rounds", "20", "--no-memory"])
        .args(["--lang", if chinese { "zh" } else { "en" }])
        .args(["--user-name", if chinese { "小林" } else { "Sam" }])
        .arg("--config")
        .arg(&config)
        .arg("--output")
        .arg(work.path())
        .args(&a.extra)
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
    let limit = Duration::from_secs(a.minutes * 60);
    let (mut sent, mut speakers, mut question) = (0usize, Vec::<String>::new(), false);
    let mut request = String::new();
    let mut roster: Vec<(String, String)> = Vec::new();
    let next = |sent: usize, roster: &[(String, String)], speakers: &[String]| -> Option<(String, String)> {
        let step = s.messages.get(sent)?;
        // The party's speakers so far, in order, then the rest of the room:
        // `{a}` and `{b}` are two different agents.
        let named: Vec<&String> = speakers
            .iter()
            .filter_map(|id| roster.iter().find(|(i, _)| i == id))
            .chain(roster.iter().filter(|(i, _)| i != "moderator" && !speakers.contains(i)))
            .map(|(_, n)| n)
            .collect();
        let name = |k: usize| named.get(k).map(|n| n.to_string()).unwrap_or_default();
        let text = match &step.text {
            Some(t) => t.replace("{a}", &name(0)).replace("{b}", &name(1)),
            None => r#"{"type":"continue"}"#.to_string(),
        };
        Some((text, step.expect.clone()))
    };
    loop {
        let line = match rx.recv_timeout(limit.saturating_sub(start.elapsed())) {
            Ok(l) => l,
            Err(_) => {
                let _ = child.kill();
                break;
            }
        };
        let Ok(ev) = serde_json::from_str::<Value>(&line) else { continue };
        let kind = ev["type"].as_str().unwrap_or_default();
        events::log(&mut out, &ev, start);
        match kind {
            "session_started" => roster = events::roster(&ev),
            "agent_message" => {
                let id = ev["agent"].as_str().unwrap_or_default().to_string();
                if id != "moderator" && !speakers.contains(&id) {
                    speakers.push(id);
                }
            }
            "agent_question" => question = true,
            "confirmation_request" => request = ev["request_id"].as_str().unwrap_or_default().to_string(),
            "awaiting_input" => {
                let step = next(sent, &roster, &speakers);
                if ev["kind"] == "answer" {
                    // A proposal: declined by going on, confirmed at the end.
                    match step {
                        // [C] is no answer: declined first, then the room goes on.
                        Some((_, expect)) if s.messages[sent].text.is_none() => {
                            let no = serde_json::json!({"type": "answer", "request_id": request, "confirmed": false});
                            say(&mut stdin, &mut out, start, &no.to_string(), "decline", &expect);
                        }
                        Some((text, expect)) => {
                            say(&mut stdin, &mut out, start, &text, &format!("message {sent}"), &expect);
                            sent += 1;
                        }
                        None => say(&mut stdin, &mut out, start, "", "confirm", "-"),
                    }
                } else if std::mem::take(&mut question) {
                    say(&mut stdin, &mut out, start, &s.answer, "answer", "answered");
                } else if let Some((text, expect)) = step {
                    say(&mut stdin, &mut out, start, &text, &format!("message {sent}"), &expect);
                    sent += 1;
                } else {
                    say(&mut stdin, &mut out, start, r#"{"type":"exit"}"#, "exit", "-");
                }
            }
            "session_ended" => break,
            _ => {}
        }
    }
    drop(stdin);
    let _ = child.wait();
    let _ = writeln!(
        out,
        "{}",
        serde_json::json!({"type": "bench_end", "wall_ms": start.elapsed().as_millis() as u64})
    );
}

/// Counts of one tag's rounds: how many, and in how many each thing happened.
#[derive(Default, Clone, Copy)]
struct Counts {
    rounds: usize,
    end: usize,
    ask: usize,
    consensus: usize,
    repeats: usize,
}

#[derive(Default)]
struct Tally {
    by_tag: BTreeMap<String, Counts>,
    /// Scenarios with a stated agreement, and those where consensus followed within two rounds.
    agreed: usize,
    agreed_noticed: usize,
    /// Scenarios left to run dry, and those where the room was noticed repeating itself.
    dry: usize,
    dry_noticed: usize,
    checks: usize,
    unreadable: usize,
    check_ms: u64,
    /// Rounds with replies: their wall time and the self-checks' part of it.
    round_ms: u64,
    round_check_ms: u64,
    rounds_timed: usize,
    stances: BTreeMap<String, usize>,
    /// The host's readings of the facilitator's messages: how many, their
    /// time (after the round, so added to its wall time), what they read.
    readings: usize,
    reading_ms: u64,
    read_as: BTreeMap<String, usize>,
    /// Replies the host heard when agreement was asked for, and the yeses.
    heard: usize,
    heard_yes: usize,
    /// The rounds' agreement scores by tag and method: the calibration of
    /// the similarity measures on real replies.
    scores: BTreeMap<(String, String), Vec<f64>>,
    /// Every question put to the facilitator: the round's tag, who asked, the question.
    questions: Vec<(String, String, String)>,
    /// The host's questions not put (`reading::unfit`), by why.
    withheld: BTreeMap<String, usize>,
    listing: String,
}

fn score(log: &Path, t: &mut Tally) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let events: Vec<Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    t.listing.push_str(&format!("\n=== {}\n", log.display()));
    // Each round's tag, in order; what happened in it.
    let mut rounds: Vec<(String, Counts)> = Vec::new();
    let mut tag = String::from("-");
    let (mut round_start, mut round_checks) = (None::<u64>, 0u64);
    for e in &events {
        match e["type"].as_str().unwrap_or_default() {
            "bench_sent" => {
                tag = e["expect"].as_str().unwrap_or("-").to_string();
                t.listing
                    .push_str(&format!("\n> [{tag}] {}\n", e["text"].as_str().unwrap_or_default()));
            }
            "round_started" => {
                rounds.push((
                    tag.clone(),
                    Counts {
                        rounds: 1,
                        ..Counts::default()
                    },
                ));
                round_start = e["at_ms"].as_u64();
                round_checks = 0;
            }
            "round_finished" => {
                if let (Some(s), Some(f)) = (round_start.take(), e["at_ms"].as_u64()) {
                    t.round_ms += f - s;
                    t.round_check_ms += round_checks;
                    t.rounds_timed += 1;
                }
            }
            "agent_message" => t.listing.push_str(&format!(
                "  {}: {}\n",
                e["name"].as_str().unwrap_or_default(),
                e["text"].as_str().unwrap_or_default().replace('\n', " ")
            )),
            "self_check" => {
                t.checks += 1;
                let ms = e["ms"].as_u64().unwrap_or(0);
                t.check_ms += ms;
                round_checks += ms;
                if e["verdict"].is_null() {
                    t.unreadable += 1;
                }
                let stance = e["verdict"]["stance"].as_str().unwrap_or("-").to_string();
                *t.stances.entry(stance).or_default() += 1;
                t.listing.push_str(&format!("    (check {} ms: {})\n", ms, e["verdict"]));
            }
            "consensus_score" => {
                if let Some(x) = e["score"].as_f64() {
                    let method = e["method"].as_str().unwrap_or("-").to_string();
                    t.scores.entry((tag.clone(), method)).or_default().push(x);
                }
            }
            "reading" => {
                t.readings += 1;
                let ms = e["ms"].as_u64().unwrap_or(0);
                t.reading_ms += ms;
                let read = e["reading"].as_str().unwrap_or("-").to_string();
                let heard: Vec<&str> = e["heard"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|h| match h.as_bool() {
                        Some(true) => "yes",
                        Some(false) => "no",
                        None => "?",
                    })
                    .collect();
                t.heard += heard.len();
                t.heard_yes += heard.iter().filter(|h| **h == "yes").count();
                let heard = if heard.is_empty() {
                    String::new()
                } else {
                    format!("; heard {}", heard.join(" "))
                };
                let act = e["act"].as_str().unwrap_or_default();
                t.listing.push_str(&format!("    (reading {ms} ms: {read} -> {act}{heard})\n"));
                if act.starts_with("nothing: the question") || act.starts_with("nothing: the message gave") {
                    *t.withheld.entry(act.to_string()).or_default() += 1;
                }
                *t.read_as.entry(read).or_default() += 1;
            }
            kind @ ("end_proposal" | "agent_question" | "confirmation_request" | "room_repeats") => {
                let Some((_, c)) = rounds.last_mut() else { continue };
                match kind {
                    "end_proposal" => c.end = 1,
                    "agent_question" => {
                        c.ask = 1;
                        t.questions.push((
                            tag.clone(),
                            e["name"].as_str().unwrap_or_default().to_string(),
                            e["question"].as_str().unwrap_or_default().to_string(),
                        ));
                    }
                    "room_repeats" => c.repeats = 1,
                    _ if e["kind"] == "consensus" => c.consensus = 1,
                    _ => {}
                }
                t.listing.push_str(&format!(
                    "  ** {kind} {}\n",
                    e.get("kind").or(e.get("question")).unwrap_or(&Value::Null)
                ));
            }
            _ => {}
        }
    }
    for (tag, c) in &rounds {
        let sum = t.by_tag.entry(tag.clone()).or_default();
        sum.rounds += c.rounds;
        sum.end += c.end;
        sum.ask += c.ask;
        sum.consensus += c.consensus;
        sum.repeats += c.repeats;
    }
    if let Some(at) = rounds.iter().position(|(tag, _)| tag == "agree") {
        t.agreed += 1;
        if rounds[at..].iter().take(2).any(|(_, c)| c.consensus > 0) {
            t.agreed_noticed += 1;
        }
    }
    if rounds.iter().any(|(tag, _)| tag == "continue") {
        t.dry += 1;
        if rounds.iter().any(|(_, c)| c.repeats > 0) {
            t.dry_noticed += 1;
        }
    }
}

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "-".into()
    } else {
        format!("{a} of {b} ({:.0} %)", 100.0 * a as f64 / b as f64)
    }
}

fn report(t: &Tally, label: &str) -> String {
    let sum = |pred: &dyn Fn(&str) -> bool, f: &dyn Fn(&Counts) -> usize| -> (usize, usize) {
        t.by_tag
            .iter()
            .filter(|(k, _)| pred(k))
            .fold((0, 0), |(a, b), (_, c)| (a + f(c), b + c.rounds))
    };
    let (end_in, end_n) = sum(&|k| k == "end", &|c| c.end);
    let (end_out, end_other) = sum(&|k| k != "end", &|c| c.end);
    let (ask_in, ask_n) = sum(&|k| k == "ask", &|c| c.ask);
    let (ask_out, ask_other) = sum(&|k| k != "ask", &|c| c.ask);
    let (cons_dis, dis_n) = sum(&|k| k == "disagree", &|c| c.consensus);
    let (cons_open, open_n) = sum(&|k| k == "disagree" || k == "choice", &|c| c.consensus);
    let (cons_all, all_n) = sum(&|_| true, &|c| c.consensus);
    let mut s = format!("## Judgement bench: {label}\n\n| measure | value |\n|---|---|\n");
    s.push_str(&format!("| end proposed where invited (`end` rounds) | {} |\n", pct(end_in, end_n)));
    s.push_str(&format!("| end proposed elsewhere | {} |\n", pct(end_out, end_other)));
    s.push_str(&format!(
        "| question where information is missing (`ask` rounds) | {} |\n",
        pct(ask_in, ask_n)
    ));
    s.push_str(&format!("| question elsewhere | {} |\n", pct(ask_out, ask_other)));
    s.push_str(&format!(
        "| consensus within two rounds of a stated agreement (scenarios) | {} |\n",
        pct(t.agreed_noticed, t.agreed)
    ));
    s.push_str(&format!(
        "| consensus during a live disagreement (`disagree` rounds) | {} |\n",
        pct(cons_dis, dis_n)
    ));
    s.push_str(&format!(
        "| consensus where a disagreement or an open choice is asked (`disagree`, `choice` rounds) | {} |\n",
        pct(cons_open, open_n)
    ));
    s.push_str(&format!("| consensus proposed, all rounds | {} |\n", pct(cons_all, all_n)));
    s.push_str(&format!(
        "| a room left to run dry noticed (scenarios) | {} |\n",
        pct(t.dry_noticed, t.dry)
    ));
    let stances: Vec<String> = t.stances.iter().map(|(k, v)| format!("{k} {v}")).collect();
    s.push_str(&format!(
        "| self-checks (unreadable) | {} ({}); stances: {} |\n",
        t.checks,
        t.unreadable,
        stances.join(", ")
    ));
    s.push_str(&format!(
        "| self-check time per check / share of round wall time | {:.1} s / {:.0} % |\n",
        t.check_ms as f64 / 1000.0 / t.checks.max(1) as f64,
        100.0 * t.round_check_ms as f64 / t.round_ms.max(1) as f64
    ));
    let read_as: Vec<String> = t.read_as.iter().map(|(k, v)| format!("{k} {v}")).collect();
    s.push_str(&format!(
        "| readings of the facilitator's messages | {}: {} |\n",
        t.readings,
        read_as.join(", ")
    ));
    s.push_str(&format!(
        "| replies heard when agreement was asked for (`hear_answer`): yes | {} of {} |\n",
        t.heard_yes, t.heard
    ));
    s.push_str(&format!(
        "| reading time per message (hearings included) / added to the rounds' wall time | {:.1} s / {:.0} % |\n",
        t.reading_ms as f64 / 1000.0 / t.readings.max(1) as f64,
        100.0 * t.reading_ms as f64 / t.round_ms.max(1) as f64
    ));
    s.push_str(&format!(
        "| round wall time (mean of {} rounds) | {:.1} s |\n",
        t.rounds_timed,
        t.round_ms as f64 / 1000.0 / t.rounds_timed.max(1) as f64
    ));
    s.push_str("\nAgreement scores by tag and method (the similarity measures on these replies):\n\n");
    for ((tag, method), xs) in &t.scores {
        let mut xs = xs.clone();
        xs.sort_by(f64::total_cmp);
        let list: Vec<String> = xs.iter().map(|x| format!("{x:.2}")).collect();
        s.push_str(&format!("- `{tag}` ({method}): {}\n", list.join(" ")));
    }
    s.push_str("\nQuestions put to the facilitator (the round's tag, who asked):\n\n");
    for (tag, who, q) in &t.questions {
        s.push_str(&format!("- `{tag}` {who}: {q}\n"));
    }
    for (why, n) in &t.withheld {
        s.push_str(&format!("- the host's question not put, {n}×: {why}\n"));
    }
    s.push_str("\nPer tag (rounds: end proposals / questions / consensus / repeats noticed):\n\n");
    for (tag, c) in &t.by_tag {
        s.push_str(&format!(
            "- `{tag}`: {} rounds: {} / {} / {} / {}\n",
            c.rounds, c.end, c.ask, c.consensus, c.repeats
        ));
    }
    s
}

fn main() {
    let a = args();
    let dir = a
        .rescore
        .clone()
        .unwrap_or_else(|| PathBuf::from("target/judgement-bench").join(&a.label));
    std::fs::create_dir_all(&dir).expect("results folder");
    if a.rescore.is_none() {
        let text = std::fs::read_to_string(&a.scenarios).unwrap_or_else(|e| panic!("{}: {e}", a.scenarios.display()));
        let file: File = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", a.scenarios.display()));
        let server = server::ensure(a.port, &a.model, &dir.join("server.log"));
        let base = format!("http://127.0.0.1:{}/v1", a.port);
        for s in &file.scenario {
            if (a.lang != "both" && a.lang != s.lang) || a.only.as_ref().is_some_and(|o| !o.split(',').any(|id| id == s.id)) {
                continue;
            }
            let log = dir.join(format!("{}.jsonl", s.id));
            eprintln!("judgement: {} ({})", s.id, s.lang);
            let began = Instant::now();
            play(&a, s, &base, &log);
            eprintln!("judgement:   {:.0} s -> {}", began.elapsed().as_secs_f64(), log.display());
        }
        if let Some(mut s) = server {
            let _ = s.kill();
        }
    }
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("results folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    logs.sort();
    let mut t = Tally::default();
    for log in &logs {
        score(log, &mut t);
    }
    let summary = report(&t, &format!("{} ({} scenarios, model {})", dir.display(), logs.len(), a.model));
    std::fs::write(dir.join("rounds.txt"), &t.listing).expect("write rounds.txt");
    std::fs::write(dir.join("summary.md"), &summary).expect("write summary.md");
    println!("{summary}\nEvery round with its judgement: {}", dir.join("rounds.txt").display());
}
