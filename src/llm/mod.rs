//! Model providers. The engine asks for a streamed reply and gets a stream
//! of small events; retries, timeouts and server quirks stay in here.

pub(crate) mod discovery;
mod openai;
mod rehearsal;
mod rehearsal_cast;

pub use openai::OpenAiProvider;
pub use openai::{read_chunk, OpenAiSettings};
pub use rehearsal::Rehearsal;

use futures::future::BoxFuture;
use futures::stream::BoxStream;

use crate::i18n::{Lang, Model, Say};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
}

/// One message of a call. The text is shared: an agent's history is kept
/// between its turns and handed to each call without copying.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatMessage {
    pub role: Role,
    pub content: std::sync::Arc<str>,
}

impl ChatMessage {
    pub(crate) fn new(role: Role, content: impl Into<std::sync::Arc<str>>) -> Self {
        ChatMessage {
            role,
            content: content.into(),
        }
    }
}

/// What a call is for. Real models only read the messages; the rehearsal
/// provider reads this instead, so it can answer in character without a model.
#[derive(Debug, Clone, PartialEq)]
pub enum Cue {
    Turn {
        agent: crate::roster::agents::Agent,
        round: u32,
        /// The facilitator's message, None when the room continues on its own.
        message: Option<String>,
        topic: String,
        /// Names and replies of agents who already spoke this round.
        earlier: Vec<(String, String)>,
        end_marker: Option<String>,
        ask_marker: Option<String>,
        lang: Lang,
    },
    Farewell {
        agent: crate::roster::agents::Agent,
        topic: String,
        user_name: String,
        lang: Lang,
    },
    Highlights {
        topic: String,
        rounds: u32,
        lang: Lang,
    },
    Selection {
        candidates: Vec<String>,
    },
    Takeaways {
        topic: String,
        lang: Lang,
    },
    /// The lines a party's memory keeps of the session.
    Memory {
        topic: String,
        names: Vec<String>,
        lang: Lang,
    },
    /// A speaker's judgement of the room right after its reply
    /// (`engine::self_check`): a small JSON object.
    SelfCheck {
        agent: crate::roster::agents::Agent,
        round: u32,
    },
    /// The host's reading of the facilitator's message (`engine::reading`):
    /// one letter, or the question for missing facts (`question: true`).
    Reading {
        round: u32,
        question: bool,
    },
    /// The host's hearing of one reply to the facilitator's yes/no question
    /// (`engine::machine::reading`): "yes" or "no".
    Hearing {
        round: u32,
    },
    /// A cast drafted for a question (`cast`), or one persona of it.
    Cast(CastCue),
    /// An agent's prompt so far, read ahead while the room waits
    /// (`engine::machine::warm`): its one token is thrown away.
    WarmUp,
}

/// What a cast is drafted for, as the rehearsal reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct CastCue {
    pub topic: String,
    pub size: usize,
    /// How many document lines the model was shown (0: none).
    pub lines: u32,
    pub lang: Lang,
    /// Names it must not use (the program's, and the cast's others).
    pub taken: Vec<String>,
    /// One persona, in place of someone (`again N`), not a whole cast.
    pub one: bool,
}

#[derive(Debug, Clone)]
pub struct ChatRequest {
    /// Per-agent model; None uses the provider's default.
    pub model: Option<String>,
    /// The named endpoint the call goes to (`bmad.llm.endpoints`); None:
    /// the default one. The engine picks the provider by it.
    pub endpoint: Option<String>,
    pub messages: Vec<ChatMessage>,
    pub temperature: f32,
    /// The reply's cap in tokens (`max_tokens`), if any.
    pub max_tokens: Option<u32>,
    /// Where the server should stop writing: other speakers' labels. Servers
    /// that take fewer get the first ones; the engine cuts there anyway.
    pub stop: Vec<String>,
    /// A JSON schema the reply should follow: servers that constrain
    /// output are asked to (`response_format`); the reply is read leniently
    /// either way.
    pub json_schema: Option<serde_json::Value>,
    /// A sampling seed (`seed`), sent only when set: a reply asked again
    /// (`/redo`) gets one of its own, so a server that samples the same
    /// prompt the same way every time writes another reply.
    pub seed: Option<u64>,
    pub cue: Cue,
}

