//! The context budget applied to every call (`engine::budget` holds the
//! arithmetic): which window the prompts are fitted to, where each agent's
//! history starts, and the transcripts the exit and the moderator read.

use foldhash::HashMap;
use tokio::time::Duration;

use super::party::Party;
use super::Room;
use crate::config::PromptLayout;
use crate::engine::budget::{estimate_tokens, horizon};
use crate::engine::prompts::HistoryView;
use crate::i18n::Say;
use crate::llm::ChatMessage;
use crate::roster::agents::Agent;
use crate::session::{ProviderRecord, Turn, TurnKind};

/// What building prompts keeps between calls, worked out again from a turn
/// placed before its end (`forget_from`).
#[derive(Default)]
pub(super) struct ContextCache {
    /// Each speaker's history (with `room_first`, the one they all share),
    /// by the transcript index it starts at.
    histories: HashMap<String, (usize, HistoryView)>,
    /// Each turn's estimated tokens, by transcript index.
    turn_estimates: Vec<u32>,
    /// The scene, memory brief and documents as last fitted for each
    /// endpoint (by name, "" the default), and the window and ratio they
    /// were fitted to (`briefing`).
    pub(super) briefing: HashMap<String, ((u32, u64), String)>,
}

impl ContextCache {
    /// Turn `i` and those after it changed: what covered them goes.
    pub(super) fn forget_from(&mut self, i: usize) {
        self.turn_estimates.truncate(i);
        self.histories.retain(|_, (from, view)| *from + view.covered() <= i);
    }
}

/// The key of the one history every speaker shares (`room_first`).
const ROOM: &str = "";

/// Tokens set aside for a call's note (the turn's, a farewell's, the
/// moderator's), whichever it is, with `room_first`: the notes run 60–200
/// tokens.
const NOTE_ALLOWANCE: u32 = 250;

/// The longest the first round waits for the server to say its window.
pub(super) const PROBE_WAIT: Duration = Duration::from_secs(8);

/// A round opens with one of these: the only places a history is cut.
fn opens_round(t: &Turn) -> bool {
    matches!(t.kind, TurnKind::Facilitator | TurnKind::Continue | TurnKind::Push)
}

/// What a turn adds to a prompt, estimated; nothing for turns no prompt shows.
fn turn_estimate(t: &Turn) -> u32 {
    match t.kind {
        TurnKind::Facilitator | TurnKind::Continue | TurnKind::Push | TurnKind::Agent => {
            estimate_tokens(&t.label) + estimate_tokens(&t.text) + 2
        }
        _ => 0,
    }
}

/// Where a transcript for one-shot readers (highlights, the circling
/// summary) starts so that it fits `free` tokens: the latest turns, as many
/// as fit (at least the last).
pub(super) fn tail_start(costs: &[u32], free: u32) -> usize {
    let mut sum = 0u32;
    for (i, &c) in costs.iter().enumerate().rev() {
        sum = sum.saturating_add(c);
        if sum > free {
            return (i + 1).min(costs.len().saturating_sub(1));
        }
    }
    0
}

impl Room {
    /// The system prompt of every speaker's call: the `briefing` (scene,
    /// memory, documents), then `PromptEnv::room_system` with the markers
    /// this party uses. The rules come last: a small model keeps to the
    /// form it read most recently (a document last made it answer like an
    /// assistant summarising it, at length).
    pub(super) fn system_with(&self, briefing: &str) -> String {
        let party = &self.cfg.party;
        let end = party
            .end_detection
            .enable_detection
            .then_some(party.end_detection.end_marker.as_str());
        let rules = self.env().room_system(end, Some(&party.ask_marker));
        if briefing.is_empty() {
            rules
        } else {
            [briefing, "\n\n", rules.as_str()].concat()
        }
    }

