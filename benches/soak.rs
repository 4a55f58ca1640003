//! The soak: a 200-round headless party (three agents a round, the loopback
//! OpenAI server's varied replies, the default limits moved out of the way,
//! consensus and silence checks on) in the release binary, then its file
//! resumed. It shows that a long party stays flat and that its file stays
//! quick to pick up:
//!
//! - memory: the process's resident set (`VmRSS`) after rounds 20, 50, 100,
//!   150 and 200; round 200 may be at most 1.2 × round 20;
//! - resume: a new process on `--resume` of the 200-round file, from spawn
//!   to the engine waiting for the facilitator (and a fresh start beside it,
//!   the same moment without a file); at most 100 ms;
//! - the TUI: the resumed session's events (every earlier turn) into the
//!   TUI's state and its first frame drawn, with the view at the bottom.
//!
//! `cargo bench --bench soak` (figures in docs/reliability.md);
//! `cargo bench --bench soak -- --smoke` (40 rounds, for CI).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bmad_party::testing::FakeOpenAi;

const BIN: &str = env!("CARGO_BIN_EXE_bmad-party");

/// The resident set of `pid` now, in kB.
fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn config(dir: &Path, rounds: usize) -> PathBuf {
    let cfg = dir.join("soak.yaml");
    let limit = rounds + 50;
    std::fs::write(
        &cfg,
        format!(
            "bmad:\n  party_mode:\n    max_rounds: {limit}\n    warn_at_rounds: {}\n    max_duration_minutes: 600\n    warn_at_minutes: 590\n    agents_per_round: {{ min: 3, max: 3 }}\n",
            limit - 1
        ),
    )
    .unwrap();
    cfg
}

fn party(server: &FakeOpenAi, dir: &Path, cfg: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.current_dir(dir)
        .env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", "soak")
        .env("BMAD_PARTY_LOG", "warn")
        .args(["--headless", "--events", "json", "--config"])
        .arg(cfg)
        .arg("--output")
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    c
}

struct Soak {
    /// (round, VmRSS kB) after the sampled rounds.
    rss: Vec<(usize, u64)>,
    file: PathBuf,
    seconds: f64,
}

