//! The YAML library's messages in the user's words: the dotted key path
//! the problem is at (read from the file's own lines), what was expected in
//! plain terms with the value found, the nearest known key for a misspelt
//! one, and never the library's own advice to its programmers.

use crate::i18n::{KeyHint, Problem, ValueKind};

/// What a message says once reworded, and the key path it is about.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Worded {
    pub key: String,
    pub message: Problem,
    /// A better place to show than the library's (line, column), 1-based:
    /// the renamed key a missing one probably is.
    pub at: Option<(u64, u64)>,
}

/// What a type the library names means to someone writing the file.
const TYPES: [(&[&str], ValueKind); 6] = [
    (&["u8", "u16", "u32", "u64", "usize"], ValueKind::Unsigned),
    (&["i8", "i16", "i32", "i64", "isize"], ValueKind::Integer),
    (&["f32", "f64", "float literal"], ValueKind::Number),
    (&["bool", "boolean"], ValueKind::Bool),
    (&["string scalar", "scalar"], ValueKind::Single),
    (&["string", "str"], ValueKind::Text),
];

/// Library advice that is about the program, not the file.
const ADVICE: [&str; 2] = [", set DuplicateKeyPolicy in Options if acceptable", " in Options if acceptable"];

/// Where the library put the problem: the file's lines, the line (1-based,
/// within the file), the column, and the dotted key path there.
struct Place<'a> {
    lines: Vec<&'a str>,
    at: Option<usize>,
    column: Option<u64>,
    path: Vec<String>,
}

/// Rewords `message`, which the library gave for `line`/`column` (1-based,
/// in `text`'s own lines).
pub(crate) fn reword(message: &str, text: &str, line: Option<u64>, column: Option<u64>) -> Worded {
    let lines: Vec<&str> = text.lines().collect();
    let at = line.and_then(|l| usize::try_from(l).ok()).filter(|&l| l >= 1 && l <= lines.len());
    let path = at.map(|l| key_path_at(&lines, l)).unwrap_or_default();
    let place = Place { lines, at, column, path };
    let mut message = message.trim().to_string();
    for a in ADVICE {
        message = message.replace(a, "");
    }
    let field = |prefix: &str| {
        message
            .strip_prefix(prefix)
            .and_then(|rest| rest.split('`').nth(1))
            .map(str::to_string)
    };
    if let Some(unknown) = field("unknown field") {
        return unknown_key(&message, &unknown, &place);
    }
    if let Some(missing) = field("missing field") {
        return missing_key(&missing, &place);
    }
    if let Some(dup) = message.strip_prefix("duplicate mapping key: ").map(|d| d.trim().to_string()) {
        return duplicate_key(&dup, &place);
    }
    wrong_kind(&message, &place).unwrap_or(Worded {
        key: place.path.join("."),
        message: Problem::Text(message),
        at: None,
    })
}

/// A key the file should not have: the nearest known one, else the list.
fn unknown_key(message: &str, unknown: &str, place: &Place<'_>) -> Worded {
    // serde's wordings: "expected `a`", "expected `a` or `b`",
    // "expected one of `a`, `b`, `c`".
    let list = message
        .split_once("expected ")
        .map(|(_, l)| l.trim_start_matches("one of ").replace(" or ", ", "))
        .unwrap_or_default();
    let known: Vec<&str> = list
        .split(", ")
        .map(|k| k.trim().trim_matches('`'))
        .filter(|k| !k.is_empty())
        .collect();
    let hint = match nearest(unknown, &known) {
        Some(k) => KeyHint::Near(k),
        None if !known.is_empty() => KeyHint::Known(known.join(", ")),
        None => KeyHint::None,
    };
    Worded {
        key: place.path.join("."),
        message: Problem::UnknownKey {
            unknown: unknown.to_string(),
            hint,
        },
        at: None,
    }
}

/// A key the file lacks: the block it belongs in, and a near key there
/// that may be it, renamed.
fn missing_key(missing: &str, place: &Place<'_>) -> Worded {
    let lines = &place.lines;
    let block = place.at.map(|l| block_at(lines, l)).unwrap_or_default();
    let parent = place.path.iter().take(place.path.len().saturating_sub(1)).cloned();
    let key = parent.chain([missing.to_string()]).collect::<Vec<_>>().join(".");
    let near = block
        .iter()
        .filter(|(k, _)| k != missing)
        .find_map(|(k, n)| nearest(missing, &[k.as_str()]).map(|_| (k.clone(), *n)));
    let at = near.as_ref().and_then(|(_, n)| {
        let col = key_on(lines[n - 1])?.1;
        Some((*n as u64, col as u64 + 1))
    });
    let message = Problem::MissingKey {
        missing: missing.to_string(),
        near,
    };
    Worded { key, message, at }
}

