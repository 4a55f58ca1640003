//! Text hygiene shared by every front end: model output and file content are
//! untrusted, so nothing that could drive a terminal survives past here.

/// Removes terminal control sequences and invisible controls from untrusted
/// text that arrives in pieces (streamed tokens). It is stateful because an
/// escape sequence may be split across two tokens; a stateless filter would
/// drop the ESC and leave `[2J` visible, or worse, pass half a sequence.
#[derive(Debug, Default, Clone)]
pub struct Sanitizer {
    state: EscState,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum EscState {
    #[default]
    Text,
    /// Saw ESC; the next byte decides the sequence kind.
    Esc,
    /// CSI: parameters until a final byte in 0x40..=0x7E.
    Csi,
    /// OSC, DCS, SOS, PM, APC: a string until BEL or ST (ESC \).
    Str,
    /// Inside a string sequence, saw ESC (maybe the start of ST).
    StrEsc,
}

impl Sanitizer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one piece of text; returns what is safe to show.
    pub fn push(&mut self, input: &str) -> String {
        let mut out = String::with_capacity(input.len());
        for c in input.chars() {
            match self.state {
                EscState::Text => match c {
                    '\u{1b}' => self.state = EscState::Esc,
                    '\u{9b}' => self.state = EscState::Csi,
                    '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => self.state = EscState::Str,
                    '\n' | '\t' => out.push(c),
                    '\r' => {}
                    c if is_invisible_control(c) => {}
                    c => out.push(c),
                },
                EscState::Esc => {
                    self.state = match c {
                        '[' => EscState::Csi,
                        ']' | 'P' | 'X' | '^' | '_' => EscState::Str,
                        // Two-byte sequences (ESC 7, ESC c, ESC ( B…): the
                        // intermediate bytes 0x20..=0x2F take one more byte.
                        '\u{20}'..='\u{2f}' => EscState::Esc,
                        _ => EscState::Text,
                    }
                }
                EscState::Csi => {
                    if ('\u{40}'..='\u{7e}').contains(&c) {
                        self.state = EscState::Text;
                    } else if !('\u{20}'..='\u{3f}').contains(&c) {
                        // Malformed CSI: abandon it rather than swallow text forever.
                        self.state = EscState::Text;
                        if c == '\n' {
                            out.push(c);
                        }
                    }
                }
                EscState::Str => match c {
                    '\u{7}' | '\u{9c}' => self.state = EscState::Text,
                    '\u{1b}' => self.state = EscState::StrEsc,
                    _ => {}
                },
                EscState::StrEsc => {
                    self.state = if c == '\\' { EscState::Text } else { EscState::Str };
                }
            }
        }
        out
    }
}

/// Controls that have no business in displayed text: C0 (but tab and
/// newline), DEL, C1, bidi overrides and isolates (they can reorder what the
/// facilitator reads), and lone surrogate replacements are kept visible.
fn is_invisible_control(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}'
        | '\u{61c}')
}

/// One-shot sanitizing for whole strings (file content, names, errors).
pub(crate) fn sanitize(input: &str) -> String {
    Sanitizer::new().push(input)
}

/// A URL's host and port (`http://127.0.0.1:8080/v1` → `127.0.0.1:8080`),
/// for a line with little room; the whole text if it has no scheme.
pub(crate) fn host_of(url: &str) -> String {
    let shown = shown_url(url);
    let rest = shown.split_once("://").map_or(shown.as_str(), |(_, r)| r);
    rest.split('/').next().unwrap_or(rest).to_string()
}

/// A URL as shown to the facilitator: without the `user:password@` or the
/// query a URL may carry (either may hold a key), and without escape
/// sequences.
pub(crate) fn shown_url(url: &str) -> String {
    let shown = match url.split_once("://") {
        Some((scheme, rest)) => {
            // A query may carry a key (`?api-key=…`): only scheme, host and path.
            let rest = rest.split(['?', '#']).next().unwrap_or(rest);
            let (host, path) = rest.find('/').map_or((rest, ""), |i| rest.split_at(i));
            let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
            format!("{scheme}://{host}{path}")
        }
        None => url.to_string(),
    };
    sanitize(&shown)
}

/// A file-name-safe slug of a topic. Keeps letters of any script (a Chinese
/// topic gives a Chinese file name) and cuts at a character boundary.
pub(crate) fn slug(topic: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in topic.chars() {
        if c.is_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.extend(c.to_lowercase());
        } else {
            dash = true;
        }
        if out.chars().count() >= max_chars {
            break;
        }
    }
    let out: String = out.chars().take(max_chars).collect();
    let out = out.trim_matches('-').to_string();
    if out.is_empty() {
        "party".to_string()
    } else {
        out
    }
}

