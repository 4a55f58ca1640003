//! What went wrong with an attempt, read from a status, a body or a
//! transport error: the message to show, whether to retry, and when.

use crate::llm::Failure;
use std::time::Duration;

use async_openai::error::OpenAIError;

/// What to change when a server refuses a request for one of its fields.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Refused {
    Usage,
    Stop,
    MaxTokens,
    MaxCompletionTokens,
    /// `response_format` with a JSON schema, or that field at all.
    ResponseFormat,
    Seed,
}

/// Reads a refusal's body for a field the server does not take.
fn refused_field(body: &str) -> Option<Refused> {
    let b = body.to_ascii_lowercase();
    if b.contains("response_format") || b.contains("json_schema") {
        Some(Refused::ResponseFormat)
    } else if b.contains("stream_options") {
        Some(Refused::Usage)
    } else if b.contains("max_completion_tokens") && !b.contains("context") {
        Some(Refused::MaxTokens)
    } else if b.contains("max_tokens") && (b.contains("unsupported") || b.contains("not supported") || b.contains("unrecognized")) {
        Some(Refused::MaxCompletionTokens)
    } else if b.contains("'stop'") || b.contains("\"stop\"") || b.contains("`stop`") || b.contains("param\":\"stop") {
        Some(Refused::Stop)
    } else if b.contains("'seed'")
        || b.contains("\"seed\"")
        || b.contains("`seed`")
        || b.contains("param\":\"seed")
        || b.contains("argument supplied: seed")
    {
        Some(Refused::Seed)
    } else {
        None
    }
}

/// A non-2xx HTTP reply, with what the retry policy and the facilitator need.
#[derive(Debug)]
pub(crate) struct HttpStatus {
    pub status: u16,
    pub retry_after: Option<Duration>,
    pub body: String,
}

impl std::fmt::Display for HttpStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HTTP {}", self.status)?;
        let msg = error_message(&self.body);
        if !msg.is_empty() {
            write!(f, ": {msg}")?;
        }
        Ok(())
    }
}

impl std::error::Error for HttpStatus {}

/// The human part of an error body: OpenAI's `{"error":{"message"}}`, the
/// flat `{"message"}` of vLLM and others, `{"error":"text"}`, or the text.
pub(super) fn error_message(body: &str) -> String {
    let body = body.trim();
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        let found = v
            .pointer("/error/message")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("detail"))
            .and_then(|m| m.as_str());
        if let Some(m) = found {
            return crate::text::ellipsize(&crate::text::sanitize(m), 300);
        }
    }
    crate::text::ellipsize(&crate::text::sanitize(body).replace('\n', " "), 300)
}

