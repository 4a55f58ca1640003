//! Reply hygiene: every reply of every model is cleaned as it streams, so
//! that an agent speaks only as itself. Small models speak for the others
//! (`Kofi: …`), open with their own label, quote themselves, continue the
//! runtime's instructions, copy earlier turns and loop; a hosted model does
//! so less often, and the same rules cost it nothing.
//!
//! The unit of judgement is the sentence. A sentence is held back while it
//! could still turn out to be one of those (a line that may be becoming a
//! label, a run of words that may be a copy, a name of an agent who has not
//! spoken), and released as soon as it cannot; so a pane never shows text
//! that is cut later, and ordinary text streams with a delay of a few words.
//! What is cut is reported as [`Cut`]s, for the log and the session file's
//! counters, never for the screen.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hash};

use crate::text::is_cjk;

/// Where a run of words came from.
const RUNTIME: u8 = 1;
const EARLIER: u8 = 2;

/// What one reply must not do, built for each call from what its prompt held.
#[derive(Debug, Clone, Default)]
pub struct Voices {
    /// The speaker's display name.
    pub own: String,
    /// Everyone else who could be spoken for: the other agents and the facilitator.
    pub others: Vec<String>,
    /// Agents who have not spoken yet: no view may be attributed to them.
    pub unspoken: Vec<String>,
    /// Words per run that count as a copy: 4 for alphabetic languages, 6 for
    /// Chinese (one token per character: about three words).
    pub gram: usize,
    /// The runtime's markers (end, ask): a line that opens with one is a
    /// signal, kept whatever it echoes (the ask instruction's own words).
    pub markers: Vec<String>,
    /// Keep sentences copied from earlier turns (counted all the same): for
    /// the moderator, who sums up where the room circles, and for written
    /// replies (the rehearsal), which asking again would not change.
    pub keep_echoes: bool,
    grams: HashMap<u64, u8>,
    /// Earlier sentences too short for runs of words (`Thank you, Kofi.`),
    /// whole: a small model repeats such stock lines turn after turn.
    short: HashSet<u64>,
    /// The room's names, as token hashes: any of them counts as the same
    /// word when copies are compared, so the runtime's note written for
    /// another speaker, or a reply copied with the names swapped, is found.
    names: HashSet<u64>,
}

/// The token every name stands for in copy comparisons.
const NAME: u64 = 0x6e61_6d65;

