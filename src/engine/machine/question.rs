//! An agent asks the facilitator directly (the ask marker at the start of a
//! line): the round ends at once, the question is shown, and the
//! facilitator's next message goes to that agent first. A pending question
//! is a legitimate pause: no automatic push happens meanwhile.

use super::party::Party;
use crate::engine::Event;
use crate::roster::agents::Agent;
use crate::session::TurnKind;

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
