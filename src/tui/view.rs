//! Drawing: pure functions of the app state, plus the view's own caches.
//!
//! Cost does not grow with the transcript: each entry is wrapped once per
//! width and cached (entries never change after they are pushed), the
//! scroll position is an anchor (entry, row) rather than an absolute row, and
//! only the entries that intersect the viewport are touched.

use std::time::Instant;

use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use super::app::{App, Entry, EntryKind, Focus, Modal, Pane, PaneStatus, ScrollAction};
use super::markdown::{parse, wrap};
use crate::engine::{NoticeKind, Phase};
use crate::i18n::Lang;
use crate::session::ConfirmKind;

pub const MIN_WIDTH: u16 = 40;
pub const MIN_HEIGHT: u16 = 12;
const AMBER: Color = Color::Rgb(255, 176, 0);

fn l(lang: Lang, en: &'static str, zh: &'static str) -> &'static str {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

pub fn agent_color(name: Option<&str>) -> Color {
    match name.unwrap_or("") {
        "red" => Color::Red,
        "green" => Color::Green,
        "yellow" => Color::Yellow,
        "blue" => Color::Blue,
        "magenta" => Color::Magenta,
        "cyan" => Color::Cyan,
        "gray" => Color::Gray,
        "white" => Color::White,
        "lightred" => Color::LightRed,
        "lightgreen" => Color::LightGreen,
        "lightyellow" => Color::LightYellow,
        "lightblue" => Color::LightBlue,
        "lightmagenta" => Color::LightMagenta,
        "lightcyan" => Color::LightCyan,
        hex if hex.len() == 7 && hex.starts_with('#') => {
            let p = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or(200);
            Color::Rgb(p(1), p(3), p(5))
        }
        _ => Color::Cyan,
    }
}

/// The view's memory between frames: wrapped entries and where the reader is.
#[derive(Debug, Default)]
pub struct ViewState {
    width: u16,
    cache: Vec<Option<Vec<Line<'static>>>>,
    /// Top of the viewport when the reader has scrolled up; None follows the end.
    pub anchor: Option<(usize, usize)>,
    pub transcript_area: Rect,
}

impl ViewState {
    fn ensure_width(&mut self, width: u16) {
        if width != self.width {
            self.width = width;
            self.cache.clear();
        }
    }

    fn lines(&mut self, app: &App, i: usize) -> &Vec<Line<'static>> {
        if self.cache.len() < app.entries.len() {
            self.cache.resize(app.entries.len(), None);
        }
        if self.cache[i].is_none() {
            let mut lines = entry_lines(app, &app.entries[i], self.width);
            lines.push(Line::default());
            self.cache[i] = Some(lines);
        }
        self.cache[i].as_ref().expect("just filled")
    }

    fn height(&mut self, app: &App, i: usize) -> usize {
        self.lines(app, i).len()
    }

    /// The anchor of the last screenful (what "follow" shows).
    fn bottom_anchor(&mut self, app: &App, rows: usize) -> (usize, usize) {
        let mut need = rows;
        let mut i = app.entries.len();
        while i > 0 {
            i -= 1;
            let h = self.height(app, i);
            if h >= need {
                return (i, h - need);
            }
            need -= h;
        }
        (0, 0)
    }

    pub fn scroll(&mut self, app: &mut App, action: ScrollAction) {
        let rows = usize::from(self.transcript_area.height.max(1));
        if app.entries.is_empty() {
            return;
        }
        self.ensure_width(self.transcript_area.width.max(1));
        let page = rows.saturating_sub(2).max(1);
        match action {
            ScrollAction::Top => self.anchor = Some((0, 0)),
            ScrollAction::Bottom => self.anchor = None,
            ScrollAction::Up(n) => self.move_up(app, rows, n),
            ScrollAction::PageUp => self.move_up(app, rows, page),
            ScrollAction::Down(n) => self.move_down(app, rows, n),
            ScrollAction::PageDown => self.move_down(app, rows, page),
        }
        app.scrolled = self.anchor.is_some();
        if self.anchor.is_none() {
            app.new_below = false;
        }
    }

    fn move_up(&mut self, app: &App, rows: usize, mut n: usize) {
        let (mut e, mut r) = self.anchor.unwrap_or_else(|| self.bottom_anchor(app, rows));
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
                r = self.height(app, e) - 1;
            }
        }
        self.anchor = Some((e, r));
    }

    fn move_down(&mut self, app: &App, rows: usize, mut n: usize) {
        let Some((mut e, mut r)) = self.anchor else { return };
        while n > 0 && e < app.entries.len() {
            let h = self.height(app, e);
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
        let bottom = self.bottom_anchor(app, rows);
        self.anchor = if e >= app.entries.len() || (e, r) >= bottom {
            None
        } else {
            Some((e, r))
        };
    }

    /// The rows to show in a viewport of `rows`.
    fn visible(&mut self, app: &mut App, rows: usize) -> Vec<Line<'static>> {
        if let Some((e, r)) = self.anchor {
            let mut out = Vec::with_capacity(rows);
            let mut i = e.min(app.entries.len());
            let mut skip = r;
            while out.len() < rows && i < app.entries.len() {
                let lines = self.lines(app, i);
                out.extend(lines.iter().skip(skip).take(rows - out.len()).cloned());
                skip = 0;
                i += 1;
            }
            if out.len() == rows {
                return out;
            }
            self.anchor = None;
            app.scrolled = false;
            app.new_below = false;
        }
        let (e, r) = self.bottom_anchor(app, rows);
        let mut out = Vec::with_capacity(rows);
        let mut skip = r;
        for i in e..app.entries.len() {
            let lines = self.lines(app, i);
            out.extend(lines.iter().skip(skip).cloned());
            skip = 0;
        }
        out.truncate(rows);
        out
    }
}

