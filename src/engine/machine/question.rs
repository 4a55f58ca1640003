//! An agent asks the facilitator directly (the ask marker at the start of a
//! line): the round ends at once, the question is shown, and the
//! facilitator's next message goes to that agent first. A pending question
//! is a legitimate pause: no automatic push happens meanwhile. A question
//! that calls on an agent is the room's, not the facilitator's.

use super::party::Party;
use crate::engine::Event;
use crate::roster::agents::Agent;
use crate::session::TurnKind;
use crate::verdict::SelfCheck;

impl Party {
    pub(super) async fn agent_question(&mut self, round: u32, agent: &Agent, question: String) {
        let question = if question.is_empty() { "…".to_string() } else { question };
        let text = self.render(
            "question",
            &[("name", &agent.name), ("question", &question), ("user_name", &self.room.user_name)],
        );
        self.push_turn_in(round, TurnKind::Question, Some(agent), text, false);
        let s = &mut self.session;
        s.fm.conversation_state.awaiting_answer_from = Some(agent.id.clone());
        // A question for the human resets the push budget: the facilitator
        // answering it is them taking part.
        s.fm.diligence.used = 0;
        self.save().await;
        self.emit(Event::AgentQuestion {
            agent: agent.id.clone(),
            name: agent.name.clone(),
            question,
        });
    }
}

impl Party {
    /// Whether `round` opened with the facilitator's answer to a question
    /// the room asked in the round before: work the room asked for, never
    /// a close, and nothing to ask about again.
    pub(super) fn answers_question(&self, round: u32) -> bool {
        self.session
            .turns
            .iter()
            .rev()
            .find(|t| t.kind == TurnKind::Question)
            .is_some_and(|t| t.round + 1 == round)
    }

    /// Whether `q` hands the facilitator's own message back: the latest
    /// facilitator message up to `round` says nearly the same words. A
    /// question the facilitator just asked the room is the room's to answer.
    pub(super) fn echoes_facilitator(&self, round: u32, q: &str) -> bool {
        self.session
            .turns
            .iter()
            .rev()
            .filter(|t| t.round <= round)
            .find(|t| t.kind == TurnKind::Facilitator)
            .is_some_and(|t| crate::engine::similarity::lexical(&t.text, q) >= ECHO_SIMILARITY)
    }

    /// Whether `agent`'s self-check question `q` would ask again: it asked
    /// the facilitator in the round before (and was just answered), or the
    /// room asked the same question earlier. A small model asks its
    /// question again after the answer, round after round.
    pub(super) fn asked_before(&self, agent: &Agent, round: u32, q: &str) -> bool {
        let same = |text: &str| text.contains(q.trim());
        self.session.turns.iter().rev().filter(|t| t.kind == TurnKind::Question).any(|t| {
            let theirs = t.agent.as_deref() == Some(agent.id.as_str());
            (theirs && t.round + 1 >= round) || same(&t.text)
        })
    }

    /// Whether an agent's ask-marker question `q` is put to the facilitator:
    /// not one for the room (calling on an agent, proposing, asking an
    /// opinion), nor the facilitator's own question handed back.
    pub(super) fn asks_the_facilitator(&self, round: u32, agent: &Agent, q: &str) -> bool {
        let names = self.room.agents.iter().map(|a| a.name.as_str());
        if crate::engine::cleanup::for_the_room(q, names) {
            tracing::info!(agent = %agent.id, question = %q, "the ask marker before a question for the room: the round goes on");
            return false;
        }
        if self.echoes_facilitator(round, q) {
            tracing::info!(agent = %agent.id, question = %q, "the ask marker before the facilitator's own question: the round goes on");
            return false;
        }
        true
    }

    /// The question of a speaker's self-check, if it asks the facilitator
    /// something new: only with a question mark (an answer cut off
    /// mid-question asks nothing), not for the room, not asked before.
    pub(super) fn checked_question(&self, round: u32, agent: &Agent, check: Option<&SelfCheck>) -> Option<String> {
        let names = self.room.agents.iter().map(|a| a.name.as_str());
        check
            .and_then(|c| c.ask.clone())
            .filter(|q| q.trim_end().ends_with(['?', '？']) && !crate::engine::cleanup::for_the_room(q, names))
            .filter(|q| !self.asked_before(agent, round, q))
    }
}

/// The lexical similarity from which a question repeats the facilitator's
/// message rather than asking something of its own.
const ECHO_SIMILARITY: f64 = 0.8;