impl Voices {
    pub fn new(own: &str, others: Vec<String>, unspoken: Vec<String>, chinese: bool) -> Voices {
        let others: Vec<String> = others.into_iter().filter(|n| !n.trim().is_empty()).collect();
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
            others,
            unspoken,
            gram: if chinese { 6 } else { 4 },
            markers: Vec::new(),
            keep_echoes: false,
            grams: HashMap::new(),
            short: HashSet::new(),
            names,
        }
    }

    /// `text`'s tokens, every name the same token.
    fn tokens(&self, text: &str) -> Vec<u64> {
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
    pub fn runtime(mut self, text: &str) -> Voices {
        self.index(text, RUNTIME);
        self
    }

    /// Text said before (other turns, the persona): a sentence copied from it
    /// is dropped (unless `keep_echoes`).
    pub fn earlier(mut self, text: &str) -> Voices {
        self.index(text, EARLIER);
        self
    }

    fn index(&mut self, text: &str, source: u8) {
        let toks = self.tokens(text);
        for w in toks.windows(self.gram) {
            *self.grams.entry(gram_hash(w)).or_default() |= source;
        }
        if source == EARLIER {
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
}

/// Why part of a reply was removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CutKind {
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
}

impl CutKind {
    pub fn code(self) -> &'static str {
        match self {
            CutKind::SpeaksAsOther => "speaks_as_other",
            CutKind::OwnLabel => "own_label",
            CutKind::SelfQuote => "self_quote",
            CutKind::RuntimeText => "runtime_text",
            CutKind::Loop => "loop",
            CutKind::Echo => "echo",
            CutKind::Unspoken => "unspoken",
            CutKind::Capped => "capped",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Cut {
    pub kind: CutKind,
    pub text: String,
}

/// What one piece of a reply gives.
#[derive(Debug, Default, PartialEq)]
pub struct Step {
    /// Text that is final and may be shown.
    pub show: String,
    /// The reply was cut: nothing after this matters, the stream may stop.
    pub stop: bool,
}

pub struct Hygiene<'v> {
    voices: &'v Voices,
    /// The sentence being written, not yet judged.
    cur: String,
    /// Bytes of `cur` already shown: such a sentence can no longer be dropped.
    shown: usize,
    /// Nothing has been kept yet.
    reply_start: bool,
    kept: String,
    /// Runs of words of the kept sentences (the loop guard), and the short
    /// ones whole.
    own: HashSet<u64>,
    own_short: HashSet<u64>,
    stopped: bool,
    cuts: Vec<Cut>,
    /// A copied run reaches into the unshown part of `cur`: it stays so
    /// while `cur` grows, so it is not looked for again (a long reply's
    /// sentence is not scanned once per piece).
    copy_seen: bool,
    /// Bytes of `cur` known to hold no sentence end.
    scanned: usize,
    /// Pieces received, near enough to tokens; with `cap`, the point from
    /// which unfinished sentences are held back, as a capped reply drops its last one.
    pieces: u32,
    cap: Option<u32>,
}

/// Words (CJK characters) of a sentence without a copied run, after which
/// it streams before its end.
const STREAM_AFTER: usize = 24;

/// Pieces before the cap from which an unfinished sentence is held back.
const CAP_MARGIN: u32 = 48;

impl<'v> Hygiene<'v> {
    pub fn new(voices: &'v Voices, cap: Option<u32>) -> Hygiene<'v> {
        Hygiene {
            voices,
            cur: String::new(),
            shown: 0,
            reply_start: true,
            kept: String::new(),
            own: HashSet::new(),
            own_short: HashSet::new(),
            copy_seen: false,
            scanned: 0,
            stopped: false,
            cuts: Vec::new(),
            pieces: 0,
            cap,
        }
    }

    /// Feeds one streamed piece.
    pub fn push(&mut self, piece: &str) -> Step {
        let mut step = Step::default();
        if self.stopped {
            step.stop = true;
            return step;
        }
        self.pieces += 1;
        self.cur.push_str(piece);
        while let Some(end) = sentence_end_from(&self.cur, self.scanned.min(self.cur.len())) {
            let sentence: String = self.cur.drain(..end).collect();
            self.copy_seen = false;
            self.scanned = 0;
            let shown = std::mem::take(&mut self.shown).min(sentence.len());
            self.settle(&sentence, shown, &mut step);
            if self.stopped {
                self.cur.clear();
                step.stop = true;
                return step;
            }
        }
        // No end so far; the last character may still become one (`.`
        // before the next piece's space).
        self.scanned = floor_char_boundary(&self.cur, self.cur.len().saturating_sub(1));
        if !self.cur.is_empty() && !self.hold() {
            // The last few words wait: a copy is only seen once a whole run
            // of words is in, and none of it may be on screen by then. So
            // do trailing spaces: an ellipsis may have to close the text.
            let from = floor_char_boundary(&self.cur, self.cur.len().saturating_sub(TAIL_BYTES));
            let starts = token_starts(&self.cur[from..]);
            let lag = starts.len().saturating_sub(self.voices.gram - 1);
            let upto = starts.get(lag).map_or(self.cur.len(), |&b| from + b);
            let upto = self.cur[..upto].trim_end().len().max(self.shown);
            step.show.push_str(&self.cur[self.shown..upto]);
            self.kept.push_str(&self.cur[self.shown..upto]);
            self.shown = upto;
        }
        step
    }

    /// The stream ended; `capped`: at its token cap. Returns the last text
    /// to show.
    pub fn finish(&mut self, capped: bool) -> String {
        let mut step = Step::default();
        if self.stopped || self.cur.is_empty() {
            return step.show;
        }
        let sentence = std::mem::take(&mut self.cur);
        let shown = std::mem::take(&mut self.shown);
        if capped && !sentence.trim().is_empty() {
            self.cuts.push(Cut {
                kind: CutKind::Capped,
                text: sentence[shown..].to_string(),
            });
            if shown > 0 {
                // Begun on screen before the cap was near: close it visibly.
                step.show.push('…');
                self.kept.push('…');
            }
            return step.show;
        }
        self.settle(&sentence, shown, &mut step);
        step.show
    }

    /// The reply as kept (markers included; the marker filter comes after).
    pub fn kept(&self) -> &str {
        &self.kept
    }

    pub fn cuts(&self) -> &[Cut] {
        &self.cuts
    }

    /// The reply was cut: what followed was void.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    fn cut(&mut self, kind: CutKind, text: &str) {
        self.cuts.push(Cut {
            kind,
            text: text.to_string(),
        });
    }

    /// Judges a whole sentence, of which `shown` bytes are on screen already.
    fn settle(&mut self, sentence: &str, shown: usize, step: &mut Step) {
        if shown > 0 {
            // Begun on screen already: that part stays. The rest was held
            // back once it began to copy (`hold`), and is judged alone.
            self.settle_tail(sentence, shown, step);
            return;
        }
        let mut s = sentence.to_string();
        // A label opens a line, or a sentence within one (`当然！小林：…`).
        if label_at_start(&s, &self.voices.others).is_some() {
            self.cut(CutKind::SpeaksAsOther, sentence);
            self.stopped = true;
            return;
        }
        if let Some(rest) = strip_label(&s, &self.voices.own) {
            self.cut(CutKind::OwnLabel, &s[..s.len() - rest.len()]);
            s = rest.to_string();
        }
        // A self-quote first: its clause may hold a colon too.
        if let Some(rest) = strip_self_attribution(&s, &self.voices.own) {
            self.cut(CutKind::SelfQuote, &s[..s.len() - rest.len()]);
            s = capitalise_first(rest);
        }
        if self.reply_start {
            if let Some(rest) = strip_preface(&s, &self.voices.own) {
                self.cut(CutKind::OwnLabel, &s[..s.len() - rest.len()]);
                s = rest.to_string();
            }
            // "Sure, I'll write Maya's reply without a name label.": an
            // answer to the turn note, not a word of the meeting.
            let head = s.find([':', '：']).map_or(s.as_str(), |c| &s[..c]);
            if is_meta(head, &self.voices.own) {
                let rest = s[head.len()..].trim_start_matches([':', '：', ' ', '*']).to_string();
                self.cut(CutKind::OwnLabel, &s[..s.len() - rest.len()]);
                if rest.trim().is_empty() {
                    return;
                }
                s = rest;
            }
            if let Some(rest) = strip_self_address(&s, &self.voices.own) {
                self.cut(CutKind::SelfQuote, &s[..s.len() - rest.len()]);
                s = capitalise_first(rest);
            }
        }
        let toks = self.voices.tokens(&s);
        let signal = self
            .voices
            .markers
            .iter()
            .find(|m| !m.is_empty() && s.trim_start().starts_with(m.as_str()));
        // A signal line may echo anything but the runtime's own words: a
        // "question" that recites the ask instruction is no question.
        let verdict = match signal {
            Some(m) => match self.copied(&self.voices.tokens(&s.trim_start()[m.len()..])) {
                Some(RUNTIME) => Some(RUNTIME),
                _ => None,
            },
            None => self.copied(&toks),
        };
        match verdict {
            Some(RUNTIME) => {
                self.cut(CutKind::RuntimeText, &s);
                self.stopped = true;
                return;
            }
            Some(EARLIER) => {
                // Dropped; a reply that was nothing else is asked for
                // again, and one that is so twice passes the round.
                self.cut(CutKind::Echo, &s);
                if !self.voices.keep_echoes {
                    return;
                }
            }
            Some(_) => {
                self.cut(CutKind::Loop, &s);
                self.stopped = true;
                return;
            }
            None => {}
        }
        if attributes(&s, &self.voices.unspoken) {
            self.cut(CutKind::Unspoken, &s);
            return;
        }
        if attributes(&s, std::slice::from_ref(&self.voices.own)) {
            self.cut(CutKind::SelfQuote, &s);
            return;
        }
        self.remember(&s);
        let text = if self.reply_start { s.trim_start().to_string() } else { s };
        self.keep(&text, step);
    }

    /// The unshown rest of a sentence begun on screen (`Kofi, I agree that`,
    /// then a copy of what Kofi said): a copied rest is dropped and the
    /// shown part closed with an ellipsis, since it cannot be taken back.
    fn settle_tail(&mut self, sentence: &str, shown: usize, step: &mut Step) {
        let rest = &sentence[shown..];
        let close = |h: &mut Self, step: &mut Step| {
            let ending = if rest.ends_with('\n') { "…\n" } else { "… " };
            step.show.push_str(ending);
            h.kept.push_str(ending);
        };
        match self.copied(&self.voices.tokens(rest)) {
            Some(RUNTIME) => {
                self.cut(CutKind::RuntimeText, rest);
                self.stopped = true;
                close(self, step);
            }
            Some(EARLIER) => {
                self.cut(CutKind::Echo, rest);
                if self.voices.keep_echoes {
                    self.remember(sentence);
                    self.keep(rest, step);
                } else {
                    self.remember(&sentence[..shown]);
                    close(self, step);
                }
            }
            Some(_) => {
                self.cut(CutKind::Loop, rest);
                self.stopped = true;
                close(self, step);
            }
            None => {
                self.remember(sentence);
                self.keep(rest, step);
            }
        }
    }

    /// The loop guard's memory of what this reply said.
    fn remember(&mut self, sentence: &str) {
        let toks = self.voices.tokens(sentence);
        self.own.extend(toks.windows(self.voices.gram).map(gram_hash));
        if is_short(toks.len(), self.voices.gram) {
            self.own_short.insert(gram_hash(&toks));
        }
    }

    fn keep(&mut self, text: &str, step: &mut Step) {
        if !text.trim().is_empty() {
            self.reply_start = false;
        }
        // Lines whose sentences were dropped leave their breaks behind: at
        // most one blank line in a row.
        let breaks = self.kept.len() - self.kept.trim_end_matches('\n').len();
        let text = if breaks >= 2 { text.trim_start_matches('\n') } else { text };
        step.show.push_str(text);
        self.kept.push_str(text);
    }

    /// Whether `toks` (a whole sentence) copies earlier text: the source
    /// (RUNTIME, EARLIER, or 0 for this reply's own earlier sentences).
    fn copied(&self, toks: &[u64]) -> Option<u8> {
        let gram = self.voices.gram;
        if is_short(toks.len(), gram) {
            let h = gram_hash(toks);
            return if self.own_short.contains(&h) {
                Some(0)
            } else {
                self.voices.short.contains(&h).then_some(EARLIER)
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

    /// Whether a run of words said before (earlier turns, the runtime's
    /// text, this reply) reaches past byte `from` of the unfinished sentence.
    fn copies_since(&mut self, from: usize) -> bool {
        if self.copy_seen {
            return true;
        }
        let gram = self.voices.gram;
        // The runs that reach past `from` start within the few words before
        // it: the text before those is never tokenised again.
        let start = floor_char_boundary(&self.cur, from.saturating_sub(TAIL_BYTES));
        let toks = self.voices.tokens(&self.cur[start..]);
        let first = self.voices.tokens(&self.cur[start..from]).len().saturating_sub(gram - 1);
        self.copy_seen = toks.get(first..).is_some_and(|t| {
            t.windows(gram).any(|w| {
                let h = gram_hash(w);
                self.voices.grams.contains_key(&h) || self.own.contains(&h)
            })
        });
        self.copy_seen
    }

    /// Whether the unfinished sentence must wait for more text.
    fn hold(&mut self) -> bool {
        if self.shown > 0 {
            // The rest streams while no run of words reaching into it was
            // said before; once one is, the sentence waits for its end.
            return self.copies_since(self.shown);
        }
        if self.cap.is_some_and(|c| self.pieces + CAP_MARGIN >= c) {
            return true;
        }
        let t = self.cur.trim_start();
        let unsettled = t.is_empty()
            || could_be_label(t, &self.voices.others)
            || could_be_label(t, std::slice::from_ref(&self.voices.own))
            || self.reply_start && (could_be_preface(t) || about_reply(t, &self.voices.own))
            // A sentence is judged whole (`settle`): one shown in part can
            // no longer be dropped, only closed early. Only a long one with
            // nothing copied so far streams before its end.
            || token_starts(&t[..floor_char_boundary(t, STREAM_AFTER * 24)]).len() < STREAM_AFTER;
        if unsettled {
            return true;
        }
        let named = mentions_any(t, &self.voices.unspoken) || mentions_any(t, std::slice::from_ref(&self.voices.own));
        named || self.copies_since(0)
    }
}

/// The end of the first whole sentence in `s`: after a line break, a CJK
/// sentence end, or `.!?` followed by white space.
fn sentence_end(s: &str) -> Option<usize> {
    sentence_end_from(s, 0)
}

/// `sentence_end`, looking from byte `from` on (a char boundary): the text
/// before it is known to hold no end.
fn sentence_end_from(s: &str, from: usize) -> Option<usize> {
    let mut it = s[from..].char_indices().map(|(i, c)| (from + i, c)).peekable();
    while let Some((i, c)) = it.next() {
        match c {
            '\n' | '。' | '！' | '？' => return Some(i + c.len_utf8()),
            '.' | '!' | '?' => {
                // `1. ` opening a line numbers a list item; it ends nothing.
                let line = &s[s[..i].rfind('\n').map_or(0, |n| n + 1)..i];
                if c == '.' && !line.trim_start().is_empty() && line.trim_start().chars().all(|d| d.is_ascii_digit()) {
                    continue;
                }
                if let Some(&(j, next)) = it.peek() {
                    if next.is_whitespace() {
                        // The space goes with this sentence, a line break too.
                        return Some(j + next.len_utf8());
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// Words (lowercased) and single CJK characters, hashed.
fn token_hashes(text: &str) -> Vec<u64> {
    let state = foldhash::fast::FixedState::with_seed(7);
    let mut out = Vec::new();
    let mut word = String::new();
    let push = |w: &str, out: &mut Vec<u64>| out.push(state.hash_one(w));
    for c in text.chars() {
        if is_cjk(c) {
            if !word.is_empty() {
                push(&word, &mut out);
                word.clear();
            }
            push(c.encode_utf8(&mut [0; 4]), &mut out);
        } else if c.is_alphanumeric() || c == '\'' || c == '’' {
            word.extend(c.to_lowercase());
        } else if !word.is_empty() {
            push(&word, &mut out);
            word.clear();
        }
    }
    if !word.is_empty() {
        push(&word, &mut out);
    }
    out
}

/// A sentence of `len` tokens is compared whole rather than by runs of
/// `gram` words: from four words (`Thank you, Kofi and Maya.`; shorter
/// ones, `I agree.`, are everyone's) up to where runs begin to count.
fn is_short(len: usize, gram: usize) -> bool {
    (4..gram + 2).contains(&len)
}

/// Bytes before a point that surely hold the few words a run of words
/// reaching past it may start with.
const TAIL_BYTES: usize = 256;

/// The largest char boundary of `s` at or below `i`.
fn floor_char_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Where each token of `token_hashes` starts, in bytes.
fn token_starts(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        if is_cjk(c) {
            out.push(i);
            in_word = false;
        } else if c.is_alphanumeric() || c == '\'' || c == '’' {
            if !in_word {
                out.push(i);
            }
            in_word = true;
        } else {
            in_word = false;
        }
    }
    out
}

fn gram_hash(w: &[u64]) -> u64 {
    w.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
        (h ^ x).wrapping_mul(0x100_0000_01b3).rotate_left(5)
    })
}

/// Markdown and list decoration, and an icon, before a label.
fn undecorated(s: &str) -> &str {
    let s = s.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '>' | '*' | '#' | '_' | '-' | '•' | '['));
    // An icon: symbols and their variation selectors, then spaces.
    let rest = s.trim_start_matches(|c: char| !c.is_alphanumeric() && !c.is_ascii() && !is_cjk(c) || c == '\u{fe0f}' || c == '\u{200d}');
    if rest.len() != s.len() {
        rest.trim_start()
    } else {
        s
    }
}

/// ASCII-case-insensitive: the caller slices `s` at `prefix.len()` after.
fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.is_char_boundary(prefix.len()) && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// What follows a name in a label: `**`, a title in parentheses, `]`, then a colon.
/// Returns the length through the colon, or None; `partial` accepts a label
/// not finished yet.
fn label_tail(rest: &str, partial: bool) -> Option<usize> {
    let mut i = 0;
    let b: Vec<char> = rest.chars().collect();
    let mut bytes = 0;
    let step = |i: &mut usize, bytes: &mut usize| {
        *bytes += b[*i].len_utf8();
        *i += 1;
    };
    while i < b.len() && matches!(b[i], '*' | '_' | ']' | ' ') {
        step(&mut i, &mut bytes);
    }
    if i < b.len() && matches!(b[i], '(' | '（') {
        let open = i;
        while i < b.len() && !matches!(b[i], ')' | '）') && i - open < 48 && b[i] != '\n' {
            step(&mut i, &mut bytes);
        }
        if i >= b.len() {
            return partial.then_some(bytes);
        }
        if !matches!(b[i], ')' | '）') {
            return None;
        }
        step(&mut i, &mut bytes);
    }
    while i < b.len() && matches!(b[i], '*' | '_' | ']' | ' ') {
        step(&mut i, &mut bytes);
    }
    if i >= b.len() {
        return partial.then_some(bytes);
    }
    matches!(b[i], ':' | '：').then(|| bytes + b[i].len_utf8())
}

/// The name whose label (`Kofi:`, `**Kofi** (Developer):`, `🛠️ Kofi：`) starts `s`.
fn label_at_start<'n>(s: &str, names: &'n [String]) -> Option<&'n str> {
    let t = undecorated(s);
    names.iter().find_map(|n| {
        (starts_with_ci(t, n) && !t[n.len()..].starts_with(|c: char| c.is_alphanumeric()) && label_tail(&t[n.len()..], false).is_some())
            .then_some(n.as_str())
    })
}

/// `s` without its leading label of `name`, if it has one.
fn strip_label<'s>(s: &'s str, name: &str) -> Option<&'s str> {
    let t = undecorated(s);
    if name.is_empty() || !starts_with_ci(t, name) || t[name.len()..].starts_with(|c: char| c.is_alphanumeric()) {
        return None;
    }
    let n = label_tail(&t[name.len()..], false)?;
    Some(t[name.len() + n..].trim_start_matches([' ', '*']))
}

/// Whether an unfinished line may still become a label of one of `names`.
fn could_be_label(t: &str, names: &[String]) -> bool {
    let t = undecorated(t);
    if t.is_empty() {
        return true;
    }
    names.iter().any(|n| {
        if t.len() < n.len() {
            n.to_lowercase().starts_with(&t.to_lowercase())
        } else {
            starts_with_ci(t, n) && !t[n.len()..].starts_with(|c: char| c.is_alphanumeric()) && label_tail(&t[n.len()..], true).is_some()
        }
    })
}

/// Words before a colon at the very start that may be a preface naming the
/// speaker (`It is my turn, Maya:`): held until the colon or the tenth word.
fn could_be_preface(t: &str) -> bool {
    !t.contains([':', '：']) && t.split_whitespace().count() < 10 && t.chars().count() < 60
}

/// `s` without an opening such as `It is my turn, Maya:` or `Maya here:`:
/// up to ten words that name the speaker, ending in a colon.
fn strip_preface<'s>(s: &'s str, own: &str) -> Option<&'s str> {
    let colon = s.find([':', '：'])?;
    let head = &s[..colon];
    if head.split_whitespace().count() > 10 || head.contains('\n') || !mentions_any(head, std::slice::from_ref(&own.to_string())) {
        return None;
    }
    let after = &s[colon..];
    let skip = after.chars().next().map_or(0, char::len_utf8);
    Some(after[skip..].trim_start_matches([' ', '*']))
}

