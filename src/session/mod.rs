//! The session: state (the YAML frontmatter) and transcript (the Markdown
//! body) of one party, and the file that holds both.

pub(crate) mod fallback;
pub(crate) mod figures;
pub(crate) mod list;
mod lock;
mod marker;
mod store;

pub use lock::lock_path;
pub use lock::LockError;
pub use lock::SessionLock;
pub use store::{load, parse, SessionFileError};
pub use store::{write_atomic as store_write, Folder, SessionStore};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::i18n::Lang;

/// The frontmatter: BMAD's party-mode session fields plus what a faithful resume needs
/// (effective limits, warnings already given, provider, language, tokens).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frontmatter {
    #[serde(rename = "workflowType")]
    pub workflow_type: String,
    pub topic: String,
    pub user_name: String,
    pub date: String,
    pub agents: Vec<String>,
    /// Who the agents were when the party ran (name, title, icon, colour),
    /// so an export shows them without the agent files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cast: Vec<CastMember>,
    #[serde(rename = "stepsCompleted")]
    pub steps_completed: Vec<StepId>,
    pub agents_loaded: bool,
    pub party_active: bool,
    pub workflow_completed: bool,
    pub conversation_state: ConversationState,
    #[serde(default)]
    pub diligence: DiligenceState,
    #[serde(default)]
    pub confirmations: Vec<ConfirmationRecord>,
    #[serde(default)]
    pub lang: Lang,
    #[serde(default)]
    pub provider: ProviderRecord,
    /// The named party the session is held by (its id); none: the default room.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub party: Option<String>,
    /// Documents in front of the room (`--context`, `/context`), by path:
    /// read again when the session is resumed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<String>,
    /// What reply hygiene removed from the agents' replies, by kind
    /// (`speaks_as_other`, `echo`, `capped`…): counted, never shown.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub hygiene: std::collections::BTreeMap<String, u64>,
    /// The reply cleanup each endpoint's replies got (`default`, and each
    /// named one): its level and why (`engine::cleanup::level`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub cleanup: std::collections::BTreeMap<String, CleanupRecord>,
    /// Each speaker's judgement after its reply (`self_check`): what came
    /// back and what it was read as.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub self_checks: Vec<SelfCheckRecord>,
    /// Turns of a last round the facilitator set aside (`/redo`, `/undo`,
    /// `/edit`, `/take`), oldest first: kept, so a take can be brought back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<SetAside>,
    /// Replies the facilitator pinned as decisions (`/pin`), in order: first
    /// in the highlights, the takeaways and the party's memory.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pinned: Vec<Pin>,
    /// The host's readings of the facilitator's messages (`read_messages`):
    /// what came back, what it was read as, what the host did. Written
    /// last, by the session store, entry by entry: a long party has one a
    /// round, and each save renders only the new ones (`SessionStore::render`).
    #[serde(default, skip_serializing)]
    pub readings: Vec<ReadingRecord>,
}

/// An endpoint's reply cleanup: `level` (`full`, `light`, `off`), `by`
/// what it was chosen (`configured`, `server_size`, `name_size`, `local`,
/// `hosted`, `rehearsal`, `raised`), the model's size where that chose it,
/// and the round a light level was raised to full in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CleanupRecord {
    pub level: String,
    pub by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billions: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raised_in_round: Option<u32>,
}

/// One reading of a facilitator's message, after the round it opened: the
/// answer as the model wrote it (shortened), or `words: "…"` when the
/// facilitator's own words invited (`engine::reading::invited`, no call);
/// what it was read as (None: unreadable or failed, so nothing followed),
/// what the host did (`propose_end`, `check_agreement`, `ask_facts`,
/// `ask_invited`, `nothing`), and how long the call(s) took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadingRecord {
    pub round: u32,
    pub answer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<crate::verdict::Reading>,
    pub act: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// An agent's question to the facilitator in the round, held back
    /// because the message invited the close or asked for agreement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_question: Option<String>,
    /// The question the host wrote for the facilitator, asked (`ask_facts`,
    /// `ask_invited`) or not (the act says why: `reading::Unfit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// Replies whose own words said neither yes nor no when agreement was
    /// asked for, as the host heard them (`hear_answer`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub heard: Vec<HeardRecord>,
    pub ms: u64,
}

