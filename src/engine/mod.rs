//! The party engine: one tokio task running the step machine
//! (check-termination → orchestrate → … → graceful exit). Front ends talk to
//! it only through [`Command`]s in and [`Event`]s out; it knows nothing of
//! terminals, and the same serde types are the headless JSON protocol.

pub mod budget;
pub(crate) mod cast;
pub(crate) mod cleanup;
pub mod documents;
pub(crate) mod hands;
mod machine;
pub(crate) mod memory;
pub(crate) mod pins;
pub(crate) mod prompts;
pub(crate) mod proposals;
pub mod protocol;
pub(crate) mod reading;
pub(crate) mod redo;
pub(crate) mod reply;
pub mod selection;
pub(crate) mod self_check;
mod setup;
pub(crate) mod similarity;
pub(crate) mod stated;
pub(crate) mod takeaways;

pub use cast::{review::Field as CastField, review::Review as CastReview, DraftView, Persona, PersonaView};
pub use setup::{CastsTo, Memory, Resume, Saves, Setup, Standing, TakeawaysTo};

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::i18n::Lang;
use crate::roster::agents::Agent;
use crate::session::{ConfirmKind, ConfirmStatus, Latency};

/// What a front end asks of the engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// A facilitator message. The first one is the topic. While a
    /// confirmation is pending, an empty text confirms it and any other
    /// text declines it and continues the party with that text.
    Message { text: String },
    /// The answer to a confirmation request. For limits, `confirmed` ends
    /// the party; `false` continues for `extend` more rounds/minutes.
    Answer {
        request_id: String,
        confirmed: bool,
        #[serde(default)]
        reason: Option<String>,
        #[serde(default)]
        extend: Option<u32>,
    },
    /// End the party now, gracefully ([E]).
    Exit,
    /// Let the room go on for one round without a new message ([C]).
    Continue,
    /// Stop the replies streaming now; the party goes on (Ctrl+C).
    Abort,
    /// Stop at once with the state saved; the session stays resumable.
    Quit,
    /// The facilitator is gone (end of input): end gracefully.
    Left,
    /// The facilitator is typing: postpones an automatic push and the idle timeout.
    Typing,
    /// Before the topic, what the facilitator has typed so far: the room
    /// reads ahead the prompts of the agents it points to. Never saved.
    Draft { text: String },
    /// The answer to a turn-reset request (`TurnConfirmationResponse`, the
    /// protocol's own name for it).
    TurnConfirmationResponse(TurnConfirmationResponse),
    /// A step of the review of the cast drafted by `/cast` (`cast_draft`):
    /// keep it (saved, and the room switches to it), quit, or change it.
    /// While a review is open, a typed message is read as a review line
    /// (`keep`, `drop 2`, `edit 1 role …`).
    Cast { request_id: String, review: CastReview },
}

/// The runtime asks before it resets the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnConfirmationRequest {
    pub request_id: String,
    pub message: String,
    pub description: Option<String>,
}

/// The facilitator's answer to a [`TurnConfirmationRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnConfirmationResponse {
    pub request_id: String,
    pub confirmed: bool,
    #[serde(default)]
    pub reason: Option<String>,
}

/// A turn of an earlier sitting, as the front ends show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EarlierTurn {
    pub kind: crate::session::TurnKind,
    /// The agent's id, for an agent's turns.
    pub agent: Option<String>,
    pub round: u32,
    /// As shown: `🏗️ Ingrid`, the facilitator's name, empty for notices.
    pub label: String,
    pub text: String,
    pub interrupted: bool,
}

