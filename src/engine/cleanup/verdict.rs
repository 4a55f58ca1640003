//! A reply judged whole, once its stream is over: whether anything of the
//! speaker's own is left to be a turn.

use super::language::Language;
use super::{Cut, CutKind};

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

/// Judges the text a reply showed, with what cleaning cut from it and the
/// take-ups it kept (`took_up`: sentences in another's words, naming
/// them), in a party that speaks `language` (None: one not listed, never
/// checked).
pub(crate) fn left(shown: &str, cuts: &[Cut], took_up: &str, language: Option<&Language>) -> Left {
    let other_language = language.is_some_and(|l| l.is_other_than(shown));
    let only_taken_up = only_taken_up(shown, took_up);
    if !(shown.trim().is_empty() || is_remnant(shown, cuts) || headings_only(shown) || other_language || only_taken_up) {
        return Left::Speech;
    }
    let mut what: Vec<&'static str> = cuts.iter().map(|c| c.kind.code()).collect();
    if only_taken_up {
        what.push(CutKind::Echo.code());
    }
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

/// A turn that only takes up what others said, in their words ("I agree
/// with Kofi that we should…", a thanks at most beside it): the take-up is
/// kept where the speaker goes on to a point of its own, but alone it
/// says nothing new. A question of its own beside it, however short, is
/// a turn ("I agree with Kofi that we pilot first. For how long?").
fn only_taken_up(shown: &str, took_up: &str) -> bool {
    use super::sentences::rough_words;
    let asks = |s: &str| s.matches(['?', '？']).count();
    !took_up.trim().is_empty() && rough_words(shown).saturating_sub(rough_words(took_up)) < 5 && asks(shown) <= asks(took_up)
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
        let left = |shown: &str, cuts: &[Cut]| left(shown, cuts, "", None);
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
    fn a_turn_of_nothing_but_a_take_up_says_nothing_new() {
        let took = "Kofi is right that we should ship the smallest thing that could work.";
        assert_eq!(left(took, &[], took, None), Left::Nothing(vec!["echo"]));
        let thanks = format!("Thanks, Sam. {took}");
        assert_eq!(left(&thanks, &[], took, None), Left::Nothing(vec!["echo"]));
        let more = format!("{took} I would check the payment interfaces first, though.");
        assert_eq!(left(&more, &[], took, None), Left::Speech);
        let asks = format!("{took} For how long?");
        assert_eq!(left(&asks, &[], took, None), Left::Speech);
    }

    #[test]
    fn a_reply_in_the_other_language_is_no_turn() {
        let of = |n: &str| super::super::language::of(n);
        // The 1.5B answered a Chinese party in English (voice bench, v2-stub).
        let english = "As we're discussing the topic of reducing online accidents, I'd like to share my perspective.";
        assert_eq!(left(english, &[], "", of("Chinese")), Left::Nothing(vec!["wrong_language"]));
        assert_eq!(left(english, &[], "", of("English")), Left::Speech);
        assert_eq!(left(english, &[], "", of("Korean")), Left::Nothing(vec!["wrong_language"]));
        let korean = "먼저 고객 데이터를 옮기는 것이 더 안전하다고 생각합니다. 결제 인터페이스는 그다음에 점검하죠.";
        assert_eq!(left(korean, &[], "", of("Korean")), Left::Speech);
        // A language not listed is never the wrong one.
        assert_eq!(left(korean, &[], "", None), Left::Speech);
    }
}