    /// Takes the servers' answers about their windows: every one, waiting
    /// up to `PROBE_WAIT` for each (`wait`), or only those already in
    /// (the read-ahead before the topic, which must not hold the lobby).
    /// True when no answer is awaited any more.
    pub(super) async fn settle_windows(&mut self, wait: bool) -> bool {
        let due = |p: &mut tokio::task::JoinHandle<Option<u32>>| wait || p.is_finished();
        if let Some(probe) = self.window_probe.take_if(due) {
            let told = tokio::time::timeout(PROBE_WAIT, probe).await.ok().and_then(Result::ok).flatten();
            let source = match told {
                Some(n) => {
                    self.budget.window = n;
                    "the server"
                }
                None => "the default for this endpoint",
            };
            tracing::info!(window = self.budget.window, source, "context window");
        }
        for s in &mut self.servers {
            let Some(probe) = s.window_probe.take_if(due) else { continue };
            if let Some(n) = tokio::time::timeout(PROBE_WAIT, probe).await.ok().and_then(Result::ok).flatten() {
                s.budget.window = n;
            }
            tracing::info!(endpoint = %s.name, window = s.budget.window, "context window");
        }
        self.window_probe.is_none() && self.servers.iter().all(|s| s.window_probe.is_none())
    }

    /// Asks each server for its window in the background, unless the
    /// config sets it: the party starts meanwhile.
    pub(super) fn probe_window(&mut self) {
        if self.cfg.llm.context_tokens.is_none() {
            self.window_probe = Some(tokio::spawn(self.provider.context_window()));
        }
        for i in 0..self.servers.len() {
            let set = self.endpoint_def(Some(&self.servers[i].name)).and_then(|e| e.context_tokens);
            let s = &mut self.servers[i];
            if set.is_none() {
                s.window_probe = Some(tokio::spawn(s.provider.context_window()));
            }
        }
    }
}

impl Party {
    /// The window the prompts are fitted to: the config's, else the
    /// server's (asked once), else a default by kind of endpoint.
    pub(super) async fn settle_window(&mut self) {
        self.room.settle_windows(true).await;
        self.keep_lowered_window();
        self.record_window();
    }

    /// A window a server taught by refusing a longer prompt holds for the
    /// rest of the session, resumed or not, while its model and address
    /// are the same (the default's and each named endpoint's apart): at the
    /// resume, and again once the servers' own answers have come in.
    pub(super) fn keep_lowered_window(&mut self) {
        let p = &self.session.fm.provider;
        if let Some(w) = kept_window(p, &self.room.provider.info()) {
            self.room.budget.window = self.room.budget.window.min(w);
        }
        for s in &mut self.room.servers {
            let Some(w) = p.endpoints.get(&s.name).and_then(|r| kept_window(r, &s.provider.info())) else {
                continue;
            };
            s.budget.window = s.budget.window.min(w);
        }
    }

    /// The server of `endpoint` refused a prompt estimated at `sent` tokens
    /// as longer than its window: later prompts to it are fitted to a
    /// smaller one, which the session file keeps for the default endpoint.
    pub(super) async fn lower_window(&mut self, endpoint: Option<&str>, sent: u32, told: Option<u32>, counted: Option<u32>) {
        let budget = self.room.budget_of(endpoint);
        let before = budget.window;
        let window = budget.lowered_window(sent, told, counted);
        tracing::warn!(
            ?endpoint,
            before,
            window,
            ?told,
            ?counted,
            "the server refused a prompt as too long: the context window is lowered"
        );
        if window == before {
            // At the floor already (a reply's cap and a short prompt): the
            // facilitator was told.
            return;
        }
        self.room.budget_of_mut(endpoint).window = window;
        match self.room.server(endpoint).map(|s| (s.name.clone(), s.provider.info())) {
            Some((name, info)) => {
                let record = ProviderRecord {
                    kind: info.kind,
                    model: info.model,
                    base_url: info.base_url,
                    context_tokens: Some(window),
                    lowered_context_tokens: Some(window),
                    endpoints: Default::default(),
                };
                self.session.fm.provider.endpoints.insert(name, record);
            }
            None => {
                self.session.fm.provider.lowered_context_tokens = Some(window);
                self.record_window();
            }
        }
        // In a room of several servers the facilitator is told which one.
        let text = match self.room.servers.is_empty() {
            true => crate::i18n::Room::PromptsShrunk { window, before }.say(self.room.lang),
            false => crate::i18n::Room::PromptsShrunkOn {
                endpoint: endpoint.unwrap_or(crate::config::DEFAULT_ENDPOINT),
                window,
                before,
            }
            .say(self.room.lang),
        };
        self.notice(crate::engine::NoticeKind::Warning, text).await;
    }

