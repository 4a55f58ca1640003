//! The whole process, as a facilitator runs it: the release binary,
//! headless, 100 rounds × 3 agents against the loopback OpenAI server
//! replying 60 streamed tokens at once, full history in every call, the
//! session saved after every message. The server runs in this process, so
//! only the party's own CPU is counted:
//!
//! - CPU per agent message: (user + sys) of the child / agent messages;
//! - peak memory: the child's max RSS;
//! - cost growth: CPU per message of rounds 91–100 against rounds 1–10, from
//!   `/proc/<pid>/task/*/schedstat` (nanoseconds) sampled at round events.
//!
//! After each run, the **I/O floor**: the same requests, replies, output
//! lines and saves done by one thread with plain blocking calls and nothing
//! else, which is the part of the figure no implementation of the design
//! (a save after every message, the full history in every call) can avoid.
//!
//! `cargo bench --bench whole_process` (7 runs each with the session file on
//! the disk and on tmpfs, medians);
//! `cargo bench --bench whole_process -- --smoke` (1 run of 20 rounds, for CI);
//! `-- --round-mode hybrid|parallel` (default sequential: three personas in turn).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]
// getrusage, the thread CPU clock and a pseudo-terminal come from libc.
#![allow(unsafe_code)]

use std::io::{BufRead, BufReader, IoSlice, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use bmad_party::testing::FakeOpenAi;

const BIN: &str = env!("CARGO_BIN_EXE_bmad-party");

/// The binary measured: this build, or `BMAD_PARTY_BIN` (another build, for
/// a before/after taken side by side).
fn bin() -> String {
    std::env::var("BMAD_PARTY_BIN").unwrap_or_else(|_| BIN.to_string())
}

/// CPU time of every thread of `pid`, in nanoseconds.
fn cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()))
        .sum()
}

/// The peak resident memory of `pid` so far, in kB.
fn peak_rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn children_usage() -> (f64, i64) {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we own.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (secs(ru.ru_utime) + secs(ru.ru_stime), ru.ru_maxrss)
}

struct Run {
    cpu_per_message_ms: f64,
    peak_rss_mb: f64,
    growth: f64,
    /// CPU per message in the first and the last rounds, ms.
    first_ms: f64,
    last_ms: f64,
    messages: usize,
    /// The session file's size at the end, bytes.
    file_bytes: usize,
    /// The bodies of the run's chat requests, as sent.
    bodies: Vec<Vec<u8>>,
}

fn reply(n: usize) -> String {
    let words: Vec<String> = (0..60).map(|i| format!("w{}x{}", (n * 31 + i * 7) % 997, i)).collect();
    words.join(" ")
}

