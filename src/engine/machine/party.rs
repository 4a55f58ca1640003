//! The party from the topic on: the session it owns, and `run`, the loop
//! over the steps. Each step returns what comes next (`Next`).

use std::collections::VecDeque;

use chrono::Utc;

use super::clock::{at, Clock};
use super::confirm::Pending;
use super::{Next, Room, RoundInput};
use crate::engine::cleanup::Counter;
use crate::engine::prompts::PromptEnv;
use crate::engine::{Command, Event, ExitReason, InputKind, NoticeKind, Phase, Resume, Status};
use crate::i18n::Say;
use crate::roster::agents::Agent;
use crate::session::{
    CastMember, ConfirmStatus, ConversationState, DiligenceState, ExitFlags, Frontmatter, Latency, ProviderRecord, Session, SessionStore,
    StepId, Turn, TurnKind,
};
use crate::text::sanitize;

pub(super) struct Party {
    pub(super) room: Room,
    pub(super) session: Session,
    pub(super) store: SessionStore,
    pub(super) phase: Phase,
    pub(super) clock: Clock,
    /// Questions for the facilitator still open, oldest first.
    pub(super) pending: VecDeque<Pending>,
    /// How saving goes (`save`).
    pub(super) saving: super::save::Saving,
    /// The idle clock and the pushes' pause (`diligence`).
    pub(super) idle: super::diligence::Idle,
    /// What judging the room keeps between rounds (`judgement`).
    pub(super) judgement: super::judgement::Judgement,
    /// What building prompts keeps between calls (`context`).
    pub(super) context: super::context::ContextCache,
    /// Where the next turn goes when not at the end: a reply that finished
    /// before one picked to speak ahead of it (a concurrent round) goes
    /// behind that one's place.
    pub(super) insert_at: Option<usize>,
    /// Agents' prompts being read ahead while the room waits (`warm`).
    pub(super) warming: Option<super::warm::Warming>,
    /// The earlier turns' words, tokenised once for every call's `Voices`.
    pub(super) tokens: std::sync::Arc<std::sync::Mutex<crate::engine::cleanup::TokenMemo>>,
}

impl Party {
    fn new(room: Room, session: Session, store: SessionStore, clock: Clock) -> Party {
        Party {
            room,
            session,
            store,
            phase: Phase::Welcome,
            clock,
            pending: VecDeque::new(),
            saving: super::save::Saving::default(),
            idle: super::diligence::Idle::new(),
            judgement: Default::default(),
            context: Default::default(),
            insert_at: None,
            warming: None,
            tokens: Default::default(),
        }
    }

    /// A new session on the facilitator's first message; its first round
    /// comes next.
    pub(super) fn open(room: Room, topic: String) -> (Party, Next) {
        let now = Utc::now();
        let p = &room.cfg.party;
        let info = room.provider.info();
        let fm = Frontmatter {
            workflow_type: "party-mode".into(),
            topic: topic.clone(),
            user_name: room.user_name.clone(),
            date: now.format("%Y-%m-%d").to_string(),
            agents: room.agents.iter().map(|a| a.id.clone()).collect(),
            cast: room.agents.iter().map(CastMember::of).collect(),
            steps_completed: vec![StepId::Number(1)],
            agents_loaded: true,
            party_active: true,
            workflow_completed: false,
            conversation_state: {
                let mut s = ConversationState::new(now, p.max_rounds, p.warn_at_rounds, p.max_duration_minutes, p.warn_at_minutes);
                room.early.clone().into_state(&mut s);
                s
            },
            diligence: DiligenceState {
                budget: p.diligence.push_max,
                used: 0,
            },
            confirmations: vec![],
            lang: room.lang,
            party: room.party.as_ref().map(|p| p.id.clone()),
            context: room.documents.iter().map(|d| d.path.display().to_string()).collect(),
            hygiene: Default::default(),
            cleanup: Default::default(),
            self_checks: Vec::new(),
            set_aside: Vec::new(),
            pinned: Vec::new(),
            readings: Vec::new(),
            provider: ProviderRecord {
                kind: info.kind,
                model: info.model,
                base_url: info.base_url,
                context_tokens: Some(room.budget.window),
                lowered_context_tokens: None,
                endpoints: Default::default(),
            },
        };
        let store = SessionStore::create(&room.sessions_dir, &topic, now);
        let path = store.path.display().to_string();
        let mut party = Party::new(room, Session { fm, turns: Vec::new() }, store, Clock::start(0, false));
        party.record_cleanup();
        party.room.tell_cleanup();
        party.emit(Event::SessionFile { path });
        (party, Next::Round(RoundInput::Message(topic)))
    }

