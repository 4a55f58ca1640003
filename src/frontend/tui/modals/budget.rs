//! The push budget is spent: let the runtime keep going, or wait.

use ratatui::crossterm::event::KeyEvent;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{answer, button, Component, Outcome, View};
use crate::frontend::tui::keymap::{Action, Context};
use crate::frontend::tui::markdown::{parse, wrap};
use crate::frontend::tui::theme::{Speakers, CALM, MUTED, TEXT};
use crate::i18n::{Say, Screen};

#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    pub request_id: String,
    pub text: String,
}

impl Component for Budget {
    fn context(&self) -> Context {
        Context::BudgetModal
    }

    fn on_action(&mut self, action: Action, _key: &KeyEvent) -> Outcome {
        match action {
            Action::Confirm => answer(&self.request_id, true, None, None),
            Action::Decline => answer(&self.request_id, false, None, None),
            _ => Outcome::Keep,
        }
    }

    fn view(&self, who: &Speakers<'_>, width: u16) -> View {
        let lang = who.lang;
        let mut body = wrap(&parse(&self.text), width);
        body.push(Line::default());
        let mut keys = button(Context::BudgetModal, Action::Confirm, lang, Style::new().bg(CALM).fg(TEXT).bold());
        keys.push(Span::raw("   "));
        keys.extend(button(Context::BudgetModal, Action::Decline, lang, Style::new().fg(MUTED)));
        body.push(Line::from(keys));
        View {
            title: format!(" 🤖 {} ", Screen::BudgetTitle.say(lang)),
            color: CALM,
            body,
        }
    }

    fn request_id(&self) -> Option<&str> {
        Some(&self.request_id)
    }
}
