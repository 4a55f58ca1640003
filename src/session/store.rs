//! Reading and writing the session file. The file is rewritten whole and
//! atomically (temp file in the same folder, fsync, rename) so a crash at
//! any moment leaves either the previous or the new version, never a mix.
//!
//! The body is readable Markdown; each turn is preceded by an HTML comment
//! (invisible when rendered) that lets `--resume` rebuild the transcript
//! exactly. A content line that itself starts like such a comment is
//! escaped with a backslash, so model output cannot forge turns.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use regex::Regex;

use super::{Frontmatter, LockError, Session, SessionLock, Turn, TurnKind};
use crate::i18n::{Lang, Record, Say, Start};
use crate::source::split_frontmatter;
use crate::source::yaml_error;

const MARK: &str = "<!-- party:";

/// Keeps the rendered body between saves, so a save costs one append and one
/// write instead of re-rendering the whole transcript.
#[derive(Debug)]
pub struct SessionStore {
    pub path: PathBuf,
    body: String,
    rendered: usize,
    /// Where each rendered turn starts in `body`.
    starts: Vec<usize>,
    title: String,
    /// Each reading as last rendered, with its YAML (a list item).
    readings: Vec<(super::ReadingRecord, String)>,
    /// This process's claim on the file (see `lock`); none when the folder
    /// could not be written, where saving reports the problem anyway.
    lock: Option<SessionLock>,
}

impl SessionStore {
    /// Picks `<dir>/<YYYY-MM-DD-HHMMSS>-<slug>.md`, never reusing a name
    /// nor one another party has just claimed (two parties on the same topic
    /// in the same second). A folder that cannot be made is reported (and
    /// retried) at the first save instead of stopping the party.
    pub fn create(dir: &Path, topic: &str, now: DateTime<Utc>) -> SessionStore {
        let stem = format!("{}-{}", now.format("%Y-%m-%d-%H%M%S"), crate::text::slug(topic, 40));
        let folder_ready = std::fs::create_dir_all(dir).is_ok();
        let mut n = 1;
        loop {
            let path = if n == 1 {
                dir.join(format!("{stem}.md"))
            } else {
                dir.join(format!("{stem}-{n}.md"))
            };
            n += 1;
            if path.exists() {
                continue;
            }
            let lock = match folder_ready.then(|| SessionLock::acquire(&path)) {
                Some(Ok(lock)) => Some(lock),
                Some(Err(LockError::Held { .. })) => continue,
                Some(Err(e)) => {
                    tracing::warn!("{e}");
                    None
                }
                None => None,
            };
            return SessionStore::reopen(&path).locked(lock);
        }
    }

    /// A store for a session loaded from `path` (resume).
    pub(crate) fn reopen(path: &Path) -> SessionStore {
        SessionStore {
            path: path.to_path_buf(),
            body: String::new(),
            rendered: 0,
            starts: Vec::new(),
            title: String::new(),
            readings: Vec::new(),
            lock: None,
        }
    }

    /// The store keeps `lock` for as long as it lives.
    pub(crate) fn locked(mut self, lock: Option<SessionLock>) -> SessionStore {
        self.lock = lock;
        self
    }

    /// Turns from `turn` on are rendered again at the next save: one was
    /// put before them.
    pub(crate) fn forget_from(&mut self, turn: usize) {
        if turn < self.rendered {
            self.body.truncate(self.starts[turn]);
            self.starts.truncate(turn);
            self.rendered = turn;
        }
    }

    /// The file's text for `session`, appending turns rendered since the last call.
    pub fn render(&mut self, session: &Session) -> Result<Rendered<'_>, String> {
        let topic = session.fm.topic.replace('\n', " ");
        let title = Record::SessionTitle { topic: &topic }.say(session.fm.lang);
        if title != self.title || session.turns.len() < self.rendered {
            self.forget_from(0);
            self.title = title;
        }
        for t in &session.turns[self.rendered..] {
            self.starts.push(self.body.len());
            render_turn(&mut self.body, t);
        }
        self.rendered = session.turns.len();
        let failed = |e: serde_saphyr::SerializeError| format!("cannot serialise the session state: {e}");
        let yaml = serde_saphyr::to_string(&session.fm).map_err(failed)?;
        let readings = &session.fm.readings;
        self.readings.truncate(readings.len());
        for (i, r) in readings.iter().enumerate() {
            if self.readings.get(i).is_some_and(|(was, _)| was == r) {
                continue;
            }
            let item = (r.clone(), serde_saphyr::to_string(&std::slice::from_ref(r)).map_err(failed)?);
            match self.readings.get_mut(i) {
                Some(old) => *old = item,
                None => self.readings.push(item),
            }
        }
        let items: usize = self.readings.iter().map(|(_, y)| y.len()).sum();
        let mut head = String::with_capacity(yaml.len() + items + self.title.len() + 32);
        head.push_str("---\n");
        head.push_str(&yaml);
        if !yaml.ends_with('\n') {
            head.push('\n');
        }
        if !self.readings.is_empty() {
            head.push_str("readings:\n");
            for (_, item) in &self.readings {
                head.push_str(item);
            }
        }
        head.push_str("---\n\n");
        head.push_str(&self.title);
        Ok(Rendered { head, body: &self.body })
    }
}

