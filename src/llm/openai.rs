//! Any OpenAI-compatible endpoint through async-openai.
//!
//! Two deliberate departures from the crate's defaults:
//! - Replies are parsed into a lenient chunk type (`byot`), because real
//!   servers send empty `finish_reason`, omit `id`/`created`/`object`, send
//!   `usage: {}` or `reasoning_content`; the typed API fails those chunks.
//! - The crate's transport is replaced by [`Transport`], which turns every
//!   non-2xx reply into an [`HttpStatus`] error carrying the status,
//!   `Retry-After` and the raw body. The crate's own retry layer would
//!   retry only OpenAI-shaped 429 bodies and drop `Retry-After` dates; one
//!   policy here covers 429/5xx/connection/stall/cut-stream alike.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use async_openai::Client;
use backon::BackoffBuilder;
use foldhash::HashMap;
use futures::stream::BoxStream;
use futures::StreamExt;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::{ChatMessage, ChatRequest, Cue, LlmEvent, Provider, ProviderInfo, Role};

#[derive(Debug, Clone)]
pub struct OpenAiSettings {
    pub base_url: String,
    pub api_key: String,
    pub model: String,
    pub request_timeout: Duration,
    pub stall_timeout: Duration,
    pub max_retries: u32,
    /// Shortest backoff delay; tests shrink it.
    pub min_backoff: Duration,
}

pub struct OpenAiProvider {
    client: Client<OpenAIConfig>,
    settings: OpenAiSettings,
    /// Request fields some servers refuse; after one refusal each is left
    /// out (or renamed) for the rest of the session.
    options: Arc<Options>,
    wire: WireCache,
    http: reqwest::Client,
}

/// Each agent's last request, message by message, with the JSON it was
/// sent as. An agent's next call repeats all of it but the newest round,
/// and escaping the whole history again for every call (165 KB by round
/// 100) cost more than anything else done per request. A message is
/// reused only when its role and text are equal to the cached one (the
/// same shared text, as the engine hands it on, or an equal one).
#[derive(Default)]
struct WireCache {
    by_agent: Mutex<HashMap<String, Vec<WireEntry>>>,
}

struct WireEntry {
    role: Role,
    content: Arc<str>,
    json: Arc<RawValue>,
}

impl WireCache {
    fn messages(&self, agent: Option<&str>, messages: &[ChatMessage]) -> Vec<Arc<RawValue>> {
        let Some(agent) = agent else {
            return messages.iter().map(wire_json).collect();
        };
        let mut by_agent = self.by_agent.lock().unwrap_or_else(|e| e.into_inner());
        let cached = by_agent.entry(agent.to_string()).or_default();
        cached.truncate(messages.len());
        messages
            .iter()
            .enumerate()
            .map(|(i, m)| match cached.get_mut(i) {
                Some(c) if c.role == m.role && (Arc::ptr_eq(&c.content, &m.content) || c.content == m.content) => c.json.clone(),
                slot => {
                    let entry = WireEntry {
                        role: m.role,
                        content: m.content.clone(),
                        json: wire_json(m),
                    };
                    let json = entry.json.clone();
                    match slot {
                        Some(c) => *c = entry,
                        None => cached.push(entry),
                    }
                    json
                }
            })
            .collect()
    }
}

fn wire_json(m: &ChatMessage) -> Arc<RawValue> {
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    let json = serde_json::value::to_raw_value(&WireMessage { role, content: &m.content }).expect("a struct of two strings serialises");
    Arc::from(json)
}

/// Request fields that not every server takes.
struct Options {
    /// `stream_options: {include_usage}`.
    usage: AtomicBool,
    /// `stop`. Reasoning models of OpenAI refuse it.
    stop: AtomicBool,
    /// The reply cap: 0 `max_tokens`, 1 `max_completion_tokens` (newer
    /// OpenAI models refuse the older name), 2 none.
    cap_field: std::sync::atomic::AtomicU8,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            usage: AtomicBool::new(true),
            stop: AtomicBool::new(true),
            cap_field: std::sync::atomic::AtomicU8::new(0),
        }
    }
}

