//! The sessions in an output folder: what `bmad-party sessions` lists and
//! which one `--resume` with no file continues.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::{load, SessionFileError};
use crate::i18n::{Lang, Printed, Say};

/// One session file, as the list shows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Listed {
    pub path: PathBuf,
    pub started_at: DateTime<Utc>,
    pub topic: String,
    pub rounds: u32,
    /// Ended (gracefully or not resumable); otherwise it can be resumed.
    pub finished: bool,
}

/// The session files under `sessions_dir` (an output folder's `party-mode/`),
/// newest first; files that are not readable sessions come apart, with why.
pub(crate) fn list(sessions_dir: &Path) -> (Vec<Listed>, Vec<SessionFileError>) {
    let Ok(entries) = std::fs::read_dir(sessions_dir) else {
        return (Vec::new(), Vec::new());
    };
    let (mut found, mut broken) = (Vec::new(), Vec::new());
    for path in entries.flatten().map(|e| e.path()) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        // Lock files are `.<name>.lock`; temporary files of a save start with a dot too.
        if name.starts_with('.') || !name.ends_with(".md") || !path.is_file() {
            continue;
        }
        match load(&path) {
            Ok(s) => found.push(Listed {
                started_at: s.fm.conversation_state.started_at,
                topic: s.fm.topic.clone(),
                rounds: s.fm.conversation_state.current_round,
                finished: s.fm.workflow_completed || !s.fm.party_active,
                path,
            }),
            Err(e) => broken.push(e),
        }
    }
    found.sort_by(|a, b| b.started_at.cmp(&a.started_at).then_with(|| b.path.cmp(&a.path)));
    (found, broken)
}

/// The newest session that can still be resumed.
pub(crate) fn newest_unfinished(sessions_dir: &Path) -> Option<PathBuf> {
    list(sessions_dir).0.into_iter().find(|s| !s.finished).map(|s| s.path)
}

/// The list as a table: date, rounds, status, topic, path.
pub(crate) fn render(sessions: &[Listed], lang: Lang) -> String {
    let mut out = String::new();
    for s in sessions {
        let status = if s.finished {
            Printed::ListFinished.say(lang)
        } else {
            Printed::ListResumable.say(lang)
        };
        let n = s.rounds;
        let rounds = Printed::ListRounds { n }.say(lang);
        let topic = crate::text::ellipsize(&crate::text::sanitize(&s.topic).replace('\n', " "), 60);
        out.push_str(&format!(
            "{}  {rounds}  {status}  {topic}\n    {}\n",
            s.started_at.format("%Y-%m-%d %H:%M"),
            s.path.display()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_row_per_session_with_its_status() {
        let at = |h| {
            DateTime::parse_from_rfc3339(&format!("2026-11-23T{h:02}:05:00Z"))
                .unwrap()
                .with_timezone(&Utc)
        };
        let rows = [
            Listed {
                path: "out/party-mode/b.md".into(),
                started_at: at(14),
                topic: "Pricing\nthe API".into(),
                rounds: 12,
                finished: false,
            },
            Listed {
                path: "out/party-mode/a.md".into(),
                started_at: at(9),
                topic: "Onboarding".into(),
                rounds: 3,
                finished: true,
            },
        ];
        let text = render(&rows, Lang::En);
        assert_eq!(
            text,
            "2026-11-23 14:05   12 rounds  resumable  Pricing the API\n    out/party-mode/b.md\n\
             2026-11-23 09:05    3 rounds  finished   Onboarding\n    out/party-mode/a.md\n"
        );
        assert!(render(&rows, Lang::Zh).contains("可继续"));
    }
}
