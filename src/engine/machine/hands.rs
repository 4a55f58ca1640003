//! The facilitator's hands on who is in the room and who speaks
//! (`/invite`, `/dismiss`, `/mute`, `/unmute`, `/only`; read by
//! `engine::hands`): the same before the topic (the lobby keeps them for
//! the session it opens) and during the party (in the session's state,
//! saved with a notice, shown in the status). A pending `/only` is taken
//! by the next round's choice of speakers (`pick`); who comes and goes is
//! `members`' to carry out.

use super::members::Change;
use super::party::Party;
use super::Next;
use super::Room;
use crate::engine::hands::{Hand, HandError};
use crate::engine::{Event, NoticeKind};
use crate::i18n::{Room as Said, Say};
use crate::session::ConversationState;

/// Who is muted, who the next round goes to alone, and who came or went
/// since the session opened, by id (`ConversationState`'s fields).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Hands {
    pub(super) muted: Vec<String>,
    pub(super) only: Vec<String>,
    pub(super) invited: Vec<String>,
    pub(super) dismissed: Vec<String>,
}

impl Hands {
    fn of(s: &ConversationState) -> Hands {
        Hands {
            muted: s.muted.clone(),
            only: s.only.clone(),
            invited: s.invited.clone(),
            dismissed: s.dismissed.clone(),
        }
    }

    pub(super) fn into_state(self, s: &mut ConversationState) {
        (s.muted, s.only, s.invited, s.dismissed) = (self.muted, self.only, self.invited, self.dismissed);
    }
}

/// What a room command did: the notice that says so, the message that
/// came with `/only` (the round it starts goes to them), and who comes in
/// or goes out.
pub(super) struct Done {
    pub(super) notice: String,
    pub(super) message: Option<String>,
    pub(super) change: Option<Change>,
}

impl Room {
    /// `hand` carried out on `hands`, or why it cannot be (nothing changed).
    pub(super) fn apply_hand(&self, hands: &mut Hands, hand: Result<Hand, HandError>) -> Result<Done, String> {
        let lang = self.lang;
        let room = self.speaker_names(|_| true);
        let hand = hand.map_err(|e| match e {
            HandError::Unknown { word } => Said::NoSuchSpeaker { word: &word, room: &room }.say(lang),
            HandError::NoName { command: "/invite" } => self.invite_refused(None),
            HandError::NoName { command } => Said::NeedsName { command, room: &room }.say(lang),
            HandError::NotInvitable { word, here: true } => {
                let here = crate::engine::hands::agent_named(&word, &self.agents);
                Said::InTheRoomAlready {
                    name: &names_of(here.into_iter()),
                }
                .say(lang)
            }
            HandError::NotInvitable { word, here: false } => self.invite_refused(Some(&word)),
        })?;
        let done = |notice: String| Done {
            notice,
            message: None,
            change: None,
        };
        match hand {
            Hand::Invite(ids) => self.invite(hands, ids),
            Hand::Dismiss(ids) => self.dismiss(hands, ids),
            Hand::Switch(name) => self.switch(hands, &name),
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
                    change: None,
                })
            }
        }
    }

    /// The speakers' names (`Maya (analyst)`) whose ids `keep` takes, in
    /// the room's order.
    pub(super) fn speaker_names(&self, keep: impl Fn(&str) -> bool) -> String {
        names_of(self.agents.iter().filter(|a| !a.moderator && keep(&a.id)))
    }
}

/// Agents as the facilitator reads them in a notice: `Maya (analyst)`.
pub(super) fn names_of<'a>(agents: impl Iterator<Item = &'a crate::roster::Agent>) -> String {
    agents
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

impl Party {
    /// A typed room command: carried out, saved with its notice and shown
    /// in the status; or refused, saying why. `/only` with a message goes
    /// on to that message.
    pub(super) async fn hands(&mut self, hand: Result<Hand, HandError>) -> Next {
        let mut hands = Hands::of(self.state());
        let done = match self.room.apply_hand(&mut hands, hand) {
            Ok(done) => done,
            Err(message) => {
                self.emit(Event::Rejected { message });
                return Next::Wait;
            }
        };
        hands.into_state(self.state_mut());
        if let Some(change) = done.change {
            self.change_room(change);
        }
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
