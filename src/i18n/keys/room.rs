/// What the engine says in the room: its notices and nudges, the takeaways
/// file's headings, and the offline rehearsal's lines.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Room<'a> {
    // Notices in the transcript, and the nudge to the agents.
    /// A failed turn, in the transcript and the session file.
    AgentFailed {
        agent: &'a str,
        cause: &'a str,
    },
    /// A turn passed: twice nothing of the agent's own.
    AgentPassed {
        agent: &'a str,
    },
    AutomaticNudge,

    // The takeaways file.
    /// The takeaways file's first line and the blank line after it.
    TakeawaysTitle {
        topic: &'a str,
    },
    /// The takeaways' facts line.
    RoundsHeld {
        rounds: u32,
    },
    Decisions,
    OpenQuestions,
    Disagreements,
    Positions,
    NoneListed,
    RanItsCourse,
    ReachedConsensus,

    // The offline rehearsal's lines.
    /// A rehearsal agent's turn: its opening and answer to who spoke last
    /// (`cross`), the wording chosen by `seed`.
    RehearsalTurn {
        title: &'a str,
        subject: &'a str,
        cap: &'a str,
        rule: &'a str,
        cross: Option<&'a str>,
        seed: u64,
    },
    RehearsalFarewell {
        user: &'a str,
        rule: &'a str,
    },
    RehearsalHighlights {
        rounds: u32,
        topic: &'a str,
    },
    RehearsalQuestion,
    RehearsalWrapUp,
    /// A note-taker's lists under the asked headings.
    RehearsalTakeaways {
        topic: &'a str,
    },
    RehearsalMemory {
        topic: &'a str,
        first: &'a str,
        second: &'a str,
    },
}
