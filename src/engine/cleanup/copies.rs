//! Copies: whether a sentence gives back runs of words said before — the
//! runtime's notes, earlier turns, the facilitator's message, this reply's
//! own sentences — and whether an unfinished one has begun to.

use super::sentences::{floor_char_boundary, gram_hash, is_short, token_starts, TAIL_BYTES};
use super::voices::{ASKED, EARLIER, HOST, HOST_ASKED, RUNTIME, SPOKEN};
use super::{Cleanup, Cut, CutKind};
use crate::engine::protocol::markers::MarkerKind;

impl Cleanup {
    /// Whether `toks` (a whole sentence) copies earlier text: the source
    /// (RUNTIME, EARLIER, or 0 for this reply's own earlier sentences).
    pub(super) fn copied(&self, toks: &[u64]) -> Option<u8> {
        let gram = self.voices.gram;
        if is_short(toks.len(), gram) {
            let h = gram_hash(toks);
            return if self.own_short.contains(&h) {
                Some(0)
            } else if self.voices.short.contains(&h) {
                Some(EARLIER)
            } else {
                // A few words, every run of them the runtime's ("The
                // Architect, would make."): its note given back.
                (toks.len() >= gram
                    && toks
                        .windows(gram)
                        .all(|w| self.voices.grams.get(&gram_hash(w)).is_some_and(|src| src & RUNTIME != 0)))
                .then_some(RUNTIME)
            };
        }
        let windows = toks.len().checked_sub(gram)? + 1;
        // Too short for a run of words to mean anything.
        if windows < 3 {
            return None;
        }
        let (mut runtime, mut earlier, mut own, mut any) = (0, 0, 0, 0);
        // Words inside a copied run: the sentence's share said before.
        let mut covered = vec![false; toks.len()];
        for (i, w) in toks.windows(gram).enumerate() {
            let h = gram_hash(w);
            let src = self.voices.grams.get(&h).copied().unwrap_or(0);
            let mine = self.own.contains(&h);
            if src & RUNTIME != 0 {
                runtime += 1;
            }
            if src & EARLIER != 0 {
                earlier += 1;
            }
            if mine {
                own += 1;
            }
            if src != 0 || mine {
                any += 1;
                covered[i..i + gram].iter_mut().for_each(|c| *c = true);
            }
        }
        // Half a sentence's words in copied runs is a restatement: what is
        // new in it, if anything, is said better on its own.
        if covered.iter().filter(|c| **c).count() * 2 < toks.len() {
            return None;
        }
        Some(if runtime * 2 >= any {
            RUNTIME
        } else if own >= earlier {
            0
        } else {
            EARLIER
        })
    }

    /// Whether `toks` (a whole sentence, not a short one) was said before
    /// as `source` marks (`HOST`: the facilitator's message, `ASKED`:
    /// another's question): four runs of words in five from it, handed
    /// back (a name added to it changes one or two runs).
    pub(super) fn handed_back(&self, toks: &[u64], source: u8) -> bool {
        let gram = self.voices.gram;
        if is_short(toks.len(), gram) {
            return false;
        }
        let runs = toks.len() + 1 - gram;
        let theirs = toks
            .windows(gram)
            .filter(|w| self.voices.grams.get(&gram_hash(w)).is_some_and(|src| src & source != 0))
            .count();
        theirs * 5 >= runs * 4
    }

    /// Whether `s`, a statement at the reply's start, is made of the words
    /// of a question the facilitator asked and of no one else's: "We should
    /// let every engineer deploy on their own." for "Should we let every
    /// engineer deploy on their own?" is the speaker's answer, its stance
    /// in the question's words, and what follows leans on it. Said by
    /// another before ("Yes, every engineer should…"), it is an echo.
    /// A stance has words the question has not ("we should" for "should
    /// we"); the question handed back whole, or as a heading, has none,
    /// and one that still asks (a question mark in it) is no stance.
    pub(super) fn answers_in_its_words(&self, s: &str) -> bool {
        let words = self.before_trailing_ask(s);
        if !self.reply_start || words.contains(['?', '？']) {
            return false;
        }
        let toks = self.voices.tokens(words);
        if is_short(toks.len(), self.voices.gram) {
            return false;
        }
        let (mut asked, mut new) = (false, false);
        for w in toks.windows(self.voices.gram) {
            match self.voices.grams.get(&gram_hash(w)).copied().unwrap_or(0) {
                0 => new = true,
                src if src & HOST_ASKED != 0 && src & (SPOKEN | RUNTIME) == 0 => asked = true,
                _ => return false,
            }
        }
        asked && new
    }