fn entry_lines(app: &App, e: &Entry, width: u16) -> Vec<Line<'static>> {
    let body = |text: &str| wrap(&parse(text), width);
    let name_of = |id: &str| match app.agent(id) {
        Some(a) => (format!("{} {}", a.icon, a.name), a.title.clone(), agent_color(a.color.as_deref())),
        None => (id.to_string(), String::new(), Color::Cyan),
    };
    match &e.kind {
        EntryKind::Welcome | EntryKind::Highlights => body(&e.text),
        EntryKind::Closing => body(&e.text)
            .into_iter()
            .map(|l| l.style(Style::new().add_modifier(Modifier::BOLD)))
            .collect(),
        EntryKind::Facilitator => {
            let mut v = vec![Line::from(Span::styled(
                format!("▶ {}", app.user_name),
                Style::new().fg(Color::White).add_modifier(Modifier::BOLD),
            ))];
            v.extend(wrap(
                &[super::markdown::Logical {
                    spans: vec![Span::raw(e.text.clone())],
                    ..Default::default()
                }],
                width,
            ));
            v
        }
        EntryKind::Agent { id, interrupted } => speaker_lines(app, id, *interrupted, false, &e.text, width),
        EntryKind::Farewell { id } => speaker_lines(app, id, false, true, &e.text, width),
        EntryKind::Question { id } => {
            let (name, _, color) = name_of(id);
            let head = format!("❓ {name} {}", l(app.lang, "asks:", "提问："));
            let mut v = wrap(
                &[super::markdown::Logical {
                    spans: vec![Span::styled(
                        format!("{head} {}", e.text),
                        Style::new().fg(color).add_modifier(Modifier::BOLD),
                    )],
                    ..Default::default()
                }],
                width,
            );
            v.push(Line::from(Span::styled(
                l(app.lang, "[awaiting your answer…]", "[等待您的回复…]"),
                Style::new().fg(Color::Magenta).add_modifier(Modifier::ITALIC),
            )));
            v
        }
        EntryKind::Push => {
            let text = format!("🤖 {}: {}", l(app.lang, "Automatic push", "自动推进"), e.text);
            wrap(
                &[super::markdown::Logical {
                    spans: vec![Span::styled(text, Style::new().fg(Color::LightBlue).add_modifier(Modifier::ITALIC))],
                    ..Default::default()
                }],
                width,
            )
        }
        EntryKind::Failed { id } => {
            let (name, _, _) = name_of(id);
            let text = format!("⚠ {name} {}: {}", l(app.lang, "could not answer", "未能回答"), e.text);
            wrap(
                &[super::markdown::Logical {
                    spans: vec![Span::styled(text, Style::new().fg(Color::Red))],
                    ..Default::default()
                }],
                width,
            )
        }
        EntryKind::Notice(kind) => {
            let style = match kind {
                NoticeKind::Warning => Style::new().fg(AMBER),
                NoticeKind::Limit | NoticeKind::Error => Style::new().fg(Color::Red),
                NoticeKind::Exit => Style::new().fg(Color::Magenta),
                NoticeKind::Info => Style::new().fg(Color::Gray),
            };
            e.text
                .lines()
                .flat_map(|line| {
                    wrap(
                        &[super::markdown::Logical {
                            spans: vec![Span::styled(line.to_string(), style)],
                            ..Default::default()
                        }],
                        width,
                    )
                })
                .collect()
        }
    }
}

