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

use foldhash::HashSet;

pub(crate) use addressee::for_the_room;
pub(crate) use asks::asks_for_list;
pub(crate) use cut::{Counter, Cut, CutKind};
pub(crate) use level::Level;
pub(crate) use level::{choose as choose_level, ModelFacts, Why};
pub(crate) use sentences::first_sentences;
pub(crate) use verdict::Left;
pub(crate) use voices::{TokenMemo, Voices};

mod addressee;
mod asks;
mod blocks;
mod copies;
mod cut;
#[cfg(test)]
mod fixture_tests;
mod headings;
mod labels;
pub(crate) mod language;
pub(crate) mod level;
mod lists;
mod marked;
mod opening;
mod phrases;
mod quotes;
mod rules;
mod sentences;
#[cfg(test)]
mod tests;
mod verdict;
mod voices;

use labels::capitalise_first;
use rules::{Does, RULES};
use sentences::{floor_char_boundary, gram_hash, is_short, rescan_from, sentence_end_from, token_starts, TAIL_BYTES};

/// What one piece of a reply gives.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Step {
    /// Text that is final and may be shown.
    pub show: String,
    /// The reply was cut: nothing after this matters, the stream may stop.
    pub stop: bool,
}

pub(crate) struct Cleanup {
    /// Owned: a reply in the making lives beside others (a concurrent
    /// round), none of them borrowing from the round that started it.
    voices: Voices,
    /// Which rules apply (`level.rs`); `Off` passes every piece through.
    level: Level,
    /// The sentence being written, not yet judged.
    cur: String,
    /// Bytes of `cur` already shown: such a sentence can no longer be dropped.
    shown: usize,
    /// Nothing has been kept yet.
    reply_start: bool,
    /// A copied statement was cut (or a sentence leaning on one) and no
    /// words were kept since: what comes next may lean on what is gone
    /// ("By doing so, …"), at the reply's start or after kept words alike.
    after_copy: bool,
    /// Interjections and acknowledgements opening the reply, unshown
    /// until the next sentence shows what they opened (`opening.rs`).
    opener: Option<String>,
    /// The held opening thanks, agrees or announces what follows: alone,
    /// it is a stub.
    opener_acknowledges: bool,
    /// A heading, unshown until a word under it is kept: what it headed
    /// may all be cut (`rules.rs`, `Does::HoldHeading`).
    heading: Option<headings::HeldHeading>,
    kept: String,
    /// Kept sentences that take up what one who spoke said, in their words
    /// (`names_who_spoke`).
    took_up: String,
    /// Runs of words of the kept sentences (the loop guard), the short
    /// ones whole, and the long ones whole (a reply saying itself again).
    own: HashSet<u64>,
    own_short: HashSet<u64>,
    own_whole: HashSet<u64>,
    stopped: bool,
    /// The cut that ended the reply (its place in `cuts`).
    stop_cut: Option<usize>,
    /// The stream is over: the sentence judged now is the reply's last.
    ending: bool,
    cuts: Vec<Cut>,
    /// A copied run reaches into the unshown part of `cur`: it stays so
    /// while `cur` grows, so it is not looked for again (a long reply's
    /// sentence is not scanned once per piece).
    copy_seen: std::cell::Cell<bool>,
    /// The last sentence `copy_source` judged, with the size of the reply's
    /// own runs then and the answer: three rules ask of one sentence. The
    /// runs only grow, so an equal size is the same runs.
    copy_memo: std::cell::RefCell<Option<(String, usize, Option<u8>)>>,
    /// The closing mark of a quotation whose opening mark was cut at the
    /// reply's start (`quotes.rs`): it goes where it comes.
    wrap: Option<char>,
    /// Bytes of `cur` known to hold no sentence end.
    scanned: usize,
    /// `cur` opens a line (`blocks.rs` reads a line's opening).
    line_start: bool,
    /// `cur` goes on a line of a code block, a table or a quotation: it
    /// passes as it comes, to the line's end.
    block_line: bool,
    /// Inside a fenced code block: its fence.
    fence: Option<blocks::Fence>,
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

impl Cleanup {
    pub(crate) fn new(voices: &Voices, cap: Option<u32>, level: Level) -> Cleanup {
        Cleanup {
            voices: voices.clone(),
            level,
            cur: String::new(),
            shown: 0,
            reply_start: true,
            after_copy: false,
            opener: None,
            opener_acknowledges: false,
            heading: None,
            kept: String::new(),
            took_up: String::new(),
            own: HashSet::default(),
            own_short: HashSet::default(),
            own_whole: HashSet::default(),
            copy_seen: std::cell::Cell::new(false),
            copy_memo: std::cell::RefCell::new(None),
            wrap: None,
            scanned: 0,
            line_start: true,
            block_line: false,
            fence: None,
            stopped: false,
            stop_cut: None,
            ending: false,
            cuts: Vec::new(),
            pieces: 0,
            cap,
        }
    }

