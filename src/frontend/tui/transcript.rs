//! The transcript: its entries, where the reader is, and the entries
//! wrapped for the current width. Scrolling and drawing both live here, so
//! the scroll position has one home and drawing only reads the app.
//!
//! Cost does not grow with the transcript: each entry is wrapped once per
//! width and cached (entries never change after they are pushed), the
//! scroll position is an anchor (entry, row) rather than an absolute row, and
//! only the entries that intersect the viewport are touched.

use std::cell::{Cell, RefCell};

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use super::markdown::{parse, wrap, Logical};
use super::theme::{agent_color, Speakers, AMBER, ASK, CALM, DANGER, FAINT, MUTED, PUSH, TEXT};
use crate::engine::{EarlierTurn, NoticeKind};
use crate::i18n::{Say, Screen};
use crate::session::TurnKind;

#[derive(Debug, Clone, PartialEq)]
pub enum EntryKind {
    Welcome,
    Facilitator,
    Agent {
        id: String,
        interrupted: bool,
    },
    Farewell {
        id: String,
    },
    Notice(NoticeKind),
    Failed {
        id: String,
    },
    Highlights,
    Closing,
    Question {
        id: String,
    },
    Push,
    /// A rule across the transcript with a word in it.
    Divider,
}

impl EntryKind {
    /// The agent whose turn this is, for the turns that keep a speaking order.
    pub(crate) fn speaker(&self) -> Option<&str> {
        match self {
            EntryKind::Agent { id, .. } | EntryKind::Farewell { id } | EntryKind::Failed { id } => Some(id),
            _ => None,
        }
    }

    /// How a turn of an earlier sitting shows in the transcript. The file keeps
    /// failures, questions and pushes as the whole line that was shown, so
    /// they show as notices: no heading is added twice.
    pub(crate) fn earlier(t: &EarlierTurn) -> EntryKind {
        let id = || t.agent.clone().unwrap_or_default();
        match t.kind {
            TurnKind::Facilitator => EntryKind::Facilitator,
            TurnKind::Agent => EntryKind::Agent {
                id: id(),
                interrupted: t.interrupted,
            },
            TurnKind::Farewell => EntryKind::Farewell { id: id() },
            TurnKind::Highlights => EntryKind::Highlights,
            TurnKind::Closing => EntryKind::Closing,
            TurnKind::Failed => EntryKind::Notice(NoticeKind::Error),
            TurnKind::Question | TurnKind::Push | TurnKind::Notice | TurnKind::Continue | TurnKind::Reset => {
                EntryKind::Notice(NoticeKind::Info)
            }
        }
    }
}

/// One finished item of the transcript. Entries never change once pushed,
/// which is what makes the per-entry wrap cache valid.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub kind: EntryKind,
    pub text: String,
}

/// What a key or the wheel asks of the transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScrollAction {
    Up(usize),
    Down(usize),
    PageUp,
    PageDown,
    Top,
    Bottom,
}

#[derive(Debug, Default)]
struct WrapCache {
    width: u16,
    lines: Vec<Option<Vec<Line<'static>>>>,
}

#[derive(Debug, Default)]
pub struct Transcript {
    entries: Vec<Entry>,
    /// Top of the viewport when the reader has scrolled up; None follows the end.
    anchor: Option<(usize, usize)>,
    /// Something arrived while the reader was scrolled up.
    new_below: bool,
    /// Where the transcript was last drawn: what a page is.
    area: Cell<Rect>,
    cache: RefCell<WrapCache>,
}

impl Transcript {
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub(crate) fn push(&mut self, kind: EntryKind, text: String) {
        self.entries.push(Entry { kind, text });
        if self.anchor.is_some() {
            self.new_below = true;
        }
    }

    /// An entry before others already there (a reply that finished before
    /// one picked to speak ahead of it). The reader keeps their place.
    pub(crate) fn insert(&mut self, i: usize, kind: EntryKind, text: String) {
        if i >= self.entries.len() {
            return self.push(kind, text);
        }
        self.entries.insert(i, Entry { kind, text });
        let mut cache = self.cache.borrow_mut();
        if i < cache.lines.len() {
            cache.lines.insert(i, None);
        }
        if let Some((e, _)) = &mut self.anchor {
            if *e >= i {
                *e += 1;
            }
            self.new_below = true;
        }
    }

    /// The reader has scrolled up (the view does not follow new text).
    pub fn scrolled(&self) -> bool {
        self.anchor.is_some()
    }