    /// A session from its file: where it was left, limits checked afresh.
    pub(super) async fn resume(room: Room, resume: Resume) -> (Party, Next) {
        let Resume { path, mut session, lock } = resume;
        let cs = &session.fm.conversation_state;
        let clock = Clock::start(cs.active_seconds, cs.exit_flags.time_limit);
        // A question left open by a crash is void: the facilitator sees the
        // state afresh and limits are re-checked below.
        for c in session.fm.confirmations.iter_mut().filter(|c| c.status == ConfirmStatus::Pending) {
            c.status = ConfirmStatus::Expired;
            c.reason = Some("session resumed".into());
        }
        session.fm.conversation_state.exit_flags = ExitFlags::default();
        let cs = &session.fm.conversation_state;
        let missing: Vec<String> = session
            .fm
            .agents
            .iter()
            .filter(|id| !room.agents.iter().any(|a| &a.id == *id) && !cs.dismissed.contains(id))
            .cloned()
            .collect();
        // A session written before the cast was saved learns it from the room.
        for a in &room.agents {
            if !session.fm.cast.iter().any(|c| c.id == a.id) {
                session.fm.cast.push(CastMember::of(a));
            }
        }
        // The party and documents of this sitting (--party, --context) are the session's from now on.
        session.fm.party = room.party.as_ref().map(|p| p.id.clone());
        for d in &room.documents {
            let path = d.path.display().to_string();
            if !session.fm.context.contains(&path) {
                session.fm.context.push(path);
            }
        }
        let (topic, round) = (session.fm.topic.clone(), session.fm.conversation_state.current_round);
        let mut party = Party::new(room, session, SessionStore::reopen(&path).locked(lock), clock);
        party.keep_lowered_window();
        party.restore_cleanup();
        party.record_cleanup();
        party.room.tell_cleanup();
        party.emit(Event::SessionFile {
            path: path.display().to_string(),
        });
        party.emit(Event::Earlier {
            turns: party.session.turns.iter().map(Into::into).collect(),
        });
        let text = party.render("resumed", &[("topic", &topic), ("round", &round.to_string())]);
        party.notice(NoticeKind::Info, text).await;
        if !missing.is_empty() {
            let gone = missing.join(", ");
            let text = crate::i18n::Room::NotInRoomAnyMore { gone: &gone }.say(party.room.lang);
            party.notice(NoticeKind::Warning, text).await;
        }
        party.set_phase(Phase::Waiting);
        let next = party.check_termination().await;
        (party, next)
    }

    /// The step machine: each step says what comes next, until the party
    /// ends one way or the other.
    pub(super) async fn run(mut self, mut next: Next) {
        loop {
            next = match next {
                Next::Wait => self.wait(true).await,
                Next::Listen => self.wait(false).await,
                Next::Command(cmd) => self.handle(cmd).await,
                Next::Round(input) => self.round(input).await,
                Next::Exit(reason) => return self.graceful_exit(reason).await,
                Next::Quit => return self.quit_now().await,
                Next::Suspend => return self.suspend().await,
            };
        }
    }

    /// The next command: one queued during a round first, else one from a
    /// front end, while the clock and the room's timers run.
    async fn wait(&mut self, announce: bool) -> Next {
        if let Some(cmd) = self.room.queue.pop_front() {
            return Next::Command(cmd);
        }
        if announce {
            let kind = if self.pending.is_empty() {
                InputKind::Message
            } else {
                InputKind::Answer
            };
            self.emit(Event::AwaitingInput { kind });
        }
        let (limit, warn) = (self.time_deadline(), self.warn_deadline());
        let warm_at = self.warm_deadline();
        let push = self.push_deadline();
        let (idle_warn, idle_exit) = self.idle_deadlines();
        let expiry = self.reset_expiry();
        let expiry_at = expiry.as_ref().map(|(t, _)| *t);
        // Biased: a command already waiting (a queued headless line) is
        // taken before any timer that came due meanwhile.
        tokio::select! {
            biased;
            cmd = self.room.rx.recv() => Next::Command(cmd.unwrap_or(Command::Quit)),
            _ = at(limit) => self.on_time_limit().await,
            _ = at(warn) => { self.on_time_warning().await; Next::Listen }
            _ = at(push) => self.on_push_due().await,
            _ = at(idle_warn) => { self.on_idle_warning().await; Next::Listen }
            _ = at(idle_exit) => self.on_idle_exit().await,
            _ = at(expiry_at) => match expiry {
                // An expired reset changes nothing the front ends wait for.
                Some((_, id)) => match self.expire_reset(&id).await {
                    Next::Wait => Next::Listen,
                    other => other,
                },
                None => Next::Listen,
            },
            _ = at(warm_at) => { self.start_warming(); Next::Listen }
        }
    }

