//! What one reply must not do: the speaker, the others it must not speak
//! as, who has not spoken, and the runs of words of the runtime's notes and
//! earlier turns a reply must not copy.

use crate::engine::protocol::markers::RoomMarkers;
use std::collections::{HashMap, HashSet};

use super::sentences::{gram_hash, is_short, sentence_end, token_hashes};
use crate::text::is_cjk;

/// Where a run of words came from.
pub(super) const RUNTIME: u8 = 1;
pub(super) const EARLIER: u8 = 2;
/// Said by the facilitator (and so said before, `EARLIER` too).
pub(super) const HOST: u8 = 4;
/// A question another agent asked (and so said before, `EARLIER` too).
pub(super) const ASKED: u8 = 8;
/// A question the facilitator asked (and so `HOST` too).
pub(super) const HOST_ASKED: u8 = 16;
/// Said by someone other than the facilitator: a turn, the persona, the
/// briefing's framing (and so said before, `EARLIER` too).
pub(super) const SPOKEN: u8 = 32;

/// What one reply must not do, built for each call from what its prompt held.
#[derive(Debug, Clone, Default)]
pub(crate) struct Voices {
    /// The speaker's display name.
    pub own: String,
    /// The speaker's name as a model writes it without its accents
    /// (`Tomas` for `Tomás`); empty when it has none.
    pub own_plain: String,
    /// The speaker's titles, in the party's language and those its file
    /// translates to: a line opening with one and a colon is the speaker's
    /// label, as its name's is.
    pub titles: Vec<String>,
    /// Everyone else who could be spoken for: the other agents and the
    /// facilitator, each also without its accents where it has some.
    pub others: Vec<String>,
    /// Agents who have not spoken yet: no view may be attributed to them.
    pub unspoken: Vec<String>,
    /// Words per run that count as a copy: 4 for languages written with
    /// spaces, 6 for those without (Chinese, Japanese: one token per
    /// character, about three words).
    pub gram: usize,
    /// The language the party speaks (`language.rs`; None: one not
    /// listed): a reply mostly in other scripts is in the wrong one.
    pub language: Option<&'static super::language::Language>,
    /// The runtime's markers (None: a call without them): a line that
    /// opens with the end marker keeps what follows it, one that opens with
    /// the ask marker a question that reuses the room's words, but not the
    /// runtime's own, the facilitator's message or another's question
    /// handed back (`copies.rs`, `copy_source`). As the marker filter
    /// knows them, aliases included: both are given `Room::markers`.
    pub markers: Option<RoomMarkers>,
    /// The facilitator's labels among `others` (its name, "Facilitator"):
    /// a line of theirs is a label only with its colon.
    pub hosts: Vec<String>,
    /// Keep sentences copied from earlier turns (counted all the same): for
    /// the moderator, who sums up where the room circles, and for written
    /// replies (the rehearsal), which asking again would not change.
    pub keep_echoes: bool,
    /// The points of a list a turn may make: the next one ends the reply
    /// (None: any, for a summary or a farewell). A turn said aloud makes a
    /// point or two; a list of five is an assistant's written answer.
    pub points: Option<usize>,
    pub(super) grams: HashMap<u64, u8>,
    /// Earlier sentences too short for runs of words (`Thank you, Kofi.`),
    /// whole: a small model repeats such stock lines turn after turn.
    pub(super) short: HashSet<u64>,
    /// The room's names, as token hashes: any of them counts as the same
    /// word when copies are compared, so the runtime's note written for
    /// another speaker, or a reply copied with the names swapped, is found.
    pub(super) names: HashSet<u64>,
    /// Who said what before (`another`, `facilitator`): a sentence that
    /// takes up their words names them (`copies.rs`, `names_who_spoke`).
    pub(super) authors: Vec<String>,
    /// Each run of words said before, by the bits of its `authors`.
    pub(super) by: HashMap<u64, u64>,
}

/// The token every name stands for in copy comparisons.
const NAME: u64 = 0x6e61_6d65;

impl Voices {
    pub(crate) fn new(
        own: &str,
        others: Vec<String>,
        unspoken: Vec<String>,
        language: Option<&'static super::language::Language>,
    ) -> Voices {
        let others = with_plain_forms(others.into_iter().filter(|n| !n.trim().is_empty()).collect());
        let unspoken = with_plain_forms(unspoken);
        let mut names = HashSet::new();
        for n in others.iter().map(String::as_str).chain([own]) {
            // Single CJK characters are words of their own: never names here.
            for word in n.split_whitespace().filter(|w| !w.chars().any(is_cjk)) {
                let w = word.to_lowercase();
                for form in [w.clone(), format!("{w}'s"), format!("{w}’s")] {
                    names.extend(token_hashes(&form));
                }
            }
        }
        Voices {
            own: own.to_string(),
            own_plain: Some(plain(own)).filter(|p| p != own).unwrap_or_default(),
            titles: Vec::new(),
            others,
            unspoken,
            gram: if language.is_some_and(|l| !l.spaced) { 6 } else { 4 },
            language,
            markers: None,
            hosts: Vec::new(),
            keep_echoes: false,
            points: None,
            grams: HashMap::new(),
            short: HashSet::new(),
            names,
            authors: Vec::new(),
            by: HashMap::new(),
        }
    }

    /// The speaker's names: as given, and without its accents if it has some.
    pub(crate) fn own_names(&self) -> impl Iterator<Item = &str> + Clone {
        [self.own.as_str(), self.own_plain.as_str()].into_iter().filter(|n| !n.is_empty())
    }

