//! What went wrong with an attempt, read from a status, a body or a
//! transport error: the message to show, whether to retry, and when.

use std::time::Duration;

use async_openai::error::OpenAIError;

/// What to change when a server refuses a request for one of its fields.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Refused {
    Usage,
    Stop,
    MaxTokens,
    MaxCompletionTokens,
}

/// Reads a 400's body for a field the server does not take.
fn refused_field(body: &str) -> Option<Refused> {
    let b = body.to_ascii_lowercase();
    if b.contains("stream_options") {
        Some(Refused::Usage)
    } else if b.contains("max_completion_tokens") && !b.contains("context") {
        Some(Refused::MaxTokens)
    } else if b.contains("max_tokens") && (b.contains("unsupported") || b.contains("not supported") || b.contains("unrecognized")) {
        Some(Refused::MaxCompletionTokens)
    } else if b.contains("'stop'") || b.contains("\"stop\"") || b.contains("`stop`") || b.contains("param\":\"stop") {
        Some(Refused::Stop)
    } else {
        None
    }
}

/// A non-2xx HTTP reply, with what the retry policy and the facilitator need.
#[derive(Debug)]
pub struct HttpStatus {
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
    pub(super) cause: String,
    pub(super) retryable: bool,
    pub(super) retry_after: Option<Duration>,
    /// The server refused a request field; retry at once without it.
    pub(super) refused: Option<Refused>,
}

impl AttemptError {
    pub(super) fn retry(cause: impl Into<String>) -> Self {
        AttemptError {
            cause: cause.into(),
            retryable: true,
            retry_after: None,
            refused: None,
        }
    }
    pub(super) fn fatal(cause: impl Into<String>) -> Self {
        AttemptError {
            cause: cause.into(),
            retryable: false,
            retry_after: None,
            refused: None,
        }
    }
}

pub(super) fn classify(e: OpenAIError) -> AttemptError {
    match e {
        OpenAIError::Boxed(b) => match b.downcast::<HttpStatus>() {
            Ok(h) => {
                let cause = h.to_string();
                if h.status == 400 {
                    if let Some(r) = refused_field(&h.body) {
                        return AttemptError {
                            refused: Some(r),
                            ..AttemptError::fatal(cause)
                        };
                    }
                }
                let quota = h.body.contains("insufficient_quota");
                let retryable = !quota && (h.status == 429 || h.status == 408 || h.status >= 500);
                AttemptError {
                    cause,
                    retryable,
                    retry_after: h.retry_after,
                    refused: None,
                }
            }
            Err(other) => AttemptError::retry(crate::text::sanitize(&other.to_string())),
        },
        OpenAIError::Reqwest(r) => {
            let cause = describe_reqwest(&r);
            if r.is_builder() {
                AttemptError::fatal(cause)
            } else {
                AttemptError::retry(cause)
            }
        }
        OpenAIError::ApiError(a) => {
            let status = a.status_code.as_u16();
            let cause = format!("HTTP {status}: {}", crate::text::sanitize(&a.api_error.message));
            if status == 429 || status >= 500 {
                AttemptError::retry(cause)
            } else {
                AttemptError::fatal(cause)
            }
        }
        OpenAIError::StreamError(s) => AttemptError::retry({
            let why = crate::text::sanitize(&s.to_string());
            crate::tr!("stream broken: {why}", "流中断：{why}")
        }),
        OpenAIError::InvalidArgument(m) => AttemptError::fatal(crate::tr!("invalid request: {m}", "无效请求：{m}")),
        other => AttemptError::retry(crate::text::ellipsize(&crate::text::sanitize(&other.to_string()), 300)),
    }
}

fn describe_reqwest(e: &reqwest::Error) -> String {
    use std::error::Error as _;
    let mut msg = if e.is_connect() {
        crate::tr!("cannot connect", "无法连接")
    } else if e.is_timeout() {
        crate::tr!("timed out", "超时")
    } else if e.is_body() || e.is_decode() {
        crate::tr!("reply cut off", "回复被截断")
    } else {
        crate::tr!("request failed", "请求失败")
    };
    let mut source = e.source();
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    crate::text::ellipsize(&crate::text::sanitize(&msg), 300)
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
