//! What reply hygiene removes, by kind: counted in the session file,
//! logged, never shown.

/// Why part of a reply was removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum CutKind {
    /// A line spoken as another agent or the facilitator: the reply ends there.
    SpeaksAsOther,
    /// The speaker's own label (`Maya:`) or an opening such as `It is my turn, Maya:`.
    OwnLabel,
    /// The speaker treating itself as someone else: attributing a view to
    /// itself (`As Maya said, …` by Maya) or greeting itself (`Hey Maya,`).
    SelfQuote,
    /// The runtime's instructions coming back: the reply ends there.
    RuntimeText,
    /// A sentence the reply already said: the reply ends there.
    Loop,
    /// A sentence copied from an earlier turn: dropped (kept on a second try).
    Echo,
    /// A view attributed to an agent who has not spoken: dropped.
    Unspoken,
    /// The reply reached its token cap: the unfinished sentence is dropped.
    Capped,
    /// The reply signed like a letter (its own name on the last line): dropped.
    Signature,
    /// The reply opened like a letter (`Hi Lena,` on its own line): dropped.
    Salutation,
    /// The model stepping out of its persona (`As an AI language model, …`): dropped.
    OutOfCharacter,
    /// A line that is part of a marker (`!-- END -->`), or a marker made
    /// up in the markers' form (`<!-- BEGIN -->`): dropped.
    MarkerFragment,
    /// A reply that only thanked or agreed (`Thank you, Maya.`, `同意。`):
    /// no turn of its own, asked again.
    Stub,
    /// A heading, a list's number or a line ending in a colon with nothing
    /// under it once what it headed was cut (`### 2.` before the next
    /// heading, "Here's my recommendation:" at the end): dropped.
    EmptyHeading,
    /// A list's point past those a turn makes (`Voices::points`): a reply
    /// said aloud makes a point or two, a list of five is a written answer.
    /// The reply ends there.
    ListCap,
}

impl CutKind {
    #[cfg(test)]
    pub(crate) const ALL: [CutKind; 15] = [
        CutKind::SpeaksAsOther,
        CutKind::OwnLabel,
        CutKind::SelfQuote,
        CutKind::RuntimeText,
        CutKind::Loop,
        CutKind::Echo,
        CutKind::Unspoken,
        CutKind::Capped,
        CutKind::Signature,
        CutKind::Salutation,
        CutKind::OutOfCharacter,
        CutKind::MarkerFragment,
        CutKind::Stub,
        CutKind::EmptyHeading,
        CutKind::ListCap,
    ];

    /// A cut of words that are not the speaker's at all: another's line or
    /// the runtime's own note. At the light level, they raise the endpoint
    /// to full (`engine::cleanup::level`).
    pub(crate) fn is_another_voice(self) -> bool {
        matches!(self, CutKind::SpeaksAsOther | CutKind::RuntimeText)
    }

    pub(crate) fn code(self) -> &'static str {
        match self {
            CutKind::SpeaksAsOther => "speaks_as_other",
            CutKind::OwnLabel => "own_label",
            CutKind::SelfQuote => "self_quote",
            CutKind::RuntimeText => "runtime_text",
            CutKind::Loop => "loop",
            CutKind::Echo => "echo",
            CutKind::Unspoken => "unspoken",
            CutKind::Capped => "capped",
            CutKind::Signature => "signature",
            CutKind::Salutation => "salutation",
            CutKind::OutOfCharacter => "out_of_character",
            CutKind::MarkerFragment => "marker_fragment",
            CutKind::Stub => "stub",
            CutKind::EmptyHeading => "empty_heading",
            CutKind::ListCap => "list_cap",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cut {
    pub kind: CutKind,
    pub text: String,
}

/// What the session file's counters count: the cuts, and the turns asked
/// again or passed for having nothing of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Counter {
    Cut(CutKind),
    /// A reply with nothing of its own, asked for once more.
    AskedAgain,
    /// Asked again, still nothing of its own: the agent passed the round.
    Passed,
}

impl Counter {
    pub(crate) fn code(self) -> &'static str {
        match self {
            Counter::Cut(kind) => kind.code(),
            Counter::AskedAgain => "asked_again",
            Counter::Passed => "passed",
        }
    }
}