fn run_once(server: &FakeOpenAi, rounds: usize, root: &std::path::Path, mode: &str) -> Run {
    let dir = tempfile::tempdir_in(root).unwrap();
    let cfg = dir.path().join("bench.yaml");
    std::fs::write(
        &cfg,
        format!(
            "bmad:\n  party_mode:\n    auto_exit_enabled: true\n    round_mode: {mode}\n    max_rounds: {rounds}\n    agents_per_round: {{ min: 3, max: 3 }}\n    consensus: {{ enabled: false }}\n    silence: {{ enabled: false }}\n"
        ),
    )
    .unwrap();
    let (cpu_before, _) = children_usage();
    let requests_before = server.received().len();
    let mut child = Command::new(bin())
        .current_dir(dir.path())
        .env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", "bench")
        .env("BMAD_PARTY_LOG", "warn")
        .args(["--headless", "--events", "json", "--config"])
        .arg(&cfg)
        .arg("--output")
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    {
        let mut stdin = child.stdin.take().unwrap();
        for i in 0..rounds {
            writeln!(stdin, "Round {i}: what should we decide next about the plugin system?").unwrap();
        }
    }
    let window = 10.min(rounds / 2).max(1);
    let (mut first_start, mut first_end, mut last_start, mut last_end) = (0, 0, 0, 0);
    let (mut first_msgs, mut last_msgs, mut messages) = (0usize, 0usize, 0usize);
    let mut round = 0usize;
    // Read before it exits: getrusage's ru_maxrss would include this
    // process's memory, shared with the child between spawn and exec.
    let mut peak_kb = 0u64;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        let ev: serde_json::Value = serde_json::from_str(&line).unwrap();
        match ev["type"].as_str().unwrap_or("") {
            "round_started" => {
                round = ev["round"].as_u64().unwrap() as usize;
                if round == 1 {
                    first_start = cpu_ns(pid);
                }
                if round == rounds - window + 1 {
                    last_start = cpu_ns(pid);
                }
            }
            "agent_message" => {
                messages += 1;
                if round <= window {
                    first_msgs += 1;
                }
                if round > rounds - window {
                    last_msgs += 1;
                }
            }
            "closing" | "session_ended" => peak_kb = peak_kb.max(peak_rss_kb(pid)),
            "round_finished" => {
                peak_kb = peak_kb.max(peak_rss_kb(pid));
                let r = ev["round"].as_u64().unwrap() as usize;
                if r == window {
                    first_end = cpu_ns(pid);
                }
                if r == rounds {
                    last_end = cpu_ns(pid);
                }
            }
            _ => {}
        }
    }
    let status = child.wait().unwrap();
    assert!(status.success());
    let (cpu_after, _) = children_usage();
    let file_bytes = std::fs::read_dir(dir.path().join("party-mode"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .map(|e| e.metadata().unwrap().len() as usize)
        .max()
        .unwrap_or(0);
    let bodies = server.received()[requests_before..]
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .map(|r| serde_json::to_vec(&r.body).unwrap())
        .collect();
    let first = (first_end - first_start) as f64 / first_msgs.max(1) as f64;
    let last = (last_end - last_start) as f64 / last_msgs.max(1) as f64;
    Run {
        cpu_per_message_ms: (cpu_after - cpu_before) * 1000.0 / messages.max(1) as f64,
        peak_rss_mb: peak_kb as f64 / 1024.0,
        growth: last / first,
        first_ms: first / 1e6,
        last_ms: last / 1e6,
        messages,
        file_bytes,
        bodies,
    }
}

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the struct we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The I/O of `run` alone, in ms of this thread's CPU per agent message:
/// each request of the run sent as it was (one vectored write of head and
/// body on a kept-alive connection), its reply read as it arrives with a
/// line written to a pipe per read (the events), and the session file
/// replaced by temp file, fdatasync and rename four times a round (the
/// facilitator's message and three replies), growing to the run's size.
fn io_floor(server: &FakeOpenAi, run: &Run, rounds: usize, root: &Path) -> f64 {
    let dir = tempfile::tempdir_in(root).unwrap();
    let (tmp, file) = (dir.path().join(".s.md.tmp"), dir.path().join("s.md"));
    let (mut events, mut events_in) = std::io::pipe().unwrap();
    let drain = std::thread::spawn(move || std::io::copy(&mut events, &mut std::io::sink()));
    let content = vec![b'x'; run.file_bytes.max(1)];
    let saves = rounds * 4;
    let per_request = saves as f64 / run.bodies.len().max(1) as f64;
    let start = thread_cpu_ns();
    let mut sock = std::net::TcpStream::connect(server.addr).unwrap();
    sock.set_nodelay(true).unwrap();
    let (mut buf, mut saved) = (vec![0u8; 64 * 1024], 0usize);
    for (i, body) in run.bodies.iter().enumerate() {
        let head = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\nauthorization: Bearer bench\r\ncontent-length: {}\r\n\r\n",
            server.addr,
            body.len()
        );
        let mut parts = [IoSlice::new(head.as_bytes()), IoSlice::new(body)];
        let mut rest = &mut parts[..];
        while !rest.is_empty() {
            let n = sock.write_vectored(rest).unwrap();
            IoSlice::advance_slices(&mut rest, n);
        }
        let mut tail = Vec::new();
        loop {
            let n = sock.read(&mut buf).unwrap();
            assert!(n > 0, "the server closed the connection");
            writeln!(events_in, "{{\"type\":\"agent_token\",\"bytes\":{n}}}").unwrap();
            tail.extend_from_slice(&buf[n.saturating_sub(5)..n]);
            if tail.ends_with(b"0\r\n\r\n") {
                break;
            }
            tail.drain(..tail.len().saturating_sub(5));
        }
        while (saved as f64) < (i + 1) as f64 * per_request {
            saved += 1;
            let size = content.len() * saved / saves.max(1);
            let mut f = std::fs::File::create(&tmp).unwrap();
            f.write_all(&content[..size]).unwrap();
            f.sync_data().unwrap();
            drop(f);
            std::fs::rename(&tmp, &file).unwrap();
        }
    }
    let ms = (thread_cpu_ns() - start) as f64 / 1e6 / run.messages.max(1) as f64;
    drop(events_in);
    drain.join().unwrap().unwrap();
    ms
}