pub(super) fn parse_retry_after(value: &str) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<f64>() {
        return (secs >= 0.0 && secs.is_finite()).then(|| Duration::from_secs_f64(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let wait = when.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

/// Why an attempt failed, and whether another attempt may help.
#[derive(Debug)]
pub(super) struct AttemptError {
    pub(super) cause: Failure,
    pub(super) retryable: bool,
    pub(super) retry_after: Option<Duration>,
    /// The server refused a request field; retry at once without it.
    pub(super) refused: Option<Refused>,
    /// The server could not be reached at all (refused, reset): it may be
    /// restarting, so it is waited for rather than counted against retries.
    pub(super) unreachable: bool,
    /// The prompt is over the server's context window: only a shorter
    /// prompt helps, which is the engine's to make.
    pub(super) too_long: Option<TooLong>,
    /// The stream ended without text and without a finish reason:
    /// llama-cpp-python's way, while streaming, of refusing a prompt over
    /// its window (said properly only to a request that is not streamed).
    pub(super) ended_without_text: bool,
    /// The server does not have the model asked for (a 404, OpenAI's
    /// `model_not_found`, Ollama's "try pulling it first").
    pub(super) model_missing: bool,
}

/// What a context-length refusal says, where it says it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct TooLong {
    /// The server's window, tokens.
    pub window: Option<u32>,
    /// The prompt's length as the server counted it, tokens.
    pub prompt: Option<u32>,
}

/// Reads an error body for a refusal of the prompt's length, in the
/// wordings of OpenAI, vLLM, llama.cpp (and llama-cpp-python) and Ollama.
pub(super) fn too_long(body: &str) -> Option<TooLong> {
    let b = body.to_ascii_lowercase();
    const SAYS: [&str; 11] = [
        "context_length_exceeded",              // OpenAI's code
        "maximum context length",               // OpenAI, vLLM
        "exceed_context_size_error",            // llama.cpp's type
        "exceeds the available context",        // llama.cpp
        "exceed context window",                // llama-cpp-python
        "longer than the maximum model length", // vLLM's prompt check
        "exceeds the context length",           // Ollama
        "exceeds context length",               // Ollama's runner
        "exceeded max context length",          // Ollama
        "context window exceeded",
        // llama-cpp-python, when a reply runs into the window's end.
        "could not broadcast input array from shape",
    ];
    if !SAYS.iter().any(|s| b.contains(s)) {
        return None;
    }
    let window = [
        "maximum context length is",
        "available context size (",
        "\"n_ctx\":",
        "context window of",
        "maximum model length of",
        "context length of",
        "limit=",
    ]
    .iter()
    .find_map(|p| number_after(&b, p));
    let prompt = [
        "\"n_prompt_tokens\":",
        "request (",
        "requested tokens (",
        "your request has",
        "your messages resulted in",
        "prompt (length",
        "prompt=",
        "in the messages",
    ]
    .iter()
    .find_map(|p| {
        if *p == "in the messages" {
            // "you requested 4231 tokens (3975 in the messages, …)"
            let at = b.find(p)?;
            let head = b[..at].trim_end();
            let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            head[head.len() - digits..].parse().ok()
        } else {
            number_after(&b, p)
        }
    });
    Some(TooLong { window, prompt })
}

/// Whether an error answer says the model asked for is not there.
pub(super) fn model_missing(status: u16, body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    b.contains("model_not_found")
        || (status == 404 || status == 400) && b.contains("model") && (b.contains("not found") || b.contains("does not exist"))
}

/// The number right after `phrase` (spaces, `(`, `:` and `over` between).
fn number_after(text: &str, phrase: &str) -> Option<u32> {
    let at = text.find(phrase)? + phrase.len();
    let rest = text[at..].trim_start_matches([' ', '(', ':', '"']);
    let rest = rest.strip_prefix("over ").unwrap_or(rest);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok().filter(|&n| n > 0)
}

impl AttemptError {
    pub(super) fn retry(cause: Failure) -> Self {
        AttemptError {
            cause,
            retryable: true,
            retry_after: None,
            refused: None,
            unreachable: false,
            too_long: None,
            ended_without_text: false,
            model_missing: false,
        }
    }
    pub(super) fn fatal(cause: Failure) -> Self {
        AttemptError {
            cause,
            retryable: false,
            retry_after: None,
            refused: None,
            unreachable: false,
            too_long: None,
            ended_without_text: false,
            model_missing: false,
        }
    }
}

pub(super) fn classify(e: OpenAIError) -> AttemptError {
    match e {
        OpenAIError::Boxed(b) => match b.downcast::<HttpStatus>() {
            Ok(h) => {
                let cause = Failure::Said(h.to_string());
                // Ollama answers it with a 500: read the words before the status.
                if let Some(t) = too_long(&h.body) {
                    return AttemptError {
                        too_long: Some(t),
                        ..AttemptError::fatal(cause)
                    };
                }
                // llama-cpp-python answers a request field it cannot take
                // with a 500 naming it in a validation error.
                let validation = h.status >= 500 && {
                    let b = h.body.to_ascii_lowercase();
                    b.contains("validation error") || b.contains("literal_error")
                };
                if h.status == 400 || h.status == 422 || validation {
                    if let Some(r) = refused_field(&h.body) {
                        return AttemptError {
                            refused: Some(r),
                            ..AttemptError::fatal(cause)
                        };
                    }
                }
                if model_missing(h.status, &h.body) {
                    return AttemptError {
                        model_missing: true,
                        ..AttemptError::fatal(cause)
                    };
                }
                let quota = h.body.contains("insufficient_quota");
                let retryable = !quota && (h.status == 429 || h.status == 408 || h.status >= 500);
                AttemptError {
                    retry_after: h.retry_after,
                    retryable,
                    ..AttemptError::retry(cause)
                }
            }
            Err(other) => AttemptError::retry(Failure::Said(crate::text::sanitize(&other.to_string()))),
        },
        OpenAIError::Reqwest(r) => {
            let cause = describe_reqwest(&r);
            if r.is_builder() {
                AttemptError::fatal(cause)
            } else {
                AttemptError {
                    unreachable: r.is_connect() || broken_connection(&r),
                    ..AttemptError::retry(cause)
                }
            }
        }
        OpenAIError::ApiError(a) => {
            let status = a.status_code.as_u16();
            let cause = Failure::Said(format!("HTTP {status}: {}", crate::text::sanitize(&a.api_error.message)));
            if status == 429 || status >= 500 {
                AttemptError::retry(cause)
            } else {
                AttemptError::fatal(cause)
            }
        }
        // A cut mid-reply arrives here as text only: an ordinary retry; if
        // the server is gone, the next attempt finds it unreachable.
        OpenAIError::StreamError(s) => AttemptError::retry(Failure::StreamBroken(crate::text::sanitize(&s.to_string()))),
        OpenAIError::InvalidArgument(m) => AttemptError::fatal(Failure::InvalidRequest(m)),
        other => AttemptError::retry(Failure::Said(crate::text::ellipsize(
            &crate::text::sanitize(&other.to_string()),
            300,
        ))),
    }
}

/// A connection the server's end refused or tore down (a server that
/// stopped or restarts), told apart from a reply that went wrong.
fn broken_connection(e: &(dyn std::error::Error + 'static)) -> bool {
    use std::io::ErrorKind::{BrokenPipe, ConnectionAborted, ConnectionRefused, ConnectionReset, NotConnected};
    let mut source = Some(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if matches!(
                io.kind(),
                ConnectionRefused | ConnectionReset | ConnectionAborted | BrokenPipe | NotConnected
            ) {
                return true;
            }
        }
        if s.downcast_ref::<reqwest::Error>().is_some_and(reqwest::Error::is_connect) {
            return true;
        }
        // hyper's words for a kept-alive connection the server closed
        // (hyper is reqwest's, not a dependency of ours to downcast to).
        if s.to_string().contains("connection closed before message completed") {
            return true;
        }
        source = s.source();
    }
    false
}

/// How a request went wrong, and the library's chain of causes (said
/// cleaned and cut short, `Failure::say`).
pub(super) fn describe_reqwest(e: &reqwest::Error) -> Failure {
    use std::error::Error as _;
    let mut causes = String::new();
    let mut source = e.source();
    while let Some(s) = source {
        causes.push_str(": ");
        causes.push_str(&s.to_string());
        source = s.source();
    }
    if e.is_connect() {
        Failure::CannotConnect(causes)
    } else if e.is_timeout() {
        Failure::TimedOut(causes)
    } else if e.is_body() || e.is_decode() {
        Failure::CutOff(causes)
    } else {
        Failure::RequestFailed(causes)
    }
}

/// Servers and proxies sometimes echo the key in an error body; it must not
/// travel on into the transcript, the screen or the log.
pub(super) fn redact(text: &str, key: &str) -> String {
    if key.len() >= 6 && text.contains(key) {
        text.replace(key, "[redacted key]")
    } else {
        text.to_string()
    }
}