/// Whether `s` talks about writing the reply rather than saying it
/// ("Sure, here is Maya's reply:", "好的，以下是 Maya 的发言").
fn is_meta(s: &str, own: &str) -> bool {
    let lower = s.to_lowercase();
    let writing = [
        "write",
        "writing",
        "here is",
        "here's",
        "below",
        "sure",
        "certainly",
        "okay",
        "以下",
        "好的",
        "写",
    ]
    .iter()
    .any(|w| lower.contains(w));
    about_reply(s, own) && writing && s.split_whitespace().count() <= 16
}

/// Whether `s` names the reply being written (`Maya's reply`, `my response`).
fn about_reply(s: &str, own: &str) -> bool {
    let lower = s.to_lowercase();
    let own = own.to_lowercase();
    ["reply", "response"].iter().any(|w| {
        [
            format!("{own}'s {w}"),
            format!("{own}’s {w}"),
            format!("my {w}"),
            format!("this {w}"),
        ]
        .iter()
        .any(|p| lower.contains(p.as_str()))
    }) || ["的发言", "的回复", "的回应"]
        .iter()
        .any(|w| lower.contains(&format!("{own}{w}")) || lower.contains(&format!("{own} {w}")))
}

/// `s` without an opening that greets the speaker by its own name
/// (`Hey Maya,` by Maya: the model took the turn for someone else's).
fn strip_self_address<'s>(s: &'s str, own: &str) -> Option<&'s str> {
    if own.is_empty() {
        return None;
    }
    let t = s.trim_start();
    // A greeting, or one word and a comma ("Sure, Maya."): the model took
    // the turn note for someone's request to it.
    let greetings = [
        "hi ",
        "hey ",
        "hello ",
        "dear ",
        "thanks ",
        "thank you ",
        "你好，",
        "你好",
        "嗨，",
        "嗨",
    ];
    let opener = greetings.iter().find_map(|g| strip_prefix_ci(t, g)).or_else(|| {
        let (word, rest) = t.split_once([',', '，'])?;
        (word.chars().count() <= 12 && word.chars().all(char::is_alphabetic)).then_some(rest)
    });
    let rest = opener
        .and_then(|o| strip_prefix_ci(o.trim_start(), own))
        .or_else(|| strip_prefix_ci(t, own))?;
    let mark = rest.chars().next()?;
    if ![',', '!', '，', '！', '、', '.', '。'].contains(&mark) {
        return None;
    }
    Some(rest[mark.len_utf8()..].trim_start())
}