/// Exec to first frame of the full screen, in a real pseudo-terminal, with
/// the rehearsal provider and the built-in room; milliseconds.
fn startup_ms() -> f64 {
    use std::os::fd::FromRawFd;
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: 40,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty fills the two descriptors we pass.
    let rc = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &size) };
    assert_eq!(rc, 0, "openpty");
    // SAFETY: the descriptors were just opened and are owned here.
    let (master, slave) = unsafe { (std::fs::File::from_raw_fd(master), std::fs::File::from_raw_fd(slave)) };
    // Act as the terminal: drain what the child draws (so it never blocks on
    // a full pty) and answer the device-attributes query that crossterm sends
    // to probe the keyboard protocol, as real terminals do at once.
    let mut reader = master.try_clone().unwrap();
    let mut answer = master.try_clone().unwrap();
    std::thread::spawn(move || {
        let mut buf = [0u8; 65536];
        while let Ok(n) = std::io::Read::read(&mut reader, &mut buf) {
            if n == 0 {
                break;
            }
            if buf[..n].windows(3).any(|w| w == b"\x1b[c") {
                let _ = std::io::Write::write_all(&mut answer, b"\x1b[?62;22c");
            }
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let status = Command::new(bin())
        .current_dir(dir.path())
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env("BMAD_PARTY_EXIT_AFTER_FIRST_FRAME", "1")
        .env("TERM", "xterm-256color")
        .arg("--output")
        .arg(dir.path())
        .stdin(slave.try_clone().unwrap())
        .stdout(slave.try_clone().unwrap())
        .stderr(slave)
        .status()
        .unwrap();
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    assert!(status.success());
    drop(master);
    ms
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let smoke = std::env::args().any(|a| a == "--smoke");
    // `cargo bench` passes --bench; with a filter for another bench, skip.
    let args: Vec<String> = std::env::args().collect();
    let mode_at = args.iter().position(|a| a == "--round-mode");
    if args
        .iter()
        .enumerate()
        .skip(1)
        .any(|(i, a)| Some(i) != mode_at.map(|m| m + 1) && !a.starts_with('-') && !"whole_process".contains(a.as_str()))
    {
        return;
    }
    let (rounds, runs) = if smoke { (20, 1) } else { (100, 7) };
    // Three personas in turn, as the comparison with other frameworks
    // measures it; `--round-mode hybrid|parallel` for the concurrent modes.
    let mode = mode_at
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| "sequential".into());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = rt.block_on(FakeOpenAi::start(|_, n| bmad_party::testing::stream_of(&reply(n))));
    // The session folder on the disk (as a facilitator has it), then in
    // memory (tmpfs) when there is one: the difference is what the disk's
    // fdatasync after every message costs this machine's CPU.
    let mut places = vec![("disk", std::env::temp_dir())];
    let shm = std::path::PathBuf::from("/dev/shm");
    if !smoke && shm.is_dir() {
        places.push(("tmpfs", shm));
    }
    // The places take turns, run by run, so that both see the same moods of
    // this machine (it drifts by ±15 % from one quarter hour to the next).
    let mut measured: Vec<(Vec<Run>, Vec<f64>)> = places.iter().map(|_| (Vec::new(), Vec::new())).collect();
    for i in 0..runs {
        for ((place, root), (results, floors)) in places.iter().zip(&mut measured) {
            let r = run_once(&server, rounds, root, &mode);
            let floor = io_floor(&server, &r, rounds, root);
            println!(
                "{place} run {}: {} agent messages, CPU {:.3} ms/message (I/O floor {floor:.3}), peak RSS {:.1} MB, cost growth (last {} rounds / first) {:.2}x ({:.3} / {:.3} ms)",
                i + 1,
                r.messages,
                r.cpu_per_message_ms,
                r.peak_rss_mb,
                10.min(rounds / 2),
                r.growth,
                r.last_ms,
                r.first_ms,
            );
            results.push(r);
            floors.push(floor);
        }
    }
    let summary: Vec<String> = places
        .iter()
        .zip(measured)
        .map(|((place, root), (results, floors))| {
            let own = results.iter().zip(&floors).map(|(r, f)| r.cpu_per_message_ms - f).collect();
            format!(
                "median of {runs}, session file on {place} ({}): CPU {:.3} ms/agent message ({:.3} in the first rounds, {:.3} in the last); I/O floor {:.3}, so {:.3} above it; peak RSS {:.1} MB, growth {:.2}x ({rounds} rounds x 3 agents, 60 tokens each)",
                root.display(),
                median(results.iter().map(|r| r.cpu_per_message_ms).collect()),
                median(results.iter().map(|r| r.first_ms).collect()),
                median(results.iter().map(|r| r.last_ms).collect()),
                median(floors),
                median(own),
                median(results.iter().map(|r| r.peak_rss_mb).collect()),
                median(results.iter().map(|r| r.growth).collect()),
            )
        })
        .collect();
    let startups: Vec<f64> = (0..if smoke { 3 } else { 21 }).map(|_| startup_ms()).collect();
    println!(
        "start-up, exec to first frame in a pty (rehearsal, built-in room): median {:.1} ms of {} runs (includes leaving)",
        median(startups.clone()),
        startups.len()
    );
    for line in summary {
        println!("{line}");
    }
}
