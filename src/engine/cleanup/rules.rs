//! The reply rules as one table, in the order a sentence meets them. Each
//! row says what it cuts (its kind, for the session file's counters), where
//! it applies, what it does, its check on a whole sentence and its "could
//! still become" twin on an unfinished one. `Cleanup::settle` walks the
//! table for every sentence, and `Cleanup::hold` asks every twin whether
//! an unfinished sentence must wait; the part of a sentence already shown
//! is judged by the rows marked `tail`. Which words a check matches is data
//! (`phrases/*.toml`); a new kind of rule is a new row here.
//!
//! `docs/cleanup.md` lists these rows; a test there keeps it so.

use std::ops::Range;

use super::labels::{self, could_be_label, could_be_preface, label_at_start, mentions_any};
use super::level::Level;
use super::lists;
use super::opening;
use super::quotes;
use super::voices::{EARLIER, RUNTIME};
use super::{Cleanup, CutKind};
use crate::engine::protocol::label::strip_label;

/// Where in a reply a rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// Any sentence.
    Sentence,
    /// A sentence on a line of its own (nothing before it on its line).
    OwnLine,
    /// While nothing of the reply has been kept.
    ReplyStart,
}

/// What a rule does to a sentence that breaks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Does {
    /// The sentence goes; the reply goes on.
    Drop,
    /// The sentence goes, and the rest of the reply with it.
    Stop,
    /// A part of the sentence goes (the check's range); the rest is judged
    /// on, its first letter capitalised where `Strip { capitalise }`.
    Strip { capitalise: bool },
    /// Nothing is cut yet: the sentence waits, unshown, for the next one to
    /// show what it opened (`opening.rs`).
    Hold,
    /// Nothing is cut yet: the heading waits, unshown, for a word under
    /// it; another heading or the reply's end first, and it goes.
    HoldHeading,
}

/// One reply rule.
pub(crate) struct Rule {
    /// Its name in `docs/cleanup.md`'s table.
    pub name: &'static str,
    pub kind: CutKind,
    pub place: Place,
    pub does: Does,
    /// Whether a whole sentence breaks the rule: the range of what goes.
    pub check: fn(&Cleanup, &str) -> Option<Range<usize>>,
    /// Whether an unfinished sentence (its start, trimmed) could still
    /// turn out to break it: then it waits for its end.
    pub could_become: fn(&Cleanup, &str) -> bool,
    /// Also judges the unshown rest of a sentence begun on screen.
    pub tail: bool,
    /// A strip at the reply's start that answered the turn note, or a
    /// sentence dropped as an assistant's ("Sure! I understand."): a held
    /// interjection before it was part of it, and goes with it (held
    /// thanks stay: they are judged as a stub or shown with what follows).
    pub takes_opener: bool,
    /// Reads a line that opens with a marker from the words after it: the
    /// strips (the marker stays), and the lines of another (`!?@human
    /// Amara: …` is Amara's line, marker and all).
    pub past_marker: bool,
    /// Also at the light level (`level.rs`): what keeps any model's reply
    /// one voice. Every rule applies at the full level.
    pub light: bool,
}

/// The whole of `s`, trimmed.
fn whole(s: &str) -> Range<usize> {
    let start = s.len() - s.trim_start().len();
    start..s.trim_end().len().max(start)
}

/// Whether the reply has made the points of a list a turn makes.
fn points_made(h: &Cleanup) -> bool {
    h.voices
        .points
        .is_some_and(|n| super::blocks::prose_lines(&h.kept).filter(|l| lists::is_point(l)).count() >= n)
}

/// A yes (or, with `closing`, a closing word) that names nobody, after
/// the speaker's own words: the next one's nod written for them. Both
/// "yes alone" rules ask it, so they cannot drift apart.
fn nod_after_own_words(h: &Cleanup, words: &str, closing: bool) -> bool {
    !words.trim().is_empty()
        && !h.voices.own.is_empty()
        && !h.kept_words().trim().is_empty()
        && (opening::is_nod(words, &h.voices) || closing && opening::is_closer(words, &h.voices))
        && !mentions_any(words, &h.voices.others)
}

/// The words before the ask marker that ends `s`, to strip when `drop`
/// says so: the blanks before the marker go too, for it opens what is
/// left. None when no marker ends the line.
fn words_before_ask(h: &Cleanup, s: &str, drop: impl Fn(&str) -> bool) -> Option<Range<usize>> {
    let words = h.before_trailing_ask(s);
    (words.len() < s.len() && drop(words)).then(|| s.len() - s.trim_start().len()..words.len())
}

