//! The voice bench's text: tokens, sentences, runs of words and content
//! words, shared by the scorer's judgements (`score.rs`).

use std::collections::HashSet;

use regex::Regex;

/// The content words of `text`: Latin words of four letters or more,
/// crudely stemmed, and CJK character pairs; none of the `common` ones.
pub fn content_terms(text: &str, common: &HashSet<String>) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut run: Vec<char> = Vec::new();
    let flush = |run: &mut Vec<char>, out: &mut HashSet<String>| {
        out.extend(run.windows(2).map(|w| w.iter().collect::<String>()));
        run.clear();
    };
    for tok in tokens(text) {
        if tok.chars().all(is_cjk) {
            run.extend(tok.chars());
            continue;
        }
        flush(&mut run, &mut out);
        let w = tok.trim_matches(|c| c == '\'' || c == '’');
        if w.chars().count() < 4 || w.chars().any(|c| c.is_ascii_digit()) {
            continue;
        }
        out.insert(stem(w));
    }
    flush(&mut run, &mut out);
    out.retain(|t| !common.contains(t));
    out
}

/// A line of Markdown with no word in it: a heading's hashes or a list's
/// number or bullet alone (`### 2.`, `1.`, `•`).
pub fn is_bare_heading(line: &str) -> bool {
    let t = line.trim();
    let marked = t.starts_with('#') || t.chars().next().is_some_and(|c| c.is_ascii_digit()) || t.starts_with(['-', '•', '*']);
    marked
        && !t.is_empty()
        && t.chars()
            .all(|c| matches!(c, '#' | '*' | '_' | '-' | '•' | '.' | ')' | '、' | ' ') || c.is_ascii_digit())
        && t.chars().any(|c| matches!(c, '#' | '.' | ')' | '、' | '•') || c.is_ascii_digit())
}

/// A line that announces what follows (ending in a colon) with nothing
/// under it: last in the reply, or with the lines it announced gone — two
/// blank lines or more, then a line that is no point of a list.
pub fn announces_nothing(reply: &str) -> bool {
    let lines: Vec<&str> = reply.trim_end().lines().collect();
    lines.iter().enumerate().any(|(i, line)| {
        let t = line.trim().trim_end_matches(['*', '_']);
        if !t.ends_with([':', '：']) || !t.chars().any(char::is_alphanumeric) {
            return false;
        }
        let rest = &lines[i + 1..];
        let blanks = rest.iter().take_while(|l| l.trim().is_empty()).count();
        match rest.get(blanks) {
            None => true,
            Some(next) => blanks >= 2 && !is_list_item(next),
        }
    })
}

/// Whether a line of `reply` that ends in a question is answered by the
/// next line, opening as an answer does (`openers`, lower case: "That is
/// true, but…", "是的，"): one turn written as two voices. A question and
/// its answer on one line is how a colleague argues aloud, and stays.
pub fn answers_itself(reply: &str, openers: &[String]) -> bool {
    let lines: Vec<&str> = reply.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    lines.windows(2).any(|w| {
        let next = w[1].trim_start_matches(['*', '_', '-', '"', '“', '「', ' ']).to_lowercase();
        w[0].trim_end_matches(['*', '_', '"', '”', '」']).ends_with(['?', '？']) && openers.iter().any(|o| next.starts_with(o.as_str()))
    })
}

/// Whether `reply` holds one of `principles` word for word (case and the
/// principle's closing mark aside): a slogan, not an argument from it.
/// Principles of fewer than four words (six CJK characters) are phrases
/// anyone may use.
pub fn recites(principles: &[String], reply: &str) -> bool {
    let reply = reply.to_lowercase();
    principles.iter().any(|p| {
        let p = p.trim().trim_end_matches(['.', '。', '!', '！']).to_lowercase();
        let long = p.split_whitespace().count() >= 4 || p.chars().filter(|c| is_cjk(*c)).count() >= 6;
        long && reply.contains(&p)
    })
}

/// The quotation marks a reply may be wrapped in, opening and closing.
const QUOTE_PAIRS: &[(char, char)] = &[('"', '"'), ('“', '”'), ('「', '」'), ('『', '』'), ('«', '»')];

/// The whole reply is one quotation (`"We should ship it."`), not a reply
/// that opens and closes with two (`"Ship" or "wait"`).
pub fn wrapped_in_quotes(reply: &str) -> bool {
    let t = reply.trim();
    QUOTE_PAIRS.iter().any(|&(open, close)| {
        t.strip_prefix(open)
            .and_then(|r| r.strip_suffix(close))
            .is_some_and(|inner| !inner.trim().is_empty() && !inner.contains(close))
    })
}

