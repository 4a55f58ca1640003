//! Step 02, orchestration: one round. The facilitator's message (or the
//! runtime's push, or [C]) opens it, the picked agents reply — in turn,
//! each seeing the replies before it, or in groups that stream at once
//! (`RoundMode`); a question for the facilitator or a proposal to end stops
//! it early.

use chrono::Utc;

use super::judgement::RoundYield;
use super::party::Party;
use super::reading::Read;
use super::self_check::Checked;
use super::stream::{Reply, StreamMode};
use super::takes::{Places, Takes};
use super::turn::Floor;
use super::{Next, RoundInput};
use crate::engine::cleanup::Counter;
use crate::engine::{Event, NoticeKind, Phase};
use crate::i18n::Say;
use crate::llm::ChatMessage;
use crate::roster::agents::Agent;
use crate::session::TurnKind;
use crate::verdict::SelfCheck;

/// How a round's replies were opened: the message the room answers (a
/// push's text counts), the facilitator's message the host reads, whether
/// no message of theirs opened it, and whether it is the rest of a round
/// asked again (`redo`).
pub(super) struct Opened {
    pub(super) message: Option<String>,
    pub(super) read: Option<String>,
    pub(super) continued: bool,
    pub(super) replay: bool,
}

/// What the round's replies came to.
#[derive(Default)]
struct Tally {
    ok: usize,
    failed: usize,
    interrupted: bool,
    /// The facilitator quit while a reply streamed.
    quit: bool,
    last_cause: String,
    /// The endpoints (None: the default one) whose server was gone for a
    /// speaker's whole retry window: their later speakers this round are
    /// not made to wait it out again; the others speak.
    gone: Vec<Option<String>>,
    /// An agent proposed to end: (agent, raw reply, shown reply).
    proposal: Option<(Agent, String, String)>,
    /// An agent asked the facilitator: (agent, question), asked once the
    /// replies streaming beside it are over.
    question: Option<(Agent, String)>,
    /// What the speakers came to, for the run-dry rule.
    yielded: RoundYield,
    /// The rest of a round asked again: its yield is a part's, not the
    /// room's, so it does not count towards a room run dry.
    replay: bool,
}

impl Tally {
    /// Whether nothing but a question stopped the round: nobody proposed
    /// the end, quit or interrupted. (A server found gone stops only its
    /// own speakers: `reachable`.)
    fn goes_on(&self) -> bool {
        self.proposal.is_none() && !self.quit && !self.interrupted
    }

    /// The speakers whose server has not been found gone, and the others
    /// (reported, not asked).
    fn reachable(&self, speakers: Vec<Agent>) -> (Vec<Agent>, Vec<Agent>) {
        speakers.into_iter().partition(|a| !self.gone.contains(&a.endpoint))
    }
}

/// What a speaker was given again this round.
#[derive(Default, Clone)]
struct Tries {
    /// Built again with a shorter prompt after the server refused it.
    shortened: bool,
    /// Asked once more, with this note, after nothing was its own.
    ask_again: Option<String>,
}

/// A completed reply as the round weighs it: the raw text (an end
/// proposal quotes it), what was shown, and its markers.
struct Said {
    raw: String,
    text: String,
    end_marker: bool,
    question: Option<String>,
}

impl Party {
    /// A round: the facilitator's message (or a push, or [C]) is recorded,
    /// the speakers are picked and each streams a reply in turn; then
    /// check-termination and the room's judgement.
    pub(super) async fn round(&mut self, input: RoundInput) -> Next {
        // Debug builds only: lets the real-terminal test prove that a panic
        // in this background task still restores the terminal.
        #[cfg(debug_assertions)]
        if std::env::var("BMAD_PARTY_FAULT").is_ok_and(|v| v == "panic-in-round") {
            panic!("injected fault: panic in the engine task");
        }
        self.stop_warming();
        let round = self.state().current_round + 1;
        let message = self.open_round(round, &input).await;
        self.settle_window().await;
        let topic = self.session.fm.topic.clone();
        let pushed = matches!(input, RoundInput::Push(_));
        let Some(picked) = self.pick_agents(message.as_deref().unwrap_or(&topic), pushed).await else {
            return Next::Quit;
        };
        // The host reads what the facilitator wrote (not a push, not [C]).
        let opened = Opened {
            read: message.clone().filter(|_| matches!(input, RoundInput::Message(_))),
            message,
            continued: !matches!(input, RoundInput::Message(_)),
            replay: false,
        };
        self.play(round, picked, opened, Vec::new()).await
    }

