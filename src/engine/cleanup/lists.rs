//! Lists and headings as hygiene reads them: a line that only heads what
//! follows (held until a word under it), a list's mark, and a list's
//! points (a turn makes two, `Voices::points`).

/// A line that only heads what follows: a Markdown heading (`### 2.`,
/// `## Risks`), a list's number or bullet alone (`1.`, `- **`), or a line
/// ending in a colon that announces it ("Here's my recommendation:").
pub(super) fn is_heading(line: &str) -> bool {
    let t = line.trim();
    // A long line ending in a colon says something itself (and would have
    // streamed before its colon came).
    if t.trim_end_matches(['*', '_']).ends_with([':', '：']) {
        return super::sentences::rough_words(t) <= 24;
    }
    let bare = t.trim_matches(['*', '_', ' ']);
    heading_level(t).is_some() || after_list_mark(bare).is_some_and(str::is_empty)
}

/// Whether `line` opens a point of a list with words in it: after a list
/// mark (`1. Ship it`, `- **Pilot**: …`), or a bold title opening the line
/// (`**Pilot first**: …`, `**Pilot first**` alone).
pub(super) fn is_point(line: &str) -> bool {
    if let Some(rest) = after_list_mark(line) {
        return rest.chars().any(char::is_alphanumeric);
    }
    let Some(r) = line.trim_start().strip_prefix("**") else {
        return false;
    };
    r.find("**").is_some_and(|end| {
        let (title, after) = (&r[..end], r[end + 2..].trim());
        title.chars().any(char::is_alphanumeric) && (after.is_empty() || after.starts_with([':', '：']) || title.ends_with([':', '：']))
    })
}

/// Whether an unfinished line may still become a point (`is_point`): a
/// list's mark, a number or bold that may be one.
pub(super) fn could_be_point(t: &str) -> bool {
    let t = t.trim_start();
    after_list_mark(t).is_some() || t.starts_with(['*', '-', '+', '•']) || t.chars().all(|c| c.is_ascii_digit())
}

/// What follows a list item's mark (`- `, `• `, `2. `, `3)`, `4、`), if the
/// line opens with one: empty for a mark alone. `**Bold**`, `-5%` and
/// `1.5 million` are no items.
pub(super) fn after_list_mark(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let bullet = t.strip_prefix(['-', '*', '+', '•']).filter(|r| r.is_empty() || r.starts_with(' '));
    let digits = t.trim_start_matches(|c: char| c.is_ascii_digit());
    let number = (digits.len() < t.len())
        .then(|| {
            digits
                .strip_prefix(['.', ')'])
                .filter(|r| r.is_empty() || r.starts_with([' ', '*']))
                .or_else(|| digits.strip_prefix('、'))
        })
        .flatten();
    bullet.or(number).map(str::trim_start)
}

/// The level of a Markdown heading line (`##` → 2), if it is one.
fn heading_level(line: &str) -> Option<usize> {
    let t = line.trim();
    let hashes = t.len() - t.trim_start_matches('#').len();
    ((1..=6).contains(&hashes) && t[hashes..].starts_with(' ')).then_some(hashes)
}

/// Whether the held heading `held` heads `next` too, so both wait for a
/// word under them (`## Plan` then `### Step 1`; `jobs:` then `build:`):
/// not when it has no word itself (`### 1.`), nor when `next` is a
/// Markdown heading of its level or above.
pub(super) fn heads(held: &str, next: &str) -> bool {
    let last = held.trim_end().rsplit('\n').next().unwrap_or("");
    let worded = last.chars().any(|c| c.is_alphabetic());
    let outranked = match (heading_level(last), heading_level(next)) {
        (Some(a), Some(b)) => b <= a,
        _ => false,
    };
    worded && !outranked
}

/// A line of Markdown marks and nothing else (`**`, `- **`, `##`, `---`):
/// no words to say or to head. Not `~` nor `>`: a `~~~` fence and a quote's
/// blank line hold text apart.
pub(super) fn is_bare_marks(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && t.chars().all(|c| matches!(c, '*' | '_' | '#' | '-' | '=' | ' ' | '\t'))
}

/// A sentence of stops and nothing else (`!` left where the words after it
/// on its line were cut, `…` as a pause): nothing to say. A marker has
/// letters, and is never one.
pub(super) fn is_bare_stops(sentence: &str) -> bool {
    let t = sentence.trim();
    !t.is_empty()
        && t.chars().all(|c| {
            c.is_whitespace()
                || matches!(
                    c,
                    '!' | '?' | '.' | '…' | ',' | ';' | ':' | '。' | '！' | '？' | '，' | '；' | '：' | '、'
                )
        })
}
