//! `config.yaml`: every limit and switch of a party. Parsing keeps source
//! positions so that a bad value is reported as file:line:column and key,
//! not as a generic "invalid config".

mod check;
mod endpoints;
mod load;
mod parties;
pub(crate) use endpoints::{compact_model, model_labels, model_of, voice_labels, DEFAULT_ENDPOINT};
pub(crate) use parties::{read_as as read_party_as, read_file as read_party_file, to_file as party_file, valid_id, PartyDef};
#[cfg(test)]
mod tests;
pub(crate) mod user;

use crate::source::{snippet, yaml_error, SourceError};

use serde::Deserialize;

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub party: PartyConfig,
    pub llm: LlmConfig,
    /// Standing casts (`bmad.parties`), by id.
    pub parties: Vec<PartyDef>,
}

/// Every struct of the config derives `Default` as a blank to read the
/// built-in file over: its values are no defaults (those are the file's).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PartyConfig {
    pub auto_exit_enabled: bool,
    pub max_rounds: u32,
    /// 0 disables the warning.
    pub warn_at_rounds: u32,
    pub max_duration_minutes: f64,
    pub warn_at_minutes: f64,
    pub agents_per_round: (usize, usize),
    pub selection: Selection,
    /// How a round's speakers take their turns; None: by the endpoint
    /// (`engine::machine::round_mode::round_mode`).
    pub round_mode: Option<RoundMode>,
    pub exit_triggers: Vec<String>,
    pub reset_triggers: Vec<String>,
    pub end_detection: EndDetection,
    pub ask_marker: String,
    /// Each speaker judges the room after its reply (`engine::self_check`):
    /// a proposal to end, a question for the facilitator, its stance. Off
    /// by default: on a small local model it asks and proposes where it
    /// should not (docs/decisions/2026-11-24-judgement-before-and-after-the-reading.md).
    pub self_check: bool,
    /// After each round the host reads the facilitator's message that
    /// opened it (`engine::reading`): a close invited, agreement asked for,
    /// a job without its facts. One short call per message.
    pub read_messages: bool,
    /// At the full cleanup level, the points of a list a speaker's turn
    /// makes before the next ends it (a list the facilitator asked for is
    /// never cut).
    pub turn_points: usize,
    pub consensus: Consensus,
    pub silence: Silence,
    pub diligence: Diligence,
    pub confirmation_timeout_seconds: u64,
    /// The program's language when neither `--lang` nor a BMAD project says.
    pub lang: Option<crate::i18n::Lang>,
    /// The facilitator's name when neither `--user-name` nor a BMAD project says.
    pub user_name: Option<String>,
    /// The party a session holds when `--party` names none (None: the
    /// default room, or a BMAD project's `default_party`).
    pub default_party: Option<String>,
    /// Whether the default room keeps a memory between sessions.
    pub memory: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Selection {
    #[default]
    Heuristic,
    Llm,
}

/// How a round's speakers take their turns. Whatever the mode, the
/// transcript keeps the picked speaking order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum RoundMode {
    /// One after another, each seeing the replies before it.
    Sequential,
    /// The first speaker alone, then the others at once, each seeing the first.
    Hybrid,
    /// All at once; they react to each other from the next round on.
    Parallel,
}