/// A session file's text in two parts: the frontmatter and title, made
/// anew for each save, and the transcript kept by the store. Writing the
/// parts as they are spares copying the transcript for every save.
pub struct Rendered<'a> {
    pub head: String,
    pub body: &'a str,
}

impl Rendered<'_> {
    pub fn parts(&self) -> [&[u8]; 2] {
        [self.head.as_bytes(), self.body.as_bytes()]
    }

    /// The whole text, owned (to hand to another thread).
    pub(crate) fn to_text(&self) -> String {
        [self.head.as_str(), self.body].concat()
    }
}

fn render_turn(out: &mut String, t: &Turn) {
    let _ = write!(
        out,
        "\n{MARK}turn kind={} round={} at={}",
        t.kind.code(),
        t.round,
        t.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    );
    if let Some(a) = &t.agent {
        super::marker::push_field(out, "agent", a);
    }
    if t.interrupted {
        out.push_str(" interrupted=true");
    }
    if let Some(l) = &t.latency {
        let _ = write!(
            out,
            " first_token_ms={} total_ms={} tokens={}",
            l.first_token_ms, l.total_ms, l.tokens
        );
    }
    // Any name a server lists is kept, quoted if need be (`marker`); an
    // empty one says nothing.
    if let Some(e) = t.endpoint.as_deref().filter(|v| !v.is_empty()) {
        super::marker::push_field(out, "endpoint", e);
    }
    if let Some(m) = t.model.as_deref().filter(|v| !v.is_empty()) {
        super::marker::push_field(out, "model", m);
    }
    out.push_str(" -->\n");
    let text = escape(&t.text);
    match t.kind {
        TurnKind::Facilitator | TurnKind::Agent | TurnKind::Farewell => {
            let (icon, name) = split_label(&t.label);
            if icon.is_empty() {
                let _ = writeln!(out, "**{name}**: {text}");
            } else {
                let _ = writeln!(out, "{icon} **{name}**: {text}");
            }
        }
        TurnKind::Notice | TurnKind::Failed | TurnKind::Continue | TurnKind::Push | TurnKind::Reset => {
            for line in text.lines() {
                if line.is_empty() {
                    out.push_str(">\n");
                } else {
                    let _ = writeln!(out, "> {line}");
                }
            }
        }
        TurnKind::Highlights | TurnKind::Closing | TurnKind::Question => {
            let _ = writeln!(out, "{text}");
        }
    }
}

/// `🏗️ Ingrid` → ("🏗️", "Ingrid"); a label without an icon is all name.
fn split_label(label: &str) -> (&str, &str) {
    match label.split_once(' ') {
        Some((first, rest)) if !first.chars().any(char::is_alphanumeric) => (first, rest),
        _ => ("", label),
    }
}

