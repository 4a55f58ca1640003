//! The modals: each one a component that owns its keys (`on_action`, fed
//! by the key table in `keymap`), its drawing and its answer to the engine.
//! The app keeps them in a queue and gives the front one every key.

mod budget;
mod cast;
mod exit;
mod limit;
mod proposal;
mod reset;
mod roster;

use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};
use ratatui::Frame;

pub use budget::Budget;
pub use cast::CastModal;
pub use exit::ConfirmExit;
pub use limit::Limit;
pub use proposal::Proposal;
pub use reset::TurnReset;
pub(crate) use roster::Roster;

use super::keymap::{Action, Context};
use super::theme::{centered, Speakers};
use crate::engine::Command;
use crate::frontend::tui::theme::FAINT;
use crate::i18n::Lang;
use crate::i18n::{Say, Screen};

/// What a key did to a modal.
#[derive(Debug, PartialEq)]
pub(crate) enum Outcome {
    /// Still open (a choice moved, a character was typed, or nothing).
    Keep,
    /// Answered: the modal closes, and this goes to the engine.
    Close(Option<Command>),
    /// This goes to the engine, and the modal stays open (the roster).
    Send(Command),
}

/// What a modal shows inside its frame.
pub(crate) struct View {
    pub title: String,
    pub color: Color,
    pub body: Vec<Line<'static>>,
}

pub(crate) trait Component {
    /// Which part of the key table it reads.
    fn context(&self) -> Context;
    fn on_action(&mut self, action: Action, key: &KeyEvent) -> Outcome;
    fn view(&self, who: &Speakers<'_>, width: u16) -> View;
    /// The engine's request this modal answers (none for the exit question).
    fn request_id(&self) -> Option<&str>;
    /// Bracketed paste into the modal's text field, if it has one.
    fn paste(&mut self, _text: &str) {}
}

#[derive(Debug, Clone, PartialEq)]
pub enum Modal {
    ConfirmExit(ConfirmExit),
    /// A proposal to end: an agent's (end marker), the room's consensus, or
    /// the runtime's when the room goes in circles.
    Proposal(Proposal),
    Limit(Limit),
    TurnReset(TurnReset),
    Budget(Budget),
    /// Who is in the room, opened from the menu.
    Roster(Roster),
    /// The review of a cast drafted by `/cast`.
    Cast(CastModal),
}

impl Modal {
    pub(crate) fn component(&self) -> &dyn Component {
        match self {
            Modal::ConfirmExit(m) => m,
            Modal::Proposal(m) => m,
            Modal::Limit(m) => m,
            Modal::TurnReset(m) => m,
            Modal::Budget(m) => m,
            Modal::Roster(m) => m,
            Modal::Cast(m) => m,
        }
    }

    pub(crate) fn component_mut(&mut self) -> &mut dyn Component {
        match self {
            Modal::ConfirmExit(m) => m,
            Modal::Proposal(m) => m,
            Modal::Limit(m) => m,
            Modal::TurnReset(m) => m,
            Modal::Budget(m) => m,
            Modal::Roster(m) => m,
            Modal::Cast(m) => m,
        }
    }
}

/// The front modal, framed and centred, with how many more wait behind it.
/// `waiting`: how many modals wait behind this one.
pub(crate) fn draw(frame: &mut Frame<'_>, who: &Speakers<'_>, modal: &Modal, waiting: usize, area: Rect) {
    let width = area.width.saturating_sub(4).min(72);
    let inner_w = width.saturating_sub(4).max(1);
    let View { title, color, mut body } = modal.component().view(who, inner_w);
    if waiting > 0 {
        body.push(Line::from(Span::styled(
            Screen::MoreWaiting { n: waiting }.say(who.lang),
            Style::new().fg(FAINT),
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

/// An answer to a confirmation request.
fn answer(request_id: &str, confirmed: bool, reason: Option<&str>, extend: Option<u32>) -> Outcome {
    Outcome::Close(Some(Command::Answer {
        request_id: request_id.to_string(),
        confirmed,
        reason: reason.map(str::to_string),
        extend,
    }))
}

/// The character a `TypeChar` key carries.
fn typed(key: &KeyEvent) -> Option<char> {
    match key.code {
        ratatui::crossterm::event::KeyCode::Char(c) => Some(c),
        _ => None,
    }
}

/// A key and what it does, as a modal prints it: from the key table.
fn button(context: Context, action: Action, lang: Lang, style: Style) -> Vec<Span<'static>> {
    let b = super::keymap::binding(context, action);
    let (keys, text) = match b.hint {
        Some(h) => (h.keys.unwrap_or(b.shown), h.what.say(lang)),
        None => (b.shown, b.text(lang)),
    };
    let first = keys.split(' ').next().unwrap_or(keys);
    vec![Span::styled(format!(" {first} "), style), Span::raw(format!(" {text}"))]
}
