//! One call: its attempts and the policy between them. Refused request
//! fields are dropped and the call sent again at once; a server that
//! cannot be reached is waited for through the retry window; 429, 5xx,
//! stalls and cut streams are retried with backoff up to `max_retries`; a
//! prompt over the server's window is handed back to the engine, which
//! alone can make it shorter.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::Client;
use backon::BackoffBuilder;
use futures::StreamExt;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::errors::{classify, error_message, redact, AttemptError};
use super::listing::Listing;
use super::wire::{cached_tokens, Body, Chunk, StreamOptions};
use super::{stop_limit, OpenAiSettings, Options};
use crate::llm::Failure;
use crate::llm::{ChatRequest, LlmEvent};

pub(super) async fn run(
    client: Client<OpenAIConfig>,
    settings: OpenAiSettings,
    options: Arc<Options>,
    listing: Listing,
    req: ChatRequest,
    messages: Vec<Arc<RawValue>>,
    tx: &mpsc::Sender<LlmEvent>,
) {
    let mut call = Attempts::new(&settings, &listing, &req).await;
    let stop = &req.stop[..req.stop.len().min(stop_limit(&settings.base_url))];
    // Servers and proxies sometimes echo the key in an error body.
    let redacted = |e: AttemptError| AttemptError {
        cause: e.cause.map_text(&|t| redact(t, &settings.api_key)),
        ..e
    };
    loop {
        call.attempt += 1;
        let cap_field = options.cap_field.load(Ordering::Relaxed);
        let response_format = options.response_format(req.json_schema.as_ref());
        let body = Body {
            model: &call.model,
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
            response_format: response_format.as_ref(),
            seed: req.seed.filter(|_| options.seed.load(Ordering::Relaxed)),
        };
        let err = match one_attempt(&client, &settings, &body, tx).await {
            Ok(()) => {
                let _ = tx.send(LlmEvent::Done).await;
                return;
            }
            // A read-ahead is done once the server has read the prompt: its
            // one token may well decode to no text, and a server in trouble
            // is the round's own calls' to wait for and report.
            Err(e) if matches!(req.cue, crate::llm::Cue::WarmUp) => {
                tracing::debug!(cause = %redacted(e).cause, "read-ahead ended without a reply");
                let _ = tx.send(LlmEvent::Done).await;
                return;
            }
            Err(e) => redacted(e),
        };
        tracing::warn!(attempt = call.attempt, cause = %err.cause, "model call failed");
        if err.refused.is_some_and(|r| options.give_up(r)) {
            call.attempt -= 1;
            continue;
        }
        let err = if err.ended_without_text && !call.unstreamed {
            call.unstreamed = true;
            match once_unstreamed(&client, &body, settings.request_timeout).await {
                Ok(reply) => {
                    for event in reply {
                        let _ = tx.send(event).await;
                    }
                    return;
                }
                Err(e) => {
                    let e = redacted(e);
                    tracing::warn!(cause = %e.cause, "the same request, not streamed, failed too");
                    e
                }
            }
        } else {
            err
        };
        if call.after(err, &settings, &listing, tx).await == Step::Stop {
            return;
        }
    }
}

/// What happens after a failed attempt.
#[derive(PartialEq)]
enum Step {
    /// Another attempt (the wait, if any, is over).
    Again,
    /// The call is over; its last event is sent.
    Stop,
}

/// The state of one call between its attempts.
struct Attempts {
    backoff: backon::ExponentialBackoff,
    /// No model was named: the endpoint's list decides, and is asked again
    /// when it could not be asked before.
    chosen: bool,
    model: String,
    /// The list was asked again after a "no such model".
    asked_again: bool,
    attempt: u32,
    outage: Option<Outage>,
    /// The request was sent once unstreamed after a stream with no text.
    unstreamed: bool,
}

impl Attempts {
    /// With no model named, the first call waits for the endpoint's list (a
    /// few seconds at most) rather than guess.
    async fn new(settings: &OpenAiSettings, listing: &Listing, req: &ChatRequest) -> Attempts {
        let chosen = !settings.model_named && req.model.is_none();
        let model = match &req.model {
            Some(m) => m.clone(),
            None if chosen => super::model_from(settings, listing.get().await.ok().as_ref()),
            None => settings.model.clone(),
        };
        Attempts {
            backoff: backon::ExponentialBuilder::default()
                .with_min_delay(settings.min_backoff)
                .with_max_delay(Duration::from_secs(20))
                .with_max_times(settings.max_retries as usize)
                .with_jitter()
                .build(),
            chosen,
            model,
            asked_again: false,
            attempt: 0,
            outage: None,
            unstreamed: false,
        }
    }

