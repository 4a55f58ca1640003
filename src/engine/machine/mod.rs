//! The step machine. One task owns the session: it waits for the
//! facilitator, runs rounds (streaming each agent's reply while still
//! listening for commands and timers), checks termination after every round
//! and whenever the active-time timer fires, and ends with the graceful
//! exit. Every state change is saved before it is announced, so an event a
//! front end has seen is always on disk.
//!
//! Before the topic there is no session: the `lobby` waits for it. From the
//! topic on, a `Party` owns the session, and each of its steps returns what
//! comes next (`Next`), so `Party::run` reads as the workflow:
//!
//! - `termination`: step 00, check-termination (limits, warnings);
//! - `round`, `pick`, `stream`, `takes`: step 02, orchestration (a round,
//!   who speaks, one streamed reply, several side by side);
//! - `graceful_exit`: step 03;
//! - beside them: `confirm` (questions for the facilitator), `diligence`
//!   (the push text and budget, the idle timeout), `judgement` (consensus,
//!   a room going in circles), `question` (an agent asks the facilitator),
//!   `reset` (the turn reset), `hands` and `members` (the facilitator's
//!   room commands), `clock` (active time), `save`, `remember`
//!   (the party's memory), and the prompt side: `context` (the context
//!   budget), `briefing` (the scene, the memory brief and the documents
//!   beside the room's rules), `voices` (who a reply must not speak as)
//!   and `warm` (agents' prompts read ahead while the room waits).

mod briefing;
mod cast;
mod clock;
mod confirm;
mod context;
mod diligence;
mod endpoint;
mod graceful_exit;
mod hands;
mod judgement;
mod levels;
mod lobby;
mod members;
mod party;
mod pick;
mod pins;
mod question;
mod reading;
mod redo;
mod remember;
mod reset;
mod round;
mod round_mode;
mod save;
mod self_check;
mod servers;
mod stream;
mod takeaways;
mod takes;
mod termination;
mod turn;
mod voices;
mod warm;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use super::budget::Budget;
use super::prompts::PromptEnv;
use super::protocol::markers::{Marker, RoomMarkers};
use super::selection;
use super::{Command, Event, ExitReason, Resume, Saves, Setup};
use crate::config::Config;
use crate::i18n::{Lang, Say};
use crate::llm::Provider;
use crate::roster::agents::Agent;
use crate::workflow::Workflow;
use lobby::Opening;
use party::Party;

/// What the party does next: each step returns it.
#[derive(Debug)]
enum Next {
    /// Tell the front ends which input is awaited, then wait for it.
    Wait,
    /// Wait again without telling them anything new (a timer changed nothing
    /// they were told).
    Listen,
    /// A command to carry out.
    Command(Command),
    /// Play a round.
    Round(RoundInput),
    /// The graceful exit (step 03).
    Exit(ExitReason),
    /// Stop at once, state saved, session resumable.
    Quit,
    /// Nobody could reach the model: stop, the session kept open to be
    /// resumed once the server is back.
    Suspend,
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

/// What a party is made of and does not change with the session: the
/// configuration, the agents (who is in the room changes only by the
/// facilitator's hand: `members`), the model, the channels to the front
/// ends.
struct Room {
    cfg: Config,
    workflow: Workflow,
    /// Who is in the room now, in its order (`members`).
    agents: Vec<Agent>,
    /// Every agent the program knows, the room's among them: who
    /// `/invite` can bring in.
    pool: Vec<Agent>,
    provider: Arc<dyn Provider>,
    /// The named endpoints' servers (`servers`).
    servers: Vec<servers::Server>,
    /// The default endpoint's reply cleanup (`levels`).
    cleanup: levels::Chosen,
    lang: Lang,
    speech_language: String,
    user_name: String,
    document_language: Option<String>,
    sessions_dir: PathBuf,
    saves: Saves,
    rx: UnboundedReceiver<Command>,
    tx: UnboundedSender<Event>,
    /// Commands that arrived while a round was running.
    queue: VecDeque<Command>,
    startup_notices: Vec<String>,
    profiles: selection::Profiles,
    push_text: diligence::PushText,
    /// The context budget every prompt is fitted to.
    budget: Budget,
    /// The model the front ends were told of (`endpoint`).
    told_model: String,
    /// The agents' model labels the front ends were told of, in the
    /// agents' order (`endpoint::follow_labels`).
    told_labels: Vec<Option<String>>,
    /// The endpoint's answer about itself and its models, while it is
    /// awaited (`endpoint`).
    endpoint_check: Option<tokio::task::JoinHandle<Option<crate::llm::EndpointCheck>>>,
    /// The server's answer about its window, while it is awaited.
    window_probe: Option<tokio::task::JoinHandle<Option<u32>>>,
    takeaways: crate::engine::TakeawaysTo,
    /// Who streams at once in a round (`round_mode::round_mode`).
    round_mode: crate::config::RoundMode,
    /// The named party the room is (None: the default room).
    party: Option<crate::roster::parties::NamedParty>,
    /// What the room remembers, and where it writes (`remember`).
    memory: Option<super::Memory>,
    /// Documents in front of the room (`briefing`).
    documents: Vec<super::documents::Document>,
    /// Mutes and an `/only` typed before the topic, for the session it opens.
    early: hands::Hands,
    /// The named parties `/party NAME` can switch to (`members`), a cast
    /// kept by `/cast` among them.
    parties: Vec<super::Standing>,
    /// Where `/cast` saves a kept cast (`cast`).
    casts: Option<super::CastsTo>,
    /// How many casts `/cast` drafted in this sitting: their request ids.
    casts_drafted: u32,
}

impl Room {
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

