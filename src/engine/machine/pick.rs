//! Who speaks: the heuristic choice (`crate::engine::selection`), or the
//! model's with `selection: llm`, and the agent who asked the facilitator
//! first when they answer.

use super::party::Party;
use super::stream::{Reply, StreamMode};
use crate::engine::selection;
use crate::llm::{ChatMessage, ChatRequest, Cue, Role};
use crate::roster::agents::Agent;
use crate::session::{Turn, TurnKind};

/// The model's choice of speakers.
enum Chosen {
    Agents(Vec<usize>),
    /// No usable answer: the heuristic choice stands.
    Fallback,
    Quit,
}

impl Party {
    /// Who speaks this round, in order; None when the facilitator quit
    /// while the model was choosing.
    pub(super) async fn pick_agents(&mut self, message: &str, pushed: bool) -> Option<Vec<usize>> {
        // The facilitator's `/only` is the choice, in its order.
        if let Some(only) = self.take_only() {
            return Some(only);
        }
        let heuristic = self.heuristic_pick(message, pushed);
        let picked = if self.room.cfg.party.selection == crate::config::Selection::Llm && !pushed {
            match self.llm_select(message, &heuristic).await {
                Chosen::Agents(mut picked) => {
                    picked.retain(|&i| !self.is_muted(&self.room.agents[i].id));
                    if picked.is_empty() {
                        heuristic
                    } else {
                        picked
                    }
                }
                Chosen::Fallback => heuristic,
                Chosen::Quit => return None,
            }
        } else {
            heuristic
        };
        Some(self.asker_first(picked))
    }

    /// The agent who asked the facilitator hears the answer first; the
    /// host, who asks for the room (`reading`), leaves it to the room.
    pub(super) fn asker_first(&self, mut picked: Vec<usize>) -> Vec<usize> {
        if let Some(id) = self.state().awaiting_answer_from.as_ref().filter(|id| !self.is_muted(id)) {
            if let Some(i) = self.room.agents.iter().position(|a| &a.id == id && !a.moderator) {
                picked.retain(|&x| x != i);
                picked.insert(0, i);
                picked.truncate(self.room.cfg.party.agents_per_round.1.max(1));
            }
        }
        picked
    }

    /// The heuristic choice for `message` (the topic when the room goes on
    /// by itself): what the next round picks, as far as the conversation so
    /// far decides it — the read-ahead's guess too (`warm`).
    pub(super) fn heuristic_pick(&self, message: &str, pushed: bool) -> Vec<usize> {
        let context: String = self
            .session
            .turns
            .iter()
            .rev()
            .filter(|t| t.kind == TurnKind::Agent)
            .take(3)
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let (history, rounds_played) = round_history(&self.session.turns, selection::RECENT_ROUNDS);
        // Agents whose push budget is below 1 never take part in pushed rounds.
        // Nor do muted agents, ever.
        let eligible = |a: &Agent| !self.is_muted(&a.id) && (!pushed || a.diligence_push_max.is_none_or(|m| m >= 1));
        selection::select(
            &self.room.agents,
            &self.room.profiles,
            message,
            &context,
            selection::Floor {
                recent: &history,
                played: rounds_played,
            },
            self.room.cfg.party.agents_per_round,
            eligible,
        )
    }

    /// `selection: llm`: the model picks the speakers; any failure or odd
    /// answer falls back to the heuristic choice.
    async fn llm_select(&mut self, message: &str, heuristic: &[usize]) -> Chosen {
        let (min, max) = self.room.cfg.party.agents_per_round;
        let roster = self
            .room
            .agents
            .iter()
            .filter(|a| !self.is_muted(&a.id))
            .map(|a| format!("- {}: {} ({}) — {}", a.id, a.name, a.title, a.role))
            .collect::<Vec<_>>()
            .join("\n");
        let system = format!(
            "You choose who speaks next in a group discussion. Pick the {min} to {max} agents whose expertise best fits the facilitator's message; vary the speakers across rounds. Reply with only a JSON array of agent ids, e.g. [\"a\",\"b\"].\n\nAgents:\n{roster}"
        );
        let req = ChatRequest {
            model: None,
            endpoint: None,
            messages: vec![
                ChatMessage::new(Role::System, system),
                ChatMessage::new(Role::User, message.to_string()),
            ],
            temperature: 0.0,
            max_tokens: Some(64),
            stop: vec![],
            json_schema: None,
            seed: None,
            cue: Cue::Selection {
                candidates: heuristic.iter().map(|&i| self.room.agents[i].id.clone()).collect(),
            },
        };
        let reply = match self.stream_reply(req, None, StreamMode::Silent, None).await {
            Reply::Completed { raw, .. } => raw,
            Reply::Quit { .. } => return Chosen::Quit,
            _ => return Chosen::Fallback,
        };
        parse_choice(&self.room.agents, message, &reply, min, max).map_or(Chosen::Fallback, Chosen::Agents)
    }
}

