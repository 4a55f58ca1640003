/// What the program says about a drafted cast: what makes a draft
/// unusable (said to the model when it is asked again, and to the
/// facilitator), and `cast`'s own lines. Owned: a flaw is found where the
/// language is not at hand and said where it is shown.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cast {
    // A draft's flaws; `at` is the persona's place in the draft.
    NoJson,
    NoPersonas,
    Count {
        have: usize,
    },
    Missing {
        at: usize,
        who: String,
        field: String,
    },
    NotAName {
        at: usize,
        name: String,
    },
    SameName {
        at: usize,
        name: String,
    },
    NameIsTitle {
        at: usize,
        name: String,
    },
    Taken {
        at: usize,
        name: String,
    },
    Alike {
        at: usize,
        who: String,
        other: String,
        /// `title`, `role` or `identity`.
        field: String,
    },
    Crowded {
        at: usize,
        who: String,
        others: String,
    },
    Language {
        at: usize,
        who: String,
        language: String,
    },
    NoLines {
        at: usize,
        who: String,
    },
    NoSuchLine {
        at: usize,
        who: String,
        line: u32,
        last: u32,
    },

    // Drafting.
    Drafting {
        topic: String,
        model: String,
        size: usize,
    },
    AskingAgain {
        attempt: u32,
        of: u32,
        flaws: String,
    },
    Refused {
        attempts: u32,
        flaws: String,
    },
    Salvaged {
        dropped: String,
    },
    LeftOut {
        lines: u32,
    },
    NotAnswering {
        cause: String,
    },
    /// `/cast` in the room: what is drafted, and from what.
    DraftingInRoom {
        topic: String,
        model: String,
        size: usize,
        /// How many documents it is drawn from (`/cast --from`).
        documents: usize,
    },
    NeedsTopic,
    NoDocuments,
    NoConfigFolder,
    Stopped,
    ModelFailed {
        cause: String,
    },

    // Reviewing.
    ReviewHelp,
    NoSuchPersona {
        n: String,
        count: usize,
    },
    NoSuchField {
        field: String,
        fields: String,
    },
    TooFewLeft,
    UnknownReview {
        line: String,
    },
    AskingOne {
        who: String,
    },
    /// Something other than a review step came while a review is open.
    ReviewOpen,
    Dropped {
        who: String,
    },
    Replaced {
        who: String,
        by: String,
    },
    OneRefused {
        who: String,
        flaws: String,
    },

    // Saving.
    Saved {
        name: String,
        id: String,
        count: usize,
        dir: String,
    },
    Renamed {
        from: String,
        to: String,
    },
    StartIt {
        id: String,
    },
    NothingSaved,
    NoBmadProject,
    NotSaved {
        cause: String,
    },
}

impl Cast {
    /// The persona a flaw is about (its place in the draft), if one.
    pub(crate) fn persona(&self) -> Option<usize> {
        match self {
            Cast::Missing { at, .. }
            | Cast::NotAName { at, .. }
            | Cast::NameIsTitle { at, .. }
            | Cast::SameName { at, .. }
            | Cast::Taken { at, .. }
            | Cast::Alike { at, .. }
            | Cast::Crowded { at, .. }
            | Cast::Language { at, .. }
            | Cast::NoLines { at, .. }
            | Cast::NoSuchLine { at, .. } => Some(*at),
            _ => None,
        }
    }
}
