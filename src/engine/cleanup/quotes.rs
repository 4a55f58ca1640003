//! A reply written as a quoted line (`"First, we need a clear process. …"`):
//! a model that sees the room as a script quotes its own line. The opening
//! mark goes at the reply's start and the closing one where it ends the
//! quotation; a quotation the reply makes (`"Ship it" is what we hear`,
//! `"Ship the pilot first."` and a line about it) is speech and keeps its
//! marks. Which marks pair up is data (`quotes` in `phrases/*.toml`).

use std::ops::Range;

use super::phrases::PHRASES;

/// The pairs of marks, opening then closing.
fn pairs() -> impl Iterator<Item = (char, char)> {
    PHRASES.quotes.iter().filter_map(|q| {
        let mut c = q.chars();
        Some((c.next()?, c.next()?))
    })
}

/// Every quotation mark, opening or closing.
fn is_mark(c: char) -> bool {
    pairs().any(|(o, cl)| c == o || c == cl)
}

/// A mark that closes a quotation (`"` closes as it opens).
pub(super) fn is_closing(c: char) -> bool {
    pairs().any(|(_, cl)| c == cl)
}

/// The closing mark of the pair `open` opens.
pub(super) fn closing_of(open: &str) -> Option<char> {
    let mut c = open.chars();
    let (first, rest) = (c.next()?, c.next());
    rest.is_none().then(|| pairs().find(|&(o, _)| o == first).map(|(_, close)| close))?
}

/// The pair `t` (trimmed) opens with, and what follows the opening mark.
fn opening(t: &str) -> Option<(char, char, &str)> {
    let (open, close) = pairs().find(|&(o, _)| t.starts_with(o))?;
    Some((open, close, &t[open.len_utf8()..]))
}

/// The opening mark of a quotation that wraps what follows: `s`, the
/// reply's first sentence, opens with a mark and does not close it. Closed
/// inside it, the quotation is one the reply makes, unless the sentence is
/// all the reply is (`last`) and the mark closes it. The range of the mark.
pub(super) fn wrap_opening(s: &str, last: bool) -> Option<Range<usize>> {
    let start = s.len() - s.trim_start().len();
    let (open, close, inner) = opening(s.trim())?;
    let inner = if last { inner.strip_suffix(close).unwrap_or(inner) } else { inner };
    (!inner.trim().is_empty() && !inner.contains(close)).then(|| start..start + open.len_utf8())
}

/// While a sentence's start is all there is: one that opens with a mark
/// may be wrapping the reply while the mark is not closed, or closed only
/// as its last character so far.
pub(super) fn could_wrap(t: &str) -> bool {
    opening(t.trim()).is_some_and(|(_, close, inner)| !inner.strip_suffix(close).unwrap_or(inner).contains(close))
}

/// A line of quotation marks and nothing else (`”` on its own, where a
/// model's words ran out or were cut): no words to say.
pub(super) fn only_marks(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && t.chars().all(|c| c.is_whitespace() || is_mark(c))
}

/// The mark that closes the wrapping quotation in `s`: a `close` left
/// unmatched in the sentence (an odd count where it also opens, `"`), at
/// the end of the sentence or of one of its lines. A pair the sentence
/// opens and closes itself (`Kofi calls it "ship small".`) is speech.
pub(super) fn wrap_closing(s: &str, close: char) -> Option<Range<usize>> {
    let open = pairs().find(|&(_, c)| c == close).map_or(close, |(o, _)| o);
    let closes = s.matches(close).count();
    let unmatched = if open == close {
        closes % 2 == 1
    } else {
        closes > s.matches(open).count()
    };
    if !unmatched {
        return None;
    }
    s.char_indices()
        .filter(|&(_, c)| c == close)
        .find(|&(at, c)| {
            let after = s[at + c.len_utf8()..].trim_start_matches([' ', '\t']);
            after.is_empty() || after.starts_with(['\n', '\r'])
        })
        .map(|(at, c)| at..at + c.len_utf8())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quotation_wraps_a_reply_only_when_it_does_not_close_inside_the_first_sentence() {
        assert_eq!(wrap_opening("\"First, we need a clear process. ", false), Some(0..1));
        assert_eq!(wrap_opening("  \"We ship it.\"", true), Some(2..3));
        assert_eq!(wrap_opening("  \"We ship it.\"\n", false), None);
        assert_eq!(wrap_opening("“先做调研。", false), Some(0..3));
        assert_eq!(wrap_opening("\"Ship it\" is what we hear. ", false), None);
        assert_eq!(wrap_opening("\"\"", true), None);
        assert_eq!(wrap_opening("We ship it. ", true), None);
        assert!(could_wrap("\"First, we need"));
        assert!(could_wrap("\"First, we need it.\""));
        assert!(!could_wrap("\"Ship it\" is"));
        assert_eq!(closing_of("\""), Some('"'));
        assert_eq!(closing_of("「"), Some('」'));
        assert_eq!(closing_of("Maya:"), None);
    }

    #[test]
    fn the_closing_mark_is_the_unmatched_one_that_ends_a_sentence_or_line() {
        assert_eq!(wrap_closing("on track.\"", '"'), Some(9..10));
        assert_eq!(wrap_closing("on track.\" \n", '"'), Some(9..10));
        assert_eq!(wrap_closing("”", '”'), Some(0..3));
        // A pair of its own, or a mark mid-sentence, is speech.
        assert_eq!(wrap_closing("Kofi calls it \"ship small\", and I agree.", '"'), None);
        assert_eq!(wrap_closing("Kofi calls it “ship small”, and I agree.", '”'), None);
        assert_eq!(wrap_closing("on track.\" Then more.", '"'), None);
        assert!(only_marks("”\n") && only_marks(" \" \"") && !only_marks("” 是的") && !only_marks(""));
    }
}