/// One reply the host heard: its speaker, the answer as the model wrote it
/// (shortened), and what it was read as (None: unreadable or failed, so
/// the reply stays as its words left it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeardRecord {
    pub agent: String,
    pub answer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yes: Option<bool>,
}

/// One self-check: the speaker, its round, the answer as the model wrote
/// it (shortened), what it was read as (None: unreadable, so it judged
/// nothing), and how long it took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelfCheckRecord {
    pub round: u32,
    pub agent: String,
    pub answer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::verdict::SelfCheck>,
    /// Why it judged nothing: the call failed, or the answer was unreadable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub ms: u64,
}

/// An agent as the session saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CastMember {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub icon: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
}

impl CastMember {
    pub(crate) fn of(a: &crate::roster::Agent) -> CastMember {
        CastMember {
            id: a.id.clone(),
            name: a.name.clone(),
            title: a.title.clone(),
            icon: a.icon.clone(),
            color: a.color.clone(),
        }
    }
}

/// BMAD writes step ids as numbers or as file names; accept both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StepId {
    Number(u32),
    Name(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationState {
    pub current_round: u32,
    pub started_at: DateTime<Utc>,
    pub last_activity_at: DateTime<Utc>,
    /// Time counted against the limit: only while the party was open.
    pub active_seconds: u64,
    #[serde(default)]
    pub consensus_reached: bool,
    #[serde(default)]
    pub silence_count: u32,
    #[serde(default)]
    pub exit_flags: ExitFlags,
    #[serde(default)]
    pub exit_reason: Option<String>,
    /// Effective limits: a facilitator's "continue N more" raises them.
    pub max_rounds: u32,
    pub max_duration_minutes: f64,
    #[serde(default)]
    pub warn_at_rounds: u32,
    #[serde(default)]
    pub warn_at_minutes: f64,
    #[serde(default)]
    pub warned_rounds: bool,
    #[serde(default)]
    pub warned_time: bool,
    #[serde(default)]
    pub tokens: TokenCount,
    /// In a room of several endpoints, the tokens of each (`default` for
    /// the default one); `tokens` stays the whole room's.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub endpoint_tokens: std::collections::BTreeMap<String, TokenCount>,
    /// An agent asked the facilitator; their next message goes to it first.
    #[serde(default)]
    pub awaiting_answer_from: Option<String>,
    /// Agreement among the last round's replies.
    #[serde(default)]
    pub consensus_score: Option<f64>,
    /// Agents the facilitator muted (`/mute`): in the room, never picked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub muted: Vec<String>,
    /// The agents the next round goes to alone, in order (`/only`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only: Vec<String>,
    /// Agents the facilitator brought in (`/invite`) beyond the cast the
    /// session opened with, in the order they came: `--resume` brings
    /// them in again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invited: Vec<String>,
    /// Agents of that cast the facilitator sent out (`/dismiss`): `--resume`
    /// leaves them out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dismissed: Vec<String>,
    /// The last number given to a take (`set_aside`): the next is one more,
    /// so a number brought back and gone is never given again.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub last_take: usize,
}

impl ConversationState {
    /// The state of a party that starts now with these limits.
    pub fn new(now: DateTime<Utc>, max_rounds: u32, warn_at_rounds: u32, max_duration_minutes: f64, warn_at_minutes: f64) -> Self {
        ConversationState {
            current_round: 0,
            started_at: now,
            last_activity_at: now,
            active_seconds: 0,
            consensus_reached: false,
            silence_count: 0,
            exit_flags: ExitFlags::default(),
            exit_reason: None,
            max_rounds,
            max_duration_minutes,
            warn_at_rounds,
            warn_at_minutes,
            warned_rounds: false,
            warned_time: false,
            tokens: TokenCount::default(),
            endpoint_tokens: std::collections::BTreeMap::new(),
            awaiting_answer_from: None,
            consensus_score: None,
            muted: Vec::new(),
            only: Vec::new(),
            invited: Vec::new(),
            dismissed: Vec::new(),
            last_take: 0,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenCount {
    pub prompt: u64,
    pub completion: u64,
    /// Prompt tokens the server reused from its cache, where it says so.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached: u64,
}

impl TokenCount {
    /// Adds one call's counts as the server reported them.
    pub(crate) fn add(&mut self, prompt: u64, completion: u64, cached: Option<u64>) {
        self.prompt += prompt;
        self.completion += completion;
        self.cached += cached.unwrap_or(0);
    }
}

fn is_zero<N: Default + PartialEq>(n: &N) -> bool {
    *n == N::default()
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitFlags {
    #[serde(default)]
    pub round_limit: bool,
    #[serde(default)]
    pub time_limit: bool,
    #[serde(default)]
    pub consensus: bool,
    #[serde(default)]
    pub silence: bool,
    #[serde(default)]
    pub user_requested: bool,
    #[serde(default)]
    pub agent_proposed: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiligenceState {
    pub budget: u32,
    pub used: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfirmationRecord {
    pub request_id: String,
    pub kind: ConfirmKind,
    pub status: ConfirmStatus,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    pub asked_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmKind {
    EndProposal,
    RoundLimit,
    TimeLimit,
    TurnReset,
    BudgetExhausted,
    Consensus,
    Silence,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmStatus {
    Pending,
    Confirmed,
    Rejected,
    Expired,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderRecord {
    /// `openai` (any OpenAI-compatible endpoint) or `rehearsal`.
    pub kind: String,
    pub model: String,
    #[serde(default)]
    pub base_url: Option<String>,
    /// The context window the prompts were fitted to, tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u32>,
    /// A smaller window the server taught by refusing a prompt as too long;
    /// a resumed session with the same model keeps under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lowered_context_tokens: Option<u32>,
    /// The named endpoints' servers that taught a smaller window, by
    /// endpoint name, each as the record of the default server is kept
    /// (kind, model, address, windows); a file without it loads.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub endpoints: std::collections::BTreeMap<String, ProviderRecord>,
}

/// A file kept beside the session file, by the same stem and `suffix`
/// (`…/2026-11-24-plugins.md` → `….takeaways.md` for `takeaways.md`).
pub(crate) fn beside(session: &std::path::Path, suffix: &str) -> std::path::PathBuf {
    let stem = session.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    session.with_file_name(format!("{stem}.{suffix}"))
}

/// A reply pinned as a decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pin {
    pub round: u32,
    pub agent: String,
    pub label: String,
    pub text: String,
}

/// Gives each take read without a number the next free one, in order,
/// and keeps `last_take` at least the highest number given.
pub(crate) fn number_takes(fm: &mut Frontmatter) {
    let last = &mut fm.conversation_state.last_take;
    *last = fm.set_aside.iter().map(|s| s.take).fold(*last, usize::max);
    for s in fm.set_aside.iter_mut().filter(|s| s.take == 0) {
        *last += 1;
        s.take = *last;
    }
}

impl Pin {
    /// As the decisions list it: `🏗️ Ingrid: the reply`.
    pub(crate) fn line(&self) -> String {
        format!("{}: {}", self.label, crate::text::ellipsize(&self.text.replace('\n', " "), 300))
    }
}

/// Turns set aside: the tail of a round from one turn on, as it stood.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetAside {
    /// Its number for `/takes` and `/take N`: given once, never reused
    /// (a file without it numbers its takes in order when read).
    #[serde(default)]
    pub take: usize,
    pub round: u32,
    /// The place of its first turn in the transcript.
    pub at: usize,
    /// What set it aside: `redo`, `undo`, `edit`, `take`.
    pub by: String,
    pub turns: Vec<SetAsideTurn>,
}

/// A turn set aside, as it was said.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetAsideTurn {
    pub kind: TurnKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    pub label: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    pub at: DateTime<Utc>,
}

impl SetAsideTurn {
    pub(crate) fn of(t: Turn) -> SetAsideTurn {
        SetAsideTurn {
            kind: t.kind,
            agent: t.agent,
            label: t.label,
            text: t.text,
            interrupted: t.interrupted,
            at: t.at,
        }
    }

    pub(crate) fn into_turn(self, round: u32) -> Turn {
        Turn {
            interrupted: self.interrupted,
            at: self.at,
            ..Turn::said(self.kind, self.agent.as_deref(), round, &self.label, self.text)
        }
    }
}

/// One entry of the transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub kind: TurnKind,
    /// The agent's id for agent turns.
    pub agent: Option<String>,
    pub round: u32,
    pub at: DateTime<Utc>,
    /// As shown: `🏗️ Ingrid` for agents, the facilitator's name, empty for notices.
    pub label: String,
    pub text: String,
    pub interrupted: bool,
    /// How long the model took, for the replies of agents.
    pub latency: Option<Latency>,
    /// The named endpoint an agent's turn went through (None: the default
    /// one, or a file written before endpoints existed).
    pub endpoint: Option<String>,
    /// The model that wrote an agent's turn, where known.
    pub model: Option<String>,
}

impl Turn {
    /// A turn said now, with nothing measured of it yet (no latency, no
    /// endpoint or model), not interrupted: what every new turn starts as.
    pub fn said(kind: TurnKind, agent: Option<&str>, round: u32, label: &str, text: impl Into<String>) -> Turn {
        Turn {
            kind,
            agent: agent.map(String::from),
            round,
            at: Utc::now(),
            label: label.into(),
            text: text.into(),
            interrupted: false,
            latency: None,
            endpoint: None,
            model: None,
        }
    }
}

/// How long a reply took: to its first token (what a facilitator waits
/// before anything moves) and in all, and how many tokens it had.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Latency {
    pub first_token_ms: u64,
    pub total_ms: u64,
    pub tokens: u32,
}

impl Latency {
    /// Tokens a second once the first had come; None for a reply too short
    /// or too quick to say.
    pub(crate) fn tokens_per_second(&self) -> Option<f64> {
        let writing = self.total_ms.saturating_sub(self.first_token_ms);
        (self.tokens > 1 && writing > 0).then(|| f64::from(self.tokens - 1) * 1000.0 / writing as f64)
    }

    /// `1.2 s · 18 tok/s`.
    pub(crate) fn summary(&self) -> String {
        figures::speed(self.first_token_ms, self.tokens_per_second())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnKind {
    Facilitator,
    Agent,
    /// The facilitator let the room go on without a message.
    Continue,
    Notice,
    Failed,
    Farewell,
    Highlights,
    Closing,
    /// An agent's direct question to the facilitator.
    Question,
    /// The runtime's automatic nudge (diligence push).
    Push,
    /// A confirmed reset: the agents' context starts again after it.
    Reset,
}

impl TurnKind {
    pub(crate) fn code(self) -> &'static str {
        match self {
            TurnKind::Facilitator => "facilitator",
            TurnKind::Agent => "agent",
            TurnKind::Continue => "continue",
            TurnKind::Notice => "notice",
            TurnKind::Failed => "failed",
            TurnKind::Farewell => "farewell",
            TurnKind::Highlights => "highlights",
            TurnKind::Closing => "closing",
            TurnKind::Question => "question",
            TurnKind::Push => "push",
            TurnKind::Reset => "reset",
        }
    }

    pub(crate) fn from_code(s: &str) -> Option<TurnKind> {
        Some(match s {
            "facilitator" => TurnKind::Facilitator,
            "agent" => TurnKind::Agent,
            "continue" => TurnKind::Continue,
            "notice" => TurnKind::Notice,
            "failed" => TurnKind::Failed,
            "farewell" => TurnKind::Farewell,
            "highlights" => TurnKind::Highlights,
            "closing" => TurnKind::Closing,
            "question" => TurnKind::Question,
            "push" => TurnKind::Push,
            "reset" => TurnKind::Reset,
            _ => return None,
        })
    }
}

/// A whole session in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub fm: Frontmatter,
    pub turns: Vec<Turn>,
}
