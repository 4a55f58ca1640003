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
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use async_openai::Client;
use futures::stream::BoxStream;
use futures::StreamExt;
use tokio::sync::mpsc;

use super::{ChatRequest, Cue, Failure, LlmEvent, Provider, ProviderInfo};

mod call;
mod errors;
mod listing;
/// The size of `model` as Ollama's own list says (`GET /api/tags`,
/// `details.parameter_size`), in billions of parameters; None from any
/// other server (a 404) or on any doubt.
async fn ollama_size(http: &reqwest::Client, settings: &OpenAiSettings, model: &str) -> Option<f64> {
    let v = root_json(http, &settings.base_url, "api/tags", &settings.api_key).await?;
    crate::llm::discovery::server_size(&v, model)
}

/// `GET PATH` at the server's root (its base URL without `/v1`), where
/// llama.cpp and Ollama answer what the OpenAI API does not: the JSON, or
/// None for any failure, status or body that is not JSON. A probe, so
/// short (`window::PROBE_TIMEOUT`).
async fn root_json(http: &reqwest::Client, base_url: &str, path: &str, key: &str) -> Option<serde_json::Value> {
    let base = base_url.trim_end_matches('/');
    let root = base.strip_suffix("/v1").unwrap_or(base);
    let req = http.get(format!("{root}/{path}")).bearer_auth(key).timeout(window::PROBE_TIMEOUT);
    req.send()
        .await
        .ok()?
        .error_for_status()
        .ok()?
        .json::<serde_json::Value>()
        .await
        .ok()
}

#[cfg(test)]
mod tests;
mod window;
mod wire;

use errors::{classify, parse_retry_after, redact, HttpStatus, Refused};
use listing::{Listed, Listing};
use window::{window_in_models, window_in_props};
pub use wire::read_chunk;
use wire::WireCache;

#[derive(Debug, Clone)]
pub struct OpenAiSettings {
    pub base_url: String,
    pub api_key: String,
    /// The model a call names when its agent names none.
    pub model: String,
    /// Whether `model` was named (a flag, the config, the environment);
    /// if not, the endpoint's own list chooses (`llm::discovery`).
    pub model_named: bool,
    pub request_timeout: Duration,
    pub stall_timeout: Duration,
    pub max_retries: u32,
    /// How long a server that cannot be reached is waited for (a restart),
    /// apart from `max_retries`.
    pub retry_window: Duration,
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
    listing: Listing,
}

/// Request fields that not every server takes.
struct Options {
    /// `stream_options: {include_usage}`.
    usage: AtomicBool,
    /// `stop`. Reasoning models of OpenAI refuse it.
    stop: AtomicBool,
    /// `seed`, sent only with a reply asked again.
    seed: AtomicBool,
    /// The reply cap: 0 `max_tokens`, 1 `max_completion_tokens` (newer
    /// OpenAI models refuse the older name), 2 none.
    cap_field: std::sync::atomic::AtomicU8,
    /// How a JSON schema is asked for: 0 OpenAI's `json_schema` form (vLLM,
    /// Ollama, llama.cpp's server, LM Studio take it too), 1
    /// `json_object` with the schema beside it (llama-cpp-python's form),
    /// 2 not at all (the prompt alone asks for JSON).
    schema_form: std::sync::atomic::AtomicU8,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            usage: AtomicBool::new(true),
            stop: AtomicBool::new(true),
            seed: AtomicBool::new(true),
            cap_field: std::sync::atomic::AtomicU8::new(0),
            schema_form: std::sync::atomic::AtomicU8::new(0),
        }
    }
}

impl Options {
    /// Leaves out or renames the refused field; false if that was done already.
    fn give_up(&self, r: Refused) -> bool {
        match r {
            Refused::Usage => self.usage.swap(false, Ordering::Relaxed),
            Refused::Stop => self.stop.swap(false, Ordering::Relaxed),
            Refused::Seed => self.seed.swap(false, Ordering::Relaxed),
            Refused::MaxTokens => self.cap_field.compare_exchange(0, 1, Ordering::Relaxed, Ordering::Relaxed).is_ok(),
            Refused::MaxCompletionTokens => self.cap_field.compare_exchange(1, 2, Ordering::Relaxed, Ordering::Relaxed).is_ok(),
            Refused::ResponseFormat => {
                let form = self.schema_form.load(Ordering::Relaxed);
                form < 2
                    && self
                        .schema_form
                        .compare_exchange(form, form + 1, Ordering::Relaxed, Ordering::Relaxed)
                        .is_ok()
            }
        }
    }

