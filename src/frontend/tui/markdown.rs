//! Agent replies are Markdown. Parse with pulldown-cmark into styled logical
//! lines, then wrap them to a width with textwrap's first-fit over styled
//! fragments, measuring with unicode-width as ratatui does, so wide
//! characters and emoji keep the columns aligned.

use super::theme::{ATTENTION, FAINT, MUTED};
use pulldown_cmark::{Event as Md, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use textwrap::core::Fragment;
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// A line before wrapping: a prefix on its first row (bullet, quote bar),
/// the indent of its continuation rows, and the styled content.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Logical {
    pub prefix: Vec<Span<'static>>,
    pub hang: String,
    pub spans: Vec<Span<'static>>,
}

pub(crate) const CODE: Style = Style::new().fg(ATTENTION);
const CODE_BLOCK: Style = Style::new().fg(MUTED);

struct Builder {
    lines: Vec<Logical>,
    cur: Logical,
    styles: Vec<Style>,
    lists: Vec<Option<u64>>,
    quote: usize,
    in_code: bool,
    item_start: bool,
}

impl Builder {
    /// A block or a style begins.
    fn open(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.flush(),
            Tag::Heading { level, .. } => {
                self.blank();
                let s = match level {
                    HeadingLevel::H1 => Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                    _ => Style::new().add_modifier(Modifier::BOLD),
                };
                self.styles.push(s);
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.quote += 1;
            }
            Tag::CodeBlock(_) => {
                self.blank();
                self.in_code = true;
            }
            Tag::List(start) => {
                if self.lists.is_empty() {
                    self.blank();
                } else {
                    self.flush();
                }
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                self.item_start = true;
            }
            Tag::Emphasis => self.styles.push(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.styles.push(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self.styles.push(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { .. } => self.styles.push(Style::new().add_modifier(Modifier::UNDERLINED)),
            _ => self.styles.push(Style::default()),
        }
    }

    /// A block or a style ends.
    fn close(&mut self, end: TagEnd) {
        match end {
            TagEnd::Paragraph => self.blank(),
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.blank();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.quote = self.quote.saturating_sub(1);
                self.blank();
            }
            TagEnd::CodeBlock => {
                self.in_code = false;
                self.blank();
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.blank();
                }
            }
            TagEnd::Item => self.flush(),
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link => {
                self.styles.pop();
            }
            _ => {
                self.styles.pop();
            }
        }
    }

    fn style(&self) -> Style {
        self.styles.iter().fold(Style::default(), |acc, s| acc.patch(*s))
    }

    fn indent(&self) -> String {
        let mut s = "│ ".repeat(self.quote);
        s.push_str(&"  ".repeat(self.lists.len()));
        s
    }

    fn flush(&mut self) {
        let cur = std::mem::take(&mut self.cur);
        if !cur.spans.is_empty() || !cur.prefix.is_empty() {
            self.lines.push(cur);
        }
    }

    fn start_line(&mut self) {
        if self.cur.prefix.is_empty() && self.cur.spans.is_empty() {
            let quote = "│ ".repeat(self.quote);
            let lists = "  ".repeat(self.lists.len().saturating_sub(if self.item_start { 1 } else { 0 }));
            let bar = if quote.is_empty() {
                vec![]
            } else {
                vec![Span::styled(quote, Style::new().fg(FAINT))]
            };
            self.cur.prefix = bar;
            if !lists.is_empty() {
                self.cur.prefix.push(Span::raw(lists));
            }
            if self.item_start {
                self.item_start = false;
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "• ".to_string(),
                };
                self.cur.prefix.push(Span::styled(marker, Style::new().fg(FAINT)));
            }
            self.cur.hang = self.indent();
        }
    }

    fn text(&mut self, t: &str) {
        if self.in_code {
            for (i, l) in t.split('\n').enumerate() {
                if i > 0 {
                    self.flush();
                }
                if l.is_empty() && i > 0 {
                    continue;
                }
                self.start_line();
                if self.cur.spans.is_empty() {
                    self.cur.prefix.push(Span::styled("  ", CODE_BLOCK));
                    self.cur.hang.push_str("  ");
                }
                self.cur.spans.push(Span::styled(l.to_string(), CODE_BLOCK));
            }
            return;
        }
        self.start_line();
        self.cur.spans.push(Span::styled(t.to_string(), self.style()));
    }

    fn blank(&mut self) {
        self.flush();
        if self.lines.last().is_some_and(|l| !(l.spans.is_empty() && l.prefix.is_empty())) {
            self.lines.push(Logical::default());
        }
    }
}