/// A line in brackets is over at its closing bracket, or at the reply's
/// end when the model never wrote one.
fn bracket_closed(h: &Cleanup, s: &str) -> bool {
    h.ending || s.trim_end().ends_with([')', '）'])
}

/// At the light level, a list's item that opens with a name is a summary
/// of where that one stands ("- **Winston:** holding firm"), as a strong
/// model writes one: a label line is a line of its own.
fn summed_up(h: &Cleanup, s: &str) -> bool {
    h.level == Level::Light && lists::after_list_mark(s).is_some()
}

/// The speaker's names, as `labels::stage_line` takes names.
fn own_names(h: &Cleanup) -> Vec<String> {
    h.voices.own_names().map(String::from).collect()
}

fn never(_: &Cleanup, _: &str) -> bool {
    false
}

const fn rule(name: &'static str, kind: CutKind, place: Place, does: Does, check: fn(&Cleanup, &str) -> Option<Range<usize>>) -> Rule {
    Rule {
        name,
        kind,
        place,
        does,
        check,
        could_become: never,
        tail: false,
        takes_opener: false,
        past_marker: matches!(does, Does::Strip { .. }),
        light: false,
    }
}

impl Rule {
    const fn twin(mut self, could_become: fn(&Cleanup, &str) -> bool) -> Rule {
        self.could_become = could_become;
        self
    }

    const fn on_tail(mut self) -> Rule {
        self.tail = true;
        self
    }

    const fn taking_opener(mut self) -> Rule {
        self.takes_opener = true;
        self
    }

    const fn past_the_marker(mut self) -> Rule {
        self.past_marker = true;
        self
    }

    const fn in_light(mut self) -> Rule {
        self.light = true;
        self
    }

    /// `check`, where a rule that reads past a marker (`past_marker`) reads
    /// a line that opens with one from the words after it, `lead` bytes in
    /// (`Cleanup::marker_lead`): `!?@human Priya: …` loses its label, not
    /// its marker. A sentence dropped or stopped goes whole, marker and all.
    pub(super) fn check_past_marker(&self, h: &Cleanup, s: &str, lead: usize) -> Option<Range<usize>> {
        let lead = self.past(lead);
        (self.check)(h, &s[lead..]).map(|at| at.start + lead..at.end + lead)
    }

    /// `could_become`, read as `check_past_marker` reads.
    pub(super) fn could_become_past_marker(&self, h: &Cleanup, t: &str, lead: usize) -> bool {
        (self.could_become)(h, &t[self.past(lead)..])
    }

    fn past(&self, lead: usize) -> usize {
        if self.past_marker {
            lead
        } else {
            0
        }
    }

    /// Whether the rule applies where the reply is now, at its level.
    pub(super) fn applies(&self, h: &Cleanup) -> bool {
        if h.level != Level::Full && !(self.light && h.level == Level::Light) {
            return false;
        }
        match self.place {
            Place::Sentence => true,
            Place::ReplyStart => h.reply_start,
            Place::OwnLine => h.kept.is_empty() || h.kept.trim_end_matches([' ', '\t']).ends_with('\n'),
        }
    }
}

