//! Drawing the main screen from the app state: the layout, the header, the
//! agents' panes and the input box. The transcript, the status bar, the
//! modals and the help draw themselves (`transcript`, `status`, `modals`,
//! `help`).

use std::time::Instant;

use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Wrap};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use super::app::{App, Focus, Pane, PaneStatus};
use super::markdown::{parse, wrap};
use super::theme::{agent_color, model_tag, AMBER, ASK, ATTENTION, CALM, DANGER, FAINT, GOOD, HEADER_BG, INK, MUTED, NO_COLOR, TEXT};
use crate::i18n::{Say, Screen};

pub(crate) const MIN_WIDTH: u16 = 40;
pub(crate) const MIN_HEIGHT: u16 = 12;
pub fn draw(frame: &mut Frame<'_>, app: &App, now: Instant) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let msg = format!(
            "{} {}×{} (≥ {MIN_WIDTH}×{MIN_HEIGHT})",
            Screen::TerminalTooSmall.say(app.lang),
            area.width,
            area.height
        );
        frame.render_widget(Paragraph::new(msg).wrap(Wrap { trim: true }).alignment(Alignment::Center), area);
        return;
    }
    let input_rows = if app.ended.is_some() {
        final_lines(app, area.width.saturating_sub(2)).len().clamp(1, 8) as u16
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
    app.transcript.draw(frame, &app.speakers(), transcript);
    if pane_rows > 0 {
        draw_panes(frame, app, panes, now);
    }
    draw_input(frame, app, input);
    super::status::draw(frame, app, status, now);
    if let Some(m) = app.modals.front() {
        super::modals::draw(frame, &app.speakers(), m, app.modals.len() - 1, area);
    }
    if app.help {
        super::help::draw(frame, app, area);
    }
    if app.no_color {
        without_color(frame.buffer_mut());
    }
}

/// `NO_COLOR`: every cell in the terminal's own colours. What a background
/// colour set apart (the status bar's alarms, a chosen button) is shown
/// reversed instead, so nothing that mattered disappears.
pub(crate) fn without_color(buf: &mut ratatui::buffer::Buffer) {
    for cell in buf.content.iter_mut() {
        if cell.bg != NO_COLOR {
            cell.modifier.insert(Modifier::REVERSED);
        }
        cell.fg = NO_COLOR;
        cell.bg = NO_COLOR;
    }
}