fn speaker_lines(app: &App, id: &str, interrupted: bool, farewell: bool, text: &str, width: u16) -> Vec<Line<'static>> {
    let (name, title, color) = match app.agent(id) {
        Some(a) => (format!("{} {}", a.icon, a.name), a.title.clone(), agent_color(a.color.as_deref())),
        None => (id.to_string(), String::new(), Color::Cyan),
    };
    let mut head = vec![Span::styled(name, Style::new().fg(color).add_modifier(Modifier::BOLD))];
    if !title.is_empty() {
        head.push(Span::styled(format!(" · {title}"), Style::new().fg(Color::DarkGray)));
    }
    if interrupted {
        head.push(Span::styled(
            format!(" {}", l(app.lang, "(interrupted)", "（已中断）")),
            Style::new().fg(Color::DarkGray),
        ));
    }
    if farewell {
        head.push(Span::raw(" 👋"));
    }
    let mut v = vec![Line::from(head)];
    v.extend(wrap(&parse(text), width));
    v
}

fn mmss(secs: u64) -> String {
    format!("{:02}:{:02}", secs / 60, secs % 60)
}

fn tokens(n: u64) -> String {
    if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

/// The severity colour of a counter: normal, amber from the warning, red at the limit.
pub fn level_style(value: u64, warn: u64, max: u64) -> Style {
    if max > 0 && value >= max {
        Style::new().fg(Color::White).bg(Color::Red).add_modifier(Modifier::BOLD)
    } else if warn > 0 && value >= warn {
        Style::new().fg(Color::Black).bg(AMBER)
    } else {
        Style::new().fg(Color::White)
    }
}

pub fn draw(frame: &mut Frame, app: &mut App, view: &mut ViewState, now: Instant) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let msg = format!(
            "{} {}×{} (≥ {MIN_WIDTH}×{MIN_HEIGHT})",
            l(app.lang, "Terminal too small:", "终端太小："),
            area.width,
            area.height
        );
        frame.render_widget(Paragraph::new(msg).wrap(Wrap { trim: true }).alignment(Alignment::Center), area);
        return;
    }
    let input_rows = if app.ended.is_some() {
        final_lines(app, area.width.saturating_sub(2)).len().clamp(1, 6) as u16
    } else {
        app.input.lines().len().clamp(1, 4) as u16
    };
    let pane_rows = if app.panes.is_empty() { 0 } else { (area.height / 3).clamp(5, 10) };
    let [header, transcript, panes, input, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(pane_rows),
        Constraint::Length(input_rows + 2),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_header(frame, app, header);
    draw_transcript(frame, app, view, transcript);
    if pane_rows > 0 {
        draw_panes(frame, app, panes);
    }
    draw_input(frame, app, input);
    draw_status(frame, app, status, now);
    if let Some(m) = app.modals.front() {
        draw_modal(frame, app, m, area);
    }
    if app.help {
        draw_help(frame, app, area);
    }
}

fn draw_header(frame: &mut Frame, app: &App, area: Rect) {
    let bar = Style::new().bg(Color::Rgb(40, 40, 60)).fg(Color::White);
    let mut right: Vec<Span> = Vec::new();
    if app.rehearsal {
        right.push(Span::styled(
            format!(" 🎭 {} ", l(app.lang, "OFFLINE REHEARSAL", "离线排练")),
            Style::new().bg(Color::Yellow).fg(Color::Black).add_modifier(Modifier::BOLD),
        ));
    } else if !app.model.is_empty() {
        right.push(Span::styled(
            format!(" {} · {} ", app.provider, app.model),
            bar.add_modifier(Modifier::BOLD),
        ));
    }
    let topic = app
        .topic
        .clone()
        .unwrap_or_else(|| l(app.lang, "new party", "新的派对").to_string());
    let topic_w = topic.width().min(40) + 18;
    if let Some(f) = &app.file {
        let name = std::path::Path::new(f)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let badge_w: usize = right.iter().map(|s| s.content.width()).sum();
        if usize::from(area.width) >= topic_w + badge_w + name.width() + 5 {
            right.push(Span::styled(format!(" 📄 {name} "), bar.fg(Color::Gray)));
        }
    }
    let right_w: usize = right.iter().map(|s| s.content.width()).sum();
    let left_room = usize::from(area.width).saturating_sub(right_w + 1);
    let left = crate::text::ellipsize(&format!(" 🎉 Party Mode · {}", topic.replace('\n', " ")), left_room.max(1));
    let left = truncate_to_width(&left, left_room);
    let pad = usize::from(area.width).saturating_sub(left.width() + right_w);
    let mut spans = vec![
        Span::styled(left, bar.add_modifier(Modifier::BOLD)),
        Span::styled(" ".repeat(pad), bar),
    ];
    if right_w < usize::from(area.width) {
        spans.extend(right);
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).style(bar), area);
}

