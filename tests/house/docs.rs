//! The docs hold together: every relative link in the README and docs/
//! reaches a file and, where it names one, a heading of it; the manual for
//! small models stays a reference, not a diary; every doc says first what
//! it is for.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every Markdown file under docs/.
fn docs() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("docs/ is readable").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut out = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut out);
    out.sort();
    out
}

/// `text` without fenced code blocks and inline code spans: they hold no links.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            out.push('\n');
            continue;
        }
        if !fence {
            let bare: String = line.split('`').step_by(2).collect::<Vec<_>>().join("");
            out.push_str(&bare);
        }
        out.push('\n');
    }
    out
}

/// A heading's anchor as GitHub makes it: lower case, spaces to `-`,
/// letters, digits, `-` and `_` kept, the rest dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every anchor of `path`'s headings, repeats numbered as GitHub numbers them.
fn anchors(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut seen = std::collections::HashMap::<String, usize>::new();
    let mut out = BTreeSet::new();
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        let hashes = line.len() - line.trim_start_matches('#').len();
        if fence || !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(line[hashes..].trim_end_matches('#'));
        let n = seen.entry(base.clone()).or_default();
        out.insert(if *n == 0 { base.clone() } else { format!("{base}-{n}") });
        *n += 1;
    }
    out
}

#[test]
fn every_link_in_the_readme_and_docs_resolves() {
    let mut broken = Vec::new();
    let mut count = 0;
    for file in docs() {
        let text = prose(&std::fs::read_to_string(&file).unwrap());
        for (n, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(i) = rest.find("](") {
                let after = &rest[i + 2..];
                let end = after.find(')').unwrap_or(after.len());
                let target = &after[..end];
                rest = &after[end..];
                if target.contains("://") || target.starts_with("mailto:") || target.contains(' ') {
                    continue;
                }
                count += 1;
                let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
                let to = if path.is_empty() {
                    file.clone()
                } else {
                    file.parent().unwrap().join(path)
                };
                let at = format!("{}:{}: {target}", file.strip_prefix(root()).unwrap().display(), n + 1);
                if !to.exists() {
                    broken.push(format!("{at} (no such file)"));
                } else if !anchor.is_empty() && to.extension().is_some_and(|x| x == "md") && !anchors(&to).contains(anchor) {
                    broken.push(format!("{at} (no such heading)"));
                }
            }
        }
    }
    assert!(count > 50, "{count} links read: the reader lost them");
    assert!(broken.is_empty(), "links that go nowhere:\n{}", broken.join("\n"));
}

#[test]
fn the_manual_for_small_models_is_a_reference_and_every_doc_says_what_it_is_for() {
    let manual = std::fs::read_to_string(root().join("docs/real-models.md")).unwrap();
    let lines = manual.lines().count();
    assert!(
        lines <= 400,
        "docs/real-models.md has {lines} lines: what was tried belongs in docs/decisions/"
    );
    let records = root().join("docs/decisions");
    for file in docs() {
        let text = std::fs::read_to_string(&file).unwrap();
        // A decision record says what it is for in its header.
        if file.starts_with(&records) && !file.ends_with("README.md") {
            for field in ["- Date:", "- Question:", "- Tried:", "- Measured:", "- Verdict:"] {
                assert!(text.contains(field), "{}: a decision record without `{field}`", file.display());
            }
            continue;
        }
        let first = text
            .lines()
            .find(|l| !(l.starts_with('#') || l.trim().is_empty()))
            .unwrap_or_default();
        assert!(
            first.split_whitespace().count() >= 4,
            "{}: opens with no line on what it is for",
            file.display()
        );
    }
}

#[test]
fn the_documented_defaults_are_the_loaded_ones() {
    let docs = std::fs::read_to_string(root().join("docs/configuration.md")).unwrap();
    let after = docs
        .split("Every key is optional; the defaults:")
        .nth(1)
        .expect("the defaults' block");
    let block = after
        .split("```yaml\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("a yaml block");
    let overrides = bmad_party::config::Overrides::default();
    let documented = bmad_party::config::Config::parse(block, "docs/configuration.md", &overrides).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        documented,
        bmad_party::config::Config::default(),
        "docs/configuration.md's defaults against the built-in file's"
    );
}
