//! Reading ahead. While the room waits for the facilitator, the server is
//! idle; on a CPU model most of a call's wait is reading its prompt (docs/
//! real-models.md). So each agent's next prompt, as far as it is known —
//! its persona, the rules, the conversation so far — is sent then with one
//! token asked and thrown away. A server that keeps several prompts' states
//! (llama.cpp's server does by default, `--cache-ram`; llama-cpp-python's
//! with `--cache`) holds one per agent, and whoever the next round picks
//! reads only the facilitator's message and the turn's note before writing.
//!
//! Only a round's worth of agents is read: the ones the conversation so
//! far points to (exactly the next round's speakers when the room goes on
//! by itself; a new message may pick others). Each read left over would hold a one-slot server when the
//! facilitator sends, and push a likelier agent's state out of its cache.
//!
//! On by default for a server on this machine or the local network (its
//! idle time costs nothing), off for a hosted API (every read is billed)
//! and the rehearsal: `llm.warm_up`. A round (the facilitator's message,
//! [C], a push) or the graceful exit stops it; a read already under way is
//! let finish, as the server would finish reading that prompt anyway and
//! only a finished call leaves its state.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use futures::StreamExt;
use tokio::time::{Duration, Instant};

use super::party::Party;
use crate::config::WarmUp;
use crate::llm::{ChatRequest, Cue, LlmEvent};
use crate::roster::agents::Agent;
use crate::session::{Turn, TurnKind};

/// How long the room waits before reading ahead: a facilitator whose next
/// line is already there (a script, a paste) never waits on a read they
/// did not need; anyone reading the replies takes longer than this.
const WARM_AFTER: Duration = Duration::from_millis(1500);

/// The read-ahead under way.
pub(super) struct Warming {
    /// Set: no further read starts.
    stop: Arc<AtomicBool>,
    /// What it was started for (`Party::warm_key`): the same state is
    /// not read twice.
    key: (usize, usize),
}

/// Whether prompts are read ahead: `auto` only for a server on this
/// machine or the local network, never for the rehearsal.
pub(super) fn warms(setting: WarmUp, base_url: Option<&str>, rehearsal: bool) -> bool {
    match setting {
        _ if rehearsal => false,
        WarmUp::On => true,
        WarmUp::Off => false,
        WarmUp::Auto => base_url.is_some_and(crate::engine::budget::is_local),
    }
}

/// Who is read first: `likely` (the speakers the conversation so far
/// points to), then the agents who have gone longest without speaking
/// (those who never spoke first, in the room's order), since the picker's
/// rotation favours them; the last round's speakers last. A moderator
/// never speaks in a round and is left out.
pub(super) fn warm_order(agents: &[Agent], turns: &[Turn], likely: &[usize]) -> Vec<usize> {
    let last_spoke = |a: &Agent| {
        turns
            .iter()
            .rposition(|t| t.kind == TurnKind::Agent && t.agent.as_deref() == Some(a.id.as_str()))
    };
    let mut order: Vec<(Option<usize>, usize)> = agents
        .iter()
        .enumerate()
        .filter(|(_, a)| !a.moderator)
        .map(|(i, a)| (last_spoke(a), i))
        .collect();
    // None (never spoke) sorts before any index.
    order.sort();
    let rest = order.into_iter().map(|(_, i)| i).filter(|i| !likely.contains(i));
    likely.iter().copied().filter(|&i| !agents[i].moderator).chain(rest).collect()
}

impl Party {
    /// What the read-ahead depends on: the transcript and the documents
    /// (which change every system prompt).
    fn warm_key(&self) -> (usize, usize) {
        (self.session.turns.len(), self.room.documents.len())
    }

    /// When the waiting room starts reading ahead (a timer of
    /// `Party::wait`): `WARM_AFTER` after the last round ended, unless
    /// reading ahead is off or what is known now was read already. As a
    /// timer, it costs nothing when a command is already waiting.
    pub(super) fn warm_deadline(&self) -> Option<Instant> {
        let info = self.room.provider.info();
        let on = warms(self.room.cfg.llm.warm_up, info.base_url.as_deref(), info.rehearsal);
        let read = self.warming.as_ref().is_some_and(|w| w.key == self.warm_key());
        (on && !read).then(|| self.room_active_at + WARM_AFTER)
    }