    /// Whether `s`, a statement, names one who said the words it carries
    /// (the facilitator too): a take-up ("Ingrid is right that we
    /// should…", "正如 Kofi 说的…", "Maya hat recht, dass…") carries their
    /// words on purpose, and is the cross-talk the room is for, never an
    /// echo. Naming someone else is no take-up (another's summary copied
    /// because it names Maya). A question is none either: one handed back
    /// to its asker ("Kofi, how can we…?") asks nothing new; nor a stock
    /// line too short to take anything up ("Thank you, Priya and Kofi.").
    pub(super) fn names_who_spoke(&self, s: &str) -> bool {
        let toks = self.voices.tokens(s);
        if toks.len() < self.voices.gram + 2 || self.marker_lead(s) > 0 || s.trim_end().ends_with(['?', '？']) {
            return false;
        }
        super::labels::mentions_any(s, &self.voices.authors_of(&toks))
    }

    /// Whether a run of words said before (earlier turns, the runtime's
    /// text, this reply) reaches past byte `from` of the unfinished sentence.
    pub(super) fn copies_since(&self, from: usize) -> bool {
        if self.copy_seen.get() {
            return true;
        }
        let gram = self.voices.gram;
        // The runs that reach past `from` start within the few words before
        // it: the text before those is never tokenised again.
        let start = floor_char_boundary(&self.cur, from.saturating_sub(TAIL_BYTES));
        let toks = self.voices.tokens(&self.cur[start..]);
        // The tokens starting before `from`, a word it cuts included.
        let first = token_starts(&self.cur[start..from]).len().saturating_sub(gram - 1);
        let seen = toks.get(first..).is_some_and(|t| {
            t.windows(gram).any(|w| {
                let h = gram_hash(w);
                self.voices.grams.contains_key(&h) || self.own.contains(&h)
            })
        });
        self.copy_seen.set(seen);
        seen
    }

    /// A copied statement: runs of words said before, not a short stock
    /// line ("I agree with Kofi.") or a question put again, which nothing
    /// after it leans on.
    pub(super) fn is_copied_statement(&self, c: &Cut) -> bool {
        c.kind == CutKind::Echo && self.voices.tokens(&c.text).len() >= self.voices.gram + 2 && !c.text.trim_end().ends_with(['?', '？'])
    }

    /// Where the runs of words `s` copies come from (RUNTIME, EARLIER, or 0
    /// for this reply's own earlier sentences). A question after a marker
    /// may echo anything but the runtime's own words, the facilitator's
    /// message whole and another's question whole: a "question" that
    /// recites the ask instruction, or hands a question back to whoever
    /// asked it, is none. A statement after a marker is judged as any
    /// sentence.
    pub(super) fn copy_source(&self, s: &str) -> Option<u8> {
        let kept = self.own.len() + self.own_short.len();
        if let Some((_, _, source)) = self.copy_memo.borrow().as_ref().filter(|(t, k, _)| t == s && *k == kept) {
            return *source;
        }
        let source = self.copy_source_afresh(s);
        *self.copy_memo.borrow_mut() = Some((s.to_string(), kept, source));
        source
    }

    fn copy_source_afresh(&self, s: &str) -> Option<u8> {
        let (which, lead) = self.leading_marker(s).unwrap_or((MarkerKind::Ask, 0));
        // After the ask marker, a statement is no question: judged as any
        // line. After the end marker words stay: dropped with them, the
        // proposal would be lost.
        let after_end = lead > 0 && which == MarkerKind::End;
        let asks = after_end || s[lead..].contains(['?', '？']) || s[lead..].trim().is_empty();
        match lead {
            0 => self.copied(&self.voices.tokens(s)),
            lead if !asks => self.copied(&self.voices.tokens(&s[lead..])),
            // A question of its own may reuse the room's words (its own
            // question asked again is the reading's to hold); the
            // facilitator's message or another's question handed back
            // whole is an echo.
            lead => {
                let toks = self.voices.tokens(&s[lead..]);
                self.copied(&toks)
                    .filter(|&src| src == RUNTIME || src == EARLIER && (self.handed_back(&toks, HOST) || self.handed_back(&toks, ASKED)))
            }
        }
    }
}