impl From<&crate::session::Turn> for EarlierTurn {
    fn from(t: &crate::session::Turn) -> Self {
        EarlierTurn {
            kind: t.kind,
            agent: t.agent.clone(),
            round: t.round,
            label: t.label.clone(),
            text: t.text.clone(),
            interrupted: t.interrupted,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentInfo {
    pub id: String,
    pub name: String,
    pub title: String,
    pub icon: String,
    pub color: Option<String>,
    /// The model it speaks with, compact (`config::voice_labels`): only in a
    /// room of more than one endpoint or model, where it tells voices apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The room's host (the moderator): in the room, never a speaker.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub moderator: bool,
}

impl From<&Agent> for AgentInfo {
    fn from(a: &Agent) -> Self {
        AgentInfo {
            id: a.id.clone(),
            name: a.name.clone(),
            title: a.title.clone(),
            icon: a.icon.clone(),
            color: a.color.clone(),
            model: None,
            moderator: a.moderator,
        }
    }
}

/// One endpoint's reply cleanup as it stands (`Event::CleanupLevels`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EndpointCleanup {
    /// The named endpoint (None: the default one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    pub level: cleanup::Level,
    /// Why, in the party's language.
    pub why: String,
}

/// An agent's model label as it stands now (`Event::AgentModels`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentModel {
    pub id: String,
    /// As `AgentInfo::model`: absent where nothing tells voices apart, or
    /// while its endpoint's model is still to come from its server's list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKind {
    Info,
    Warning,
    Limit,
    Exit,
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputKind {
    /// A facilitator message (or Exit/Continue).
    Message,
    /// An answer to the pending confirmation request.
    Answer,
    /// A step of the open cast review (`Command::Cast`, or a typed review
    /// line).
    Review,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Before the topic.
    Welcome,
    Waiting,
    Round,
    Confirming,
    Exiting,
    Ended,
}

/// Why the party ended; also the `exit_reason` in the session file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitReason {
    UserRequested,
    RoundLimit,
    TimeLimit,
    AgentProposed,
    FacilitatorLeft,
    Unreachable,
    Consensus,
    Silence,
}

impl ExitReason {
    pub(crate) fn code(self) -> &'static str {
        match self {
            ExitReason::UserRequested => "user_requested",
            ExitReason::RoundLimit => "round_limit",
            ExitReason::TimeLimit => "time_limit",
            ExitReason::AgentProposed => "agent_proposed",
            ExitReason::FacilitatorLeft => "facilitator_left",
            ExitReason::Unreachable => "unreachable",
            ExitReason::Consensus => "consensus",
            ExitReason::Silence => "silence",
        }
    }
}

/// Where the session stands, sent on every change so a status bar can be
/// drawn from the latest one alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    pub phase: Phase,
    pub round: u32,
    pub max_rounds: u32,
    pub warn_at_rounds: u32,
    /// Active seconds at the moment this status was sent; the clock runs
    /// while `clock_running`.
    pub active_seconds: u64,
    pub max_seconds: u64,
    pub warn_at_seconds: u64,
    pub clock_running: bool,
    pub tokens: u64,
    pub pending_requests: usize,
    /// Agreement among the last round's replies (0–1), once there is one.
    pub consensus: Option<f64>,
    pub push_used: u32,
    pub push_budget: u32,
    /// An agent asked the facilitator a question and waits for the answer.
    pub awaiting_answer_from: Option<String>,
    /// Agents muted (`/mute`), by id.
    #[serde(default)]
    pub muted: Vec<String>,
    /// The agents the next round goes to alone (`/only`), by id.
    #[serde(default)]
    pub only: Vec<String>,
}