    /// Reads ahead what is known now (see `warm_deadline` for when).
    pub(super) fn start_warming(&mut self) {
        self.stop_warming();
        let key = self.warm_key();
        let mut requests: Vec<ChatRequest> = Vec::new();
        // Exactly who speaks if the room goes on by itself; for a new
        // message a guess the message itself may overturn.
        let topic = self.session.fm.topic.clone();
        let likely = self.asker_first(self.heuristic_pick(&topic, false));
        for i in warm_order(&self.room.agents, &self.session.turns, &likely)
            .into_iter()
            .take(likely.len())
        {
            let agent = self.room.agents[i].clone();
            let messages = self.speaker_front_call(&agent);
            // With `room_first` every speaker's front is the same: read once.
            if requests.last().is_some_and(|r| r.messages == messages && r.model == agent.model) {
                continue;
            }
            requests.push(ChatRequest {
                model: agent.model.clone(),
                messages,
                temperature: self.room.cfg.llm.temperature,
                max_tokens: Some(1),
                stop: Vec::new(),
                cue: Cue::WarmUp,
            });
        }
        let ids: Vec<&str> = likely.iter().map(|&i| self.room.agents[i].id.as_str()).collect();
        tracing::info!(agents = ?ids, "reading ahead");
        let provider = self.room.provider.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        tokio::spawn(async move {
            for req in requests {
                if stopped.load(Ordering::Relaxed) {
                    return;
                }
                let mut stream = provider.stream(req);
                while let Some(ev) = stream.next().await {
                    match ev {
                        LlmEvent::Token(_) | LlmEvent::Capped | LlmEvent::Waiting { .. } => {}
                        LlmEvent::Usage { prompt, cached, .. } => {
                            tracing::info!(prompt, cached, "read ahead");
                        }
                        LlmEvent::Done => break,
                        // A server in trouble is left alone: the round's own
                        // calls retry and report.
                        _ => return,
                    }
                }
            }
        });
        self.warming = Some(Warming { stop, key });
    }

    /// Starts no further read: the server is needed (a round, whatever
    /// started it, or the graceful exit), or what was read is out of date.
    pub(super) fn stop_warming(&mut self) {
        if let Some(w) = self.warming.take() {
            w.stop.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::embedded_agents;
    use crate::roster::agents::load_roster;

    fn spoke(id: &str) -> Turn {
        Turn {
            kind: TurnKind::Agent,
            agent: Some(id.to_string()),
            round: 1,
            at: chrono::Utc::now(),
            label: id.to_string(),
            text: "A view.".to_string(),
            interrupted: false,
            latency: None,
        }
    }

    #[test]
    fn those_who_spoke_longest_ago_are_read_first_and_the_moderator_never() {
        let agents = load_roster(&embedded_agents()).unwrap();
        let ids = |order: Vec<usize>| order.into_iter().map(|i| agents[i].id.clone()).collect::<Vec<_>>();
        let speakers: Vec<&Agent> = agents.iter().filter(|a| !a.moderator).collect();
        // Nobody spoke: the room's order.
        let all = ids(warm_order(&agents, &[], &[]));
        assert_eq!(all, speakers.iter().map(|a| a.id.clone()).collect::<Vec<_>>());
        assert!(agents.iter().any(|a| a.moderator), "the roster has a moderator to leave out");
        // The first two spoke, the first most recently: both go last, the
        // most recent speaker at the very end.
        let (a, b) = (&speakers[0].id, &speakers[1].id);
        let order = ids(warm_order(&agents, &[spoke(b), spoke(a)], &[]));
        assert_eq!(order.len(), speakers.len());
        assert_eq!(&order[order.len() - 2..], [b.clone(), a.clone()]);
        assert_eq!(order[0], speakers[2].id);
        // The likely speakers first, each once; a moderator never.
        let moderator = agents.iter().position(|a| a.moderator).unwrap();
        let last = agents.iter().position(|x| &x.id == a).unwrap();
        let order = ids(warm_order(&agents, &[spoke(b), spoke(a)], &[last, moderator]));
        assert_eq!(order.len(), speakers.len());
        assert_eq!(order[0], *a);
        assert_eq!(order[1], speakers[2].id);
    }

    #[test]
    fn auto_reads_ahead_only_on_a_local_server_and_never_in_the_rehearsal() {
        assert!(warms(WarmUp::Auto, Some("http://127.0.0.1:8080/v1"), false));
        assert!(warms(WarmUp::Auto, Some("http://192.168.1.20:11434/v1"), false));
        assert!(!warms(WarmUp::Auto, Some("https://api.openai.com/v1"), false));
        assert!(!warms(WarmUp::Auto, None, false));
        assert!(warms(WarmUp::On, Some("https://api.openai.com/v1"), false));
        assert!(!warms(WarmUp::Off, Some("http://127.0.0.1:8080/v1"), false));
        assert!(!warms(WarmUp::On, None, true), "the rehearsal has no server");
    }
}