/// What to change when a server refuses a request for one of its fields.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Refused {
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

impl Options {
    /// Leaves out or renames the refused field; false if that was done already.
    fn give_up(&self, r: Refused) -> bool {
        match r {
            Refused::Usage => self.usage.swap(false, Ordering::Relaxed),
            Refused::Stop => self.stop.swap(false, Ordering::Relaxed),
            Refused::MaxTokens => self.cap_field.compare_exchange(0, 1, Ordering::Relaxed, Ordering::Relaxed).is_ok(),
            Refused::MaxCompletionTokens => self.cap_field.compare_exchange(1, 2, Ordering::Relaxed, Ordering::Relaxed).is_ok(),
        }
    }
}

/// OpenAI's own API takes at most 4 stop sequences; local servers take more.
fn stop_limit(base_url: &str) -> usize {
    if base_url.contains("api.openai.com") {
        4
    } else {
        16
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
fn error_message(body: &str) -> String {
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

fn parse_retry_after(value: &str) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<f64>() {
        return (secs >= 0.0 && secs.is_finite()).then(|| Duration::from_secs_f64(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let wait = when.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

#[derive(Clone)]
struct Transport {
    http: reqwest::Client,
}

impl tower_service::Service<HttpRequestFactory> for Transport {
    type Response = reqwest::Response;
    type Error = OpenAIError;
    type Future = Pin<Box<dyn Future<Output = Result<reqwest::Response, OpenAIError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, factory: HttpRequestFactory) -> Self::Future {
        let http = self.http.clone();
        Box::pin(async move {
            let request = factory.build().await?;
            let response = http.execute(request).await.map_err(OpenAIError::Reqwest)?;
            if response.status().is_success() {
                return Ok(response);
            }
            let status = response.status().as_u16();
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(parse_retry_after);
            // Bound what an error page may cost us.
            let mut body = Vec::new();
            let mut stream = response.bytes_stream();
            while let Some(Ok(chunk)) = stream.next().await {
                body.extend_from_slice(&chunk);
                if body.len() > 64 * 1024 {
                    break;
                }
            }
            let body = String::from_utf8_lossy(&body).into_owned();
            Err(OpenAIError::Boxed(Box::new(HttpStatus { status, retry_after, body })))
        })
    }
}

/// The request as sent: the messages are JSON already (see [`WireCache`]).
#[derive(serde::Serialize)]
struct Body<'a> {
    model: &'a str,
    #[serde(serialize_with = "raw_messages")]
    messages: &'a [Arc<RawValue>],
    temperature: f32,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop: &'a [String],
}

#[derive(serde::Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    content: &'a str,
}

fn raw_messages<S: serde::Serializer>(messages: &&[Arc<RawValue>], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(messages.iter().map(|m| &**m))
}

#[derive(serde::Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Chunk {
    choices: Vec<Choice>,
    usage: Option<serde_json::Value>,
    /// llama.cpp's server: `cache_n` is the prompt tokens it reused.
    timings: Option<serde_json::Value>,
    error: Option<serde_json::Value>,
}

/// Prompt tokens the server reused: OpenAI's and vLLM's
/// `usage.prompt_tokens_details.cached_tokens`, llama.cpp's `timings.cache_n`.
fn cached_tokens(usage: Option<&serde_json::Value>, timings: Option<&serde_json::Value>) -> Option<u64> {
    usage
        .and_then(|u| u.pointer("/prompt_tokens_details/cached_tokens"))
        .or_else(|| timings.and_then(|t| t.get("cache_n")))
        .and_then(|v| v.as_u64())
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Choice {
    delta: Delta,
    finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Delta {
    content: Option<String>,
}

/// What one stream chunk carries, as the engine reads it.
#[derive(Debug, PartialEq)]
pub struct ChunkSummary {
    pub texts: Vec<String>,
    pub finished: bool,
    pub usage: Option<(u64, u64)>,
    pub error: bool,
}

/// Reads one stream chunk with the lenient parser (for tests and fuzzing).
pub fn read_chunk(data: &str) -> Result<ChunkSummary, String> {
    let c: Chunk = serde_json::from_str(data).map_err(|e| e.to_string())?;
    Ok(ChunkSummary {
        texts: c.choices.iter().filter_map(|ch| ch.delta.content.clone()).collect(),
        finished: c
            .choices
            .iter()
            .any(|ch| ch.finish_reason.as_deref().is_some_and(|r| !r.is_empty())),
        usage: c
            .usage
            .as_ref()
            .and_then(|u| Some((u.get("prompt_tokens")?.as_u64()?, u.get("completion_tokens")?.as_u64()?))),
        error: c.error.is_some(),
    })
}

/// Why an attempt failed, and whether another attempt may help.
#[derive(Debug)]
struct AttemptError {
    cause: String,
    retryable: bool,
    retry_after: Option<Duration>,
    /// The server refused a request field; retry at once without it.
    refused: Option<Refused>,
}

impl AttemptError {
    fn retry(cause: impl Into<String>) -> Self {
        AttemptError {
            cause: cause.into(),
            retryable: true,
            retry_after: None,
            refused: None,
        }
    }
    fn fatal(cause: impl Into<String>) -> Self {
        AttemptError {
            cause: cause.into(),
            retryable: false,
            retry_after: None,
            refused: None,
        }
    }
}

fn classify(e: OpenAIError) -> AttemptError {
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

impl OpenAiProvider {
    pub fn new(settings: OpenAiSettings) -> Result<OpenAiProvider, String> {
        // async-openai builds the Authorization header with an unwrap; a key
        // with a newline would panic inside a request. Check it here, and
        // never repeat the key in the message.
        if reqwest::header::HeaderValue::from_str(&format!("Bearer {}", settings.api_key)).is_err() {
            return Err(crate::tr!(
                "OPENAI_API_KEY contains characters that cannot be sent in an HTTP header (a line break or control character?)",
                "OPENAI_API_KEY 含有无法放入 HTTP 头的字符（换行或控制字符？）"
            ));
        }
        let base = settings.base_url.trim_end_matches('/').to_string();
        let config = OpenAIConfig::new().with_api_base(base).with_api_key(settings.api_key.clone());
        let mut builder = reqwest::Client::builder().connect_timeout(Duration::from_secs(10).min(settings.request_timeout));
        if settings.base_url.trim_start().to_ascii_lowercase().starts_with("http://") {
            // A plain-HTTP endpoint (a local model server) needs no root
            // certificates; reading the system's costs milliseconds at start.
            builder = builder.tls_certs_only([]);
        }
        let http = builder
            .build()
            .map_err(|e| crate::tr!("cannot set up the HTTP client: {e}", "无法建立 HTTP 客户端：{e}"))?;
        // `Client::with_config` would build a second reqwest client, reading
        // every system root certificate again: start-up time for nothing.
        let client = Client::build(http.clone(), config).with_http_service(Transport { http: http.clone() });
        Ok(OpenAiProvider {
            client,
            settings,
            options: Arc::new(Options::default()),
            wire: WireCache::default(),
            http,
        })
    }
}

impl Provider for OpenAiProvider {
    fn info(&self) -> ProviderInfo {
        ProviderInfo {
            kind: "openai".into(),
            model: self.settings.model.clone(),
            base_url: Some(self.settings.base_url.clone()),
            rehearsal: false,
        }
    }

    fn embed(&self, model: &str, texts: Vec<String>) -> futures::future::BoxFuture<'static, Result<Vec<Vec<f32>>, String>> {
        let client = self.client.clone();
        let key = self.settings.api_key.clone();
        let timeout = self.settings.request_timeout;
        let body = serde_json::json!({ "model": model, "input": texts });
        let n = texts.len();
        Box::pin(async move {
            // A lenient reply type: servers often omit `usage` (which the
            // typed response requires) or add fields of their own.
            let embeddings = client.embeddings();
            let call = embeddings.create_byot::<serde_json::Value, serde_json::Value>(body);
            let reply = match tokio::time::timeout(timeout, call).await {
                Err(_) => {
                    let s = timeout.as_secs();
                    return Err(crate::tr!("no reply within {s} s", "{s} 秒内没有回复"));
                }
                Ok(Err(e)) => return Err(redact(&classify(e).cause, &key)),
                Ok(Ok(v)) => v,
            };
            let mut data: Vec<(usize, Vec<f32>)> = reply["data"]
                .as_array()
                .ok_or("the reply has no `data` list")?
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    let idx = d["index"].as_u64().map_or(i, |x| x as usize);
                    let v = d["embedding"]
                        .as_array()
                        .map(|a| a.iter().filter_map(|x| x.as_f64()).map(|x| x as f32).collect())
                        .unwrap_or_default();
                    (idx, v)
                })
                .collect();
            data.sort_by_key(|(i, _)| *i);
            let vectors: Vec<Vec<f32>> = data.into_iter().map(|(_, v)| v).collect();
            if vectors.len() != n || vectors.iter().any(Vec::is_empty) {
                return Err(format!("expected {n} embedding vectors, got {}", vectors.len()));
            }
            Ok(vectors)
        })
    }

    fn context_window(&self) -> futures::future::BoxFuture<'static, Option<u32>> {
        let http = self.http.clone();
        let base = self.settings.base_url.trim_end_matches('/').to_string();
        let key = self.settings.api_key.clone();
        let model = self.settings.model.clone();
        Box::pin(async move {
            let get = |url: String| {
                let req = http.get(url).bearer_auth(&key).timeout(PROBE_TIMEOUT);
                async move {
                    req.send()
                        .await
                        .ok()?
                        .error_for_status()
                        .ok()?
                        .json::<serde_json::Value>()
                        .await
                        .ok()
                }
            };
            // vLLM (and servers copying it): `max_model_len` per model.
            if let Some(v) = get(format!("{base}/models")).await {
                if let Some(n) = window_in_models(&v, &model) {
                    return Some(n);
                }
            }
            // llama.cpp's server: `/props` at the server's root.
            let root = base.strip_suffix("/v1").unwrap_or(&base);
            let v = get(format!("{root}/props")).await?;
            window_in_props(&v)
        })
    }

    fn stream(&self, req: ChatRequest) -> BoxStream<'static, LlmEvent> {
        let (tx, mut rx) = mpsc::channel(256);
        let client = self.client.clone();
        let settings = self.settings.clone();
        let options = self.options.clone();
        let agent = match &req.cue {
            Cue::Turn { agent, .. } | Cue::Farewell { agent, .. } => Some(agent.id.as_str()),
            _ => None,
        };
        let messages = self.wire.messages(agent, &req.messages);
        // The request runs inside the stream, polled by whoever reads it,
        // not as a task of its own: one hand-over between tasks less per
        // token. Dropping the stream (a cancel) drops the request with it,
        // which closes the connection. The channel ends when `run` is done.
        let request = async move { run(client, settings, options, req, messages, &tx).await };
        let driver = futures::stream::once(request).filter_map(|()| futures::future::ready(None));
        let events = futures::stream::poll_fn(move |cx| rx.poll_recv(cx));
        futures::stream::select(events, driver).boxed()
    }
}