    /// After a failure: a prompt too long goes back to the engine; a server
    /// that cannot be reached is waited for; a model it lacks is looked up
    /// again once; what may pass is retried with backoff; the rest fails.
    async fn after(&mut self, err: AttemptError, settings: &OpenAiSettings, listing: &Listing, tx: &mpsc::Sender<LlmEvent>) -> Step {
        if let Some(t) = err.too_long {
            let _ = tx
                .send(LlmEvent::TooLong {
                    cause: err.cause,
                    window: t.window,
                    prompt: t.prompt,
                })
                .await;
            return Step::Stop;
        }
        if err.unreachable {
            return self.wait_out(err.cause, settings, listing, tx).await;
        }
        // The server answered: an outage, if there was one, is over.
        self.outage = None;
        if err.model_missing && self.chosen && !self.asked_again {
            self.asked_again = true;
            if let Ok(listed) = listing.get().await {
                let again = super::model_from(settings, Some(&listed));
                if again != self.model {
                    self.model = again;
                    self.attempt -= 1;
                    return Step::Again;
                }
            }
        }
        if err.model_missing {
            let cause = model_missing(err.cause, listing, settings, &self.model).await;
            let _ = tx.send(LlmEvent::Failed(cause)).await;
            return Step::Stop;
        }
        if !err.retryable {
            let _ = tx.send(LlmEvent::Failed(err.cause)).await;
            return Step::Stop;
        }
        let Some(delay) = self.backoff.next() else {
            let _ = tx
                .send(LlmEvent::Failed(Failure::AfterAttempts {
                    cause: Box::new(err.cause),
                    attempts: self.attempt,
                }))
                .await;
            return Step::Stop;
        };
        let delay = err.retry_after.map(|d| d.min(Duration::from_secs(120))).unwrap_or(delay);
        let _ = tx
            .send(LlmEvent::Retrying {
                attempt: self.attempt,
                delay_ms: delay.as_millis() as u64,
                cause: err.cause,
            })
            .await;
        tokio::time::sleep(delay).await;
        Step::Again
    }

    /// A server that is down is waited for within the retry window; these
    /// attempts are not counted: a restart costs no retry. With no model
    /// named, the endpoint's list is asked for once it answers.
    async fn wait_out(&mut self, cause: Failure, settings: &OpenAiSettings, listing: &Listing, tx: &mpsc::Sender<LlmEvent>) -> Step {
        self.attempt -= 1;
        let o = self.outage.get_or_insert_with(|| Outage::new(settings));
        let waited = o.since.elapsed();
        let Some(delay) = o.next_delay(waited) else {
            let _ = tx
                .send(LlmEvent::Unreachable(Failure::UnreachableFor {
                    cause: Box::new(cause),
                    secs: settings.retry_window.as_secs(),
                }))
                .await;
            return Step::Stop;
        };
        if !delay.is_zero() {
            let _ = tx
                .send(LlmEvent::Waiting {
                    waited_ms: waited.as_millis() as u64,
                    window_ms: settings.retry_window.as_millis() as u64,
                    cause,
                })
                .await;
            tokio::time::sleep(delay).await;
        }
        if self.chosen && listing.known().is_none() {
            if let Ok(listed) = listing.get().await {
                self.model = super::model_from(settings, Some(&listed));
            }
        }
        Step::Again
    }
}

/// A model the server does not have: the failure, the models it has
/// (asked now if need be) and, when said, where a model is named.
async fn model_missing(cause: Failure, listing: &Listing, settings: &OpenAiSettings, model: &str) -> Failure {
    let listed = listing.get().await.map(|l| l.models).unwrap_or_default();
    Failure::ModelMissing {
        cause: Box::new(cause),
        url: crate::text::shown_url(&settings.base_url),
        others: listed
            .into_iter()
            .filter(|m| !crate::llm::discovery::same_model(m, model))
            .collect(),
    }
}

/// A server that cannot be reached, since when, and how soon to look again.
struct Outage {
    since: tokio::time::Instant,
    /// The first failure is tried again at once, unannounced: mostly it is
    /// a kept-alive connection the server closed while idle.
    fresh: bool,
    backoff: backon::ExponentialBackoff,
    window: Duration,
}

impl Outage {
    fn new(settings: &OpenAiSettings) -> Outage {
        Outage {
            since: tokio::time::Instant::now(),
            fresh: true,
            // A restarted server is noticed within a few seconds: the
            // delay grows from the shortest backoff to at most 4 s.
            backoff: backon::ExponentialBuilder::default()
                .with_min_delay(settings.min_backoff)
                .with_max_delay(Duration::from_secs(4))
                .without_max_times()
                .with_jitter()
                .build(),
            window: settings.retry_window,
        }
    }