/// The same key twice in one block.
fn duplicate_key(dup: &str, place: &Place<'_>) -> Worded {
    let first = place.at.and_then(|l| {
        let block = block_at(&place.lines, l);
        block.iter().find(|(k, n)| k == dup && *n < l).map(|(_, n)| *n)
    });
    Worded {
        key: place.path.join("."),
        message: Problem::DuplicateKey {
            dup: dup.to_string(),
            first,
        },
        at: None,
    }
}

/// A value of the wrong kind: what was expected, and what was found.
fn wrong_kind(message: &str, place: &Place<'_>) -> Option<Worded> {
    let wanted = message
        .strip_prefix("invalid ")
        .or_else(|| message.strip_prefix("expected "))
        .and_then(|t| TYPES.iter().find(|(names, _)| names.contains(&t.trim())))
        .map(|(_, kind)| *kind)?;
    let found = place.at.zip(place.column).and_then(|(l, c)| value_at(place.lines[l - 1], c));
    Some(Worded {
        key: place.path.join("."),
        message: Problem::Expected { wanted, found },
        at: None,
    })
}

/// The nearest of `known` to `word`, if it is near enough to be a slip: a
/// letter or two wrong, missing, extra or swapped (fewer for short words).
fn nearest(word: &str, known: &[&str]) -> Option<String> {
    let most = (word.chars().count() / 4).max(1);
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(word, k), *k))
        .filter(|(d, _)| *d <= most)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.to_string())
}

/// The key a line sets (`key: …`, `- key: …`) and the column its key
/// starts at, 0-based.
fn key_on(line: &str) -> Option<(String, usize)> {
    let indent = line.len() - line.trim_start().len();
    let mut rest = line.trim_start();
    let mut col = indent;
    while let Some(r) = rest.strip_prefix("- ") {
        col += 2 + (r.len() - r.trim_start().len());
        rest = r.trim_start();
    }
    if rest.starts_with('#') {
        return None;
    }
    let (key, _) = rest
        .split_once(':')
        .filter(|(_, after)| after.is_empty() || after.starts_with([' ', '\t']))?;
    let key = key.trim().trim_matches(['"', '\'']);
    // A key of ours is one word; anything else is text that has a colon.
    let word = !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || "_-.".contains(c));
    word.then(|| (key.to_string(), col))
}

/// The dotted path at `line` (1-based): the key there (or the block the
/// line is in) and the keys of the blocks around it, outermost first.
fn key_path_at(lines: &[&str], line: usize) -> Vec<String> {
    let mut path = Vec::new();
    let mut depth = match key_on(lines[line - 1]) {
        Some((k, col)) => {
            path.push(k);
            col
        }
        None => lines[line - 1].len() - lines[line - 1].trim_start().len(),
    };
    for l in lines[..line - 1].iter().rev() {
        if l.trim().is_empty() || l.trim_start().starts_with('#') || l.trim() == "---" {
            continue;
        }
        if let Some((k, col)) = key_on(l) {
            if col < depth {
                path.push(k);
                depth = col;
                if depth == 0 {
                    break;
                }
            }
        }
    }
    path.reverse();
    path
}

/// The keys of the block `line` (1-based) is in, with their lines: the
/// lines at its indentation, up and down to the first less indented one.
fn block_at(lines: &[&str], line: usize) -> Vec<(String, usize)> {
    let Some((_, depth)) = key_on(lines[line - 1]) else {
        return Vec::new();
    };
    let outside = |l: &str| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#') && (t == "---" || key_on(l).map_or(l.len() - l.trim_start().len(), |(_, c)| c) < depth)
    };
    let start = (0..line - 1).rev().find(|&i| outside(lines[i])).map_or(0, |i| i + 1);
    let end = (line..lines.len()).find(|&i| outside(lines[i])).unwrap_or(lines.len());
    (start..end)
        .filter_map(|i| key_on(lines[i]).filter(|(_, c)| *c == depth).map(|(k, _)| (k, i + 1)))
        .collect()
}