/// How long each question about the window may take: it is asked once,
/// before the first round, and the default serves when it goes unanswered.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// vLLM's `GET /v1/models`: `data[].max_model_len`, the configured model's
/// entry first.
fn window_in_models(v: &serde_json::Value, model: &str) -> Option<u32> {
    let data = v["data"].as_array()?;
    let n = |m: &serde_json::Value| m["max_model_len"].as_u64();
    data.iter()
        .find(|m| m["id"].as_str() == Some(model))
        .and_then(n)
        .or_else(|| data.iter().find_map(n))
        .and_then(|n| u32::try_from(n).ok())
        .filter(|&n| n >= 512)
}

/// llama.cpp's `GET /props`: `default_generation_settings.n_ctx` (older and
/// newer builds also give it at the top level). The per-slot window is
/// what a request may use.
fn window_in_props(v: &serde_json::Value) -> Option<u32> {
    v["default_generation_settings"]["n_ctx"]
        .as_u64()
        .or_else(|| v["n_ctx"].as_u64())
        .and_then(|n| u32::try_from(n).ok())
        .filter(|&n| n >= 512)
}

async fn run(
    client: Client<OpenAIConfig>,
    settings: OpenAiSettings,
    options: Arc<Options>,
    req: ChatRequest,
    messages: Vec<Arc<RawValue>>,
    tx: &mpsc::Sender<LlmEvent>,
) {
    let mut backoff = backon::ExponentialBuilder::default()
        .with_min_delay(settings.min_backoff)
        .with_max_delay(Duration::from_secs(20))
        .with_max_times(settings.max_retries as usize)
        .with_jitter()
        .build();
    let model = req.model.clone().unwrap_or_else(|| settings.model.clone());
    let stop = &req.stop[..req.stop.len().min(stop_limit(&settings.base_url))];
    let mut attempt = 0u32;
    loop {
        attempt += 1;
        let cap_field = options.cap_field.load(Ordering::Relaxed);
        let body = Body {
            model: &model,
            messages: &messages,
            temperature: req.temperature,
            stream: true,
            stream_options: options
                .usage
                .load(Ordering::Relaxed)
                .then_some(StreamOptions { include_usage: true }),
            max_tokens: req.max_tokens.filter(|_| cap_field == 0),
            max_completion_tokens: req.max_tokens.filter(|_| cap_field == 1),
            stop: if options.stop.load(Ordering::Relaxed) { stop } else { &[] },
        };
        let err = match one_attempt(&client, &settings, &body, tx).await {
            Ok(()) => {
                let _ = tx.send(LlmEvent::Done).await;
                return;
            }
            Err(e) => e,
        };
        let err = AttemptError {
            cause: redact(&err.cause, &settings.api_key),
            ..err
        };
        tracing::warn!(attempt, cause = %err.cause, "model call failed");
        if err.refused.is_some_and(|r| options.give_up(r)) {
            attempt -= 1;
            continue;
        }
        if !err.retryable {
            let _ = tx.send(LlmEvent::Failed(err.cause)).await;
            return;
        }
        let Some(delay) = backoff.next() else {
            let cause = &err.cause;
            let _ = tx
                .send(LlmEvent::Failed(crate::tr!(
                    "{cause} (after {attempt} attempts)",
                    "{cause}（已尝试 {attempt} 次）"
                )))
                .await;
            return;
        };
        let delay = err.retry_after.map(|d| d.min(Duration::from_secs(120))).unwrap_or(delay);
        let _ = tx
            .send(LlmEvent::Retrying {
                attempt,
                delay_ms: delay.as_millis() as u64,
                cause: err.cause,
            })
            .await;
        tokio::time::sleep(delay).await;
    }
}

