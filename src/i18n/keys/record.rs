/// What is kept of a party: the session file's title, the web page and the
/// Markdown transcript (cast, facts, the decisions asked of the facilitator).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Record<'a> {
    // The session file.
    /// The session file's first line.
    SessionTitle {
        topic: &'a str,
    },

    // The page's and the transcript's head: title, facts, cast.
    TitlePrefix,
    PartyMode,
    FactDate,
    FactFacilitator,
    FactRounds,
    FactTime,
    FactModel,
    /// The models of a room of several, each with its figures.
    FactModels,
    FactEndedBy,
    FactStatus,
    CanBeResumed,
    LineFacilitator,
    LineModel,
    LineModels,
    LineEndedBy,
    /// How many rounds, in the transcript's facts line.
    Rounds {
        n: u32,
    },
    TheRoom,
    AlsoInTheRoom,
    /// How often someone spoke, in the web page's cast.
    Turns {
        n: usize,
    },
    /// How many replies a voice gave, in the facts of a room of several models.
    Replies {
        n: usize,
    },
    ExportedFrom,

    // The turns.
    RoundTitle {
        round: u32,
    },
    AsksYouTag,
    AsksYouSuffix,
    TimingsExplained,
    InterruptedNote,
    InterruptedSuffix,
    FacilitatorSpeaker,
    WrappingUp,

    // What ended the party.
    EndedByFacilitator,
    EndedByRoundLimit,
    EndedByTimeLimit,
    EndedByProposal,
    EndedByLeaving,
    EndedByUnreachable,
    EndedByConsensus,
    EndedBySilence,

    // What the facilitator was asked, and the answer.
    AskedProposal {
        name: &'a str,
    },
    AskedRoundLimit,
    AskedTimeLimit,
    AskedConsensus,
    AskedSilence,
    AskedFreshStart,
    AskedBudgetSpent,
    AnswerEnded,
    AnswerKeptGoing,
    AnswerStartedAfresh,
    AnswerWentOn,
    AnswerPushedOn,
    AnswerPushesPaused,
    AnswerPending,
    AnswerExpired,
}