    /// The same rules for a reply written afresh (the server's retry).
    pub(crate) fn restart(&mut self) {
        *self = Cleanup::new(&self.voices, self.cap, self.level);
    }

    /// Feeds one streamed piece.
    pub(crate) fn push(&mut self, piece: &str) -> Step {
        let mut step = Step::default();
        if self.stopped {
            step.stop = true;
            return step;
        }
        if self.level == Level::Off {
            self.kept.push_str(piece);
            step.show.push_str(piece);
            return step;
        }
        self.pieces += 1;
        self.cur.push_str(piece);
        loop {
            match self.take_block(&mut step, false) {
                blocks::Block::Passed => continue,
                blocks::Block::Wait => return step,
                blocks::Block::Prose => {}
            }
            let Some(end) = sentence_end_from(&self.cur, self.scanned.min(self.cur.len())) else {
                break;
            };
            let sentence = self.cur[..end].to_string();
            self.cur.replace_range(..end, "");
            self.line_start = sentence.ends_with('\n');
            self.copy_seen.set(false);
            self.scanned = 0;
            let shown = std::mem::take(&mut self.shown).min(sentence.len());
            self.settle(&sentence, shown, &mut step);
            if self.stopped {
                self.cur.clear();
                step.stop = true;
                return step;
            }
        }
        // No end so far; the last characters may still become one (`.`
        // before the next piece's space, `。”` before the next word).
        self.scanned = rescan_from(&self.cur);
        if !self.cur.is_empty() && !self.hold() {
            // The last few words wait: a copy is only seen once a whole run
            // of words is in, and none of it may be on screen by then. So
            // do trailing spaces: an ellipsis may have to close the text.
            let from = floor_char_boundary(&self.cur, self.cur.len().saturating_sub(TAIL_BYTES));
            let starts = token_starts(&self.cur[from..]);
            let lag = starts.len().saturating_sub(self.voices.gram - 1);
            let upto = starts.get(lag).map_or(self.cur.len(), |&b| from + b);
            let upto = self.cur[..upto].trim_end().len().max(self.shown);
            if upto > self.shown {
                self.release_opener(&mut step);
                let point = lists::is_point(&self.cur[self.shown..upto]);
                self.settle_heading(point, &mut step);
            }
            step.show.push_str(&self.cur[self.shown..upto]);
            self.kept.push_str(&self.cur[self.shown..upto]);
            self.shown = upto;
        }
        step
    }

    /// The stream ended; `capped`: at its token cap. Returns the last text
    /// to show.
    pub(crate) fn finish(&mut self, capped: bool) -> String {
        let mut step = Step::default();
        self.settle_last(capped, &mut step);
        // Thanks or a yes and nothing after: no turn. A lone "Sure!" that
        // nothing dropped after it is the speaker's own.
        self.drop_stub_opener();
        self.release_opener(&mut step);
        self.drop_heading();
        step.show
    }