    /// `response_format` for `schema` in the form this server takes, if any.
    fn response_format(&self, schema: Option<&serde_json::Value>) -> Option<serde_json::Value> {
        let schema = schema?;
        match self.schema_form.load(Ordering::Relaxed) {
            0 => Some(serde_json::json!({
                "type": "json_schema",
                "json_schema": { "name": "answer", "strict": true, "schema": schema }
            })),
            1 => Some(serde_json::json!({ "type": "json_object", "schema": schema })),
            _ => None,
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

impl OpenAiProvider {
    pub fn new(settings: OpenAiSettings) -> Result<OpenAiProvider, Failure> {
        // async-openai builds the Authorization header with an unwrap; a key
        // with a newline would panic inside a request. Check it here, and
        // never repeat the key in the message.
        if reqwest::header::HeaderValue::from_str(&format!("Bearer {}", settings.api_key)).is_err() {
            return Err(Failure::BadApiKey);
        }
        let base = settings.base_url.trim_end_matches('/').to_string();
        let config = OpenAIConfig::new().with_api_base(base).with_api_key(settings.api_key.clone());
        let mut builder = reqwest::Client::builder().connect_timeout(Duration::from_secs(10).min(settings.request_timeout));
        if settings.base_url.trim_start().to_ascii_lowercase().starts_with("http://") {
            // A plain-HTTP endpoint (a local model server) needs no root
            // certificates; reading the system's costs milliseconds at start.
            builder = builder.tls_certs_only([]);
        }
        let http = builder.build().map_err(|e| Failure::HttpClient(e.to_string()))?;
        // `Client::with_config` would build a second reqwest client, reading
        // every system root certificate again: start-up time for nothing.
        let client = Client::build(http.clone(), config).with_http_service(Transport { http: http.clone() });
        let listing = Listing::new(http.clone(), &settings.base_url, &settings.api_key);
        Ok(OpenAiProvider {
            client,
            settings,
            options: Arc::new(Options::default()),
            wire: WireCache::default(),
            http,
            listing,
        })
    }

    /// The model a call without its own uses, as far as it is known now.
    fn model(&self) -> String {
        model_from(&self.settings, self.listing.known())
    }
}

/// The named model; else the one chosen from the endpoint's list, once it
/// has answered; else the default.
fn model_from(settings: &OpenAiSettings, listed: Option<&Listed>) -> String {
    if settings.model_named {
        return settings.model.clone();
    }
    listed
        .and_then(|l| crate::llm::discovery::choose(&l.models, &settings.model, crate::llm::discovery::is_local(&settings.base_url)))
        .unwrap_or_else(|| settings.model.clone())
}

impl Provider for OpenAiProvider {
    fn info(&self) -> ProviderInfo {
        ProviderInfo {
            kind: "openai".into(),
            model: self.model(),
            model_settled: self.settings.model_named || self.listing.known().is_some(),
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
                // Only logged: in English.
                Err(_) => return Err(Failure::NoReplyWithin(timeout.as_secs()).to_string()),
                Ok(Err(e)) => return Err(classify(e).cause.map_text(&|t| redact(t, &key)).to_string()),
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

    fn check(&self) -> futures::future::BoxFuture<'static, Option<crate::llm::EndpointCheck>> {
        let listing = self.listing.clone();
        let settings = self.settings.clone();
        let http = self.http.clone();
        Box::pin(async move {
            let answer = listing.get().await;
            let listed = answer.as_ref().map(|l| l.models.clone()).unwrap_or_default();
            let model = model_from(&settings, answer.as_ref().ok());
            let chosen = (!settings.model_named && model != settings.model).then(|| model.clone());
            let mut billions = answer
                .as_ref()
                .ok()
                .and_then(|l| crate::llm::discovery::server_size(&l.json, &model));
            // Ollama's OpenAI list gives no size; its own list does. Asked
            // only of a local server that answered: one quick request.
            if billions.is_none() && answer.is_ok() && crate::llm::discovery::is_local(&settings.base_url) {
                billions = ollama_size(&http, &settings, &model).await;
            }
            Some(crate::llm::EndpointCheck {
                url: crate::text::shown_url(&settings.base_url),
                unreachable: answer.err().map(|e| e.map_text(&|t| redact(t, &settings.api_key))),
                listed,
                chosen,
                model,
                billions,
            })
        })
    }

    fn context_window(&self) -> futures::future::BoxFuture<'static, Option<u32>> {
        let http = self.http.clone();
        let base = self.settings.base_url.trim_end_matches('/').to_string();
        let key = self.settings.api_key.clone();
        let listing = self.listing.clone();
        let settings = self.settings.clone();
        Box::pin(async move {
            // vLLM (and servers copying it): `max_model_len` per model.
            let listed = listing.get().await.ok();
            let model = model_from(&settings, listed.as_ref());
            if let Some(n) = listed.and_then(|l| window_in_models(&l.json, &model)) {
                return Some(n);
            }
            // llama.cpp's server: `/props` at the server's root.
            let v = root_json(&http, &base, "props", &key).await?;
            window_in_props(&v)
        })
    }

    fn stream(&self, req: ChatRequest) -> BoxStream<'static, LlmEvent> {
        let (tx, mut rx) = mpsc::channel(256);
        let client = self.client.clone();
        let settings = self.settings.clone();
        let options = self.options.clone();
        let listing = self.listing.clone();
        let agent = match &req.cue {
            Cue::Turn { agent, .. } | Cue::Farewell { agent, .. } | Cue::SelfCheck { agent, .. } => Some(agent.id.as_str()),
            _ => None,
        };
        let messages = self.wire.messages(agent, &req.messages);
        // The request runs inside the stream, polled by whoever reads it,
        // not as a task of its own: one hand-over between tasks less per
        // token. Dropping the stream (a cancel) drops the request with it,
        // which closes the connection. The channel ends when `run` is done.
        let request = async move { call::run(client, settings, options, listing, req, messages, &tx).await };
        let driver = futures::stream::once(request).filter_map(|()| futures::future::ready(None));
        let events = futures::stream::poll_fn(move |cx| rx.poll_recv(cx));
        futures::stream::select(events, driver).boxed()
    }
}
