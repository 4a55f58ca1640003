//! One streamed reply (a `Take`): every piece read first by the protocol
//! (`engine::protocol`: escapes out, markers heard, the speaker's own label
//! off), then cleaned as it streams (`engine::cleanup`, at its endpoint's
//! level), markers taken out of what shows, judged whole when it ends. What
//! a front end sees of a reply is what will be saved. `takes` runs one or
//! several of them while commands and the clock are still heard.

use futures::stream::BoxStream;

use super::party::Party;
use super::Room;
use crate::engine::budget::estimate_tokens;
use crate::engine::cleanup::{Counter, Cut, CutKind, Left, Level, Voices};
use crate::engine::protocol::markers::MarkerKind;
use crate::engine::reply::ReplyReader;
use crate::engine::Event;
use crate::i18n::{Lang, Room as Words, Say};
use crate::llm::{ChatRequest, Failure, LlmEvent};
use crate::roster::agents::Agent;
use crate::session::Latency;

pub(super) enum Reply {
    Completed {
        raw: String,
        shown: String,
        end_marker: bool,
        question: Option<String>,
        latency: Latency,
        /// Most of what the model wrote was cut as copies of earlier turns.
        echoed: bool,
        /// Kept on screen, copies of earlier turns were most of what it
        /// showed (`Cleanup::kept_copies`: the moderator's summary).
        copies: bool,
        /// Its endpoint's cleanup was light, and it still broke a light
        /// rule (spoke as another, gave back the runtime's note): the
        /// endpoint is raised to full.
        raise: bool,
    },
    Failed(Trouble),
    /// The server stayed unreachable for the whole retry window: nobody
    /// else in the round would be reached either.
    Unreachable(Trouble),
    /// The prompt was over the server's window. The budget is lowered
    /// already: a request built afresh is shorter.
    TooLong(Trouble),
    /// Cleanup left nothing of the reply (it spoke only as others, say):
    /// the model is asked once more before the agent passes.
    Emptied(Trouble),
    /// Stopped by the facilitator; `shown` is what had streamed.
    Interrupted {
        shown: String,
    },
    /// The facilitator quit while it streamed; `shown` is what had streamed.
    Quit {
        shown: String,
    },
}

/// Why a reply came to nothing: the model layer's failure, or what the
/// engine found of a reply that came. Said in the party's language where
/// it is recorded or shown; `Display` is English, for the log.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Trouble {
    Call(Failure),
    /// Nothing was left of it, and nothing was cut.
    Empty,
    /// Cleanup left nothing: the codes of its cuts.
    Cleaned(String),
}

impl Say for Trouble {
    fn say(&self, lang: Lang) -> String {
        match self {
            Trouble::Call(f) => f.say(lang),
            Trouble::Empty => Words::ReplyEmpty.say(lang),
            Trouble::Cleaned(what) => Words::NothingLeftAfterCleaning { what }.say(lang),
        }
    }
}

impl std::fmt::Display for Trouble {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.say(Lang::En))
    }
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

/// One reply in the making: its request's stream and what cleaning it has
/// kept so far. Several live side by side in a concurrent round (`takes`).
pub(super) struct Take {
    /// Which of the round's speakers (or farewells) this is.
    pub(super) slot: usize,
    id: String,
    /// An agent's reply, not an internal call: an empty one is asked again.
    named: bool,
    /// A speaker's turn in a round: only there does the end marker alone
    /// propose the end (a farewell of nothing but a marker says nothing).
    turn: bool,
    /// The named endpoint the request went to (None: the default one):
    /// its server's counts and refusals teach its budget only.
    endpoint: Option<String>,
    pub(super) stream: BoxStream<'static, LlmEvent>,
    /// The prompt's estimated tokens: the server's count corrects the budget.
    estimated: u32,
    /// The protocol, then cleanup, as the reply streams.
    reader: ReplyReader,
    pub(super) shown: String,
    capped: bool,
    /// From the request on, retries included: what the facilitator waits.
    started: std::time::Instant,
    first_token: Option<u64>,
    pieces: u32,
    counted: Option<u64>,
}

