//! Before the topic (step 01, agent loading): the room is announced and
//! welcomes the facilitator, and the first message becomes the topic. There
//! is no session yet, so nothing here is saved and no timer runs.

use super::cast::Casting;
use super::clock::at;
use super::Room;
use crate::engine::hands::{Hand, HandError};
use crate::engine::{AgentInfo, Command, Event, ExitReason, InputKind, NoticeKind, Phase, Resume, Status};
use crate::text::sanitize;

/// How the lobby ends.
pub(super) enum Opening {
    /// The first message: the party opens on it.
    Topic(String),
    /// Left before there was a topic (`None`: quit).
    Ended(Option<ExitReason>),
}

impl Room {
    /// Tells the front ends who is in the room and which model they use.
    pub(super) fn announce(&mut self, resume: Option<&Resume>) {
        let info = self.provider.info();
        self.told_model = info.model.clone();
        self.told_labels = self.voice_labels();
        self.emit(Event::SessionStarted {
            provider: info.kind.clone(),
            model: info.model.clone(),
            rehearsal: info.rehearsal,
            base_url: info.base_url,
            agents: self.agent_infos(),
            out: self.out_of_room().map(AgentInfo::from).collect(),
            lang: self.lang,
            user_name: self.user_name.clone(),
            resumed: resume.is_some(),
            file: resume.map(|r| r.path.display().to_string()),
            topic: resume.map(|r| r.session.fm.topic.clone()),
            party: self.party.as_ref().map(|p| p.name.clone()),
        });
        for text in std::mem::take(&mut self.startup_notices) {
            self.emit(Event::Notice {
                kind: NoticeKind::Warning,
                text,
            });
        }
    }

    /// The welcome, then commands until one opens the party or ends it.
    pub(super) async fn wait_for_topic(&mut self) -> Opening {
        let sample = self.welcome_sample();
        // The speakers: the host runs the room and is not counted.
        let count = self.agents.iter().filter(|a| !a.moderator).count().to_string();
        let text = match &self.party {
            Some(p) => self.render(
                "welcome_party",
                &[
                    ("user_name", &self.user_name),
                    ("party", &p.name),
                    ("scene", p.scene.as_deref().unwrap_or("")),
                    ("agent_count", &count),
                    ("sample", &sample),
                ],
            ),
            None => self.render(
                "welcome",
                &[("user_name", &self.user_name), ("agent_count", &count), ("sample", &sample)],
            ),
        };
        self.emit(Event::Welcome { text });
        self.emit(Event::Status(self.status_before_topic(Phase::Welcome)));
        // While the topic is typed, the likeliest openers' prompts are read
        // ahead (`warm`).
        let mut reads = self.opening_reads();
        loop {
            // A command that came while a cast was drafted goes first, and
            // asks for no more input. The endpoints' answers are told as
            // soon as they come, while the facilitator is still typing.
            let queued = self.queue.pop_front();
            if queued.is_none() {
                self.emit(Event::AwaitingInput { kind: InputKind::Message });
            }
            let cmd = match queued {
                Some(cmd) => cmd,
                None => loop {
                    let named = self.servers.iter().any(|s| s.check.is_some());
                    tokio::select! {
                        cmd = self.rx.recv() => match cmd.unwrap_or(Command::Quit) {
                            Command::Draft { text } => reads.drafted(sanitize(&text)),
                            cmd => break cmd,
                        },
                        (i, check) = super::endpoint::next_named_answer(&mut self.servers), if named => self.tell_named(i, check),
                        done = async {
                            match self.endpoint_check.as_mut() {
                                Some(check) => check.await,
                                None => std::future::pending().await,
                            }
                        }, if self.endpoint_check.is_some() => {
                            self.endpoint_check = None;
                            if let Ok(Some(check)) = done {
                                self.tell_endpoint(&check);
                            }
                        }
                        _ = at(reads.due), if reads.due.is_some() => self.read_next_opener(&mut reads).await,
                        _ = async {
                            match reads.under_way.as_mut() {
                                Some(read) => { let _ = read.await; }
                                None => std::future::pending().await,
                            }
                        }, if reads.under_way.is_some() => {
                            reads.under_way = None;
                            reads.due = Some(tokio::time::Instant::now());
                        }
                    }
                },
            };
            match cmd {
                Command::Message { text } => {
                    let text = sanitize(&text).trim().to_string();
                    if self.is_exit_trigger(&text) {
                        return Opening::Ended(Some(ExitReason::UserRequested));
                    }
                    if let Some(path) = super::briefing::context_command(&text) {
                        if let Some(text) = self.attach(path) {
                            self.emit(Event::Notice {
                                kind: NoticeKind::Info,
                                text,
                            });
                            reads.briefing_changed();
                        }
                        continue;
                    }
                    // Second thoughts and notes need a round played.
                    let early = if crate::engine::redo::read(&text, &self.agents).is_some() {
                        Some(crate::i18n::Room::NothingToTakeBack)
                    } else if crate::engine::pins::read(&text, &self.agents).is_some() {
                        Some(crate::i18n::Room::NothingToPin)
                    } else {
                        crate::engine::takeaways::on_demand(&text).map(|_| crate::i18n::Room::NothingToSumUp)
                    };
                    if let Some(refused) = early {
                        self.emit(Event::Rejected {
                            message: crate::i18n::Say::say(&refused, self.lang),
                        });
                        continue;
                    }
                    if let Some(ask) = crate::engine::cast::typed::read(&text) {
                        match self.cast(ask, None).await {
                            Casting::Kept(id) => {
                                if let Some(topic) = self.early_hand(Ok(Hand::Switch(id)), &mut reads) {
                                    return Opening::Topic(topic);
                                }
                            }
                            Casting::Closed => {}
                            Casting::Interrupted(cmd) => self.queue.push_front(cmd),
                        }
                        continue;
                    }
                    if let Some(hand) = crate::engine::hands::read(&text, &self.agents, &self.pool) {
                        if let Some(topic) = self.early_hand(hand, &mut reads) {
                            return Opening::Topic(topic);
                        }
                        continue;
                    }
                    if !text.is_empty() {
                        return Opening::Topic(text);
                    }
                }
                Command::Exit => return Opening::Ended(Some(ExitReason::UserRequested)),
                Command::Left => return Opening::Ended(Some(ExitReason::FacilitatorLeft)),
                Command::Quit => return Opening::Ended(None),
                Command::Continue => self.reject_continue(),
                Command::Answer { request_id, .. }
                | Command::Cast { request_id, .. }
                | Command::TurnConfirmationResponse(crate::engine::TurnConfirmationResponse { request_id, .. }) => {
                    self.reject_answer(&request_id)
                }
                Command::Typing | Command::Draft { .. } | Command::Abort => {}
            }
        }
    }