/// `t` after `prefix`, compared without case.
fn strip_prefix_ci<'t>(t: &'t str, prefix: &str) -> Option<&'t str> {
    let mut chars = t.chars();
    for p in prefix.chars() {
        if !chars.next()?.to_lowercase().eq(p.to_lowercase()) {
            return None;
        }
    }
    Some(chars.as_str())
}

/// `s` without an opening clause that quotes the speaker as if someone else
/// (`As Maya said, …`, `正如Maya所说，…`).
fn strip_self_attribution<'s>(s: &'s str, own: &str) -> Option<&'s str> {
    if own.is_empty() {
        return None;
    }
    let t = s.trim_start();
    let opens = ["as ", "like ", "正如", "如同", "就像"]
        .iter()
        .any(|p| strip_prefix_ci(t, p).is_some_and(|r| strip_prefix_ci(r.trim_start(), own).is_some()));
    if !opens {
        return None;
    }
    let comma = t.find([',', '，', ':', '：'])?;
    if t[..comma].split_whitespace().count() > 8 {
        return None;
    }
    let skip = t[comma..].chars().next().map_or(0, char::len_utf8);
    Some(t[comma + skip..].trim_start())
}

fn capitalise_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Whether `s` names one of `names` as a whole word.
fn mentions_any(s: &str, names: &[String]) -> bool {
    let lower = s.to_lowercase();
    names.iter().filter(|n| !n.is_empty()).any(|n| {
        let n = n.to_lowercase();
        lower.match_indices(&n).any(|(i, _)| {
            let before = lower[..i].chars().next_back();
            let after = lower[i + n.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() && !is_cjk(c)) && !after.is_some_and(|c| c.is_alphanumeric() && !is_cjk(c))
        })
    })
}

