//! The process's exit status, the same in every front end, so a script can
//! tell a party that ended well from one that lost the model or its file.
//! Documented in `--help`, the man page (EXIT STATUS) and the README.

use crate::engine::{Event, ExitReason};
use crate::error::ExitStatus;
use crate::i18n::{Lang, Printed, Say};

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
    let why = match (status, elsewhere) {
        (ExitStatus::Ended, _) => return None,
        (ExitStatus::Unreachable, _) => Printed::StoppedUnreachable { cause, file },
        (ExitStatus::NotSaved, Some(there)) => Printed::SavedElsewhere { file, there },
        (ExitStatus::NotSaved, None) => Printed::EndNotSaved { file },
        (ExitStatus::Interrupted, _) => Printed::StoppedBySignal { file },
        (ExitStatus::Failed | ExitStatus::Usage, _) => Printed::StoppedUnexpectedly,
    };
    Some(why.say(lang))
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