/// The model's answer to the selection prompt, read: a JSON array of ids
/// somewhere in it; agents the message names come first; None when it
/// names fewer than `min` known agents.
fn parse_choice(agents: &[Agent], message: &str, reply: &str, min: usize, max: usize) -> Option<Vec<usize>> {
    let start = reply.find('[')?;
    let end = reply[start..].find(']')? + start;
    let ids: Vec<String> = serde_json::from_str(&reply[start..=end]).ok()?;
    let mut picked: Vec<usize> = selection::named(agents, message);
    for id in ids {
        if let Some(i) = agents.iter().position(|a| a.id.eq_ignore_ascii_case(id.trim())) {
            if !picked.contains(&i) {
                picked.push(i);
            }
        }
    }
    picked.truncate(max.max(selection::named(agents, message).len()));
    (picked.len() >= min).then_some(picked)
}

/// Who spoke in each of the last `keep` rounds (oldest first), and how
/// many rounds had speakers at all. Only recent rounds matter to the
/// choice, so only they are collected.
fn round_history(turns: &[Turn], keep: usize) -> (Vec<Vec<String>>, usize) {
    let mut recent: Vec<Vec<String>> = Vec::new();
    let mut rounds = 0usize;
    let mut last_round = None;
    for t in turns.iter().rev() {
        let (TurnKind::Agent, Some(id)) = (t.kind, &t.agent) else {
            continue;
        };
        if last_round != Some(t.round) {
            last_round = Some(t.round);
            rounds += 1;
            if rounds <= keep {
                recent.push(Vec::new());
            }
        }
        if let Some(last) = recent.last_mut().filter(|_| rounds <= keep) {
            last.push(id.clone());
        }
    }
    recent.reverse();
    for ids in &mut recent {
        ids.reverse();
    }
    (recent, rounds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(kind: TurnKind, agent: &str, round: u32) -> Turn {
        Turn::said(kind, Some(agent), round, "", "")
    }

    #[test]
    fn the_models_choice_is_read_leniently_and_named_agents_come_first() {
        let room = crate::roster::agents::load_roster(&crate::assets::embedded_agents()).expect("built-in room");
        let id = |i: usize| room[i].id.clone();
        let reply = format!("Sure! [\"{}\", \"{}\", \"nobody\"] would fit.", id(2), id(3));
        // The message names agent 0: it speaks first, then the model's picks.
        let message = format!("What does {} think?", room[0].name);
        assert_eq!(parse_choice(&room, &message, &reply, 2, 3), Some(vec![0, 2, 3]));
        assert_eq!(parse_choice(&room, "hello", &reply, 2, 3), Some(vec![2, 3]));
        // Too few known ids, or no array at all: the heuristic stands.
        assert_eq!(parse_choice(&room, "hello", "[\"nobody\"]", 2, 3), None);
        assert_eq!(parse_choice(&room, "hello", "Maya and Kofi", 2, 3), None);
    }

    #[test]
    fn round_history_keeps_the_last_rounds_in_speaking_order() {
        let turns = vec![
            turn(TurnKind::Agent, "a", 1),
            turn(TurnKind::Agent, "b", 1),
            turn(TurnKind::Notice, "x", 1),
            turn(TurnKind::Agent, "c", 2),
            turn(TurnKind::Agent, "a", 3),
            turn(TurnKind::Agent, "d", 3),
        ];
        let (recent, played) = round_history(&turns, 2);
        assert_eq!(recent, vec![vec!["c".to_string()], vec!["a".to_string(), "d".to_string()]]);
        assert_eq!(played, 3);
        assert_eq!(round_history(&[], 2), (vec![], 0));
    }
}