    /// What the speaker's own label may open with: its names, and its
    /// titles but on a list's item, where a title names a role
    /// ("- Test Architect: the test plan"), not the speaker.
    pub(crate) fn own_labels(&self, item: bool) -> impl Iterator<Item = &str> + Clone {
        self.own_names().chain(
            self.titles
                .iter()
                .map(String::as_str)
                .filter(move |t| !item && !t.trim().is_empty()),
        )
    }

    /// Everyone in the room by name: the speaker's names and the others'.
    pub(super) fn room_names(&self) -> impl Iterator<Item = &str> + Clone {
        self.own_names()
            .chain(self.others.iter().map(String::as_str).filter(|n| !n.is_empty()))
    }

    /// `text`'s tokens, every name the same token.
    pub(super) fn tokens(&self, text: &str) -> Vec<u64> {
        let mut toks = token_hashes(text);
        for t in &mut toks {
            if self.names.contains(t) {
                *t = NAME;
            }
        }
        toks
    }

    /// The runtime's own text (rules, instructions): a reply that continues
    /// it is cut there.
    pub(crate) fn runtime(mut self, text: &str) -> Voices {
        self.index(text, RUNTIME);
        self
    }

    /// Text said before (other turns, the persona): a sentence copied from it
    /// is dropped (unless `keep_echoes`).
    pub(crate) fn earlier(mut self, text: &str) -> Voices {
        self.index(text, EARLIER | SPOKEN);
        self
    }

    /// A message of the facilitator's: said before, and a question handed
    /// back word for word after the ask marker is no question of the
    /// speaker's own (`copies.rs`, `copy_source`); its own question's words
    /// made a statement at a reply's start are an answer to it
    /// (`copies.rs`, `answers_in_its_words`).
    pub(crate) fn facilitator(mut self, name: &str, text: &str) -> Voices {
        self.index(text, EARLIER | HOST);
        self.index_author(name, text);
        for q in questions(text) {
            self.index_runs(q, HOST_ASKED);
        }
        self
    }

    /// A turn of another agent's: said before, and a question of it handed
    /// back after the ask marker, to whomever it is put (a name before it
    /// or none), is no question of the speaker's own (`copies.rs`,
    /// `copy_source`): the room has it already.
    pub(crate) fn another(mut self, name: &str, text: &str) -> Voices {
        self.index(text, EARLIER | SPOKEN);
        self.index_author(name, text);
        for q in questions(text) {
            self.index_runs(q, ASKED);
        }
        self
    }

    /// Marks `text`'s runs of words as said by `source`, and, when it was
    /// said before, its sentences too short for runs.
    fn index(&mut self, text: &str, source: u8) {
        self.index_runs(text, source);
        if source & EARLIER != 0 {
            let mut rest = text;
            while !rest.is_empty() {
                let end = sentence_end(rest).unwrap_or(rest.len());
                let toks = self.tokens(&rest[..end]);
                if is_short(toks.len(), self.gram) {
                    self.short.insert(gram_hash(&toks));
                }
                rest = &rest[end..];
            }
        }
    }

    /// Marks `text`'s runs of words as said by `name` (up to 64 people: a
    /// room's agents and its facilitator).
    fn index_author(&mut self, name: &str, text: &str) {
        let at = match self.authors.iter().position(|a| a == name) {
            Some(i) => i,
            None if self.authors.len() < 64 => {
                self.authors.push(name.to_string());
                self.authors.len() - 1
            }
            None => return,
        };
        let toks = self.tokens(text);
        for w in toks.windows(self.gram) {
            *self.by.entry(gram_hash(w)).or_default() |= 1u64 << at;
        }
    }

    /// Who said the runs of words of `toks` before, by name.
    pub(super) fn authors_of(&self, toks: &[u64]) -> Vec<String> {
        let bits = toks
            .windows(self.gram)
            .fold(0u64, |b, w| b | self.by.get(&gram_hash(w)).copied().unwrap_or(0));
        self.authors
            .iter()
            .enumerate()
            .filter(|(i, _)| bits & (1u64 << i) != 0)
            .map(|(_, a)| a.clone())
            .collect()
    }

    fn index_runs(&mut self, text: &str, source: u8) {
        let toks = self.tokens(text);
        for w in toks.windows(self.gram) {
            *self.grams.entry(gram_hash(w)).or_default() |= source;
        }
    }
}

/// The sentences of `text` that ask: a question inside quotes, brackets or
/// bold ends before them.
fn questions(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        while !rest.is_empty() {
            let end = sentence_end(rest).unwrap_or(rest.len());
            let sentence = &rest[..end];
            rest = &rest[end..];
            let bare = sentence.trim_end_matches(|c: char| c.is_whitespace() || super::quotes::is_closing(c) || "*_)）".contains(c));
            if bare.ends_with(['?', '？']) {
                return Some(sentence);
            }
        }
        None
    })
}

/// `name` without its accents (`Tomás` → `Tomas`): small models drop them.
fn plain(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    name.nfd().filter(|c| !unicode_normalization::char::is_combining_mark(*c)).collect()
}

/// `names`, each followed by its form without accents where that differs.
fn with_plain_forms(names: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(names.len());
    for n in names {
        let p = plain(&n);
        let differs = p != n;
        out.push(n);
        if differs {
            out.push(p);
        }
    }
    out
}
