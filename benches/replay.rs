//! The replay bench: real multi-persona turns, written by the models
//! facilitators run, played through reply cleanup in the room each was said
//! in, at each level. It prints what cleanup would have changed: turns
//! changed, characters removed, turns that would be asked again, the rules
//! that cut, and structure broken (code blocks, tables, lists), by language.
//!
//! Not run in CI, and its corpus is not in the repository: it takes a path.
//! A corpus is JSON lines, one turn each (`bmad_party::testing::replay::Turn`):
//! `speaker`, `title`, `user` (the facilitator's last message), `before`
//! (`[{speaker, text}]` said since it, or names), `history` (earlier turns),
//! `others` (the room), `text`, `lang`, `model`. docs/cleanup.md says how the
//! project's own corpus was built.
//!
//! ```sh
//! cargo bench --bench replay -- --corpus ~/corpus/turns.jsonl
//! cargo bench --bench replay -- --corpus FILE --level light --show 5 --lang en
//! ```
//! Options: `--level off|light|full|auto|all` (all), `--piece N` characters
//! a streamed piece (4), `--lang CODE` (every language), `--show N` changed
//! turns printed a level (0), `--only changed|code|tables|lists|asked-lists|asked-again`
//! which of them, `--base-url URL` the server `auto` judges a turn's model by
//! (a hosted API's).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use std::collections::BTreeMap;

use bmad_party::testing::replay::{asks_for_list, auto_level, replay, Turn};

struct Args {
    corpus: String,
    levels: Vec<String>,
    piece: usize,
    lang: Option<String>,
    show: usize,
    /// Which changed turns `--show` prints: `changed` (any), `code`,
    /// `tables`, `lists`, `asked-lists`, `asked-again`.
    only: String,
    base_url: String,
}

fn args() -> Args {
    let mut a = Args {
        corpus: String::new(),
        levels: ["off", "light", "full", "auto"].map(String::from).to_vec(),
        piece: 4,
        lang: None,
        show: 0,
        only: "changed".into(),
        base_url: "https://api.openai.com/v1".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut v = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--corpus" => a.corpus = v(),
            "--level" => {
                let l = v();
                if l != "all" {
                    a.levels = vec![l];
                }
            }
            "--piece" => a.piece = v().parse().expect("--piece N"),
            "--lang" => a.lang = Some(v()),
            "--show" => a.show = v().parse().expect("--show N"),
            "--only" => a.only = v(),
            "--base-url" => a.base_url = v(),
            // `cargo bench` passes its own.
            "--bench" => {}
            other => panic!("unknown option {other}"),
        }
    }
    assert!(
        !a.corpus.is_empty(),
        "--corpus PATH: a JSON-lines file of turns (see benches/replay.rs)"
    );
    a
}

/// The figures of one level over some turns.
#[derive(Default)]
struct Figures {
    turns: usize,
    changed: usize,
    chars: usize,
    removed: usize,
    asked_again: usize,
    rules: BTreeMap<&'static str, usize>,
    code: usize,
    code_dropped: usize,
    tables: usize,
    tables_dropped: usize,
    lists: usize,
    asked_lists: usize,
    with_code: usize,
    with_tables: usize,
    with_lists: usize,
    asked_for_lists: usize,
}

fn fences(s: &str) -> usize {
    s.lines()
        .filter(|l| l.trim_start().starts_with("```") || l.trim_start().starts_with("~~~"))
        .count()
}

fn rows(s: &str) -> usize {
    s.lines().filter(|l| l.trim_start().starts_with('|')).count()
}

fn items(s: &str) -> usize {
    s.lines()
        .filter(|l| {
            let t = l.trim_start();
            let bullet = t.starts_with(['-', '*', '+', '•']) && t[1..].starts_with(' ');
            let digits = t.trim_start_matches(|c: char| c.is_ascii_digit());
            let number = digits.len() < t.len() && (digits.starts_with(". ") || digits.starts_with(") "));
            bullet || number
        })
        .count()
}

