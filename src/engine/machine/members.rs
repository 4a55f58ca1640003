//! Who is in the room: `/invite` brings agents of the roster in (any agent
//! the program knows: the roster's, a BMAD project's members, another
//! party's), `/dismiss` sends speakers out. A newcomer joins at the end of
//! the room and sees the conversation so far, as every speaker does; one
//! sent out is never picked again and is left out of the room's list in
//! every prompt, while their earlier turns stay in the history under their
//! name. The session records both (`conversation_state.invited`,
//! `.dismissed`, and the newcomer in `agents` and `cast`), and `--resume`
//! rebuilds the room from them (`Room::as_left`).
//!
//! An invited agent speaks through its own endpoint when this sitting has
//! that endpoint's server open, else through the default one.

use super::hands::{names_of, Done, Hands};
use super::party::Party;
use super::Room;
use crate::engine::{AgentInfo, Event, Standing};
use crate::i18n::{Room as Said, Say};
use crate::roster::Agent;
use crate::session::CastMember;

/// Who comes in or goes out.
#[derive(Debug, Clone)]
pub(super) enum Change {
    In(Vec<Agent>),
    Out(Vec<String>),
    /// Another named party: its cast in the room's place (the host
    /// stays), its scene and its memory.
    Switch {
        out: Vec<String>,
        joining: Vec<Agent>,
        party: Box<Standing>,
    },
}

impl Room {
    /// The agents of the roster out of the room (the dismissed among
    /// them), the moderator aside.
    pub(super) fn out_of_room(&self) -> impl Iterator<Item = &Agent> {
        self.pool
            .iter()
            .filter(|p| !p.moderator && !self.agents.iter().any(|a| a.id == p.id))
    }

    /// Everyone who may have spoken in this session: the room, then the
    /// roster's agents out of it (one sent out has their turns still).
    pub(super) fn anyone(&self) -> Vec<Agent> {
        self.agents.iter().chain(self.out_of_room()).cloned().collect()
    }

    /// Why `/invite` names nobody to bring in: no name, or `word` that
    /// names nobody out of the room.
    pub(super) fn invite_refused(&self, word: Option<&str>) -> String {
        let out = names_of(self.out_of_room());
        match word {
            _ if out.is_empty() => Said::NobodyOut.say(self.lang),
            Some(word) => Said::NotInvitable { word, out: &out }.say(self.lang),
            None => Said::InviteNeedsName { out: &out }.say(self.lang),
        }
    }

    /// `a` as it sits in this room: through its endpoint when this sitting
    /// has that server open, else through the default one.
    fn seated(&self, a: &Agent) -> Agent {
        Agent {
            endpoint: self.server(a.endpoint.as_deref()).map(|s| s.name.clone()),
            ..a.clone()
        }
    }

    /// The agents out of the room that `ids` names, seated, in that order.
    fn newcomers(&self, ids: &[String]) -> Vec<Agent> {
        ids.iter()
            .filter_map(|id| self.out_of_room().find(|a| &a.id == id))
            .map(|a| self.seated(a))
            .collect()
    }

    /// `/invite`: the agents `ids` names (out of the room) join it.
    pub(super) fn invite(&self, hands: &mut Hands, ids: Vec<String>) -> Result<Done, String> {
        let joining = self.newcomers(&ids);
        for a in &joining {
            match hands.dismissed.iter().position(|d| d == &a.id) {
                Some(i) => _ = hands.dismissed.remove(i),
                None if !hands.invited.contains(&a.id) => hands.invited.push(a.id.clone()),
                None => {}
            }
        }
        Ok(Done {
            notice: Said::Invited {
                names: &names_of(joining.iter()),
            }
            .say(self.lang),
            message: None,
            change: Some(Change::In(joining)),
        })
    }

    /// `/dismiss`: the speakers `ids` names leave the room; one speaker at
    /// least, unmuted, stays.
    pub(super) fn dismiss(&self, hands: &mut Hands, ids: Vec<String>) -> Result<Done, String> {
        let stays = self
            .agents
            .iter()
            .any(|a| !a.moderator && !ids.contains(&a.id) && !hands.muted.contains(&a.id));
        if !stays {
            return Err(Said::OneStaysUnmuted.say(self.lang));
        }
        let names = self.speaker_names(|id| ids.contains(&id.to_string()));
        hands.muted.retain(|id| !ids.contains(id));
        hands.only.retain(|id| !ids.contains(id));
        for id in &ids {
            match hands.invited.iter().position(|i| i == id) {
                Some(i) => _ = hands.invited.remove(i),
                None if !hands.dismissed.contains(id) => hands.dismissed.push(id.clone()),
                None => {}
            }
        }
        Ok(Done {
            notice: Said::Dismissed { names: &names }.say(self.lang),
            message: None,
            change: Some(Change::Out(ids)),
        })
    }