    /// A room command typed before the topic, carried out on the hands kept
    /// for the session (or refused, saying why); the message `/only` came
    /// with opens the party.
    fn early_hand(&mut self, hand: Result<Hand, HandError>, reads: &mut super::warm::Opening) -> Option<String> {
        let mut early = self.early.clone();
        match self.apply_hand(&mut early, hand) {
            Err(message) => {
                self.emit(Event::Rejected { message });
                None
            }
            Ok(done) => {
                self.early = early;
                if let Some(change) = &done.change {
                    self.apply_change(change);
                    reads.briefing_changed();
                }
                self.emit(Event::Notice {
                    kind: NoticeKind::Info,
                    text: done.notice,
                });
                self.emit(Event::Status(self.status_before_topic(Phase::Welcome)));
                done.message
            }
        }
    }

    /// Three or four agents of different kinds, as step 01 asks; a named
    /// party's whole cast (up to eight).
    fn welcome_sample(&self) -> String {
        let n = self.agents.len();
        let want = if self.party.is_some() { n.min(8) } else { n.min(4) };
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

    /// The status bar before there is a session: the configured limits.
    fn status_before_topic(&self, phase: Phase) -> Status {
        let p = &self.cfg.party;
        Status {
            phase,
            round: 0,
            max_rounds: p.max_rounds,
            warn_at_rounds: p.warn_at_rounds,
            active_seconds: 0,
            max_seconds: (p.max_duration_minutes * 60.0).round() as u64,
            warn_at_seconds: (p.warn_at_minutes * 60.0).round() as u64,
            clock_running: false,
            tokens: 0,
            pending_requests: 0,
            consensus: None,
            push_used: 0,
            push_budget: p.diligence.push_max,
            awaiting_answer_from: None,
            muted: self.early.muted.clone(),
            only: self.early.only.clone(),
        }
    }

    /// Nothing was said, so nothing was saved: the front ends are told the
    /// party is over.
    pub(super) fn end_before_topic(self, reason: Option<ExitReason>) {
        self.emit(Event::Status(self.status_before_topic(Phase::Ended)));
        self.emit(Event::SessionEnded {
            file: None,
            reason,
            completed: false,
            // Nothing was said: nothing to lose.
            saved: true,
            elsewhere: None,
        });
    }
}