fn truncate_to_width(s: &str, max: usize) -> String {
    let mut w = 0;
    let mut out = String::new();
    for g in unicode_segmentation::UnicodeSegmentation::graphemes(s, true) {
        let gw = g.width();
        if w + gw > max {
            break;
        }
        w += gw;
        out.push_str(g);
    }
    out
}

fn draw_transcript(frame: &mut Frame, app: &mut App, view: &mut ViewState, area: Rect) {
    let block = Block::new().borders(Borders::TOP).border_style(Style::new().fg(Color::DarkGray));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    view.transcript_area = inner;
    view.ensure_width(inner.width.max(1));
    let lines = view.visible(app, usize::from(inner.height));
    frame.render_widget(Paragraph::new(lines), inner);
    if app.new_below && view.anchor.is_some() {
        let label = format!(" {} ↓ ", l(app.lang, "new messages", "新消息"));
        let w = (label.width() as u16).min(inner.width);
        let r = Rect {
            x: inner.right().saturating_sub(w),
            y: inner.bottom().saturating_sub(1),
            width: w,
            height: 1.min(inner.height),
        };
        frame.render_widget(Paragraph::new(label).style(Style::new().bg(Color::Blue).fg(Color::White)), r);
    }
}

fn pane_status(app: &App, p: &Pane) -> Span<'static> {
    let lang = app.lang;
    match p.status {
        PaneStatus::Queued => Span::styled(l(lang, "queued", "排队中"), Style::new().fg(Color::DarkGray)),
        PaneStatus::Thinking => {
            // A model on a CPU reads a long prompt for a minute or more
            // before its first token: say so, with the seconds, once it is
            // more than a moment.
            let secs = p.since.map_or(0, |t| t.elapsed().as_secs());
            let text = if secs >= 3 {
                format!("{} {secs} s", l(lang, "reading the prompt…", "正在阅读提示…"))
            } else {
                l(lang, "reading the prompt…", "正在阅读提示…").to_string()
            };
            Span::styled(text, Style::new().fg(Color::Yellow))
        }
        PaneStatus::Streaming => Span::styled(format!("▌{}", l(lang, "streaming…", "输出中…")), Style::new().fg(Color::Green)),
        PaneStatus::Retrying => Span::styled(format!("{} {}", l(lang, "retrying", "重试"), p.note), Style::new().fg(AMBER)),
        PaneStatus::Waiting => Span::styled(
            l(lang, "waiting for facilitator", "等待主持人"),
            Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD),
        ),
        PaneStatus::Done => Span::styled(l(lang, "done", "完成"), Style::new().fg(Color::Blue)),
        PaneStatus::Failed => Span::styled(format!("{}: {}", l(lang, "failed", "失败"), p.note), Style::new().fg(Color::Red)),
        PaneStatus::Interrupted => Span::styled(l(lang, "interrupted", "已中断"), Style::new().fg(Color::DarkGray)),
        PaneStatus::Skipped => Span::styled(l(lang, "skipped this round", "本轮未发言"), Style::new().fg(Color::DarkGray)),
    }
}

/// The last `budget` bytes of `text`, starting at a paragraph break when
/// there is one (so Markdown blocks start cleanly), else at a line or char boundary.
fn tail(text: &str, budget: usize) -> &str {
    if text.len() <= budget {
        return text;
    }
    let mut start = text.len() - budget;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let window = &text[start..];
    match window.find("\n\n").or_else(|| window.find('\n')) {
        Some(i) if i < window.len() / 2 => &window[i..],
        _ => window,
    }
}

fn draw_panes(frame: &mut Frame, app: &App, area: Rect) {
    let n = app.panes.len().max(1) as u16;
    let side_by_side = area.width / n >= 26;
    let rects: Vec<Rect> = if side_by_side {
        Layout::horizontal(vec![Constraint::Ratio(1, u32::from(n)); usize::from(n)])
            .split(area)
            .to_vec()
    } else {
        Layout::vertical(vec![Constraint::Ratio(1, u32::from(n)); usize::from(n)])
            .split(area)
            .to_vec()
    };
    for (p, r) in app.panes.iter().zip(rects) {
        let (label, title, color) = match app.agent(&p.agent) {
            Some(a) => (format!("{} {}", a.icon, a.name), a.title.clone(), agent_color(a.color.as_deref())),
            None => (p.agent.clone(), String::new(), Color::Cyan),
        };
        let active = matches!(p.status, PaneStatus::Streaming | PaneStatus::Thinking | PaneStatus::Waiting);
        let block = Block::bordered()
            .border_type(if active { BorderType::Thick } else { BorderType::Rounded })
            .border_style(Style::new().fg(if active { color } else { Color::DarkGray }))
            .title(Line::from(vec![
                Span::styled(format!(" {label}"), Style::new().fg(color).add_modifier(Modifier::BOLD)),
                Span::styled(
                    if title.is_empty() {
                        " ".to_string()
                    } else {
                        format!(" · {title} ")
                    },
                    Style::new().fg(Color::Gray),
                ),
            ]));
        let inner = block.inner(r);
        frame.render_widget(block, r);
        if inner.height == 0 || inner.width == 0 {
            continue;
        }
        frame.render_widget(Paragraph::new(Line::from(pane_status(app, p))), Rect { height: 1, ..inner });
        let body_rows = usize::from(inner.height.saturating_sub(1));
        if body_rows == 0 {
            continue;
        }
        // The tail of the reply, where the words are arriving. Only text that
        // can reach the visible rows is parsed, so a long reply costs no more
        // per frame than a short one.
        let budget = (usize::from(inner.width) * body_rows * 4).max(256);
        let lines = wrap(&parse(tail(&p.text, budget)), inner.width);
        let start = lines.len().saturating_sub(body_rows);
        let body = Rect {
            y: inner.y + 1,
            height: inner.height - 1,
            ..inner
        };
        frame.render_widget(Paragraph::new(lines[start..].to_vec()), body);
    }
}

