//! What the room's judgement decides, as data: the host's reading of a
//! facilitator's message, a speaker's stance towards the room, a speaker's
//! self-check. The engine decides them (`engine::reading`,
//! `engine::self_check`, `engine::stated`); the session file records them.
//! A leaf, so that the session file need not depend on the engine.

/// What the facilitator's message asks of the room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reading {
    /// The matter is settled, or may the room end? (A)
    Close,
    /// Does everyone agree on a choice? (B)
    Agreement,
    /// A job (plan, organise, write) without the facts it depends on:
    /// how many people, the budget, the date, the place. (C)
    MissingFacts,
    /// Anything else: a question to discuss, a debate, facts, a job whose
    /// facts are given. (D)
    Other,
    /// The facilitator invites the room's questions ("Anything you need
    /// to ask me?"): read from their own words only
    /// (`engine::reading::invited`), never answered as a letter.
    QuestionsInvited,
}

impl Reading {
    /// The answer's letters, in the order the prompt lists them.
    pub(crate) const LETTERS: [(char, Reading); 4] = [
        ('A', Reading::Close),
        ('B', Reading::Agreement),
        ('C', Reading::MissingFacts),
        ('D', Reading::Other),
    ];

    pub(crate) fn from_letter(c: char) -> Option<Reading> {
        let c = c.to_ascii_uppercase();
        Self::LETTERS.iter().find(|(l, _)| *l == c).map(|(_, r)| *r)
    }
}

/// How a speaker stands towards what the room said before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stance {
    Agree,
    Disagree,
    /// Neither: a point of its own, or building on others.
    New,
}

impl Stance {
    pub(crate) fn from_word(w: &str) -> Option<Stance> {
        let w = w.trim().trim_matches(['"', '\'', '.', ' ']).to_lowercase();
        // `disagree` before `agree`: one contains the other.
        if w.starts_with("disagree") || w.starts_with("oppose") || w.starts_with("against") {
            Some(Stance::Disagree)
        } else if w.starts_with("agree") {
            Some(Stance::Agree)
        } else if ["new", "build", "neither", "neutral", "add", "other"]
            .iter()
            .any(|p| w.starts_with(p))
        {
            Some(Stance::New)
        } else {
            None
        }
    }
}

/// What a speaker judged after its reply.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct SelfCheck {
    /// Its stance towards the replies before it (None: not said).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stance: Option<Stance>,
    /// A question for the facilitator, when the room lacks what only they know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask: Option<String>,
    /// The facilitator asked whether the room is done, as the speaker read it.
    #[serde(default)]
    pub end: bool,
}

impl SelfCheck {
    /// The speaker proposes to end: the facilitator invited the close and
    /// it does not disagree with the room.
    pub(crate) fn proposes_end(&self) -> bool {
        self.end && self.stance != Some(Stance::Disagree)
    }
}