#[derive(Debug, Clone, PartialEq)]
pub enum LlmEvent {
    Token(String),
    Usage {
        prompt: u64,
        completion: u64,
        /// Prompt tokens the server had cached (prefix reuse), where it says.
        cached: Option<u64>,
    },
    /// The reply stopped at its token cap (`finish_reason: length`).
    Capped,
    /// The attempt failed and will be retried after `delay_ms`; text
    /// streamed so far is void.
    Retrying {
        attempt: u32,
        delay_ms: u64,
        cause: Failure,
    },
    /// The server cannot be reached (refused, reset): tried again until
    /// `window_ms` has passed since it was last reachable in this call.
    Waiting {
        waited_ms: u64,
        window_ms: u64,
        cause: Failure,
    },
    Done,
    Failed(Failure),
    /// The server stayed unreachable for the whole retry window.
    Unreachable(Failure),
    /// The server refused the prompt as longer than its context window; a
    /// shorter prompt is the only cure, so the call is not retried here.
    TooLong {
        cause: Failure,
        /// The window, where the server says it.
        window: Option<u32>,
        /// The prompt's tokens as the server counted them, where it says.
        prompt: Option<u32>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProviderInfo {
    /// `openai` or `rehearsal`.
    pub kind: String,
    pub model: String,
    /// False while the model is still to be chosen from the endpoint's
    /// list (none was named and the endpoint has not answered yet).
    pub model_settled: bool,
    pub base_url: Option<String>,
    pub rehearsal: bool,
}

/// What the endpoint answered when asked at start (`Provider::check`).
#[derive(Debug, Clone, PartialEq)]
pub struct EndpointCheck {
    /// The endpoint, for messages.
    pub url: String,
    /// Why the server could not be reached, if it could not.
    pub unreachable: Option<Failure>,
    /// The models it lists (empty when it lists none or would not say).
    pub listed: Vec<String>,
    /// The model taken from that list because none was named.
    pub chosen: Option<String>,
    /// The model used when a call names none (`chosen`, or the named one,
    /// or the default).
    pub model: String,
    /// That model's size in billions of parameters, where the server says
    /// (`discovery::server_size`): it chooses the reply cleanup.
    pub billions: Option<f64>,
}

pub trait Provider: Send + Sync {
    /// Who serves the replies. The model is the one in use: once the
    /// endpoint has been checked, the one chosen from its list.
    fn info(&self) -> ProviderInfo;
    /// Asks the endpoint whether it is there and which models it has,
    /// choosing one when none was named. A few seconds at most; None for
    /// a provider with nothing to ask.
    fn check(&self) -> BoxFuture<'static, Option<EndpointCheck>> {
        Box::pin(async { None })
    }
    /// Starts a streamed reply. Dropping the stream cancels the request.
    fn stream(&self, req: ChatRequest) -> BoxStream<'static, LlmEvent>;
    /// Embedding vectors for `texts` with `model`, in order.
    fn embed(&self, model: &str, texts: Vec<String>) -> BoxFuture<'static, Result<Vec<Vec<f32>>, String>> {
        let _ = (model, texts);
        Box::pin(async { Err("this provider has no embeddings".to_string()) })
    }
    /// The model's context window in tokens, where the server tells it
    /// (vLLM's `max_model_len`, llama.cpp's `n_ctx`). Quick: a few seconds
    /// at most, None on any doubt.
    fn context_window(&self) -> BoxFuture<'static, Option<u32>> {
        Box::pin(async { None })
    }
}

/// Why a call to the model failed, as the model layer tells causes apart.
/// Said in the party's language where it is shown (`Say`); `Display` is
/// English, for the log.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The server's or a library's own words (an HTTP status and what its
    /// body says), shown as they are.
    Said(String),
    /// A request that went wrong, then the library's chain of causes
    /// (`: a: b`).
    CannotConnect(String),
    TimedOut(String),
    CutOff(String),
    RequestFailed(String),
    StreamBroken(String),
    InvalidRequest(String),
    ServerErrorInStream(String),
    /// Nothing streamed for this many seconds once the reply had begun.
    Stalled(u64),
    /// No first token within this many seconds.
    NoReplyWithin(u64),
    /// The endpoint's model list did not come within this many seconds.
    NoAnswerWithin(u64),
    EmptyReply,
    EndedBeforeText,
    AfterAttempts {
        cause: Box<Failure>,
        attempts: u32,
    },
    /// The server stayed unreachable for the retry window (seconds).
    UnreachableFor {
        cause: Box<Failure>,
        secs: u64,
    },
    /// The server lacks the model asked for; the others it lists at `url`.
    ModelMissing {
        cause: Box<Failure>,
        url: String,
        others: Vec<String>,
    },
    /// The key cannot be sent in an HTTP header.
    BadApiKey,
    HttpClient(String),
}