/// Markdown to logical lines. Never fails: anything unusual is shown as text.
pub fn parse(md: &str) -> Vec<Logical> {
    let mut b = Builder {
        lines: Vec::new(),
        cur: Logical::default(),
        styles: Vec::new(),
        lists: Vec::new(),
        quote: 0,
        in_code: false,
        item_start: false,
    };
    let opts = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES;
    for ev in Parser::new_ext(md, opts) {
        match ev {
            Md::Start(tag) => b.open(tag),
            Md::End(end) => b.close(end),
            Md::Text(t) => b.text(&t),
            Md::Code(t) => {
                b.start_line();
                b.cur.spans.push(Span::styled(t.to_string(), b.style().patch(CODE)));
            }
            Md::SoftBreak => b.text(" "),
            Md::HardBreak => b.flush(),
            Md::Rule => {
                b.blank();
                b.lines.push(Logical {
                    spans: vec![Span::styled("────────", Style::new().fg(FAINT))],
                    ..Default::default()
                });
                b.blank();
            }
            Md::Html(t) | Md::InlineHtml(t) => b.text(&t),
            Md::TaskListMarker(done) => b.text(if done { "[x] " } else { "[ ] " }),
            Md::FootnoteReference(t) | Md::InlineMath(t) | Md::DisplayMath(t) => b.text(&t),
        }
    }
    b.flush();
    while b.lines.last().is_some_and(|l| l.spans.is_empty() && l.prefix.is_empty()) {
        b.lines.pop();
    }
    b.lines
}

/// A word (possibly in several styles) and the whitespace after it.
#[derive(Debug)]
struct Word {
    pieces: Vec<(String, Style)>,
    width: usize,
    ws: Option<(String, Style)>,
    ws_width: usize,
}

impl Fragment for Word {
    fn width(&self) -> f64 {
        self.width as f64
    }
    fn whitespace_width(&self) -> f64 {
        self.ws_width as f64
    }
    fn penalty_width(&self) -> f64 {
        0.0
    }
}

fn words(spans: &[Span<'static>]) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::new();
    let mut cur = Word {
        pieces: vec![],
        width: 0,
        ws: None,
        ws_width: 0,
    };
    let push_word = |cur: &mut Word, out: &mut Vec<Word>| {
        if cur.width > 0 || cur.ws_width > 0 {
            out.push(std::mem::replace(
                cur,
                Word {
                    pieces: vec![],
                    width: 0,
                    ws: None,
                    ws_width: 0,
                },
            ));
        }
    };
    for span in spans {
        let style = span.style;
        for g in span.content.graphemes(true) {
            let w = g.width();
            let is_ws = g.chars().all(char::is_whitespace);
            if is_ws {
                let g = if g == "\t" { "    " } else { g };
                match &mut cur.ws {
                    Some((s, _)) => s.push_str(g),
                    None => cur.ws = Some((g.to_string(), style)),
                }
                cur.ws_width += g.width().max(1);
                continue;
            }
            // Text after whitespace, or a CJK character, starts a new word.
            let cjk = g.chars().next().is_some_and(crate::text::is_cjk);
            if cur.ws.is_some()
                || cjk
                || cur
                    .pieces
                    .last()
                    .is_some_and(|(s, _)| s.chars().last().is_some_and(crate::text::is_cjk))
            {
                push_word(&mut cur, &mut out);
            }
            match cur.pieces.last_mut() {
                Some((s, st)) if *st == style => s.push_str(g),
                _ => cur.pieces.push((g.to_string(), style)),
            }
            cur.width += w;
        }
    }
    push_word(&mut cur, &mut out);
    out
}

/// Splits a word wider than `max` into pieces that fit.
fn split_long(word: Word, max: usize) -> Vec<Word> {
    if word.width <= max || max == 0 {
        return vec![word];
    }
    let mut out = Vec::new();
    let mut cur = Word {
        pieces: vec![],
        width: 0,
        ws: None,
        ws_width: 0,
    };
    for (text, style) in word.pieces {
        for g in text.graphemes(true) {
            let w = g.width();
            if cur.width + w > max && cur.width > 0 {
                out.push(std::mem::replace(
                    &mut cur,
                    Word {
                        pieces: vec![],
                        width: 0,
                        ws: None,
                        ws_width: 0,
                    },
                ));
            }
            match cur.pieces.last_mut() {
                Some((s, st)) if *st == style => s.push_str(g),
                _ => cur.pieces.push((g.to_string(), style)),
            }
            cur.width += w;
        }
    }
    cur.ws = word.ws;
    cur.ws_width = word.ws_width;
    out.push(cur);
    out
}

fn width_of(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| s.content.width()).sum()
}

