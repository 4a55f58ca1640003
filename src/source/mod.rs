//! The files the program reads and their problems: a source file with the
//! name to show for it, a problem located in it (file, line, column, key,
//! what, and the source lines with a caret), YAML errors reworded for the
//! user, and frontmatter. A leaf: config, agents, workflow, BMAD loading
//! and the session file all use it, and it uses none of them.

mod words;

use std::fmt;

use crate::i18n::{Lang, Problem, Say};

/// A text file and the name to use for it in messages.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceFile {
    pub path: String,
    pub text: String,
}

/// A problem in a file the program reads, located as precisely as the
/// source allows.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceError {
    pub file: String,
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub key: String,
    pub(crate) message: Box<Problem>,
    /// The offending source lines with a caret, when known.
    pub snippet: Option<Box<str>>,
}

impl SourceError {
    /// A problem in `file` (at `line` when known) with `key`; no snippet.
    pub(crate) fn new(file: impl Into<String>, line: Option<u64>, key: &str, message: impl Into<Problem>) -> SourceError {
        SourceError {
            file: file.into(),
            line,
            column: None,
            key: key.to_string(),
            message: Box::new(message.into()),
            snippet: None,
        }
    }
}

impl SourceError {
    /// Where, what (said by `message`) and the snippet.
    fn shown(&self, f: &mut impl fmt::Write, message: &str) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        if self.key.is_empty() {
            write!(f, ": {message}")?;
        } else {
            write!(f, ": `{}`: {message}", self.key)?;
        }
        if let Some(s) = &self.snippet {
            write!(f, "\n{s}")?;
        }
        Ok(())
    }
}

/// In English, for logs and tests.
impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.shown(f, &self.message.say(Lang::En))
    }
}

impl Say for SourceError {
    fn say(&self, lang: Lang) -> String {
        let mut out = String::new();
        let _ = self.shown(&mut out, &self.message.say(lang));
        out
    }
}

impl std::error::Error for SourceError {}

/// Turns a YAML parse error into a located error in the user's words (the
/// key path, what was expected; `words`), with a snippet. `text` is the
/// whole file; `line_offset` shifts the library's lines when the YAML is
/// embedded in it (frontmatter).
pub(crate) fn yaml_error(e: &serde_saphyr::Error, file: &str, text: &str, line_offset: u64) -> SourceError {
    let loc = e.location();
    let full = e.to_string();
    // The crate's message starts with "error: line L column C: msg" followed
    // by a snippet; keep the message, rebuild position and snippet ourselves.
    let first = full.lines().next().unwrap_or("").trim_start_matches("error: ");
    let message = match first.split_once(": ") {
        Some((pos, rest)) if pos.starts_with("line ") => rest.to_string(),
        _ => first.to_string(),
    };
    let (mut line, mut column) = (loc.map(|l| l.line() + line_offset), loc.map(|l| l.column()));
    let mut worded = words::reword(&message, text, line, column);
    if let Some((l, c)) = worded.at {
        (line, column) = (Some(l), Some(c));
    }
    let hidden = may_hold_secret(&worded.key, &worded.message);
    if let (true, Problem::Expected { found, .. }) = (hidden, &mut worded.message) {
        *found = None;
    }
    SourceError {
        file: file.to_string(),
        line,
        column,
        key: worded.key,
        message: Box::new(worded.message),
        snippet: line.filter(|_| !hidden).and_then(|l| snippet(text, l, column)),
    }
}

/// Whether a problem at `key` may be about a secret, so that neither the
/// source lines nor the value found are shown with it: a key under
/// `bmad.llm` (the default endpoint or a named one) whose name, or the
/// unknown key's name the problem is about, says key, token or secret. A
/// key pasted into the config must never reach the screen or a log.
pub(crate) fn may_hold_secret(key: &str, message: &Problem) -> bool {
    let secret = |name: &str| {
        // `context_tokens`, `reply_max_tokens` count tokens; they hold none.
        let n = name.to_ascii_lowercase().replace("tokens", "");
        ["key", "token", "secret"].iter().any(|w| n.contains(w))
    };
    let unknown = match message {
        Problem::UnknownKey { unknown, .. } => secret(unknown),
        _ => false,
    };
    let in_llm = key == "bmad.llm" || key.starts_with("bmad.llm.");
    in_llm && (unknown || key.split('.').skip(2).any(secret))
}

/// A few lines of source around `line` (1-based) with a caret under `column`.
pub(crate) fn snippet(text: &str, line: u64, column: Option<u64>) -> Option<Box<str>> {
    let lines: Vec<&str> = text.lines().collect();
    let idx = usize::try_from(line).ok()?.checked_sub(1)?;
    if idx >= lines.len() {
        return None;
    }
    let start = idx.saturating_sub(2);
    let width = (idx + 1).to_string().len();
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate().take(idx + 1).skip(start) {
        out.push_str(&format!("{:>width$} | {}\n", i + 1, crate::text::sanitize(l)));
    }
    if let Some(c) = column {
        out.push_str(&format!("{:>width$} | {}^", "", " ".repeat(c.saturating_sub(1) as usize)));
    }
    Some(out.trim_end().into())
}

/// Splits `---\nyaml\n---\nbody`. Returns the YAML, the body and the line
/// number (1-based) where the YAML starts, or None without frontmatter.
pub(crate) fn split_frontmatter(text: &str) -> Option<(&str, &str, u64)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let yaml = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return Some((yaml, body, 2));
        }
        offset += line.len();
    }
    None
}