    fn settle_last(&mut self, capped: bool, step: &mut Step) {
        // Blocks are never cut: what is left of one passes.
        while !self.stopped && matches!(self.take_block(step, true), blocks::Block::Passed) {}
        if self.stopped || self.cur.is_empty() {
            return;
        }
        let sentence = std::mem::take(&mut self.cur);
        let shown = std::mem::take(&mut self.shown);
        self.ending = true;
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
            return;
        }
        self.settle(&sentence, shown, step);
    }

    /// The reply as kept (markers included; the marker filter comes after).
    pub(crate) fn kept(&self) -> &str {
        &self.kept
    }

    pub(crate) fn cuts(&self) -> &[Cut] {
        &self.cuts
    }

    /// Whether most of what the model wrote was cut as copies of earlier
    /// turns (`verdict::mostly_echo`). Copies kept on screen
    /// (`Voices::keep_echoes`) do not count: they were said.
    pub(crate) fn mostly_echo(&self, shown: &str) -> bool {
        verdict::mostly_echo(shown, &self.cuts, false)
    }

    /// Whether a reply that keeps its copies on screen (the moderator's
    /// summary) showed little but them: it sums up nothing.
    pub(crate) fn kept_copies(&self, shown: &str) -> bool {
        self.voices.keep_echoes && verdict::mostly_echo(shown, &self.cuts, true)
    }

    /// What is left of the reply, judged whole once the stream is over.
    /// With cleanup off, a reply is the model's whatever it says: only an
    /// empty one is no turn.
    pub(crate) fn left(&self, shown: &str) -> Left {
        match self.level {
            Level::Off if shown.trim().is_empty() => Left::Empty,
            Level::Off => Left::Speech,
            _ => verdict::left(shown, &self.cuts, &self.took_up, self.voices.language),
        }
    }

    /// The reply was cut: what followed was void.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }

    /// The rule that ended the reply, if one did: its cut.
    pub(crate) fn stopped_by(&self) -> Option<&Cut> {
        self.stop_cut.and_then(|i| self.cuts.get(i))
    }

    /// The cut just made ends the reply.
    fn stop_here(&mut self) {
        self.stopped = true;
        self.stop_cut = self.cuts.len().checked_sub(1);
    }

    /// The level its rules are of.
    pub(crate) fn level(&self) -> Level {
        self.level
    }

    fn cut(&mut self, kind: CutKind, text: &str) {
        let cut = Cut {
            kind,
            text: text.to_string(),
        };
        // Set by a copied statement (or a sentence leaning on one), cleared
        // only by words kept: a strip or another drop between them leaves it.
        self.after_copy |= self.is_copied_statement(&cut);
        // A quotation's opening mark cut awaits its closing one; that one
        // cut, none is awaited.
        if kind == CutKind::OwnLabel {
            self.wrap = match self.wrap {
                Some(close) if text.chars().eq([close]) => None,
                awaited => quotes::closing_of(text).or(awaited),
            };
        }
        self.cuts.push(cut);
    }

