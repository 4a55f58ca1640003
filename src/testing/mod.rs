//! A loopback OpenAI-compatible server for tests and benchmarks. It speaks
//! real HTTP/1.1 on 127.0.0.1 (chunked server-sent events on kept-alive connections, like real
//! servers) and is scripted per request, including the quirks and faults of
//! real endpoints: odd chunk shapes, error statuses with or without
//! `Retry-After`, streams cut mid-reply, stalls, slow tokens.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test support: a broken fixture should stop the test loudly"
)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::TcpListener;

pub mod replay;
mod wire;
use wire::serve;

/// One scripted answer to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A streamed reply: each `data:` payload in turn.
    Stream {
        events: Vec<String>,
        /// Send `data: [DONE]` at the end.
        done: bool,
        /// Pause before each event.
        delay: Duration,
        /// Drop the connection (no chunked terminator) after this many events.
        cut_after: Option<usize>,
        /// Stop sending (keep the connection open) after this many events.
        stall_after: Option<usize>,
    },
    /// A non-streamed reply with any status, headers and body.
    Status {
        code: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// A JSON body (embeddings, non-streamed chat).
    Json(serde_json::Value),
    /// Accept the request and never answer.
    Hang,
    /// A streamed reply of raw bytes (each element one chunk), for byte-level
    /// faults such as invalid UTF-8.
    RawStream { chunks: Vec<Vec<u8>>, done: bool },
    /// A model on a CPU: the headers at once, then nothing for `wait` while
    /// it reads the prompt, then these events at once and `[DONE]`.
    ReadsPrompt { wait: Duration, events: Vec<String> },
    /// A model answering at its pace: nothing for `first` while it reads
    /// the prompt, then each event `each` after the one before.
    Paced {
        first: Duration,
        each: Duration,
        events: Vec<String>,
    },
    /// The server process dies as this request arrives: every open
    /// connection is dropped unanswered and the port refuses connections
    /// for `down`, then the server is back on the same address.
    Restart { down: Duration },
}

/// What the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: serde_json::Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The text of all messages, for asserting what a prompt contained.
    pub fn prompt_text(&self) -> String {
        self.body["messages"]
            .as_array()
            .map(|m| m.iter().filter_map(|x| x["content"].as_str()).collect::<Vec<_>>().join("\n"))
            .unwrap_or_default()
    }

    /// The persona a speaker's call is for ("You are Maya, …" opens it: at
    /// the front of the system prompt, or after the conversation with
    /// `prompt_layout: room_first`). None for calls of no agent's (the
    /// choice of speakers, the highlights).
    pub fn speaker(&self) -> Option<String> {
        let text = self.prompt_text();
        text.match_indices("You are ")
            .filter(|(at, _)| *at == 0 || text[..*at].ends_with('\n'))
            .filter_map(|(at, m)| text[at + m.len()..].split(',').next())
            // The room's rules open "You are one voice in …": no name.
            .filter(|name| !name.is_empty() && name.len() <= 40 && !name.contains(['\n', ':', '"']))
            .last()
            .map(str::to_string)
    }

    /// A speaker's self-check after its reply (`engine::self_check`): asked
    /// with a JSON schema, or, from a server that refused one, by the
    /// question alone, whose keys it names.
    pub(crate) fn is_self_check(&self) -> bool {
        // Other calls ask for JSON too (a drafted cast): the self-check's
        // schema is the one with a stance.
        if let Some(format) = self.body.get("response_format").filter(|f| !f.is_null()) {
            return format.to_string().contains("\"stance\"");
        }
        let last = self.body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default();
        last.contains("\"stance\"") && last.contains("\"end\"")
    }

    /// The host's reading of a facilitator's message, or its question for
    /// missing facts (`engine::reading`): known by the default templates'
    /// words.
    pub(crate) fn is_reading(&self) -> bool {
        self.is_letter_reading()
            || self.body["messages"]
                .to_string()
                .contains("Write the one short question the meeting should ask")
    }

    /// The reading's letter call, not its question for the facts.
    pub(crate) fn is_letter_reading(&self) -> bool {
        let text = self.body["messages"].to_string();
        text.contains("You sort what the leader of a meeting says")
    }

    /// The host's hearing of one reply to a yes/no question (the
    /// `hear_answer` template), known by its words.
    pub(crate) fn is_hearing(&self) -> bool {
        self.body["messages"].to_string().contains("You take the minutes of a meeting")
    }

    pub fn system_prompt(&self) -> String {
        self.body["messages"][0]["content"].as_str().unwrap_or_default().to_string()
    }
}

