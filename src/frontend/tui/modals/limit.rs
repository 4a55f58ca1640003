//! A round or time limit reached, with auto-exit off: end now, or continue
//! for a chosen number of rounds or minutes.

use ratatui::crossterm::event::KeyEvent;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{answer, Component, Outcome, View};
use crate::frontend::tui::keymap::{Action, Context};
use crate::frontend::tui::markdown::{parse, wrap};
use crate::frontend::tui::theme::{Speakers, DANGER, MUTED, TEXT};
use crate::i18n::{Say, Screen};
use crate::session::ConfirmKind;

#[derive(Debug, Clone, PartialEq)]
pub struct Limit {
    pub request_id: String,
    pub kind: ConfirmKind,
    pub text: String,
    pub extend: u32,
    pub continue_selected: bool,
}

impl Component for Limit {
    fn context(&self) -> Context {
        Context::LimitModal
    }

    fn on_action(&mut self, action: Action, _key: &KeyEvent) -> Outcome {
        match action {
            Action::Toggle => self.continue_selected = !self.continue_selected,
            Action::More => self.extend = (self.extend + 1).min(999),
            Action::Less => self.extend = self.extend.saturating_sub(1).max(1),
            Action::EndNow => return answer(&self.request_id, true, None, None),
            Action::ContinueMore => return answer(&self.request_id, false, None, Some(self.extend)),
            Action::Confirm if self.continue_selected => return answer(&self.request_id, false, None, Some(self.extend)),
            Action::Confirm => return answer(&self.request_id, true, None, None),
            _ => {}
        }
        Outcome::Keep
    }

    fn view(&self, who: &Speakers<'_>, width: u16) -> View {
        let lang = who.lang;
        let unit = match self.kind {
            ConfirmKind::TimeLimit => Screen::LimitUnitMinutes.say(lang),
            _ => Screen::LimitUnitRounds.say(lang),
        };
        let sel = Style::new().bg(DANGER).fg(TEXT).bold();
        let off = Style::new().fg(MUTED);
        let mut body = wrap(&parse(&self.text), width);
        body.push(Line::default());
        body.push(Line::from(vec![
            Span::styled(
                format!(" {} ", Screen::LimitEndNow.say(lang)),
                if self.continue_selected { off } else { sel },
            ),
            Span::raw("   "),
            Span::styled(
                format!(" {} {} {unit} ", Screen::LimitContinue.say(lang), self.extend),
                if self.continue_selected { sel } else { off },
            ),
        ]));
        View {
            title: format!(" ⏰ {} ", Screen::LimitTitle.say(lang)),
            color: DANGER,
            body,
        }
    }

    fn request_id(&self) -> Option<&str> {
        Some(&self.request_id)
    }
}