    /// The session file says which window its prompts were fitted to.
    pub(super) fn record_window(&mut self) {
        let window = self.room.budget.window;
        self.session.fm.provider.context_tokens = Some(window);
    }

    /// Each turn's estimated cost, kept as the transcript grows (turns are
    /// only appended), scaled by what the server of `endpoint` taught.
    fn turn_costs(&mut self, endpoint: Option<&str>) -> Vec<u32> {
        let turns = self.session.turns.as_slice();
        if self.context.turn_estimates.len() > turns.len() {
            self.context.turn_estimates.clear();
        }
        let known = self.context.turn_estimates.len();
        self.context.turn_estimates.extend(turns[known..].iter().map(turn_estimate));
        let budget = self.room.budget_of(endpoint);
        self.context.turn_estimates.iter().map(|&e| budget.scale(e)).collect()
    }

    /// The system prompt of every speaker's call (`Room::system_with`),
    /// its briefing fitted once for the budget of `endpoint`.
    pub(super) fn room_system(&mut self, endpoint: Option<&str>) -> String {
        let briefing = self.briefing(endpoint);
        self.room.system_with(&briefing)
    }

    /// The messages of a speaker's call ending with `note` (a turn's, a
    /// farewell's, the moderator's), laid out as its endpoint's
    /// `prompt_layout` says, the history fitted to the context budget.
    pub(super) fn speaker_call(&mut self, agent: &Agent, note: &str) -> Vec<ChatMessage> {
        let note_cost = self.room.budget_of(agent.endpoint.as_deref()).cost(note);
        let (room, history) = self.speaker_front(agent, note_cost);
        let layout = self.room.cfg.llm.prompt_layout_of(agent.endpoint.as_deref());
        self.env().speaker_messages(layout, &room, agent, &history, note)
    }

    /// What a speaker's next call will open with, before any note: the
    /// read-ahead's request (`warm`). The history is fitted as if a note of
    /// `NOTE_ALLOWANCE` followed, so the call after cuts it at the same turn.
    pub(super) fn speaker_front_call(&mut self, agent: &Agent) -> Vec<ChatMessage> {
        let (room, history) = self.speaker_front(agent, NOTE_ALLOWANCE);
        let layout = self.room.cfg.llm.prompt_layout_of(agent.endpoint.as_deref());
        self.env().speaker_messages(layout, &room, agent, &history, "")
    }

    /// The system prompt and the history of a speaker's call whose note
    /// costs `note_cost`, cut as its endpoint's layout needs: the layout
    /// here and in `speaker_messages` must be the one, or a history fitted
    /// for one form is sent in the other.
    fn speaker_front(&mut self, agent: &Agent, note_cost: u32) -> (String, Vec<ChatMessage>) {
        let endpoint = agent.endpoint.as_deref();
        let layout = self.room.cfg.llm.prompt_layout_of(endpoint);
        let room = self.room_system(endpoint);
        let budget = self.room.budget_of(endpoint);
        let history = match layout {
            PromptLayout::PersonaFirst => {
                let fixed = budget.cost(&self.env().persona(agent)) + budget.cost(&room) + note_cost;
                self.history_of(Some(agent), endpoint, fixed)
            }
            PromptLayout::RoomFirst => {
                // The longest persona of the room and a note of at least
                // `NOTE_ALLOWANCE`: the same for every speaker while notes
                // stay within it, so all of them cut the history at the
                // same turn and their prompts keep sharing it.
                let env = self.env();
                let personas = self.room.agents.iter().map(|a| budget.cost(&env.persona(a))).max().unwrap_or(0);
                let fixed = budget.cost(&room) + personas + note_cost.max(NOTE_ALLOWANCE);
                self.history_of(None, endpoint, fixed)
            }
        };
        (room, history)
    }

