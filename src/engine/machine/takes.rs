//! Replies streamed side by side: a round's speakers in `hybrid` and
//! `parallel` mode, the farewells, and — a set of one — every other call.
//! While any streams, the facilitator's commands and the clock are heard:
//! Ctrl+C stops them all, a time limit lets them finish.

use std::collections::VecDeque;
use std::task::Poll;

use futures::StreamExt;

use super::clock::Alarm;
use super::party::Party;
use super::stream::{Reply, StreamMode, Take};
use crate::engine::cleanup::Voices;
use crate::engine::Command;
use crate::llm::{ChatRequest, LlmEvent};
use crate::roster::agents::Agent;

/// The replies in the making, and those over but not yet handed back.
pub(super) struct Takes {
    mode: StreamMode,
    live: Vec<Take>,
    ended: VecDeque<(usize, Reply)>,
    /// Where the next look at the streams starts, so that a fast stream
    /// does not keep the others waiting.
    next: usize,
}

impl Takes {
    pub(super) fn new(mode: StreamMode) -> Takes {
        Takes {
            mode,
            live: Vec::new(),
            ended: VecDeque::new(),
            next: 0,
        }
    }

    /// Every live reply ends now with what had streamed of it.
    fn stop_all(&mut self, end: fn(String) -> Reply) {
        for take in self.live.drain(..) {
            self.ended.push_back((take.slot, end(take.shown)));
        }
    }

    /// The next event of any live stream, by index into `live` (None: that
    /// stream ended). Never ready while none is live.
    async fn next_event(&mut self) -> (usize, Option<LlmEvent>) {
        futures::future::poll_fn(|cx| {
            let n = self.live.len();
            for k in 0..n {
                let i = (self.next + k) % n;
                if let Poll::Ready(ev) = self.live[i].stream.poll_next_unpin(cx) {
                    self.next = i + 1;
                    return Poll::Ready((i, ev));
                }
            }
            Poll::Pending
        })
        .await
    }
}

/// Where a group's turns go in the transcript: each speaker's after those of
/// the speakers picked before it, whatever order they finish in.
pub(super) struct Places {
    /// The transcript's length when the group started.
    base: usize,
    /// How many turns each speaker has added.
    added: Vec<usize>,
}

impl Places {
    pub(super) fn new(turns: usize, speakers: usize) -> Places {
        Places {
            base: turns,
            added: vec![0; speakers],
        }
    }

    /// Where `slot`'s next turn goes (`Party::insert_at`).
    pub(super) fn of(&self, slot: usize) -> usize {
        self.base + self.added[..slot].iter().sum::<usize>()
    }

    pub(super) fn add(&mut self, slot: usize, turns: usize) {
        self.added[slot] += turns;
    }
}

impl Party {
    /// Sends a request whose reply joins `takes` as `slot`.
    pub(super) fn start_take(&self, takes: &mut Takes, slot: usize, req: ChatRequest, agent: Option<&Agent>, voices: Option<&Voices>) {
        takes.live.push(Take::start(&self.room, slot, req, agent, voices));
    }

    /// A take that goes on from one that ended without a reply to keep:
    /// its latency counts from `started`, the turn's first request.
    pub(super) fn restart_take(
        &self,
        takes: &mut Takes,
        slot: usize,
        req: ChatRequest,
        agent: &Agent,
        voices: &Voices,
        started: std::time::Instant,
    ) {
        takes
            .live
            .push(Take::start(&self.room, slot, req, Some(agent), Some(voices)).since(started));
    }

    /// Waits until one of `takes` is over and hands back its slot and
    /// reply; None when none is left. Commands that arrive meanwhile wait in
    /// the queue, except those that stop the replies.
    pub(super) async fn next_reply(&mut self, takes: &mut Takes) -> Option<(usize, Reply)> {
        let mode = takes.mode;
        let deadlines = |this: &Self| {
            if mode == StreamMode::Round {
                (this.time_deadline(), this.warn_deadline())
            } else {
                (None, None)
            }
        };
        let (limit, warn) = deadlines(self);
        let (mut limit, mut warn) = (Alarm::new(limit), Alarm::new(warn));
        loop {
            if let Some(over) = takes.ended.pop_front() {
                return Some(over);
            }
            if takes.live.is_empty() {
                return None;
            }
            let (l, w) = deadlines(self);
            limit.set(l);
            warn.set(w);
            tokio::select! {
                biased;
                cmd = self.room.rx.recv() => match cmd.unwrap_or(Command::Quit) {
                    Command::Abort if mode != StreamMode::Silent => takes.stop_all(|shown| Reply::Interrupted { shown }),
                    Command::Quit => takes.stop_all(|shown| Reply::Quit { shown }),
                    Command::Exit if mode == StreamMode::Round => {
                        self.room.queue.push_front(Command::Exit);
                        takes.stop_all(|shown| Reply::Interrupted { shown });
                    }
                    other => self.room.queue.push_back(other),
                },
                _ = limit.ring() => self.time_limit_mid_reply(),
                _ = warn.ring() => self.on_time_warning().await,
                (i, ev) = takes.next_event() => {
                    if let Some(reply) = self.take_event(&mut takes.live[i], ev, mode).await {
                        // Dropping the take drops its stream: a request
                        // still open is cancelled.
                        let take = takes.live.remove(i);
                        takes.ended.push_back((take.slot, reply));
                    }
                }
            }
        }
    }

    /// One reply on its own, listening to commands and timers meanwhile.
    pub(super) async fn stream_reply(
        &mut self,
        req: ChatRequest,
        agent: Option<&Agent>,
        mode: StreamMode,
        voices: Option<&Voices>,
    ) -> Reply {
        let mut takes = Takes::new(mode);
        self.start_take(&mut takes, 0, req, agent, voices);
        let over = self.next_reply(&mut takes).await;
        over.map_or_else(
            || Reply::Failed(super::stream::Trouble::Call("no reply".into())),
            |(_, reply)| reply,
        )
    }
}
