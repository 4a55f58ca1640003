//! What each agent call's reply may not do (`cleanup::Voices`), and the
//! labels the server is asked to stop at: built from the room and the
//! transcript the call's prompt was made from.

use super::party::Party;
use crate::engine::cleanup::Voices;
use crate::roster::agents::Agent;
use crate::session::TurnKind;

/// Earlier turns whose sentences a reply may not copy: more than a long
/// party's prompt holds (a small model copies its own reply of five rounds
/// before), and still little work per call.
const ECHO_LOOKBACK: usize = 40;

impl Party {
    /// The facilitator and the other agents, by the names the history uses.
    fn others(&self, agent: &Agent) -> Vec<String> {
        let mut names = vec![self.room.user_name.clone()];
        names.extend(self.room.agents.iter().filter(|a| a.id != agent.id).map(|a| a.name.clone()));
        names
    }

    /// Names a reply may not speak as: everyone else, and the generic labels.
    fn other_labels(&self, agent: &Agent) -> Vec<String> {
        let mut names = self.others(agent);
        names.extend(["Facilitator", "主持人"].map(String::from));
        names
    }

    /// The rules for `agent`'s reply; `runtime`: the instruction texts of its prompt.
    pub(super) fn voices_for(&self, agent: &Agent, runtime: &[String]) -> Voices {
        let turns = self.context_turns();
        let spoke = |a: &Agent| {
            turns
                .iter()
                .any(|t| t.kind == TurnKind::Agent && t.agent.as_deref() == Some(a.id.as_str()))
        };
        let unspoken = self
            .room
            .agents
            .iter()
            .filter(|a| a.id != agent.id && !spoke(a))
            .map(|a| a.name.clone())
            .collect();
        // The language agents speak, whatever the program's own is.
        let language = crate::engine::cleanup::language::of(&self.room.speech_language);
        let mut v = Voices::new(&agent.name, self.other_labels(agent), unspoken, language);
        self.tokens.lock().unwrap_or_else(std::sync::PoisonError::into_inner).next_call();
        v.memo = Some(self.tokens.clone());
        // Its title in the party's language, and in the others it has.
        v.titles = std::iter::once(agent.title.clone())
            .chain(agent.translations.values().filter_map(|p| p.title.clone()))
            .collect();
        v.markers = Some(self.room.markers());
        v.hosts = vec![self.room.user_name.clone(), "Facilitator".into(), "主持人".into()];
        // The rehearsal's replies are written, not sampled: their stock
        // sentences recur by design, and asking again would change nothing.
        v.keep_echoes = self.room.provider.info().rehearsal;
        for text in runtime {
            v = v.runtime(text);
        }
        // The scene and the briefing's framing read back: dropped like a
        // copied sentence, the rest of the reply kept.
        for text in self.briefing_frames() {
            v = v.earlier(&text);
        }
        // The persona is the agent's own, yet reciting it is no answer.
        for text in [&agent.role, &agent.identity, &agent.communication_style] {
            v = v.earlier(text);
        }
        for p in &agent.principles {
            v = v.earlier(p);
        }
        // The facilitator's messages too: a reply that hands a message back
        // ("Before you go further: is there anything…") answers nothing.
        // And farewells: the next one must not say the same goodbye.
        let said = |t: &&crate::session::Turn| matches!(t.kind, TurnKind::Agent | TurnKind::Facilitator | TurnKind::Farewell);
        for t in turns.iter().rev().filter(said).take(ECHO_LOOKBACK) {
            v = if t.kind == TurnKind::Facilitator {
                v.facilitator(&self.room.user_name, &t.text)
            } else if t.agent.as_deref() != Some(agent.id.as_str()) {
                let by = self.room.agents.iter().find(|a| Some(a.id.as_str()) == t.agent.as_deref());
                v.another(by.map_or("", |a| a.name.as_str()), &t.text)
            } else {
                v.earlier(&t.text)
            };
        }
        v
    }

    /// The points of a list a speaker's turn makes (`Voices::points`): a
    /// point or two, unless the facilitator's `message` (where the room
    /// goes on by itself, their last one) asked for a list: then any.
    pub(super) fn turn_points(&self, message: Option<&str>) -> Option<usize> {
        let last = || {
            let turns = self.session.turns.iter().rev();
            turns.filter(|t| t.kind == TurnKind::Facilitator).map(|t| t.text.as_str()).next()
        };
        let asked = message.or_else(last).is_some_and(crate::engine::cleanup::asks_for_list);
        (!asked).then_some(self.room.cfg.party.turn_points)
    }

    /// Where the server should stop: a line that opens with someone else's
    /// label, the facilitator first. Cleanup cuts there too, for servers
    /// that take fewer stop sequences or none.
    pub(super) fn stop_labels(&self, agent: &Agent) -> Vec<String> {
        self.others(agent)
            .into_iter()
            .filter(|n| !n.trim().is_empty())
            .map(|n| format!("\n{n}:"))
            .collect()
    }
}
