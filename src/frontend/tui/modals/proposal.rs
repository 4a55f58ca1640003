//! A proposal to end the party — an agent's end marker, the room's
//! consensus, or a room going in circles: Enter ends, a typed message goes
//! to the room instead, Esc goes on.

use ratatui::crossterm::event::KeyEvent;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{answer, typed, Component, Outcome, View};
use crate::engine::Command;
use crate::frontend::tui::keymap::{Action, Context};
use crate::frontend::tui::markdown::{parse, wrap};
use crate::frontend::tui::theme::{agent_color, Speakers, FAINT};
use crate::i18n::{Say, Screen};
use crate::session::ConfirmKind;

/// How much of the proposing reply the modal repeats (its end, where the
/// proposal is).
const KEEP_LINES: usize = 8;

#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    pub request_id: String,
    pub kind: ConfirmKind,
    pub agent: Option<String>,
    pub text: String,
    pub input: String,
}

impl Component for Proposal {
    fn context(&self) -> Context {
        Context::ProposalModal
    }

    fn on_action(&mut self, action: Action, key: &KeyEvent) -> Outcome {
        match action {
            Action::Confirm if self.input.trim().is_empty() => answer(&self.request_id, true, None, None),
            // A message declines the proposal and goes to the room.
            Action::Confirm => Outcome::Close(Some(Command::Message {
                text: self.input.trim().to_string(),
            })),
            Action::Decline => answer(&self.request_id, false, Some("continue"), None),
            Action::Erase => {
                self.input.pop();
                Outcome::Keep
            }
            Action::TypeChar => {
                self.input.extend(typed(key));
                Outcome::Keep
            }
            _ => Outcome::Keep,
        }
    }

    fn view(&self, who: &Speakers<'_>, width: u16) -> View {
        let lang = who.lang;
        let (label, color) = match self.agent.as_deref().and_then(|a| who.agent(a)) {
            Some(a) => (format!("{} {}", a.icon, a.name), agent_color(a.color.as_deref())),
            None => (String::new(), crate::frontend::tui::theme::agent_color(None)),
        };
        let mut body = wrap(&parse(&self.text), width);
        if body.len() > KEEP_LINES {
            body = body.split_off(body.len() - KEEP_LINES);
            body.insert(0, Line::from(Span::styled("…", Style::new().fg(FAINT))));
        }
        body.push(Line::default());
        body.extend(wrap(&parse(&Screen::ProposalAsk.say(lang)), width));
        body.push(Line::from(vec![
            Span::styled("> ", Style::new().fg(color)),
            Span::raw(self.input.clone()),
            Span::styled("▌", Style::new().fg(color)),
        ]));
        let title = match self.kind {
            ConfirmKind::Consensus => format!(" 🤝 {} ", Screen::ProposalConsensusTitle.say(lang)),
            ConfirmKind::Silence => format!(" 🔁 {} ", Screen::ProposalSilenceTitle.say(lang)),
            _ => format!(" 💡 {label} {} ", Screen::ProposalSuggestsEnding.say(lang)),
        };
        View { title, color, body }
    }

    fn request_id(&self) -> Option<&str> {
        Some(&self.request_id)
    }

    fn paste(&mut self, text: &str) {
        self.input.push_str(&text.replace('\n', " "));
    }
}