/// The box that replaces the input once the party is over.
fn final_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let mut text = match app.ended.as_ref().and_then(|(f, _)| f.clone()) {
        Some(f) => vec![
            Line::from(Span::styled(
                format!("📄 {}", l(app.lang, "Session saved to", "会话已保存到")),
                Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
            )),
            Line::from(f),
        ],
        None => vec![Line::from(l(app.lang, "Party over.", "派对结束。"))],
    };
    text.push(Line::from(Span::styled(
        l(app.lang, "Press any key to quit.", "按任意键退出。"),
        Style::new().fg(Color::Gray),
    )));
    text.into_iter()
        .flat_map(|line| {
            wrap(
                &[super::markdown::Logical {
                    spans: line.spans,
                    ..Default::default()
                }],
                width.max(1),
            )
        })
        .collect()
}

fn draw_input(frame: &mut Frame, app: &App, area: Rect) {
    if app.ended.is_some() {
        let block = Block::bordered().border_style(Style::new().fg(Color::Green));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        frame.render_widget(Paragraph::new(final_lines(app, inner.width)), inner);
        return;
    }
    let focused = app.focus == Focus::Input && app.modals.is_empty() && !app.help;
    let title = if app.topic.is_none() {
        l(app.lang, " Your topic ", " 讨论主题 ")
    } else if app.queued > 0 {
        l(app.lang, " Message (queued until the round ends) ", " 消息（本轮结束后发送）")
    } else {
        l(app.lang, " Message ", " 消息 ")
    };
    let block = Block::bordered()
        .border_type(if focused { BorderType::Thick } else { BorderType::Plain })
        .border_style(Style::new().fg(if focused { Color::White } else { Color::DarkGray }))
        .title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    frame.render_widget(&app.input, inner);
}

