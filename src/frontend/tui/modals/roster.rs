//! Who is in the room ([R] in the menu): the speakers in the room (muted,
//! or given the next round), then the roster's agents out of it. A key on
//! the highlighted one sends the room command the message box would
//! (`/invite`, `/dismiss`, `/mute`, `/unmute`, `/only`), and the modal
//! stays open: the engine's answer (a notice, the room told again, the
//! status) redraws it.

use ratatui::crossterm::event::KeyEvent;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{button, Component, Outcome, View};
use crate::engine::{AgentInfo, Command};
use crate::frontend::tui::keymap::{Action, Context};
use crate::frontend::tui::theme::{Speakers, ATTENTION, FAINT, HEADING, INK, MUTED};
use crate::i18n::{Say, Screen};

/// How many agents the modal lists at once; the list scrolls with the
/// highlight.
const SHOWN: usize = 12;

/// Where an agent stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    In,
    Muted,
    /// In the room, and the next round is theirs (`/only`).
    Next,
    Out,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    pub(crate) agent: AgentInfo,
    pub(crate) standing: Standing,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Roster {
    pub(crate) rows: Vec<Row>,
    /// The highlighted row.
    pub(crate) at: usize,
}

impl Roster {
    /// The rows for the room `room` (ids, in order), the agents out of it,
    /// the muted and a pending `/only`; the highlight stays on the agent
    /// it was on.
    pub(crate) fn refresh(&mut self, agents: &[AgentInfo], room: &[String], out: &[AgentInfo], muted: &[String], next: &[String]) {
        let was = self.rows.get(self.at).map(|r| r.agent.id.clone());
        let standing = |id: &String| {
            if muted.contains(id) {
                Standing::Muted
            } else if next.contains(id) {
                Standing::Next
            } else {
                Standing::In
            }
        };
        let inside = room
            .iter()
            .filter_map(|id| agents.iter().find(|a| &a.id == id && !a.moderator))
            .map(|a| Row {
                agent: a.clone(),
                standing: standing(&a.id),
            });
        let outside = out.iter().map(|a| Row {
            agent: a.clone(),
            standing: Standing::Out,
        });
        self.rows = inside.chain(outside).collect();
        self.at = was
            .and_then(|id| self.rows.iter().position(|r| r.agent.id == id))
            .unwrap_or(self.at)
            .min(self.rows.len().saturating_sub(1));
    }

    fn send(&self, command: &str) -> Outcome {
        match self.rows.get(self.at) {
            Some(r) => Outcome::Send(Command::Message {
                text: format!("{command} {}", r.agent.id),
            }),
            None => Outcome::Keep,
        }
    }

    fn row_line(&self, i: usize, row: &Row, who: &Speakers<'_>) -> Line<'static> {
        let lang = who.lang;
        let chosen = i == self.at;
        let name = format!(" {} {} — {} ", row.agent.icon, row.agent.name, row.agent.title);
        let style = if chosen {
            Style::new().bg(ATTENTION).fg(INK).bold()
        } else if row.standing == Standing::Out {
            Style::new().fg(MUTED)
        } else {
            Style::new()
        };
        let mark = match row.standing {
            Standing::Muted => Screen::RosterMuted.say(lang),
            Standing::Next => Screen::RosterNext.say(lang),
            Standing::In | Standing::Out => String::new(),
        };
        Line::from(vec![
            Span::raw(if chosen { "▶" } else { " " }),
            Span::styled(name, style),
            Span::styled(format!(" {mark}"), Style::new().fg(FAINT)),
        ])
    }
}

impl Component for Roster {
    fn context(&self) -> Context {
        Context::RosterModal
    }

    fn on_action(&mut self, action: Action, _key: &KeyEvent) -> Outcome {
        let standing = self.rows.get(self.at).map(|r| r.standing);
        match action {
            Action::LineUp => self.at = self.at.saturating_sub(1),
            Action::LineDown => self.at = (self.at + 1).min(self.rows.len().saturating_sub(1)),
            Action::Confirm if standing == Some(Standing::Out) => return self.send("/invite"),
            Action::Confirm => return self.send("/dismiss"),
            Action::Mute if standing == Some(Standing::Muted) => return self.send("/unmute"),
            Action::Mute if standing.is_some_and(|s| s != Standing::Out) => return self.send("/mute"),
            // Again on the one the next round is for: the room picks.
            Action::Only if standing == Some(Standing::Next) => return Outcome::Send(Command::Message { text: "/only".into() }),
            Action::Only if matches!(standing, Some(Standing::In)) => return self.send("/only"),
            Action::Close => return Outcome::Close(None),
            _ => {}
        }
        Outcome::Keep
    }

    fn view(&self, who: &Speakers<'_>, _width: u16) -> View {
        let lang = who.lang;
        let heading = |s: Screen| Line::from(Span::styled(s.say(lang), Style::new().fg(HEADING).bold()));
        let first = self.at.saturating_sub(SHOWN / 2).min(self.rows.len().saturating_sub(SHOWN));
        let mut body = Vec::new();
        for (i, row) in self.rows.iter().enumerate().skip(first).take(SHOWN) {
            let out = row.standing == Standing::Out;
            if i == first && !out {
                body.push(heading(Screen::RosterIn));
            }
            if out && (i == first || self.rows[i - 1].standing != Standing::Out) {
                body.push(Line::default());
                body.push(heading(Screen::RosterOut));
            }
            body.push(self.row_line(i, row, who));
        }
        if !self.rows.iter().any(|r| r.standing == Standing::Out) {
            body.push(Line::default());
            body.push(Line::from(Span::styled(Screen::RosterNobodyOut.say(lang), Style::new().fg(FAINT))));
        }
        body.push(Line::default());
        let key = Style::new().bg(ATTENTION).fg(INK).bold();
        let mut keys = Vec::new();
        for action in [Action::Confirm, Action::Mute, Action::Only, Action::Close] {
            keys.extend(button(Context::RosterModal, action, lang, key));
            keys.push(Span::raw("  "));
        }
        body.push(Line::from(keys));
        View {
            title: format!(" 👥 {} ", Screen::RosterTitle.say(lang)),
            color: ATTENTION,
            body,
        }
    }

    fn request_id(&self) -> Option<&str> {
        None
    }
}
