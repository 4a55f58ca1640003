/// A problem found in a file the program reads (config, agent files, a
/// BMAD install, the workflow): the what of a located `SourceError`.
/// Owned: it travels out of the loader that found it and is said where it
/// is shown, in the language known there.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Problem {
    /// Words that are not the program's (a library's message), shown as
    /// they are.
    Text(String),
    /// A problem the BMAD project's loader set aside: the file is ignored.
    Ignored(Box<Problem>),

    // Reading a file.
    CannotRead {
        error: String,
    },
    CannotReadAgentsFolder {
        error: String,
    },
    NotUtf8At {
        at: usize,
    },

    // YAML, reworded (`source::words`).
    UnknownKey {
        unknown: String,
        hint: KeyHint,
    },
    /// `near`: a key of the same block that may be it, renamed, and its line.
    MissingKey {
        missing: String,
        near: Option<(String, usize)>,
    },
    /// `first`: the line it is first set on, when known.
    DuplicateKey {
        dup: String,
        first: Option<usize>,
    },
    /// A value of the wrong kind, and the value found, when known.
    Expected {
        wanted: ValueKind,
        found: Option<String>,
    },

    // Config values.
    AtLeast {
        min: String,
    },
    Between0And1,
    Between0And2,
    NotEmpty,
    /// Empty where null means the default.
    EmptyUseNull,
    /// Empty where null means the default room.
    EmptyUseNullRoom,
    WarnAtBoth,
    WarnRoundsBelowMax {
        max: String,
    },
    PositiveMinutes,
    WarnMinutesBelowMax {
        max: String,
    },
    AgentsPerRound {
        min: String,
        max: String,
    },
    EmptyTrigger,
    BadRegex {
        error: String,
    },
    ContextTokens,
    NotHttpUrl {
        url: String,
    },
    AtMost10,
    AtMostAnHour,
    PartyIdChars,
    NamesNobody,
    /// `bmad.llm.endpoints.<name>`: not an id, or `default`.
    EndpointName,
    EndpointNeedsUrl,
    /// An agent (its file, a party's member, `--endpoint`) names an
    /// endpoint the config does not define.
    UnknownEndpoint {
        name: String,
        known: String,
    },
    /// An endpoint the room speaks through reads its key from a variable
    /// that is not set.
    KeyVarUnset {
        var: String,
    },
    /// `api_key_env` is not a variable name (most likely the key itself,
    /// which is therefore never repeated).
    KeyVarName,
    /// The key in an endpoint's variable cannot be sent in a header (a
    /// newline, a control character); the value is never repeated.
    KeyVarValue {
        var: String,
    },
    /// `--endpoint` not of the form AGENT=NAME.
    EndpointFlag {
        given: String,
    },
    /// `--endpoint AGENT=…` names nobody in the room.
    EndpointAgent {
        agent: String,
    },

    // Agent files.
    NoFrontmatter,
    IdChars {
        id: String,
    },
    NotAColour {
        colour: String,
        all: String,
    },
    DuplicateId {
        id: String,
        first: String,
    },
    NoAgentFiles,

    // A BMAD install.
    NotTomlIgnored {
        error: String,
    },
    NotATableSkipped,
    NoCodeSkipped,
    GroupIdSkipped,
    NoCustomizeToml,
    NoPersonaFields,
    AgentFileMissing {
        path: String,
    },
    UnreadableHeader {
        error: String,
    },
    NotAManifest,
    UnreadableRow {
        error: String,
    },
    RowWithoutName,

    // A document put in front of the room (`--context`, `/context`).
    DocumentUnreadable {
        shown: String,
        error: String,
    },
    DocumentNotText {
        shown: String,
    },
    DocumentNotUtf8 {
        shown: String,
    },
    DocumentEmpty {
        shown: String,
    },

    // The workflow's files.
    WorkflowMissing,
    TemplateMissing,
    UnknownPlaceholder {
        placeholder: String,
        known: String,
    },
    TemplateNotClosed {
        fence: String,
    },
    NoFencedBlock,
}

/// What follows an unknown key: the known key it is nearest to, else the
/// keys known there (a list), else nothing.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum KeyHint {
    Near(String),
    Known(String),
    None,
}

/// A kind of value the YAML library names, in the words of someone
/// writing the file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ValueKind {
    Unsigned,
    Integer,
    Number,
    Bool,
    /// Said of any scalar field given a list or a mapping.
    Single,
    Text,
}

/// Words from elsewhere (a test's, a library's) as a problem.
impl From<&str> for Problem {
    fn from(s: &str) -> Problem {
        Problem::Text(s.to_string())
    }
}

impl From<&str> for Box<Problem> {
    fn from(s: &str) -> Box<Problem> {
        Box::new(s.into())
    }
}
