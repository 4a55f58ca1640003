//! `/pin [NAME]` and `/unpin` (read by `engine::pins`): the reply pinned
//! is kept in the session (`pinned`), said in the transcript, and put
//! first into the highlights, the takeaways and the party's memory.

use super::party::Party;
use super::Next;
use crate::engine::pins::PinCommand;
use crate::engine::{Event, NoticeKind};
use crate::i18n::{Room as Said, Say};
use crate::session::{Pin, TurnKind};

impl Party {
    /// A typed pin command: carried out and saved, or refused saying why.
    pub(super) async fn pin(&mut self, command: Result<PinCommand, String>) -> Next {
        let lang = self.room.lang;
        let said = match command {
            Err(word) => Err(Said::NoSuchSpeaker {
                word: &word,
                room: &self.room.speaker_names(|_| true),
            }
            .say(lang)),
            Ok(PinCommand::Unpin) => {
                let n = std::mem::take(&mut self.session.fm.pinned).len();
                Ok(Said::Unpinned { n }.say(lang))
            }
            Ok(PinCommand::Pin(agent)) => {
                let last = self.session.turns.iter().rev().find(|t| {
                    t.kind == TurnKind::Agent && t.agent.is_some() && agent.as_deref().is_none_or(|a| t.agent.as_deref() == Some(a))
                });
                match last {
                    Some(t) => {
                        let pin = Pin {
                            round: t.round,
                            agent: t.agent.clone().unwrap_or_default(),
                            label: t.label.clone(),
                            text: t.text.clone(),
                        };
                        let text = Said::Pinned {
                            line: &crate::text::ellipsize(&pin.line(), 200),
                        }
                        .say(lang);
                        if !self.session.fm.pinned.contains(&pin) {
                            self.session.fm.pinned.push(pin);
                        }
                        Ok(text)
                    }
                    None => Err(match agent.and_then(|id| self.room.agents.iter().find(|a| a.id == id)) {
                        Some(a) => Said::NotSpokenYet { name: &a.name }.say(lang),
                        None => Said::NothingToPin.say(lang),
                    }),
                }
            }
        };
        match said {
            Ok(text) => self.notice(NoticeKind::Info, text).await,
            Err(message) => self.emit(Event::Rejected { message }),
        }
        Next::Wait
    }
}