    /// The picked speakers' replies, in their groups, and the round's
    /// close: a round just opened, or the rest of the last one asked again
    /// (`redo`), `earlier` the replies that stand before them.
    pub(super) async fn play(&mut self, round: u32, picked: Vec<usize>, opened: Opened, earlier: Vec<(String, String)>) -> Next {
        let Opened {
            message,
            read,
            continued,
            replay,
        } = opened;
        self.state_mut().awaiting_answer_from = None;
        // The groups read in turn are the speaking order the round announces.
        let groups = self.room.round_groups(&picked);
        self.emit(Event::RoundStarted {
            round,
            max_rounds: self.state().max_rounds,
            agents: groups.iter().flatten().map(|&i| self.room.agents[i].id.clone()).collect(),
            continued,
        });
        self.set_phase(Phase::Round);
        let mut floor = Floor {
            round,
            message,
            topic: self.session.fm.topic.clone(),
            earlier,
            seed: replay.then(|| self.state().last_take as u64),
        };
        // Named servers found gone in an earlier round stay gone until a
        // later round asks them again (`servers::asked_in`).
        let mut tally = Tally {
            gone: self.room.gone_in(round),
            replay,
            ..Tally::default()
        };
        let mut made = None;
        for group in groups {
            let (speakers, skipped) = tally.reachable(group.iter().map(|&i| self.room.agents[i].clone()).collect());
            // In a room of one server, the round that found it gone ends
            // with the room's own notice (`close_round`): nobody to tell apart.
            let several = !self.room.servers.is_empty();
            for agent in skipped.iter().filter(|_| several) {
                self.report_not_asked(round, agent).await;
            }
            if speakers.is_empty() {
                continue;
            }
            let mut go_on = self.speak_together(&speakers, &mut floor, &mut tally).await;
            if tally.question.is_some() {
                // A question held back stays in its reply's words and the
                // next speakers still answer the facilitator's message.
                go_on = self.weigh_question(round, &mut tally, read.as_deref(), &mut made).await && tally.goes_on();
            }
            if !go_on || self.clock.time_up {
                break;
            }
        }
        self.close_round(round, tally, read, made).await
    }

    /// An agent's question to the facilitator is put to them (false: the
    /// round stops there), unless `reading::holds_question` holds it back
    /// (the host's reading of the message that opened the round, made once
    /// into `made` and acted on when the round closes; or the round
    /// answering the room's question): true, the round goes on.
    async fn weigh_question(&mut self, round: u32, tally: &mut Tally, message: Option<&str>, made: &mut Option<Read>) -> bool {
        let Some((agent, question)) = tally.question.take() else {
            return true;
        };
        let reads = !tally.interrupted && !tally.quit && made.is_none();
        if let Some(message) = message.filter(|m| reads && self.reads_message(m)) {
            match self.read(round, message).await {
                Ok(r) => *made = Some(r),
                Err(_) => tally.quit = true,
            }
        }
        if tally.quit {
            return false;
        }
        let just_answered = self.answers_question(round);
        let asks = message.is_some_and(|m| self.asked(m).may_ask_agreement());
        let reading = made.as_ref().and_then(Read::reading);
        if crate::engine::reading::holds_question(reading, just_answered, round <= 1, asks) {
            tracing::info!(agent = %agent.id, %question, just_answered, "an agent's question held back");
            if let Some(r) = made.as_mut().filter(|r| r.held.is_none()) {
                r.held = Some(crate::text::ellipsize(&question, 200));
            }
            true
        } else {
            self.agent_question(round, &agent, question).await;
            false
        }
    }

