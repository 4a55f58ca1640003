//! The typed keys of what the program says, one enum per area. A key names
//! what the text is for and carries the values it shows; `en/` and `zh/`
//! say it, each with one exhaustive `match` per area, so a key without its
//! words in every language does not compile.

/// The full-screen terminal: panes, status bar, modals, the help and the
/// final screen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Screen<'a> {
    // The main screen: its title, the panes, the input box.
    TerminalTooSmall,
    RehearsalBadge,
    NewParty,
    PaneQueued,
    PaneReading,
    /// A pane whose model has read its prompt for `secs` without a token.
    PaneReadingFor {
        secs: u64,
    },
    PaneStreaming,
    /// After a pane's status: seconds to its first token.
    FirstToken {
        secs: f64,
    },
    PaneRetrying,
    PaneWaitingForFacilitator,
    PaneDone,
    PaneFailed,
    PaneInterrupted,
    PaneSkipped,
    /// Where the server is, where room is short.
    WaitingForHostShort {
        host: &'a str,
        secs: u64,
    },
    WaitingForHost {
        host: &'a str,
        secs: u64,
    },
    WaitingForServer {
        secs: u64,
    },
    InputTitleTopic,
    InputTitleQueued,
    InputTitleMessage,

    // The transcript.
    SittingBegins,
    NewMessages,
    /// An agent's question in the transcript, before its text.
    AgentAsks {
        name: &'a str,
    },
    AwaitingAnswerMark,
    /// The runtime's nudge, as the transcript shows it.
    AutomaticPush {
        text: &'a str,
    },
    AgentFailed {
        name: &'a str,
        cause: &'a str,
    },
    Interrupted,
    TakeawaysAt {
        path: &'a str,
    },

    // The status bar.
    /// The status bar's round: `n` of `max`.
    RoundOf {
        n: u32,
        max: u32,
    },
    ConsensusLabel,
    PushLabel,
    /// The status bar while an agent waits for the facilitator.
    AgentAsksYou {
        name: &'a str,
    },
    AwaitingYourAnswer,
    StoppedPressAgain,

    // The modals.
    ExitTitle,
    ExitExplained,
    ProposalConsensusTitle,
    ProposalSilenceTitle,
    ProposalSuggestsEnding,
    ProposalAsk,
    LimitTitle,
    LimitEndNow,
    LimitContinue,
    LimitUnitMinutes,
    LimitUnitRounds,
    ResetTitle,
    ResetReasonLabel,
    ResetConfirm,
    ResetReject,
    BudgetTitle,
    /// Below a modal: how many more wait behind it.
    MoreWaiting {
        n: usize,
    },

    // The help overlay.
    HelpTitle,
    HelpScrollOrClose,
    HelpAnyKeyCloses,
    ExitWords,
    ExitWordsDo,
    ContextCommand,
    ContextCommandDoes,

    // The final screen.
    SessionSavedTo,
    PartyOver,
    EndedKeys,
    PressAnyKeyToQuit,
    WebPageAt,
    TranscriptAt,
}

