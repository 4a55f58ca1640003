//! A speaker's label as a transcript writes it (`Maya:`, `**Maya** (Analyst):`,
//! `🛠️ Maya：`, `[Maya]`): the grammar the protocol strips the speaker's own
//! label with at a reply's start, and cleanup reads others' labels with.

use crate::text::is_cjk;

/// Markdown and list decoration, and an icon, before a label.
pub(crate) fn undecorated(s: &str) -> &str {
    let s = s.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '>' | '*' | '#' | '_' | '-' | '•' | '[' | '【' | '(' | '（' | ')' | '）')
    });
    // An icon: symbols and their variation selectors, then spaces.
    let rest = s.trim_start_matches(|c: char| !c.is_alphanumeric() && !c.is_ascii() && !is_cjk(c) || c == '\u{fe0f}' || c == '\u{200d}');
    if rest.len() != s.len() {
        // Decoration after the icon too: `📊 **Maya**:`.
        rest.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '_'))
    } else {
        s
    }
}

/// Whether the decoration `undecorated` took off `s`, leaving `t`, opened a round bracket.
pub(crate) fn opened_round(s: &str, t: &str) -> bool {
    s[..s.len() - t.len()].contains(['(', '（'])
}

/// ASCII-case-insensitive: the caller slices `s` at `prefix.len()` after.
pub(crate) fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.is_char_boundary(prefix.len()) && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// What follows a name in a label: `**`, a title in parentheses, `]`, then a colon; the length
/// through the colon, or None (`partial`: a label not finished yet). A name closed by a bracket after
/// it (`【Maya】`, `[Maya]`, `(Maya)` if the line `opened` one, not "e.g. Kofi)") is a label too.
pub(crate) fn label_tail(rest: &str, partial: bool, opened: bool) -> Option<usize> {
    let mut i = 0;
    let b: Vec<char> = rest.chars().collect();
    let mut bytes = 0;
    let step = |i: &mut usize, bytes: &mut usize| {
        *bytes += b[*i].len_utf8();
        *i += 1;
    };
    let first = b.first().copied();
    let closed = matches!(first, Some(']' | '】')) || opened && matches!(first, Some(')' | '）'));
    while i < b.len() && (matches!(b[i], '*' | '_' | ']' | '】' | ' ') || closed && i == 0) {
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
        return (partial || closed).then_some(bytes);
    }
    if matches!(b[i], ':' | '：') {
        return Some(bytes + b[i].len_utf8());
    }
    closed.then_some(bytes)
}

/// `s` without its leading label of `name`, if it has one.
pub(crate) fn strip_label<'s>(s: &'s str, name: &str) -> Option<&'s str> {
    let t = undecorated(s);
    if name.is_empty() || !starts_with_ci(t, name) || t[name.len()..].starts_with(|c: char| c.is_alphanumeric()) {
        return None;
    }
    let n = label_tail(&t[name.len()..], false, opened_round(s, t))?;
    Some(t[name.len() + n..].trim_start_matches([' ', '*']))
}

/// Whether `s` opens with a list's mark (`- `, `* `, `• `, `1. `, `2) `).
pub(crate) fn opens_list_item(s: &str) -> bool {
    let t = s.trim_start();
    let bullet = t.starts_with(['-', '*', '+', '•']) && t[1..].starts_with(' ');
    let digits = t.trim_start_matches(|c: char| c.is_ascii_digit());
    bullet || digits.len() < t.len() && (digits.starts_with(". ") || digits.starts_with(") "))
}

/// Whether the start of a reply may still become a label of one of
/// `names` (its name, or its start, then a label's tail on its way): it is
/// held until it is or is not.
pub(crate) fn could_be_own_label(start: &str, names: &[String]) -> bool {
    let t = undecorated(start);
    if t.is_empty() {
        return true;
    }
    names.iter().filter(|n| !n.is_empty()).any(|n| {
        if t.len() < n.len() {
            n.to_lowercase().starts_with(&t.to_lowercase())
        } else {
            starts_with_ci(t, n) && {
                let rest = &t[n.len()..];
                !rest.starts_with(|c: char| c.is_alphanumeric()) && label_tail(rest, true, opened_round(start, t)).is_some()
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_is_stripped_in_every_style_a_transcript_writes() {
        for (line, rest) in [
            ("Maya: Ship it.", "Ship it."),
            ("**Maya**: Ship it.", "Ship it."),
            ("**Maya (Business Analyst):** Ship it.", "Ship it."),
            ("📊 **Maya**: Ship it.", "Ship it."),
            ("[Maya] Ship it.", "Ship it."),
            ("Maya： 先做调研。", "先做调研。"),
        ] {
            assert_eq!(strip_label(line, "Maya"), Some(rest), "{line}");
        }
        for line in ["Maya's plan works.", "Mayan ruins: no.", "Ship it, Maya."] {
            assert_eq!(strip_label(line, "Maya"), None, "{line}");
        }
    }

    #[test]
    fn a_start_waits_only_while_it_may_become_the_label() {
        let names = ["Maya".to_string(), "Business Analyst".to_string()];
        for start in ["", "**", "Ma", "📊 **Maya", "**Maya** (Business", "Busi"] {
            assert!(could_be_own_label(start, &names), "{start:?}");
        }
        for start in ["Ship", "Maya's", "Mayan", "We should"] {
            assert!(!could_be_own_label(start, &names), "{start:?}");
        }
    }
}
