//! The help overlay ([?] in the menu): every binding of the key table, the
//! main screen's one per row, each modal's on a line of its own.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use super::app::App;
use super::keymap;
use super::theme::{centered, ATTENTION, FAINT, HEADING};
use crate::i18n::{Say, Screen};

/// How many sections of `keymap::help` are the main screen's.
const MAIN_SECTIONS: usize = 4;

/// More than the help's rows on the narrowest screen: the drawing stops
/// the scroll at the last row anyway.
pub(crate) const MAX_SCROLL: u16 = 200;

pub(crate) fn lines(app: &App) -> Vec<Line<'static>> {
    let lang = app.lang;
    let sections = keymap::help(lang);
    let key_w = sections
        .iter()
        .take(MAIN_SECTIONS)
        .flat_map(|(_, rows)| rows.iter().map(|(k, _)| k.width()))
        .max()
        .unwrap_or(0)
        + 2;
    let key = |k: &str| Span::styled(k.to_string(), Style::new().fg(ATTENTION).bold());
    let mut lines: Vec<Line<'static>> = Vec::new();
    for (i, (title, rows)) in sections.into_iter().enumerate() {
        if i < MAIN_SECTIONS {
            lines.push(Line::from(Span::styled(title, Style::new().fg(HEADING).bold())));
            for (k, what) in rows {
                lines.push(Line::from(vec![key(&format!("  {k:<key_w$}")), Span::raw(what)]));
            }
        } else {
            let mut spans = vec![Span::styled(format!("{title}: "), Style::new().fg(HEADING).bold())];
            for (n, (k, what)) in rows.into_iter().enumerate() {
                if n > 0 {
                    spans.push(Span::styled(" · ", Style::new().fg(FAINT)));
                }
                spans.push(key(&k));
                spans.push(Span::raw(format!(" {what}")));
            }
            lines.push(Line::from(spans));
        }
    }
    // What is typed as a whole message rather than pressed.
    let typed = [
        (Screen::ExitWords.say(lang), Screen::ExitWordsDo.say(lang)),
        (Screen::ContextCommand.say(lang), Screen::ContextCommandDoes.say(lang)),
        (Screen::InviteCommand.say(lang), Screen::InviteCommandDoes.say(lang)),
        (Screen::CastCommand.say(lang), Screen::CastCommandDoes.say(lang)),
        (Screen::MuteCommand.say(lang), Screen::MuteCommandDoes.say(lang)),
        (Screen::RedoCommand.say(lang), Screen::RedoCommandDoes.say(lang)),
        (Screen::TakeCommand.say(lang), Screen::TakeCommandDoes.say(lang)),
        (Screen::SummaryCommand.say(lang), Screen::SummaryCommandDoes.say(lang)),
        (Screen::PinCommand.say(lang), Screen::PinCommandDoes.say(lang)),
        (Screen::OnlyCommand.say(lang), Screen::OnlyCommandDoes.say(lang)),
    ];
    for (k, what) in typed {
        lines.push(Line::from(vec![key(&k), Span::raw(what)]));
    }
    lines
}

pub(crate) fn draw(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let lines = lines(app);
    let width = area.width.saturating_sub(4).min(100);
    // Wrapped lines take more rows: count them at the inner width.
    let inner = usize::from(width.saturating_sub(2).max(1));
    let rows: usize = lines.iter().map(|line| line.width().div_ceil(inner).max(1)).sum();
    let r = centered(area, width, (rows as u16).saturating_add(2));
    let shown = usize::from(r.height.saturating_sub(2));
    let scroll = app.help_scroll.min(rows.saturating_sub(shown) as u16);
    let more = if rows > shown {
        Screen::HelpScrollOrClose.say(app.lang)
    } else {
        Screen::HelpAnyKeyCloses.say(app.lang)
    };
    frame.render_widget(Clear, r);
    let block = Block::bordered()
        .title(Screen::HelpTitle.say(app.lang))
        .title_bottom(Line::from(more).right_aligned())
        .border_style(Style::new().fg(ATTENTION));
    frame.render_widget(Paragraph::new(lines).block(block).wrap(Wrap { trim: false }).scroll((scroll, 0)), r);
}
