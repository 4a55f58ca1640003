//! The status bar: round, active time, tokens, push budget, consensus, who
//! is waiting for an answer, and the keys of whatever has them.

use std::time::Instant;

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use super::app::App;
use super::keymap;
use super::theme::{level_style, AMBER, ASK, FAINT, GOOD, INK, MUTED, TEXT};
use crate::engine::{Phase, Status};
use crate::i18n::{Say, Screen};

fn mmss(secs: u64) -> String {
    format!("{:02}:{:02}", secs / 60, secs % 60)
}

fn sep() -> Span<'static> {
    Span::styled(" │ ", Style::new().fg(FAINT))
}

fn width_of(spans: &[Span]) -> usize {
    spans.iter().map(|s| s.content.width()).sum()
}

pub(crate) fn draw(frame: &mut Frame<'_>, app: &App, area: Rect, now: Instant) {
    let width = usize::from(area.width);
    let (fixed, optional) = counters(app, now, width);
    let hint_spans = hints(app);
    // Reserve room for the first hint (a flash message counts whole), and
    // while typing for the second too: the way out stays on screen.
    let reserved = if app.key_context() == keymap::Context::Typing { 2 } else { 1 };
    let reserve: usize = hint_spans.iter().take(reserved).map(|h| width_of(h)).sum::<usize>() + 3;
    let room = width.saturating_sub(width_of(&fixed) + reserve);
    let mut spans = fixed;
    for span in fitting(optional, room) {
        spans.push(sep());
        spans.push(span);
    }
    if !spans.is_empty() {
        spans.push(sep());
    }
    let mut left = width.saturating_sub(width_of(&spans));
    for (i, h) in hint_spans.into_iter().enumerate() {
        let hw = width_of(&h);
        if hw > left && i > 0 {
            break;
        }
        left = left.saturating_sub(hw);
        spans.extend(h);
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The counters always shown (round, time), and the optional ones with a
/// priority (lower shows first when space is short).
fn counters(app: &App, now: Instant, width: usize) -> (Vec<Span<'static>>, Vec<(u8, Span<'static>)>) {
    match &app.status {
        Some(s) => {
            let mut optional = measures(app, s, now, width);
            optional.extend(attention(app, s, now));
            (limits(app, s, now), optional)
        }
        None => (Vec::new(), Vec::new()),
    }
}

/// The round and the active time against their limits, always shown,
/// coloured as they near them.
fn limits(app: &App, s: &Status, now: Instant) -> Vec<Span<'static>> {
    // The colour follows completed rounds (what the limits count); the
    // number shows the round being played.
    let round_style = level_style(u64::from(s.round), u64::from(s.warn_at_rounds), u64::from(s.max_rounds));
    let warn = (s.warn_at_rounds > 0 && s.round >= s.warn_at_rounds) || s.round >= s.max_rounds;
    let shown = if s.phase == Phase::Round { app.round.max(s.round) } else { s.round };
    let round = Screen::RoundOf {
        n: shown,
        max: s.max_rounds,
    }
    .say(app.lang);
    let secs = app.active_seconds(now);
    vec![
        Span::styled(format!(" {round}{} ", if warn { " ⚠" } else { "" }), round_style),
        sep(),
        Span::styled(
            format!(" {}/{} ", mmss(secs), mmss(s.max_seconds)),
            level_style(secs, s.warn_at_seconds, s.max_seconds),
        ),
    ]
}