impl Take {
    /// Sends the request: the reply streams from here on.
    pub(super) fn start(room: &Room, slot: usize, req: ChatRequest, agent: Option<&Agent>, voices: Option<&Voices>) -> Take {
        // A speaker's voices hold the room's markers already.
        let markers = voices.and_then(|v| v.markers.clone()).unwrap_or_else(|| room.markers());
        let cap = req.max_tokens;
        let estimated: u32 = req.messages.iter().map(|m| estimate_tokens(&m.content)).sum();
        let plain = Voices::new("", vec![], vec![], None);
        let level = room.cleanup_of(req.endpoint.as_deref());
        let reader = ReplyReader::new(markers, voices.unwrap_or(&plain), agent.is_some(), cap, level);
        Take {
            slot,
            id: agent.map(|a| a.id.clone()).unwrap_or_default(),
            named: agent.is_some(),
            turn: matches!(req.cue, crate::llm::Cue::Turn { .. }),
            endpoint: req.endpoint.clone(),
            stream: room.provider_of(req.endpoint.as_deref()).stream(req),
            estimated,
            reader,
            shown: String::new(),
            capped: false,
            started: std::time::Instant::now(),
            first_token: None,
            pieces: 0,
            counted: None,
        }
    }

    /// The wait counted from `started`: a turn asked again (or built again
    /// shorter) is one wait for the facilitator, from its first request.
    pub(super) fn since(mut self, started: std::time::Instant) -> Take {
        self.started = started;
        self
    }

    /// A piece as the server wrote it, read (`ReplyReader`) and shown:
    /// whether the reply is over.
    fn take_piece(&mut self, room: &Room, mode: StreamMode, piece: &str) -> bool {
        let read = self.reader.piece(piece);
        self.reveal(room, mode, read.show);
        read.over
    }

    fn reveal(&mut self, room: &Room, mode: StreamMode, visible: String) {
        if visible.is_empty() {
            return;
        }
        self.shown.push_str(&visible);
        if mode != StreamMode::Silent {
            room.emit(Event::AgentToken {
                agent: self.id.clone(),
                text: visible,
            });
        }
    }
}

impl Party {
    /// One event of a take's stream (None: the stream ended). Some when the
    /// reply is over.
    pub(super) async fn take_event(&mut self, take: &mut Take, ev: Option<LlmEvent>, mode: StreamMode) -> Option<Reply> {
        match ev {
            Some(LlmEvent::Token(piece)) => {
                take.pieces += 1;
                if take.first_token.is_none() {
                    let ms = take.started.elapsed().as_millis() as u64;
                    take.first_token = Some(ms);
                    if mode != StreamMode::Silent && take.named {
                        self.emit(Event::AgentFirstToken {
                            agent: take.id.clone(),
                            ms,
                        });
                    }
                }
                // Over: the rest of the reply is void, so the request stops
                // here (dropping the take drops the stream; a local model
                // stops writing it).
                take.take_piece(&self.room, mode, &piece).then(|| self.finish_take(take, mode))
            }
            Some(LlmEvent::Usage {
                prompt,
                completion,
                cached,
            }) => {
                let several = !self.room.servers.is_empty();
                let s = self.state_mut();
                if several && s.endpoint_tokens.is_empty() && s.tokens != Default::default() {
                    // Resumed into a room of several: every call before went
                    // through the default endpoint.
                    s.endpoint_tokens.insert(crate::config::DEFAULT_ENDPOINT.to_string(), s.tokens);
                }
                s.tokens.add(prompt, completion, cached);
                // Once kept per endpoint, always: a room resumed on one
                // server goes on counting its default.
                if several || !s.endpoint_tokens.is_empty() {
                    let name = take.endpoint.as_deref().unwrap_or(crate::config::DEFAULT_ENDPOINT);
                    s.endpoint_tokens
                        .entry(name.to_string())
                        .or_default()
                        .add(prompt, completion, cached);
                }
                take.counted = Some(completion);
                self.room.budget_of_mut(take.endpoint.as_deref()).learn(take.estimated, prompt);
                tracing::debug!(agent = %take.id, prompt, estimated = take.estimated, completion, cached, "usage");
                None
            }
            Some(LlmEvent::Capped) => {
                take.capped = true;
                None
            }
            Some(LlmEvent::Retrying { attempt, delay_ms, cause }) => {
                take.shown.clear();
                take.pieces = 0;
                take.capped = false;
                take.reader.restart();
                if mode != StreamMode::Silent {
                    self.emit(Event::AgentRetrying {
                        agent: take.id.clone(),
                        attempt,
                        delay_ms,
                        cause: cause.say(self.room.lang),
                    });
                }
                None
            }
            Some(LlmEvent::Waiting {
                waited_ms,
                window_ms,
                cause,
            }) => {
                // Even a silent call says so: the room is waiting on it.
                self.emit(Event::ServerWaiting {
                    agent: take.id.clone(),
                    waited_ms,
                    window_ms,
                    cause: cause.say(self.room.lang),
                });
                None
            }
            Some(LlmEvent::Done) | None => Some(self.finish_take(take, mode)),
            Some(LlmEvent::Failed(cause)) => Some(Reply::Failed(Trouble::Call(cause))),
            Some(LlmEvent::Unreachable(cause)) => Some(Reply::Unreachable(Trouble::Call(cause))),
            Some(LlmEvent::TooLong { cause, window, prompt }) => {
                let endpoint = take.endpoint.clone();
                self.lower_window(endpoint.as_deref(), take.estimated, window, prompt).await;
                Some(Reply::TooLong(Trouble::Call(cause)))
            }
        }
    }

