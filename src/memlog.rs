//! A party's memory in BMAD's memlog format (`_bmad/scripts/memlog.py`),
//! so BMAD's own party mode and bmad-party read and extend the same file:
//!
//! ```text
//! ---
//! updated: 2026-06-07T14:22
//! ---
//!
//! - (dynamic) Winston and John clashed over …
//! - (callback by bmad-agent-dev) Amelia's running bit: …
//! - (outcome) …
//! ```
//!
//! Flat, append-only, one line per entry (newlines in the text collapsed),
//! the tag `(type)`, `(type by who)` or `(by who)` optional; `updated` is
//! stamped again as the frontmatter's last key on every write. Writes are
//! atomic (temporary file, fsync, rename) and, between two bmad-party
//! processes, one at a time (a lock on `.memlog.md.lock` beside it).

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

/// The kinds BMAD's memlog knows.
pub(crate) const KINDS: &[&str] = &["dynamic", "moment", "callback", "outcome"];

/// One remembered line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub kind: Option<String>,
    /// Who it is about or by (a persona code).
    pub by: Option<String>,
    pub text: String,
}

impl Entry {
    pub(crate) fn new(kind: &str, by: Option<&str>, text: &str) -> Entry {
        Entry {
            kind: Some(kind.to_string()),
            by: by.map(str::to_string),
            text: one_line(text),
        }
    }

    /// The entry as its line in the file.
    pub(crate) fn line(&self) -> String {
        let tag = match (&self.kind, &self.by) {
            (Some(k), Some(b)) => format!("({k} by {b}) "),
            (Some(k), None) => format!("({k}) "),
            (None, Some(b)) => format!("(by {b}) "),
            (None, None) => String::new(),
        };
        format!("- {tag}{}", self.text)
    }
}

/// Text on one line: newlines and runs of blanks become one space, control
/// characters go.
pub(crate) fn one_line(text: &str) -> String {
    crate::text::sanitize(text).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The memory file of a party in `dir` (`<memory_dir>/<party>/.memlog.md`).
pub(crate) fn path(memory_dir: &Path, party: &str) -> PathBuf {
    memory_dir.join(party).join(".memlog.md")
}

/// The entries of a memlog's text, oldest first. Lines that are not
/// entries (a heading someone added, blank lines) are skipped.
pub(crate) fn parse(text: &str) -> Vec<Entry> {
    let body = body_of(text);
    body.lines().filter_map(entry_of).collect()
}

fn body_of(text: &str) -> &str {
    let t = text.trim_start_matches('\u{feff}');
    if let Some(rest) = t.strip_prefix("---") {
        if let Some(end) = rest.find("\n---") {
            let after = &rest[end + 4..];
            return after.split_once('\n').map_or("", |(_, b)| b);
        }
    }
    t
}

fn entry_of(line: &str) -> Option<Entry> {
    let rest = line.trim().strip_prefix("- ").or_else(|| line.trim().strip_prefix("* "))?;
    let (mut kind, mut by, mut text) = (None, None, rest.trim());
    if let Some(inner) = text.strip_prefix('(') {
        if let Some((tag, after)) = inner.split_once(')') {
            let tag = tag.trim();
            let parsed = match tag.split_once(" by ") {
                Some((k, b)) => Some((Some(k.trim()), Some(b.trim()))),
                None if tag.starts_with("by ") => Some((None, Some(tag[3..].trim()))),
                None if !tag.is_empty() && !tag.contains(' ') => Some((Some(tag), None)),
                None => None,
            };
            if let Some((k, b)) = parsed {
                kind = k.filter(|k| !k.is_empty()).map(str::to_string);
                by = b.filter(|b| !b.is_empty()).map(str::to_string);
                text = after.trim();
            }
        }
    }
    (!text.is_empty()).then(|| Entry {
        kind,
        by,
        text: one_line(text),
    })
}

/// The entries of the memory at `path`; none when there is no file yet.
pub(crate) fn read(path: &Path) -> std::io::Result<Vec<Entry>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(parse(&String::from_utf8_lossy(&bytes))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(vec![]),
        Err(e) => Err(e),
    }
}