/// Words from elsewhere (a test's) as a failure.
impl From<&str> for Failure {
    fn from(s: &str) -> Failure {
        Failure::Said(s.to_string())
    }
}

impl Failure {
    /// The same failure with `f` applied to every text it carries (the
    /// key taken out of what a server echoed).
    pub(crate) fn map_text(self, f: &impl Fn(&str) -> String) -> Failure {
        let boxed = |c: Box<Failure>| Box::new(c.map_text(f));
        match self {
            Failure::Said(s) => Failure::Said(f(&s)),
            Failure::CannotConnect(s) => Failure::CannotConnect(f(&s)),
            Failure::TimedOut(s) => Failure::TimedOut(f(&s)),
            Failure::CutOff(s) => Failure::CutOff(f(&s)),
            Failure::RequestFailed(s) => Failure::RequestFailed(f(&s)),
            Failure::StreamBroken(s) => Failure::StreamBroken(f(&s)),
            Failure::InvalidRequest(s) => Failure::InvalidRequest(f(&s)),
            Failure::ServerErrorInStream(s) => Failure::ServerErrorInStream(f(&s)),
            Failure::HttpClient(s) => Failure::HttpClient(f(&s)),
            Failure::AfterAttempts { cause, attempts } => Failure::AfterAttempts {
                cause: boxed(cause),
                attempts,
            },
            Failure::UnreachableFor { cause, secs } => Failure::UnreachableFor { cause: boxed(cause), secs },
            Failure::ModelMissing { cause, url, others } => Failure::ModelMissing {
                cause: boxed(cause),
                url,
                others,
            },
            other => other,
        }
    }
}

impl Say for Failure {
    fn say(&self, lang: Lang) -> String {
        // A request's trouble and its causes, cleaned and kept short whole.
        let chain =
            |how: Model<'_>, causes: &str| crate::text::ellipsize(&crate::text::sanitize(&format!("{}{causes}", how.say(lang))), 300);
        match self {
            Failure::Said(s) => s.clone(),
            Failure::CannotConnect(c) => chain(Model::CannotConnect, c),
            Failure::TimedOut(c) => chain(Model::TimedOut, c),
            Failure::CutOff(c) => chain(Model::ReplyCutOff, c),
            Failure::RequestFailed(c) => chain(Model::RequestFailed, c),
            Failure::StreamBroken(why) => Model::StreamBroken { why }.say(lang),
            Failure::InvalidRequest(what) => Model::InvalidRequest { what }.say(lang),
            Failure::ServerErrorInStream(message) => Model::ServerErrorInStream { message }.say(lang),
            Failure::Stalled(secs) => Model::Stalled { secs: *secs }.say(lang),
            Failure::NoReplyWithin(secs) => Model::NoReplyWithin { secs: *secs }.say(lang),
            Failure::NoAnswerWithin(secs) => Model::NoAnswerWithin { secs: *secs }.say(lang),
            Failure::EmptyReply => Model::EmptyReply.say(lang),
            Failure::EndedBeforeText => Model::EndedBeforeText.say(lang),
            Failure::AfterAttempts { cause, attempts } => Model::AfterAttempts {
                cause: &cause.say(lang),
                attempts: *attempts,
            }
            .say(lang),
            Failure::UnreachableFor { cause, secs } => Model::UnreachableFor {
                cause: &cause.say(lang),
                secs: *secs,
            }
            .say(lang),
            Failure::ModelMissing { cause, url, others } => {
                let cause = cause.say(lang);
                let sep = if cause.ends_with(['.', '!', '。']) { " " } else { ". " };
                let ids: Vec<&str> = others.iter().map(String::as_str).collect();
                let has = if ids.is_empty() {
                    Model::NoModelsListed { url }.say(lang)
                } else {
                    Model::ModelsListed {
                        url,
                        names: &discovery::name_some(&ids, lang),
                    }
                    .say(lang)
                };
                format!("{cause}{sep}{has} {}", Model::HowToNameOne.say(lang))
            }
            Failure::BadApiKey => Model::BadApiKey.say(lang),
            Failure::HttpClient(error) => Model::HttpClient { error }.say(lang),
        }
    }
}

/// In English, for the log and tests.
impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.say(Lang::En))
    }
}

impl std::error::Error for Failure {}
