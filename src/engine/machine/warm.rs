//! Reading ahead. While the room waits for the facilitator, the server is
//! idle; on a CPU model most of a call's wait is reading its prompt (docs/
//! real-models.md). So each agent's next prompt, as far as it is known —
//! its persona, the rules, the conversation so far — is sent then with one
//! token asked and thrown away. A server that keeps several prompts' states
//! (llama.cpp's server does by default, `--cache-ram`; llama-cpp-python's
//! with `--cache`) holds one per agent, and whoever the next round picks
//! reads only what was added since: the facilitator's message, the replies
//! just before its turn, the turn's note.
//!
//! Only a round's worth of agents is read: the ones the conversation so
//! far points to (exactly the next round's speakers when the room goes on
//! by itself; a new message may pick others). Each read left over would
//! hold a one-slot server when the facilitator sends, and push a likelier
//! agent's state out of its cache.
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
use crate::llm::{ChatRequest, Cue, LlmEvent, Provider};

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
        WarmUp::Auto => base_url.is_some_and(crate::llm::discovery::is_local),
    }
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
        let on = self.room.agents.iter().any(|a| self.warms_for(a.endpoint.as_deref()));
        let read = self.warming.as_ref().is_some_and(|w| w.key == self.warm_key());
        (on && !read).then(|| self.idle.room_acted_at() + WARM_AFTER)
    }

    /// Whether prompts to `endpoint`'s server are read ahead: decided by
    /// that server's kind, so a hosted guest beside a local room is never
    /// billed for reads.
    fn warms_for(&self, endpoint: Option<&str>) -> bool {
        let info = self.room.provider_of(endpoint).info();
        warms(self.room.cfg.llm.warm_up, info.base_url.as_deref(), info.rehearsal)
    }

    /// Reads ahead what is known now (see `warm_deadline` for when).
    pub(super) fn start_warming(&mut self) {
        self.stop_warming();
        let key = self.warm_key();
        let mut requests: Vec<(Arc<dyn Provider>, ChatRequest)> = Vec::new();
        // Exactly who speaks if the room goes on by itself; for a new
        // message a guess the message itself may overturn.
        let topic = self.session.fm.topic.clone();
        let likely = self.asker_first(self.heuristic_pick(&topic, false));
        // A moderator speaks only when the room goes in circles.
        let speakers: Vec<_> = likely
            .iter()
            .map(|&i| self.room.agents[i].clone())
            .filter(|a| !a.moderator && self.warms_for(a.endpoint.as_deref()))
            .collect();
        for agent in &speakers {
            let messages = self.speaker_front_call(agent);
            // With `room_first` every speaker's front is the same: read once.
            if requests
                .last()
                .is_some_and(|(_, r)| r.messages == messages && r.model == agent.model && r.endpoint == agent.endpoint)
            {
                continue;
            }
            let provider = self.room.provider_of(agent.endpoint.as_deref()).clone();
            requests.push((
                provider,
                ChatRequest {
                    model: agent.model.clone(),
                    endpoint: agent.endpoint.clone(),
                    messages,
                    temperature: self.room.cfg.llm.temperature,
                    max_tokens: Some(1),
                    stop: Vec::new(),
                    json_schema: None,
                    cue: Cue::WarmUp,
                },
            ));
        }
        tracing::info!(agents = ?speakers.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), "reading ahead");
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        tokio::spawn(async move {
            for (provider, req) in requests {
                if stopped.load(Ordering::Relaxed) {
                    return;
                }
                let mut stream = provider.stream(req);
                // One attempt, ending in `Done` whatever the server did
                // (`llm::openai::call::run`): read to the end.
                while let Some(ev) = stream.next().await {
                    if let LlmEvent::Usage { prompt, cached, .. } = ev {
                        tracing::info!(prompt, cached, "read ahead");
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
