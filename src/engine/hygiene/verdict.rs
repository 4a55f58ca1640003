//! A reply judged whole, once its stream is over: whether anything of the
//! speaker's own is left to be a turn, and the question it asks the
//! facilitator after the ask marker.

use super::{Cut, CutKind};
use crate::engine::markers::Marker;

/// What is left of a reply once cleaned, judged whole.
#[derive(Debug, PartialEq)]
pub(crate) enum Left {
    /// Words of the speaker's own: a turn.
    Speech,
    /// Nothing was written.
    Empty,
    /// Nothing of its own is left: the codes of what went (cuts, and
    /// `headings_only` for a reply of headings alone).
    Nothing(Vec<&'static str>),
}

/// Judges the text a reply showed, with what cleaning cut from it, in a
/// party that speaks Chinese or not.
pub(crate) fn left(shown: &str, cuts: &[Cut], chinese: bool) -> Left {
    let other_language = in_another_language(shown, chinese);
    if !(shown.trim().is_empty() || is_remnant(shown, cuts) || headings_only(shown) || other_language) {
        return Left::Speech;
    }
    let mut what: Vec<&'static str> = cuts.iter().map(|c| c.kind.code()).collect();
    if headings_only(shown) {
        what.push("headings_only");
    }
    if other_language {
        what.push("wrong_language");
    }
    if what.is_empty() {
        Left::Empty
    } else {
        Left::Nothing(what)
    }
}

/// A reply of some length mostly in the other script: Latin letters in
/// a Chinese party, or Chinese characters in any other (a name or a term
/// in the other script is speech).
fn in_another_language(shown: &str, chinese: bool) -> bool {
    let cjk = shown.chars().filter(|c| crate::text::is_cjk(*c)).count();
    let latin = shown.chars().filter(char::is_ascii_alphabetic).count();
    if chinese {
        latin >= 40 && cjk < latin / 2
    } else {
        cjk >= 20 && cjk * 2 > latin
    }
}

/// What cleaning left is a word or two ("Sure." of "Sure, Maya."): no
/// turn either.
fn is_remnant(shown: &str, cuts: &[Cut]) -> bool {
    // A heading with nothing under it took none of the reply's words.
    cuts.iter().any(|c| c.kind != CutKind::EmptyHeading) && super::sentences::rough_words(shown) < 3
}

/// `### Settled\n### Open`, `Summary:\n\nOpen Question:`: the shape of
/// an answer, not one.
fn headings_only(shown: &str) -> bool {
    !shown.trim().is_empty()
        && shown.lines().all(|l| {
            let l = l.trim().trim_matches(['*', '_']);
            l.is_empty() || l.starts_with('#') || l.chars().all(|c| matches!(c, '-' | '*' | '_' | '=' | ' ')) || is_bare_label(l)
        })
}

/// A line of a few words ending in a colon, with nothing after it.
fn is_bare_label(line: &str) -> bool {
    line.strip_suffix([':', '：'])
        .is_some_and(|head| !head.trim().is_empty() && head.split_whitespace().count() <= 4 && head.chars().count() <= 40)
}

/// Whether the reply was mostly copied: its echoed text outweighs the
/// words of its own it showed. Where echoes are `kept` (the moderator's
/// summary) they are part of `shown`, and a summary of nothing but the
/// room's sentences, each word for word, sums up nothing.
pub(crate) fn mostly_echo(shown: &str, cuts: &[Cut], kept: bool) -> bool {
    let echo: usize = cuts.iter().filter(|c| c.kind == CutKind::Echo).map(|c| c.text.trim().len()).sum();
    let own = if kept {
        shown.trim().len().saturating_sub(echo)
    } else {
        shown.len()
    };
    echo > own
}

/// The question after the ask marker: the rest of its line, or the next
/// non-empty line if nothing follows it there — a question only if it has
/// a question mark. A marker that ends the reply asks the last question
/// before it: on the line above when it opens its own line, as instructed,
/// or just before it ("Which budget?!@human"). Without a question mark it
/// asks nothing: small models also write the marker as a flourish
/// ("Yes!@human", "@human Hey Sam! …", "!?@human" after or before a plain
/// statement).
pub(crate) fn question_after_marker(raw: &str, marker: &Marker) -> Option<String> {
    let asks = |t: &str| t.contains(['?', '？']);
    let mut lines = raw.lines().map(str::trim);
    let mut above = "";
    while let Some(line) = lines.next() {
        let Some(at) = marker.find(line) else {
            if !line.is_empty() {
                above = line;
            }
            continue;
        };
        // The marker written as a name ends its sentence ("Yes, !?@human. What…"):
        // the stop after it is no part of the question.
        let rest = line[at.end..]
            .trim()
            .trim_start_matches(['.', '!', ',', '。', '！', '，'])
            .trim_start();
        let after = if rest.is_empty() {
            lines.find(|l| !l.is_empty())
        } else {
            Some(rest)
        };
        return match after {
            Some(q) => asks(q).then(|| q.to_string()),
            None if at.start == 0 => last_question(above),
            None => {
                // The marker's own marks may end the question ("…?!@human").
                let mut before = line[..at.start].trim_end().to_string();
                before.extend(line[at.start..].chars().next().filter(|c| ['?', '？'].contains(c)));
                last_question(&before)
            }
        };
    }
    None
}

/// The last sentence of `text` that ends with a question mark.
fn last_question(text: &str) -> Option<String> {
    let end = text.rfind(['?', '？'])?;
    let end = end + text[end..].chars().next().map_or(1, char::len_utf8);
    let start = text[..end]
        .trim_end_matches(['?', '？'])
        .rfind(['.', '!', '?', '。', '！', '？'])
        .map_or(0, |i| i + text[i..].chars().next().map_or(1, char::len_utf8));
    Some(text[start..end].trim().to_string()).filter(|q| q.chars().count() > 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(kind: CutKind, text: &str) -> Cut {
        Cut { kind, text: text.into() }
    }

    #[test]
    fn a_reply_is_mostly_echo_when_its_copies_outweigh_its_own_words() {
        let copy = "Boundaries and contracts matter more than frameworks here.";
        // Cut, the copy leaves a short reply of its own behind.
        assert!(mostly_echo("We ship Flutter.", &[cut(CutKind::Echo, copy)], false));
        assert!(!mostly_echo(
            "We ship Flutter, and the web app stays as it is.",
            &[cut(CutKind::Echo, "Yes.")],
            false
        ));
        // Kept (the moderator's summary), the copy is part of what showed.
        let kept = format!("! {copy}");
        assert!(mostly_echo(&kept, &[cut(CutKind::Echo, copy)], true));
        let summed = format!("The room agrees on Flutter. {copy} The open question is the budget, and Kofi should take it.");
        assert!(!mostly_echo(&summed, &[cut(CutKind::Echo, copy)], true));
    }

    #[test]
    fn a_reply_is_a_turn_only_with_words_of_its_own() {
        let left = |shown: &str, cuts: &[Cut]| left(shown, cuts, false);
        assert_eq!(left("Research first, then build.", &[]), Left::Speech);
        assert_eq!(left("  ", &[]), Left::Empty);
        assert_eq!(
            left("Sure.", &[cut(CutKind::Salutation, "Hi Maya,")]),
            Left::Nothing(vec!["salutation"])
        );
        assert_eq!(left("### Settled\n---\n### Open", &[]), Left::Nothing(vec!["headings_only"]));
        assert_eq!(
            left("Summary: \n\nOpen Question:\n\n**Agent:**", &[]),
            Left::Nothing(vec!["headings_only"])
        );
        assert_eq!(left("Summary: we ship Friday.", &[]), Left::Speech);
        assert_eq!(left("", &[cut(CutKind::Stub, "Thank you, Maya.")]), Left::Nothing(vec!["stub"]));
        // Short but whole, nothing cut: the speaker's own.
        assert_eq!(left("Ship it Friday.", &[]), Left::Speech);
        // A heading with nothing under it took none of the reply's words.
        assert_eq!(left("Ship it Friday.", &[cut(CutKind::EmptyHeading, "## Next")]), Left::Speech);
    }

    #[test]
    fn a_reply_in_the_other_language_is_no_turn() {
        // The 1.5B answered a Chinese party in English (voice bench, v2-stub).
        let english = "As we're discussing the topic of reducing online accidents, I'd like to share my perspective.";
        assert_eq!(left(english, &[], true), Left::Nothing(vec!["wrong_language"]));
        assert_eq!(left(english, &[], false), Left::Speech);
        let chinese = "我们应该先做用户调研，再决定是否提供离线模式，这样风险最小。";
        assert_eq!(left(chinese, &[], false), Left::Nothing(vec!["wrong_language"]));
        assert_eq!(left(chinese, &[], true), Left::Speech);
        // A term or a name in the other script is speech.
        assert_eq!(left("我们先做 CI/CD 和 code review，Kofi 负责。", &[], true), Left::Speech);
        assert_eq!(left("Call it 罗盘 (Compass), as Kofi said.", &[], false), Left::Speech);
    }

    #[test]
    fn a_question_is_what_follows_the_ask_marker() {
        let m = Marker::new("!?@human");
        let q = |raw: &str| question_after_marker(raw, &m);
        assert_eq!(
            q("Research first.\n!?@human Which users matter most?").as_deref(),
            Some("Which users matter most?")
        );
        assert_eq!(q("Research first.\n!?@human\n\nWhich users?").as_deref(), Some("Which users?"));
        // A statement after it asks nothing (the 1.5B put the marker before its whole reply).
        assert_eq!(q("!?@human\nIt's clear that a formal orientation helps."), None);
        // Only the marker, as the last line: the question on the line above.
        assert_eq!(
            q("Research first. Which users matter most?\n!?@human").as_deref(),
            Some("Which users matter most?")
        );
        // After a plain statement it asks nothing (a lone marker after one habit, from the 1.5B).
        assert_eq!(q("One habit helps: a fixed agenda.\n!?@human"), None);
        // A spelling with a mark dropped opens a line as well.
        assert_eq!(q("!@human What is the budget?").as_deref(), Some("What is the budget?"));
        assert_eq!(q("No marker here?"), None);
    }

    #[test]
    fn a_marker_written_mid_line_asks_only_when_a_question_follows() {
        let m = Marker::new("!?@human");
        let q = |raw: &str| question_after_marker(raw, &m);
        // The local 1.5B's flourishes: no question for the facilitator.
        assert_eq!(q("Yes!@human"), None);
        assert_eq!(q("Hi!@human Ingrid has just made a valid point."), None);
        assert_eq!(q("Goodbye!@human Thank you all."), None);
        assert_eq!(q("@human Hey Sam! I thought about this."), None);
        assert_eq!(q("Which budget do we have?!@human").as_deref(), Some("Which budget do we have?"));
        assert_eq!(q("Good point. 预算是多少？!?@human").as_deref(), Some("预算是多少？"));
        assert_eq!(
            q("Hiro!@human Could you share last month's sales?").as_deref(),
            Some("Could you share last month's sales?")
        );
        // The judgement bench, s7-final: the marker as a name, a stop after it.
        assert_eq!(
            q("Yes, !?@human. What about Team Goal Tracker?").as_deref(),
            Some("What about Team Goal Tracker?")
        );
    }
}