    /// The history `viewer` sees (None: the one every speaker on `endpoint`
    /// shares), as messages within that endpoint's budget: `fixed` is what
    /// the rest of the prompt
    /// costs. The view is kept between calls and only extended while its
    /// start holds, so prompts grow by appending and servers' prefix caches
    /// hit; when the history outgrows the window its start moves several
    /// rounds on at once, behind a note that keeps the topic in view.
    fn history_of(&mut self, viewer: Option<&Agent>, endpoint: Option<&str>, fixed: u32) -> Vec<ChatMessage> {
        let key = match (viewer, endpoint) {
            (Some(a), _) => a.id.clone(),
            (None, Some(e)) => format!("{ROOM}@{e}"),
            (None, None) => ROOM.to_string(),
        };
        let costs = self.turn_costs(endpoint);
        let budget = self.room.budget_of(endpoint).clone();
        let base = self.context_start();
        let turns = self.session.turns.as_slice();
        let starts: Vec<bool> = turns[base..].iter().map(opens_round).collect();
        let latest = starts.iter().rposition(|&s| s).unwrap_or(0);
        let previous = self
            .context
            .histories
            .get(&key)
            .map(|(start, _)| *start)
            .filter(|&s| s >= base && s - base <= latest)
            .unwrap_or(base);
        let topic = self.session.fm.topic.clone();
        // The note's own cost is counted whether or not it is needed: it is
        // small, and the cut then never depends on itself.
        let note_cost = budget.cost(&self.env().omitted_note(99, &topic));
        let cut = horizon(
            &costs[base..],
            &starts,
            previous - base,
            latest,
            fixed + note_cost,
            budget.prompt_limit(),
        );
        let from = base + cut;
        if cut == latest && costs[from..].iter().sum::<u32>() + fixed + note_cost > budget.prompt_limit() {
            tracing::warn!(%key, window = budget.window, "even the latest round does not fit the context window");
        }
        let mut view = match self.context.histories.remove(&key) {
            Some((start, view)) if start == from => view,
            _ if from > base => {
                let omitted = starts[..cut].iter().filter(|&&s| s).count();
                tracing::info!(%key, omitted, "earlier rounds left out of the prompt to fit the context window");
                HistoryView::after_note(self.env().omitted_note(omitted, &topic))
            }
            _ => HistoryView::default(),
        };
        let turns = &self.session.turns[from..];
        self.env().extend_history(viewer, turns, &mut view);
        let messages = view.messages().to_vec();
        self.context.histories.insert(key, (from, view));
        messages
    }

    /// The turns a one-shot reader sees within the budget, `fixed` being
    /// the rest of its prompt: the opening message (the topic) and the
    /// latest turns that fit.
    pub(super) fn transcript_within(&self, turns: &[Turn], fixed: u32) -> Vec<Turn> {
        let costs: Vec<u32> = turns.iter().map(|t| self.room.budget.scale(turn_estimate(t))).collect();
        let opening = turns.iter().position(|t| t.kind == TurnKind::Facilitator);
        let free = self
            .room
            .budget
            .prompt_limit()
            .saturating_sub(fixed + opening.map_or(0, |i| costs[i]));
        let start = tail_start(&costs, free);
        match opening {
            Some(i) if i < start => std::iter::once(&turns[i]).chain(&turns[start..]).cloned().collect(),
            _ => turns[start..].to_vec(),
        }
    }
}

/// The window a session's record of a server keeps for it now: the one it
/// taught, while the server has the same model and address.
fn kept_window(record: &ProviderRecord, now: &crate::llm::ProviderInfo) -> Option<u32> {
    let same = record.model == now.model && record.base_url == now.base_url;
    record.lowered_context_tokens.filter(|_| same)
}

#[cfg(test)]
mod tests {
    use super::tail_start;

    #[test]
    fn a_tail_keeps_the_latest_turns_that_fit_and_at_least_the_last() {
        assert_eq!(tail_start(&[10, 10, 10], 100), 0);
        assert_eq!(tail_start(&[10, 10, 10], 25), 1);
        assert_eq!(tail_start(&[10, 10, 10], 20), 1);
        assert_eq!(
            tail_start(&[10, 10, 50], 20),
            2,
            "the last turn stays even when it alone is too long"
        );
        assert_eq!(tail_start(&[], 20), 0);
    }
}
