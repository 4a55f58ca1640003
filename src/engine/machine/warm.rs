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
//! After a round only a round's worth of agents is read: the ones the
//! conversation so far points to (exactly the next round's speakers when
//! the room goes on by itself; a new message may pick others). Each read
//! left over would hold a one-slot server when the facilitator sends, and
//! push a likelier agent's state out of its cache.
//!
//! Before the topic (`Opening`), every speaker's system prompt is known
//! already (persona, briefing, rules): while the facilitator types the
//! topic, a round's worth of the agents likeliest to open is read, one at
//! a time, "likeliest" ranked by what is typed so far (`Command::Draft`);
//! then the server is left free for the topic, unless the draft points to
//! others (at most twice a round's worth in all).
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
use super::Room;
use crate::config::WarmUp;
use crate::engine::selection;
use crate::llm::{ChatMessage, ChatRequest, Cue, LlmEvent, Provider};
use crate::roster::agents::Agent;

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
        let on = self.room.agents.iter().any(|a| self.room.warms_for(a.endpoint.as_deref()));
        let read = self.warming.as_ref().is_some_and(|w| w.key == self.warm_key());
        (on && !read).then(|| self.idle.room_acted_at() + WARM_AFTER)
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
            .filter(|a| !a.moderator && self.room.warms_for(a.endpoint.as_deref()))
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
            requests.push(self.room.read_request(agent, messages));
        }
        tracing::info!(agents = ?speakers.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), "reading ahead");
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        tokio::spawn(async move {
            for (provider, req) in requests {
                if stopped.load(Ordering::Relaxed) {
                    return;
                }
                read(provider, req).await;
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

/// One read: sent, and its stream read to the end (one attempt, ending in
/// `Done` whatever the server did: `llm::openai::call::run`).
async fn read(provider: Arc<dyn Provider>, req: ChatRequest) {
    let mut stream = provider.stream(req);
    while let Some(ev) = stream.next().await {
        if let LlmEvent::Usage { prompt, cached, .. } = ev {
            tracing::info!(prompt, cached, "read ahead");
        }
    }
}

/// How long the lobby waits between looks for the servers' windows (the
/// briefing is fitted to them) before its first read.
const WINDOW_LOOK: Duration = Duration::from_millis(250);

/// The read-ahead before the topic (`Room::wait_for_topic`).
pub(super) struct Opening {
    /// When the next read starts (None: none is to start).
    pub(super) due: Option<Instant>,
    /// Until when the servers' answers about their windows are waited
    /// for; past it, with one still out, nothing is read.
    windows_by: Instant,
    /// The read under way; dropping it lets it finish on its own.
    pub(super) under_way: Option<tokio::task::JoinHandle<()>>,
    /// The agents read or being read, by index.
    read: Vec<usize>,
    /// The fronts sent (endpoint, model, messages): with `room_first`
    /// every speaker's is the same, read once.
    fronts: Vec<(Option<String>, Option<String>, Vec<ChatMessage>)>,
    /// What the facilitator has typed so far (`Command::Draft`).
    draft: String,
    /// Whether the first read was due: a draft may start the next.
    begun: bool,
}

impl Room {
    /// Whether prompts to `endpoint`'s server are read ahead: decided by
    /// that server's kind, so a hosted guest beside a local room is never
    /// billed for reads.
    pub(super) fn warms_for(&self, endpoint: Option<&str>) -> bool {
        let info = self.provider_of(endpoint).info();
        warms(self.cfg.llm.warm_up, info.base_url.as_deref(), info.rehearsal)
    }

    /// A one-token read of `messages` as `agent`'s call would send them.
    fn read_request(&self, agent: &Agent, messages: Vec<ChatMessage>) -> (Arc<dyn Provider>, ChatRequest) {
        let provider = self.provider_of(agent.endpoint.as_deref()).clone();
        let req = ChatRequest {
            model: agent.model.clone(),
            endpoint: agent.endpoint.clone(),
            messages,
            temperature: self.cfg.llm.temperature,
            max_tokens: Some(1),
            stop: Vec::new(),
            json_schema: None,
            seed: None,
            cue: Cue::WarmUp,
        };
        (provider, req)
    }

    /// The lobby's read-ahead, its first read `WARM_AFTER` from now when
    /// any agent's server is read for.
    pub(super) fn opening_reads(&self) -> Opening {
        let now = Instant::now();
        let on = self.agents.iter().any(|a| self.warms_for(a.endpoint.as_deref()));
        Opening {
            due: on.then_some(now + WARM_AFTER),
            windows_by: now + WARM_AFTER + super::context::PROBE_WAIT,
            under_way: None,
            read: Vec::new(),
            fronts: Vec::new(),
            draft: String::new(),
            begun: false,
        }
    }

    /// The agents who may open the party, likeliest first: the heuristic
    /// choice ranking the whole room by what is typed so far (the agents
    /// it names first); moderators and agents whose server is not read
    /// for left out.
    fn openers(&self, draft: &str) -> Vec<usize> {
        let n = self.agents.len();
        let floor = selection::Floor { recent: &[], played: 0 };
        selection::select(&self.agents, &self.profiles, draft, "", floor, (n, n), |_| true)
            .into_iter()
            .filter(|&i| !self.agents[i].moderator && self.warms_for(self.agents[i].endpoint.as_deref()))
            .collect()
    }

    /// What `agent`'s first call opens with: its system prompt, the
    /// briefing fitted as the first round fits it.
    fn opening_front(&self, agent: &Agent) -> Vec<ChatMessage> {
        let endpoint = agent.endpoint.as_deref();
        let system = self.system_with(&self.fit_briefing(endpoint));
        let layout = self.cfg.llm.prompt_layout_of(endpoint);
        self.env().speaker_messages(layout, &system, agent, &[], "")
    }

    /// Starts the next read before the topic (when `reads.due` comes):
    /// the first of a round's worth of likeliest openers not read yet,
    /// once the servers have said their windows. None when they all are:
    /// the server is left free for the topic, until a draft points to
    /// others (`Opening::drafted`); never more than twice a round's worth.
    pub(super) async fn read_next_opener(&mut self, reads: &mut Opening) {
        reads.due = None;
        if !self.settle_windows(false).await {
            if Instant::now() < reads.windows_by {
                reads.due = Some(Instant::now() + WINDOW_LOOK);
            }
            return;
        }
        reads.begun = true;
        let round = self.cfg.party.agents_per_round.1.max(1);
        for i in self.openers(&reads.draft).into_iter().take(round) {
            if reads.read.len() >= 2 * round {
                return;
            }
            if reads.read.contains(&i) {
                continue;
            }
            reads.read.push(i);
            let agent = &self.agents[i];
            let front = (agent.endpoint.clone(), agent.model.clone(), self.opening_front(agent));
            if reads.fronts.contains(&front) {
                continue;
            }
            tracing::info!(agent = %agent.id, "reading ahead before the topic");
            let (provider, req) = self.read_request(agent, front.2.clone());
            reads.fronts.push(front);
            reads.under_way = Some(tokio::spawn(read(provider, req)));
            return;
        }
    }
}

impl Opening {
    /// What the facilitator has typed so far: once reading has begun and
    /// the server is idle, the likeliest openers are looked at again.
    pub(super) fn drafted(&mut self, text: String) {
        self.draft = text;
        self.look_again();
    }

    /// A document came in front of the room (`/context`): every system
    /// prompt changed, so what was read is read again.
    pub(super) fn briefing_changed(&mut self) {
        self.read.clear();
        self.fronts.clear();
        self.look_again();
    }

    fn look_again(&mut self) {
        if self.begun && self.due.is_none() && self.under_way.is_none() {
            self.due = Some(Instant::now());
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
