//! The TUI's state: built from engine events (here), changed by keys and
//! pastes (`keys`), read by the view. No terminal and no HTTP here; keys go
//! through the key table (`keymap`) and turn into engine `Command`s.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use ratatui_textarea::TextArea;

use super::keymap::Context;
pub use super::modals::Modal;
use super::modals::{Budget, Limit, Proposal, TurnReset};
pub use super::transcript::{Entry, EntryKind, ScrollAction};
use super::transcript::{Speakers, Transcript};
use crate::engine::{AgentInfo, Command, Event, ExitReason, NoticeKind, Phase, Status};
use crate::i18n::{pick, Lang};
use crate::session::{ConfirmKind, Latency, TurnKind};

mod keys;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaneStatus {
    Queued,
    Thinking,
    Streaming,
    Retrying,
    /// The model's server cannot be reached; it is tried again.
    ServerDown,
    Waiting,
    Done,
    Failed,
    Interrupted,
    /// The round ended before this agent's turn.
    Skipped,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pane {
    pub agent: String,
    pub status: PaneStatus,
    pub text: String,
    pub note: String,
    /// Since when the model has been reading the prompt (no token yet).
    pub since: Option<Instant>,
    /// The reply's first token came this long after its request.
    pub first_token_ms: Option<u64>,
    /// The finished reply's timing.
    pub latency: Option<Latency>,
}

impl Pane {
    fn new(agent: String) -> Pane {
        Pane {
            agent,
            status: PaneStatus::Queued,
            text: String::new(),
            note: String::new(),
            since: None,
            first_token_ms: None,
            latency: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Input,
    Menu,
}

#[derive(Debug, Default, PartialEq)]
pub struct KeyOutcome {
    pub commands: Vec<Command>,
    pub quit: bool,
    pub redraw: bool,
}

/// The message box: soft-wrapped, no highlighted cursor line.
fn new_input() -> TextArea<'static> {
    let mut t = TextArea::default();
    t.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
    t.set_cursor_line_style(ratatui::style::Style::default());
    t
}

pub struct App {
    pub lang: Lang,
    pub agents: Vec<AgentInfo>,
    pub user_name: String,
    pub provider: String,
    pub model: String,
    /// The model server's host and port, for "waiting for the server".
    pub server: Option<String>,
    pub rehearsal: bool,
    pub topic: Option<String>,
    /// The named party's name (None: the default room).
    pub party: Option<String>,
    pub file: Option<String>,
    pub transcript: Transcript,
    pub panes: Vec<Pane>,
    pub round: u32,
    pub status: Option<Status>,
    /// When `status` arrived, to run the clock between events.
    pub status_at: Instant,
    /// Since when the model's server has been unreachable, while it is.
    pub server_down_since: Option<Instant>,
    pub modals: VecDeque<Modal>,
    pub help: bool,
    /// How far the help overlay is scrolled (it is taller than a small terminal).
    pub help_scroll: u16,
    pub focus: Focus,
    pub input: TextArea<'static>,
    pub ended: Option<(Option<String>, Option<ExitReason>)>,
    /// When the current round began, and how long it took once it ended.
    pub round_clock: Option<(Instant, Option<Duration>)>,
    /// Where this round's (or the farewells') entries begin.
    ordered_from: usize,
    /// `NO_COLOR`: drawn in the terminal's own colours.
    pub no_color: bool,
    /// What the final screen wrote (keepsakes), one line each.
    pub kept: Vec<String>,
    pub ctrl_c_at: Option<Instant>,
    pub flash: Option<String>,
    pub queued: usize,
    pub consensus: Option<f64>,
    /// When the last `Typing` command went out (at most one a second).
    pub typing_sent: Option<Instant>,
}

impl App {
    pub fn new(lang: Lang) -> App {
        let input = new_input();
        App {
            lang,
            agents: Vec::new(),
            user_name: String::new(),
            provider: String::new(),
            model: String::new(),
            server: None,
            rehearsal: false,
            topic: None,
            party: None,
            file: None,
            transcript: Transcript::default(),
            panes: Vec::new(),
            round: 0,
            status: None,
            status_at: Instant::now(),
            server_down_since: None,
            modals: VecDeque::new(),
            help: false,
            help_scroll: 0,
            focus: Focus::Input,
            input,
            ended: None,
            kept: Vec::new(),
            no_color: false,
            round_clock: None,
            ordered_from: 0,
            ctrl_c_at: None,
            flash: None,
            queued: 0,
            consensus: None,
            typing_sent: None,
        }
    }

    pub fn agent(&self, id: &str) -> Option<&AgentInfo> {
        self.agents.iter().find(|a| a.id == id)
    }

    fn push(&mut self, kind: EntryKind, text: String) {
        self.transcript.push(kind, text);
    }