fn draw_status(frame: &mut Frame, app: &App, area: Rect, now: Instant) {
    let sep = || Span::styled(" │ ", Style::new().fg(Color::DarkGray));
    let width = usize::from(area.width);
    let mut fixed: Vec<Span> = Vec::new();
    // Optional counters with a priority (lower shows first when space is short).
    let mut optional: Vec<(u8, Span)> = Vec::new();
    if let Some(s) = &app.status {
        // The colour follows completed rounds (what the limits count); the
        // number shows the round being played.
        let round_style = level_style(u64::from(s.round), u64::from(s.warn_at_rounds), u64::from(s.max_rounds));
        let warn = (s.warn_at_rounds > 0 && s.round >= s.warn_at_rounds) || s.round >= s.max_rounds;
        let shown = if s.phase == Phase::Round { app.round.max(s.round) } else { s.round };
        fixed.push(Span::styled(
            format!(
                " {} {}/{}{} ",
                l(app.lang, "Round", "轮次"),
                shown,
                s.max_rounds,
                if warn { " ⚠" } else { "" }
            ),
            round_style,
        ));
        fixed.push(sep());
        let secs = app.active_seconds(now);
        fixed.push(Span::styled(
            format!(" {}/{} ", mmss(secs), mmss(s.max_seconds)),
            level_style(secs, s.warn_at_seconds, s.max_seconds),
        ));
        optional.push((2, Span::styled(format!("{} tok", tokens(s.tokens)), Style::new().fg(Color::Gray))));
        if let Some(c) = s.consensus.or(app.consensus) {
            let label = if width >= 100 {
                format!("{} {c:.2}", l(app.lang, "consensus", "共识"))
            } else {
                format!("🤝 {c:.2}")
            };
            optional.push((
                2,
                Span::styled(label, Style::new().fg(if c >= 0.85 { Color::Green } else { Color::Gray })),
            ));
        }
        if s.push_budget > 0 {
            let style = if s.push_used >= s.push_budget {
                Style::new().fg(AMBER)
            } else {
                Style::new().fg(Color::Gray)
            };
            optional.push((
                3,
                Span::styled(format!("{} {}/{}", l(app.lang, "push", "推进"), s.push_used, s.push_budget), style),
            ));
        }
        if let Some(id) = &s.awaiting_answer_from {
            let name = app.agent(id).map(|a| a.name.clone()).unwrap_or_else(|| id.clone());
            optional.push((
                0,
                Span::styled(
                    format!("❓ {name} {}", l(app.lang, "asks you", "在等您回答")),
                    Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD),
                ),
            ));
        }
        if s.phase == Phase::Confirming || !app.modals.is_empty() {
            optional.push((
                1,
                Span::styled(
                    l(app.lang, "⏳ your answer", "⏳ 等待您的回答"),
                    Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD),
                ),
            ));
        }
    }
    let hint_spans: Vec<Vec<Span>> = match &app.flash {
        Some(f) => vec![vec![Span::styled(f.clone(), Style::new().fg(AMBER).add_modifier(Modifier::BOLD))]],
        None => key_hints(app)
            .into_iter()
            .map(|(k, d)| {
                vec![
                    Span::styled(k, Style::new().fg(Color::Black).bg(Color::Gray)),
                    Span::raw(format!(" {d}  ")),
                ]
            })
            .collect(),
    };
    let w = |spans: &[Span]| spans.iter().map(|s| s.content.width()).sum::<usize>();
    // Reserve room for the first hint (a flash message counts whole).
    let reserve: usize = hint_spans.iter().take(1).map(|h| w(h)).sum::<usize>() + 3;
    let mut room = width.saturating_sub(w(&fixed) + reserve);
    let mut keep: Vec<u8> = Vec::new();
    let mut by_priority: Vec<&(u8, Span)> = optional.iter().collect();
    by_priority.sort_by_key(|(p, _)| *p);
    for (p, span) in by_priority {
        let need = span.content.width() + 3;
        if need <= room {
            room -= need;
            keep.push(*p);
        }
    }
    let mut spans = fixed;
    // Shown in their natural order; `keep` says which fitted.
    let mut taken = vec![false; optional.len()];
    let mut budget = keep.clone();
    for (i, (p, _)) in optional.iter().enumerate() {
        if let Some(pos) = budget.iter().position(|q| q == p) {
            budget.remove(pos);
            taken[i] = true;
        }
    }
    for (i, (_, span)) in optional.iter().enumerate() {
        if taken[i] {
            spans.push(sep());
            spans.push(span.clone());
        }
    }
    if !spans.is_empty() {
        spans.push(sep());
    }
    let mut left = width.saturating_sub(w(&spans));
    for (i, h) in hint_spans.into_iter().enumerate() {
        let hw = w(&h);
        if hw > left && i > 0 {
            break;
        }
        left = left.saturating_sub(hw);
        spans.extend(h);
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The keys of whatever has focus, for the status bar.
pub fn key_hints(app: &App) -> Vec<(String, &'static str)> {
    let lang = app.lang;
    let k = |s: &str| format!("[{s}]");
    if app.ended.is_some() {
        return vec![(k(l(lang, "any key", "任意键")), l(lang, "Quit", "退出"))];
    }
    if app.help {
        return vec![(k(l(lang, "any key", "任意键")), l(lang, "Close help", "关闭帮助"))];
    }
    match app.modals.front() {
        Some(Modal::ConfirmExit) => return vec![(k("Enter"), l(lang, "End party", "结束派对")), (k("Esc"), l(lang, "Back", "返回"))],
        Some(Modal::TurnReset { .. }) => {
            return vec![
                (k("Enter"), l(lang, "Answer", "回答")),
                (k("Tab"), l(lang, "Confirm/Reject", "确认/拒绝")),
                (k(l(lang, "type", "输入")), l(lang, "Reason", "原因")),
                (k("Esc"), l(lang, "Reject", "拒绝")),
            ]
        }
        Some(Modal::Budget { .. }) => {
            return vec![
                (k("Enter"), l(lang, "Keep going", "继续推进")),
                (k("Esc"), l(lang, "Wait for me", "等我发言")),
            ]
        }
        Some(Modal::Proposal { .. }) => {
            return vec![
                (k("Enter"), l(lang, "End party", "结束派对")),
                (k(l(lang, "type", "输入")), l(lang, "Continue with a message", "输入消息继续")),
                (k("Esc"), l(lang, "Continue", "继续")),
            ]
        }
        Some(Modal::Limit { .. }) => {
            return vec![
                (k("←→"), l(lang, "Choose", "选择")),
                (k("+/-"), l(lang, "Amount", "数量")),
                (k("Enter"), l(lang, "Confirm", "确认")),
            ]
        }
        None => {}
    }
    match app.focus {
        Focus::Input => vec![
            (k("Enter"), l(lang, "Send", "发送")),
            (k("Alt+Enter"), l(lang, "New line", "换行")),
            (k("Esc"), l(lang, "Menu", "菜单")),
            (k("Ctrl+C"), l(lang, "Stop", "停止")),
        ],
        Focus::Menu => vec![
            (k("E"), l(lang, "Exit", "退出")),
            (k("C"), l(lang, "Continue", "继续")),
            (k("?"), l(lang, "Help", "帮助")),
            (k("↑↓"), l(lang, "Scroll", "滚动")),
            (k("i"), l(lang, "Type", "输入")),
        ],
    }
}

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

fn draw_modal(frame: &mut Frame, app: &App, modal: &Modal, area: Rect) {
    let lang = app.lang;
    let width = area.width.saturating_sub(4).min(72);
    let inner_w = width.saturating_sub(4).max(1);
    let (title, color, mut body): (String, Color, Vec<Line<'static>>) = match modal {
        Modal::ConfirmExit => (
            l(lang, " End the party? ", " 结束派对？ ").to_string(),
            Color::Magenta,
            [
                wrap(
                    &parse(l(
                        lang,
                        "The room will say goodbye, sum up the highlights and save the session.",
                        "大家会道别并总结要点，会话将被保存。",
                    )),
                    inner_w,
                ),
                vec![Line::default()],
            ]
            .concat()
            .into_iter()
            .chain([Line::from(vec![
                Span::styled(" Enter ", Style::new().bg(Color::Magenta).fg(Color::White).bold()),
                Span::raw(l(lang, " End party    ", " 结束派对    ")),
                Span::styled(" Esc ", Style::new().bg(Color::DarkGray).fg(Color::White)),
                Span::raw(l(lang, " Keep talking", " 继续讨论")),
            ])])
            .collect(),
        ),
        Modal::Budget { text, .. } => {
            let mut v = wrap(&parse(text), inner_w);
            v.push(Line::default());
            v.push(Line::from(vec![
                Span::styled(
                    format!(" Enter {} ", l(lang, "Keep going", "继续推进")),
                    Style::new().bg(Color::Blue).fg(Color::White).bold(),
                ),
                Span::raw("   "),
                Span::styled(
                    format!(" Esc {} ", l(lang, "Wait for me", "等我发言")),
                    Style::new().fg(Color::Gray),
                ),
            ]));
            (format!(" 🤖 {} ", l(lang, "Question for you", "需要您决定")), Color::Blue, v)
        }
        Modal::TurnReset {
            message,
            description,
            reason,
            reject_selected,
            ..
        } => {
            let sel = Style::new().bg(Color::Yellow).fg(Color::Black).bold();
            let off = Style::new().fg(Color::Gray);
            let mut v = wrap(&parse(&format!("“{message}”")), inner_w);
            v.extend(wrap(&parse(description), inner_w));
            v.push(Line::default());
            v.push(Line::from(vec![
                Span::raw(l(lang, "Reason (optional): ", "原因（可选）：")),
                Span::raw(reason.clone()),
                Span::styled("▌", Style::new().fg(Color::Yellow)),
            ]));
            v.push(Line::default());
            v.push(Line::from(vec![
                Span::styled(
                    format!(" {} ", l(lang, "Confirm reset", "确认重置")),
                    if *reject_selected { off } else { sel },
                ),
                Span::raw("   "),
                Span::styled(format!(" {} ", l(lang, "Reject", "拒绝")), if *reject_selected { sel } else { off }),
            ]));
            (
                format!(" 🔄 {} ", l(lang, "Start a new conversation?", "开始新的对话？")),
                Color::Yellow,
                v,
            )
        }
        Modal::Proposal {
            kind, agent, text, input, ..
        } => {
            let (label, color) = match agent.as_deref().and_then(|a| app.agent(a)) {
                Some(a) => (format!("{} {}", a.icon, a.name), agent_color(a.color.as_deref())),
                None => (String::new(), Color::Cyan),
            };
            let mut v = wrap(&parse(text), inner_w);
            let keep = 8usize;
            if v.len() > keep {
                v = v.split_off(v.len() - keep);
                v.insert(0, Line::from(Span::styled("…", Style::new().fg(Color::DarkGray))));
            }
            v.push(Line::default());
            v.extend(wrap(
                &parse(l(
                    lang,
                    "Press Enter to end the party, or type a message to keep going:",
                    "按 Enter 结束派对，或输入消息继续讨论：",
                )),
                inner_w,
            ));
            v.push(Line::from(vec![
                Span::styled("> ", Style::new().fg(color)),
                Span::raw(input.clone()),
                Span::styled("▌", Style::new().fg(color)),
            ]));
            let title = match kind {
                ConfirmKind::Consensus => format!(" 🤝 {} ", l(lang, "The room agrees", "大家达成了共识")),
                ConfirmKind::Silence => format!(" 🔁 {} ", l(lang, "The room is going in circles", "讨论在原地打转")),
                _ => format!(" 💡 {label} {} ", l(lang, "suggests ending the party", "建议结束派对")),
            };
            (title, color, v)
        }
        Modal::Limit {
            kind,
            text,
            extend,
            continue_selected,
            ..
        } => {
            let unit = match kind {
                ConfirmKind::TimeLimit => l(lang, "minutes", "分钟"),
                _ => l(lang, "rounds", "轮"),
            };
            let sel = Style::new().bg(Color::Red).fg(Color::White).bold();
            let off = Style::new().fg(Color::Gray);
            let mut v = wrap(&parse(text), inner_w);
            v.push(Line::default());
            v.push(Line::from(vec![
                Span::styled(
                    format!(" {} ", l(lang, "End now", "现在结束")),
                    if *continue_selected { off } else { sel },
                ),
                Span::raw("   "),
                Span::styled(
                    format!(" {} {extend} {unit} ", l(lang, "Continue", "继续")),
                    if *continue_selected { sel } else { off },
                ),
            ]));
            (format!(" ⏰ {} ", l(lang, "Limit reached", "已达上限")), Color::Red, v)
        }
    };
    if app.modals.len() > 1 {
        body.push(Line::from(Span::styled(
            format!("(+{} {})", app.modals.len() - 1, l(lang, "more waiting", "个待处理")),
            Style::new().fg(Color::DarkGray),
        )));
    }
    let height = (body.len() as u16).saturating_add(4);
    let r = centered(area, width, height);
    frame.render_widget(Clear, r);
    let block = Block::bordered()
        .border_type(BorderType::Double)
        .border_style(Style::new().fg(color))
        .title(Span::styled(title, Style::new().fg(color).bold()));
    let inner = block.inner(r);
    frame.render_widget(block, r);
    let inner = Rect {
        x: inner.x + 1,
        y: inner.y + 1,
        width: inner.width.saturating_sub(2),
        height: inner.height.saturating_sub(1),
    };
    frame.render_widget(Paragraph::new(body), inner);
}

fn draw_help(frame: &mut Frame, app: &App, area: Rect) {
    let lang = app.lang;
    let rows: Vec<(&str, &str)> = vec![
        (
            "Enter",
            l(
                lang,
                "send the message (the first one is the topic)",
                "发送消息（第一条为讨论主题）",
            ),
        ),
        ("Alt+Enter, Shift+Enter", l(lang, "new line in the message", "消息内换行")),
        ("Esc", l(lang, "leave the input for the menu keys", "离开输入框，使用菜单键")),
        ("E", l(lang, "exit the party (asks first)", "退出派对（会先确认）")),
        ("C", l(lang, "let the room continue one round", "让大家继续讨论一轮")),
        (
            "↑ ↓  PgUp PgDn  Home End",
            l(lang, "scroll the transcript (wheel too)", "滚动对话记录（也可用滚轮）"),
        ),
        ("i, Enter", l(lang, "back to typing", "回到输入框")),
        (
            "Ctrl+C",
            l(
                lang,
                "stop the replies; twice: quit now (saved)",
                "停止生成；连按两次：立即退出（已保存）",
            ),
        ),
        ("?", l(lang, "this help", "显示帮助")),
        (
            "*exit, goodbye, /exit",
            l(lang, "typed as a whole message: end the party", "作为完整消息发送：结束派对"),
        ),
    ];
    let key_w = rows.iter().map(|(k, _)| k.width()).max().unwrap_or(0) + 2;
    let mut lines: Vec<Line> = rows
        .into_iter()
        .map(|(k, d)| {
            Line::from(vec![
                Span::styled(format!("{k:<key_w$}"), Style::new().fg(Color::Yellow).bold()),
                Span::raw(d),
            ])
        })
        .collect();
    lines.push(Line::default());
    lines.push(Line::from(Span::styled(
        l(lang, "Any key closes this help.", "按任意键关闭帮助。"),
        Style::new().fg(Color::DarkGray),
    )));
    let r = centered(area, area.width.saturating_sub(4).min(78), lines.len() as u16 + 2);
    frame.render_widget(Clear, r);
    let block = Block::bordered()
        .title(l(lang, " Keys ", " 按键 "))
        .border_style(Style::new().fg(Color::Yellow));
    frame.render_widget(Paragraph::new(lines).block(block).wrap(Wrap { trim: false }), r);
}
