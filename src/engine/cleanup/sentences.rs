//! Sentences and words as hygiene sees them: where a sentence ends, its
//! words (CJK characters count one each) and their hashes for copy checks.

use std::hash::BuildHasher;

pub(super) use crate::text::floor_char_boundary;
use crate::text::is_cjk;

/// The end of the first whole sentence in `s`: after a line break, a CJK
/// sentence end and the closing quotation marks right after it (`。”`:
/// the quotation ends with its sentence, so at the end of `s` it waits
/// for what comes next), or `.!?` followed by white space. A full stop
/// ends no sentence after an abbreviation (`e.g.`, `z. B.`, `pl.`: data,
/// `abbreviations`) nor before a word in lower case (`a 3. pont`, `etc.
/// and`); until the word after it comes, it is not known to end one.
pub(super) fn sentence_end(s: &str) -> Option<usize> {
    sentence_end_from(s, 0)
}

/// About how many words `s` says: its words between spaces, two CJK
/// characters counting one (a length for short-text verdicts).
pub(super) fn rough_words(s: &str) -> usize {
    s.split_whitespace().count() + s.chars().filter(|c| is_cjk(*c)).count() / 2
}

/// The first `n` sentences of `text` (all of it when it has fewer).
pub(crate) fn first_sentences(text: &str, n: usize) -> &str {
    let mut end = 0;
    for _ in 0..n {
        match sentence_end(&text[end..]) {
            Some(e) => end += e,
            None => return text,
        }
    }
    &text[..end]
}

/// Where the next look for a sentence end in `s` (none found) starts: its
/// last character, the CJK end before the closing marks it ends with, or
/// a full stop before the blanks it ends with (the word after decides).
pub(super) fn rescan_from(s: &str) -> usize {
    let blank = s.trim_end_matches([' ', '\t']);
    if blank.len() < s.len() && blank.ends_with('.') {
        return blank.len() - 1;
    }
    let t = s.trim_end_matches(super::quotes::is_closing);
    let t = t.strip_suffix(['。', '！', '？']).unwrap_or(t);
    floor_char_boundary(s, t.len().min(s.len().saturating_sub(1)))
}

/// Whether the full stop at byte `dot` of `s`, white space after it,
/// ends no sentence: it closes an abbreviation, or a word in lower case
/// follows. None while the word after it has not come.
fn stop_goes_on(s: &str, dot: usize) -> Option<bool> {
    let after = &s[dot + 1..];
    let rest = after.trim_start_matches([' ', '\t']);
    let next = rest.chars().next()?;
    if after[..after.len() - rest.len()].contains('\n') || rest.starts_with(['\n', '\r']) {
        return Some(false);
    }
    if next.is_lowercase() {
        return Some(true);
    }
    // Abbreviations are short: the bytes around the stop are enough.
    let word = dot - word_before(s, dot).len();
    let head = &s[floor_char_boundary(s, word.saturating_sub(WINDOW))..=dot];
    let word_on = &s[word..floor_char_boundary(s, (word + WINDOW).min(s.len()))];
    super::phrases::closes_abbreviation(head, word_on)
}

/// Bytes either side of a full stop that hold any abbreviation it closes.
const WINDOW: usize = 24;

/// The word a full stop at byte `dot` closes, with the dots inside it
/// (`e.g`, `z`, `pl`, `Dr`).
fn word_before(s: &str, dot: usize) -> &str {
    let head = &s[..dot];
    let start = head
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphabetic() || *c == '.')
        .last()
        .map_or(dot, |(i, _)| i);
    &head[start..]
}

