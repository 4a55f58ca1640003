use super::Problem;

/// What the program says before a party and about starting one: why it
/// cannot start (arguments, the party named, the session to resume), the
/// notices the facilitator finds in the room, and the subcommands'
/// failures. Owned: a `StartError` carries it up to `program`, which says
/// it in the start-up language.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Start {
    // Arguments and settings that cannot work.
    MaxMinutes {
        minutes: String,
    },
    BaseUrl {
        url: String,
    },
    TopicAndResume {
        topic: String,
    },
    NothingToResume {
        dir: String,
    },
    NoBmadInstall {
        dir: String,
    },
    NoAgentsFound {
        dir: String,
    },
    /// A BMAD project found nearby has no agents: the built-in room instead.
    NoAgentsBuiltIn {
        dir: String,
    },

    // The party named.
    NoPartyDefined {
        requested: String,
    },
    NoParty {
        requested: String,
        known: String,
    },
    PartyEmpty {
        party: String,
        named: String,
    },

    // The session to resume.
    SessionUnreadable {
        file: String,
        error: String,
    },
    NotASession {
        file: String,
    },
    WrongWorkflow {
        file: String,
        found: String,
    },
    /// Another bmad-party has it open; its process id when it wrote one.
    SessionHeld {
        file: String,
        pid: Option<u32>,
    },

    // Notices for the facilitator as the party opens.
    NewerCopy {
        copy: String,
        file: String,
    },
    MemoryUnreadable {
        shown: String,
        error: String,
    },
    NotInRoom {
        party: String,
        missing: String,
    },
    /// Two endpoints at one address with different keys (each named by
    /// its endpoint name, never by the key).
    SameUrlOtherKeys {
        url: String,
        first: String,
        second: String,
    },
    /// The rehearsal speaks for every agent: the endpoints some agents
    /// were given (by name) send nothing.
    RehearsalForAll {
        endpoints: String,
    },
    /// A resumed session's agent speaks through another endpoint than in
    /// its last recorded turn.
    EndpointChanged {
        agent: String,
        now: String,
        was: String,
    },
    /// A resumed session's agent that nothing names an endpoint for now
    /// keeps the one of its last recorded turn, not the default it would
    /// get in a new session.
    EndpointKept {
        agent: String,
        /// The agent's id, for the flag that moves it (a name may hold spaces).
        id: String,
        endpoint: String,
    },
    /// The first line of a notice that lists the roster's problems.
    RosterProblems {
        n: usize,
        source: String,
    },
    /// A resumed session's document that cannot be read again.
    DocumentLeftOut {
        why: Problem,
    },

    // Subcommands.
    NoConfigFolder,
    ConfigThere {
        shown: String,
    },
    KeepsakeOverSession {
        path: String,
    },
}
