//! The process's exit status, the same in every front end, so a script can
//! tell a party that ended well from one that lost the model or its file.
//! Documented in `--help`, the man page (EXIT STATUS) and the README.

use crate::engine::{Event, ExitReason};
use crate::error::ExitStatus;
use crate::i18n::Lang;

/// How the party ended, as a front end saw it.
#[derive(Debug, Default, Clone)]
pub(crate) struct Ending {
    /// The engine's `session_ended`: (reason, saved).
    last_word: Option<(Option<ExitReason>, bool)>,
    /// Where the whole session is when its file could not be written.
    pub elsewhere: Option<String>,
    /// A signal asked the party to stop.
    pub signalled: bool,
}

impl Ending {
    /// Takes note of the event that ends a party.
    pub(crate) fn see(&mut self, event: &Event) {
        if let Event::SessionEnded {
            reason, saved, elsewhere, ..
        } = event
        {
            self.last_word = Some((*reason, *saved));
            self.elsewhere = elsewhere.clone();
        }
    }

    /// The status, worst first: a session not on disk loses the most, then
    /// a model that never answered, then an interruption.
    pub(crate) fn status(&self) -> ExitStatus {
        match self.last_word {
            None => ExitStatus::Failed,
            Some((_, false)) => ExitStatus::NotSaved,
            Some((Some(ExitReason::Unreachable), _)) => ExitStatus::Unreachable,
            Some(_) if self.signalled => ExitStatus::Interrupted,
            Some(_) => ExitStatus::Ended,
        }
    }
}

/// A line that says why the status is not `Ended`, for front ends whose
/// screen is gone when the program ends; None when it ended well.
pub(crate) fn explain(status: ExitStatus, lang: Lang, file: &str, cause: &str, elsewhere: Option<&str>) -> Option<String> {
    let (en, zh) = match (status, elsewhere) {
        (ExitStatus::Ended, _) => return None,
        (ExitStatus::Unreachable, _) => (
            format!("the party stopped because the model could not be reached ({cause}); the session is kept open: `bmad-party --resume {file}` continues it"),
            format!("无法连接模型（{cause}），派对已暂停；会话保持未结束：可用 `bmad-party --resume {file}` 继续"),
        ),
        (ExitStatus::NotSaved, Some(there)) => (
            format!("the session could not be saved to {file}; the whole session is in {there} (`bmad-party --resume {there}` continues it)"),
            format!("会话未能保存到 {file}；整个会话在 {there}（可用 `bmad-party --resume {there}` 继续）"),
        ),
        (ExitStatus::NotSaved, None) => (
            format!("the session's end could not be saved to {file}; the file holds what was saved before"),
            format!("会话的结尾未能保存到 {file}；文件中只有之前保存的内容"),
        ),
        (ExitStatus::Interrupted, _) => (
            format!("stopped by a signal; the session is saved and can be resumed: {file}"),
            format!("被信号中止；会话已保存，可以继续：{file}"),
        ),
        (ExitStatus::Failed | ExitStatus::Usage, _) => ("the party stopped unexpectedly".to_string(), "派对意外停止".to_string()),
    };
    Some(if lang == Lang::Zh { zh } else { en })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ended(reason: Option<ExitReason>, saved: bool) -> Event {
        Event::SessionEnded {
            file: Some("s.md".into()),
            reason,
            completed: saved && reason.is_some(),
            saved,
            elsewhere: None,
        }
    }

    fn status_of(event: Option<Event>, signalled: bool) -> ExitStatus {
        let mut e = Ending {
            signalled,
            ..Ending::default()
        };
        if let Some(ev) = event {
            e.see(&ev);
        }
        e.status()
    }

    #[test]
    fn each_ending_has_its_own_status_and_the_worst_wins() {
        use ExitReason::*;
        for r in [
            UserRequested,
            RoundLimit,
            TimeLimit,
            AgentProposed,
            FacilitatorLeft,
            Consensus,
            Silence,
        ] {
            assert_eq!(status_of(Some(ended(Some(r), true)), false), ExitStatus::Ended, "{r:?}");
        }
        assert_eq!(status_of(Some(ended(None, true)), false), ExitStatus::Ended, "left to resume");
        assert_eq!(status_of(Some(ended(Some(Unreachable), true)), false), ExitStatus::Unreachable);
        assert_eq!(status_of(Some(ended(Some(UserRequested), false)), false), ExitStatus::NotSaved);
        assert_eq!(status_of(Some(ended(Some(Unreachable), false)), false), ExitStatus::NotSaved);
        assert_eq!(status_of(Some(ended(None, true)), true), ExitStatus::Interrupted);
        assert_eq!(status_of(Some(ended(None, false)), true), ExitStatus::NotSaved);
        assert_eq!(status_of(None, false), ExitStatus::Failed, "no last word from the engine");
    }
}
