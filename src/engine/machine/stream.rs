//! One streamed reply: cleaned as it streams (`hygiene`), markers taken
//! out, while commands and the clock are still heard. What a front end sees
//! of a reply is what will be saved.

use futures::StreamExt;

use super::clock::Alarm;
use super::party::Party;
use crate::engine::budget::estimate_tokens;
use crate::engine::hygiene::{Cut, Hygiene, Voices};
use crate::engine::markers::MarkerFilter;
use crate::engine::{Command, Event};
use crate::llm::{ChatRequest, LlmEvent};
use crate::roster::agents::Agent;
use crate::session::Latency;
use crate::text::Sanitizer;

pub(super) enum Reply {
    Completed {
        raw: String,
        shown: String,
        end_marker: bool,
        question: Option<String>,
        latency: Latency,
    },
    Failed(String),
    /// The server stayed unreachable for the whole retry window: nobody
    /// else in the round would be reached either.
    Unreachable(String),
    /// The prompt was over the server's window. The budget is lowered
    /// already: a request built afresh is shorter.
    TooLong(String),
    /// Hygiene left nothing of the reply (it spoke only as others, say):
    /// the model is asked once more before the agent passes.
    Emptied(String),
    /// Stopped by the facilitator; `shown` is what had streamed.
    Interrupted {
        shown: String,
    },
    /// The facilitator quit while it streamed; `shown` is what had streamed.
    Quit {
        shown: String,
    },
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum StreamMode {
    /// A round: timers run and commands may stop the reply.
    Round,
    /// Farewells and highlights: only Quit/Abort cut them short.
    Exit,
    /// Internal calls (selection): nothing is shown.
    Silent,
}

impl Party {
    /// Streams one reply, listening to commands and timers meanwhile. The
    /// reply is cleaned as it streams (`hygiene`): what `voices` rules out
    /// never reaches a front end, and a cut stops the request.
    pub(super) async fn stream_reply(
        &mut self,
        req: ChatRequest,
        agent: Option<&Agent>,
        mode: StreamMode,
        voices: Option<&Voices>,
    ) -> Reply {
        let id = agent.map(|a| a.id.clone()).unwrap_or_default();
        let markers = vec![
            self.room.cfg.party.end_detection.end_marker.clone(),
            self.room.cfg.party.ask_marker.clone(),
        ];
        let cap = req.max_tokens;
        // The server's count of this prompt corrects the budget's estimates.
        let estimated: u32 = req.messages.iter().map(|m| estimate_tokens(&m.content)).sum();
        let plain = Voices::new("", vec![], vec![], false);
        let voices = voices.unwrap_or(&plain);
        let mut stream = self.room.provider.stream(req);
        let mut filter = MarkerFilter::new(markers.clone());
        let mut sanitizer = Sanitizer::new();
        let mut hygiene = Hygiene::new(voices, cap);
        let mut shown = String::new();
        let mut capped = false;
        // From the request on, retries included: what the facilitator waits.
        let started = std::time::Instant::now();
        let mut first_token: Option<u64> = None;
        let (mut pieces, mut counted) = (0u32, None::<u64>);
        let deadlines = |this: &Self| {
            if mode == StreamMode::Round {
                (this.time_deadline(), this.warn_deadline())
            } else {
                (None, None)
            }
        };
        let (limit, warn) = deadlines(self);
        let (mut limit, mut warn) = (Alarm::new(limit), Alarm::new(warn));
        let show = |this: &Self, filter: &mut MarkerFilter, shown: &mut String, text: &str| {
            let visible = filter.push(text);
            if !visible.is_empty() {
                shown.push_str(&visible);
                if mode != StreamMode::Silent {
                    this.emit(Event::AgentToken {
                        agent: id.clone(),
                        text: visible,
                    });
                }
            }
        };
        loop {
            let (l, w) = deadlines(self);
            limit.set(l);
            warn.set(w);
            let done = tokio::select! {
                biased;
                cmd = self.room.rx.recv() => match cmd.unwrap_or(Command::Quit) {
                    Command::Abort if mode != StreamMode::Silent => return Reply::Interrupted { shown },
                    Command::Quit => return Reply::Quit { shown },
                    Command::Exit if mode == StreamMode::Round => {
                        self.room.queue.push_front(Command::Exit);
                        return Reply::Interrupted { shown };
                    }
                    other => { self.room.queue.push_back(other); false }
                },
                _ = limit.ring() => { self.time_limit_mid_reply(); false }
                _ = warn.ring() => { self.on_time_warning().await; false }
                ev = stream.next() => match ev {
                    Some(LlmEvent::Token(piece)) => {
                        pieces += 1;
                        if first_token.is_none() {
                            let ms = started.elapsed().as_millis() as u64;
                            first_token = Some(ms);
                            if mode != StreamMode::Silent && !id.is_empty() {
                                self.emit(Event::AgentFirstToken { agent: id.clone(), ms });
                            }
                        }
                        let step = hygiene.push(&sanitizer.push(&piece));
                        show(self, &mut filter, &mut shown, &step.show);
                        // Cut: the rest of the reply is void, so the request
                        // stops here (a local model stops writing it).
                        step.stop
                    }
                    Some(LlmEvent::Usage { prompt, completion, cached }) => {
                        let s = self.state_mut();
                        s.tokens.prompt += prompt;
                        s.tokens.completion += completion;
                        s.tokens.cached += cached.unwrap_or(0);
                        counted = Some(completion);
                        self.room.budget.learn(estimated, prompt);
                        tracing::debug!(agent = %id, prompt, estimated, completion, cached, "usage");
                        false
                    }
                    Some(LlmEvent::Capped) => { capped = true; false }
                    Some(LlmEvent::Retrying { attempt, delay_ms, cause }) => {
                        shown.clear();
                        pieces = 0;
                        capped = false;
                        filter = MarkerFilter::new(markers.clone());
                        sanitizer = Sanitizer::new();
                        hygiene = Hygiene::new(voices, cap);
                        if mode != StreamMode::Silent {
                            self.emit(Event::AgentRetrying { agent: id.clone(), attempt, delay_ms, cause });
                        }
                        false
                    }
                    Some(LlmEvent::Waiting { waited_ms, window_ms, cause }) => {
                        // Even a silent call says so: the room is waiting on it.
                        self.emit(Event::ServerWaiting { agent: id.clone(), waited_ms, window_ms, cause });
                        false
                    }
                    Some(LlmEvent::Done) | None => true,
                    Some(LlmEvent::Failed(cause)) => return Reply::Failed(cause),
                    Some(LlmEvent::Unreachable(cause)) => return Reply::Unreachable(cause),
                    Some(LlmEvent::TooLong { cause, window, prompt }) => {
                        self.lower_window(estimated, window, prompt).await;
                        return Reply::TooLong(cause);
                    }
                },
            };
            if !done {
                continue;
            }
            drop(stream);
            let last = hygiene.finish(capped);
            show(self, &mut filter, &mut shown, &last);
            let rest = filter.finish();
            show(self, &mut MarkerFilter::new(vec![]), &mut shown, &rest);
            self.count_cuts(&id, hygiene.cuts());
            let raw = hygiene.kept().to_string();
            // What cleaning left may be a stub ("Sure." of "Sure, Maya."):
            // no turn either.
            let words = shown.split_whitespace().count() + shown.chars().filter(|c| crate::text::is_cjk(*c)).count() / 2;
            let stub = !hygiene.cuts().is_empty() && words < 3;
            // `### Settled\n### Open`: the shape of an answer, not one.
            let headings_only = !shown.trim().is_empty()
                && shown.lines().all(|l| {
                    let l = l.trim();
                    l.is_empty() || l.starts_with('#') || l.chars().all(|c| matches!(c, '-' | '*' | '_' | '=' | ' '))
                });
            if (shown.trim().is_empty() || stub || headings_only) && agent.is_some() {
                let mut what: Vec<&str> = hygiene.cuts().iter().map(|c| c.kind.code()).collect();
                if headings_only {
                    what.push("headings_only");
                }
                return if what.is_empty() {
                    Reply::Failed(crate::tr!("the reply was empty", "回复为空"))
                } else {
                    let what = what.join(", ");
                    Reply::Emptied(crate::tr!(
                        "nothing left after cleaning the reply ({what})",
                        "清理回复后没有剩余内容（{what}）"
                    ))
                };
            }
            let question = if filter.found(1) { question_in(&raw, &markers[1]) } else { None };
            let total_ms = started.elapsed().as_millis() as u64;
            let latency = Latency {
                first_token_ms: first_token.unwrap_or(total_ms),
                total_ms,
                // The server's count where it gives one; else a piece a token
                // (what OpenAI-compatible servers stream).
                tokens: counted.map_or(pieces, |c| u32::try_from(c).unwrap_or(u32::MAX)),
            };
            return Reply::Completed {
                raw,
                shown,
                end_marker: filter.found(0),
                question,
                latency,
            };
        }
    }

    /// What hygiene cut goes to the log and the session file's counters.
    fn count_cuts(&mut self, agent: &str, cuts: &[Cut]) {
        for c in cuts {
            tracing::info!(agent, kind = c.kind.code(), text = %crate::text::ellipsize(&c.text, 300), "reply hygiene cut");
            self.count_cut(c.kind.code());
        }
    }

    pub(super) fn count_cut(&mut self, code: &str) {
        *self.session.fm.hygiene.entry(code.to_string()).or_default() += 1;
    }
}

/// The question after the ask marker when the marker starts a line: the
/// rest of that line, or the next non-empty line if the marker stands alone.
pub(super) fn question_in(raw: &str, marker: &str) -> Option<String> {
    let mut lines = raw.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix(marker) {
            let q = rest.trim();
            if !q.is_empty() {
                return Some(q.to_string());
            }
            return lines.find(|l| !l.is_empty()).map(|l| l.to_string()).or_else(|| Some(String::new()));
        }
    }
    None
}
