//! What one reply must not do: the speaker, the others it must not speak
//! as, who has not spoken, and the runs of words of the runtime's notes and
//! earlier turns a reply must not copy.

use crate::engine::protocol::markers::RoomMarkers;
use foldhash::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

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
    /// The texts indexed for earlier calls (`TokenMemo`).
    pub(crate) memo: Option<Arc<Mutex<TokenMemo>>>,
    /// `names`, as one hash: the memo's texts were tokenised with them.
    names_key: u64,
}

/// Texts as indexing needs them (`Indexed`), kept from one call's
/// `Voices` to the next: a party's earlier turns, persona and notes are
/// indexed for every call, and tokenised once. It holds what the last two
/// calls indexed, no more, for one room's names.
#[derive(Debug, Default)]
pub(crate) struct TokenMemo {
    /// The names and run length the texts were tokenised with.
    key: u64,
    now: HashMap<String, Arc<Indexed>>,
    before: HashMap<String, Arc<Indexed>>,
}

impl TokenMemo {
    /// A new call begins: what the call before last indexed and this one
    /// has not is let go.
    pub(crate) fn next_call(&mut self) {
        self.before = std::mem::take(&mut self.now);
    }

    fn get(&mut self, key: u64, text: &str, make: impl FnOnce() -> Indexed) -> Arc<Indexed> {
        if key != self.key {
            self.now.clear();
            self.before.clear();
            self.key = key;
        }
        if let Some(t) = self.now.get(text) {
            return t.clone();
        }
        let (text, t) = self
            .before
            .remove_entry(text)
            .unwrap_or_else(|| (text.to_string(), Arc::new(make())));
        self.now.insert(text, t.clone());
        t
    }
}

/// A text as indexing needs it: its tokens, every name the same one, and
/// the hashes of its sentences too short for runs of words.
#[derive(Debug)]
pub(crate) struct Indexed {
    toks: Vec<u64>,
    short: Vec<u64>,
    /// Where its questions are (`questions`).
    questions: Vec<std::ops::Range<usize>>,
}