/// How a sentence attributes a view to `{n}`.
const ATTRIBUTION: &[&str] = &[
    "as {n} ",
    "as {n},",
    "like {n} ",
    "like {n},",
    "with {n} that",
    "agree with {n}",
    "agreed with {n}",
    "{n}'s point",
    "{n}’s point",
    "{n}'s idea",
    "{n}’s idea",
    "{n}'s suggestion",
    "{n}’s suggestion",
    "{n}'s concern",
    "{n}’s concern",
    "{n}'s view",
    "{n}’s view",
    "{n} said",
    "{n} says",
    "{n} mentioned",
    "{n} noted",
    "{n} pointed out",
    "{n} suggested",
    "{n} argued",
    "{n} raised",
    "{n} brought up",
    "{n} emphasi",
    "{n} highlighted",
    "{n} is right",
    "{n} made a",
    "build on {n}",
    "building on {n}",
    "echo {n}",
    "echoing {n}",
    "正如{n}",
    "如同{n}",
    "同意{n}",
    "赞同{n}",
    "认同{n}",
    "{n}说",
    "{n}所说",
    "{n}提到",
    "{n}指出",
    "{n}认为",
    "{n}建议",
    "{n}的观点",
    "{n}的建议",
    "{n}强调",
    "{n}的看法",
    "{n}提出",
];