    /// Judges a whole sentence, of which `shown` bytes are on screen
    /// already, by walking the rule table (`rules.rs`).
    fn settle(&mut self, sentence: &str, shown: usize, step: &mut Step) {
        if shown > 0 {
            // Begun on screen already: that part stays. The rest was held
            // back once it began to copy (`hold`), and is judged alone.
            self.settle_tail(sentence, shown, step);
            return;
        }
        let mut s = sentence.to_string();
        // A strip cuts after it: the marker stays where it was.
        let lead = self.marker_lead(&s);
        for rule in RULES {
            if !rule.applies(self) {
                continue;
            }
            let Some(at) = rule.check_past_marker(self, &s, lead) else {
                continue;
            };
            tracing::debug!(rule = rule.name, "a reply rule applies");
            match rule.does {
                Does::Hold => {
                    // A heading held before it is shown first, in its place.
                    self.settle_heading(lists::is_point(&s), step);
                    self.hold_opener(&s);
                    return;
                }
                Does::HoldHeading => {
                    self.hold_heading(s);
                    return;
                }
                Does::Stop => {
                    self.cut(rule.kind, &s[at]);
                    self.stop_here();
                    return;
                }
                // The moderator and written replies keep what they echo
                // (counted all the same): asking again would not change it.
                Does::Drop if rule.kind == CutKind::Echo && self.voices.keep_echoes => self.cut(rule.kind, &s[at]),
                Does::Drop => {
                    // An interjection goes with it; thanks or a yes are
                    // judged on their own (a stub when nothing follows).
                    let opener = if rule.takes_opener && !self.opener_acknowledges {
                        self.opener.take()
                    } else {
                        None
                    };
                    // A point of a list under the held heading gone.
                    if let Some(held) = self.heading.as_mut() {
                        held.points_lost |= lists::after_list_mark(&s).is_some() && at.end == s.len();
                    }
                    self.cut(rule.kind, &[opener.as_deref().unwrap_or(""), &s[at]].concat());
                    return;
                }
                Does::Strip { capitalise } => {
                    self.cut(rule.kind, &s[at.clone()]);
                    if rule.takes_opener {
                        if let Some(opener) = self.opener.take() {
                            self.cut(CutKind::OwnLabel, opener.trim());
                            self.opener_acknowledges = false;
                        }
                    }
                    s.replace_range(at.clone(), "");
                    if capitalise {
                        s = [&s[..at.start], &capitalise_first(&s[at.start..])].concat();
                    }
                    if s.trim().is_empty() {
                        return;
                    }
                }
            }
        }
        // A take-up is kept, and counted apart: a turn of nothing else
        // says nothing of its own (`verdict::left`). Asked before the
        // sentence joins the reply's own words.
        if self.level == Level::Full && self.names_who_spoke(&s) && self.copy_source(&s) == Some(voices::EARLIER) {
            self.took_up.push_str(&s);
        }
        self.remember(&s);
        let text = if self.reply_start && self.opener.is_none() {
            s.trim_start().to_string()
        } else {
            s
        };
        self.keep(&text, step);
    }

    /// The unshown rest of a sentence begun on screen (`Kofi, I agree that`,
    /// then a copy of what Kofi said), judged by the table's `tail` rows: a
    /// part stripped goes; a rest dropped or stopped is replaced by an
    /// ellipsis closing the shown part, since that cannot be taken back.
    fn settle_tail(&mut self, sentence: &str, shown: usize, step: &mut Step) {
        let mut rest = sentence[shown..].to_string();
        let close = |h: &mut Self, rest: &str, step: &mut Step| {
            let ending = if rest.ends_with('\n') { "…\n" } else { "… " };
            step.show.push_str(ending);
            h.kept.push_str(ending);
        };
        for rule in RULES.iter().filter(|r| r.tail) {
            if !rule.applies(self) {
                continue;
            }
            match rule.does {
                // The closing words stay unshown as a sentence's last words do.
                // Each row reads the sentence as the rows before left it.
                Does::Strip { .. } => {
                    let now = [&sentence[..shown], rest.as_str()].concat();
                    if let Some(at) = (rule.check)(self, &now).filter(|at| at.start >= shown) {
                        self.cut(rule.kind, &now[at.clone()]);
                        rest.replace_range(at.start - shown..at.end - shown, "");
                    }
                }
                _ => {
                    let Some(at) = (rule.check)(self, &rest) else {
                        continue;
                    };
                    self.cut(rule.kind, &rest[at]);
                    if rule.kind == CutKind::Echo && self.voices.keep_echoes {
                        break;
                    }
                    if rule.does == Does::Stop {
                        self.stop_here();
                    } else {
                        self.remember(&sentence[..shown]);
                    }
                    close(self, &rest, step);
                    return;
                }
            }
        }
        self.remember(sentence);
        self.keep(&rest, step);
    }

