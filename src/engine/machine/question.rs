//! An agent asks the facilitator directly (the ask marker at the start of a
//! line): the round ends at once, the question is shown, and the
//! facilitator's next message goes to that agent first. A pending question
//! is a legitimate pause: no automatic push happens meanwhile. A question
//! that calls on an agent is the room's, not the facilitator's.

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
}

/// The lexical similarity from which a question repeats the facilitator's
/// message rather than asking something of its own.
const ECHO_SIMILARITY: f64 = 0.8;

/// A question that opens by calling on an agent ("Amara, should we…"): for
/// the room, which goes on, not for the facilitator. The ask instruction
/// says so; the local 1.5B asked its colleagues through the marker anyway,
/// and once itself ("Priya, should our city library lend tools…?" by Priya).
pub(super) fn for_an_agent<'a>(question: &str, names: impl IntoIterator<Item = &'a str>) -> bool {
    let q = question.trim_start_matches([':', '：', ' ', '*']).to_lowercase();
    let q = ["hey ", "hi "].iter().find_map(|g| q.strip_prefix(g)).unwrap_or(&q);
    names.into_iter().map(str::to_lowercase).any(|name| {
        q.strip_prefix(name.as_str())
            .is_some_and(|rest| rest.starts_with([',', '，', '、']) || rest.starts_with(" and "))
    })
}

#[cfg(test)]
mod tests {
    use super::for_an_agent;

    #[test]
    fn a_question_calling_on_an_agent_is_for_the_room() {
        // The speaker among them: asking itself is no question for the facilitator either.
        let names = ["Amara", "Kofi", "Priya"];
        for q in [
            ": Amara, should we discuss the risks first?",
            "Kofi, what would the platform cost?",
            "Hey kofi, any numbers?",
            "Amara and Kofi, who takes the website?",
            "阿玛拉，你怎么看？",
            "Priya, should our city library lend tools as well as books?",
        ] {
            assert!(for_an_agent(q, names.iter().copied().chain(["阿玛拉"])), "{q}");
        }
        for q in [
            "What budget do we have?",
            "Facilitator, which shop opens first?",
            "Amara's plan needs a budget: how much can we spend?",
            "Kofimart or Shopify, which do you use?",
        ] {
            assert!(!for_an_agent(q, names), "{q}");
        }
    }
}