    async fn handle(&mut self, cmd: Command) -> Next {
        if !matches!(cmd, Command::Quit | Command::Left | Command::Abort) {
            self.idle.facilitator_acted();
        }
        match cmd {
            Command::Typing | Command::Abort => Next::Wait,
            // Only the lobby reads a draft (`warm`); after the topic it
            // is typing, told nothing new.
            Command::Draft { .. } => Next::Listen,
            Command::TurnConfirmationResponse(r) => self.answer(&r.request_id, r.confirmed, r.reason.map(|x| sanitize(&x)), None).await,
            // No review is open here (`cast` reads its own steps).
            Command::Cast { request_id, .. } => {
                self.room.reject_answer(&request_id);
                Next::Wait
            }
            Command::Message { text } => {
                let text = sanitize(&text).trim().to_string();
                if let Some(path) = super::briefing::context_command(&text) {
                    // A document, not a word to the room: it answers no open question.
                    self.attach(path).await;
                    Next::Wait
                } else if let Some(ask) = crate::engine::cast::typed::read(&text) {
                    self.cast(ask).await
                } else if let Some(hand) = crate::engine::hands::read(&text, &self.room.agents, &self.room.pool) {
                    self.hands(hand).await
                } else if let Some(redo) = crate::engine::redo::read(&text, &self.room.agents) {
                    self.redo(redo).await
                } else if let Some(ask) = crate::engine::takeaways::on_demand(&text) {
                    self.on_demand(ask).await
                } else if let Some(pin) = crate::engine::pins::read(&text, &self.room.agents) {
                    self.pin(pin).await
                } else if !self.pending.is_empty() {
                    self.answer_with_message(text).await
                } else if !text.is_empty() {
                    self.facilitator_message(text).await
                } else {
                    Next::Wait
                }
            }
            Command::Answer {
                request_id,
                confirmed,
                reason,
                extend,
            } => self.answer(&request_id, confirmed, reason.map(|r| sanitize(&r)), extend).await,
            Command::Exit => self.request_exit(ExitReason::UserRequested).await,
            Command::Left => self.request_exit(ExitReason::FacilitatorLeft).await,
            Command::Continue if !self.pending.is_empty() => {
                self.room.reject_continue();
                Next::Wait
            }
            Command::Continue => Next::Round(RoundInput::Continue),
            Command::Quit => Next::Quit,
        }
    }

    pub(super) async fn facilitator_message(&mut self, text: String) -> Next {
        self.idle.pushes_paused = false;
        if self.is_reset_trigger(&text) {
            self.request_reset(text).await;
            return Next::Wait;
        }
        if self.room.is_exit_trigger(&text) {
            self.push_turn(TurnKind::Facilitator, None, text.clone(), false);
            let round = self.state().current_round;
            self.emit(Event::FacilitatorMessage { round, text });
            return self.request_exit(ExitReason::UserRequested).await;
        }
        Next::Round(RoundInput::Message(text))
    }

    pub(super) fn emit(&self, ev: Event) {
        self.room.emit(ev);
    }

    pub(super) fn render(&self, name: &str, vars: &[(&str, &str)]) -> String {
        self.room.render(name, vars)
    }