    /// What opens the round goes into the transcript; the message the room
    /// answers, if there is one (a push's text counts).
    async fn open_round(&mut self, round: u32, input: &RoundInput) -> Option<String> {
        if let RoundInput::Message(text) = input {
            if self.reset_topic_pending() {
                // The first message that stands since a reset (or since
                // the start, round 1 taken back) is the topic.
                self.session.fm.topic = text.clone();
            }
        }
        let answering = self.state().awaiting_answer_from.is_some();
        self.state_mut().last_activity_at = Utc::now();
        match input {
            RoundInput::Message(text) => {
                self.push_turn_in(round, TurnKind::Facilitator, None, text.clone(), false);
                if answering {
                    // Answering an agent's question answers a question for the human: fresh push budget.
                    self.session.fm.diligence.used = 0;
                }
                self.save().await;
                self.emit(Event::FacilitatorMessage { round, text: text.clone() });
                Some(text.clone())
            }
            RoundInput::Continue => {
                let text = self.render("room_continues", &[("user_name", &self.room.user_name)]);
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
                let d = &mut self.session.fm.diligence;
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
        }
    }

    /// Speakers whose replies stream at once (one, in sequence), each
    /// seeing the floor as the group found it. A reply is recorded as soon
    /// as it is over, in its speaker's place in the picked order, whatever
    /// order they finish in. False when the round stops after this group.
    async fn speak_together(&mut self, speakers: &[Agent], floor: &mut Floor, tally: &mut Tally) -> bool {
        let mut takes = Takes::new(StreamMode::Round);
        let mut tries = vec![Tries::default(); speakers.len()];
        // Each speaker's prompt as last sent: its self-check goes on from it.
        let mut prompts: Vec<Vec<ChatMessage>> = Vec::with_capacity(speakers.len());
        let begun = std::time::Instant::now();
        for (slot, agent) in speakers.iter().enumerate() {
            self.emit(Event::AgentStarted {
                agent: agent.id.clone(),
                round: floor.round,
            });
            let (req, voices) = self.turn_request(agent, floor, None);
            prompts.push(req.messages.clone());
            self.start_take(&mut takes, slot, req, Some(agent), Some(&voices));
        }
        let mut places = Places::new(self.session.turns.len(), speakers.len());
        let mut said: Vec<Option<String>> = vec![None; speakers.len()];
        let mut go_on = true;
        while let Some((slot, reply)) = self.next_reply(&mut takes).await {
            let agent = &speakers[slot];
            let stopped = tally.interrupted || tally.quit;
            match reply {
                // The budget is lowered now: the prompt built again is shorter.
                Reply::TooLong(_) if !tries[slot].shortened && !stopped => {
                    tries[slot].shortened = true;
                    let (req, voices) = self.turn_request(agent, floor, tries[slot].ask_again.as_deref());
                    prompts[slot] = req.messages.clone();
                    self.restart_take(&mut takes, slot, req, agent, &voices, begun);
                }
                Reply::Emptied(cause) if tries[slot].ask_again.is_none() && !stopped => {
                    let cause = cause.say(self.room.lang);
                    // Another sample of the same prompt (a server's prompt
                    // cache makes it cheap) usually has words of its own.
                    tracing::info!(agent = %agent.id, %cause, "nothing of the reply was the agent's own: asked once more");
                    self.count(Counter::AskedAgain);
                    self.emit(Event::AgentRetrying {
                        agent: agent.id.clone(),
                        attempt: 1,
                        delay_ms: 0,
                        cause,
                    });
                    let note = self.env().ask_again_note(agent);
                    let (req, voices) = self.turn_request(agent, floor, Some(&note));
                    prompts[slot] = req.messages.clone();
                    tries[slot].ask_again = Some(note);
                    self.restart_take(&mut takes, slot, req, agent, &voices, begun);
                }
                reply => {
                    let before = self.session.turns.len();
                    self.insert_at = Some(places.of(slot));
                    let (keep, text) = self.record_reply(floor.round, agent, reply, &prompts[slot], tally).await;
                    self.insert_at = None;
                    places.add(slot, self.session.turns.len() - before);
                    said[slot] = text;
                    go_on &= keep;
                }
            }
        }
        for (agent, text) in speakers.iter().zip(said) {
            if let Some(text) = text {
                floor.earlier.push((agent.name.clone(), text));
            }
        }
        go_on
    }

    /// Records a reply (or a pass, a failure, an interruption): whether the
    /// round goes on after it, and the text the next speakers see. `prompt`
    /// is the one the reply answered: the speaker's self-check goes on from it.
    async fn record_reply(
        &mut self,
        round: u32,
        agent: &Agent,
        reply: Reply,
        prompt: &[ChatMessage],
        tally: &mut Tally,
    ) -> (bool, Option<String>) {
        tally.quit |= matches!(reply, Reply::Quit { .. });
        tally.yielded.speakers += 1;
        let gone = matches!(reply, Reply::Unreachable(_));
        // Any answer but silence for the whole retry window: the server is there.
        if !matches!(reply, Reply::Interrupted { .. } | Reply::Quit { .. }) {
            self.room.heard_from(agent.endpoint.as_deref(), round, gone);
        }
        match reply {
            Reply::Completed {
                raw,
                shown,
                end_marker,
                question,
                latency,
                echoed,
                raise,
                ..
            } => {
                if raise {
                    self.raise_cleanup(agent.endpoint.as_deref(), &agent.name).await;
                }
                tally.ok += 1;
                tally.yielded.echoed += usize::from(echoed);
                let text = shown.trim().to_string();
                self.record_agent_message(round, agent, text.clone(), Some(latency)).await;
                let said = Said {
                    raw,
                    text,
                    end_marker,
                    question,
                };
                return self.weigh_reply(round, agent, said, prompt, tally).await;
            }
            Reply::Emptied(cause) => {
                let cause = cause.say(self.room.lang);
                tally.yielded.passed += 1;
                self.record_pass(round, agent, &cause).await;
            }
            // A prompt still too long after the budget was lowered fails
            // like any turn; a server gone for the whole retry window
            // would not answer the next speaker on it either: they are
            // left out of the round (`Tally::reachable`).
            Reply::Failed(cause) | Reply::TooLong(cause) | Reply::Unreachable(cause) => {
                let cause = cause.say(self.room.lang);
                tally.failed += 1;
                tally.last_cause = cause.clone();
                self.record_failure(round, agent, cause).await;
                if gone && !tally.gone.contains(&agent.endpoint) {
                    tally.gone.push(agent.endpoint.clone());
                }
            }
            Reply::Interrupted { shown } | Reply::Quit { shown } => {
                tally.interrupted = true;
                let text = shown.trim().to_string();
                if !text.is_empty() {
                    self.record_agent_message(round, agent, text, None).await;
                    tally.ok += 1;
                }
                return (false, None);
            }
        }
        (true, None)
    }

    /// A reply that completed, recorded: whether the round goes on (false:
    /// its question or proposal stops it, or the facilitator quit), and its
    /// text. The first to ask the facilitator, or to propose the end, stops
    /// the round (a reply streaming beside it still finishes); a later
    /// question stays in its reply's words.
    async fn weigh_reply(
        &mut self,
        round: u32,
        agent: &Agent,
        said: Said,
        prompt: &[ChatMessage],
        tally: &mut Tally,
    ) -> (bool, Option<String>) {
        let Said {
            raw,
            text,
            end_marker,
            question,
        } = said;
        let first = tally.question.is_none() && tally.proposal.is_none();
        let question = question.filter(|q| self.asks_the_facilitator(round, agent, q));
        let detecting = self.room.cfg.party.end_detection.enable_detection;
        let mut proposes = end_marker && detecting;
        // The markers spoke for the speaker: nothing to ask it.
        let check = if first && question.is_none() && !proposes && self.room.cfg.party.self_check {
            match self.self_check(agent, round, prompt, &text).await {
                Checked::Quit => {
                    tally.quit = true;
                    return (false, Some(text));
                }
                Checked::Verdict(v) => v,
                Checked::Nothing => None,
            }
        } else {
            None
        };
        let question = question.or_else(|| self.checked_question(round, agent, check.as_ref()));
        proposes |= check.as_ref().is_some_and(SelfCheck::proposes_end) && detecting;
        if let Some(q) = question.filter(|_| first) {
            tally.question = Some((agent.clone(), q));
            return (false, Some(text));
        }
        if proposes && first && self.proposal_stands(round, agent) {
            tally.proposal = Some((agent.clone(), raw, text.clone()));
            return (false, Some(text));
        }
        (true, Some(text))
    }

    /// Whether an agent's proposal to end stands: not held back by the
    /// quiet rounds after a declined one, nor in the round that works with
    /// the facilitator's answer (`proposals::held`).
    fn proposal_stands(&self, round: u32, agent: &Agent) -> bool {
        let quiet_until = self.judgement.end_quiet_until;
        match crate::engine::proposals::held(round, quiet_until, self.answers_question(round)) {
            Some(why) => {
                tracing::info!(agent = %agent.id, round, ?why, "a proposal to end held back");
                false
            }
            None => true,
        }
    }

    /// After the speakers: what the round came to decides what comes next —
    /// nobody reachable, a proposal to end, check-termination, judgement.
    async fn close_round(&mut self, round: u32, tally: Tally, read: Option<String>, made: Option<Read>) -> Next {
        if tally.interrupted && self.state().current_round < round {
            // Stopped before anyone spoke: the round still counts.
            self.count_round(round);
            self.save().await;
        }
        self.idle.room_acted();
        self.follow_model();
        self.emit(Event::RoundFinished {
            round,
            menu: self.render("round_menu", &[]),
        });
        self.set_phase(Phase::Waiting);
        if tally.ok > 0 {
            self.remember_floor(round);
        }
        if tally.quit {
            return Next::Quit;
        }
        if tally.ok == 0 && tally.failed > 0 && !tally.interrupted {
            let file = self.store.path.display().to_string();
            let text = self.render("unreachable", &[("cause", &tally.last_cause), ("file", &file)]);
            self.notice(NoticeKind::Error, text).await;
            return Next::Suspend;
        }
        if let Some((agent, raw, clean_text)) = tally.proposal {
            if let Next::Exit(reason) = self.end_proposal(&agent, raw, clean_text).await {
                return Next::Exit(reason);
            }
        }
        self.idle.room_acted();
        let next = self.check_termination().await;
        if !matches!(next, Next::Wait) {
            return next;
        }
        // What the facilitator asked for comes before what the room's yield
        // suggests: an invited close, or an agreement question everyone
        // passed on, is proposed, not redirected as a room that has run dry.
        // A round everyone passed answered too: nothing more to add.
        let answered = tally.ok > 0 || tally.yielded.passed > 0;
        let reads = !tally.interrupted && answered;
        if let Some(message) = read.as_deref().filter(|m| reads && self.reads_message(m)) {
            if let Some(next) = self.read_message(round, message, made, tally.yielded.passed).await {
                self.idle.room_acted();
                return next;
            }
        }
        if !tally.interrupted && !tally.replay {
            if let Some(next) = self.judge_yield(round, tally.yielded).await {
                return next;
            }
        }
        if tally.ok == 0 {
            return next;
        }
        let next = self.judge_round(round, read.as_deref()).await;
        // Judging may have called the model (embeddings, the moderator).
        self.idle.room_acted();
        if matches!(next, Next::Wait) && self.clock.time_up {
            // The limit fired while the host spoke.
            return self.check_termination().await;
        }
        next
    }
}