fn escape(text: &str) -> String {
    if !text.contains(MARK) {
        return text.to_string();
    }
    text.split('\n')
        .map(|l| {
            if l.trim_start_matches('\\').starts_with(MARK) {
                format!("\\{l}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn unescape_line(l: &str) -> &str {
    if l.starts_with('\\') && l.trim_start_matches('\\').starts_with(MARK) {
        &l[1..]
    } else {
        l
    }
}

/// How a save finds the file's folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Folder {
    /// The first save: make the folder if needed, and sync it when the file
    /// first appears so the file survives a power cut.
    MayBeNew,
    /// A later save into a folder an earlier one made: no folder work.
    Known,
}

/// Writes `parts`, one after the other, to `path` atomically (temp file,
/// fdatasync, rename), readable by the owner only.
pub fn write_atomic(path: &Path, parts: &[&[u8]], folder: Folder) -> std::io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp"));
    if folder == Folder::MayBeNew {
        std::fs::create_dir_all(dir)?;
    }
    let written = (|| {
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let mut f = opts.open(&tmp)?;
        // Debug builds only: a disk that fills up after the first save, for
        // the tests of the real binary where a small tmpfs cannot be mounted
        // (`disk-full`: every folder; `disk-full:DIR`: the folders under DIR).
        #[cfg(debug_assertions)]
        if path.exists() {
            if let Some(scope) = std::env::var("BMAD_PARTY_FAULT").ok().and_then(|v| {
                v.strip_prefix("disk-full")
                    .map(|rest| rest.strip_prefix(':').map(std::path::PathBuf::from))
            }) {
                if scope.is_none_or(|dir| path.starts_with(dir)) {
                    return Err(std::io::Error::from_raw_os_error(28));
                }
            }
        }
        write_all_vectored(&mut f, parts)?;
        // fdatasync: the data and the size, not the timestamps.
        f.sync_data()
    })();
    let appears = folder == Folder::MayBeNew && !path.exists();
    // A failed write leaves no partial temp file beside the session (only
    // a plain file is ours to remove); the session file itself is
    // untouched until the rename.
    let renamed = written.and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = renamed {
        if std::fs::symlink_metadata(&tmp).is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(&tmp);
        }
        return Err(e);
    }
    // The directory is synced when the file first appears, so it survives a
    // power cut. A later rename that is lost to one leaves the previous
    // complete version: still a valid state, so it costs no second fsync.
    if appears {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// All of `parts`, in one system call when the file takes them at once.
fn write_all_vectored(f: &mut std::fs::File, parts: &[&[u8]]) -> std::io::Result<()> {
    let mut slices: Vec<std::io::IoSlice> = parts.iter().map(|p| std::io::IoSlice::new(p)).collect();
    let mut rest = &mut slices[..];
    // Drops empty parts at the front, so that nothing left to write ends
    // the loop instead of a write of nothing reading as a full disk.
    std::io::IoSlice::advance_slices(&mut rest, 0);
    while !rest.is_empty() {
        match f.write_vectored(rest) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => std::io::IoSlice::advance_slices(&mut rest, n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Why a session file cannot be resumed; each names the file, and where
/// the file says it the line and field.
#[derive(Debug, thiserror::Error)]
pub enum SessionFileError {
    #[error("{}", unreadable(.file, .source))]
    Unreadable { file: String, source: std::io::Error },
    #[error("{}", not_a_session(.file))]
    NotASession { file: String },
    /// The YAML frontmatter is wrong (line, column, field).
    #[error(transparent)]
    Frontmatter(crate::source::SourceError),
    #[error("{}", wrong_workflow(.file, .found))]
    WrongWorkflow { file: String, found: String },
    /// A turn marker of the transcript is wrong.
    #[error("{file}:{line}: {message}")]
    Body { file: String, line: usize, message: String },
}

fn unreadable(file: &str, e: &std::io::Error) -> Start {
    Start::SessionUnreadable {
        file: file.to_string(),
        error: e.to_string(),
    }
}

fn not_a_session(file: &str) -> Start {
    Start::NotASession { file: file.to_string() }
}

fn wrong_workflow(file: &str, wt: &str) -> Start {
    Start::WrongWorkflow {
        file: file.to_string(),
        found: wt.to_string(),
    }
}

impl Say for SessionFileError {
    fn say(&self, lang: Lang) -> String {
        match self {
            SessionFileError::Unreadable { file, source } => unreadable(file, source).say(lang),
            SessionFileError::NotASession { file } => not_a_session(file).say(lang),
            SessionFileError::Frontmatter(e) => e.say(lang),
            SessionFileError::WrongWorkflow { file, found } => wrong_workflow(file, found).say(lang),
            SessionFileError::Body { .. } => self.to_string(),
        }
    }
}

/// Reads a session file for `--resume`.
pub fn load(path: &Path) -> Result<Session, SessionFileError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| SessionFileError::Unreadable {
        file: file.clone(),
        source,
    })?;
    parse(&text, &file)
}

/// Parses a session file's text; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Session, SessionFileError> {
    let Some((yaml, body, first_line)) = split_frontmatter(text) else {
        return Err(SessionFileError::NotASession { file: file.to_string() });
    };
    let mut fm: Frontmatter =
        serde_saphyr::from_str(yaml).map_err(|e| SessionFileError::Frontmatter(yaml_error(&e, file, text, first_line - 1)))?;
    if fm.workflow_type != "party-mode" {
        return Err(SessionFileError::WrongWorkflow {
            file: file.to_string(),
            found: fm.workflow_type,
        });
    }
    let body_line = text[..text.len() - body.len()].matches('\n').count() + 1;
    let turns = parse_body(body).map_err(|(line, message)| SessionFileError::Body {
        file: file.to_string(),
        line: body_line + line,
        message,
    })?;
    super::number_takes(&mut fm);
    Ok(Session { fm, turns })
}

fn parse_body(body: &str) -> Result<Vec<Turn>, (usize, String)> {
    #[allow(clippy::expect_used, reason = "a pattern written in the source: a test compiles it")]
    static MARKER: std::sync::LazyLock<Regex> =
        std::sync::LazyLock::new(|| Regex::new(r"^<!-- party:turn (.*) -->$").expect("static regex"));
    let marker = &*MARKER;
    let mut turns: Vec<Turn> = Vec::new();
    let mut current: Option<(Turn, Vec<&str>)> = None;
    let finish = |cur: Option<(Turn, Vec<&str>)>, turns: &mut Vec<Turn>| {
        if let Some((mut t, lines)) = cur {
            let mut lines = lines;
            while lines.last().is_some_and(|l| l.is_empty()) {
                lines.pop();
            }
            t.text = decode_content(t.kind, &lines, &mut t.label);
            turns.push(t);
        }
    };
    for (i, line) in body.lines().enumerate() {
        if let Some(c) = marker.captures(line) {
            finish(current.take(), &mut turns);
            let mut t = Turn::said(TurnKind::Notice, None, 0, "", "");
            // A value in a message as it may be shown: a quoted one can hold
            // anything once its escapes are read.
            let said = |v: &str| crate::text::sanitize(v).replace(['\n', '\r'], " ");
            for (k, v) in super::marker::fields(&c[1]) {
                let v = v.as_ref();
                match k {
                    "kind" => t.kind = TurnKind::from_code(v).ok_or_else(|| (i, format!("unknown turn kind `{}`", said(v))))?,
                    "round" => t.round = v.parse().map_err(|_| (i, format!("turn round `{}` is not a number", said(v))))?,
                    "at" => {
                        t.at = DateTime::parse_from_rfc3339(v)
                            .map_err(|_| (i, format!("turn time `{}` is not RFC 3339", said(v))))?
                            .with_timezone(&Utc)
                    }
                    "agent" => t.agent = Some(v.to_string()),
                    "endpoint" => t.endpoint = Some(v.to_string()),
                    "model" => t.model = Some(v.to_string()),
                    "interrupted" => t.interrupted = v == "true",
                    "first_token_ms" | "total_ms" | "tokens" => {
                        let n: u64 = v.parse().map_err(|_| (i, format!("turn {k} `{}` is not a number", said(v))))?;
                        let l = t.latency.get_or_insert_with(Default::default);
                        match k {
                            "first_token_ms" => l.first_token_ms = n,
                            "total_ms" => l.total_ms = n,
                            _ => l.tokens = u32::try_from(n).unwrap_or(u32::MAX),
                        }
                    }
                    _ => {}
                }
            }
            current = Some((t, Vec::new()));
        } else if let Some((_, lines)) = current.as_mut() {
            lines.push(unescape_line(line));
        }
    }
    finish(current.take(), &mut turns);
    Ok(turns)
}

fn decode_content(kind: TurnKind, lines: &[&str], label: &mut String) -> String {
    match kind {
        TurnKind::Facilitator | TurnKind::Agent | TurnKind::Farewell => {
            let joined = lines.join("\n");
            match joined.split_once("**: ") {
                Some((prefix, rest)) => {
                    *label = prefix.replace("**", "").trim().to_string();
                    rest.to_string()
                }
                None => match joined.split_once("**:") {
                    Some((prefix, rest)) => {
                        *label = prefix.replace("**", "").trim().to_string();
                        rest.trim_start().to_string()
                    }
                    None => joined,
                },
            }
        }
        TurnKind::Notice | TurnKind::Failed | TurnKind::Continue | TurnKind::Push | TurnKind::Reset => lines
            .iter()
            .map(|l| l.strip_prefix("> ").or_else(|| l.strip_prefix('>')).unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n"),
        TurnKind::Highlights | TurnKind::Closing | TurnKind::Question => lines.join("\n"),
    }
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