type Responder = dyn Fn(&Recorded, usize) -> Reply + Send + Sync;

struct Shared {
    /// Tells the accept loop to go down for a while.
    outage: tokio::sync::mpsc::UnboundedSender<Duration>,
    script: Mutex<VecDeque<Reply>>,
    fallback: Box<Responder>,
    received: Mutex<Vec<Recorded>>,
    read_aheads: Mutex<Vec<Recorded>>,
    /// Answers to self-checks, in order; then `NEUTRAL_CHECK`.
    checks: Mutex<VecDeque<Reply>>,
    checked: Mutex<Vec<Recorded>>,
    /// Answers to readings, in order; then `NEUTRAL_READING` / `FACTS_QUESTION`.
    readings: Mutex<VecDeque<Reply>>,
    read: Mutex<Vec<Recorded>>,
    /// Answers to hearings, in order; then `NEUTRAL_HEARING`.
    hearings: Mutex<VecDeque<Reply>>,
    heard: Mutex<Vec<Recorded>>,
    embedded: Mutex<Vec<Recorded>>,
    /// Refuse `response_format`: 1 every form with a 400, as servers without
    /// constrained output do; 2 OpenAI's `json_schema` form with
    /// llama-cpp-python's 500 (it takes `json_object` with a schema).
    refuse_response_format: std::sync::atomic::AtomicU8,
    routes: Mutex<Vec<(String, serde_json::Value)>>,
    gets: Mutex<Vec<String>>,
}

/// A running fake server; dropped with the test's runtime.
#[derive(Clone)]
pub struct FakeOpenAi {
    pub addr: std::net::SocketAddr,
    shared: Arc<Shared>,
}

const TOPICS: &[&str] = &[
    "Latency budgets matter for mobile checkout flows.",
    "Documentation examples should show the error handling path.",
    "Pricing tiers need a free plan for hobby developers.",
    "The database migration must run without downtime.",
    "Onboarding emails convert better with one clear action.",
    "Accessibility audits belong in every sprint review.",
    "Security reviews should cover third-party plugin permissions.",
    "Observability dashboards reveal slow background jobs.",
    "Release notes deserve a plain-language summary.",
    "Customer interviews beat survey spreadsheets for discovery.",
    "Caching invalidation bugs hide behind feature flags.",
    "Team capacity planning includes vacation calendars.",
];

/// The reading a message gets unless a test scripts one: "anything else".
pub(crate) const NEUTRAL_READING: &str = "D";
/// The hearing a reply gets unless a test scripts one: not a yes, so a
/// reply whose words say neither stays so.
pub(crate) const NEUTRAL_HEARING: &str = "No";
/// The host's question for missing facts unless a test scripts one.
pub(crate) const FACTS_QUESTION: &str = "How many people is it for, and what budget and date?";
/// A self-check that judges nothing: a point of its own, no question, no
/// proposal to end.
pub(crate) const NEUTRAL_CHECK: &str = r#"{"stance": "new", "ask": "", "end": false}"#;

/// A reply that shares few words with its neighbours. Each sentence carries
/// `n` after its third word, so no reply copies a run of words from another
/// (reply hygiene drops a sentence copied from an earlier turn).
/// `varied_reply` in Chinese script: ideographs drawn by `n`, so no run
/// of six recurs between replies (a Chinese party's replies in Latin
/// letters are in the wrong language).
pub fn varied_reply_zh(n: usize) -> String {
    let body: String = (0..18)
        .filter_map(|i| char::from_u32(0x4E00 + ((n * 7 + i * i * 3 + i * n + i) % 400) as u32))
        .collect();
    format!("{n}: {body}")
}