/// What the headless and batch front ends print, the session list, and the
/// line that says why a run ended as it did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Printed<'a> {
    // Headless: the party as it goes.
    RehearsalBadge,
    SessionFile {
        path: &'a str,
    },
    SittingBegins,
    /// The rule above a round: `n` of `max`.
    RoundRule {
        n: u32,
        max: u32,
    },
    Retrying,
    Interrupted,
    /// On the failed agent's own header line.
    CouldNotAnswer {
        cause: &'a str,
    },
    AgentFailed {
        icon: &'a str,
        name: &'a str,
        cause: &'a str,
    },
    WaitingForServerAt {
        url: &'a str,
        secs: u64,
        window: u64,
        cause: &'a str,
    },
    WaitingForServer {
        secs: u64,
        window: u64,
        cause: &'a str,
    },
    AutomaticPush {
        used: u32,
        budget: u32,
        text: &'a str,
    },
    TakeawaysAt {
        path: &'a str,
    },

    // Headless: what it waits for.
    AwaitingMessage,
    AwaitingAnswer,
    EndAnswerHint,
    LimitAnswerHint,
    ResetAnswerHint,

    // Headless: saving.
    SaveFailed,
    SessionSavedTo {
        file: &'a str,
    },
    SessionNotSaved {
        file: &'a str,
    },

    // Why a run ended as it did (frontend::exit::explain).
    StoppedUnreachable {
        cause: &'a str,
        file: &'a str,
    },
    /// The session could not be written where it belongs but is whole in `there`.
    SavedElsewhere {
        file: &'a str,
        there: &'a str,
    },
    EndNotSaved {
        file: &'a str,
    },
    StoppedBySignal {
        file: &'a str,
    },
    StoppedUnexpectedly,

    // The batch driver (--non-interactive).
    BatchSessionFile {
        path: &'a str,
    },
    BatchRoundDone {
        round: u32,
        rounds: u32,
    },
    BatchAgentFailed {
        agent: &'a str,
        cause: &'a str,
    },
    BatchCannotWrite {
        path: &'a str,
        error: &'a str,
    },
    BatchUnreachable {
        cause: &'a str,
        path: &'a str,
    },
    BatchInterrupted,
    BatchNotSaved,
    BatchNoTakeaways,

    // Sessions: the list and resuming.
    ListFinished,
    ListResumable,
    /// A session list's rounds column, three wide.
    ListRounds {
        n: u32,
    },
    SessionFinished,
}

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
    FactEndedBy,
    FactStatus,
    CanBeResumed,
    LineFacilitator,
    LineModel,
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

/// The key table's words: what each binding does, its status-bar hint, the
/// help's section titles and the key names that are words. Without fields,
/// so the table stays a `const`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum KeyWords {
    SectionAnywhere,
    SectionScreen,
    SectionTyping,
    SectionMenu,
    SectionHelp,
    SectionEnded,
    SectionExitModal,
    SectionProposalModal,
    SectionLimitModal,
    SectionResetModal,
    SectionBudgetModal,
    AnywhereStop,
    AnywhereStopHint,
    ScreenPageUp,
    ScreenPageDown,
    TypingSend,
    TypingSendHint,
    TypingNewLine,
    TypingNewLineHint,
    TypingOpenMenu,
    TypingOpenMenuHint,
    MenuExit,
    MenuExitHint,
    MenuContinue,
    MenuContinueHint,
    MenuHelp,
    MenuHelpHint,
    MenuLineUp,
    MenuLineUpHint,
    MenuLineDown,
    MenuTop,
    MenuBottom,
    MenuType,
    MenuTypeHint,
    HelpLineUp,
    HelpLineUpHint,
    HelpLineDown,
    HelpPageUp,
    HelpPageDown,
    HelpClose,
    HelpCloseHint,
    EndedExportHtml,
    EndedExportHtmlHint,
    EndedExportMarkdown,
    EndedExportMarkdownHint,
    EndedQuit,
    EndedQuitHint,
    ExitModalConfirm,
    ExitModalConfirmHint,
    ExitModalDecline,
    ExitModalDeclineHint,
    ProposalModalConfirm,
    ProposalModalConfirmHint,
    ProposalModalDecline,
    ProposalModalDeclineHint,
    ProposalModalErase,
    ProposalModalTypeChar,
    ProposalModalTypeCharHint,
    LimitModalToggle,
    LimitModalToggleHint,
    LimitModalMore,
    LimitModalMoreHint,
    LimitModalLess,
    LimitModalConfirm,
    LimitModalConfirmHint,
    LimitModalEndNow,
    LimitModalContinueMore,
    ResetModalConfirm,
    ResetModalConfirmHint,
    ResetModalToggle,
    ResetModalToggleHint,
    ResetModalDecline,
    ResetModalDeclineHint,
    ResetModalErase,
    ResetModalTypeChar,
    ResetModalTypeCharHint,
    BudgetModalConfirm,
    BudgetModalConfirmHint,
    BudgetModalDecline,
    BudgetModalDeclineHint,
    ExitFromTyping,
    TypeKey,
    AnyKey,
    AnyOtherKey,
}
