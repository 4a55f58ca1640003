//! The `key=value` fields of a turn marker (`<!-- party:turn kind=agent
//! round=3 … -->`). A value is written bare when it can be; one that holds
//! whitespace, a control character or `>`, or opens with a quote (a
//! model's name may be anything a server lists) is written quoted, with
//! JSON's escapes. What must stay true of a marker: it is one line, it
//! holds no control character and no `>` but its end (a Markdown viewer
//! ends the comment at the first `-->`, and HTML at `--!>` too), and every
//! value reads back as it was written.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `v` can be written bare: read back up to the next whitespace,
/// it is all of itself.
fn bare(v: &str) -> bool {
    !v.starts_with('"') && !v.contains('>') && !v.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Appends ` key=value` to a marker, the value bare or quoted (`bare`).
pub(super) fn push_field(out: &mut String, key: &str, value: &str) {
    if bare(value) {
        let _ = write!(out, " {key}={value}");
        return;
    }
    let _ = write!(out, " {key}=\"");
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            // No `>`, so no `-->`; every whitespace but the space and every
            // control character as an escape, so the marker stays one line
            // with nothing unseen in it. All of these are in the BMP.
            '>' => out.push_str("\\u003e"),
            c if c.is_control() || (c.is_whitespace() && c != ' ') => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The fields of a marker's text (between `party:turn ` and ` -->`), in
/// order. A quoted value is read with its escapes; a quote that does not
/// close or does not read as one (a file of an older version, which wrote
/// every value bare) leaves the value bare, up to the next whitespace.
/// Words without `=` are skipped.
pub(super) fn fields(text: &str) -> Vec<(&str, Cow<'_, str>)> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let Some((key, after)) = rest[..word_end].split_once('=') else {
            rest = rest[word_end..].trim_start();
            continue;
        };
        let at = key.len() + 1;
        let quoted = after.starts_with('"').then(|| quoted(&rest[at..])).flatten();
        let (value, used) = match quoted {
            Some((v, n)) => (Cow::Owned(v), at + n),
            None => (Cow::Borrowed(after), word_end),
        };
        out.push((key, value));
        rest = rest[used..].trim_start();
    }
    out
}

/// A quoted value at the start of `s` and the bytes it takes, if it closes
/// and reads as a JSON string.
fn quoted(s: &str) -> Option<(String, usize)> {
    let mut escaped = false;
    let close = s.char_indices().skip(1).find_map(|(i, c)| match c {
        _ if escaped => {
            escaped = false;
            None
        }
        '\\' => {
            escaped = true;
            None
        }
        '"' => Some(i),
        _ => None,
    })?;
    let end = close + 1;
    // A quoted value ends a field: what follows is whitespace or the end.
    if !s[end..].chars().next().is_none_or(char::is_whitespace) {
        return None;
    }
    serde_json::from_str::<String>(&s[..end]).ok().map(|v| (v, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(pairs: &[(&str, &str)]) -> String {
        let mut out = String::new();
        for (k, v) in pairs {
            push_field(&mut out, k, v);
        }
        out
    }

    #[test]
    fn any_value_reads_back_as_written_and_the_marker_stays_one_clean_line() {
        let names = [
            "Qwen/Qwen2.5-1.5B-Instruct:q4",
            "a model with spaces",
            r#"say "hi" \ there\"#,
            "\"opens with a quote",
            "x --> <!-- party:turn kind=agent round=9 -->",
            "x--!>y",
            "tab\there\nline\r\u{7}bell\u{1b}[31m\u{9b}\u{7f}\u{2028}\u{a0}end",
            "漢字 🏗️ ok",
        ];
        for name in names {
            let text = written(&[("agent", "architect"), ("model", name), ("endpoint", "hosted")]);
            assert!(!text.contains('>'), "no comment end of any kind: {text}");
            assert!(!text.chars().any(char::is_control), "no control character is written: {text:?}");
            assert!(!text.chars().any(|c| c.is_whitespace() && c != ' '), "{text:?}");
            let back = fields(&text);
            let back: Vec<(&str, &str)> = back.iter().map(|(k, v)| (*k, v.as_ref())).collect();
            assert_eq!(back, [("agent", "architect"), ("model", name), ("endpoint", "hosted")], "{text}");
        }
        assert_eq!(written(&[("model", "llama3.2")]), " model=llama3.2", "bare when it can be");
        assert_eq!(written(&[("model", "a b")]), " model=\"a b\"");
    }

    #[test]
    fn an_older_files_bare_values_read_as_they_were() {
        let text = "kind=agent round=3 agent=architect model=\"unclosed endpoint=hosted stray model2=\"x\"y";
        let back = fields(text);
        let back: Vec<(&str, &str)> = back.iter().map(|(k, v)| (*k, v.as_ref())).collect();
        assert_eq!(
            back,
            [
                ("kind", "agent"),
                ("round", "3"),
                ("agent", "architect"),
                ("model", "\"unclosed"),
                ("endpoint", "hosted"),
                ("model2", "\"x\"y"),
            ]
        );
        assert!(fields("").is_empty() && fields("   ").is_empty());
    }
}