    /// An agent's turn in the speaking order (the panes' order) among this
    /// round's turns, whatever order their replies finished in — as the
    /// session file keeps them.
    fn push_in_order(&mut self, kind: EntryKind, text: String) {
        let rank = |id: &str| self.panes.iter().position(|p| p.agent == id);
        let Some(mine) = kind.speaker().and_then(rank) else {
            return self.push(kind, text);
        };
        let entries = self.transcript.entries();
        let later = (self.ordered_from..entries.len()).find(|&i| entries[i].kind.speaker().and_then(rank).is_some_and(|r| r > mine));
        match later {
            Some(i) => self.transcript.insert(i, kind, text),
            None => self.push(kind, text),
        }
    }

    /// Who is in the room, for the transcript's headings.
    pub fn speakers(&self) -> Speakers<'_> {
        Speakers {
            agents: &self.agents,
            lang: self.lang,
            user_name: &self.user_name,
        }
    }

    pub fn scroll(&mut self, action: ScrollAction) {
        let who = Speakers {
            agents: &self.agents,
            lang: self.lang,
            user_name: &self.user_name,
        };
        self.transcript.scroll(&who, action);
    }

    /// Which part of the key table reads the next key.
    pub fn key_context(&self) -> Context {
        if self.ended.is_some() {
            Context::Ended
        } else if self.help {
            Context::Help
        } else if let Some(m) = self.modals.front() {
            m.component().context()
        } else {
            match self.focus {
                Focus::Input => Context::Typing,
                Focus::Menu => Context::Menu,
            }
        }
    }

    fn pane_mut(&mut self, id: &str) -> Option<&mut Pane> {
        self.panes.iter_mut().find(|p| p.agent == id)
    }

    pub fn streaming(&self) -> bool {
        self.status.as_ref().is_some_and(|s| s.phase == Phase::Round)
            || self
                .panes
                .iter()
                .any(|p| matches!(p.status, PaneStatus::Thinking | PaneStatus::Streaming))
    }

    /// Seconds of active time now, running the clock between status events.
    pub fn active_seconds(&self, now: Instant) -> u64 {
        match &self.status {
            Some(s) if s.clock_running => s.active_seconds + now.saturating_duration_since(self.status_at).as_secs(),
            Some(s) => s.active_seconds,
            None => 0,
        }
    }