    /// Inside a code block (an odd number of fences kept): no line is a heading.
    pub(super) fn in_code(&self) -> bool {
        self.kept.matches("```").count() % 2 == 1
    }

    /// What was kept but the marker lines: the reply's words.
    pub(super) fn kept_words(&self) -> String {
        self.kept.lines().filter(|l| !self.is_marker_line(l)).collect::<Vec<_>>().join("\n")
    }

    /// The loop guard's memory of what this reply said.
    fn remember(&mut self, sentence: &str) {
        let toks = self.voices.tokens(sentence);
        self.own.extend(toks.windows(self.voices.gram).map(gram_hash));
        if is_short(toks.len(), self.voices.gram) {
            self.own_short.insert(gram_hash(&toks));
        }
        if toks.len() >= 2 * self.voices.gram {
            self.own_whole.insert(gram_hash(&toks));
        }
    }

    /// Whether `sentence` is one this reply kept before, word for word,
    /// and long enough (eight words, twelve CJK characters) that no one
    /// says it twice in a turn: the reply going round again.
    pub(super) fn said_again(&self, sentence: &str) -> bool {
        let toks = self.voices.tokens(sentence);
        toks.len() >= 2 * self.voices.gram && self.own_whole.contains(&gram_hash(&toks))
    }

    fn keep(&mut self, text: &str, step: &mut Step) {
        // A marker line alone (the end marker after "Thank you, Kofi.") is a
        // signal, no words: it passes on for the marker filter, and a held
        // opening still waits to be judged (alone, a stub).
        if self.is_marker_line(text) {
            // What a held heading announced (the question after the ask
            // marker) follows the marker: the heading stays above it, unless
            // the points of its list were cut.
            self.settle_heading(false, step);
            step.show.push_str(text);
            self.kept.push_str(text);
            return;
        }
        if text.trim().is_empty() {
            // A line break after a held heading waits with it.
            if let Some(held) = self.heading.as_mut() {
                held.text.push_str(text);
                return;
            }
            // A line break after a held opening waits with it.
            if let Some(opener) = self.opener.as_mut() {
                let breaks = opener.len() - opener.trim_end_matches('\n').len();
                opener.push_str(if breaks >= 2 { text.trim_start_matches('\n') } else { text });
                return;
            }
        } else {
            self.release_opener(step);
            self.settle_heading(lists::is_point(text), step);
            self.reply_start = false;
            self.after_copy = false;
        }
        // Lines whose sentences were dropped leave their breaks behind: at
        // most one blank line in a row.
        let breaks = self.kept.len() - self.kept.trim_end_matches('\n').len();
        let text = if breaks >= 2 { text.trim_start_matches('\n') } else { text };
        step.show.push_str(text);
        self.kept.push_str(text);
    }

    /// Whether the unfinished sentence must wait for more text: while it
    /// could still turn out to break a rule (the table's twins), and while
    /// it is short, since a sentence is judged whole (`settle`): one shown
    /// in part can no longer be dropped, only closed early.
    fn hold(&self) -> bool {
        if self.shown > 0 {
            // The rest streams while no run of words reaching into it was
            // said before; once one is, the sentence waits for its end.
            return self.copies_since(self.shown);
        }
        if self.cap.is_some_and(|c| self.pieces + CAP_MARGIN >= c) {
            return true;
        }
        let t = self.cur.trim_start();
        // Only a long one with nothing copied so far streams before its end.
        t.is_empty() || token_starts(&t[..floor_char_boundary(t, STREAM_AFTER * 24)]).len() < STREAM_AFTER || {
            let lead = self.marker_lead(t);
            RULES.iter().any(|r| r.applies(self) && r.could_become_past_marker(self, t, lead))
        }
    }
}