/// Wraps logical lines to `width` columns.
pub fn wrap(lines: &[Logical], width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width.max(1));
    let mut out = Vec::new();
    for l in lines {
        // In a very narrow area a bullet or quote bar would leave no room
        // for the text itself; the text matters more.
        // (A grapheme cannot be split, so the widest one must fit too; it is
        // measured on whole words, where adjacent spans may form one cluster.)
        let merged = words(&l.spans);
        let widest = merged
            .iter()
            .flat_map(|w| w.pieces.iter())
            .flat_map(|(t, _)| t.graphemes(true))
            .map(UnicodeWidthStr::width)
            .max()
            .unwrap_or(1)
            .max(1);
        let prefix = if width_of(&l.prefix) + widest > width {
            Vec::new()
        } else {
            l.prefix.clone()
        };
        if l.spans.is_empty() {
            out.push(Line::from(prefix));
            continue;
        }
        let first_w = width.saturating_sub(width_of(&prefix)).max(1);
        let hang = if l.hang.width() + widest.max(4) > width {
            String::new()
        } else {
            l.hang.clone()
        };
        let rest_w = width.saturating_sub(hang.width()).max(1);
        let ws: Vec<Word> = merged.into_iter().flat_map(|w| split_long(w, rest_w.min(first_w))).collect();
        let rows = textwrap::wrap_algorithms::wrap_first_fit(&ws, &[first_w as f64, rest_w as f64]);
        for (i, row) in rows.iter().enumerate() {
            let mut spans: Vec<Span<'static>> = if i == 0 {
                prefix.clone()
            } else if hang.is_empty() {
                vec![]
            } else {
                vec![Span::raw(hang.clone())]
            };
            for (j, w) in row.iter().enumerate() {
                for (t, st) in &w.pieces {
                    spans.push(Span::styled(t.clone(), *st));
                }
                if j + 1 < row.len() {
                    if let Some((s, st)) = &w.ws {
                        spans.push(Span::styled(s.clone(), *st));
                    }
                }
            }
            out.push(Line::from(spans));
        }
        if rows.is_empty() {
            out.push(Line::from(prefix));
        }
    }
    out
}

/// Plain text of rendered lines (tests).
#[cfg(test)]
pub(crate) fn plain(lines: &[Line<'_>]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_lists_code_and_wrapping() {
        let md = "# Plan\n\nWe **must** use `serde` and *care*.\n\n- first point that is long enough to wrap around\n- second\n\n```\nlet x = 1;\n```\n";
        let lines = wrap(&parse(md), 24);
        let text = plain(&lines);
        assert_eq!(text[0], "Plan");
        assert!(text.contains(&"We must use serde and".to_string()), "{text:?}");
        assert!(text.iter().any(|l| l.starts_with("• first point that is")), "{text:?}");
        assert!(text.iter().any(|l| l.starts_with("  long enough")), "hanging indent: {text:?}");
        assert!(text.iter().any(|l| l.contains("let x = 1;")));
        let bold = lines.iter().flat_map(|l| &l.spans).find(|s| s.content == "must").unwrap();
        assert!(bold.style.add_modifier.contains(Modifier::BOLD));
        let code = lines.iter().flat_map(|l| &l.spans).find(|s| s.content == "serde").unwrap();
        assert_eq!(code.style.fg, Some(ratatui::style::Color::Yellow));
    }

    #[test]
    fn wide_characters_never_overflow() {
        let md = "🏗️ 架构设计需要考虑插件系统的边界和契约，以及失败模式。 and averyveryveryverylongwordthatcannotfit";
        for w in [1u16, 5, 10, 17] {
            for l in wrap(&parse(md), w) {
                assert!(
                    width_of(&l.spans) <= usize::from(w).max(2),
                    "width {w}: {:?}",
                    plain(std::slice::from_ref(&l))
                );
            }
        }
    }
}