impl RoundMode {
    /// The speakers, by their place in the picked order, in the groups that
    /// stream together, one group after another.
    pub(crate) fn groups(self, speakers: usize) -> Vec<std::ops::Range<usize>> {
        match self {
            _ if speakers == 0 => vec![],
            RoundMode::Sequential => (0..speakers).map(|i| i..i + 1).collect(),
            RoundMode::Hybrid if speakers > 1 => vec![0..1, 1..speakers],
            RoundMode::Hybrid | RoundMode::Parallel => std::iter::once(0..speakers).collect(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct EndDetection {
    pub enable_detection: bool,
    pub end_marker: String,
    pub require_confirmation: bool,
    pub auto_end: bool,
    /// Rounds after a declined proposal to end in which no agent's
    /// proposal is raised again.
    pub quiet_rounds: u32,
}

/// A case-insensitive regular expression from the config, compiled once,
/// when the config is loaded (an invalid one is a located config error).
#[derive(Debug, Clone)]
pub struct Pattern(regex::Regex);

impl Pattern {
    pub(crate) fn new(source: &str) -> Result<Pattern, regex::Error> {
        regex::RegexBuilder::new(source).case_insensitive(true).build().map(Pattern)
    }

    pub(crate) fn regex(&self) -> &regex::Regex {
        &self.0
    }
}

impl Default for Pattern {
    /// A blank's pattern (`Config::default` reads the real one from the
    /// built-in file): it matches nothing.
    fn default() -> Pattern {
        static NOTHING: std::sync::LazyLock<Pattern> = std::sync::LazyLock::new(|| {
            #[allow(clippy::expect_used, reason = "a pattern written in the source: a test compiles it")]
            Pattern::new(r"\b\B").expect("a valid pattern")
        });
        NOTHING.clone()
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Consensus {
    pub enabled: bool,
    pub threshold: f64,
    pub lookback: u32,
    pub convergence_indicator: Pattern,
    pub disagreement_words: Vec<String>,
    /// Words a reply states agreement with (in its first sentence), when
    /// the facilitator asked the room whether it agrees.
    pub agreement_words: Vec<String>,
    /// Words that make a question an open one ("What should the first hour
    /// cover?"): it asks for content, not whether the room agrees.
    pub open_question_words: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Silence {
    pub enabled: bool,
    pub user_timeout_minutes: f64,
    pub content_similarity: f64,
    pub consecutive_similar_rounds: u32,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Diligence {
    pub push_max: u32,
    pub idle_seconds: u64,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct LlmConfig {
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub embedding_model: Option<String>,
    pub temperature: f32,
    /// Longest wait for a reply's first token. A model on a CPU reads a long
    /// prompt for a minute or more before it writes anything.
    pub request_timeout_seconds: u64,
    /// Longest gap between two tokens of a reply that has started.
    pub stall_timeout_seconds: u64,
    pub max_retries: u32,
    /// How long a server that cannot be reached (refused, reset) is waited
    /// for before a turn fails: long enough for a local server to restart.
    /// Those attempts do not count against `max_retries`.
    pub retry_window_seconds: u64,
    /// The cap of one agent reply, sent as `max_tokens`.
    pub reply_max_tokens: u32,
    /// The model's context window in tokens; None: asked of the server, else
    /// a default by kind of endpoint (`engine::budget::default_window`).
    pub context_tokens: Option<u32>,
    /// What a speaker's prompt opens with.
    pub prompt_layout: PromptLayout,
    /// Whether the server reads each agent's prompt so far while the
    /// facilitator writes (`engine::machine::warm`).
    pub warm_up: WarmUp,
    /// Whether the default server runs several requests at once (llama.cpp
    /// with `--parallel`, vLLM); None: guessed by its address.
    pub parallel_requests: Option<bool>,
    /// How much reply cleanup the default endpoint's replies get.
    pub cleanup: CleanupLevel,
    /// Named servers beside the default one (`bmad.llm.endpoints`).
    pub endpoints: Vec<Endpoint>,
}

/// One named endpoint as the config defines it (`bmad.llm.endpoints`,
/// read by `endpoints`).
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    pub name: String,
    pub base_url: String,
    /// None: the one the server lists (`llm::discovery`), as for the default.
    pub model: Option<String>,
    /// The environment variable holding its key; None: no key (a local server).
    pub api_key_env: Option<String>,
    /// Its model's window; None: asked of the server, else a default by kind.
    pub context_tokens: Option<u32>,
    /// The cap of one reply through it; None: the default endpoint's.
    pub reply_max_tokens: Option<u32>,
    /// Whether the server runs several requests at once; None: guessed by
    /// its address (a local one does not).
    pub parallel_requests: Option<bool>,
    /// What its speakers' prompts open with; None: the default endpoint's
    /// (`LlmConfig::prompt_layout_of`).
    pub prompt_layout: Option<PromptLayout>,
    /// How much reply cleanup its replies get; None: `auto` (its own
    /// model's, not the default endpoint's: each server has its own model).
    pub cleanup: Option<CleanupLevel>,
    /// The config file and line it is defined at, for messages.
    pub file: String,
    pub line: Option<u64>,
    /// The line of its `api_key_env`, for a key not found.
    pub key_line: Option<u64>,
}

impl LlmConfig {
    /// The layout of a speaker's prompt on `endpoint` (None: the default
    /// one): the named endpoint's own, else the default's. Each server has
    /// its own prefix cache, so the layout that suits it is its own.
    pub(crate) fn prompt_layout_of(&self, endpoint: Option<&str>) -> PromptLayout {
        let named = endpoint.and_then(|n| self.endpoints.iter().find(|e| e.name == n));
        named.and_then(|e| e.prompt_layout).unwrap_or(self.prompt_layout)
    }

    /// The cleanup setting of `endpoint` (None: the default one). A named
    /// endpoint does not take the default's: its model is another.
    pub(crate) fn cleanup_of(&self, endpoint: Option<&str>) -> CleanupLevel {
        match endpoint {
            None => self.cleanup,
            Some(n) => self
                .endpoints
                .iter()
                .find(|e| e.name == n)
                .and_then(|e| e.cleanup)
                .unwrap_or_default(),
        }
    }
}

/// How much reply cleanup an endpoint's replies get (`bmad.llm.cleanup`,
/// `bmad.llm.endpoints.<name>.cleanup`; `engine::cleanup::level`). The
/// protocol (markers, escapes, the speaker's own label) is read at every
/// level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CleanupLevel {
    /// Chosen by the model: full for a small one, light for a large or
    /// hosted one, raised to full for the session when its replies show
    /// a small model's failures.
    #[default]
    Auto,
    /// Every rule: for small local models.
    Full,
    /// The reply is one voice: another's label line ends it, the runtime's
    /// notes never show, a reply saying itself again ends.
    Light,
    /// Nothing but the protocol.
    Off,
}

/// Whether agents' prompts are read ahead while the room waits for the
/// facilitator: on a local model the next round's speakers then start
/// writing sooner; on a hosted API every read is billed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WarmUp {
    /// On for a server on this machine or the local network, off for a
    /// hosted API and the rehearsal.
    #[default]
    Auto,
    On,
    Off,
}

/// What a speaker's prompt opens with: the order decides how much of it a
/// server's prefix cache can reuse from the call before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptLayout {
    /// The speaker's persona in the system prompt, its own turns as the
    /// assistant's: each agent's prompts share a prefix with its own
    /// earlier ones only.
    #[default]
    PersonaFirst,
    /// The room's rules and the conversation first, the same for every
    /// speaker, the persona and the turn's note last: consecutive calls of
    /// different agents share everything but the end.
    RoomFirst,
}

/// The built-in `workflows/party-mode/config.yaml`: every key's default,
/// written there once.
const SHIPPED: &str = include_str!("../../workflows/party-mode/config.yaml");

impl Default for Config {
    /// The defaults: the built-in config file read over a blank config
    /// (every key of it is stated there: `config::tests`).
    fn default() -> Self {
        #[allow(clippy::panic, reason = "the built-in config file: a test reads it")]
        static SHIPPED_CONFIG: std::sync::LazyLock<Config> = std::sync::LazyLock::new(|| {
            let blank = Config {
                party: PartyConfig::default(),
                llm: LlmConfig::default(),
                parties: Vec::new(),
            };
            Config::parse_onto(blank, SHIPPED, "workflows/party-mode/config.yaml", &Overrides::default())
                .unwrap_or_else(|e| panic!("the built-in config: {e}"))
        });
        SHIPPED_CONFIG.clone()
    }
}

/// Command-line values that take precedence over the file.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub max_rounds: Option<u32>,
    pub round_mode: Option<RoundMode>,
    pub max_minutes: Option<f64>,
    pub model: Option<String>,
    pub base_url: Option<String>,
}