/// Whether `s` attributes a view to one of `names` (`I agree with Priya`,
/// `as Priya said`). Addressing them (`Priya, what do you think?`) is not.
fn attributes(s: &str, names: &[String]) -> bool {
    if !mentions_any(s, names) {
        return false;
    }
    let lower = format!("{} ", s.to_lowercase());
    names.iter().filter(|n| !n.is_empty()).any(|n| {
        let n = n.to_lowercase();
        ATTRIBUTION.iter().any(|p| lower.contains(&p.replace("{n}", &n)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn voices() -> Voices {
        Voices::new(
            "Maya",
            vec!["Kofi".into(), "Priya".into(), "Sam".into(), "Facilitator".into()],
            vec!["Priya".into()],
            false,
        )
        .runtime("Reply now as Maya only: your own words, no name label, two to five sentences.")
        .earlier("We should ship the smallest thing that could work and measure it in production.")
    }

    /// Feeds `reply` in pieces of `n` characters; returns (shown, kept, cut kinds, stopped).
    fn run(reply: &str, n: usize, cap: Option<u32>, capped: bool) -> (String, String, Vec<CutKind>, bool) {
        let v = voices();
        let mut h = Hygiene::new(&v, cap);
        let chars: Vec<char> = reply.chars().collect();
        let mut shown = String::new();
        let mut stopped = false;
        for piece in chars.chunks(n) {
            let step = h.push(&piece.iter().collect::<String>());
            shown.push_str(&step.show);
            if step.stop {
                stopped = true;
                break;
            }
        }
        shown.push_str(&h.finish(capped));
        let kinds = h.cuts().iter().map(|c| c.kind).collect();
        (shown, h.kept().to_string(), kinds, stopped || h.stopped())
    }

    #[test]
    fn token_starts_match_the_tokens() {
        for s in ["", "Kofi's plan, v2 — ship it!", "我们 should 试试 MVP。", "  a  b\n\nc "] {
            assert_eq!(token_starts(s).len(), token_hashes(s).len(), "{s:?}");
        }
        assert_eq!(token_starts("ab 我们c"), [0, 3, 6, 9]);
    }

    #[test]
    fn a_plain_reply_passes_whole_and_streams() {
        let reply = "Boring tech wins here. Kofi is right that we measure first, and I would add user interviews.";
        for n in [1, 3, 7, 100] {
            let (shown, kept, cuts, stopped) = run(reply, n, None, false);
            assert_eq!(shown, reply, "pieces of {n}");
            assert_eq!(kept, reply);
            assert!(cuts.is_empty() && !stopped, "{cuts:?}");
        }
        // Streams: most of the first sentence is out before the reply ends.
        let v = voices();
        let mut h = Hygiene::new(&v, None);
        let mut out = String::new();
        let long = "Boring tech wins here because nobody on a team of five has to learn it again, \
                    nobody has to be paged for it at night, and every library we need already speaks to it";
        for w in long.split_inclusive(' ') {
            out.push_str(&h.push(w).show);
        }
        assert!(out.len() > 100, "shown while streaming: {out:?}");
        // The last words wait: a copy may be starting there.
        assert!(!out.contains("speaks"), "{out:?}");
    }

    #[test]
    fn speaking_as_another_cuts_the_reply_and_is_never_shown() {
        for reply in [
            "I like it.\nKofi: And I agree with myself.",
            "I like it.\n**Kofi** (Senior Developer): Me too.",
            "I like it.\n🛠️ Kofi: Me too.",
            "I like it.\nSam: thanks all!",
            "I like it.\nFacilitator: next?",
        ] {
            for n in [1, 2, 5, 50] {
                let (shown, kept, cuts, stopped) = run(reply, n, None, false);
                assert_eq!(shown, "I like it.\n", "{reply:?} in pieces of {n}");
                assert_eq!(kept, shown);
                assert_eq!(cuts, [CutKind::SpeaksAsOther]);
                assert!(stopped);
            }
        }
    }

    #[test]
    fn naming_someone_mid_line_or_addressing_them_is_speech() {
        for reply in [
            "Kofi, I hear you: measure first.",
            "We differ here, Kofi: I would not wait.",
            "Kofiko: a product name.",
        ] {
            let (shown, _, cuts, _) = run(reply, 3, None, false);
            assert_eq!(shown, reply);
            assert!(cuts.is_empty(), "{reply}: {cuts:?}");
        }
    }

    #[test]
    fn own_labels_and_prefaces_are_removed() {
        assert_eq!(run("Maya: Research first.", 2, None, false).0, "Research first.");
        assert_eq!(
            run("**Maya** (Business Analyst): Research first.", 4, None, false).0,
            "Research first."
        );
        assert_eq!(run("It is my turn, Maya: research first.", 3, None, false).0, "research first.");
        let (shown, _, cuts, _) = run("As Maya said, research comes first.", 2, None, false);
        assert_eq!(shown, "Research comes first.");
        assert_eq!(cuts, [CutKind::SelfQuote]);
        let (shown, _, cuts, _) = run("Hey Maya, great question! Research first.", 3, None, false);
        assert_eq!(shown, "Great question! Research first.");
        assert_eq!(cuts, [CutKind::SelfQuote]);
        assert_eq!(
            run("Maya, thank you. Research first.", 2, None, false).0,
            "Thank you. Research first."
        );
        // Greeting someone else is fine; so is the name later on.
        assert_eq!(run("Hey Kofi, research first.", 2, None, false).0, "Hey Kofi, research first.");
        assert_eq!(run("Mayans, research first.", 2, None, false).0, "Mayans, research first.");
    }

    #[test]
    fn talk_about_writing_the_reply_is_removed() {
        for reply in [
            "Sure, I'll write Maya's reply without a name label. Research first.",
            "Here is my reply: Research first.",
            "Okay, here's Maya's response.\nResearch first.",
        ] {
            let (shown, _, cuts, _) = run(reply, 3, None, false);
            assert_eq!(shown.trim_start(), "Research first.", "{reply}");
            assert!(cuts.contains(&CutKind::OwnLabel), "{reply}: {cuts:?}");
        }
        // Later on, or about someone else's reply, it is speech.
        let keep = "Research first. Sure, I'll write my reply to the board tonight.";
        assert_eq!(run(keep, 3, None, false).0, keep);
        let keep = "Sure, Kofi's reply covers cost, and I would add research.";
        assert_eq!(run(keep, 3, None, false).0, keep);
    }

    #[test]
    fn a_marker_line_reciting_the_runtime_is_cut() {
        let mut v = voices();
        v.markers = vec!["!?@human".into()];
        let mut h = Hygiene::new(&v, None);
        let shown = h.push("Research first.\n!?@human Which users matter most?\n").show + &h.finish(false);
        assert!(shown.contains("!?@human Which users"), "{shown}");
        let mut h = Hygiene::new(&v, None);
        let shown = h
            .push("Research first.\n!?@human your own words, no name label, two to five sentences.\n")
            .show
            + &h.finish(false);
        assert_eq!(shown, "Research first.\n");
        assert_eq!(h.cuts().iter().map(|c| c.kind).collect::<Vec<_>>(), [CutKind::RuntimeText]);
    }

    #[test]
    fn runtime_text_cuts_the_reply() {
        let (shown, _, cuts, stopped) = run(
            "Research first. Reply now as Maya only: your own words, no name label.",
            2,
            None,
            false,
        );
        assert_eq!(shown, "Research first. ");
        assert_eq!(cuts, [CutKind::RuntimeText]);
        assert!(stopped);
    }

    #[test]
    fn echoes_are_dropped_and_loops_cut() {
        let echo = "Yes. We should ship the smallest thing that could work and measure it in production. But talk to users.";
        let (shown, _, cuts, _) = run(echo, 3, None, false);
        assert_eq!(shown, "Yes. But talk to users.");
        assert_eq!(cuts, [CutKind::Echo]);
        // The same with the names swapped is the same copy.
        let v = voices().earlier("Kofi: I agree with Priya's plan to ship in June.");
        let mut h = Hygiene::new(&v, None);
        let shown = h.push("I agree with Kofi's plan to ship in June. And measure.").show + &h.finish(false);
        assert_eq!(shown, "And measure.");
        // Sentences are judged whole: a reaction that goes on to copy is
        // never shown in part.
        let copy =
            "Right. Kofi, I agree that we should ship the smallest thing that could work and measure it in production. But talk to users.";
        for n in [1, 3, 8] {
            assert_eq!(run(copy, n, None, false).0, "Right. But talk to users.", "pieces of {n}");
        }
        // A long sentence streams; should a copy start late in it, the copy
        // is never shown, and what was shown is closed.
        let late = "Right. Kofi, I agree, and having watched three teams struggle with exactly this trade-off over the \
                    last two years in fintech, I think that we should ship the smallest thing that could work and \
                    measure it in production. But talk to users.";
        for n in [1, 3, 8] {
            let (shown, _, cuts, _) = run(late, n, None, false);
            assert!(
                shown.contains("in fintech") && shown.ends_with("… But talk to users."),
                "pieces of {n}: {shown:?}"
            );
            assert!(!shown.contains("smallest thing"), "pieces of {n}: {shown:?}");
            assert_eq!(cuts, [CutKind::Echo]);
        }
        // Stock lines too short for runs of words are compared whole, the
        // names being one word: said before, or twice, they go.
        let v = voices().earlier("Thank you, Kofi and Sam. Ship it.");
        let mut h = Hygiene::new(&v, None);
        let shown = h
            .push("Thank you, Priya and Kofi. Measure it first, always. Measure it first, always. And more.")
            .show
            + &h.finish(false);
        assert_eq!(shown, "Measure it first, always. ");
        assert_eq!(h.cuts().iter().map(|c| c.kind).collect::<Vec<_>>(), [CutKind::Echo, CutKind::Loop]);
        // Dropped lines leave no run of blank lines behind.
        let (shown, _, _, _) = run(
            "Yes.\n\nWe should ship the smallest thing that could work and measure it in production.\n\nBut talk to users.",
            3,
            None,
            false,
        );
        assert_eq!(shown, "Yes.\n\nBut talk to users.");
        // A list's numbers stay with their items.
        let list = "Two things.\n1. Interview users first.\n2. We should ship the smallest thing that could work and measure it in production.\n3. Price it.";
        assert_eq!(run(list, 2, None, false).0, "Two things.\n1. Interview users first.\n3. Price it.");
        // On a second try echoes are kept, and still counted.
        let mut v = voices();
        v.keep_echoes = true;
        let mut h = Hygiene::new(&v, None);
        let shown = h.push(echo).show + &h.finish(false);
        assert_eq!(shown, echo);
        assert_eq!(h.cuts().iter().map(|c| c.kind).collect::<Vec<_>>(), [CutKind::Echo]);
        let (shown, _, cuts, stopped) = run(
            "Interview five users before the design review. Then decide. Interview five users before the design review. Then",
            4,
            None,
            false,
        );
        assert_eq!(shown, "Interview five users before the design review. Then decide. ");
        assert_eq!(cuts, [CutKind::Loop]);
        assert!(stopped);
    }

    #[test]
    fn views_of_agents_who_have_not_spoken_are_dropped() {
        let (shown, _, cuts, _) = run("I agree with Priya that research comes first. Let us start Monday.", 3, None, false);
        assert_eq!(shown, "Let us start Monday.");
        assert_eq!(cuts, [CutKind::Unspoken]);
        let (shown, _, cuts, _) = run("Priya, what do you think about research?", 3, None, false);
        assert_eq!(shown, "Priya, what do you think about research?");
        assert!(cuts.is_empty());
    }

    #[test]
    fn a_capped_reply_ends_at_its_last_full_sentence_and_never_shows_the_rest() {
        let reply = "One. Two is a longer sentence that goes on and on and on and on";
        let (shown, kept, cuts, _) = run(reply, 1, Some(10), true);
        assert_eq!(shown, "One. ");
        assert_eq!(kept, "One. ");
        assert_eq!(cuts, [CutKind::Capped]);
    }

    #[test]
    fn chinese_replies() {
        let v = Voices::new("Maya", vec!["Kofi".into(), "小林".into()], vec!["Priya".into()], true)
            .earlier("我们应该先发布最小可用版本，然后在生产环境中测量效果。");
        let mut h = Hygiene::new(&v, None);
        let mut shown = String::new();
        for c in "我同意先做调研。我们应该先发布最小可用版本，然后在生产环境中测量效果。\n小林：谢谢大家".chars()
        {
            shown.push_str(&h.push(&c.to_string()).show);
        }
        shown.push_str(&h.finish(false));
        assert_eq!(shown.trim_end(), "我同意先做调研。");
        assert_eq!(
            h.cuts().iter().map(|c| c.kind).collect::<Vec<_>>(),
            [CutKind::Echo, CutKind::SpeaksAsOther]
        );
    }
}