pub fn varied_reply(n: usize) -> String {
    // The number after every third word: no run of four words recurs
    // between replies, so none is taken for an echo of another.
    let mark = |s: &str| {
        let words: Vec<&str> = s.split(' ').collect();
        let tag = n.to_string();
        words
            .chunks(3)
            .flat_map(|c| c.iter().copied().chain([tag.as_str()]))
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!("{} {}", mark(TOPICS[n % TOPICS.len()]), mark(TOPICS[(n * 7 + 3) % TOPICS.len()]))
}

/// `text`'s words in an order of their own for reply `n`: to a similarity
/// judgement the same reply, yet hardly a run of four words recurs, so
/// reply hygiene takes it for the agent's own words rather than a copy.
pub fn shuffled(text: &str, n: usize) -> String {
    let body = text.trim_end_matches(['.', '!', '?']);
    let mut words: Vec<&str> = body.split_whitespace().collect();
    let state = foldhash::fast::FixedState::with_seed(n as u64);
    words.sort_by_key(|w| std::hash::BuildHasher::hash_one(&state, w));
    format!("{}.", words.join(" "))
}

/// Builds the JSON of one stream chunk in OpenAI's shape.
pub fn chunk(content: Option<&str>, finish: Option<&str>) -> String {
    serde_json::json!({
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{ "index": 0, "delta": { "role": "assistant", "content": content }, "finish_reason": finish }]
    })
    .to_string()
}

/// A well-formed streamed reply of `text`, split into word-sized pieces.
pub fn stream_of(text: &str) -> Reply {
    stream_events(events_of(text))
}

/// These chunk payloads streamed at once, then `[DONE]`, with no fault.
pub fn stream_events(events: Vec<String>) -> Reply {
    Reply::Stream {
        events,
        done: true,
        delay: Duration::ZERO,
        cut_after: None,
        stall_after: None,
    }
}

/// The chunk payloads for `text`, ending with a finish reason.
pub fn events_of(text: &str) -> Vec<String> {
    let mut events: Vec<String> = split_words(text).iter().map(|w| chunk(Some(w), None)).collect();
    events.push(chunk(None, Some("stop")));
    events
}