fn normal(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Figures {
    fn add(&mut self, turn: &Turn, shown: &str, cuts: &[(&'static str, String)], left: &str) {
        let text = turn.text.as_str();
        self.turns += 1;
        let (before, after) = (text.chars().count(), shown.chars().count());
        self.chars += before;
        if normal(text) != normal(shown) {
            self.changed += 1;
            self.removed += before.saturating_sub(after);
        }
        if left != "speech" {
            self.asked_again += 1;
        }
        for (code, _) in cuts {
            *self.rules.entry(code).or_default() += 1;
        }
        let asked = asks_for_list(&turn.user);
        // Cut inside: a fence left open, a table with rows of it lost. A
        // block after the point a rule ended the reply goes whole.
        if fences(text) > 0 {
            self.with_code += 1;
            self.code += usize::from(fences(shown) % 2 == 1);
            self.code_dropped += usize::from(fences(shown).is_multiple_of(2) && fences(shown) < fences(text));
        }
        if rows(text) > 0 {
            self.with_tables += 1;
            self.tables += usize::from(rows(shown) > 0 && rows(shown) < rows(text));
            self.tables_dropped += usize::from(rows(shown) == 0);
        }
        if items(text) > 0 {
            self.with_lists += 1;
            let cut = items(shown) < items(text);
            self.lists += usize::from(cut);
            if asked {
                self.asked_for_lists += 1;
                self.asked_lists += usize::from(cut);
            }
        }
    }
}

fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        "–".into()
    } else {
        format!("{n} ({:.1} %)", n as f64 * 100.0 / of as f64)
    }
}

fn table(title: &str, by: &BTreeMap<String, Figures>) {
    println!("\n### {title}\n");
    let cols: Vec<&String> = by.keys().collect();
    println!("| measure | {} |", cols.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(" | "));
    println!("|---|{}", "---|".repeat(cols.len()));
    let row = |name: &str, f: &dyn Fn(&Figures) -> String| {
        println!("| {name} | {} |", cols.iter().map(|c| f(&by[*c])).collect::<Vec<_>>().join(" | "));
    };
    row("turns", &|f| f.turns.to_string());
    row("turns changed", &|f| pct(f.changed, f.turns));
    row("characters removed", &|f| pct(f.removed, f.chars));
    row("turns asked again (nothing of its own left)", &|f| pct(f.asked_again, f.turns));
    row("code blocks cut inside (of turns with code)", &|f| {
        format!("{} of {}", f.code, f.with_code)
    });
    row("– dropped whole, after a rule ended the reply", &|f| f.code_dropped.to_string());
    row("tables cut inside (of turns with tables)", &|f| {
        format!("{} of {}", f.tables, f.with_tables)
    });
    row("– dropped whole", &|f| f.tables_dropped.to_string());
    row("lists cut (of turns with lists)", &|f| format!("{} of {}", f.lists, f.with_lists));
    row("asked-for lists cut (of lists asked for)", &|f| {
        format!("{} of {}", f.asked_lists, f.asked_for_lists)
    });
    let mut codes: Vec<&str> = by.values().flat_map(|f| f.rules.keys().copied()).collect();
    codes.sort_unstable();
    codes.dedup();
    for code in codes {
        row(&format!("– cut by `{code}`"), &|f| {
            f.rules.get(code).copied().unwrap_or(0).to_string()
        });
    }
}

fn main() {
    let a = args();
    let text = std::fs::read_to_string(&a.corpus).unwrap_or_else(|e| panic!("{}: {e}", a.corpus));
    let mut turns: Vec<Turn> = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let turn: Turn = serde_json::from_str(line).unwrap_or_else(|e| panic!("{}:{}: {e}", a.corpus, i + 1));
        if a.lang.as_ref().is_none_or(|l| *l == turn.lang) {
            turns.push(turn);
        }
    }
    println!("# Replay of {} turns from {}", turns.len(), a.corpus);
    let started = std::time::Instant::now();
    for level in &a.levels {
        let mut by: BTreeMap<String, Figures> = BTreeMap::new();
        let mut shown_n = 0;
        for turn in &turns {
            let chosen = if level == "auto" {
                let model = if turn.model.is_empty() || turn.model == "unknown-hosted" {
                    "gpt-4o"
                } else {
                    turn.model.as_str()
                };
                auto_level(model, &a.base_url)
            } else {
                level.as_str()
            };
            let r = replay(turn, chosen, a.piece);
            for key in [turn.lang.clone(), "all".to_string()] {
                by.entry(key).or_default().add(turn, &r.shown, &r.cuts, &r.left);
            }
            let text = turn.text.as_str();
            let picked = match a.only.as_str() {
                "code" => fences(&r.shown) % 2 == 1,
                "tables" => rows(&r.shown) > 0 && rows(&r.shown) < rows(text),
                "lists" => items(&r.shown) < items(text),
                "asked-lists" => asks_for_list(&turn.user) && items(&r.shown) < items(text),
                "asked-again" => r.left != "speech",
                _ => normal(&r.shown) != normal(text),
            };
            if shown_n < a.show && picked {
                shown_n += 1;
                println!("\n---- {level} ({chosen}): {} [{}], left: {}", turn.speaker, turn.lang, r.left);
                for (code, cut) in &r.cuts {
                    println!("  cut `{code}`: {}", cut.replace('\n', "⏎"));
                }
                println!("  shown: {}", r.shown.replace('\n', "⏎"));
            }
        }
        table(&format!("level {level}"), &by);
    }
    eprintln!(
        "replay: {} turns × {} levels in {:.1} s",
        turns.len(),
        a.levels.len(),
        started.elapsed().as_secs_f64()
    );
}
