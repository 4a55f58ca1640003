//! The facilitator's hands on who speaks (`/mute`, `/unmute`, `/only`;
//! read by `engine::hands`): the same before the topic (the lobby keeps
//! them for the session it opens) and during the party (in the session's
//! state, saved with a notice, shown in the status). A pending `/only`
//! is taken by the next round's choice of speakers (`pick`).

use super::party::Party;
use super::Next;
use super::Room;
use crate::engine::hands::{Hand, HandError};
use crate::engine::{Event, NoticeKind};
use crate::i18n::{Room as Said, Say};

/// Who is muted and who the next round goes to alone, by id.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Hands {
    pub(super) muted: Vec<String>,
    pub(super) only: Vec<String>,
}

/// What a room command did: the notice that says so, and the message
/// that came with `/only` (the round it starts goes to them).
pub(super) struct Done {
    pub(super) notice: String,
    pub(super) message: Option<String>,
}

impl Room {
    /// `hand` carried out on `hands`, or why it cannot be (nothing changed).
    pub(super) fn apply_hand(&self, hands: &mut Hands, hand: Result<Hand, HandError>) -> Result<Done, String> {
        let lang = self.lang;
        let room = self.speaker_names(|_| true);
        let hand = hand.map_err(|e| match e {
            HandError::Unknown { word } => Said::NoSuchSpeaker { word: &word, room: &room }.say(lang),
            HandError::MuteWithoutName => Said::MuteNeedsName { room: &room }.say(lang),
        })?;
        let done = |notice: String| Done { notice, message: None };
        match hand {
            Hand::Mute(ids) => {
                let mut muted = hands.muted.clone();
                muted.extend(ids.iter().filter(|id| !hands.muted.contains(id)).cloned());
                if self.agents.iter().filter(|a| !a.moderator).all(|a| muted.contains(&a.id)) {
                    return Err(Said::OneStaysUnmuted.say(lang));
                }
                hands.only.retain(|id| !muted.contains(id));
                hands.muted = muted;
                Ok(done(
                    Said::Muted {
                        names: &self.speaker_names(|id| ids.contains(&id.to_string())),
                    }
                    .say(lang),
                ))
            }
            Hand::Unmute(ids) if ids.is_empty() => {
                hands.muted.clear();
                Ok(done(Said::UnmutedEveryone.say(lang)))
            }
            Hand::Unmute(ids) => {
                hands.muted.retain(|id| !ids.contains(id));
                Ok(done(
                    Said::Unmuted {
                        names: &self.speaker_names(|id| ids.contains(&id.to_string())),
                    }
                    .say(lang),
                ))
            }
            Hand::Only { agents, message } => {
                if let Some(a) = self.agents.iter().find(|a| agents.contains(&a.id) && hands.muted.contains(&a.id)) {
                    return Err(Said::OnlyMutedSpeaker { name: &a.name, id: &a.id }.say(lang));
                }
                let notice = if agents.is_empty() {
                    Said::OnlyTakenBack.say(lang)
                } else {
                    let names: Vec<&str> = agents
                        .iter()
                        .filter_map(|id| self.agents.iter().find(|a| &a.id == id))
                        .map(|a| a.name.as_str())
                        .collect();
                    Said::OnlyNextRound { names: &names.join(", ") }.say(lang)
                };
                hands.only = agents;
                Ok(Done {
                    notice,
                    message: (!message.is_empty()).then_some(message),
                })
            }
        }
    }

    /// The speakers' names (`Maya (analyst)`) whose ids `keep` takes, in
    /// the room's order.
    fn speaker_names(&self, keep: impl Fn(&str) -> bool) -> String {
        self.agents
            .iter()
            .filter(|a| !a.moderator && keep(&a.id))
            .map(|a| {
                if a.name.eq_ignore_ascii_case(&a.id) {
                    a.name.clone()
                } else {
                    format!("{} ({})", a.name, a.id)
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Party {
    /// A typed room command: carried out, saved with its notice and shown
    /// in the status; or refused, saying why. `/only` with a message goes
    /// on to that message.
    pub(super) async fn hands(&mut self, hand: Result<Hand, HandError>) -> Next {
        let s = self.state();
        let mut hands = Hands {
            muted: s.muted.clone(),
            only: s.only.clone(),
        };
        let done = match self.room.apply_hand(&mut hands, hand) {
            Ok(done) => done,
            Err(message) => {
                self.emit(Event::Rejected { message });
                return Next::Wait;
            }
        };
        let s = self.state_mut();
        (s.muted, s.only) = (hands.muted, hands.only);
        self.notice(NoticeKind::Info, done.notice).await;
        self.emit(Event::Status(self.status()));
        match done.message {
            None => Next::Wait,
            Some(text) if !self.pending.is_empty() => self.answer_with_message(text).await,
            Some(text) => self.facilitator_message(text).await,
        }
    }

    /// The speakers of a pending `/only` still in the room, in its order;
    /// taken, so the round after is the room's to pick again.
    pub(super) fn take_only(&mut self) -> Option<Vec<usize>> {
        let only = std::mem::take(&mut self.state_mut().only);
        let picked: Vec<usize> = only
            .iter()
            .filter_map(|id| self.room.agents.iter().position(|a| &a.id == id))
            .collect();
        (!picked.is_empty()).then_some(picked)
    }

    /// Whether the facilitator muted `id`.
    pub(super) fn is_muted(&self, id: &str) -> bool {
        self.state().muted.iter().any(|m| m == id)
    }
}
