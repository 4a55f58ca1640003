//! What one speaker is sent in a round: the floor as they find it (the
//! message, the replies before them, a redo's seed) made into a request
//! fitted to the context budget, and the voices the reply may not take.

use super::party::Party;
use crate::engine::cleanup::Voices;
use crate::llm::{ChatRequest, Cue};
use crate::roster::agents::Agent;

/// The round as the next speaker finds it.
pub(super) struct Floor {
    pub(super) round: u32,
    /// What the room answers (none for [C]).
    pub(super) message: Option<String>,
    pub(super) topic: String,
    /// The replies so far this round: (name, text).
    pub(super) earlier: Vec<(String, String)>,
    /// The sampling seed of a part asked again (`redo`): its take's number,
    /// so the same prompt is not sampled the same way as the reply set aside.
    pub(super) seed: Option<u64>,
}

impl Party {
    /// The agent's request for this turn, fitted to the context budget, and
    /// the voices its reply may not take.
    /// `ask_again`: the note that asks once more, told why.
    pub(super) fn turn_request(&mut self, agent: &Agent, floor: &Floor, ask_again: Option<&str>) -> (ChatRequest, Voices) {
        let round = floor.round;
        let party = &self.room.cfg.party;
        let end_marker = party.end_detection.enable_detection.then(|| party.end_detection.end_marker.clone());
        let ask_marker = party.ask_marker.clone();
        let names: Vec<String> = floor.earlier.iter().map(|(n, _)| n.clone()).collect();
        let remaining = self.remaining_text(round);
        let note = self
            .env()
            .turn_instruction(agent, round, &names, remaining.as_deref().unwrap_or(""));
        let messages = self.speaker_call(agent, &note);
        let env = self.env();
        let runtime = env.runtime_texts(agent, round, &names, end_marker.as_deref(), Some(&ask_marker), remaining.as_deref());
        let mut voices = self.voices_for(agent, &runtime);
        voices.points = self.turn_points(floor.message.as_deref());
        let mut req = ChatRequest {
            model: agent.model.clone(),
            endpoint: agent.endpoint.clone(),
            messages,
            temperature: self.room.cfg.llm.temperature,
            max_tokens: Some(self.room.budget_of(agent.endpoint.as_deref()).reply),
            stop: self.stop_labels(agent),
            json_schema: None,
            seed: floor.seed,
            cue: Cue::Turn {
                agent: agent.clone(),
                round,
                message: floor.message.clone(),
                topic: floor.topic.clone(),
                earlier: floor.earlier.clone(),
                end_marker,
                ask_marker: Some(ask_marker),
                lang: self.room.lang,
            },
        };
        if let Some(note) = ask_again {
            // Told why, a small model mostly writes something else; the
            // note joins the prompt's end, so the cached prefix holds.
            // A little warmer: the same prompt at the same temperature
            // mostly samples the same copy again.
            voices = voices.runtime(note);
            req.temperature = (req.temperature + 0.3).min(1.5);
            req.messages = crate::engine::prompts::with_instruction(req.messages, note);
        }
        (req, voices)
    }
}
