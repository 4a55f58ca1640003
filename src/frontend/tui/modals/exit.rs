//! "End the party?": the exit key's question.

use ratatui::crossterm::event::KeyEvent;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{button, Component, Outcome, View};
use crate::engine::Command;
use crate::frontend::tui::keymap::{Action, Context};
use crate::frontend::tui::markdown::{parse, wrap};
use crate::frontend::tui::theme::{Speakers, ASK, FAINT, TEXT};
use crate::i18n::{Say, Screen};

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConfirmExit;

impl Component for ConfirmExit {
    fn context(&self) -> Context {
        Context::ExitModal
    }

    fn on_action(&mut self, action: Action, _key: &KeyEvent) -> Outcome {
        match action {
            Action::Confirm => Outcome::Close(Some(Command::Exit)),
            Action::Decline => Outcome::Close(None),
            _ => Outcome::Keep,
        }
    }

    fn view(&self, who: &Speakers<'_>, width: u16) -> View {
        let lang = who.lang;
        let mut body = wrap(&parse(&Screen::ExitExplained.say(lang)), width);
        body.push(Line::default());
        let mut keys = button(Context::ExitModal, Action::Confirm, lang, Style::new().bg(ASK).fg(TEXT).bold());
        keys.push(Span::raw("    "));
        keys.extend(button(Context::ExitModal, Action::Decline, lang, Style::new().bg(FAINT).fg(TEXT)));
        body.push(Line::from(keys));
        View {
            title: Screen::ExitTitle.say(lang),
            color: ASK,
            body,
        }
    }

    fn request_id(&self) -> Option<&str> {
        None
    }
}