    /// The end and ask markers, the ask marker known by the facilitator's
    /// name after its marks too (`!@Sam:`): the marker filter and hygiene
    /// both know the markers so, from this one place.
    fn markers(&self) -> RoomMarkers {
        RoomMarkers {
            end: Marker::new(&self.cfg.party.end_detection.end_marker),
            ask: Marker::new(&self.cfg.party.ask_marker).or_after_marks(&format!("@{}", self.user_name)),
        }
    }

    /// [C] with nothing to continue: before the topic, or while a question
    /// waits for its answer.
    fn reject_continue(&self) {
        self.emit(Event::Rejected {
            message: crate::i18n::Room::NothingToContinue.say(self.lang),
        });
    }

    /// An answer to a request that is not (or no longer) open.
    fn reject_answer(&self, request_id: &str) {
        self.emit(Event::Rejected {
            message: crate::i18n::Room::NoOpenRequest { request_id }.say(self.lang),
        });
    }

    fn is_exit_trigger(&self, text: &str) -> bool {
        let t = text.trim();
        t.eq_ignore_ascii_case("/exit") || self.cfg.party.exit_triggers.iter().any(|x| x.to_lowercase() == t.to_lowercase())
    }
}

pub(crate) struct Engine {
    room: Room,
    resume: Option<Resume>,
}

impl Engine {
    pub(crate) fn new(setup: Setup, rx: UnboundedReceiver<Command>, tx: UnboundedSender<Event>) -> Engine {
        let push_text = diligence::resolve(&setup.workflow, setup.lang).unwrap_or_else(|e| {
            tracing::error!("diligence push text: {e}");
            diligence::PushText::Disabled { source: e.file }
        });
        let window = setup
            .config
            .llm
            .context_tokens
            .unwrap_or_else(|| super::budget::default_window(setup.provider.info().base_url.as_deref()));
        let info = setup.provider.info();
        let cleanup = levels::at_start(setup.config.llm.cleanup, setup.provider.as_ref());
        let mut room = Room {
            cleanup,
            round_mode: crate::config::RoundMode::Sequential,
            servers: servers::servers(setup.endpoints, &setup.config.llm),
            budget: Budget::new(window, setup.config.llm.reply_max_tokens),
            profiles: selection::Profiles::new(&setup.agents),
            push_text,
            window_probe: None,
            endpoint_check: None,
            told_model: String::new(),
            told_labels: Vec::new(),
            sessions_dir: setup.output.join("party-mode"),
            cfg: setup.config,
            workflow: setup.workflow,
            agents: setup.agents,
            pool: setup.pool,
            provider: setup.provider,
            lang: setup.lang,
            speech_language: setup.speech_language,
            user_name: setup.user_name,
            document_language: setup.document_language,
            saves: setup.saves,
            rx,
            tx,
            queue: VecDeque::new(),
            startup_notices: setup.notices,
            takeaways: setup.takeaways,
            party: setup.party,
            memory: setup.memory,
            documents: setup.documents,
            early: hands::Hands::default(),
            parties: setup.parties,
            casts: setup.casts,
            casts_drafted: 0,
        };
        if let Some(r) = &setup.resume {
            room.as_left(&r.session.fm.conversation_state);
        }
        room.round_mode = room.decide_round_mode(info.rehearsal);
        tracing::info!(round_mode = ?room.round_mode, "round mode");
        Engine {
            room,
            resume: setup.resume,
        }
    }

    /// The whole party: the lobby until the topic (or a resumed session),
    /// then the party's steps until it ends.
    pub(crate) async fn run(self) {
        let Engine { mut room, resume } = self;
        room.check_endpoint();
        // With no model named, the header names the one the endpoint lists:
        // its answer is waited for (a few seconds at most) before the room
        // is announced. Otherwise it is told while the topic is typed.
        let answered = match room.provider.info().model_settled {
            true => None,
            false => room.endpoint_answer().await,
        };
        room.probe_window();
        room.announce(resume.as_ref());
        if let Some(check) = answered {
            room.tell_endpoint(&check);
        }
        let (party, next) = match resume {
            Some(resume) => {
                room.settle_endpoint().await;
                Party::resume(room, resume).await
            }
            None => match room.wait_for_topic().await {
                Opening::Topic(topic) => {
                    room.settle_endpoint().await;
                    Party::open(room, topic)
                }
                Opening::Ended(reason) => return room.end_before_topic(reason),
            },
        };
        party.run(next).await;
    }
}

fn minutes_text(m: f64) -> String {
    // Whole minutes print as such; short test limits keep two decimals.
    let s = format!("{m:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
