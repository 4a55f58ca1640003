//! Documents in front of the room (`--context FILE`, `/context PATH`):
//! read once, named by their file name, and fitted to the context budget
//! each time the room's system prompt is built — a document longer than
//! its share is cut at a line, with a note saying how much was left out.

use std::path::{Path, PathBuf};

use crate::engine::budget::estimate_tokens;
use crate::i18n::{Lang, Problem, Say};

/// The most of a file that is ever kept: more than any window's share.
const MAX_CHARS: usize = 200_000;

#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// What the room calls it: the file's name.
    pub name: String,
    /// Where it was read from (absolute), for the session file and resume.
    pub path: PathBuf,
    pub text: String,
    /// The file's length in characters (more than `text` when it was cut on reading).
    pub chars: usize,
}

/// Why a document cannot be put in front of the room; it names the file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct DocumentError(pub(crate) Problem);

impl Say for DocumentError {
    fn say(&self, lang: Lang) -> String {
        self.0.say(lang)
    }
}

/// Reads a document: text (UTF-8), control characters removed. The
/// reason it cannot be used names the file.
pub(crate) fn read(path: &Path) -> Result<Document, DocumentError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        DocumentError(Problem::DocumentUnreadable {
            shown: shown.clone(),
            error: e.to_string(),
        })
    })?;
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err(DocumentError(Problem::DocumentNotText { shown }));
    }
    let text = String::from_utf8(bytes).map_err(|_| DocumentError(Problem::DocumentNotUtf8 { shown: shown.clone() }))?;
    let text = crate::text::sanitize(&text).trim().to_string();
    if text.is_empty() {
        return Err(DocumentError(Problem::DocumentEmpty { shown }));
    }
    let chars = text.chars().count();
    let kept = match text.char_indices().nth(MAX_CHARS) {
        Some((at, _)) => text[..at].to_string(),
        None => text,
    };
    Ok(Document {
        name: path
            .file_name()
            .map(|n| crate::text::sanitize(&n.to_string_lossy()))
            .unwrap_or(shown),
        path: std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
        text: kept,
        chars,
    })
}

/// One document as the room sees it within `tokens`: whole, or its start
/// cut at a line (else a sentence, else a word) with `note` (given the
/// share shown, in percent) after it.
pub(crate) fn fitted(doc: &Document, tokens: u32, note: impl Fn(u32) -> String) -> String {
    if estimate_tokens(&doc.text) <= tokens && doc.text.chars().count() == doc.chars {
        return doc.text.clone();
    }
    // Four characters a token, the estimate's own rule, then checked.
    let mut limit = (tokens as usize * 4).min(doc.text.len());
    while !doc.text.is_char_boundary(limit) {
        limit -= 1;
    }
    let mut head = &doc.text[..limit];
    while estimate_tokens(head) > tokens && !head.is_empty() {
        let mut at = head.len() * 9 / 10;
        while !head.is_char_boundary(at) {
            at -= 1;
        }
        head = &head[..at];
    }
    if head.len() < doc.text.len() {
        let floor = head.len() / 2;
        let cut = head
            .rfind('\n')
            .filter(|&i| i > floor)
            .or_else(|| head.rfind(". ").map(|i| i + 1).filter(|&i| i > floor))
            .or_else(|| head.rfind(' ').filter(|&i| i > floor))
            .unwrap_or(head.len());
        head = &head[..cut];
    }
    let shown = head.chars().count();
    let percent = ((shown * 100) / doc.chars.max(1)).min(99) as u32;
    format!("{}\n{}", head.trim_end(), note(percent))
}

/// Shares of `total` tokens for documents of these sizes: each gets what
/// it needs if all fit, else the short ones whole and the rest split
/// evenly among the long ones.
pub(crate) fn shares(needs: &[u32], total: u32) -> Vec<u32> {
    let mut out = vec![0; needs.len()];
    let mut order: Vec<usize> = (0..needs.len()).collect();
    order.sort_by_key(|&i| needs[i]);
    let mut left = total;
    for (k, &i) in order.iter().enumerate() {
        let even = left / (needs.len() - k) as u32;
        out[i] = needs[i].min(even);
        left -= out[i];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Document {
        Document {
            name: "brief.md".into(),
            path: "/tmp/brief.md".into(),
            text: text.into(),
            chars: text.chars().count(),
        }
    }

    #[test]
    fn a_short_document_is_whole_and_a_long_one_cut_at_a_line_with_a_note() {
        let d = doc("# Brief\nShip the API in March.");
        assert_eq!(fitted(&d, 100, |_| "CUT".into()), d.text);
        let long = (0..200).map(|i| format!("Line {i} of the plan.")).collect::<Vec<_>>().join("\n");
        let d = doc(&long);
        let f = fitted(&d, 50, |p| format!("[cut: {p}% shown]"));
        let (body, note) = f.rsplit_once('\n').unwrap();
        assert!(estimate_tokens(body) <= 50, "{body}");
        assert!(body.ends_with("of the plan."), "cut at a line: {body}");
        assert!(note.starts_with("[cut: ") && note.ends_with("% shown]"), "{note}");
        let cjk = doc(&"计划".repeat(5000));
        let f = fitted(&cjk, 40, |p| format!("[{p}%]"));
        assert!(estimate_tokens(&f) <= 45, "{f}");
    }

    #[test]
    fn shares_give_the_short_ones_what_they_need() {
        assert_eq!(shares(&[100, 200], 1000), vec![100, 200]);
        assert_eq!(shares(&[100, 5000, 5000], 1000), vec![100, 450, 450]);
        assert_eq!(shares(&[], 1000), Vec::<u32>::new());
    }

    #[test]
    fn a_file_that_is_not_text_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("x.png");
        std::fs::write(&bin, [0x89, b'P', b'N', b'G', 0, 0, 1]).unwrap();
        assert!(read(&bin).unwrap_err().to_string().contains("x.png"));
        assert!(read(&dir.path().join("missing.md")).unwrap_err().to_string().contains("missing.md"));
        let ok = dir.path().join("notes.md");
        std::fs::write(&ok, "Hello\u{1b}[31m there").unwrap();
        let d = read(&ok).unwrap();
        assert_eq!((d.name.as_str(), d.text.contains('\u{1b}')), ("notes.md", false));
    }
}