    /// A resumed session's room: this sitting's cast with the agents the
    /// facilitator brought in and without those they sent out. An invited
    /// agent the roster no longer has stays out (the resume's notice names
    /// it).
    pub(super) fn as_left(&mut self, state: &crate::session::ConversationState) {
        self.agents.retain(|a| !state.dismissed.contains(&a.id));
        let joining = self.newcomers(&state.invited);
        self.agents.extend(joining);
        self.profiles = crate::engine::selection::Profiles::new(&self.agents);
    }

    /// `/party NAME`: that party's cast in the room's place, with its scene
    /// and memory; the thread goes on (newcomers see it all). Who was
    /// brought in or sent out until now no longer counts: a resume builds
    /// the room from the new party's cast.
    pub(super) fn switch(&self, hands: &mut Hands, name: &str) -> Result<Done, String> {
        let known = || self.parties.iter().map(|p| p.party.name.clone()).collect::<Vec<_>>().join(", ");
        if self.parties.is_empty() {
            return Err(Said::NoParties.say(self.lang));
        }
        let wanted = name.trim();
        if wanted.is_empty() {
            return Err(Said::PartyNeedsName { known: &known() }.say(self.lang));
        }
        // An id first: a party's name may spell another's id.
        let Some(party) = (self.parties.iter().find(|p| p.party.id.eq_ignore_ascii_case(wanted)))
            .or_else(|| self.parties.iter().find(|p| p.party.name.eq_ignore_ascii_case(wanted)))
        else {
            return Err(Said::NoSuchParty {
                name: wanted,
                known: &known(),
            }
            .say(self.lang));
        };
        if self.party.as_ref().is_some_and(|p| p.id == party.party.id) {
            return Err(Said::PartyAlready { name: &party.party.name }.say(self.lang));
        }
        let out: Vec<String> = self
            .agents
            .iter()
            .filter(|a| !a.moderator && !party.agents.iter().any(|b| b.id == a.id))
            .map(|a| a.id.clone())
            .collect();
        let joining: Vec<Agent> = party
            .agents
            .iter()
            .filter(|a| !self.agents.iter().any(|b| b.id == a.id))
            .map(|a| self.seated(a))
            .collect();
        hands.muted.retain(|id| party.agents.iter().any(|a| &a.id == id));
        hands.only.clear();
        hands.invited.clear();
        hands.dismissed.clear();
        let scene = party.party.scene.as_deref().unwrap_or("");
        Ok(Done {
            notice: Said::Switched {
                party: &party.party.name,
                names: &names_of(party.agents.iter().filter(|a| !a.moderator)),
                scene,
            }
            .say(self.lang),
            message: None,
            change: Some(Change::Switch {
                out,
                joining,
                party: Box::new(party.clone()),
            }),
        })
    }

    /// The room with `change` made: who is in it, what the choice of
    /// speakers knows of them, and the front ends told (`room_changed`).
    pub(super) fn apply_change(&mut self, change: &Change) {
        match change {
            Change::In(joining) => self.agents.extend(joining.iter().cloned()),
            Change::Out(ids) => self.agents.retain(|a| !ids.contains(&a.id)),
            Change::Switch { out, joining, party } => {
                self.agents.retain(|a| !out.contains(&a.id));
                self.agents.extend(joining.iter().cloned());
                self.party = Some(party.party.clone());
                self.memory = party.memory.clone();
            }
        }
        self.profiles = crate::engine::selection::Profiles::new(&self.agents);
        self.told_labels = self.voice_labels();
        self.emit(self.room_changed());
    }

    /// Who is in the room (with their model labels) and who of the roster
    /// is out of it.
    pub(super) fn room_changed(&self) -> Event {
        Event::RoomChanged {
            agents: self.agent_infos(),
            out: self.out_of_room().map(AgentInfo::from).collect(),
            party: self.party.as_ref().map(|p| p.name.clone()),
        }
    }

    /// The room's agents as the front ends know them, with the model
    /// labels they were last told.
    pub(super) fn agent_infos(&self) -> Vec<AgentInfo> {
        self.agents
            .iter()
            .zip(self.told_labels.iter().cloned().chain(std::iter::repeat(None)))
            .map(|(a, model)| AgentInfo {
                model,
                ..AgentInfo::from(a)
            })
            .collect()
    }
}

impl Party {
    /// `change` made to the room and to the session: a newcomer in its
    /// agents and cast; what was read ahead or fitted for the room as it
    /// was, gone.
    pub(super) fn change_room(&mut self, change: Change) {
        self.room.apply_change(&change);
        if let Change::Switch { party, .. } = &change {
            self.session.fm.party = Some(party.party.id.clone());
        }
        if let Change::In(joining) | Change::Switch { joining, .. } = &change {
            let fm = &mut self.session.fm;
            for a in joining {
                if !fm.agents.contains(&a.id) {
                    fm.agents.push(a.id.clone());
                }
                if !fm.cast.iter().any(|c| c.id == a.id) {
                    fm.cast.push(CastMember::of(a));
                }
            }
        }
        self.stop_warming();
        self.context = Default::default();
    }
}