/// Tokens, the round's wall time, the agreement score and the push
/// budget, each with its priority (lower shows first when space is short).
fn measures(app: &App, s: &Status, now: Instant, width: usize) -> Vec<(u8, Span<'static>)> {
    let mut optional = vec![(
        2,
        Span::styled(format!("{} tok", crate::text::short_count(s.tokens)), Style::new().fg(MUTED)),
    )];
    if let Some((start, took)) = app.round_clock {
        // The round's wall time: live while it runs, then what it took.
        let secs = took.unwrap_or_else(|| now.saturating_duration_since(start)).as_secs();
        let style = Style::new().fg(if took.is_none() { TEXT } else { MUTED });
        optional.push((2, Span::styled(format!("⏱ {}", mmss(secs)), style)));
    }
    if let Some(c) = s.consensus.or(app.consensus) {
        let label = if width >= 100 {
            format!("{} {c:.2}", Screen::ConsensusLabel.say(app.lang))
        } else {
            format!("🤝 {c:.2}")
        };
        let style = Style::new().fg(if c >= 0.85 { GOOD } else { MUTED });
        optional.push((2, Span::styled(label, style)));
    }
    if s.push_budget > 0 {
        let spent = s.push_used >= s.push_budget;
        let style = Style::new().fg(if spent { AMBER } else { MUTED });
        let label = format!("{} {}/{}", Screen::PushLabel.say(app.lang), s.push_used, s.push_budget);
        optional.push((3, Span::styled(label, style)));
    }
    optional
}

/// What needs the facilitator, in bold and first: a server out of reach,
/// an agent's question, an answer awaited.
fn attention(app: &App, s: &Status, now: Instant) -> Vec<(u8, Span<'static>)> {
    let bold = |c: Color| Style::new().fg(c).add_modifier(Modifier::BOLD);
    let mut shown = Vec::new();
    if app.server_down_since.is_some() {
        shown.push((0, Span::styled(format!("⏳ {}", app.server_down(now, true)), bold(AMBER))));
    }
    // An agent's name, its id for one no longer in the room.
    let name = |id: &String| app.agent(id).map_or_else(|| id.clone(), |a| a.name.clone());
    let names = |ids: &[String]| ids.iter().map(name).collect::<Vec<_>>().join(", ");
    if let Some(id) = &s.awaiting_answer_from {
        shown.push((0, Span::styled(Screen::AgentAsksYou { name: &name(id) }.say(app.lang), bold(ASK))));
    }
    // Who the facilitator's hands hold: a pending `/only`, the muted.
    if !s.only.is_empty() {
        shown.push((
            1,
            Span::styled(Screen::OnlyNext { names: &names(&s.only) }.say(app.lang), bold(ASK)),
        ));
    }
    if !s.muted.is_empty() {
        shown.push((
            2,
            Span::styled(Screen::MutedNow { names: &names(&s.muted) }.say(app.lang), Style::new().fg(MUTED)),
        ));
    }
    if s.phase == Phase::Confirming || !app.modals.is_empty() {
        shown.push((1, Span::styled(Screen::AwaitingYourAnswer.say(app.lang), bold(ASK))));
    }
    shown
}

/// A flash message, else the keys of whatever has them.
fn hints(app: &App) -> Vec<Vec<Span<'static>>> {
    match &app.flash {
        Some(f) => vec![vec![Span::styled(f.clone(), Style::new().fg(AMBER).add_modifier(Modifier::BOLD))]],
        None => key_hints(app)
            .into_iter()
            .map(|(k, d)| vec![Span::styled(k, Style::new().fg(INK).bg(MUTED)), Span::raw(format!(" {d}  "))])
            .collect(),
    }
}

/// The optional counters that fit in `room` columns, by priority, shown in
/// their natural order.
fn fitting(optional: Vec<(u8, Span<'static>)>, mut room: usize) -> Vec<Span<'static>> {
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
    // `keep` says how many of each priority fitted; the first ones of it
    // in the natural order are taken.
    optional
        .into_iter()
        .filter_map(|(p, span)| {
            let pos = keep.iter().position(|q| *q == p)?;
            keep.remove(pos);
            Some(span)
        })
        .collect()
}

/// The keys of whatever has the keys, for the status bar.
pub(crate) fn key_hints(app: &App) -> Vec<(String, String)> {
    keymap::hints(app.key_context(), app.lang)
}