/// The value written at `column` (1-based) of a line, for a message.
fn value_at(line: &str, column: u64) -> Option<String> {
    let start = usize::try_from(column).ok()?.checked_sub(1)?;
    let rest: String = line.chars().skip(start).collect();
    let value = rest.split(" #").next().unwrap_or("").trim();
    (!value.is_empty()).then(|| crate::text::ellipsize(&crate::text::sanitize(value), 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = "bmad:\n  party_mode:\n    max_rounds: lots\n    max_round: 3\n  llm:\n    temperature: [1]\n";

    #[test]
    fn a_wrong_type_names_the_key_path_what_was_expected_and_what_was_found() {
        let w = reword("invalid u32", CONFIG, Some(3), Some(17));
        assert_eq!(w.key, "bmad.party_mode.max_rounds");
        assert_eq!(w.message.to_string(), "expected a whole number (0 or more), found `lots`");
        let w = reword("expected string scalar", "bmad:\n  llm:\n    model: [1]\n", Some(3), Some(12));
        assert_eq!(
            (w.key.as_str(), w.message.to_string().as_str()),
            ("bmad.llm.model", "expected a single value, found `[1]`")
        );
        let w = reword("invalid bool", "a:\n  b: maybe # unsure\n", Some(2), Some(6));
        assert_eq!(w.message.to_string(), "expected true or false, found `maybe`");
    }

    #[test]
    fn a_misspelt_key_gets_the_nearest_known_one_else_the_list() {
        let msg = "unknown field `max_round`, expected one of `auto_exit_enabled`, `max_rounds`, `warn_at_rounds`";
        let w = reword(msg, CONFIG, Some(4), Some(5));
        assert_eq!(w.key, "bmad.party_mode.max_round");
        assert_eq!(w.message.to_string(), "unknown key `max_round`; did you mean `max_rounds`?");
        let w = reword(
            "unknown field `zebra`, expected one of `a_long_key`, `another`",
            CONFIG,
            Some(4),
            Some(5),
        );
        assert_eq!(
            w.message.to_string(),
            "unknown key `zebra`; the keys known here: a_long_key, another"
        );
        let w = reword("unknown field `mx`, expected `min` or `max`", CONFIG, Some(4), Some(5));
        assert_eq!(w.message.to_string(), "unknown key `mx`; did you mean `max`?");
        let w = reword("unknown field `zz`, expected `min` or `max`", CONFIG, Some(4), Some(5));
        assert_eq!(w.message.to_string(), "unknown key `zz`; the keys known here: min, max");
    }

    #[test]
    fn a_duplicate_key_names_its_first_line_and_no_library_advice() {
        let text = "topic: x\nuser_name: X\nuser_name: Y\n";
        let w = reword(
            "duplicate mapping key: user_name, set DuplicateKeyPolicy in Options if acceptable",
            text,
            Some(3),
            Some(1),
        );
        assert_eq!(w.key, "user_name");
        assert_eq!(
            w.message.to_string(),
            "`user_name` is set twice in the same block (first on line 2); keep one"
        );
        assert!(!w.message.to_string().contains("Options"));
    }

    #[test]
    fn a_missing_key_points_at_a_renamed_one_in_its_block() {
        let text = "---\ntopic: t\nconversation_state:\n  current_round: 2\n  max_round: 3\n  consensus_score: 0.2\nturns: 1\n";
        let w = reword("missing field `max_rounds`", text, Some(6), Some(3));
        assert_eq!(w.key, "conversation_state.max_rounds");
        assert_eq!(
            w.message.to_string(),
            "`max_rounds` is missing; is `max_round` on line 5 meant to be `max_rounds`?"
        );
        assert_eq!(w.at, Some((5, 3)), "shown where the renamed key is");
        let w = reword("missing field `zzz`", text, Some(6), Some(3));
        assert_eq!(w.message.to_string(), "`zzz` is missing");
    }

    #[test]
    fn list_items_and_comments_keep_the_path() {
        let text = "cast:\n- id: a\n  name: b\n  # note\n  icon: [x]\n";
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(key_path_at(&lines, 5), ["cast", "icon"]);
        assert_eq!(key_path_at(&lines, 2), ["cast", "id"]);
    }

    #[test]
    fn messages_it_does_not_know_pass_through_located() {
        let w = reword("found unexpected end of stream", CONFIG, Some(6), Some(5));
        assert_eq!(w.key, "bmad.llm.temperature");
        assert_eq!(w.message.to_string(), "found unexpected end of stream");
        assert_eq!(reword("odd", CONFIG, None, None).key, "");
    }
}