/// `sentence_end`, looking from byte `from` on (a char boundary): the text
/// before it is known to hold no end.
pub(super) fn sentence_end_from(s: &str, from: usize) -> Option<usize> {
    let mut it = s[from..].char_indices().map(|(i, c)| (from + i, c)).peekable();
    while let Some((i, c)) = it.next() {
        match c {
            '\n' => return Some(i + 1),
            '。' | '！' | '？' => {
                let mut end = i + c.len_utf8();
                loop {
                    match it.peek() {
                        None => return None,
                        Some(&(j, next)) if super::quotes::is_closing(next) => {
                            end = j + next.len_utf8();
                            it.next();
                        }
                        Some(_) => return Some(end),
                    }
                }
            }
            '.' | '!' | '?' => {
                // `1. ` opening a line numbers a list item; it ends nothing.
                let line = &s[s[..i].rfind('\n').map_or(0, |n| n + 1)..i];
                if c == '.' && !line.trim_start().is_empty() && line.trim_start().chars().all(|d| d.is_ascii_digit()) {
                    continue;
                }
                if let Some(&(j, next)) = it.peek() {
                    if next.is_whitespace() {
                        if c == '.' && next != '\n' {
                            match stop_goes_on(s, i) {
                                Some(true) => continue,
                                Some(false) => {}
                                // The word after it decides: not yet.
                                None => return None,
                            }
                        }
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
pub(super) fn token_hashes(text: &str) -> Vec<u64> {
    let state = foldhash::fast::FixedState::with_seed(7);
    let mut out = Vec::new();
    let mut word = String::new();
    let push = |w: &str, out: &mut Vec<u64>| out.push(state.hash_one(w));
    for c in text.chars() {
        // The common case first: ASCII, whose lower case is one byte.
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() || c == '\'' {
                word.push(c.to_ascii_lowercase());
                continue;
            }
        } else if is_cjk(c) {
            if !word.is_empty() {
                push(&word, &mut out);
                word.clear();
            }
            push(c.encode_utf8(&mut [0; 4]), &mut out);
            continue;
        } else if c.is_alphanumeric() || c == '’' {
            word.extend(c.to_lowercase());
            continue;
        }
        if !word.is_empty() {
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
pub(super) fn is_short(len: usize, gram: usize) -> bool {
    (4..gram + 2).contains(&len)
}

/// Bytes before a point that surely hold the few words a run of words
/// reaching past it may start with.
pub(super) const TAIL_BYTES: usize = 256;

/// Where each token of `token_hashes` starts, in bytes.
pub(super) fn token_starts(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        // As `token_hashes`: ASCII first, CJK only above it.
        let word_char = if c.is_ascii() {
            c.is_ascii_alphanumeric() || c == '\''
        } else if is_cjk(c) {
            out.push(i);
            in_word = false;
            continue;
        } else {
            c.is_alphanumeric() || c == '’'
        };
        if word_char {
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

pub(super) fn gram_hash(w: &[u64]) -> u64 {
    w.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
        (h ^ x).wrapping_mul(0x100_0000_01b3).rotate_left(5)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` in its sentences.
    fn split(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let end = sentence_end(rest).unwrap_or(rest.len());
            out.push(&rest[..end]);
            rest = &rest[end..];
        }
        out
    }

    #[test]
    fn a_full_stop_after_an_abbreviation_or_before_lower_case_ends_no_sentence() {
        for (text, sentences) in [
            ("Ask a user, e.g. Kofi. Then ship.", vec!["Ask a user, e.g. Kofi. ", "Then ship."]),
            ("Wir fragen z. B. Kunden. Dann los.", vec!["Wir fragen z. B. Kunden. ", "Dann los."]),
            (
                "Kérdezzük meg pl. Kofit. Utána döntünk.",
                vec!["Kérdezzük meg pl. Kofit. ", "Utána döntünk."],
            ),
            (
                "Sprawdźmy np. Kowalskiego. Potem decyzja.",
                vec!["Sprawdźmy np. Kowalskiego. ", "Potem decyzja."],
            ),
            ("Dr. Quinn agrees. So do I.", vec!["Dr. Quinn agrees. ", "So do I."]),
            // A letter's stop ends a sentence, though `z. B.` holds one.
            ("We keep plan B. Then we ship.", vec!["We keep plan B. ", "Then we ship."]),
            ("Wir nehmen Plan B. Dann los.", vec!["Wir nehmen Plan B. ", "Dann los."]),
            ("Fragen wir Anna Z. Bauer hilft.", vec!["Fragen wir Anna Z. ", "Bauer hilft."]),
            ("A 3. pont a lényeg. Kész.", vec!["A 3. pont a lényeg. ", "Kész."]),
            (
                "Tests, docs, etc. and then the release.",
                vec!["Tests, docs, etc. and then the release."],
            ),
            // Plain stops still end sentences, a line break always.
            (
                "Ship it. Measure it.\nThen decide.",
                vec!["Ship it. ", "Measure it.\n", "Then decide."],
            ),
            ("No. We wait.", vec!["No. ", "We wait."]),
            ("先做调研。再决定。", vec!["先做调研。", "再决定。"]),
        ] {
            assert_eq!(split(text), sentences, "{text:?}");
        }
    }

    #[test]
    fn a_full_stop_at_the_end_of_a_piece_waits_for_the_word_after_it() {
        // Streaming: "e.g. " alone cannot tell.
        assert_eq!(sentence_end("We ship. "), None);
        assert_eq!(sentence_end("We ship. T"), Some(9));
        assert_eq!(sentence_end("We ship. t"), None);
        // `z. B` may yet be `z. B.`; `z. Bx` is not.
        assert_eq!(sentence_end("Wir fragen z. B"), None);
        assert_eq!(sentence_end("Wir fragen z. Bx"), Some(14));
        assert_eq!(rescan_from("We ship. "), 7);
    }
}