    /// Applies an engine event. Returns true when the screen must change.
    pub fn on_event(&mut self, ev: Event) -> bool {
        if matches!(
            ev,
            Event::AgentStarted { .. }
                | Event::AgentToken { .. }
                | Event::AgentRetrying { .. }
                | Event::AgentMessage { .. }
                | Event::AgentFailed { .. }
                | Event::AgentPassed { .. }
                | Event::RoundFinished { .. }
                | Event::Farewell { .. }
                | Event::Highlights { .. }
                | Event::SessionEnded { .. }
        ) {
            // The server answered, or the call that waited for it is over.
            self.server_down_since = None;
        }
        match ev {
            Event::SessionStarted {
                provider,
                model,
                rehearsal,
                agents,
                lang,
                user_name,
                file,
                topic,
                party,
                base_url,
                ..
            } => {
                self.party = party;
                self.provider = provider;
                self.model = model;
                self.server = base_url.as_deref().map(crate::text::host_of);
                self.rehearsal = rehearsal;
                self.agents = agents;
                self.lang = lang;
                self.user_name = user_name;
                self.file = file;
                self.topic = topic;
            }
            Event::ModelChosen { model } => self.model = model,
            Event::Welcome { text } => self.push(EntryKind::Welcome, text),
            Event::SessionFile { path } => self.file = Some(path),
            Event::Earlier { turns } => {
                for t in turns {
                    if t.kind == TurnKind::Facilitator && self.topic.is_none() {
                        self.topic = Some(t.text.clone());
                    }
                    self.push(EntryKind::earlier(&t), t.text);
                }
                let here = pick(self.lang, "this sitting begins here", "本次从这里继续");
                self.push(EntryKind::Divider, here.to_string());
            }
            Event::FacilitatorMessage { text, .. } => {
                if self.topic.is_none() {
                    self.topic = Some(text.clone());
                }
                self.queued = self.queued.saturating_sub(1);
                self.push(EntryKind::Facilitator, text);
            }
            Event::RoundStarted { round, agents, .. } => {
                self.round = round;
                self.ordered_from = self.transcript.entries().len();
                self.panes = agents.into_iter().map(Pane::new).collect();
                self.round_clock = Some((Instant::now(), None));
            }
            Event::AgentStarted { agent, .. } => {
                if self.pane_mut(&agent).is_none() {
                    // Farewells come outside a round: give them a pane too.
                    self.panes.push(Pane::new(agent.clone()));
                }
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Thinking;
                    p.text.clear();
                    p.note.clear();
                    p.since = Some(Instant::now());
                }
            }
            Event::Takeaways { path } => {
                self.kept.push(format!("📝 {} {path}", pick(self.lang, "Takeaways:", "要点：")));
            }
            Event::AgentFirstToken { agent, ms } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.first_token_ms = Some(ms);
                }
            }
            Event::AgentToken { agent, text } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Streaming;
                    p.text.push_str(&text);
                    p.since = None;
                }
            }
            Event::AgentRetrying {
                agent,
                attempt,
                delay_ms,
                cause,
            } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Retrying;
                    p.text.clear();
                    p.note = format!("#{attempt} in {:.1}s: {cause}", delay_ms as f64 / 1000.0);
                    // The next attempt reads the prompt again once the delay is over.
                    p.since = Some(Instant::now() + std::time::Duration::from_millis(delay_ms));
                }
            }
            Event::ServerWaiting { agent, waited_ms, .. } => {
                let now = Instant::now();
                self.server_down_since = Some(now.checked_sub(Duration::from_millis(waited_ms)).unwrap_or(now));
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::ServerDown;
                    p.text.clear();
                }
            }
            Event::AgentMessage {
                agent,
                text,
                interrupted,
                latency,
                ..
            } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = if interrupted { PaneStatus::Interrupted } else { PaneStatus::Done };
                    p.text = text.clone();
                    p.latency = latency;
                }
                self.push_in_order(EntryKind::Agent { id: agent, interrupted }, text);
            }
            Event::AgentFailed { agent, cause, .. } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Failed;
                    p.note = cause.clone();
                }
                self.push_in_order(EntryKind::Failed { id: agent }, cause);
            }
            Event::AgentPassed { agent, text, .. } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Skipped;
                    p.text.clear();
                    p.note.clear();
                }
                self.push(EntryKind::Notice(NoticeKind::Info), text);
            }
            Event::RoundFinished { .. } => {
                if let Some((start, end @ None)) = &mut self.round_clock {
                    *end = Some(start.elapsed());
                }
                for p in &mut self.panes {
                    if p.status == PaneStatus::Queued {
                        p.status = PaneStatus::Skipped;
                    }
                }
            }
            Event::Notice { kind, text } => self.push(EntryKind::Notice(kind), text),
            Event::EndProposal {
                request_id,
                agent,
                response_clean,
                ..
            } => {
                if !request_id.is_empty() {
                    if let Some(p) = self.pane_mut(&agent) {
                        p.status = PaneStatus::Waiting;
                    }
                    self.modals.push_back(Modal::Proposal(Proposal {
                        request_id,
                        kind: ConfirmKind::EndProposal,
                        agent: Some(agent),
                        text: response_clean,
                        input: String::new(),
                    }));
                }
            }
            Event::ConfirmationRequest {
                request_id,
                kind,
                text,
                extend,
            } => match kind {
                ConfirmKind::EndProposal | ConfirmKind::TurnReset => {}
                ConfirmKind::Consensus | ConfirmKind::Silence => self.modals.push_back(Modal::Proposal(Proposal {
                    request_id,
                    kind,
                    agent: None,
                    text,
                    input: String::new(),
                })),
                ConfirmKind::BudgetExhausted => self.modals.push_back(Modal::Budget(Budget { request_id, text })),
                ConfirmKind::RoundLimit | ConfirmKind::TimeLimit => self.modals.push_back(Modal::Limit(Limit {
                    request_id,
                    kind,
                    text,
                    extend: extend.unwrap_or(3),
                    continue_selected: false,
                })),
            },
            Event::TurnConfirmationRequest(r) => self.modals.push_back(Modal::TurnReset(TurnReset {
                request_id: r.request_id,
                message: r.message,
                description: r.description.unwrap_or_default(),
                reason: String::new(),
                reject_selected: false,
            })),
            Event::ConfirmationResolved { request_id, .. } => {
                self.modals.retain(|m| m.component().request_id().is_none_or(|r| r != request_id));
            }
            Event::AgentQuestion { agent, question, .. } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Waiting;
                }
                self.push(EntryKind::Question { id: agent }, question);
            }
            Event::DiligencePush { text, .. } => self.push(EntryKind::Push, text),
            Event::ConsensusScore { score, .. } => self.consensus = score,
            Event::SelfCheck { .. } | Event::Reading { .. } | Event::RoomRepeats { .. } => {}
            Event::Termination { .. } => {
                self.modals.retain(|m| !matches!(m, Modal::ConfirmExit(_)));
                self.panes.clear();
                self.ordered_from = self.transcript.entries().len();
            }
            Event::Farewell { agent, text, .. } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Done;
                }
                self.push_in_order(EntryKind::Farewell { id: agent }, text);
            }
            Event::Highlights { text } => {
                self.panes.clear();
                self.push(EntryKind::Highlights, text);
            }
            Event::Closing { text } => self.push(EntryKind::Closing, text),
            Event::Status(s) => {
                self.status = Some(s);
                self.status_at = Instant::now();
            }
            Event::AwaitingInput { .. } => return false,
            Event::Rejected { message } => self.flash = Some(message),
            Event::SaveFailed { path, error } => self.push(EntryKind::Notice(NoticeKind::Error), format!("⚠️ {path}: {error}")),
            Event::SessionEnded { file, reason, .. } => {
                if file.is_some() {
                    self.file = file.clone();
                }
                self.modals.clear();
                self.ended = Some((file, reason));
            }
        }
        true
    }
}