/// What the engine tells front ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    SessionStarted {
        provider: String,
        model: String,
        rehearsal: bool,
        base_url: Option<String>,
        agents: Vec<AgentInfo>,
        lang: Lang,
        user_name: String,
        resumed: bool,
        file: Option<String>,
        topic: Option<String>,
        /// The named party's name (None: the default room).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        party: Option<String>,
        /// The agents the program knows that are out of the room: who
        /// `/invite` can bring in.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        out: Vec<AgentInfo>,
    },
    /// Someone came into the room or left it (`/invite`, `/dismiss`,
    /// `/party`): `agents` is the room now, in its order, and `out` who of
    /// the roster is out of it. An agent who left keeps their earlier turns.
    RoomChanged {
        agents: Vec<AgentInfo>,
        out: Vec<AgentInfo>,
        /// The named party the room is now (None: the default room).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        party: Option<String>,
    },
    /// No model was named, and the endpoint's list gave this one: the
    /// header shows it from now on (a notice says so).
    ModelChosen {
        model: String,
    },
    /// The agents' model labels changed since `session_started` (or the
    /// last of these) told them: a named endpoint's model learnt from its
    /// server's list, the default's chosen. Every agent, in the room's
    /// order; the front ends show these from now on.
    AgentModels {
        agents: Vec<AgentModel>,
    },
    /// The reply cleanup of each endpoint, the default one first: told
    /// when the party opens and whenever a level is raised.
    CleanupLevels {
        levels: Vec<EndpointCleanup>,
    },
    Welcome {
        text: String,
    },
    /// A resumed session's turns before this sitting, oldest first: where
    /// the facilitator left off.
    Earlier {
        turns: Vec<EarlierTurn>,
    },
    /// The session file exists from now on.
    SessionFile {
        path: String,
    },
    FacilitatorMessage {
        round: u32,
        text: String,
    },
    RoundStarted {
        round: u32,
        max_rounds: u32,
        agents: Vec<String>,
        continued: bool,
    },
    AgentStarted {
        agent: String,
        round: u32,
    },
    /// The model's first token of an agent's reply arrived, `ms` after the
    /// request (it may still be held back by hygiene for a few words).
    AgentFirstToken {
        agent: String,
        ms: u64,
    },
    AgentToken {
        agent: String,
        text: String,
    },
    /// The takeaways were written (after the highlights).
    Takeaways {
        path: String,
    },
    AgentRetrying {
        agent: String,
        attempt: u32,
        delay_ms: u64,
        cause: String,
    },
    /// The model's server cannot be reached; it is tried again until
    /// `window_ms` has passed. `agent` is empty for calls of no agent's
    /// (the choice of speakers, the moderator, highlights).
    ServerWaiting {
        agent: String,
        waited_ms: u64,
        window_ms: u64,
        cause: String,
    },
    AgentMessage {
        agent: String,
        name: String,
        icon: String,
        round: u32,
        text: String,
        interrupted: bool,
        /// How long the model took (absent for an interrupted reply).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        latency: Option<Latency>,
    },
    AgentFailed {
        agent: String,
        round: u32,
        cause: String,
    },
    /// Asked twice, the agent had nothing of its own to say (its replies
    /// only repeated earlier turns or spoke for others): it passes this
    /// round. `text` is the transcript's line for it.
    AgentPassed {
        agent: String,
        round: u32,
        text: String,
    },
    RoundFinished {
        round: u32,
        menu: String,
    },
    Notice {
        kind: NoticeKind,
        text: String,
    },
    EndProposal {
        request_id: String,
        agent: String,
        response_text: String,
        response_clean: String,
    },
    ConfirmationRequest {
        request_id: String,
        kind: ConfirmKind,
        text: String,
        extend: Option<u32>,
    },
    ConfirmationResolved {
        request_id: String,
        kind: ConfirmKind,
        status: ConfirmStatus,
        reason: Option<String>,
    },
    Termination {
        reason: ExitReason,
        text: String,
    },
    Farewell {
        agent: String,
        name: String,
        icon: String,
        text: String,
    },
    /// An agent asked the facilitator directly; the round ended.
    AgentQuestion {
        agent: String,
        name: String,
        question: String,
    },
    TurnConfirmationRequest(TurnConfirmationRequest),
    /// The runtime nudged the room on its own (`used` of `budget`).
    DiligencePush {
        text: String,
        used: u32,
        budget: u32,
    },
    /// A speaker's judgement after its reply (`self_check`); `verdict` None:
    /// it could not be read, so it judged nothing (`error` says why).
    SelfCheck {
        round: u32,
        agent: String,
        verdict: Option<crate::verdict::SelfCheck>,
        error: Option<String>,
        ms: u64,
    },
    /// The host read the facilitator's message that opened `round`
    /// (`read_messages`): what it asks of the room (None: unreadable or the
    /// call failed) and what the host did about it; when it asked whether
    /// the room agrees, how it heard each reply whose words said neither
    /// (yes, no, None: unreadable or failed).
    Reading {
        round: u32,
        reading: Option<crate::verdict::Reading>,
        act: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        heard: Vec<Option<bool>>,
        ms: u64,
    },
    /// The room repeats itself (`dry`: it has run dry, a round of passes or
    /// of mostly passes and echoes): a summary and redirect follow the first
    /// time, a proposal to end after that.
    RoomRepeats {
        round: u32,
        dry: bool,
    },
    /// Agreement among the agents after a round, and how it was measured.
    ConsensusScore {
        round: u32,
        score: Option<f64>,
        method: String,
    },
    Highlights {
        text: String,
    },
    Closing {
        text: String,
    },
    Status(Status),
    AwaitingInput {
        kind: InputKind,
    },
    /// A cast drafted by `/cast`, to review (again after each change):
    /// `note` says what the last step did or why it could not.
    CastDraft {
        request_id: String,
        draft: DraftView,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// The review is over: `party` is the saved party's id (the room
    /// switches to it), None when nothing was saved.
    CastClosed {
        request_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        party: Option<String>,
    },
    /// A command that could not be carried out (e.g. an unknown request id).
    Rejected {
        message: String,
    },
    SaveFailed {
        path: String,
        error: String,
    },
    /// The party is over. `completed`: the graceful exit ran to its end
    /// and was saved; `saved`: the file on disk holds the whole session
    /// (false: the last save failed, so the end is not on disk).
    SessionEnded {
        file: Option<String>,
        reason: Option<ExitReason>,
        completed: bool,
        saved: bool,
        /// Where the whole session is instead, when `file` could not be
        /// written to the end (the user's state folder, else the temp one).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        elsewhere: Option<String>,
    },
}

pub struct EngineHandle {
    pub commands: mpsc::UnboundedSender<Command>,
    pub events: mpsc::UnboundedReceiver<Event>,
    pub task: tokio::task::JoinHandle<()>,
}

/// Starts the engine task.
pub fn spawn(setup: Setup) -> EngineHandle {
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    let (ev_tx, ev_rx) = mpsc::unbounded_channel();
    let task = tokio::spawn(machine::Engine::new(setup, cmd_rx, ev_tx).run());
    EngineHandle {
        commands: cmd_tx,
        events: ev_rx,
        task,
    }
}
