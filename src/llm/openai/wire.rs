//! The wire format: request bodies (each message's JSON kept and reused
//! while its text is unchanged) and the lenient chunk type replies are read into.

use std::sync::{Arc, Mutex};

use foldhash::HashMap;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::llm::{ChatMessage, Role};

/// Each agent's last request, message by message, with the JSON it was
/// sent as. An agent's next call repeats all of it but the newest round,
/// and escaping the whole history again for every call (165 KB by round
/// 100) cost more than anything else done per request. A message is
/// reused only when its role and text are equal to the cached one (the
/// same shared text, as the engine hands it on, or an equal one).
#[derive(Default)]
pub(super) struct WireCache {
    by_agent: Mutex<HashMap<String, Vec<WireEntry>>>,
}

struct WireEntry {
    pub(super) role: Role,
    pub(super) content: Arc<str>,
    pub(super) json: Arc<RawValue>,
}

impl WireCache {
    pub(super) fn messages(&self, agent: Option<&str>, messages: &[ChatMessage]) -> Vec<Arc<RawValue>> {
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
    // Two strings always serialise (the default, `null`, is never sent).
    let json = serde_json::value::to_raw_value(&WireMessage { role, content: &m.content }).unwrap_or_default();
    Arc::from(json)
}

/// The request as sent: the messages are JSON already (see [`WireCache`]).
#[derive(serde::Serialize)]
pub(super) struct Body<'a> {
    pub(super) model: &'a str,
    #[serde(serialize_with = "raw_messages")]
    pub(super) messages: &'a [Arc<RawValue>],
    pub(super) temperature: f32,
    pub(super) stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) stream_options: Option<StreamOptions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub(super) stop: &'a [String],
    /// The reply constrained to a JSON schema, in the server's form.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) response_format: Option<&'a serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) seed: Option<u64>,
}

#[derive(serde::Serialize)]
struct WireMessage<'a> {
    pub(super) role: &'static str,
    pub(super) content: &'a str,
}

fn raw_messages<S: serde::Serializer>(messages: &&[Arc<RawValue>], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(messages.iter().map(|m| &**m))
}

#[derive(serde::Serialize)]
pub(super) struct StreamOptions {
    pub(super) include_usage: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Chunk {
    pub(super) choices: Vec<Choice>,
    pub(super) usage: Option<serde_json::Value>,
    /// llama.cpp's server: `cache_n` is the prompt tokens it reused.
    pub(super) timings: Option<serde_json::Value>,
    pub(super) error: Option<serde_json::Value>,
}

/// Prompt tokens the server reused: OpenAI's and vLLM's
/// `usage.prompt_tokens_details.cached_tokens`, llama.cpp's `timings.cache_n`.
pub(super) fn cached_tokens(usage: Option<&serde_json::Value>, timings: Option<&serde_json::Value>) -> Option<u64> {
    usage
        .and_then(|u| u.pointer("/prompt_tokens_details/cached_tokens"))
        .or_else(|| timings.and_then(|t| t.get("cache_n")))
        .and_then(|v| v.as_u64())
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Choice {
    pub(super) delta: Delta,
    pub(super) finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Delta {
    pub(super) content: Option<String>,
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
pub fn read_chunk(data: &str) -> Result<ChunkSummary, serde_json::Error> {
    let c: Chunk = serde_json::from_str(data)?;
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