    /// The stream is over: what cleaning holds back is settled, and the
    /// reply judged whole (a stub, headings only, a question for the
    /// facilitator, a proposal to end).
    fn finish_take(&mut self, take: &mut Take, mode: StreamMode) -> Reply {
        let last = take.reader.finish(take.capped);
        take.reveal(&self.room, mode, last);
        let (protocol, cleanup) = (&take.reader.protocol, &take.reader.cleanup);
        if protocol.label().is_some() {
            self.count(Counter::Cut(CutKind::OwnLabel));
        }
        self.count_cuts(&take.id, cleanup.cuts(), protocol.raw());
        let mut shown = std::mem::take(&mut take.shown);
        let raw = cleanup.kept().to_string();
        let proposes = take.turn && protocol.found(MarkerKind::End);
        match cleanup.left(&shown) {
            // The end marker alone (or after words hygiene cut) is still the
            // agent's proposal: the room hears it, said as what it was.
            Left::Empty | Left::Nothing(_) if take.named && proposes => {
                shown = Words::WordlessProposal.say(self.room.lang);
            }
            Left::Empty if take.named => return Reply::Failed(Trouble::Empty),
            Left::Nothing(what) if take.named => return Reply::Emptied(Trouble::Cleaned(what.join(", "))),
            _ => {}
        }
        let question = protocol.question(&raw, take.reader.cut_at());
        let total_ms = take.started.elapsed().as_millis() as u64;
        let latency = Latency {
            first_token_ms: take.first_token.unwrap_or(total_ms),
            total_ms,
            // The server's count where it gives one; else a piece a token
            // (what OpenAI-compatible servers stream).
            tokens: take.counted.map_or(take.pieces, |c| u32::try_from(c).unwrap_or(u32::MAX)),
        };
        Reply::Completed {
            raw,
            echoed: cleanup.mostly_echo(&shown),
            copies: cleanup.kept_copies(&shown),
            raise: cleanup.level() == Level::Light && cleanup.cuts().iter().any(|c| c.kind.is_another_voice()),
            shown,
            end_marker: protocol.found(MarkerKind::End),
            question,
            latency,
        }
    }

    /// What hygiene cut goes to the log and the session file's counters.
    /// A cut reply is logged whole too: a cut is read against the reply it
    /// came from (the sanitizer ran first, so no escape reaches the log).
    fn count_cuts(&mut self, agent: &str, cuts: &[Cut], heard: &str) {
        if !cuts.is_empty() {
            tracing::info!(agent, text = %crate::text::ellipsize(heard, 4000), "reply as written, before cleanup");
        }
        for c in cuts {
            tracing::info!(agent, kind = c.kind.code(), text = %crate::text::ellipsize(&c.text, 300), "reply cleanup cut");
            self.count(Counter::Cut(c.kind));
        }
    }

    /// One more of `what` in the session file's counters.
    pub(super) fn count(&mut self, what: Counter) {
        *self.session.fm.hygiene.entry(what.code().to_string()).or_default() += 1;
    }
}
