//! The process's exit status, the same in every front end, so a script can
//! tell a party that ended well from one that lost the model or its file.
//! Documented in `--help`, the man page (EXIT STATUS) and the README.

use crate::engine::{Event, ExitReason};
use crate::i18n::Lang;

/// What the exit status says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The facilitator, a limit or the room ended the party (or it was left
    /// to resume later) and everything is saved.
    Ended,
    /// Something else stopped the program (the engine gave no last word,
    /// the terminal could not be set up, no takeaways were written).
    Failed,
    /// Bad usage, config, agent or session file: fix the input (clap's own
    /// code for bad arguments, and `StartError`'s).
    Usage,
    /// Stopped because no agent could reach the model; the session is kept
    /// open, to be resumed.
    Unreachable,
    /// The session's end is not on disk: the last save failed.
    NotSaved,
    /// A signal (Ctrl-C, SIGTERM) stopped the party; what was said is saved
    /// and the session can be resumed.
    Interrupted,
}

impl Status {
    pub fn code(self) -> u8 {
        match self {
            Status::Ended => 0,
            Status::Failed => 1,
            Status::Usage => 2,
            Status::Unreachable => 3,
            Status::NotSaved => 4,
            Status::Interrupted => 130,
        }
    }
}

/// How the party ended, as a front end saw it.
#[derive(Debug, Default, Clone)]
pub struct Ending {
    /// The engine's `session_ended`: (reason, saved).
    last_word: Option<(Option<ExitReason>, bool)>,
    /// Where the whole session is when its file could not be written.
    pub elsewhere: Option<String>,
    /// A signal asked the party to stop.
    pub signalled: bool,
}

impl Ending {
    /// Takes note of the event that ends a party.
    pub fn see(&mut self, event: &Event) {
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
    pub fn status(&self) -> Status {
        match self.last_word {
            None => Status::Failed,
            Some((_, false)) => Status::NotSaved,
            Some((Some(ExitReason::Unreachable), _)) => Status::Unreachable,
            Some(_) if self.signalled => Status::Interrupted,
            Some(_) => Status::Ended,
        }
    }
}

/// A line that says why the status is not `Ended`, for front ends whose
/// screen is gone when the program ends; None when it ended well.
pub fn explain(status: Status, lang: Lang, file: &str, cause: &str, elsewhere: Option<&str>) -> Option<String> {
    let (en, zh) = match (status, elsewhere) {
        (Status::Ended, _) => return None,
        (Status::Unreachable, _) => (
            format!("the party stopped because the model could not be reached ({cause}); the session is kept open: `bmad-party --resume {file}` continues it"),
            format!("无法连接模型（{cause}），派对已暂停；会话保持未结束：可用 `bmad-party --resume {file}` 继续"),
        ),
        (Status::NotSaved, Some(there)) => (
            format!("the session could not be saved to {file}; the whole session is in {there} (`bmad-party --resume {there}` continues it)"),
            format!("会话未能保存到 {file}；整个会话在 {there}（可用 `bmad-party --resume {there}` 继续）"),
        ),
        (Status::NotSaved, None) => (
            format!("the session's end could not be saved to {file}; the file holds what was saved before"),
            format!("会话的结尾未能保存到 {file}；文件中只有之前保存的内容"),
        ),
        (Status::Interrupted, _) => (
            format!("stopped by a signal; the session is saved and can be resumed: {file}"),
            format!("被信号中止；会话已保存，可以继续：{file}"),
        ),
        (Status::Failed | Status::Usage, _) => ("the party stopped unexpectedly".to_string(), "派对意外停止".to_string()),
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

    fn status_of(event: Option<Event>, signalled: bool) -> Status {
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
            assert_eq!(status_of(Some(ended(Some(r), true)), false), Status::Ended, "{r:?}");
        }
        assert_eq!(status_of(Some(ended(None, true)), false), Status::Ended, "left to resume");
        assert_eq!(status_of(Some(ended(Some(Unreachable), true)), false), Status::Unreachable);
        assert_eq!(status_of(Some(ended(Some(UserRequested), false)), false), Status::NotSaved);
        assert_eq!(status_of(Some(ended(Some(Unreachable), false)), false), Status::NotSaved);
        assert_eq!(status_of(Some(ended(None, true)), true), Status::Interrupted);
        assert_eq!(status_of(Some(ended(None, false)), true), Status::NotSaved);
        assert_eq!(status_of(None, false), Status::Failed, "no last word from the engine");
    }

    #[test]
    fn the_codes_are_distinct_and_usage_is_2() {
        let all = [
            Status::Ended,
            Status::Failed,
            Status::Usage,
            Status::Unreachable,
            Status::NotSaved,
            Status::Interrupted,
        ];
        let codes: std::collections::BTreeSet<u8> = all.iter().map(|s| s.code()).collect();
        assert_eq!(codes.len(), all.len());
        assert_eq!(Status::Usage.code(), 2);
        assert_eq!(Status::Ended.code(), 0);
    }
}
