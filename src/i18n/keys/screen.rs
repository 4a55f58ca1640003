/// The full-screen terminal: panes, status bar, modals, the help and the
/// final screen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Screen<'a> {
    // The main screen: its title, the panes, the input box.
    TerminalTooSmall,
    RehearsalBadge,
    /// The default endpoint's reply cleanup in the header: its level's
    /// code (`full`, `light`, `off`).
    CleanupBadge {
        level: &'a str,
    },
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
    MuteCommand,
    MuteCommandDoes,
    OnlyCommand,
    OnlyCommandDoes,
    InviteCommand,
    InviteCommandDoes,
    CastCommand,
    CastCommandDoes,
    RedoCommand,
    RedoCommandDoes,
    TakeCommand,
    TakeCommandDoes,
    Copied {
        name: &'a str,
        file: &'a str,
    },
    NothingToCopy,
    SummaryCommand,
    SummaryCommandDoes,
    PinCommand,
    PinCommandDoes,
    // The roster modal ([R] in the menu).
    RosterTitle,
    RosterIn,
    RosterOut,
    RosterNobodyOut,
    RosterMuted,
    RosterNext,
    // The review of a drafted cast (`/cast`).
    CastTitle,
    CastPartyName,
    CastScene,
    CastFieldName,
    CastFieldTitle,
    CastFieldIcon,
    CastFieldRole,
    CastFieldIdentity,
    CastFieldStyle,
    CastFieldPrinciples,
    CastWaiting,
    CastQuitAgain,
    /// The status bar: muted agents, a pending `/only`.
    MutedNow {
        names: &'a str,
    },
    OnlyNext {
        names: &'a str,
    },

    // The final screen.
    SessionSavedTo,
    PartyOver,
    EndedKeys,
    PressAnyKeyToQuit,
    WebPageAt,
    TranscriptAt,
}