/// Servers and proxies sometimes echo the key in an error body; it must not
/// travel on into the transcript, the screen or the log.
fn redact(text: &str, key: &str) -> String {
    if key.len() >= 6 && text.contains(key) {
        text.replace(key, "[redacted key]")
    } else {
        text.to_string()
    }
}

async fn one_attempt(
    client: &Client<OpenAIConfig>,
    settings: &OpenAiSettings,
    body: &Body<'_>,
    tx: &mpsc::Sender<LlmEvent>,
) -> Result<(), AttemptError> {
    let chat = client.chat();
    // Until the first token the wait is the request timeout, counted from
    // the start: a model on a CPU sends its headers at once and then reads
    // the prompt in silence, for a minute or more. Only once it writes does
    // the stall timeout watch the gaps between tokens.
    let first_deadline = tokio::time::Instant::now() + settings.request_timeout;
    let no_first_token = || {
        let s = settings.request_timeout.as_secs();
        AttemptError::retry(crate::tr!("no reply within {s} s", "{s} 秒内没有回复"))
    };
    let start = chat.create_stream_byot::<&Body, Chunk>(body);
    let mut stream = match tokio::time::timeout_at(first_deadline, start).await {
        Err(_) => return Err(no_first_token()),
        Ok(Err(e)) => return Err(classify(e)),
        Ok(Ok(s)) => s,
    };
    let mut got_text = false;
    let mut finished = false;
    // One timer for the whole reply, moved on only when it fires: a timeout
    // per chunk would register a new timer with the runtime (and wake its
    // driver) for nearly every token.
    let mut progress = tokio::time::Instant::now();
    let timer = tokio::time::sleep_until(first_deadline);
    tokio::pin!(timer);
    loop {
        let item = tokio::select! {
            biased;
            item = stream.next() => match item {
                None => break,
                Some(item) => {
                    progress = tokio::time::Instant::now();
                    item
                }
            },
            () = &mut timer => {
                if !got_text {
                    return Err(no_first_token());
                }
                if progress.elapsed() < settings.stall_timeout {
                    timer.as_mut().reset(progress + settings.stall_timeout);
                    continue;
                }
                return Err({
                    let s = settings.stall_timeout.as_secs();
                    AttemptError::retry(crate::tr!("reply stalled: nothing for {s} s", "回复停滞：{s} 秒没有数据"))
                });
            }
        };
        match item {
            Ok(chunk) => {
                if let Some(err) = chunk.error {
                    let msg = error_message(&err.to_string());
                    return Err(AttemptError::retry(crate::tr!(
                        "server error in stream: {msg}",
                        "流中的服务器错误：{msg}"
                    )));
                }
                for choice in chunk.choices {
                    if let Some(text) = choice.delta.content.filter(|t| !t.is_empty()) {
                        if !got_text {
                            got_text = true;
                            timer.as_mut().reset(progress + settings.stall_timeout);
                        }
                        if tx.send(LlmEvent::Token(text)).await.is_err() {
                            return Ok(());
                        }
                    }
                    match choice.finish_reason.as_deref() {
                        Some("length") => {
                            finished = true;
                            let _ = tx.send(LlmEvent::Capped).await;
                        }
                        Some(r) if !r.is_empty() => finished = true,
                        _ => {}
                    }
                }
                if let Some(u) = &chunk.usage {
                    let p = u.get("prompt_tokens").and_then(|v| v.as_u64());
                    let c = u.get("completion_tokens").and_then(|v| v.as_u64());
                    if let (Some(prompt), Some(completion)) = (p, c) {
                        let cached = cached_tokens(chunk.usage.as_ref(), chunk.timings.as_ref());
                        let _ = tx
                            .send(LlmEvent::Usage {
                                prompt,
                                completion,
                                cached,
                            })
                            .await;
                    }
                }
            }
            // One malformed chunk among good ones: skip it, as the stream
            // itself goes on; the raw payload goes to the log only.
            Err(OpenAIError::JSONDeserialize(e, raw)) => {
                tracing::warn!(error = %e, payload = %crate::text::ellipsize(&raw, 500), "skipped a malformed stream chunk");
            }
            Err(e) => return Err(classify(e)),
        }
    }
    if !got_text {
        return Err(AttemptError::retry(if finished {
            crate::tr!("the model sent an empty reply", "模型返回了空回复")
        } else {
            crate::tr!("the reply ended before any text", "回复在输出文字前就结束了")
        }));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_of_every_shape() {
        assert_eq!(error_message(r#"{"error":{"message":"bad model","type":"x"}}"#), "bad model");
        assert_eq!(error_message(r#"{"object":"error","message":"flat"}"#), "flat");
        assert_eq!(error_message(r#"{"error":"plain"}"#), "plain");
        assert_eq!(error_message("Too Many Requests"), "Too Many Requests");
    }

    #[test]
    fn servers_tell_their_window_in_their_own_shapes() {
        let vllm = serde_json::json!({"object": "list", "data": [
            {"id": "other", "max_model_len": 8192},
            {"id": "qwen", "object": "model", "max_model_len": 32768}]});
        assert_eq!(window_in_models(&vllm, "qwen"), Some(32768));
        assert_eq!(
            window_in_models(&vllm, "unknown"),
            Some(8192),
            "the first one when the model is not listed"
        );
        // OpenAI's and llama-cpp-python's lists say nothing about windows.
        let openai = serde_json::json!({"object": "list", "data": [{"id": "gpt-4o", "object": "model", "owned_by": "system"}]});
        assert_eq!(window_in_models(&openai, "gpt-4o"), None);
        let llama = serde_json::json!({"default_generation_settings": {"n_ctx": 4096, "temperature": 0.8}, "total_slots": 1});
        assert_eq!(window_in_props(&llama), Some(4096));
        assert_eq!(window_in_props(&serde_json::json!({"n_ctx": 2048})), Some(2048));
        assert_eq!(window_in_props(&serde_json::json!({"detail": "Not Found"})), None);
        assert_eq!(window_in_props(&serde_json::json!({"n_ctx": 0})), None, "nonsense is ignored");
    }

    #[test]
    fn echoed_keys_are_redacted() {
        assert_eq!(redact("bad key sk-abcdef123 here", "sk-abcdef123"), "bad key [redacted key] here");
        assert_eq!(redact("short keys are not hunted", "k"), "short keys are not hunted");
    }

    #[test]
    fn wire_cache_reuses_equal_messages_and_remakes_changed_ones() {
        let cache = WireCache::default();
        let m = ChatMessage::new;
        let first = cache.messages(Some("a"), &[m(Role::System, "sys"), m(Role::User, "hi \"room\"\n")]);
        let second = cache.messages(
            Some("a"),
            &[m(Role::System, "sys"), m(Role::Assistant, "hi \"room\"\n"), m(Role::User, "next")],
        );
        assert!(Arc::ptr_eq(&first[0], &second[0]), "an equal message is sent as it was");
        assert_eq!(second[1].get(), r#"{"role":"assistant","content":"hi \"room\"\n"}"#);
        assert_eq!(second[2].get(), r#"{"role":"user","content":"next"}"#);
        let shorter = cache.messages(Some("a"), &[m(Role::System, "sys 2")]);
        assert_eq!(shorter.len(), 1);
        assert_eq!(shorter[0].get(), r#"{"role":"system","content":"sys 2"}"#);
        let other = cache.messages(Some("b"), &[m(Role::System, "sys")]);
        assert!(!Arc::ptr_eq(&other[0], &first[0]), "each agent has its own");
        let body = Body {
            model: "m",
            messages: &second,
            temperature: 0.5,
            stream: true,
            stream_options: None,
            max_tokens: Some(99),
            max_completion_tokens: None,
            stop: &["\nKofi:".to_string()],
        };
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            serde_json::json!({
                "model": "m",
                "messages": [
                    {"role": "system", "content": "sys"},
                    {"role": "assistant", "content": "hi \"room\"\n"},
                    {"role": "user", "content": "next"},
                ],
                "temperature": 0.5,
                "stream": true,
                "max_tokens": 99,
                "stop": ["\nKofi:"],
            })
        );
    }

    #[test]
    fn retry_after_seconds_and_dates() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon"), None);
    }
}