/// The rules, in the order a sentence meets them: the first that drops,
/// stops or holds ends its judgement (an echo the speaker may keep is
/// counted and passed on); a strip passes the rest on. The held opening
/// and the held heading come last, so a sentence held is one no other rule
/// would cut.
pub(crate) static RULES: &[Rule] = &[
    rule("a letter's signature", CutKind::Signature, Place::OwnLine, Does::Drop, |h, s| {
        labels::is_signature(s, &h.voices.own).then(|| whole(s))
    }),
    rule(
        "part of a marker, or one made up",
        CutKind::MarkerFragment,
        Place::Sentence,
        Does::Drop,
        |h, s| {
            (h.markers().any(|m| labels::is_marker_fragment(s, m.written())) || labels::is_made_up_marker(s, h.markers())).then(|| whole(s))
        },
    )
    .twin(|_, t| t.starts_with("<!--")),
    rule(
        "the runtime's note copied",
        CutKind::RuntimeText,
        Place::Sentence,
        Does::Stop,
        |_, s| labels::opens_runtime_note(s).then(|| whole(s)),
    )
    .twin(|_, t| labels::could_open_runtime_note(t))
    .in_light(),
    rule(
        "a line spoken as another",
        CutKind::SpeaksAsOther,
        Place::Sentence,
        Does::Stop,
        |h, s| (!summed_up(h, s) && label_at_start(s, &h.voices.others).is_some()).then_some(0..s.len()),
    )
    .twin(|h, t| !summed_up(h, t) && could_be_label(t, &h.voices.others))
    .past_the_marker()
    .in_light(),
    rule(
        "a line of another, its colon lost",
        CutKind::SpeaksAsOther,
        Place::OwnLine,
        Does::Stop,
        |h, s| labels::bare_label_at_start(s, &h.voices.others, &h.voices.hosts).map(|_| 0..s.len()),
    )
    .twin(|h, t| labels::could_be_bare_label(t, &h.voices.others, &h.voices.hosts))
    .past_the_marker(),
    rule(
        "its own label",
        CutKind::OwnLabel,
        Place::Sentence,
        Does::Strip { capitalise: false },
        |h, s| {
            let item = lists::after_list_mark(s).is_some();
            let rest = h.voices.own_labels(item).find_map(|n| strip_label(s, n))?;
            Some(0..s.len() - rest.len())
        },
    )
    .twin(|h, t| h.voices.own_labels(false).any(|n| could_be_label(t, &[n.to_string()]))),
    rule(
        "quoting itself as another would",
        CutKind::SelfQuote,
        Place::Sentence,
        Does::Strip { capitalise: true },
        |h, s| labels::strip_self_attribution(s, &h.voices.own).map(|rest| 0..s.len() - rest.len()),
    ),
    rule(
        "introducing itself by its job",
        CutKind::OutOfCharacter,
        Place::Sentence,
        Does::Strip { capitalise: true },
        |_, s| labels::job_intro(s),
    )
    // A sentence past its introduction may run long before it ends.
    .twin(|_, t| labels::could_be_job_intro(t) || labels::job_intro(t).is_some()),
    rule(
        "a label's colon alone",
        CutKind::OwnLabel,
        Place::ReplyStart,
        Does::Strip { capitalise: false },
        |_, s| {
            let t = s.trim_start();
            let bare = t
                .strip_prefix('：')
                .or_else(|| t.strip_prefix(':').filter(|r| r.starts_with(char::is_whitespace)))?;
            Some(0..s.len() - bare.trim_start().len())
        },
    )
    .taking_opener(),
    rule(
        "a preface naming the speaker",
        CutKind::OwnLabel,
        Place::ReplyStart,
        Does::Strip { capitalise: false },
        |h, s| labels::strip_preface(s, &h.voices.own).map(|rest| 0..s.len() - rest.len()),
    )
    .twin(|h, t| could_be_preface(t) || labels::about_reply(t, &h.voices.own))
    .taking_opener(),
    rule(
        "talk about writing the reply",
        CutKind::OwnLabel,
        Place::ReplyStart,
        Does::Strip { capitalise: false },
        |h, s| {
            let colon = s.find([':', '：']);
            let head = colon.map_or(s, |c| &s[..c]);
            // It introduces what follows only if nothing follows it on its line.
            let introduces = colon.is_some_and(|c| s[c..].chars().skip(1).all(char::is_whitespace));
            labels::is_meta(head, &h.voices.own, introduces)
                .then(|| 0..s.len() - s[head.len()..].trim_start_matches([':', '：', ' ', '*']).len())
        },
    )
    .taking_opener(),
    // After the label and the preface: `Tomás: "First, …` is a quoted line.
    rule(
        "a reply wrapped in quotation marks",
        CutKind::OwnLabel,
        Place::ReplyStart,
        Does::Strip { capitalise: false },
        |h, s| quotes::wrap_opening(s, h.ending),
    )
    .twin(|_, t| quotes::could_wrap(t)),
    rule(
        "the closing mark of that quotation",
        CutKind::OwnLabel,
        Place::Sentence,
        Does::Strip { capitalise: false },
        |h, s| quotes::wrap_closing(s, h.wrap?),
    )
    .twin(|h, t| h.wrap.is_some_and(|c| t.contains(c)))
    .on_tail(),
    // After the strips above: a greeting behind its own label is a greeting.
    rule("a letter's greeting", CutKind::Salutation, Place::ReplyStart, Does::Drop, |h, s| {
        labels::is_salutation(s, &h.voices.others).then(|| whole(s))
    }),
    rule(
        "a chat's mention, a letter's honorific or a greeting to the host",
        CutKind::Salutation,
        Place::OwnLine,
        Does::Strip { capitalise: true },
        |h, s| opening::chat_address(s, h.voices.room_names()).or_else(|| opening::host_greeting(s, &h.voices.hosts)),
    )
    .twin(|h, t| opening::could_be_chat_address(t, h.voices.room_names()) || opening::could_be_host_greeting(t, &h.voices.hosts)),
    rule(
        "calling itself by name first",
        CutKind::SelfQuote,
        Place::Sentence,
        Does::Strip { capitalise: true },
        |h, s| {
            let rest = h.voices.own_names().find_map(|n| labels::strip_self_address(s, n))?;
            Some(s.len() - s.trim_start().len()..s.len() - rest.len())
        },
    )
    .twin(|h, t| mentions_any(t, &own_names(h))),
    rule(
        "calling itself by name last",
        CutKind::SelfQuote,
        Place::Sentence,
        Does::Strip { capitalise: false },
        |h, s| h.voices.own_names().find_map(|n| labels::closing_self_address(s, n)),
    )
    .on_tail(),
    rule(
        "calling itself by name mid-sentence",
        CutKind::SelfQuote,
        Place::Sentence,
        Does::Strip { capitalise: false },
        |h, s| h.voices.own_names().find_map(|n| labels::inner_self_address(s, n)),
    ),
    rule(
        "the runtime's words given back",
        CutKind::RuntimeText,
        Place::Sentence,
        Does::Stop,
        |h, s| (h.copy_source(s) == Some(RUNTIME)).then_some(0..s.len()),
    )
    .twin(|h, _| h.copies_since(0))
    .on_tail()
    .in_light(),
    // After the runtime's words: the continue prompt handed back in
    // brackets names the facilitator too, and is the runtime's.
    rule(
        "a stage direction for another",
        CutKind::SpeaksAsOther,
        Place::OwnLine,
        Does::Drop,
        |h, s| (bracket_closed(h, s) && labels::stage_line(s, &h.voices.others).is_some()).then(|| whole(s)),
    )
    // A bracket and a name may open one: it waits for its end.
    .twin(|h, t| labels::stage_line(t, &h.voices.others).is_some()),
    // The same narrator's line about the speaker ("(Lena nods and agrees…"
    // by Lena): it narrates itself, and no one in a meeting does.
    rule(
        "a stage direction for itself",
        CutKind::SelfQuote,
        Place::OwnLine,
        Does::Drop,
        |h, s| (bracket_closed(h, s) && labels::stage_line(s, &own_names(h)).is_some()).then(|| whole(s)),
    )
    .twin(|h, t| labels::stage_line(t, &own_names(h)).is_some()),
    // Or in a sentence of its own ("Sure, Kofi agrees with Amara." by Kofi).
    rule("narrating itself", CutKind::SelfQuote, Place::Sentence, Does::Drop, |h, s| {
        opening::narrates_itself(s, h.voices.own_names()).then(|| whole(s))
    })
    .twin(|h, t| mentions_any(t, &own_names(h)))
    .taking_opener(),
    // A stance in the words of the facilitator's question is its answer,
    // no echo (`copies.rs`, `answers_in_its_words`); nor is a sentence that
    // names the one it takes up (`names_who_spoke`).
    rule("an earlier turn copied", CutKind::Echo, Place::Sentence, Does::Drop, |h, s| {
        (h.copy_source(s) == Some(EARLIER) && !h.answers_in_its_words(s) && !h.names_who_spoke(s)).then_some(0..s.len())
    })
    .on_tail(),
    // What is left of a reply must not go on in the middle of a copied
    // thought: not at its start once one was cut, nor right after one.
    rule(
        "leaning on a copied sentence cut before it",
        CutKind::Echo,
        Place::Sentence,
        Does::Drop,
        |h, s| (h.after_copy && labels::leans_back(s)).then_some(0..s.len()),
    )
    .twin(|h, t| h.after_copy && labels::could_lean_back(t)),
    // A list's item may stand under two headings ("- Identified by their
    // username" for two tiers): the loop guard's, not this one's.
    rule(
        "its own sentence again, word for word",
        CutKind::Loop,
        Place::Sentence,
        Does::Stop,
        |h, s| (!lists::is_point(s) && h.said_again(s)).then_some(0..s.len()),
    )
    .on_tail()
    .in_light(),
    rule("its own sentence again", CutKind::Loop, Place::Sentence, Does::Stop, |h, s| {
        (h.copy_source(s) == Some(0)).then_some(0..s.len())
    })
    .on_tail(),
    rule(
        "a list's point past a turn's",
        CutKind::ListCap,
        Place::OwnLine,
        Does::Stop,
        |h, s| (!h.in_code() && lists::is_point(s) && points_made(h)).then(|| whole(s)),
    )
    .twin(|h, t| !h.in_code() && lists::could_be_point(t) && points_made(h)),
    rule(
        "stepping out of character",
        CutKind::OutOfCharacter,
        Place::Sentence,
        Does::Drop,
        |_, s| labels::breaks_character(s).then_some(0..s.len()),
    )
    .twin(|_, t| labels::could_break_character(t))
    .taking_opener(),
    rule(
        "a view of one who has not spoken",
        CutKind::Unspoken,
        Place::Sentence,
        Does::Drop,
        |h, s| labels::attributes(s, &h.voices.unspoken).then_some(0..s.len()),
    )
    .twin(|h, t| mentions_any(t, &h.voices.unspoken)),
    rule(
        "a view of its own, credited to itself",
        CutKind::SelfQuote,
        Place::Sentence,
        Does::Drop,
        |h, s| labels::attributes(s, std::slice::from_ref(&h.voices.own)).then_some(0..s.len()),
    ),
    // After the speaker's own words, a line of nothing but a yes that names
    // nobody is the next one's nod written for them ("…权衡这些因素。\n\n同意！"),
    // and one of a closing word ends an answer, not a turn ("That's it!").
    rule(
        "a yes or a closing word alone after its own words",
        CutKind::Stub,
        Place::OwnLine,
        Does::Drop,
        |h, s| {
            // Alone: nothing after it on its line ("Yes. The team is ready."
            // answers); a CJK end cannot tell, the stream's end can.
            let alone = h.ending || s.trim_end_matches([' ', '\t']).ends_with('\n') || s.trim_end().ends_with(['。', '！', '？']);
            (alone && nod_after_own_words(h, s, true)).then(|| whole(s))
        },
    ),
    // The same nod before the ask marker at its line's end: the nod goes,
    // the marker stays for a question on the next line ("Agree, !?@human").
    // Not before the end marker: that line proposes the end.
    rule(
        "a yes alone before the ask marker",
        CutKind::Stub,
        Place::OwnLine,
        Does::Strip { capitalise: false },
        |h, s| words_before_ask(h, s, |words| nod_after_own_words(h, words, false)),
    ),
    // A greeting or a bare name before the ask marker at its line's end
    // ("Hi!?@human", "Maya!?@human"): it greets or calls on someone, and the
    // question is the facilitator's. The words go; the marker stays for the
    // question on the next line.
    rule(
        "a greeting or a name alone before the ask marker",
        CutKind::Salutation,
        Place::OwnLine,
        Does::Strip { capitalise: false },
        |h, s| {
            words_before_ask(h, s, |words| {
                labels::is_salutation(words, &h.voices.others) || labels::is_bare_name(words, &h.voices)
            })
        },
    ),
    // A line of emphasis, list or quotation marks whose words were cut or
    // never came (`**`, `”` alone), or stops whose words were (`!` before a
    // cut sentence): it heads nothing and shows as marks.
    rule("marks with no words", CutKind::EmptyHeading, Place::OwnLine, Does::Drop, |h, s| {
        (!h.in_code() && (lists::is_bare_marks(s) || quotes::only_marks(s) || lists::is_bare_stops(s))).then(|| whole(s))
    }),
    rule(
        "thanks, a yes, an interjection or an announcement first",
        CutKind::Stub,
        Place::ReplyStart,
        Does::Hold,
        |h, s| h.opens_with(s).then(|| whole(s)),
    ),
    // Last: a heading no other rule cut waits for what it heads.
    rule(
        "a heading with nothing under it",
        CutKind::EmptyHeading,
        Place::OwnLine,
        Does::HoldHeading,
        |h, s| (!h.in_code() && !h.is_marker_line(s) && lists::is_heading(s)).then(|| whole(s)),
    ),
];

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