/// Appends `entries` to the memory at `path` (made with its folder when
/// new), stamping `updated`. Returns how many entries the file holds.
pub(crate) fn append(path: &Path, entries: &[Entry], now: chrono::DateTime<chrono::Local>) -> std::io::Result<usize> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".memlog.md.lock"))?;
    lock.lock()?;
    let old = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let text = with_entries(&old, entries, &now.format("%Y-%m-%dT%H:%M").to_string());
    crate::session::store_write(path, &[text.as_bytes()], crate::session::Folder::Known)?;
    Ok(parse(&text).len())
}

/// `old` (a memlog's text, or nothing) with `entries` added and `updated`
/// stamped as the frontmatter's last key; the other keys and every line
/// already there are kept as they were.
pub(crate) fn with_entries(old: &str, entries: &[Entry], updated: &str) -> String {
    let t = old.trim_start_matches('\u{feff}');
    let (mut fields, body) = match t.strip_prefix("---\n").and_then(|r| r.split_once("\n---")) {
        Some((fm, rest)) => (
            fm.lines()
                .filter(|l| !l.trim_start().starts_with("updated:"))
                .map(str::to_string)
                .collect::<Vec<_>>(),
            rest.split_once('\n').map_or("", |(_, b)| b).to_string(),
        ),
        None => (vec![], t.to_string()),
    };
    fields.push(format!("updated: {updated}"));
    let mut out = format!("---\n{}\n---\n", fields.join("\n"));
    let body = body.trim_matches('\n');
    out.push('\n');
    if !body.is_empty() {
        out.push_str(body);
        out.push('\n');
    }
    for e in entries.iter().filter(|e| !e.text.is_empty()) {
        out.push_str(&e.line());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const BMAD: &str = "---\nproject: shop\nupdated: 2026-06-07T14:22\n---\n\n- (dynamic) Winston and John clashed over the monolith\n- (callback by bmad-agent-dev) Amelia's running bit: \"ship it Friday\"\n- (by bmad-agent-pm) John promised a pricing page\n- plain line\nnot an entry\n- (outcome) Decided: one region first\n";

    #[test]
    fn a_bmad_memlog_reads_as_entries() {
        let e = parse(BMAD);
        assert_eq!(e.len(), 5, "{e:?}");
        assert_eq!(e[0], Entry::new("dynamic", None, "Winston and John clashed over the monolith"));
        assert_eq!(e[1].by.as_deref(), Some("bmad-agent-dev"));
        assert_eq!(e[1].kind.as_deref(), Some("callback"));
        assert_eq!((e[2].kind.as_deref(), e[2].by.as_deref()), (None, Some("bmad-agent-pm")));
        assert_eq!((e[3].kind.as_deref(), e[3].text.as_str()), (None, "plain line"));
        assert_eq!(e[4].text, "Decided: one region first");
    }

    #[test]
    fn appending_keeps_every_line_and_field_and_stamps_updated_last() {
        let new = [
            Entry::new("outcome", Some("pm"), "Pricing\npage first"),
            Entry::new("moment", None, ""),
        ];
        let text = with_entries(BMAD, &new, "2026-11-24T09:00");
        assert!(
            text.starts_with("---\nproject: shop\nupdated: 2026-11-24T09:00\n---\n\n- (dynamic)"),
            "{text}"
        );
        assert!(text.contains("not an entry\n"), "a line someone wrote is kept");
        assert!(
            text.ends_with("- (outcome) Decided: one region first\n- (outcome by pm) Pricing page first\n"),
            "{text}"
        );
        assert_eq!(parse(&text).len(), 6, "the empty entry is not written");
        let fresh = with_entries("", &new[..1], "2026-11-24T09:00");
        assert_eq!(
            fresh,
            "---\nupdated: 2026-11-24T09:00\n---\n\n- (outcome by pm) Pricing page first\n"
        );
        assert_eq!(parse(&fresh), vec![Entry::new("outcome", Some("pm"), "Pricing page first")]);
    }

    #[test]
    fn append_makes_the_folder_and_counts_the_entries() {
        let dir = tempfile::tempdir().unwrap();
        let p = path(dir.path(), "installed");
        assert_eq!(read(&p).unwrap(), vec![], "no file yet: nothing remembered");
        let now = chrono::Local::now();
        assert_eq!(append(&p, &[Entry::new("moment", None, "one")], now).unwrap(), 1);
        assert_eq!(append(&p, &[Entry::new("outcome", None, "two")], now).unwrap(), 2);
        let e = read(&p).unwrap();
        assert_eq!(e.iter().map(|e| e.text.as_str()).collect::<Vec<_>>(), ["one", "two"]);
    }
}