    pub(super) fn env(&self) -> PromptEnv<'_> {
        self.room.env()
    }

    pub(super) fn state(&self) -> &ConversationState {
        &self.session.fm.conversation_state
    }

    pub(super) fn state_mut(&mut self) -> &mut ConversationState {
        &mut self.session.fm.conversation_state
    }

    pub(super) fn status(&self) -> Status {
        let s = self.state();
        Status {
            phase: self.phase,
            round: s.current_round,
            max_rounds: s.max_rounds,
            warn_at_rounds: s.warn_at_rounds,
            active_seconds: self.active(),
            max_seconds: self.max_seconds(),
            warn_at_seconds: (s.warn_at_minutes * 60.0).round() as u64,
            clock_running: !matches!(self.phase, Phase::Ended),
            tokens: s.tokens.prompt + s.tokens.completion,
            pending_requests: self.pending.len(),
            consensus: s.consensus_score,
            push_used: self.session.fm.diligence.used,
            push_budget: self.session.fm.diligence.budget,
            awaiting_answer_from: s.awaiting_answer_from.clone(),
            muted: s.muted.clone(),
            only: s.only.clone(),
        }
    }

    pub(super) fn set_phase(&mut self, p: Phase) {
        self.phase = p;
        self.emit(Event::Status(self.status()));
    }

    /// A failed turn, in the transcript and the file, then shown.
    pub(super) async fn record_failure(&mut self, round: u32, agent: &Agent, cause: String) {
        let text = crate::i18n::Room::AgentFailed {
            agent: &agent.label(),
            cause: &cause,
        }
        .say(self.room.lang);
        self.record_round_turn(round, TurnKind::Failed, agent, text, false);
        self.save().await;
        self.emit(Event::AgentFailed {
            agent: agent.id.clone(),
            round,
            cause,
        });
    }

    /// Twice nothing of its own: in a meeting, one passes. Not a failure:
    /// the server answered. A round everyone passed was still played.
    pub(super) async fn record_pass(&mut self, round: u32, agent: &Agent, cause: &str) {
        tracing::info!(agent = %agent.id, %cause, "asked again, still nothing of the agent's own: passes");
        self.count(Counter::Passed);
        self.count_round(round);
        self.show_pass(round, agent).await;
    }

    /// A pass said in the room: a notice turn in the session file (a
    /// resumed party shows it), then the event.
    pub(super) async fn show_pass(&mut self, round: u32, agent: &Agent) {
        let text = crate::i18n::Room::AgentPassed { agent: &agent.label() }.say(self.room.lang);
        self.push_turn_in(round, TurnKind::Notice, None, text.clone(), false);
        self.save().await;
        self.emit(Event::AgentPassed {
            agent: agent.id.clone(),
            round,
            text,
        });
    }

    /// A reply that counts: in the transcript and the file, then shown.
    /// `latency` None: it was interrupted.
    pub(super) async fn record_agent_message(&mut self, round: u32, agent: &Agent, text: String, latency: Option<Latency>) {
        let interrupted = latency.is_none();
        self.push_reply(round, TurnKind::Agent, agent, text.clone(), interrupted, latency);
        self.count_round(round);
        self.save().await;
        self.emit(Event::AgentMessage {
            agent: agent.id.clone(),
            name: agent.name.clone(),
            icon: agent.icon.clone(),
            round,
            text,
            interrupted,
            latency,
        });
    }

    pub(super) fn push_turn(&mut self, kind: TurnKind, agent: Option<&Agent>, text: String, interrupted: bool) {
        let round = self.state().current_round;
        self.push_turn_in(round, kind, agent, text, interrupted);
    }

    /// A turn of a given round (the round being played is not yet counted).
    /// Turns are only ever appended, never changed: the agents' kept
    /// histories (`histories`) and the store's rendered body rely on it.
    pub(super) fn push_turn_in(&mut self, round: u32, kind: TurnKind, agent: Option<&Agent>, text: String, interrupted: bool) {
        let turn = self.new_turn(round, kind, agent, text, interrupted);
        self.place(turn);
    }

    /// An agent's reply, with how long the model took over it.
    pub(super) fn push_reply(
        &mut self,
        round: u32,
        kind: TurnKind,
        agent: &Agent,
        text: String,
        interrupted: bool,
        latency: Option<Latency>,
    ) {
        let turn = Turn {
            latency,
            endpoint: agent.endpoint.clone(),
            model: Some(self.room.model_of(agent)),
            ..self.new_turn(round, kind, Some(agent), text, interrupted)
        };
        self.place(turn);
    }

    /// A turn into the transcript: at its end, or at `insert_at`. What was
    /// worked out for the turns from there on (their costs, histories that
    /// covered them, similarities) is worked out again.
    fn place(&mut self, turn: Turn) {
        let at = match self.insert_at.as_mut() {
            Some(at) if *at < self.session.turns.len() => at,
            _ => return self.session.turns.push(turn),
        };
        let i = *at;
        *at += 1;
        self.session.turns.insert(i, turn);
        self.store.forget_from(i);
        self.context.forget_from(i);
        self.judgement.forget_from(i);
    }

    fn new_turn(&self, round: u32, kind: TurnKind, agent: Option<&Agent>, text: String, interrupted: bool) -> Turn {
        let label = match (kind, agent) {
            (_, Some(a)) => a.label(),
            (TurnKind::Facilitator, None) => self.room.user_name.clone(),
            _ => String::new(),
        };
        Turn {
            interrupted,
            ..Turn::said(kind, agent.map(|a| a.id.as_str()), round, &label, text)
        }
    }

    pub(super) fn record_round_turn(&mut self, round: u32, kind: TurnKind, agent: &Agent, text: String, interrupted: bool) {
        self.push_turn_in(round, kind, Some(agent), text, interrupted);
    }

    /// A round counts from its first reply on, and is saved with it: a crash
    /// later in the round resumes after it (no second round of the same
    /// number), and the round's end needs no save of its own.
    pub(super) fn count_round(&mut self, round: u32) {
        let fm = &mut self.session.fm;
        fm.conversation_state.current_round = round;
        if !fm.steps_completed.contains(&StepId::Number(2)) {
            fm.steps_completed.push(StepId::Number(2));
        }
    }

    /// A notice for the transcript and the front ends.
    pub(super) async fn notice(&mut self, kind: NoticeKind, text: String) {
        self.push_turn(TurnKind::Notice, None, text.clone(), false);
        self.save().await;
        self.emit(Event::Notice { kind, text });
    }
}
