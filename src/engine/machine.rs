//! The step machine. One task owns the session; it waits for the
//! facilitator, runs rounds (streaming each agent's reply while still
//! listening for commands and timers), checks termination after every
//! round and whenever the active-time timer fires, and ends with the
//! graceful exit. Every state change is saved before it is announced, so
//! an event a front end has seen is always on disk.

mod context;
mod judgement;
mod push;
mod question;
mod reset;
mod voices;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use foldhash::{HashMap, HashMapExt};
use futures::StreamExt;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::time::Instant;

use super::budget::{estimate_tokens, Budget};
use super::hygiene::{Cut, Hygiene, Voices};
use super::markers::MarkerFilter;
use super::prompts::{HistoryView, PromptEnv};
use super::selection;
use super::{AgentInfo, Command, Event, ExitReason, InputKind, NoticeKind, Phase, Saves, Setup, Status};
use crate::agents::Agent;
use crate::config::Config;
use crate::i18n::{t, Lang, Msg};
use crate::llm::{ChatMessage, ChatRequest, Cue, LlmEvent, Provider, Role};
use crate::session::{
    ConfirmKind, ConfirmStatus, ConfirmationRecord, ConversationState, DiligenceState, ExitFlags, Frontmatter, ProviderRecord, Session,
    SessionStore, StepId, Turn, TurnKind,
};
use crate::text::{sanitize, Sanitizer};
use crate::workflow::Workflow;

const DEFAULT_EXTEND_ROUNDS: u32 = 3;
const DEFAULT_EXTEND_MINUTES: u32 = 5;

struct Pending {
    id: String,
    kind: ConfirmKind,
    agent: Option<String>,
    /// Turn-reset requests expire unanswered at this moment.
    expires: Option<Instant>,
}

/// What starts a round.
#[derive(Debug, Clone)]
enum RoundInput {
    Message(String),
    /// The facilitator lets the room go on ([C]).
    Continue,
    /// The runtime's diligence push.
    Push(String),
}

enum Reply {
    Completed {
        raw: String,
        shown: String,
        end_marker: bool,
        question: Option<String>,
    },
    Failed(String),
    /// Hygiene left nothing of the reply (it spoke only as others, say):
    /// the model is asked once more before the turn fails.
    Emptied(String),
    /// Stopped by the facilitator; `shown` is what had streamed.
    Interrupted {
        shown: String,
    },
}

#[derive(Clone, Copy, PartialEq)]
enum StreamMode {
    /// A round: timers run and commands may stop the reply.
    Round,
    /// Farewells and highlights: only Quit/Abort cut them short.
    Exit,
    /// Internal calls (selection): nothing is shown.
    Silent,
}

pub struct Engine {
    cfg: Config,
    workflow: Workflow,
    agents: Vec<Agent>,
    provider: Arc<dyn Provider>,
    lang: Lang,
    speech_language: String,
    user_name: String,
    sessions_dir: PathBuf,
    rx: UnboundedReceiver<Command>,
    tx: UnboundedSender<Event>,
    session: Option<Session>,
    store: Option<SessionStore>,
    resume: Option<(PathBuf, Session)>,
    document_language: Option<String>,
    startup_notices: Vec<String>,
    saves: Saves,
    phase: Phase,
    /// When the clock (re)started, and the active seconds counted before.
    opened: Instant,
    active_base: u64,
    /// Commands that arrived while a round was running.
    queue: VecDeque<Command>,
    pending: VecDeque<Pending>,
    awaiting_sent: bool,
    time_limit_fired: bool,
    /// The time limit fired mid-round: finish the current reply, then stop.
    time_up: bool,
    exit: Option<ExitReason>,
    quit: bool,
    save_failing: bool,
    saved_once: bool,
    /// When the facilitator last did anything (typed, sent, answered).
    facilitator_active_at: Instant,
    /// When the room last finished a round.
    room_active_at: Instant,
    idle_warned: bool,
    /// The facilitator chose to stop the automatic pushes until they write.
    pushes_paused: bool,
    push_text: super::diligence::PushText,
    /// Embedding vectors per transcript index, when embeddings are used.
    embeddings: HashMap<usize, Vec<f32>>,
    embeddings_failed: bool,
    /// Lexical agreement of a round, by the transcript indices of its
    /// replies: judging looks back several rounds, each scored once.
    lexical_scores: HashMap<Vec<usize>, Option<f64>>,
    /// Each agent's history, by the transcript index its context starts at.
    histories: HashMap<String, (usize, HistoryView)>,
    /// Consecutive rounds that repeated the one before.
    repeat_streak: u32,
    /// No consensus proposal before this round after a declined one.
    consensus_quiet_until: u32,
    profiles: selection::Profiles,
    /// The context budget every prompt is fitted to.
    budget: Budget,
    /// The server's answer about its window, while it is awaited.
    window_probe: Option<tokio::task::JoinHandle<Option<u32>>>,
    /// Each turn's estimated tokens, by transcript index.
    turn_estimates: Vec<u32>,
}

async fn at(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// A timer re-armed only when its deadline changes. `at` builds a new
/// `Sleep` each time, and a new `Sleep` registers with the timer wheel and
/// wakes the I/O driver (a syscall) — fine per command, too much per token.
struct Alarm {
    deadline: Option<Instant>,
    sleep: std::pin::Pin<Box<tokio::time::Sleep>>,
}

impl Alarm {
    fn new(deadline: Option<Instant>) -> Alarm {
        // The far-off instant is never awaited: `ring` pends while unset.
        let sleep = Box::pin(tokio::time::sleep_until(
            deadline.unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400 * 365)),
        ));
        Alarm { deadline, sleep }
    }

    fn set(&mut self, deadline: Option<Instant>) {
        if deadline != self.deadline {
            self.deadline = deadline;
            if let Some(d) = deadline {
                self.sleep.as_mut().reset(d);
            }
        }
    }

    async fn ring(&mut self) {
        match self.deadline {
            Some(_) => self.sleep.as_mut().await,
            None => std::future::pending().await,
        }
    }
}

