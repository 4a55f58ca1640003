/// What the headless and batch front ends print, the session list, and the
/// line that says why a run ended as it did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Printed<'a> {
    // Headless: the party as it goes.
    RehearsalBadge,
    /// An endpoint's reply cleanup: `who` its model (and name, for a named
    /// one), `level` its code (`full`, `light`, `off`), `why` said already.
    CleanupLevel {
        who: &'a str,
        level: &'a str,
        why: &'a str,
    },
    SessionFile {
        path: &'a str,
    },
    SittingBegins,
    /// The rule above a round: `n` of `max`.
    RoundRule {
        n: u32,
        max: u32,
    },
    /// Attempt `attempt` after `secs` seconds (one decimal).
    Retrying {
        attempt: u32,
        secs: f64,
    },
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
    AwaitingReview,
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
    NoSessions {
        dir: &'a str,
    },

    // The listings (--list-agents, --list-parties).
    AgentsFrom {
        n: usize,
        source: &'a str,
    },
    /// `--list-agents`: the agents beside the room (party-only members,
    /// the user's own folder).
    AlsoInPool {
        n: usize,
    },
    // `import` and `export --card`.
    CardImported {
        name: &'a str,
        id: &'a str,
        path: &'a str,
    },
    CardDropped {
        fields: &'a str,
    },
    CardScene {
        scene: &'a str,
    },
    CardRefused {
        file: &'a str,
        cause: &'a str,
    },
    CardsUse,
    CardParty {
        name: &'a str,
        id: &'a str,
        path: &'a str,
    },
    NoAgentCalled {
        name: &'a str,
        known: &'a str,
    },
    ProblemCount {
        n: usize,
    },
    /// After a party's name: it keeps a memory.
    Remembers,
    DefaultRoom,
    AgentsInRoom {
        n: usize,
    },
    /// `--list-agents`: the endpoint an agent speaks through and its model.
    Through {
        endpoint: &'a str,
        model: &'a str,
    },
    /// The model of an endpoint that names none: the one its server lists.
    ServersModel,
    /// After a party's cast: members no agent answers to.
    MembersNotFound {
        missing: &'a str,
    },
    OpenCast,
    /// The footnote to the default party's star, its blank line before it.
    DefaultPartyNote,

    // `init`.
    ConfigWritten {
        path: &'a str,
    },

    // The front ends' own troubles.
    CannotStartRuntime {
        error: &'a str,
    },
    CannotSetUpTerminal {
        error: &'a str,
    },
    StoppedAfterInternalError,
    EngineStopped {
        error: &'a str,
    },
    StdinUnreadable {
        n: usize,
        error: &'a str,
    },
    StdinNotCommand {
        n: usize,
        why: &'a str,
    },
    /// After a failed save: what happens to the session meanwhile.
    KeptInMemory,
}