fn draw_header(frame: &mut Frame, app: &App, area: Rect) {
    let bar = Style::new().bg(HEADER_BG).fg(TEXT);
    let mut right: Vec<Span> = Vec::new();
    if app.rehearsal {
        right.push(Span::styled(
            format!(" 🎭 {} ", Screen::RehearsalBadge.say(app.lang)),
            Style::new().bg(ATTENTION).fg(INK).add_modifier(Modifier::BOLD),
        ));
    } else if !app.model.is_empty() {
        right.push(Span::styled(
            format!(" {} · {} ", app.provider, app.model),
            bar.add_modifier(Modifier::BOLD),
        ));
        if let Some(level) = app.cleanup {
            right.push(Span::styled(
                format!("· {} ", Screen::CleanupBadge { level }.say(app.lang)),
                bar.fg(MUTED),
            ));
        }
    }
    let topic = app.topic.clone().unwrap_or_else(|| Screen::NewParty.say(app.lang));
    let topic_w = topic.width().min(40) + 18;
    if let Some(f) = &app.file {
        let name = std::path::Path::new(f)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let badge_w: usize = right.iter().map(|s| s.content.width()).sum();
        if usize::from(area.width) >= topic_w + badge_w + name.width() + 5 {
            right.push(Span::styled(format!(" 📄 {name} "), bar.fg(MUTED)));
        }
    }
    let right_w: usize = right.iter().map(|s| s.content.width()).sum();
    let left_room = usize::from(area.width).saturating_sub(right_w + 1);
    let room = app.party.as_deref().unwrap_or("Party Mode");
    let left = crate::text::ellipsize(&format!(" 🎉 {room} · {}", topic.replace('\n', " ")), left_room.max(1));
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

fn pane_status(app: &App, p: &Pane, now: Instant) -> Span<'static> {
    let lang = app.lang;
    match p.status {
        PaneStatus::Queued => Span::styled(Screen::PaneQueued.say(lang), Style::new().fg(FAINT)),
        PaneStatus::Thinking => {
            // A model on a CPU reads a long prompt for a minute or more
            // before its first token: say so, with the seconds, once it is
            // more than a moment.
            let secs = p.since.map_or(0, |t| now.saturating_duration_since(t).as_secs());
            let text = if secs >= 3 {
                Screen::PaneReadingFor { secs }.say(lang)
            } else {
                Screen::PaneReading.say(lang)
            };
            Span::styled(text, Style::new().fg(ATTENTION))
        }
        PaneStatus::Streaming => {
            let mut text = format!("▌{}", Screen::PaneStreaming.say(lang));
            if let Some(ms) = p.first_token_ms {
                let first = ms as f64 / 1000.0;
                text.push_str(&Screen::FirstToken { secs: first }.say(lang));
            }
            Span::styled(text, Style::new().fg(GOOD))
        }
        PaneStatus::Retrying => Span::styled(format!("{} {}", Screen::PaneRetrying.say(lang), p.note), Style::new().fg(AMBER)),
        PaneStatus::ServerDown => Span::styled(app.server_down(now, false), Style::new().fg(AMBER)),
        PaneStatus::Waiting => Span::styled(
            Screen::PaneWaitingForFacilitator.say(lang),
            Style::new().fg(ASK).add_modifier(Modifier::BOLD),
        ),
        PaneStatus::Done => {
            // How long the first token took, then how fast it wrote: what
            // tells one model from another.
            let text = match &p.latency {
                Some(l) => format!("{} · {}", Screen::PaneDone.say(lang), l.summary()),
                None => Screen::PaneDone.say(lang),
            };
            Span::styled(text, Style::new().fg(CALM))
        }
        PaneStatus::Failed => Span::styled(format!("{}: {}", Screen::PaneFailed.say(lang), p.note), Style::new().fg(DANGER)),
        PaneStatus::Interrupted => Span::styled(Screen::PaneInterrupted.say(lang), Style::new().fg(FAINT)),
        PaneStatus::Skipped => Span::styled(Screen::PaneSkipped.say(lang), Style::new().fg(FAINT)),
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

fn draw_panes(frame: &mut Frame, app: &App, area: Rect, now: Instant) {
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
            None => (p.agent.clone(), String::new(), super::theme::agent_color(None)),
        };
        let model = model_tag(app.agent(&p.agent));
        let active = matches!(p.status, PaneStatus::Streaming | PaneStatus::Thinking | PaneStatus::Waiting);
        let block = Block::bordered()
            .border_type(if active { BorderType::Thick } else { BorderType::Rounded })
            .border_style(Style::new().fg(if active { color } else { FAINT }))
            .title(Line::from(vec![
                Span::styled(format!(" {label}"), Style::new().fg(color).add_modifier(Modifier::BOLD)),
                Span::styled(model, Style::new().fg(MUTED)),
                Span::styled(
                    if title.is_empty() {
                        " ".to_string()
                    } else {
                        format!(" · {title} ")
                    },
                    Style::new().fg(MUTED),
                ),
            ]));
        let inner = block.inner(r);
        frame.render_widget(block, r);
        if inner.height == 0 || inner.width == 0 {
            continue;
        }
        frame.render_widget(Paragraph::new(Line::from(pane_status(app, p, now))), Rect { height: 1, ..inner });
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
                format!("📄 {}", Screen::SessionSavedTo.say(app.lang)),
                Style::new().fg(GOOD).add_modifier(Modifier::BOLD),
            )),
            Line::from(f),
        ],
        None => vec![Line::from(Screen::PartyOver.say(app.lang))],
    };
    for line in &app.kept {
        text.push(Line::from(line.clone()));
    }
    let keys = if app.ended.as_ref().is_some_and(|(f, _)| f.is_some()) {
        Screen::EndedKeys.say(app.lang)
    } else {
        Screen::PressAnyKeyToQuit.say(app.lang)
    };
    text.push(Line::from(Span::styled(keys, Style::new().fg(MUTED))));
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
        let block = Block::bordered().border_style(Style::new().fg(GOOD));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        frame.render_widget(Paragraph::new(final_lines(app, inner.width)), inner);
        return;
    }
    let focused = app.focus == Focus::Input && app.modals.is_empty() && !app.help;
    let title = if app.topic.is_none() {
        Screen::InputTitleTopic.say(app.lang)
    } else if app.queued > 0 {
        Screen::InputTitleQueued.say(app.lang)
    } else {
        Screen::InputTitleMessage.say(app.lang)
    };
    let block = Block::bordered()
        .border_type(if focused { BorderType::Thick } else { BorderType::Plain })
        .border_style(Style::new().fg(if focused { TEXT } else { FAINT }))
        .title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    frame.render_widget(&app.input, inner);
}
