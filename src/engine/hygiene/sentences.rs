//! Sentences and words as hygiene sees them: where a sentence ends, its
//! words (CJK characters count one each) and their hashes for copy checks.

use std::hash::BuildHasher;

use crate::text::is_cjk;

/// The end of the first whole sentence in `s`: after a line break, a CJK
/// sentence end and the closing quotation marks right after it (`。”`:
/// the quotation ends with its sentence, so at the end of `s` it waits
/// for what comes next), or `.!?` followed by white space.
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
/// last character, or the CJK end before the closing marks it ends with.
pub(super) fn rescan_from(s: &str) -> usize {
    let t = s.trim_end_matches(super::quotes::is_closing);
    let t = t.strip_suffix(['。', '！', '？']).unwrap_or(t);
    floor_char_boundary(s, t.len().min(s.len().saturating_sub(1)))
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
pub(super) fn is_short(len: usize, gram: usize) -> bool {
    (4..gram + 2).contains(&len)
}

/// Bytes before a point that surely hold the few words a run of words
/// reaching past it may start with.
pub(super) const TAIL_BYTES: usize = 256;

/// The largest char boundary of `s` at or below `i`.
pub(super) fn floor_char_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Where each token of `token_hashes` starts, in bytes.
pub(super) fn token_starts(text: &str) -> Vec<usize> {
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

pub(super) fn gram_hash(w: &[u64]) -> u64 {
    w.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
        (h ^ x).wrapping_mul(0x100_0000_01b3).rotate_left(5)
    })
}