impl Indexed {
    fn new(v: &Voices, text: &str) -> Indexed {
        let mut short = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let end = sentence_end(rest).unwrap_or(rest.len());
            let toks = v.tokens(&rest[..end]);
            if is_short(toks.len(), v.gram) {
                short.push(gram_hash(&toks));
            }
            rest = &rest[end..];
        }
        let at = |q: &str| q.as_ptr() as usize - text.as_ptr() as usize;
        let questions = questions(text).map(|q| at(q)..at(q) + q.len()).collect();
        Indexed {
            toks: v.tokens(text),
            short,
            questions,
        }
    }
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
        let mut names = HashSet::default();
        for n in others.iter().map(String::as_str).chain([own]) {
            // Single CJK characters are words of their own: never names here.
            for word in n.split_whitespace().filter(|w| !w.chars().any(is_cjk)) {
                let w = word.to_lowercase();
                for form in [w.clone(), format!("{w}'s"), format!("{w}’s")] {
                    names.extend(token_hashes(&form));
                }
            }
        }
        let mut sorted: Vec<u64> = names.iter().copied().collect();
        sorted.sort_unstable();
        let names_key = gram_hash(&sorted);
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
            // A party's earlier turns hold a few thousand runs of words.
            grams: HashMap::with_capacity_and_hasher(4096, Default::default()),
            short: HashSet::default(),
            names,
            authors: Vec::new(),
            by: HashMap::with_capacity_and_hasher(4096, Default::default()),
            memo: None,
            names_key,
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

    /// `text` as indexing needs it: from the memo when there is one.
    fn indexed(&self, text: &str) -> Arc<Indexed> {
        let Some(memo) = &self.memo else {
            return Arc::new(Indexed::new(self, text));
        };
        let key = self.names_key ^ self.gram as u64;
        let mut memo = memo.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        memo.get(key, text, || Indexed::new(self, text))
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
        let ix = self.index(text, EARLIER | HOST);
        self.index_author(name, &ix.toks);
        for q in &ix.questions {
            self.index_runs(&text[q.clone()], HOST_ASKED);
        }
        self
    }

    /// A turn of another agent's: said before, and a question of it handed
    /// back after the ask marker, to whomever it is put (a name before it
    /// or none), is no question of the speaker's own (`copies.rs`,
    /// `copy_source`): the room has it already.
    pub(crate) fn another(mut self, name: &str, text: &str) -> Voices {
        let ix = self.index(text, EARLIER | SPOKEN);
        self.index_author(name, &ix.toks);
        for q in &ix.questions {
            self.index_runs(&text[q.clone()], ASKED);
        }
        self
    }

    /// Marks `text`'s runs of words as said by `source`, and, when it was
    /// said before, its sentences too short for runs; gives back its tokens.
    fn index(&mut self, text: &str, source: u8) -> Arc<Indexed> {
        let ix = self.index_runs(text, source);
        if source & EARLIER != 0 {
            self.short.extend(&ix.short);
        }
        ix
    }

    /// Marks the runs of words of `toks` (a text's `tokens`) as said by
    /// `name` (up to 64 people: a room's agents and its facilitator).
    fn index_author(&mut self, name: &str, toks: &[u64]) {
        let at = match self.authors.iter().position(|a| a == name) {
            Some(i) => i,
            None if self.authors.len() < 64 => {
                self.authors.push(name.to_string());
                self.authors.len() - 1
            }
            None => return,
        };
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

    /// Marks `text`'s runs of words as said by `source`.
    fn index_runs(&mut self, text: &str, source: u8) -> Arc<Indexed> {
        let ix = self.indexed(text);
        for w in ix.toks.windows(self.gram) {
            *self.grams.entry(gram_hash(w)).or_default() |= source;
        }
        ix
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

#[cfg(test)]
mod tests {
    use super::*;

    fn built(memo: Option<Arc<Mutex<TokenMemo>>>, others: &[&str]) -> Voices {
        let mut v = Voices::new("Kofi", others.iter().map(|s| s.to_string()).collect(), vec![], None);
        if let Some(m) = &memo {
            m.lock().unwrap().next_call();
        }
        v.memo = memo;
        v.runtime("Speak as Kofi, in one or two points.")
            .earlier("Kofi said the rollout needs a pilot first. Thank you, Maya.")
            .another("Maya", "Maya thinks the budget is too small for this. Who owns the pilot?")
            .facilitator("Ada", "What should we decide about the pilot? List three risks.")
    }

    fn same(a: &Voices, b: &Voices) {
        assert_eq!(a.grams, b.grams);
        assert_eq!(a.short, b.short);
        assert_eq!(a.by, b.by);
        assert_eq!(a.authors, b.authors);
    }

    #[test]
    fn a_memo_indexes_as_tokenising_afresh_does() {
        let room = ["Maya", "Ada"];
        let afresh = built(None, &room);
        let memo = Arc::new(Mutex::new(TokenMemo::default()));
        let first = built(Some(memo.clone()), &room);
        let second = built(Some(memo.clone()), &room);
        same(&afresh, &first);
        same(&afresh, &second);
        // Another room's names make other tokens: the memo starts again.
        let other_room = ["Maya", "Ada", "Pilot"];
        same(&built(None, &other_room), &built(Some(memo), &other_room));
    }

    #[test]
    fn a_memo_keeps_only_the_last_two_calls_texts() {
        let memo = Arc::new(Mutex::new(TokenMemo::default()));
        let mut v = Voices::new("Kofi", vec!["Maya".into()], vec![], None);
        v.memo = Some(memo.clone());
        for text in ["one two three four five", "six seven eight nine ten", "eleven twelve"] {
            memo.lock().unwrap().next_call();
            v = v.earlier(text);
        }
        let m = memo.lock().unwrap();
        assert_eq!(m.now.len() + m.before.len(), 2, "{m:?}");
    }
}