fn minutes_text(m: f64) -> String {
    // Whole minutes print as such; short test limits keep two decimals.
    let s = format!("{m:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl Engine {
    pub fn new(setup: Setup, rx: UnboundedReceiver<Command>, tx: UnboundedSender<Event>) -> Engine {
        let push_text = super::diligence::resolve(&setup.workflow, setup.lang).unwrap_or_else(|e| {
            tracing::error!("diligence push text: {e}");
            super::diligence::PushText::Disabled { source: e.file }
        });
        Engine {
            facilitator_active_at: Instant::now(),
            room_active_at: Instant::now(),
            idle_warned: false,
            pushes_paused: false,
            push_text,
            embeddings: HashMap::new(),
            embeddings_failed: false,
            lexical_scores: HashMap::new(),
            histories: HashMap::new(),
            repeat_streak: 0,
            consensus_quiet_until: 0,
            profiles: selection::Profiles::new(&setup.agents),
            budget: Budget::new(
                setup
                    .config
                    .llm
                    .context_tokens
                    .unwrap_or_else(|| super::budget::default_window(setup.provider.info().base_url.as_deref())),
                setup.config.llm.reply_max_tokens,
            ),
            window_probe: None,
            turn_estimates: Vec::new(),
            sessions_dir: setup.output.join("party-mode"),
            cfg: setup.config,
            workflow: setup.workflow,
            agents: setup.agents,
            provider: setup.provider,
            lang: setup.lang,
            speech_language: setup.speech_language,
            user_name: setup.user_name,
            rx,
            tx,
            session: None,
            store: None,
            resume: setup.resume,
            document_language: setup.document_language,
            startup_notices: setup.notices,
            saves: setup.saves,
            phase: Phase::Welcome,
            opened: Instant::now(),
            active_base: 0,
            queue: VecDeque::new(),
            pending: VecDeque::new(),
            awaiting_sent: false,
            time_limit_fired: false,
            time_up: false,
            exit: None,
            quit: false,
            save_failing: false,
            saved_once: false,
        }
    }

    fn emit(&self, ev: Event) {
        // A front end that has gone away cannot be told anything more; the
        // session file still gets every change.
        let _ = self.tx.send(ev);
    }

    fn render(&self, name: &str, vars: &[(&str, &str)]) -> String {
        self.workflow.render(name, self.lang, vars)
    }

    fn env(&self) -> PromptEnv<'_> {
        PromptEnv {
            workflow: &self.workflow,
            agents: &self.agents,
            user_name: &self.user_name,
            speech_language: &self.speech_language,
            lang: self.lang,
            document_language: self.document_language.as_deref().unwrap_or(&self.speech_language),
        }
    }

    fn state(&self) -> Option<&ConversationState> {
        self.session.as_ref().map(|s| &s.fm.conversation_state)
    }

    fn state_mut(&mut self) -> &mut ConversationState {
        &mut self
            .session
            .as_mut()
            .expect("session exists once the topic is set")
            .fm
            .conversation_state
    }

    fn active(&self) -> u64 {
        if self.session.is_none() {
            return 0;
        }
        self.active_base + self.opened.elapsed().as_secs()
    }

    fn max_seconds(&self) -> u64 {
        let m = self.state().map_or(self.cfg.party.max_duration_minutes, |s| s.max_duration_minutes);
        (m * 60.0).round() as u64
    }

    fn time_deadline(&self) -> Option<Instant> {
        let s = self.state()?;
        if self.time_limit_fired || !s.max_duration_minutes.is_finite() {
            return None;
        }
        let left = (s.max_duration_minutes * 60.0 - self.active_base as f64).max(0.0);
        Some(self.opened + Duration::from_secs_f64(left))
    }

    fn warn_deadline(&self) -> Option<Instant> {
        let s = self.state()?;
        if s.warned_time || s.warn_at_minutes <= 0.0 || self.time_limit_fired {
            return None;
        }
        let left = (s.warn_at_minutes * 60.0 - self.active_base as f64).max(0.0);
        Some(self.opened + Duration::from_secs_f64(left))
    }

    fn status(&self) -> Status {
        let (round, max_rounds, warn_rounds, warn_minutes, tokens) = match self.state() {
            Some(s) => (
                s.current_round,
                s.max_rounds,
                s.warn_at_rounds,
                s.warn_at_minutes,
                s.tokens.prompt + s.tokens.completion,
            ),
            None => (
                0,
                self.cfg.party.max_rounds,
                self.cfg.party.warn_at_rounds,
                self.cfg.party.warn_at_minutes,
                0,
            ),
        };
        Status {
            phase: self.phase,
            round,
            max_rounds,
            warn_at_rounds: warn_rounds,
            active_seconds: self.active(),
            max_seconds: self.max_seconds(),
            warn_at_seconds: (warn_minutes * 60.0).round() as u64,
            clock_running: self.session.is_some() && !matches!(self.phase, Phase::Ended),
            tokens,
            pending_requests: self.pending.len(),
            consensus: self.state().and_then(|s| s.consensus_score),
            push_used: self.session.as_ref().map_or(0, |s| s.fm.diligence.used),
            push_budget: self
                .session
                .as_ref()
                .map_or(self.cfg.party.diligence.push_max, |s| s.fm.diligence.budget),
            awaiting_answer_from: self.state().and_then(|s| s.awaiting_answer_from.clone()),
        }
    }

    fn set_phase(&mut self, p: Phase) {
        self.phase = p;
        self.emit(Event::Status(self.status()));
    }

    // ---------------------------------------------------------------- saving

    async fn save(&mut self) {
        let active = self.active();
        let (Some(session), Some(store)) = (self.session.as_mut(), self.store.as_mut()) else {
            return;
        };
        session.fm.conversation_state.active_seconds = active;
        // After one good save the folder is there: later saves skip the
        // folder checks. A failure may mean it went away, so check again.
        let folder = if self.save_failing || !self.saved_once {
            crate::session::Folder::MayBeNew
        } else {
            crate::session::Folder::Known
        };
        let path = store.path.clone();
        let rendered = match store.render(session) {
            Ok(r) => r,
            Err(e) => {
                tracing::error!("{e}");
                return;
            }
        };
        let result = match self.saves {
            Saves::Inline => crate::session::store_write(&path, &rendered.parts(), folder),
            Saves::Background => {
                let (text, write_path) = (rendered.to_text(), path.clone());
                tokio::task::spawn_blocking(move || crate::session::store_write(&write_path, &[text.as_bytes()], folder))
                    .await
                    .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
            }
        };
        match result {
            Ok(()) => {
                self.saved_once = true;
                if self.save_failing {
                    tracing::info!("saving works again: {}", path.display());
                }
                self.save_failing = false;
            }
            Err(e) => {
                tracing::error!(path = %path.display(), error = %e, "saving the session failed");
                // Say it once per failure streak; every later change retries.
                if !self.save_failing {
                    self.emit(Event::SaveFailed {
                        path: path.display().to_string(),
                        error: e.to_string(),
                    });
                }
                self.save_failing = true;
            }
        }
    }

    fn push_turn(&mut self, kind: TurnKind, agent: Option<&Agent>, text: String, interrupted: bool) {
        let round = self.state().map_or(0, |s| s.current_round);
        self.push_turn_in(round, kind, agent, text, interrupted);
    }

    /// A turn of a given round (the round being played is not yet counted).
    /// Turns are only ever appended, never changed: the agents' kept
    /// histories (`histories`) and the store's rendered body rely on it.
    fn push_turn_in(&mut self, round: u32, kind: TurnKind, agent: Option<&Agent>, text: String, interrupted: bool) {
        let label = match (kind, agent) {
            (_, Some(a)) => a.label(),
            (TurnKind::Facilitator, None) => self.user_name.clone(),
            _ => String::new(),
        };
        if let Some(s) = self.session.as_mut() {
            s.turns.push(Turn {
                kind,
                agent: agent.map(|a| a.id.clone()),
                round,
                at: Utc::now(),
                label,
                text,
                interrupted,
            });
        }
    }

    /// A notice for the transcript and the front ends.
    async fn notice(&mut self, kind: NoticeKind, text: String) {
        if self.session.is_some() {
            self.push_turn(TurnKind::Notice, None, text.clone(), false);
            self.save().await;
        }
        self.emit(Event::Notice { kind, text });
    }

    // ------------------------------------------------------------- main loop

    pub async fn run(mut self) {
        self.start().await;
        loop {
            if self.quit {
                self.quit_now().await;
                return;
            }
            if let Some(reason) = self.exit.take() {
                self.graceful_exit(reason).await;
                return;
            }
            let cmd = match self.queue.pop_front() {
                Some(c) => Some(c),
                None => self.wait_for_command().await,
            };
            if let Some(cmd) = cmd {
                self.awaiting_sent = false;
                self.handle(cmd).await;
            }
        }
    }

    async fn start(&mut self) {
        self.probe_window();
        let info = self.provider.info();
        let resumed = self.resume.is_some();
        let (file, topic) = match &self.resume {
            Some((p, s)) => (Some(p.display().to_string()), Some(s.fm.topic.clone())),
            None => (None, None),
        };
        self.emit(Event::SessionStarted {
            provider: info.kind.clone(),
            model: info.model.clone(),
            rehearsal: info.rehearsal,
            base_url: info.base_url.clone(),
            agents: self.agents.iter().map(AgentInfo::from).collect(),
            lang: self.lang,
            user_name: self.user_name.clone(),
            resumed,
            file,
            topic,
        });
        for text in std::mem::take(&mut self.startup_notices) {
            self.emit(Event::Notice {
                kind: NoticeKind::Warning,
                text,
            });
        }
        if let Some((path, session)) = self.resume.take() {
            self.active_base = session.fm.conversation_state.active_seconds;
            self.opened = Instant::now();
            self.time_limit_fired = session.fm.conversation_state.exit_flags.time_limit;
            self.store = Some(SessionStore::reopen(&path));
            self.saved_once = false;
            self.session = Some(session);
            let s = self.session.as_mut().expect("just set");
            // A question left open by a crash is void: the facilitator sees
            // the state afresh and limits are re-checked below.
            for c in s.fm.confirmations.iter_mut().filter(|c| c.status == ConfirmStatus::Pending) {
                c.status = ConfirmStatus::Expired;
                c.reason = Some("session resumed".into());
            }
            s.fm.conversation_state.exit_flags = ExitFlags::default();
            let missing: Vec<String> =
                s.fm.agents
                    .iter()
                    .filter(|id| !self.agents.iter().any(|a| &a.id == *id))
                    .cloned()
                    .collect();
            let (topic, round) = (s.fm.topic.clone(), s.fm.conversation_state.current_round);
            self.emit(Event::SessionFile {
                path: path.display().to_string(),
            });
            let text = self.render("resumed", &[("topic", &topic), ("round", &round.to_string())]);
            self.notice(NoticeKind::Info, text).await;
            if !missing.is_empty() {
                let gone = missing.join(", ");
                let text = crate::tr!("⚠️ not in the room any more: {gone}", "⚠️ 已不在房间中：{gone}");
                self.notice(NoticeKind::Warning, text).await;
            }
            self.set_phase(Phase::Waiting);
            self.check_termination().await;
        } else {
            let sample = self.welcome_sample();
            let text = self.render(
                "welcome",
                &[
                    ("user_name", &self.user_name),
                    ("agent_count", &self.agents.len().to_string()),
                    ("sample", &sample),
                ],
            );
            self.emit(Event::Welcome { text });
            self.emit(Event::Status(self.status()));
        }
    }

    /// Three or four agents of different kinds, as step-01 asks.
    fn welcome_sample(&self) -> String {
        let n = self.agents.len();
        let want = n.min(4);
        let step = (n / want.max(1)).max(1);
        (0..want)
            .map(|k| &self.agents[(k * step) % n])
            .map(|a| {
                self.render(
                    "welcome_agent",
                    &[("icon", &a.icon), ("name", &a.name), ("title", &a.title), ("role", &a.role)],
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Waits for the next command while running the clock. Returns None
    /// when a timer changed the state instead.
    async fn wait_for_command(&mut self) -> Option<Command> {
        if !self.awaiting_sent {
            self.awaiting_sent = true;
            let kind = if self.pending.is_empty() {
                InputKind::Message
            } else {
                InputKind::Answer
            };
            self.emit(Event::AwaitingInput { kind });
        }
        let (limit, warn) = (self.time_deadline(), self.warn_deadline());
        let push = self.push_deadline();
        let (idle_warn, idle_exit) = self.idle_deadlines();
        let expiry = self.reset_expiry();
        let expiry_at = expiry.as_ref().map(|(t, _)| *t);
        // Biased: a command already waiting (a queued headless line) is
        // taken before any timer that came due meanwhile.
        tokio::select! {
            biased;
            cmd = self.rx.recv() => Some(cmd.unwrap_or(Command::Quit)),
            _ = at(limit) => { self.on_time_limit().await; None }
            _ = at(warn) => { self.on_time_warning().await; None }
            _ = at(push) => { self.on_push_due().await; None }
            _ = at(idle_warn) => { self.on_idle_warning().await; None }
            _ = at(idle_exit) => { self.on_idle_exit().await; None }
            _ = at(expiry_at) => {
                if let Some((_, id)) = expiry {
                    self.expire_reset(&id).await;
                }
                None
            }
        }
    }

    async fn handle(&mut self, cmd: Command) {
        if !matches!(cmd, Command::Quit | Command::Left | Command::Abort) {
            self.facilitator_active_at = Instant::now();
            self.idle_warned = false;
        }
        match cmd {
            Command::Typing => {}
            Command::TurnConfirmationResponse(r) => {
                self.answer(&r.request_id, r.confirmed, r.reason.map(|x| sanitize(&x)), None).await;
            }
            Command::Message { text } => {
                let text = sanitize(&text).trim().to_string();
                if !self.pending.is_empty() {
                    self.answer_with_message(text).await;
                } else if !text.is_empty() {
                    self.facilitator_message(text).await;
                }
            }
            Command::Answer {
                request_id,
                confirmed,
                reason,
                extend,
            } => {
                self.answer(&request_id, confirmed, reason.map(|r| sanitize(&r)), extend).await;
            }
            Command::Exit => self.request_exit(ExitReason::UserRequested).await,
            Command::Left => self.request_exit(ExitReason::FacilitatorLeft).await,
            Command::Continue => {
                if self.session.is_none() || !self.pending.is_empty() {
                    self.emit(Event::Rejected {
                        message: crate::tr!(
                            "nothing to continue yet: send a message first",
                            "还没有可以继续的讨论：请先发送一条消息"
                        ),
                    });
                } else {
                    self.run_round(RoundInput::Continue).await;
                }
            }
            Command::Abort => {}
            Command::Quit => self.quit = true,
        }
    }

    fn is_exit_trigger(&self, text: &str) -> bool {
        let t = text.trim();
        t.eq_ignore_ascii_case("/exit") || self.cfg.party.exit_triggers.iter().any(|x| x.to_lowercase() == t.to_lowercase())
    }

    async fn facilitator_message(&mut self, text: String) {
        self.pushes_paused = false;
        if self.session.is_some() && self.is_reset_trigger(&text) {
            self.request_reset(text).await;
            return;
        }
        if self.session.is_none() {
            if self.is_exit_trigger(&text) {
                self.request_exit(ExitReason::UserRequested).await;
                return;
            }
            self.open_session(&text).await;
        } else if self.is_exit_trigger(&text) {
            self.push_turn(TurnKind::Facilitator, None, text.clone(), false);
            let round = self.state().map_or(0, |s| s.current_round);
            self.emit(Event::FacilitatorMessage { round, text });
            self.request_exit(ExitReason::UserRequested).await;
            return;
        }
        self.run_round(RoundInput::Message(text)).await;
    }

    async fn open_session(&mut self, topic: &str) {
        let now = Utc::now();
        let p = &self.cfg.party;
        let info = self.provider.info();
        let fm = Frontmatter {
            workflow_type: "party-mode".into(),
            topic: topic.to_string(),
            user_name: self.user_name.clone(),
            date: now.format("%Y-%m-%d").to_string(),
            agents: self.agents.iter().map(|a| a.id.clone()).collect(),
            steps_completed: vec![StepId::Number(1)],
            agents_loaded: true,
            party_active: true,
            workflow_completed: false,
            conversation_state: ConversationState::new(now, p.max_rounds, p.warn_at_rounds, p.max_duration_minutes, p.warn_at_minutes),
            diligence: DiligenceState {
                budget: p.diligence.push_max,
                used: 0,
            },
            confirmations: vec![],
            lang: self.lang,
            hygiene: Default::default(),
            provider: ProviderRecord {
                kind: info.kind,
                model: info.model,
                base_url: info.base_url,
                context_tokens: Some(self.budget.window),
            },
        };
        let store = SessionStore::create(&self.sessions_dir, topic, now);
        self.store = Some(store);
        self.saved_once = false;
        self.session = Some(Session { fm, turns: Vec::new() });
        self.opened = Instant::now();
        self.active_base = 0;
        if let Some(s) = &self.store {
            self.emit(Event::SessionFile {
                path: s.path.display().to_string(),
            });
        }
    }

    // ---------------------------------------------------------------- rounds

    /// Who spoke in each of the last `keep` rounds (oldest first), and how
    /// many rounds had speakers at all. Only recent rounds matter to the
    /// choice, so only they are collected.
    fn round_history(&self, keep: usize) -> (Vec<Vec<String>>, usize) {
        let turns = self.session.as_ref().map(|s| s.turns.as_slice()).unwrap_or_default();
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
            if rounds <= keep {
                recent.last_mut().expect("pushed above").push(id.clone());
            }
        }
        recent.reverse();
        for ids in &mut recent {
            ids.reverse();
        }
        (recent, rounds)
    }

    async fn pick_agents(&mut self, message: &str, pushed: bool) -> Vec<usize> {
        let context: String = self
            .session
            .iter()
            .flat_map(|s| s.turns.iter().rev().filter(|t| t.kind == TurnKind::Agent).take(3))
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let (history, rounds_played) = self.round_history(selection::RECENT_ROUNDS);
        // Agents whose push budget is below 1 never take part in pushed rounds.
        let eligible = |a: &Agent| !pushed || a.diligence_push_max.is_none_or(|m| m >= 1);
        let heuristic = selection::select(
            &self.agents,
            &self.profiles,
            message,
            &context,
            selection::Floor {
                recent: &history,
                played: rounds_played,
            },
            self.cfg.party.agents_per_round,
            eligible,
        );
        let mut picked = if self.cfg.party.selection == crate::config::Selection::Llm && !pushed {
            self.llm_select(message, &heuristic).await.unwrap_or(heuristic)
        } else {
            heuristic
        };
        // The agent who asked the facilitator hears the answer first.
        if let Some(id) = self.state().and_then(|s| s.awaiting_answer_from.clone()) {
            if let Some(i) = self.agents.iter().position(|a| a.id == id) {
                picked.retain(|&x| x != i);
                picked.insert(0, i);
                picked.truncate(self.cfg.party.agents_per_round.1.max(1));
            }
        }
        picked
    }

    /// `selection: llm`: the model picks the speakers; any failure or odd
    /// answer falls back to the heuristic choice.
    async fn llm_select(&mut self, message: &str, heuristic: &[usize]) -> Option<Vec<usize>> {
        let (min, max) = self.cfg.party.agents_per_round;
        let roster = self
            .agents
            .iter()
            .map(|a| format!("- {}: {} ({}) — {}", a.id, a.name, a.title, a.role))
            .collect::<Vec<_>>()
            .join("\n");
        let system = format!(
            "You choose who speaks next in a group discussion. Pick the {min} to {max} agents whose expertise best fits the facilitator's message; vary the speakers across rounds. Reply with only a JSON array of agent ids, e.g. [\"a\",\"b\"].\n\nAgents:\n{roster}"
        );
        let req = ChatRequest {
            model: None,
            messages: vec![
                ChatMessage::new(Role::System, system),
                ChatMessage::new(Role::User, message.to_string()),
            ],
            temperature: 0.0,
            max_tokens: Some(64),
            stop: vec![],
            cue: Cue::Selection {
                candidates: heuristic.iter().map(|&i| self.agents[i].id.clone()).collect(),
            },
        };
        let reply = match self.stream_reply(req, None, StreamMode::Silent, None).await {
            Reply::Completed { raw, .. } => raw,
            _ => return None,
        };
        let start = reply.find('[')?;
        let end = reply[start..].find(']')? + start;
        let ids: Vec<String> = serde_json::from_str(&reply[start..=end]).ok()?;
        let mut picked: Vec<usize> = selection::named(&self.agents, message);
        for id in ids {
            if let Some(i) = self.agents.iter().position(|a| a.id.eq_ignore_ascii_case(id.trim())) {
                if !picked.contains(&i) {
                    picked.push(i);
                }
            }
        }
        picked.truncate(max.max(selection::named(&self.agents, message).len()));
        (picked.len() >= min).then_some(picked)
    }

    fn remaining_text(&self, round: u32) -> Option<String> {
        let s = self.state()?;
        if !(s.warned_rounds || s.warned_time) {
            return None;
        }
        let rounds_left = s.max_rounds.saturating_sub(round) + 1;
        let secs_left = self.max_seconds().saturating_sub(self.active());
        let minutes_left = secs_left.div_ceil(60);
        Some(self.render(
            "remaining",
            &[
                ("rounds_left", &rounds_left.to_string()),
                ("minutes_left", &minutes_left.to_string()),
            ],
        ))
    }

    async fn run_round(&mut self, input: RoundInput) {
        // Debug builds only: lets the real-terminal test prove that a panic
        // in this background task still restores the terminal.
        #[cfg(debug_assertions)]
        if std::env::var("BMAD_PARTY_FAULT").is_ok_and(|v| v == "panic-in-round") {
            panic!("injected fault: panic in the engine task");
        }
        let round = self.state().map_or(0, |s| s.current_round) + 1;
        if let RoundInput::Message(text) = &input {
            if self.reset_topic_pending() {
                // The first message after a reset is the new topic.
                if let Some(s) = self.session.as_mut() {
                    s.fm.topic = text.clone();
                }
            }
        }
        let topic = self.session.as_ref().map(|s| s.fm.topic.clone()).unwrap_or_default();
        let answering = self.state().and_then(|s| s.awaiting_answer_from.clone());
        self.state_mut().last_activity_at = Utc::now();
        let pushed = matches!(input, RoundInput::Push(_));
        let message: Option<String> = match &input {
            RoundInput::Message(text) => {
                self.push_turn_in(round, TurnKind::Facilitator, None, text.clone(), false);
                if answering.is_some() {
                    // Answering an agent's question answers a question for the human: fresh push budget.
                    self.session.as_mut().expect("session").fm.diligence.used = 0;
                }
                self.save().await;
                self.emit(Event::FacilitatorMessage { round, text: text.clone() });
                Some(text.clone())
            }
            RoundInput::Continue => {
                let text = self.render("room_continues", &[("user_name", &self.user_name)]);
                self.push_turn_in(round, TurnKind::Continue, None, text.clone(), false);
                self.save().await;
                self.emit(Event::Notice {
                    kind: NoticeKind::Info,
                    text,
                });
                None
            }
            RoundInput::Push(text) => {
                let shown = self.render("push_notice", &[("text", text)]);
                self.push_turn_in(round, TurnKind::Push, None, shown, false);
                let d = &mut self.session.as_mut().expect("session").fm.diligence;
                d.used += 1;
                let (used, budget) = (d.used, d.budget);
                self.save().await;
                self.emit(Event::DiligencePush {
                    text: text.clone(),
                    used,
                    budget,
                });
                Some(text.clone())
            }
        };
        self.settle_window().await;
        let picked = self.pick_agents(message.as_deref().unwrap_or(&topic), pushed).await;
        self.state_mut().awaiting_answer_from = None;
        let ids: Vec<String> = picked.iter().map(|&i| self.agents[i].id.clone()).collect();
        self.emit(Event::RoundStarted {
            round,
            max_rounds: self.state().map_or(0, |s| s.max_rounds),
            agents: ids,
            continued: !matches!(input, RoundInput::Message(_)),
        });
        self.set_phase(Phase::Round);

        let end_marker = self.cfg.party.end_detection.end_marker.clone();
        let detect = self.cfg.party.end_detection.enable_detection;
        let mut earlier: Vec<(String, String)> = Vec::new();
        let (mut ok, mut failed, mut interrupted) = (0usize, 0usize, false);
        let mut last_cause = String::new();
        let mut proposal: Option<(Agent, String, String)> = None;
        let ask_marker = self.cfg.party.ask_marker.clone();
        for idx in picked {
            let agent = self.agents[idx].clone();
            self.emit(Event::AgentStarted {
                agent: agent.id.clone(),
                round,
            });
            let names: Vec<String> = earlier.iter().map(|(n, _)| n.clone()).collect();
            let remaining = self.remaining_text(round);
            let fixed = {
                let env = self.env();
                let system = env.system(&agent, detect.then_some(end_marker.as_str()), Some(&ask_marker));
                let note = env.turn_instruction(&agent, round, &names, remaining.as_deref().unwrap_or(""));
                self.budget.cost(&system) + self.budget.cost(&note)
            };
            let history = self.history_of(&agent, fixed);
            let messages = self.env().turn_messages(
                &agent,
                &history,
                round,
                &names,
                detect.then_some(end_marker.as_str()),
                Some(&ask_marker),
                remaining.as_deref(),
            );
            let runtime = self.env().runtime_texts(
                &agent,
                round,
                &names,
                detect.then_some(end_marker.as_str()),
                Some(&ask_marker),
                remaining.as_deref(),
            );
            let voices = self.voices_for(&agent, &runtime);
            let req = ChatRequest {
                model: agent.model.clone(),
                messages,
                temperature: self.cfg.llm.temperature,
                max_tokens: Some(self.cfg.llm.reply_max_tokens),
                stop: self.stop_labels(&agent),
                cue: Cue::Turn {
                    agent: agent.clone(),
                    round,
                    message: message.clone(),
                    topic: topic.clone(),
                    earlier: earlier.clone(),
                    end_marker: detect.then(|| end_marker.clone()),
                    ask_marker: Some(ask_marker.clone()),
                    lang: self.lang,
                },
            };
            let mut reply = self.stream_reply(req.clone(), Some(&agent), StreamMode::Round, Some(&voices)).await;
            if let Reply::Emptied(cause) = reply {
                // Another sample of the same prompt (a server's prompt cache
                // makes it cheap) usually has words of the agent's own.
                tracing::info!(agent = %agent.id, %cause, "nothing of the reply was the agent's own: asked once more");
                self.count_cut("asked_again");
                self.emit(Event::AgentRetrying {
                    agent: agent.id.clone(),
                    attempt: 1,
                    delay_ms: 0,
                    cause,
                });
                // Told why, a small model mostly writes something else;
                // the note joins the prompt's end, so the cached prefix holds.
                let note = self.env().ask_again_note(&agent);
                let again = voices.clone().runtime(&note);
                let mut req = req;
                // A little warmer: the same prompt at the same temperature
                // mostly samples the same copy again.
                req.temperature = (req.temperature + 0.3).min(1.5);
                req.messages = crate::engine::prompts::with_instruction(req.messages, &note);
                reply = self.stream_reply(req, Some(&agent), StreamMode::Round, Some(&again)).await;
            }
            match reply {
                Reply::Completed {
                    raw,
                    shown,
                    end_marker: found,
                    question,
                } => {
                    ok += 1;
                    let text = shown.trim().to_string();
                    self.record_round_turn(round, TurnKind::Agent, &agent, text.clone(), false);
                    self.count_round(round);
                    self.save().await;
                    self.emit(Event::AgentMessage {
                        agent: agent.id.clone(),
                        name: agent.name.clone(),
                        icon: agent.icon.clone(),
                        round,
                        text: text.clone(),
                        interrupted: false,
                    });
                    earlier.push((agent.name.clone(), text.clone()));
                    if let Some(q) = question {
                        self.agent_question(round, &agent, q).await;
                        break;
                    }
                    if found && detect {
                        proposal = Some((agent, raw, text));
                        break;
                    }
                }
                Reply::Emptied(cause) => {
                    // Twice nothing of its own: in a meeting, one passes.
                    // Not a failure: the server answered.
                    tracing::info!(agent = %agent.id, %cause, "asked again, still nothing of the agent's own: passes");
                    self.count_cut("passed");
                    let text = format!("🤐 {} {}", agent.label(), t(self.lang, Msg::AgentPassed));
                    self.push_turn_in(round, TurnKind::Notice, None, text.clone(), false);
                    // A round everyone passed was still played.
                    self.count_round(round);
                    self.save().await;
                    self.emit(Event::AgentPassed {
                        agent: agent.id.clone(),
                        round,
                        text,
                    });
                }
                Reply::Failed(cause) => {
                    failed += 1;
                    last_cause = cause.clone();
                    let text = format!("⚠️ {} {}: {cause}", agent.label(), t(self.lang, Msg::AgentFailed));
                    self.record_round_turn(round, TurnKind::Failed, &agent, text, false);
                    self.save().await;
                    self.emit(Event::AgentFailed {
                        agent: agent.id.clone(),
                        round,
                        cause,
                    });
                }
                Reply::Interrupted { shown } => {
                    interrupted = true;
                    let text = shown.trim().to_string();
                    if !text.is_empty() {
                        self.record_round_turn(round, TurnKind::Agent, &agent, text.clone(), true);
                        self.count_round(round);
                        self.save().await;
                        self.emit(Event::AgentMessage {
                            agent: agent.id.clone(),
                            name: agent.name.clone(),
                            icon: agent.icon.clone(),
                            round,
                            text,
                            interrupted: true,
                        });
                        ok += 1;
                    }
                    break;
                }
            }
            if self.time_up || self.quit || self.exit.is_some() {
                break;
            }
        }

        if interrupted && self.state().is_some_and(|s| s.current_round < round) {
            // Stopped before anyone spoke: the round still counts.
            self.count_round(round);
            self.save().await;
        }
        self.room_active_at = Instant::now();
        self.emit(Event::RoundFinished {
            round,
            menu: self.render("round_menu", &[]),
        });
        self.set_phase(Phase::Waiting);

        if ok == 0 && failed > 0 && !interrupted && self.exit.is_none() && !self.quit {
            let text = self.render("unreachable", &[("cause", &last_cause)]);
            self.notice(NoticeKind::Error, text).await;
            self.exit = Some(ExitReason::Unreachable);
            return;
        }
        if let Some((agent, raw, clean_text)) = proposal {
            if self.exit.is_none() && !self.quit {
                self.end_proposal(&agent, raw, clean_text).await;
            }
        }
        self.room_active_at = Instant::now();
        if self.exit.is_none() && !self.quit {
            self.check_termination().await;
        }
        if ok > 0 && self.exit.is_none() && !self.quit {
            self.judge_round(round).await;
            // Judging may have called the model (embeddings, the moderator).
            self.room_active_at = Instant::now();
        }
    }

    fn record_round_turn(&mut self, round: u32, kind: TurnKind, agent: &Agent, text: String, interrupted: bool) {
        self.push_turn_in(round, kind, Some(agent), text, interrupted);
    }

    /// A round counts from its first reply on, and is saved with it: a crash
    /// later in the round resumes after it (no second round of the same
    /// number), and the round's end needs no save of its own.
    fn count_round(&mut self, round: u32) {
        let fm = &mut self.session.as_mut().expect("session").fm;
        fm.conversation_state.current_round = round;
        if !fm.steps_completed.contains(&StepId::Number(2)) {
            fm.steps_completed.push(StepId::Number(2));
        }
    }

    /// Streams one reply, listening to commands and timers meanwhile. The
    /// reply is cleaned as it streams (`hygiene`): what `voices` rules out
    /// never reaches a front end, and a cut stops the request.
    async fn stream_reply(&mut self, req: ChatRequest, agent: Option<&Agent>, mode: StreamMode, voices: Option<&Voices>) -> Reply {
        let id = agent.map(|a| a.id.clone()).unwrap_or_default();
        let markers = vec![self.cfg.party.end_detection.end_marker.clone(), self.cfg.party.ask_marker.clone()];
        let cap = req.max_tokens;
        // The server's count of this prompt corrects the budget's estimates.
        let estimated: u32 = req.messages.iter().map(|m| estimate_tokens(&m.content)).sum();
        let plain = Voices::new("", vec![], vec![], false);
        let voices = voices.unwrap_or(&plain);
        let mut stream = self.provider.stream(req);
        let mut filter = MarkerFilter::new(markers.clone());
        let mut sanitizer = Sanitizer::new();
        let mut hygiene = Hygiene::new(voices, cap);
        let mut shown = String::new();
        let mut capped = false;
        let deadlines = |this: &Self| {
            if mode == StreamMode::Round {
                (this.time_deadline(), this.warn_deadline())
            } else {
                (None, None)
            }
        };
        let (limit, warn) = deadlines(self);
        let (mut limit, mut warn) = (Alarm::new(limit), Alarm::new(warn));
        let show = |this: &Self, filter: &mut MarkerFilter, shown: &mut String, text: &str| {
            let visible = filter.push(text);
            if !visible.is_empty() {
                shown.push_str(&visible);
                if mode != StreamMode::Silent {
                    this.emit(Event::AgentToken {
                        agent: id.clone(),
                        text: visible,
                    });
                }
            }
        };
        loop {
            let (l, w) = deadlines(self);
            limit.set(l);
            warn.set(w);
            let done = tokio::select! {
                biased;
                cmd = self.rx.recv() => match cmd.unwrap_or(Command::Quit) {
                    Command::Abort if mode != StreamMode::Silent => return Reply::Interrupted { shown },
                    Command::Quit => { self.quit = true; return Reply::Interrupted { shown } }
                    Command::Exit if mode == StreamMode::Round => {
                        self.queue.push_front(Command::Exit);
                        return Reply::Interrupted { shown };
                    }
                    other => { self.queue.push_back(other); false }
                },
                _ = limit.ring() => { self.on_time_limit().await; false }
                _ = warn.ring() => { self.on_time_warning().await; false }
                ev = stream.next() => match ev {
                    Some(LlmEvent::Token(piece)) => {
                        let step = hygiene.push(&sanitizer.push(&piece));
                        show(self, &mut filter, &mut shown, &step.show);
                        // Cut: the rest of the reply is void, so the request
                        // stops here (a local model stops writing it).
                        step.stop
                    }
                    Some(LlmEvent::Usage { prompt, completion, cached }) => {
                        if self.session.is_some() {
                            let s = self.state_mut();
                            s.tokens.prompt += prompt;
                            s.tokens.completion += completion;
                            s.tokens.cached += cached.unwrap_or(0);
                        }
                        self.budget.learn(estimated, prompt);
                        tracing::debug!(agent = %id, prompt, estimated, completion, cached, "usage");
                        false
                    }
                    Some(LlmEvent::Capped) => { capped = true; false }
                    Some(LlmEvent::Retrying { attempt, delay_ms, cause }) => {
                        shown.clear();
                        capped = false;
                        filter = MarkerFilter::new(markers.clone());
                        sanitizer = Sanitizer::new();
                        hygiene = Hygiene::new(voices, cap);
                        if mode != StreamMode::Silent {
                            self.emit(Event::AgentRetrying { agent: id.clone(), attempt, delay_ms, cause });
                        }
                        false
                    }
                    Some(LlmEvent::Done) | None => true,
                    Some(LlmEvent::Failed(cause)) => return Reply::Failed(cause),
                },
            };
            if !done {
                continue;
            }
            drop(stream);
            let last = hygiene.finish(capped);
            show(self, &mut filter, &mut shown, &last);
            let rest = filter.finish();
            show(self, &mut MarkerFilter::new(vec![]), &mut shown, &rest);
            self.count_cuts(&id, hygiene.cuts());
            let raw = hygiene.kept().to_string();
            // What cleaning left may be a stub ("Sure." of "Sure, Maya."):
            // no turn either.
            let words = shown.split_whitespace().count() + shown.chars().filter(|c| crate::text::is_cjk(*c)).count() / 2;
            let stub = !hygiene.cuts().is_empty() && words < 3;
            if (shown.trim().is_empty() || stub) && agent.is_some() {
                let what: Vec<&str> = hygiene.cuts().iter().map(|c| c.kind.code()).collect();
                return if what.is_empty() {
                    Reply::Failed(crate::tr!("the reply was empty", "回复为空"))
                } else {
                    let what = what.join(", ");
                    Reply::Emptied(crate::tr!(
                        "nothing left after cleaning the reply ({what})",
                        "清理回复后没有剩余内容（{what}）"
                    ))
                };
            }
            let question = if filter.found(1) { question_in(&raw, &markers[1]) } else { None };
            return Reply::Completed {
                raw,
                shown,
                end_marker: filter.found(0),
                question,
            };
        }
    }

    /// What hygiene cut goes to the log and the session file's counters.
    fn count_cuts(&mut self, agent: &str, cuts: &[Cut]) {
        for c in cuts {
            tracing::info!(agent, kind = c.kind.code(), text = %crate::text::ellipsize(&c.text, 300), "reply hygiene cut");
            self.count_cut(c.kind.code());
        }
    }

    fn count_cut(&mut self, code: &str) {
        if let Some(s) = self.session.as_mut() {
            *s.fm.hygiene.entry(code.to_string()).or_default() += 1;
        }
    }

    // ------------------------------------------------------- check termination

    /// Step 00, after every round: round limit and warning, and a time limit
    /// that fired while the round was running.
    async fn check_termination(&mut self) {
        let Some(s) = self.state().cloned() else { return };
        if self.time_up
            || (self.time_limit_fired && !s.exit_flags.time_limit && self.pending.iter().all(|p| p.kind != ConfirmKind::TimeLimit))
        {
            self.time_up = false;
            self.time_limit_reached(false).await;
            return;
        }
        if s.current_round >= s.max_rounds {
            if !s.exit_flags.round_limit {
                self.round_limit_reached().await;
            }
            return;
        }
        if s.warn_at_rounds > 0 && s.current_round >= s.warn_at_rounds && !s.warned_rounds {
            self.state_mut().warned_rounds = true;
            let left = s.max_rounds - s.current_round;
            let text = self.render(
                "round_warning",
                &[
                    ("round", &s.current_round.to_string()),
                    ("max_rounds", &s.max_rounds.to_string()),
                    ("rounds_left", &left.to_string()),
                ],
            );
            self.notice(NoticeKind::Warning, text).await;
            self.emit(Event::Status(self.status()));
        }
    }

    async fn round_limit_reached(&mut self) {
        let max = self.state().map_or(0, |s| s.max_rounds);
        self.state_mut().exit_flags.round_limit = true;
        let text = self.render("round_limit", &[("max_rounds", &max.to_string())]);
        self.notice(NoticeKind::Limit, text).await;
        if self.cfg.party.auto_exit_enabled {
            self.exit = Some(ExitReason::RoundLimit);
        } else {
            let q = self.render(
                "round_limit_question",
                &[("max_rounds", &max.to_string()), ("extend", &DEFAULT_EXTEND_ROUNDS.to_string())],
            );
            self.raise(ConfirmKind::RoundLimit, None, q, Some(DEFAULT_EXTEND_ROUNDS)).await;
        }
    }

    async fn on_time_warning(&mut self) {
        let Some(s) = self.state().cloned() else { return };
        if s.warned_time {
            return;
        }
        self.state_mut().warned_time = true;
        let left = (s.max_duration_minutes - s.warn_at_minutes).max(0.0);
        let text = self.render(
            "time_warning",
            &[
                ("minutes", &minutes_text(s.warn_at_minutes)),
                ("max_minutes", &minutes_text(s.max_duration_minutes)),
                ("minutes_left", &minutes_text(left)),
            ],
        );
        self.notice(NoticeKind::Warning, text).await;
        self.emit(Event::Status(self.status()));
    }

    /// The active-time timer fired.
    async fn on_time_limit(&mut self) {
        if self.time_limit_fired {
            return;
        }
        self.time_limit_fired = true;
        if self.phase == Phase::Round {
            // Let the agent who is speaking finish; the round stops after it.
            self.time_up = true;
            let max = self.state().map_or(0.0, |s| s.max_duration_minutes);
            let text = self.render("time_limit", &[("max_minutes", &minutes_text(max))]);
            self.emit(Event::Notice {
                kind: NoticeKind::Limit,
                text,
            });
            return;
        }
        self.time_limit_reached(true).await;
    }

    async fn time_limit_reached(&mut self, announce: bool) {
        let max = self.state().map_or(0.0, |s| s.max_duration_minutes);
        self.state_mut().exit_flags.time_limit = true;
        let text = self.render("time_limit", &[("max_minutes", &minutes_text(max))]);
        if announce {
            self.notice(NoticeKind::Limit, text).await;
        } else {
            // Announced when the timer fired mid-round; now it is recorded.
            self.push_turn(TurnKind::Notice, None, text, false);
            self.save().await;
        }
        if self.cfg.party.auto_exit_enabled {
            self.exit = Some(ExitReason::TimeLimit);
        } else {
            let q = self.render(
                "time_limit_question",
                &[("max_minutes", &minutes_text(max)), ("extend", &DEFAULT_EXTEND_MINUTES.to_string())],
            );
            self.raise(ConfirmKind::TimeLimit, None, q, Some(DEFAULT_EXTEND_MINUTES)).await;
        }
    }

    // ---------------------------------------------------------- confirmations

    async fn raise(&mut self, kind: ConfirmKind, agent: Option<&Agent>, text: String, extend: Option<u32>) -> String {
        let n = self.session.as_ref().map_or(0, |s| s.fm.confirmations.len()) + 1;
        let id = format!("req-{n}");
        if let Some(s) = self.session.as_mut() {
            s.fm.confirmations.push(ConfirmationRecord {
                request_id: id.clone(),
                kind,
                status: ConfirmStatus::Pending,
                reason: None,
                agent: agent.map(|a| a.id.clone()),
                asked_at: Utc::now(),
                answered_at: None,
            });
        }
        self.pending.push_back(Pending {
            id: id.clone(),
            kind,
            agent: agent.map(|a| a.id.clone()),
            expires: None,
        });
        self.save().await;
        self.emit(Event::ConfirmationRequest {
            request_id: id.clone(),
            kind,
            text,
            extend,
        });
        self.awaiting_sent = false;
        self.set_phase(Phase::Confirming);
        id
    }

    async fn end_proposal(&mut self, agent: &Agent, raw: String, clean_text: String) {
        let ed = &self.cfg.party.end_detection;
        if ed.auto_end || !ed.require_confirmation {
            self.emit(Event::EndProposal {
                request_id: String::new(),
                agent: agent.id.clone(),
                response_text: raw,
                response_clean: clean_text,
            });
            let text = self.render("end_accepted", &[("name", &agent.name)]);
            self.notice(NoticeKind::Exit, text).await;
            self.exit = Some(ExitReason::AgentProposed);
            return;
        }
        let n = self.session.as_ref().map_or(0, |s| s.fm.confirmations.len()) + 1;
        self.emit(Event::EndProposal {
            request_id: format!("req-{n}"),
            agent: agent.id.clone(),
            response_text: raw,
            response_clean: clean_text,
        });
        let q = self.render("end_proposal", &[("name", &agent.name)]);
        self.raise(ConfirmKind::EndProposal, Some(agent), q, None).await;
    }

    /// A message while a question is open: empty confirms, text declines
    /// and is then handled as the facilitator's next message.
    async fn answer_with_message(&mut self, text: String) {
        let Some(front) = self.pending.front() else { return };
        let id = front.id.clone();
        if text.is_empty() {
            self.answer(&id, true, None, None).await;
            return;
        }
        let why = if self.is_exit_trigger(&text) {
            "exit requested"
        } else {
            "the facilitator continued with a message"
        };
        self.pushes_paused = false;
        self.answer(&id, false, Some(why.into()), None).await;
        if self.exit.is_none() && !self.quit {
            self.queue.push_front(Command::Message { text });
        }
    }

    async fn answer(&mut self, request_id: &str, confirmed: bool, reason: Option<String>, extend: Option<u32>) {
        let Some(pos) = self.pending.iter().position(|p| p.id == request_id) else {
            self.emit(Event::Rejected {
                message: crate::tr!("no open request `{request_id}`", "没有待处理的请求 `{request_id}`"),
            });
            return;
        };
        let p = self.pending.remove(pos).expect("position is valid");
        let status = if confirmed {
            ConfirmStatus::Confirmed
        } else {
            ConfirmStatus::Rejected
        };
        if let Some(rec) = self
            .session
            .as_mut()
            .and_then(|s| s.fm.confirmations.iter_mut().find(|c| c.request_id == p.id))
        {
            rec.status = status;
            rec.reason = reason.clone().filter(|r| !r.trim().is_empty());
            rec.answered_at = Some(Utc::now());
        }
        self.save().await;
        self.emit(Event::ConfirmationResolved {
            request_id: p.id.clone(),
            kind: p.kind,
            status,
            reason: reason.clone(),
        });
        match (p.kind, confirmed) {
            (ConfirmKind::EndProposal, true) => {
                let name = p
                    .agent
                    .as_deref()
                    .and_then(|id| self.agents.iter().find(|a| a.id == id))
                    .map(|a| a.name.clone())
                    .unwrap_or_default();
                let text = self.render("end_accepted", &[("name", &name)]);
                self.notice(NoticeKind::Exit, text).await;
                self.exit = Some(ExitReason::AgentProposed);
            }
            (ConfirmKind::RoundLimit, true) => self.exit = Some(ExitReason::RoundLimit),
            (ConfirmKind::Consensus, true) => self.exit = Some(ExitReason::Consensus),
            (ConfirmKind::Silence, true) => self.exit = Some(ExitReason::Silence),
            (ConfirmKind::Consensus, false) => {
                let s = self.state_mut();
                s.exit_flags.consensus = false;
                let quiet = s.current_round + self.cfg.party.consensus.lookback;
                self.consensus_quiet_until = quiet;
                self.save().await;
            }
            (ConfirmKind::Silence, false) => {
                self.state_mut().exit_flags.silence = false;
                self.save().await;
            }
            (ConfirmKind::TurnReset, ok) => self.finish_reset(ok, reason.clone()).await,
            (ConfirmKind::BudgetExhausted, ok) => self.budget_answered(ok).await,
            (ConfirmKind::TimeLimit, true) => self.exit = Some(ExitReason::TimeLimit),
            (ConfirmKind::RoundLimit, false) => {
                let n = extend.unwrap_or(DEFAULT_EXTEND_ROUNDS).max(1);
                let s = self.state_mut();
                s.max_rounds = s.current_round + n;
                s.exit_flags.round_limit = false;
                let max = s.max_rounds;
                let text = self.render("continued_rounds", &[("extend", &n.to_string()), ("max_rounds", &max.to_string())]);
                self.notice(NoticeKind::Info, text).await;
            }
            (ConfirmKind::TimeLimit, false) => {
                let n = extend.unwrap_or(DEFAULT_EXTEND_MINUTES).max(1);
                let active_min = self.active() as f64 / 60.0;
                let s = self.state_mut();
                s.max_duration_minutes = (active_min + f64::from(n)).ceil();
                s.exit_flags.time_limit = false;
                let max = s.max_duration_minutes;
                self.time_limit_fired = false;
                let text = self.render(
                    "continued_minutes",
                    &[("extend", &n.to_string()), ("max_minutes", &minutes_text(max))],
                );
                self.notice(NoticeKind::Info, text).await;
            }
            _ => {}
        }
        self.set_phase(if self.pending.is_empty() {
            Phase::Waiting
        } else {
            Phase::Confirming
        });
    }

    async fn request_exit(&mut self, reason: ExitReason) {
        if self.session.is_none() {
            self.exit = Some(reason);
            return;
        }
        let key = match reason {
            ExitReason::UserRequested => Some("exit_requested"),
            ExitReason::FacilitatorLeft => Some("facilitator_left"),
            _ => None,
        };
        if let Some(k) = key {
            let text = self.render(k, &[("user_name", &self.user_name)]);
            self.notice(NoticeKind::Exit, text).await;
        }
        self.exit = Some(reason);
    }

    // ----------------------------------------------------------- graceful exit

    fn reason_text(&self, reason: ExitReason) -> String {
        let s = self.state();
        match reason {
            ExitReason::RoundLimit => self.render("reason_round_limit", &[("max_rounds", &s.map_or(0, |s| s.max_rounds).to_string())]),
            ExitReason::TimeLimit => self.render(
                "reason_time_limit",
                &[("max_minutes", &minutes_text(s.map_or(0.0, |s| s.max_duration_minutes)))],
            ),
            ExitReason::UserRequested => self.render("reason_user_requested", &[("user_name", &self.user_name)]),
            ExitReason::AgentProposed => {
                let name = self
                    .session
                    .as_ref()
                    .and_then(|s| {
                        s.fm.confirmations
                            .iter()
                            .rev()
                            .find(|c| c.kind == ConfirmKind::EndProposal)
                            .and_then(|c| c.agent.clone())
                    })
                    .or_else(|| {
                        self.session.as_ref().and_then(|s| {
                            s.turns
                                .iter()
                                .rev()
                                .find(|t| t.kind == TurnKind::Agent)
                                .and_then(|t| t.agent.clone())
                        })
                    })
                    .and_then(|id| self.agents.iter().find(|a| a.id == id).map(|a| a.name.clone()))
                    .unwrap_or_default();
                self.render("reason_agent_proposed", &[("name", &name)])
            }
            ExitReason::FacilitatorLeft => self.render("reason_facilitator_left", &[("user_name", &self.user_name)]),
            ExitReason::Unreachable => self.render("reason_unreachable", &[]),
            ExitReason::Consensus => self.render("reason_consensus", &[]),
            ExitReason::Silence => self.render("reason_silence", &[]),
        }
    }

    /// The 2–3 agents who spoke most (the latest speaker wins a tie).
    fn most_engaged(&self) -> Vec<Agent> {
        let turns = self.session.as_ref().map(|s| s.turns.as_slice()).unwrap_or_default();
        let mut stats: Vec<(usize, usize, &Agent)> = self
            .agents
            .iter()
            .filter_map(|a| {
                let mine: Vec<usize> = turns
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.kind == TurnKind::Agent && t.agent.as_deref() == Some(&a.id))
                    .map(|(i, _)| i)
                    .collect();
                (!mine.is_empty()).then(|| (mine.len(), *mine.last().expect("not empty"), a))
            })
            .collect();
        stats.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        let n = if stats.len() >= 3 && stats[2].0 * 2 >= stats[0].0 { 3 } else { 2 };
        stats.into_iter().take(n).map(|(_, _, a)| a.clone()).collect()
    }

    async fn graceful_exit(&mut self, reason: ExitReason) {
        if self.session.is_none() {
            self.set_phase(Phase::Ended);
            self.emit(Event::SessionEnded {
                file: None,
                reason: Some(reason),
                completed: false,
            });
            return;
        }
        self.set_phase(Phase::Exiting);
        // Questions still open are moot now.
        let open: Vec<String> = self.pending.drain(..).map(|p| p.id).collect();
        if let Some(s) = self.session.as_mut() {
            for c in s.fm.confirmations.iter_mut().filter(|c| open.contains(&c.request_id)) {
                c.status = ConfirmStatus::Rejected;
                c.reason = Some("the party ended".into());
                c.answered_at = Some(Utc::now());
            }
        }
        {
            let f = &mut self.state_mut().exit_flags;
            match reason {
                ExitReason::UserRequested | ExitReason::FacilitatorLeft => f.user_requested = true,
                ExitReason::RoundLimit => f.round_limit = true,
                ExitReason::TimeLimit => f.time_limit = true,
                ExitReason::AgentProposed => f.agent_proposed = true,
                ExitReason::Consensus => f.consensus = true,
                ExitReason::Silence => f.silence = true,
                ExitReason::Unreachable => {}
            }
        }
        self.state_mut().exit_reason = Some(reason.code().to_string());
        let exiting = self.render("exiting", &[]);
        self.notice(NoticeKind::Exit, exiting.clone()).await;
        self.emit(Event::Termination { reason, text: exiting });
        let thanks = self.render("thanks", &[("user_name", &self.user_name)]);
        self.notice(NoticeKind::Info, thanks).await;

        let topic = self.session.as_ref().map(|s| s.fm.topic.clone()).unwrap_or_default();
        let engaged = self.most_engaged();
        if reason != ExitReason::Unreachable {
            for agent in &engaged {
                if self.quit {
                    break;
                }
                let fixed = {
                    let env = self.env();
                    self.budget.cost(&env.system(agent, None, None)) + self.budget.cost(&env.farewell_instruction(agent, &topic))
                };
                let history = self.history_of(agent, fixed);
                let messages = self.env().farewell_messages(agent, &history, &topic);
                // The instruction alone: the last message also holds the
                // latest turns, which a farewell may well sum up.
                let runtime = [self.env().farewell_instruction(agent, &topic)];
                // A farewell sums up in its own words: a sentence copied from
                // the discussion, or from the farewell before, is dropped.
                let voices = self.voices_for(agent, &runtime);
                let req = ChatRequest {
                    model: agent.model.clone(),
                    messages,
                    temperature: self.cfg.llm.temperature,
                    // A sentence or two.
                    max_tokens: Some(self.cfg.llm.reply_max_tokens.min(120)),
                    stop: self.stop_labels(agent),
                    cue: Cue::Farewell {
                        agent: agent.clone(),
                        topic: topic.clone(),
                        user_name: self.user_name.clone(),
                        lang: self.lang,
                    },
                };
                self.emit(Event::AgentStarted {
                    agent: agent.id.clone(),
                    round: self.state().map_or(0, |s| s.current_round),
                });
                match self.stream_reply(req, Some(agent), StreamMode::Exit, Some(&voices)).await {
                    Reply::Completed { shown, .. } if !shown.trim().is_empty() => {
                        let text = shown.trim().to_string();
                        self.push_turn(TurnKind::Farewell, Some(agent), text.clone(), false);
                        self.save().await;
                        self.emit(Event::Farewell {
                            agent: agent.id.clone(),
                            name: agent.name.clone(),
                            icon: agent.icon.clone(),
                            text,
                        });
                    }
                    Reply::Failed(cause) => tracing::warn!(agent = %agent.id, %cause, "farewell failed"),
                    _ => {}
                }
            }
        }

        let rounds = self.state().map_or(0, |s| s.current_round);
        let perspectives = engaged_names(&self.agents, self.session.as_ref());
        let count = perspectives.len();
        let perspectives = perspectives.join(", ");
        let why = self.reason_text(reason);
        let mut outcomes = String::new();
        let spoke = self
            .session
            .as_ref()
            .is_some_and(|s| s.turns.iter().any(|t| t.kind == TurnKind::Agent));
        if reason != ExitReason::Unreachable && spoke && !self.quit {
            let all = self.session.as_ref().map(|s| s.turns.clone()).unwrap_or_default();
            let system = self.env().highlights_system(&topic, &perspectives, rounds, &why);
            let fixed = self.budget.cost(&system) + 300u32.saturating_sub(self.budget.reply);
            let turns = self.transcript_within(&all, fixed);
            let req = ChatRequest {
                model: None,
                messages: self.env().highlights_messages(system, &turns),
                temperature: 0.3,
                max_tokens: Some(300),
                stop: vec![],
                cue: Cue::Highlights {
                    topic: topic.clone(),
                    rounds,
                    lang: self.lang,
                },
            };
            if let Reply::Completed { shown, .. } = self.stream_reply(req, None, StreamMode::Silent, None).await {
                outcomes = shown.trim().to_string().replace('\n', " ");
            }
        }
        let highlights = self.render(
            "highlights",
            &[
                ("topic", &topic),
                ("count", &count.to_string()),
                ("perspectives", &perspectives),
                ("rounds", &rounds.to_string()),
                ("outcomes", &outcomes),
                ("reason", &why),
            ],
        );
        let highlights = highlights.replace("  ", " ");
        self.push_turn(TurnKind::Highlights, None, highlights.clone(), false);
        self.emit(Event::Highlights { text: highlights });
        let closing = self.render("closing", &[]);
        self.push_turn(TurnKind::Closing, None, closing.clone(), false);
        self.emit(Event::Closing { text: closing });

        let fm = &mut self.session.as_mut().expect("session").fm;
        fm.party_active = false;
        fm.workflow_completed = true;
        fm.steps_completed = vec![StepId::Number(1), StepId::Number(2), StepId::Number(3)];
        self.save().await;
        self.set_phase(Phase::Ended);
        let file = self.store.as_ref().map(|s| s.path.display().to_string());
        self.emit(Event::SessionEnded {
            file,
            reason: Some(reason),
            completed: true,
        });
    }

    /// Stop now, state saved, session left resumable.
    async fn quit_now(&mut self) {
        self.save().await;
        self.set_phase(Phase::Ended);
        let file = self.store.as_ref().map(|s| s.path.display().to_string());
        self.emit(Event::SessionEnded {
            file,
            reason: None,
            completed: false,
        });
    }
}

/// The question after the ask marker when the marker starts a line: the
/// rest of that line, or the next non-empty line if the marker stands alone.
fn question_in(raw: &str, marker: &str) -> Option<String> {
    let mut lines = raw.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix(marker) {
            let q = rest.trim();
            if !q.is_empty() {
                return Some(q.to_string());
            }
            return lines.find(|l| !l.is_empty()).map(|l| l.to_string()).or_else(|| Some(String::new()));
        }
    }
    None
}

fn engaged_names(agents: &[Agent], session: Option<&Session>) -> Vec<String> {
    let Some(s) = session else { return vec![] };
    agents
        .iter()
        .filter(|a| {
            s.turns
                .iter()
                .any(|t| t.kind == TurnKind::Agent && t.agent.as_deref() == Some(&a.id))
        })
        .map(|a| a.name.clone())
        .collect()
}