/// A count as a glance reads it: `950`, `12.3k`.
pub(crate) fn short_count(n: u64) -> String {
    if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

/// `text` within `max` characters, cut in the middle: the head and the
/// tail stay (where two quantisations of one model differ).
pub(crate) fn ellipsize_middle(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max || max == 0 {
        return text.chars().take(max).collect();
    }
    let head = (max - 1) / 2;
    let tail = max - 1 - head;
    let mut s: String = text.chars().take(head).collect();
    s.push('…');
    s.extend(text.chars().skip(n - tail));
    s
}

/// Shortens text to at most `max` characters, marking the cut.
pub(crate) fn ellipsize(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// Shortens text to at most `max` characters from its end, marking the
/// cut: a message's closing question is what a reader of it needs.
pub(crate) fn ellipsize_start(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let mut s = String::from('…');
    s.extend(text.chars().skip(n + 1 - max.max(1)));
    s
}

/// The largest char boundary of `s` at or below `i`.
pub(crate) fn floor_char_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// True for characters of scripts written without spaces between words
/// (Chinese characters, Japanese kana), where word tokens mean nothing and
/// character bigrams carry the signal. Not Hangul: Korean is written with
/// spaces between its words.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}'
        | '\u{f900}'..='\u{faff}')
}

/// Whether `c`, right after a word, goes on that word: a letter or digit
/// of a script written with spaces. Chinese and Japanese have none, and a
/// Korean particle is written onto the word it follows (`지민이`, `Kofi가`,
/// `Ingrid의`), so a name followed by either still ends there.
pub(crate) fn goes_on_word(c: char) -> bool {
    c.is_alphanumeric() && !found_inside_words(c)
}

/// A Hangul letter or syllable: Korean words take their particles
/// (`목록을`), so a Korean phrase is found inside a word.
pub(crate) fn is_hangul(c: char) -> bool {
    // No Hangul comes before the Jamo block: most text is answered
    // without the script table's search.
    c >= HANGUL_FROM && unicode_script::UnicodeScript::script(&c) == unicode_script::Script::Hangul
}

/// The first Hangul character (the Jamo block's start).
const HANGUL_FROM: char = '\u{1100}';

/// Whether a word holding `c` is found inside longer runs of letters:
/// Chinese and Japanese have no spaces, and Korean attaches its particles
/// to the word (`지민이`, `목록을`).
pub(crate) fn found_inside_words(c: char) -> bool {
    is_cjk(c) || is_hangul(c)
}

/// A piece of a text as the matchers read it (`runs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Run<'a> {
    /// Letters and digits of a script written with spaces (an apostrophe
    /// inside too, when asked for: "what's").
    Word(&'a str),
    /// Chinese or Japanese characters, which run on without spaces.
    Cjk(&'a str),
}

/// The words and the CJK runs of `text`, in order; everything else
/// separates them.
pub(crate) fn runs(text: &str, apostrophes: bool) -> Vec<Run<'_>> {
    let mut out = Vec::new();
    let mut start: Option<(usize, bool)> = None;
    for (i, c) in text.char_indices() {
        let kind = if is_cjk(c) {
            Some(true)
        } else if c.is_alphanumeric() || (apostrophes && c == '\'') {
            Some(false)
        } else {
            None
        };
        if let Some((from, cjk)) = start {
            if kind != Some(cjk) {
                out.push(if cjk { Run::Cjk(&text[from..i]) } else { Run::Word(&text[from..i]) });
                start = None;
            }
        }
        if start.is_none() {
            start = kind.map(|k| (i, k));
        }
    }
    if let Some((from, cjk)) = start {
        out.push(if cjk { Run::Cjk(&text[from..]) } else { Run::Word(&text[from..]) });
    }
    out
}

/// Terms for lexical matching: lowercased words (crudely stemmed) for
/// space-separated scripts, character bigrams for CJK runs.
pub(crate) fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in runs(text, false) {
        match run {
            Run::Word(w) => {
                let word = w.to_lowercase();
                if word.chars().count() >= 3 && !is_stopword(&word) {
                    out.push(stem(&word));
                }
            }
            Run::Cjk(r) => {
                let chars: Vec<char> = r.chars().collect();
                if chars.len() == 1 {
                    out.push(r.to_string());
                }
                out.extend(chars.windows(2).map(|pair| pair.iter().collect::<String>()));
            }
        }
    }
    out
}

