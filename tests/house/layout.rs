//! The shape of the code, kept by tests: which way the top-level modules
//! depend (no circles, so each has one obvious place in the picture in
//! docs/architecture.md), and the two walls the design rests on: the engine
//! never imports the terminal library, the front ends never touch HTTP;
//! and a library surface no wider than its tests and benches need.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable src") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's code without its unit tests (an inline `#[cfg(test)] mod tests
/// { … }`, and the files named `tests.rs` or `*_tests.rs`): tests may reach
/// anywhere. A `mod tests;` line only names such a file: the code after it
/// is read.
fn code_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    if name == "tests.rs" || name.ends_with("_tests.rs") {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let code = match text.find("#[cfg(test)]\nmod tests {") {
        Some(i) => text[..i].to_string(),
        None => text,
    };
    // Comments name other modules freely.
    Some(
        code.lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// The top-level module a file belongs to (`engine` for src/engine/…).
fn top_module(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).expect("under src");
    let first = rel
        .components()
        .next()
        .expect("a component")
        .as_os_str()
        .to_string_lossy()
        .to_string();
    first.trim_end_matches(".rs").to_string()
}

/// Each top-level module and the others it names as `crate::other`.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let names: BTreeSet<String> = files.iter().map(|f| top_module(&root, f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = top_module(&root, file);
        if from == "main" || from == "lib" {
            continue;
        }
        let Some(code) = code_of(file) else { continue };
        let deps = graph.entry(from.clone()).or_default();
        for (i, _) in code.match_indices("crate::") {
            let name: String = code[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name != from && names.contains(&name) {
                deps.insert(name);
            }
        }
    }
    graph
}

/// A path from `to` back to `from` through the graph, if there is one.
fn path_back(graph: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> Option<Vec<String>> {
    let mut stack = vec![vec![to.to_string()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = stack.pop() {
        let last = path.last().expect("non-empty").clone();
        if last == from {
            return Some(path);
        }
        if !seen.insert(last.clone()) {
            continue;
        }
        for next in graph.get(&last).into_iter().flatten() {
            let mut p = path.clone();
            p.push(next.clone());
            stack.push(p);
        }
    }
    None
}

#[test]
fn no_top_level_module_depends_on_itself_through_others() {
    let graph = module_graph();
    assert!(graph.len() > 10, "the modules were found: {graph:?}");
    let mut circles = Vec::new();
    for (from, deps) in &graph {
        for to in deps {
            if let Some(back) = path_back(&graph, from, to) {
                circles.push(format!("{from} -> {}", back.join(" -> ")));
            }
        }
    }
    assert!(
        circles.is_empty(),
        "import circles between top-level modules:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_leaves_depend_on_no_domain_module() {
    let graph = module_graph();
    for leaf in ["source", "verdict", "text"] {
        let deps: Vec<&String> = graph[leaf].iter().filter(|d| !["text", "i18n"].contains(&d.as_str())).collect();
        assert!(deps.is_empty(), "{leaf} is a leaf but uses {deps:?}");
    }
}

fn files_naming(dir: &str, words: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files
        .iter()
        .filter_map(|f| {
            let code = code_of(f)?;
            words.iter().any(|w| code.contains(w)).then(|| f.display().to_string())
        })
        .collect()
}

#[test]
fn the_engine_never_imports_the_terminal_library() {
    let found = files_naming("src/engine", &["ratatui", "crossterm"]);
    assert!(found.is_empty(), "the engine names the terminal library in {found:?}");
}

#[test]
fn the_front_ends_never_touch_http() {
    let found = files_naming("src/frontend", &["async_openai", "reqwest", "crate::llm"]);
    assert!(found.is_empty(), "a front end reaches the model layer in {found:?}");
}

/// The library exists for the binary (`main.rs` calls `program::main`), its
/// tests and benches: everything else is `pub(crate)`. The bound is the
/// count today: a new `pub` item is one a test or bench reaches, and raises
/// it on purpose. The loopback server (`testing`) is behind its feature and
/// not counted.
const PUB_ITEMS_AT_MOST: usize = 218;

#[test]
fn the_library_surface_stays_narrow() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let kinds = [
        "fn ",
        "async fn ",
        "struct ",
        "enum ",
        "mod ",
        "const ",
        "static ",
        "type ",
        "trait ",
        "use ",
    ];
    let mut count = 0;
    for path in files.iter().filter(|p| !p.starts_with(root.join("testing"))) {
        let Some(code) = code_of(path) else { continue };
        count += code
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("pub "))
            .filter(|rest| kinds.iter().any(|k| rest.starts_with(k)))
            .count();
    }
    assert!(
        count <= PUB_ITEMS_AT_MOST,
        "{count} pub items outside src/testing: make the new ones pub(crate) unless a test or bench needs them"
    );
}

/// A CJK ideograph (the unified blocks and the compatibility block).
fn is_ideograph(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}')
}

/// The .rs files outside `src/i18n/zh/` that may hold Chinese in their
/// code, each with why: data the program matches rather than words it
/// says, and clap's help, chosen before any language is known. What the
/// program says is a key of `src/i18n`. A file that no longer holds
/// Chinese must leave the list.
const CHINESE_ALLOWED: &[(&str, &str)] = &[
    ("cli.rs", "clap's help in Chinese, chosen from the arguments before anything else"),
    ("engine/memory.rs", "rule data: the words a note-taker uses for none"),
    ("engine/reading/mod.rs", "rule data: a yes or no read from a model's reply"),
    ("engine/self_check.rs", "rule data: a yes and the ways a model says no question"),
    ("engine/similarity.rs", "rule data: Chinese negators"),
    (
        "engine/takeaways.rs",
        "rule data: the headings and openings a note-taker's reply is read for",
    ),
    (
        "engine/machine/voices.rs",
        "rule data: a language setting that names Chinese, the facilitator's Chinese name",
    ),
    ("i18n/mod.rs", "Lang reads settings that say 中文 and names Chinese to the agents"),
];

#[test]
fn chinese_in_code_lives_in_the_catalogue() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let zh = root.join("i18n").join("zh");
    let mut holding = BTreeSet::new();
    for file in files.iter().filter(|f| !f.starts_with(&zh)) {
        let Some(code) = code_of(file) else { continue };
        if code.chars().any(is_ideograph) {
            let rel = file.strip_prefix(&root).expect("under src");
            holding.insert(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    let allowed: BTreeSet<String> = CHINESE_ALLOWED.iter().map(|(f, _)| f.to_string()).collect();
    let stray: Vec<&String> = holding.difference(&allowed).collect();
    assert!(
        stray.is_empty(),
        "Chinese in the code of {stray:?}: say it through a key of src/i18n (its words in src/i18n/zh/)"
    );
    let stale: Vec<&String> = allowed.difference(&holding).collect();
    assert!(stale.is_empty(), "{stale:?} no longer hold Chinese: take them off CHINESE_ALLOWED");
}

/// Colours come from one palette: a view names what a colour says
/// (`theme::DANGER`), never the colour (`Color::Red`), so the screen's
/// look is changed in `src/frontend/tui/theme.rs` alone.
#[test]
fn colours_come_only_from_the_theme() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/frontend/tui");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let raw: Vec<String> = files
        .iter()
        .filter(|f| !f.ends_with("theme.rs"))
        .filter(|f| code_of(f).is_some_and(|c| c.contains("Color::")))
        .map(|f| f.strip_prefix(&root).expect("under tui").display().to_string())
        .collect();
    assert!(raw.is_empty(), "colours named outside theme.rs: {raw:?}");
}