/// `rounds` rounds, then the facilitator quits: the file stays resumable.
fn soak(server: &FakeOpenAi, dir: &Path, cfg: &Path, rounds: usize) -> Soak {
    let started = Instant::now();
    let mut child = party(server, dir, cfg).spawn().unwrap();
    let pid = child.id();
    {
        let mut stdin = child.stdin.take().unwrap();
        for i in 0..rounds {
            writeln!(stdin, "Point {i}: what should we decide next about the plugin system?").unwrap();
        }
        writeln!(stdin, r#"{{"type":"quit"}}"#).unwrap();
    }
    let marks = [20, 50, 100, 150, 200, rounds];
    let (mut rss, mut file, mut last) = (Vec::new(), None, 0);
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let ev: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        match ev["type"].as_str().unwrap_or("") {
            "session_file" => file = ev["path"].as_str().map(PathBuf::from),
            "round_finished" => {
                last = ev["round"].as_u64().unwrap() as usize;
                if marks.contains(&last) && rss.last().is_none_or(|&(r, _)| r != last) {
                    rss.push((last, rss_kb(pid)));
                }
            }
            _ => {}
        }
    }
    assert!(child.wait().unwrap().success());
    assert_eq!(last, rounds, "the party ran every round");
    Soak {
        rss,
        file: file.expect("a session file"),
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// From spawn to the engine asking for input, ms: with `--resume file`, or
/// a fresh party.
fn ready_ms(server: &FakeOpenAi, dir: &Path, cfg: &Path, resume: Option<&Path>) -> f64 {
    let mut c = party(server, dir, cfg);
    if let Some(f) = resume {
        c.arg("--resume").arg(f);
    }
    let started = Instant::now();
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut ready = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let ev: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        if ev["type"] == "awaiting_input" && ready.is_none() {
            ready = Some(started.elapsed().as_secs_f64() * 1000.0);
            // Leave again without a word: the file stays as it was.
            writeln!(stdin, r#"{{"type":"quit"}}"#).unwrap();
        }
    }
    child.wait().unwrap();
    ready.expect("the party waited for the facilitator")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The resumed session in the TUI's state and its first frame: how long,
/// how many entries, and whether the bottom of the screen is the end of the
/// session.
async fn tui_first_frame(file: &Path, out: &Path) -> (f64, usize, bool) {
    use bmad_party::assets::{embedded_agents, WorkflowSource};
    use bmad_party::engine::{self, Command, Event, Setup};
    use bmad_party::frontend::tui::{app::App, view};

    let started = Instant::now();
    let setup = Setup {
        config: bmad_party::config::Config::default(),
        workflow: bmad_party::workflow::Workflow::load(WorkflowSource::default()).unwrap(),
        agents: bmad_party::roster::agents::load_roster(&embedded_agents()).unwrap(),
        pool: bmad_party::roster::agents::load_roster(&embedded_agents()).unwrap(),
        provider: std::sync::Arc::new(bmad_party::llm::Rehearsal::default()),
        endpoints: vec![],
        lang: bmad_party::i18n::Lang::En,
        speech_language: "English".into(),
        user_name: "Ada".into(),
        output: out.to_path_buf(),
        resume: Some(engine::Resume {
            path: file.to_path_buf(),
            session: bmad_party::session::load(file).unwrap(),
            lock: None,
        }),
        document_language: None,
        notices: vec![],
        saves: Default::default(),
        takeaways: Default::default(),
        party: None,
        memory: None,
        documents: vec![],
        parties: vec![],
        casts: None,
    };
    let mut h = engine::spawn(setup);
    let mut app = App::new(bmad_party::i18n::Lang::En);
    while let Some(ev) = h.events.recv().await {
        let waiting = matches!(ev, Event::AwaitingInput { .. });
        app.on_event(ev);
        if waiting {
            break;
        }
    }
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).unwrap();
    t.draw(|f| view::draw(f, &app, Instant::now())).unwrap();
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let _ = h.commands.send(Command::Quit);
    let b = t.backend().buffer();
    let screen: String = (0..40)
        .map(|y| (0..120).map(|x| b[(x, y)].symbol().to_string()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n");
    let at_bottom = screen.contains("this sitting begins here") && !app.transcript.scrolled();
    (ms, app.transcript.entries().len(), at_bottom)
}

fn main() {
    let smoke = std::env::args().any(|a| a == "--smoke");
    let rounds = if smoke { 40 } else { 200 };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(FakeOpenAi::varied());
    let _guard = rt.enter();
    let dir = tempfile::tempdir().unwrap();

    let cfg = config(dir.path(), rounds);
    let s = soak(&server, dir.path(), &cfg, rounds);
    let bytes = std::fs::metadata(&s.file).unwrap().len();
    let turns = bmad_party::session::load(&s.file).unwrap().turns.len();
    let rss: Vec<String> = s
        .rss
        .iter()
        .map(|(r, kb)| format!("round {r}: {:.1} MB", *kb as f64 / 1024.0))
        .collect();
    println!(
        "soak: {rounds} rounds x 3 agents in {:.1} s; resident memory {}",
        s.seconds,
        rss.join(", ")
    );
    let at = |round: usize| s.rss.iter().find(|(r, _)| *r == round).map(|(_, kb)| *kb as f64);
    if let (Some(first), Some(end)) = (at(20), at(rounds)) {
        println!("memory growth, round {rounds} / round 20: {:.2}x (at most 1.2)", end / first);
        assert!(end / first <= 1.2, "memory grew {:.2}x", end / first);
    }

    let file_copy = dir.path().join("resumed.md");
    let runs = if smoke { 3 } else { 7 };
    let (mut resumed, mut fresh, mut parse) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        // Each resume leaves the file as it was (quit before a word), but
        // notes the sitting: start every run from the soak's file.
        std::fs::copy(&s.file, &file_copy).unwrap();
        resumed.push(ready_ms(&server, dir.path(), &cfg, Some(&file_copy)));
        fresh.push(ready_ms(&server, dir.path(), &cfg, None));
        let t = Instant::now();
        bmad_party::session::load(&s.file).unwrap();
        parse.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let (resumed, fresh, parse) = (median(resumed), median(fresh), median(parse));
    println!(
        "resume of the {rounds}-round file ({turns} turns, {:.0} KB): ready for the facilitator {resumed:.1} ms after spawn (a fresh party: {fresh:.1} ms); the file alone parses in {parse:.2} ms (medians of {runs})",
        bytes as f64 / 1024.0
    );
    assert!(resumed <= 100.0, "resume took {resumed:.1} ms");

    std::fs::copy(&s.file, &file_copy).unwrap();
    let (ms, entries, at_bottom) = rt.block_on(tui_first_frame(&file_copy, dir.path()));
    println!("TUI: the resumed session's {entries} entries in its state and the first 120x40 frame drawn in {ms:.1} ms; view at the bottom: {at_bottom}");
    assert!(at_bottom, "the TUI opens at the end of the session");
    std::thread::sleep(Duration::from_millis(50));
}