    /// Runs `f` on entry `i` wrapped to `width`, wrapping it on first use.
    fn with_lines<R>(&self, who: &Speakers<'_>, width: u16, i: usize, f: impl FnOnce(&[Line<'static>]) -> R) -> R {
        let mut cache = self.cache.borrow_mut();
        if cache.width != width {
            cache.width = width;
            cache.lines.clear();
        }
        if cache.lines.len() < self.entries.len() {
            cache.lines.resize(self.entries.len(), None);
        }
        let lines = cache.lines[i].get_or_insert_with(|| {
            let mut lines = entry_lines(who, &self.entries[i], width);
            lines.push(Line::default());
            lines
        });
        f(lines)
    }

    fn height(&self, who: &Speakers<'_>, width: u16, i: usize) -> usize {
        self.with_lines(who, width, i, <[Line<'static>]>::len)
    }

    /// The anchor of the last screenful (what "follow" shows).
    fn bottom_anchor(&self, who: &Speakers<'_>, width: u16, rows: usize) -> (usize, usize) {
        let mut need = rows;
        let mut i = self.entries.len();
        while i > 0 {
            i -= 1;
            let h = self.height(who, width, i);
            if h >= need {
                return (i, h - need);
            }
            need -= h;
        }
        (0, 0)
    }

    pub(crate) fn scroll(&mut self, who: &Speakers<'_>, action: ScrollAction) {
        let area = self.area.get();
        let (rows, width) = (usize::from(area.height.max(1)), area.width.max(1));
        if self.entries.is_empty() {
            return;
        }
        let page = rows.saturating_sub(2).max(1);
        match action {
            ScrollAction::Top => self.anchor = Some((0, 0)),
            ScrollAction::Bottom => self.anchor = None,
            ScrollAction::Up(n) => self.move_up(who, width, rows, n),
            ScrollAction::PageUp => self.move_up(who, width, rows, page),
            ScrollAction::Down(n) => self.move_down(who, width, rows, n),
            ScrollAction::PageDown => self.move_down(who, width, rows, page),
        }
        if self.anchor.is_none() {
            self.new_below = false;
        }
    }

    fn move_up(&mut self, who: &Speakers<'_>, width: u16, rows: usize, mut n: usize) {
        let (mut e, mut r) = self.anchor.unwrap_or_else(|| self.bottom_anchor(who, width, rows));
        while n > 0 {
            if r >= n {
                r -= n;
                n = 0;
            } else {
                n -= r + 1;
                if e == 0 {
                    r = 0;
                    break;
                }
                e -= 1;
                r = self.height(who, width, e) - 1;
            }
        }
        self.anchor = Some((e, r));
    }

    fn move_down(&mut self, who: &Speakers<'_>, width: u16, rows: usize, mut n: usize) {
        let Some((mut e, mut r)) = self.anchor else { return };
        while n > 0 && e < self.entries.len() {
            let h = self.height(who, width, e);
            if r + n < h {
                r += n;
                n = 0;
            } else {
                n -= h - r;
                e += 1;
                r = 0;
            }
        }
        // Reaching the last screenful means following again.
        let bottom = self.bottom_anchor(who, width, rows);
        self.anchor = if e >= self.entries.len() || (e, r) >= bottom {
            None
        } else {
            Some((e, r))
        };
    }

    /// The rows to show in a viewport of `rows`, and whether they are the
    /// reader's scrolled-up place (false: the end is shown).
    fn visible(&self, who: &Speakers<'_>, width: u16, rows: usize) -> (Vec<Line<'static>>, bool) {
        if let Some((e, r)) = self.anchor {
            let mut out = Vec::with_capacity(rows);
            let mut i = e.min(self.entries.len());
            let mut skip = r;
            while out.len() < rows && i < self.entries.len() {
                self.with_lines(who, width, i, |lines| {
                    out.extend(lines.iter().skip(skip).take(rows - out.len()).cloned());
                });
                skip = 0;
                i += 1;
            }
            // A place that no longer fills the view (the terminal grew)
            // shows the end; the next scroll starts from there.
            if out.len() == rows {
                return (out, true);
            }
        }
        let (e, r) = self.bottom_anchor(who, width, rows);
        let mut out = Vec::with_capacity(rows);
        let mut skip = r;
        for i in e..self.entries.len() {
            self.with_lines(who, width, i, |lines| out.extend(lines.iter().skip(skip).cloned()));
            skip = 0;
        }
        out.truncate(rows);
        (out, false)
    }

    pub(crate) fn draw(&self, frame: &mut Frame<'_>, who: &Speakers<'_>, area: Rect) {
        let block = Block::new().borders(Borders::TOP).border_style(Style::new().fg(FAINT));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        self.area.set(inner);
        let (lines, scrolled) = self.visible(who, inner.width.max(1), usize::from(inner.height));
        frame.render_widget(Paragraph::new(lines), inner);
        if self.new_below && scrolled {
            let label = format!(" {} ↓ ", Screen::NewMessages.say(who.lang));
            let w = (label.width() as u16).min(inner.width);
            let r = Rect {
                x: inner.right().saturating_sub(w),
                y: inner.bottom().saturating_sub(1),
                width: w,
                height: 1.min(inner.height),
            };
            frame.render_widget(Paragraph::new(label).style(Style::new().bg(CALM).fg(TEXT)), r);
        }
    }
}

fn entry_lines(who: &Speakers<'_>, e: &Entry, width: u16) -> Vec<Line<'static>> {
    let body = |text: &str| wrap(&parse(text), width);
    let name_of = |id: &str| match who.agent(id) {
        Some(a) => (format!("{} {}", a.icon, a.name), a.title.clone(), agent_color(a.color.as_deref())),
        None => (id.to_string(), String::new(), super::theme::agent_color(None)),
    };
    match &e.kind {
        EntryKind::Welcome | EntryKind::Highlights => body(&e.text),
        EntryKind::Closing => body(&e.text)
            .into_iter()
            .map(|l| l.style(Style::new().add_modifier(Modifier::BOLD)))
            .collect(),
        EntryKind::Facilitator => {
            let mut v = vec![Line::from(Span::styled(
                format!("▶ {}", who.user_name),
                Style::new().fg(TEXT).add_modifier(Modifier::BOLD),
            ))];
            v.extend(plain(e.text.clone(), Style::default(), width));
            v
        }
        EntryKind::Agent { id, interrupted } => speaker_lines(who, id, *interrupted, false, &e.text, width),
        EntryKind::Farewell { id } => speaker_lines(who, id, false, true, &e.text, width),
        EntryKind::Question { id } => {
            let (name, _, color) = name_of(id);
            let head = Screen::AgentAsks { name: &name }.say(who.lang);
            let mut v = plain(
                format!("{head} {}", e.text),
                Style::new().fg(color).add_modifier(Modifier::BOLD),
                width,
            );
            v.push(Line::from(Span::styled(
                Screen::AwaitingAnswerMark.say(who.lang),
                Style::new().fg(ASK).add_modifier(Modifier::ITALIC),
            )));
            v
        }
        EntryKind::Push => {
            let text = Screen::AutomaticPush { text: &e.text }.say(who.lang);
            plain(text, Style::new().fg(PUSH).add_modifier(Modifier::ITALIC), width)
        }
        EntryKind::Failed { id } => {
            let (name, _, _) = name_of(id);
            let text = Screen::AgentFailed {
                name: &name,
                cause: &e.text,
            }
            .say(who.lang);
            plain(text, Style::new().fg(DANGER), width)
        }
        EntryKind::Divider => {
            let text = format!(" {} ", e.text);
            let side = usize::from(width).saturating_sub(text.width()) / 2;
            let rule = "─".repeat(side);
            vec![Line::from(Span::styled(format!("{rule}{text}{rule}"), Style::new().fg(FAINT)))]
        }
        EntryKind::Notice(kind) => {
            let style = match kind {
                NoticeKind::Warning => Style::new().fg(AMBER),
                NoticeKind::Limit | NoticeKind::Error => Style::new().fg(DANGER),
                NoticeKind::Exit => Style::new().fg(ASK),
                NoticeKind::Info => Style::new().fg(MUTED),
            };
            e.text.lines().flat_map(|line| plain(line.to_string(), style, width)).collect()
        }
    }
}

/// `text` as one styled run, wrapped to `width` (not read as Markdown).
fn plain(text: String, style: Style, width: u16) -> Vec<Line<'static>> {
    wrap(
        &[Logical {
            spans: vec![Span::styled(text, style)],
            ..Default::default()
        }],
        width,
    )
}

fn speaker_lines(who: &Speakers<'_>, id: &str, interrupted: bool, farewell: bool, text: &str, width: u16) -> Vec<Line<'static>> {
    let (name, title, color) = match who.agent(id) {
        Some(a) => (format!("{} {}", a.icon, a.name), a.title.clone(), agent_color(a.color.as_deref())),
        None => (id.to_string(), String::new(), super::theme::agent_color(None)),
    };
    let mut head = vec![Span::styled(name, Style::new().fg(color).add_modifier(Modifier::BOLD))];
    let model = super::theme::model_tag(who.agent(id));
    if !model.is_empty() {
        head.push(Span::styled(model, Style::new().fg(FAINT)));
    }
    if !title.is_empty() {
        head.push(Span::styled(format!(" · {title}"), Style::new().fg(FAINT)));
    }
    if interrupted {
        head.push(Span::styled(
            format!(" {}", Screen::Interrupted.say(who.lang)),
            Style::new().fg(FAINT),
        ));
    }
    if farewell {
        head.push(Span::raw(" 👋"));
    }
    let mut v = vec![Line::from(head)];
    v.extend(wrap(&parse(text), width));
    v
}