/// A line that opens a point of a list with words in it: `1. Ship it`,
/// `- Ship it`, `• …`, `2、…`, a Markdown heading, or a bold title
/// (`**Pilot first**: …`). `**Note**` inside a sentence, `-5 %` and a
/// number that opens a sentence ("3 people can…") are no items.
pub fn is_list_item(line: &str) -> bool {
    let t = line.trim();
    let digits = t.trim_start_matches(|c: char| c.is_ascii_digit());
    let numbered = (digits.len() < t.len())
        .then(|| {
            digits
                .strip_prefix(['.', ')'])
                .filter(|r| r.starts_with([' ', '*']))
                .or_else(|| digits.strip_prefix('、'))
        })
        .flatten();
    let rest = if let Some(r) = t.strip_prefix(['-', '*', '+', '•']).filter(|r| r.starts_with(' ')) {
        r
    } else if let Some(r) = numbered {
        r
    } else if t.starts_with('#') {
        t.trim_start_matches('#')
    } else if let Some(r) = t.strip_prefix("**") {
        // A bold title opening the line: closed at the line's end or before a colon.
        return r.find("**").is_some_and(|end| {
            let (title, after) = (&r[..end], r[end + 2..].trim_start());
            title.chars().any(char::is_alphanumeric) && (after.is_empty() || after.starts_with([':', '：']) || title.ends_with([':', '：']))
        });
    } else {
        return false;
    };
    rest.chars().any(char::is_alphanumeric)
}

/// "shipping", "ships", "shipped" → "shipp"/"ship": enough for overlap.
pub(super) fn stem(w: &str) -> String {
    for suffix in ["ing", "ed", "es", "s"] {
        if let Some(base) = w.strip_suffix(suffix).filter(|b| b.chars().count() >= 4) {
            return base.to_string();
        }
    }
    w.to_string()
}

/// Latin words (lowercased) and single CJK characters, in order.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if is_cjk(c) {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            out.push(c.to_string());
        } else if c.is_alphanumeric() || c == '\'' || c == '’' {
            word.extend(c.to_lowercase());
        } else if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

pub fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// Sentences: split at `.!?。！？` and line breaks.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        cur.push(c);
        if matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '\n') {
            if !cur.trim().is_empty() {
                out.push(cur.trim().to_string());
            }
            cur.clear();
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

pub(super) fn grams(tokens: &[String], n: usize) -> HashSet<Vec<String>> {
    tokens.windows(n).map(|w| w.to_vec()).collect()
}

/// The share of `sentence`'s tokens inside an n-gram found in `seen`.
pub(super) fn coverage(sentence: &[String], seen: &HashSet<Vec<String>>, n: usize) -> f64 {
    if sentence.len() < n {
        return 0.0;
    }
    let mut covered = vec![false; sentence.len()];
    for (i, w) in sentence.windows(n).enumerate() {
        if seen.contains(w) {
            covered[i..i + n].iter_mut().for_each(|c| *c = true);
        }
    }
    covered.iter().filter(|c| **c).count() as f64 / sentence.len() as f64
}

pub(super) fn gram_size(chinese_text: bool) -> usize {
    if chinese_text {
        6
    } else {
        5
    }
}

/// A sentence long enough for its copying to mean something.
pub(super) fn long_enough(t: &[String]) -> bool {
    let cjk = t.iter().filter(|w| w.chars().all(is_cjk)).count();
    t.len() >= 8 || cjk >= 12
}

/// Whether `reply` shows the runtime's instructions or markers: fixed
/// phrases, a marker written otherwise, or a long run of `runtime_texts`.
pub(super) fn leaks(reply: &str, runtime_texts: &[String]) -> bool {
    const FIXED: &[&str] = &[
        "[round",
        "it is your turn",
        "it is my turn",
        "your turn,",
        "already spoke this round",
        "already spoken this round",
        "you speak first",
        "speaks_first",
        "spoke_before",
        "{{",
        "<!--",
        "-->",
        "!?@human",
        "(facilitator):",
        "no name prefix",
        "rules of the room",
        "note from the session",
        "会话提示",
        "轮到你",
        "轮到我",
        "本轮已发言",
        "本轮已经发言",
    ];
    let lower = reply.to_lowercase();
    if FIXED.iter().any(|f| lower.contains(f)) {
        return true;
    }
    // The ask marker written otherwise: marks before any mention
    // (`!@Sam:`, `?@human`); prose has no `!@`.
    static MARKED_MENTION: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| Regex::new(r"[!?！？]@\w").expect("a valid pattern"));
    if MARKED_MENTION.is_match(reply) {
        return true;
    }
    // The end marker with its comment marks lost (`-- END`, `END -->`,
    // a bare `END`), as small models write it at a reply's end.
    const MANGLED_END: &[&str] = &["-- END", "--END", "END -->", "END-->"];
    if reply.lines().any(|l| {
        let t = l.trim_end();
        t == "END" || MANGLED_END.iter().any(|m| t.ends_with(m))
    }) {
        return true;
    }
    // A run of the runtime's own words: 8 words, or 12 CJK characters.
    let n_latin = 8;
    let toks = tokens(reply);
    let runtime: HashSet<Vec<String>> = runtime_texts.iter().flat_map(|t| grams(&tokens(t), n_latin)).collect();
    let runtime_cjk: HashSet<Vec<String>> = runtime_texts
        .iter()
        .flat_map(|t| grams(&tokens(t).into_iter().filter(|w| w.chars().all(is_cjk)).collect::<Vec<_>>(), 12))
        .collect();
    let cjk_only: Vec<String> = toks.iter().filter(|w| w.chars().all(is_cjk)).cloned().collect();
    toks.windows(n_latin).any(|w| runtime.contains(w)) || cjk_only.windows(12).any(|w| runtime_cjk.contains(w))
}