    /// The wait before the next attempt; None once the window is spent. The
    /// last attempt falls at the window's end.
    fn next_delay(&mut self, waited: Duration) -> Option<Duration> {
        let left = self.window.checked_sub(waited).filter(|d| !d.is_zero())?;
        if std::mem::take(&mut self.fresh) {
            return Some(Duration::ZERO);
        }
        Some(self.backoff.next().unwrap_or(left).min(left))
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
    let start = chat.create_stream_byot::<&Body, Chunk>(body);
    let mut stream = match tokio::time::timeout_at(first_deadline, start).await {
        Err(_) => return Err(no_first_token(settings)),
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
                timer.as_mut().reset(waited(got_text, progress, settings)?);
                continue;
            }
        };
        match item {
            Ok(chunk) => {
                let taken = take_chunk(chunk, &mut finished, tx).await?;
                if taken.text && !got_text {
                    got_text = true;
                    timer.as_mut().reset(progress + settings.stall_timeout);
                }
                if taken.closed {
                    return Ok(());
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
        return Err(empty_reply(finished));
    }
    Ok(())
}

/// The timer fired: before the first token the request timeout is over;
/// after it, the reply has stalled unless a token came within the stall
/// timeout, and then the next deadline.
fn waited(got_text: bool, progress: tokio::time::Instant, settings: &OpenAiSettings) -> Result<tokio::time::Instant, AttemptError> {
    if !got_text {
        return Err(no_first_token(settings));
    }
    if progress.elapsed() < settings.stall_timeout {
        return Ok(progress + settings.stall_timeout);
    }
    Err(AttemptError::retry(Failure::Stalled(settings.stall_timeout.as_secs())))
}

fn no_first_token(settings: &OpenAiSettings) -> AttemptError {
    AttemptError::retry(Failure::NoReplyWithin(settings.request_timeout.as_secs()))
}

/// A stream that ended without text: an empty reply, or one cut before it
/// began (retried as the server's fault).
fn empty_reply(finished: bool) -> AttemptError {
    AttemptError {
        ended_without_text: !finished,
        ..AttemptError::retry(if finished { Failure::EmptyReply } else { Failure::EndedBeforeText })
    }
}

/// What one chunk of a stream gave: text, and whether the receiver has gone.
struct Taken {
    text: bool,
    closed: bool,
}

/// One chunk: its text as tokens, a finish (`length`: capped), its usage;
/// an error object in the stream is a retryable failure.
async fn take_chunk(chunk: Chunk, finished: &mut bool, tx: &mpsc::Sender<LlmEvent>) -> Result<Taken, AttemptError> {
    if let Some(err) = chunk.error {
        let msg = error_message(&err.to_string());
        return Err(AttemptError::retry(Failure::ServerErrorInStream(msg)));
    }
    let mut taken = Taken {
        text: false,
        closed: false,
    };
    for choice in chunk.choices {
        if let Some(text) = choice.delta.content.filter(|t| !t.is_empty()) {
            taken.text = true;
            if tx.send(LlmEvent::Token(text)).await.is_err() {
                taken.closed = true;
                return Ok(taken);
            }
        }
        match choice.finish_reason.as_deref() {
            Some("length") => {
                *finished = true;
                let _ = tx.send(LlmEvent::Capped).await;
            }
            Some(r) if !r.is_empty() => *finished = true,
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
    Ok(taken)
}

/// After a stream that ended without text, the same request once, not
/// streamed: llama-cpp-python refuses a prompt over its window that way
/// with a proper error, while its stream just ends. Any other server's
/// answer is the reply, as events.
async fn once_unstreamed(client: &Client<OpenAIConfig>, body: &Body<'_>, timeout: Duration) -> Result<Vec<LlmEvent>, AttemptError> {
    let plain = Body {
        stream: false,
        stream_options: None,
        ..*body
    };
    let chat = client.chat();
    let mut tries = 0;
    let reply = loop {
        tries += 1;
        match tokio::time::timeout(timeout, chat.create_byot::<&Body, serde_json::Value>(&plain)).await {
            Err(_) => return Err(AttemptError::retry(Failure::NoReplyWithin(timeout.as_secs()))),
            Ok(Err(e)) => {
                let e = classify(e);
                // A server whose stream broke off has often closed the
                // kept-alive connection too: once more on a new one.
                if e.unreachable && tries == 1 {
                    continue;
                }
                return Err(e);
            }
            Ok(Ok(v)) => break v,
        }
    };
    let choice = &reply["choices"][0];
    let text = choice["message"]["content"].as_str().unwrap_or_default();
    if text.is_empty() {
        return Err(AttemptError::retry(Failure::EmptyReply));
    }
    let mut events = vec![LlmEvent::Token(text.to_string())];
    if choice["finish_reason"] == "length" {
        events.push(LlmEvent::Capped);
    }
    let usage = &reply["usage"];
    if let (Some(prompt), Some(completion)) = (usage["prompt_tokens"].as_u64(), usage["completion_tokens"].as_u64()) {
        events.push(LlmEvent::Usage {
            prompt,
            completion,
            cached: cached_tokens(Some(usage), None),
        });
    }
    events.push(LlmEvent::Done);
    Ok(events)
}
