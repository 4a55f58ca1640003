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
    /// Why a speaker was not asked: its endpoint's server was found gone
    /// in round `since` and is asked again in round `again`.
    EndpointGone {
        endpoint: &'a str,
        since: u32,
        again: u32,
    },
    /// A turn passed: twice nothing of the agent's own.
    AgentPassed {
        agent: &'a str,
    },
    AutomaticNudge,

    // Notices about the room, the model and the session file.
    /// Agents of a resumed session that are no longer in the room.
    NotInRoomAnyMore {
        gone: &'a str,
    },
    DocumentInFront {
        name: &'a str,
        words: usize,
    },
    StopsReadingMessages,
    PromptsShrunk {
        window: u32,
        before: u32,
    },
    /// `PromptsShrunk` in a room of several endpoints: which one's server.
    PromptsShrunkOn {
        endpoint: &'a str,
        window: u32,
        before: u32,
    },
    ServerUnreachable {
        url: &'a str,
        cause: &'a str,
        window_s: u64,
    },
    /// No model named: the one the server has.
    UsingOnlyModel {
        model: &'a str,
        url: &'a str,
    },
    /// No model named: the first of the server's; `also` names the others.
    UsingModelAlso {
        model: &'a str,
        url: &'a str,
        also: &'a str,
    },
    /// After a model's name: the agents that use it.
    ForAgents {
        names: &'a str,
    },
    ModelNotListed {
        url: &'a str,
        model: &'a str,
        whose: &'a str,
        has: &'a str,
    },
    NowUsingModel {
        now: &'a str,
    },
    SavingWorksAgain {
        file: &'a str,
        old: &'a str,
    },
    SavedElsewhereUntil {
        file: &'a str,
        there: &'a str,
    },
    FallbackUnwritable {
        there: &'a str,
    },

    // The facilitator's hands on who is in the room and who speaks
    // (`/invite`, `/dismiss`, `/mute`, `/unmute`, `/only`).
    Invited {
        names: &'a str,
    },
    Dismissed {
        names: &'a str,
    },
    Switched {
        party: &'a str,
        names: &'a str,
        scene: &'a str,
    },
    NoParties,
    PartyNeedsName {
        known: &'a str,
    },
    NoSuchParty {
        name: &'a str,
        known: &'a str,
    },
    PartyAlready {
        name: &'a str,
    },
    Muted {
        names: &'a str,
    },
    Unmuted {
        names: &'a str,
    },
    UnmutedEveryone,
    OnlyNextRound {
        names: &'a str,
    },
    OnlyTakenBack,

    // Second thoughts on the last round (`/redo`, `/undo`, `/edit`,
    // `/takes`, `/take`).
    AskedAgain {
        names: &'a str,
        round: u32,
        take: usize,
    },
    RoundTakenBack {
        round: u32,
        take: usize,
    },
    MessageEdited {
        round: u32,
        take: usize,
    },
    TakeLine {
        take: usize,
        by: &'a str,
        turns: usize,
        said: &'a str,
    },
    TakeBack {
        take: usize,
        now: usize,
    },
    RoundBack {
        take: usize,
        round: u32,
    },
    NothingToTakeBack,
    /// `/summary`'s first line.
    WhereWeAre {
        round: u32,
    },
    NothingToSumUp,
    Pinned {
        line: &'a str,
    },
    Unpinned {
        n: usize,
    },
    NothingToPin,
    NotSpokenYet {
        name: &'a str,
    },
    /// The highlights' pinned decisions, before the note-taker's outcomes.
    PinnedDecisions {
        list: &'a str,
    },
    TakeawaysWritten {
        path: &'a str,
    },
    DidNotSpeak {
        name: &'a str,
        round: u32,
    },
    NoReplyToAskAgain {
        round: u32,
    },
    NobodyToAskAgain,
    NoMessageToEdit {
        round: u32,
    },
    NoTakes,
    NoSuchTake {
        n: usize,
        /// The numbers that can come back, comma-separated.
        have: &'a str,
    },
    /// `/take N` of a take that cannot come back now (an earlier round).
    TakeOfAnotherRound {
        n: usize,
        round: u32,
    },
    EditNeedsMessage,
    TakeNeedsNumber,
    TakesNothingAfter {
        command: &'a str,
    },

    // Commands refused.
    ContextNeedsFile,
    NoSuchSpeaker {
        word: &'a str,
        room: &'a str,
    },
    NeedsName {
        command: &'a str,
        room: &'a str,
    },
    InviteNeedsName {
        out: &'a str,
    },
    NotInvitable {
        word: &'a str,
        out: &'a str,
    },
    /// Every agent the program knows is in the room: nobody to invite.
    NobodyOut,
    InTheRoomAlready {
        name: &'a str,
    },
    OneStaysUnmuted,
    OnlyMutedSpeaker {
        name: &'a str,
        id: &'a str,
    },
    NothingToContinue,
    NoOpenRequest {
        request_id: &'a str,
    },

    // A reply that came to nothing.
    ReplyEmpty,
    /// What stands for an agent's turn that proposed the end with the
    /// end marker and no words of its own.
    WordlessProposal,
    NothingLeftAfterCleaning {
        what: &'a str,
    },

    // Reply cleanup (`engine::cleanup::level`): an endpoint's level and why.
    CleanupByConfig,
    CleanupByServerSize {
        billions: &'a str,
    },
    CleanupByNameSize {
        billions: &'a str,
    },
    CleanupByLocal,
    CleanupByHosted,
    CleanupByRehearsal,
    CleanupByRaised,
    /// A reply at the light level spoke as another or gave back the
    /// runtime's note: its endpoint gets every rule from now on.
    CleanupRaised {
        who: &'a str,
        agent: &'a str,
    },

    // The party's memory.
    /// The session in one line: when, who brought what to whom.
    MemoryLine {
        date: &'a str,
        user: &'a str,
        topic: &'a str,
        names: &'a str,
    },

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
