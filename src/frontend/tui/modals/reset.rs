//! A reset message's confirmation: start a new conversation or not, with an
//! optional reason.

use ratatui::crossterm::event::KeyEvent;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{typed, Component, Outcome, View};
use crate::engine::{Command, TurnConfirmationResponse};
use crate::frontend::tui::keymap::{Action, Context};
use crate::frontend::tui::markdown::{parse, wrap};
use crate::frontend::tui::theme::{Speakers, ATTENTION, INK, MUTED};
use crate::i18n::{Say, Screen};

#[derive(Debug, Clone, PartialEq)]
pub struct TurnReset {
    pub request_id: String,
    pub message: String,
    pub description: String,
    pub reason: String,
    pub reject_selected: bool,
}

impl TurnReset {
    fn respond(&self, confirmed: bool) -> Outcome {
        let reason = Some(self.reason.trim().to_string()).filter(|r| !r.is_empty());
        Outcome::Close(Some(Command::TurnConfirmationResponse(TurnConfirmationResponse {
            request_id: self.request_id.clone(),
            confirmed,
            reason,
        })))
    }
}

impl Component for TurnReset {
    fn context(&self) -> Context {
        Context::ResetModal
    }

    fn on_action(&mut self, action: Action, key: &KeyEvent) -> Outcome {
        match action {
            Action::Toggle => self.reject_selected = !self.reject_selected,
            Action::Confirm => return self.respond(!self.reject_selected),
            Action::Decline => return self.respond(false),
            Action::Erase => {
                self.reason.pop();
            }
            Action::TypeChar => self.reason.extend(typed(key)),
            _ => {}
        }
        Outcome::Keep
    }

    fn view(&self, who: &Speakers<'_>, width: u16) -> View {
        let lang = who.lang;
        let sel = Style::new().bg(ATTENTION).fg(INK).bold();
        let off = Style::new().fg(MUTED);
        let mut body = wrap(&parse(&format!("“{}”", self.message)), width);
        body.extend(wrap(&parse(&self.description), width));
        body.push(Line::default());
        body.push(Line::from(vec![
            Span::raw(Screen::ResetReasonLabel.say(lang)),
            Span::raw(self.reason.clone()),
            Span::styled("▌", Style::new().fg(ATTENTION)),
        ]));
        body.push(Line::default());
        body.push(Line::from(vec![
            Span::styled(
                format!(" {} ", Screen::ResetConfirm.say(lang)),
                if self.reject_selected { off } else { sel },
            ),
            Span::raw("   "),
            Span::styled(
                format!(" {} ", Screen::ResetReject.say(lang)),
                if self.reject_selected { sel } else { off },
            ),
        ]));
        View {
            title: format!(" 🔄 {} ", Screen::ResetTitle.say(lang)),
            color: ATTENTION,
            body,
        }
    }

    fn request_id(&self) -> Option<&str> {
        Some(&self.request_id)
    }

    fn paste(&mut self, text: &str) {
        self.reason.push_str(&text.replace('\n', " "));
    }
}
