//! When an agent's proposal to end (its end marker) is put to the
//! facilitator. The marker is the agent's own judgement and the
//! facilitator always decides; these are the rounds in which no
//! discussion can have run its course, so the marker is only logged.

/// Why an agent's end marker is not put to the facilitator, if it is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Held {
    /// The party's first round: nothing has been discussed yet.
    FirstRound,
    /// A proposal was declined a moment ago (`quiet_rounds`).
    Quiet,
    /// The round answers the room's own question: the facts it asked for
    /// open work, and a small model thanks for them with the marker.
    AnswersQuestion,
}

/// Whether the end marker an agent wrote in `round` is held back, and why.
/// `quiet_until`: the first round a proposal may come again after a
/// declined one; `answers_question`: the facilitator's message of this
/// round answers a question the room asked in the round before.
pub(crate) fn held(round: u32, quiet_until: u32, answers_question: bool) -> Option<Held> {
    if round <= 1 {
        Some(Held::FirstRound)
    } else if round < quiet_until {
        Some(Held::Quiet)
    } else if answers_question {
        Some(Held::AnswersQuestion)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proposal_is_heard_once_the_room_has_talked() {
        assert_eq!(held(1, 0, false), Some(Held::FirstRound));
        assert_eq!(held(2, 0, false), None);
        assert_eq!(held(3, 4, false), Some(Held::Quiet));
        assert_eq!(held(4, 4, false), None);
        assert_eq!(held(4, 0, true), Some(Held::AnswersQuestion));
    }
}