pub(crate) fn stem(word: &str) -> String {
    // Enough to make "designs", "designing" and "designer" meet; a real
    // stemmer would be a dependency for little gain in persona matching.
    // Repeated suffixes go too, as `trim_end_matches` would ("-ings").
    let mut w = word;
    while let Some(rest) = w.strip_suffix("ing") {
        w = rest;
    }
    while let Some(rest) = w.strip_suffix("es") {
        w = rest;
    }
    let w = w.trim_end_matches('s');
    let w = if w.chars().count() >= 3 { w } else { word };
    match w.char_indices().nth(7) {
        Some((end, _)) => w[..end].to_string(),
        None => w.to_string(),
    }
}

pub(crate) fn is_stopword(w: &str) -> bool {
    const STOP: &[&str] = &[
        "the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "had", "her", "was", "one", "our", "out", "has", "have",
        "how", "its", "let", "may", "now", "see", "she", "too", "use", "way", "who", "did", "get", "this", "that", "with", "what", "when",
        "where", "which", "while", "will", "would", "should", "could", "there", "their", "them", "then", "than", "they", "these", "those",
        "from", "into", "your", "about", "been", "being", "does", "just", "like", "more", "most", "some", "such", "very", "also", "each",
        "only", "over", "both", "here", "want", "need", "think", "make", "well", "much", "many", "why", "were",
    ];
    // Every stopword is 3 to 6 bytes: most words need no comparison at all.
    (3..=6).contains(&w.len()) && STOP.contains(&w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hangul_is_told_without_the_table_only_where_there_is_none() {
        use unicode_script::{Script, UnicodeScript};
        let before = ('\0'..HANGUL_FROM).filter(|c| c.script() == Script::Hangul).count();
        assert_eq!(before, 0);
        assert!(is_hangul('\u{1100}') && is_hangul('목') && !is_hangul('a') && !is_hangul('中'));
    }

    #[test]
    fn a_text_runs_as_words_and_cjk_runs() {
        assert_eq!(
            runs("What's 新产品发布会, v2.0?", true),
            [Run::Word("What's"), Run::Cjk("新产品发布会"), Run::Word("v2"), Run::Word("0")]
        );
        assert_eq!(runs("What's", false), [Run::Word("What"), Run::Word("s")]);
        assert_eq!(runs("지민이 왔다", false), [Run::Word("지민이"), Run::Word("왔다")]);
        assert!(runs(" ,. ", true).is_empty());
    }

    #[test]
    fn a_shortened_end_keeps_the_last_characters() {
        assert_eq!(ellipsize_start("short", 10), "short");
        assert_eq!(ellipsize_start("abcdefghij", 4), "…hij");
        assert_eq!(ellipsize_start("大家都同意吗？", 4), "…意吗？");
    }

    #[test]
    fn strips_sequences_split_across_pieces() {
        let mut s = Sanitizer::new();
        let mut out = s.push("red \u{1b}[3");
        out += &s.push("1mtext\u{1b}]0;evil title\u{7}ok\u{1b}]52;c;aGk=\u{1b}");
        out += &s.push("\\ end");
        assert_eq!(out, "red textok end");
    }

    #[test]
    fn removes_c0_c1_and_bidi_but_keeps_newlines_tabs_and_emoji() {
        let s = sanitize("a\u{0}b\u{7}c\u{85}d\u{202e}e\r\n\tf 🏗️ 中文");
        assert_eq!(s, "abcde\n\tf 🏗️ 中文");
    }

    #[test]
    fn c1_csi_is_a_sequence_too() {
        assert_eq!(sanitize("x\u{9b}2Jy"), "xy");
    }

    #[test]
    fn slugs() {
        assert_eq!(
            slug("How should we design a plugin system?", 40),
            "how-should-we-design-a-plugin-system"
        );
        assert_eq!(slug("插件系统怎么设计？", 40), "插件系统怎么设计");
        assert_eq!(slug("???", 40), "party");
        assert_eq!(slug("a b c d e f g h", 5), "a-b-c");
    }

    #[test]
    fn terms_use_bigrams_for_chinese() {
        let t = terms("插件系统 plugins");
        assert!(t.contains(&"插件".to_string()));
        assert!(t.contains(&"件系".to_string()));
        assert!(t.contains(&"plugin".to_string()));
    }

    #[test]
    fn urls_are_shown_without_credentials() {
        assert_eq!(super::shown_url("http://me:secret@host:8080/v1"), "http://host:8080/v1");
        assert_eq!(super::shown_url("http://127.0.0.1:11434/v1"), "http://127.0.0.1:11434/v1");
        assert_eq!(super::shown_url("https://x.example/v1?api-key=secret"), "https://x.example/v1");
        assert_eq!(super::host_of("https://me:secret@api.example.com/v1?x=1"), "api.example.com");
        assert_eq!(super::host_of("localhost:8080"), "localhost:8080");
    }
}
