//! `config.yaml`: every limit and switch of a party. Parsing keeps source
//! positions so that a bad value is reported as file:line:column and key,
//! not as a generic "invalid config".

mod endpoints;
mod load;
mod parties;
pub(crate) use endpoints::{compact_model, model_labels, model_of, voice_labels, DEFAULT_ENDPOINT};
pub(crate) use parties::{valid_id, PartyDef};
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

#[derive(Debug, Clone, PartialEq)]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Selection {
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

#[derive(Debug, Clone, PartialEq)]
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

    fn default_convergence() -> Pattern {
        static DEFAULT: std::sync::LazyLock<Pattern> = std::sync::LazyLock::new(|| {
            #[allow(clippy::expect_used)]
            Pattern::new("agreed|consensus|exactly").expect("the default pattern is valid")
        });
        DEFAULT.clone()
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

#[derive(Debug, Clone, PartialEq)]
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

#[derive(Debug, Clone, PartialEq)]
pub struct Silence {
    pub enabled: bool,
    pub user_timeout_minutes: f64,
    pub content_similarity: f64,
    pub consecutive_similar_rounds: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Diligence {
    pub push_max: u32,
    pub idle_seconds: u64,
}

#[derive(Debug, Clone, PartialEq)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptLayout {
    /// The speaker's persona in the system prompt, its own turns as the
    /// assistant's: each agent's prompts share a prefix with its own
    /// earlier ones only.
    PersonaFirst,
    /// The room's rules and the conversation first, the same for every
    /// speaker, the persona and the turn's note last: consecutive calls of
    /// different agents share everything but the end.
    RoomFirst,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            party: PartyConfig {
                auto_exit_enabled: false,
                max_rounds: 10,
                warn_at_rounds: 8,
                max_duration_minutes: 30.0,
                warn_at_minutes: 25.0,
                agents_per_round: (2, 3),
                selection: Selection::Heuristic,
                round_mode: None,
                exit_triggers: ["*exit", "goodbye", "end party", "quit"].map(String::from).to_vec(),
                reset_triggers: ["clear", "重置对话", "开始新对话", "/reset"].map(String::from).to_vec(),
                end_detection: EndDetection {
                    enable_detection: true,
                    end_marker: "<!-- END -->".into(),
                    require_confirmation: true,
                    auto_end: false,
                    quiet_rounds: 2,
                },
                ask_marker: "!?@human".into(),
                self_check: false,
                read_messages: true,
                consensus: Consensus {
                    enabled: true,
                    threshold: 0.85,
                    lookback: 2,
                    convergence_indicator: Pattern::default_convergence(),
                    disagreement_words: default_disagreement_words(),
                    agreement_words: default_agreement_words(),
                    open_question_words: default_open_question_words(),
                },
                silence: Silence {
                    enabled: true,
                    user_timeout_minutes: 5.0,
                    content_similarity: 0.9,
                    consecutive_similar_rounds: 3,
                },
                diligence: Diligence {
                    push_max: 3,
                    idle_seconds: 30,
                },
                confirmation_timeout_seconds: 300,
                lang: None,
                user_name: None,
                default_party: None,
                memory: true,
            },
            llm: LlmConfig {
                base_url: None,
                model: None,
                embedding_model: None,
                temperature: 0.7,
                request_timeout_seconds: 300,
                stall_timeout_seconds: 60,
                max_retries: 3,
                retry_window_seconds: 60,
                reply_max_tokens: 350,
                context_tokens: None,
                prompt_layout: PromptLayout::PersonaFirst,
                cleanup: CleanupLevel::Auto,
                warm_up: WarmUp::Auto,
                parallel_requests: None,
                endpoints: Vec::new(),
            },
            parties: Vec::new(),
        }
    }
}

pub(crate) fn default_disagreement_words() -> Vec<String> {
    [
        "disagree",
        "however",
        "but i",
        "not convinced",
        // An agreement word negated ("I'm not okay with that").
        "not okay with",
        "not ok with",
        "not fine with",
        "not happy with",
        "not on board",
        "don't agree",
        "do not agree",
        "can't agree",
        "can’t agree",
        "cannot agree",
        "haven't agreed",
        "haven’t agreed",
        "have not agreed",
        "not yet agreed",
        "not a good idea",
        "on the contrary",
        "i doubt",
        "i object",
        "risky",
        "concern",
        "不同意",
        // Agreement words negated: "不赞成" holds 赞成, "没有达成一致" 一致.
        "不赞成",
        "不太同意",
        "没有达成一致",
        "未达成一致",
        "不行",
        "但是",
        "然而",
        // "however," with its comma: "再好不过" is praise.
        "不过，",
        "反对",
        "不认同",
        "我不支持",
        "不太支持",
        "有风险",
        "担心",
    ]
    .map(String::from)
    .to_vec()
}

/// Words that state agreement at a reply's start, English and Chinese. A
/// word that also opens other sentences ("对于", "可以") is not one.
pub(crate) fn default_agreement_words() -> Vec<String> {
    [
        "agree",
        "agreed",
        "yes",
        "exactly",
        "absolutely",
        "on board",
        "in favor of",
        "in favour of",
        "works for me",
        "sounds good",
        // The answer in the words of "Is everyone okay / fine / happy with that?"
        "okay with",
        "ok with",
        "fine with",
        "fine by me",
        "happy with",
        "good idea",
        "makes sense",
        "great choice",
        "good choice",
        // Asked "does everyone agree?", a reply opening "Of course!" says
        // yes. Not "sure": "make sure", "I'm not sure why…".
        "of course",
        "certainly",
        // Chinese words match anywhere: none that other words hold
        // ("更好的" holds 好的, "不是的" 是的).
        "同意",
        "赞成",
        // Support said as the speaker's own ("我支持「罗盘」"): 支持 alone is a
        // feature ("需要支持多设备").
        "我支持",
        "我也支持",
        "我完全支持",
        "我们支持",
        "没问题",
        "没错",
        "说得对",
        "一致",
        "没意见",
        "好主意",
        "有道理",
        "不错的选择",
        "当然",
    ]
    .map(String::from)
    .to_vec()
}

/// Question words: in English the first word of an open question, in
/// Chinese anywhere in it.
pub(crate) fn default_open_question_words() -> Vec<String> {
    [
        "what",
        "which",
        "how",
        "who",
        "whom",
        "whose",
        "why",
        "when",
        "where",
        "什么",
        "怎么",
        "怎样",
        "如何",
        "哪个",
        "哪些",
        "哪里",
        "谁",
        "为什么",
        "多少",
    ]
    .map(String::from)
    .to_vec()
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