pub fn split_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        cur.push(c);
        if c == ' ' {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

impl FakeOpenAi {
    /// Starts a server whose unscripted requests get `fallback(request, n)`.
    pub async fn start(fallback: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static) -> FakeOpenAi {
        FakeOpenAi::start_at("127.0.0.1:0", fallback).await
    }

    /// The same on a given address: a server that comes up where a party
    /// has been waiting for one.
    pub async fn start_at(addr: &str, fallback: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static) -> FakeOpenAi {
        let listener = TcpListener::bind(addr).await.expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let (outage, mut outages) = tokio::sync::mpsc::unbounded_channel::<Duration>();
        let shared = Arc::new(Shared {
            outage,
            script: Mutex::new(VecDeque::new()),
            fallback: Box::new(fallback),
            received: Mutex::new(Vec::new()),
            read_aheads: Mutex::new(Vec::new()),
            checks: Mutex::new(VecDeque::new()),
            checked: Mutex::new(Vec::new()),
            readings: Mutex::new(VecDeque::new()),
            read: Mutex::new(Vec::new()),
            hearings: Mutex::new(VecDeque::new()),
            heard: Mutex::new(Vec::new()),
            embedded: Mutex::new(Vec::new()),
            refuse_response_format: std::sync::atomic::AtomicU8::new(0),
            routes: Mutex::new(Vec::new()),
            gets: Mutex::new(Vec::new()),
        });
        let s = shared.clone();
        tokio::spawn(async move {
            let mut listener = Some(listener);
            let mut connections = tokio::task::JoinSet::new();
            while let Some(l) = &listener {
                tokio::select! {
                    accepted = l.accept() => {
                        let Ok((sock, _)) = accepted else { break };
                        // Streaming servers send each event as it is made;
                        // without this, Nagle holds events back until the
                        // client's delayed ACK, 40 ms later.
                        let _ = sock.set_nodelay(true);
                        let s = s.clone();
                        connections.spawn(async move {
                            let _ = serve(sock, s).await;
                        });
                    }
                    Some(down) = outages.recv() => {
                        // As a killed process: the port closes and every
                        // connection with it.
                        drop(listener.take());
                        connections.abort_all();
                        tokio::time::sleep(down).await;
                        // The same address again, as a restarted server.
                        listener = Some(TcpListener::bind(addr).await.expect("rebind loopback"));
                    }
                    Some(_) = connections.join_next(), if !connections.is_empty() => {}
                }
            }
        });
        FakeOpenAi { addr, shared }
    }

    /// A server that answers every request with the same text.
    pub async fn always(text: &str) -> FakeOpenAi {
        let text = text.to_string();
        FakeOpenAi::start(move |_, _| stream_of(&text)).await
    }

    /// A server whose replies differ from request to request, as a real
    /// room's do (identical replies would read as a room going in circles).
    pub async fn varied() -> FakeOpenAi {
        FakeOpenAi::start(|_, n| stream_of(&varied_reply(n))).await
    }

    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Queues replies for the next requests, before the fallback applies.
    pub fn push(&self, replies: impl IntoIterator<Item = Reply>) {
        self.shared.script.lock().expect("lock").extend(replies);
    }

    pub fn received(&self) -> Vec<Recorded> {
        self.shared.received.lock().expect("lock").clone()
    }

    /// The prompts read ahead while the party waited (`max_tokens` 1), in
    /// the order they came.
    pub fn read_aheads(&self) -> Vec<Recorded> {
        self.shared.read_aheads.lock().expect("lock").clone()
    }

    /// Answers `GET path` (e.g. `/v1/models`, `/props`) with `body`; other
    /// GETs get a 404.
    pub fn route(&self, path: &str, body: serde_json::Value) {
        self.shared.routes.lock().expect("lock").push((path.to_string(), body));
    }

    /// Queues answers for the next self-checks (`Recorded::is_self_check`),
    /// before the neutral one applies. Self-checks take no scripted reply
    /// and are not `received`: they are kept apart, in `checks`.
    pub fn push_checks(&self, replies: impl IntoIterator<Item = Reply>) {
        self.shared.checks.lock().expect("lock").extend(replies);
    }

    /// Queues answers for the next readings and facts questions
    /// (`Recorded::is_reading`), before the neutral ones apply. Kept apart
    /// from the scripted replies, like self-checks.
    pub fn push_readings(&self, replies: impl IntoIterator<Item = Reply>) {
        self.shared.readings.lock().expect("lock").extend(replies);
    }

    /// Queues answers for the next hearings (`Recorded::is_hearing`),
    /// before the neutral one applies.
    pub fn push_hearings(&self, replies: impl IntoIterator<Item = Reply>) {
        self.shared.hearings.lock().expect("lock").extend(replies);
    }

    /// The hearings asked, in the order they came.
    pub fn hearings(&self) -> Vec<Recorded> {
        self.shared.heard.lock().expect("lock").clone()
    }

    /// The readings and facts questions asked, in the order they came.
    pub fn readings(&self) -> Vec<Recorded> {
        self.shared.read.lock().expect("lock").clone()
    }

    /// The embeddings asked for (`/v1/embeddings`), in the order they came:
    /// answered by the fallback, never by the script.
    pub fn embeddings(&self) -> Vec<Recorded> {
        self.shared.embedded.lock().expect("lock").clone()
    }

    /// The self-checks asked, in the order they came (refused ones too).
    pub fn checks(&self) -> Vec<Recorded> {
        self.shared.checked.lock().expect("lock").clone()
    }

    /// From now on a request with `response_format` gets a 400 naming it.
    pub fn refuse_response_format(&self) {
        self.shared.refuse_response_format.store(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// From now on `response_format` in OpenAI's `json_schema` form gets
    /// llama-cpp-python's answer: a 500 with the validation error.
    pub fn refuse_json_schema_like_llama_cpp_python(&self) {
        self.shared.refuse_response_format.store(2, std::sync::atomic::Ordering::Relaxed);
    }

    /// The paths of the GET requests received.
    pub fn gets(&self) -> Vec<String> {
        self.shared.gets.lock().expect("lock").clone()
    }
}
