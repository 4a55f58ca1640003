//! Text output gives the floor to one agent at a time. When replies stream
//! side by side (`round_mode` hybrid or parallel, the farewells), the
//! agents' events are interleaved; printed as they come they would mix
//! words of several replies on one line. The agent who speaks first in the
//! picked order streams live; the others' events wait and follow, each
//! reply whole, in that order — the order the session file keeps.

use std::collections::VecDeque;

use foldhash::{HashMap, HashMapExt};

use crate::engine::Event;

#[derive(Default)]
pub(super) struct Floor {
    /// The speaking order: the round's picked agents, or the farewells in
    /// the order they started.
    order: VecDeque<String>,
    /// Whose events are printed as they come.
    current: Option<String>,
    /// The others' events, waiting for their turn.
    held: HashMap<String, Vec<Event>>,
}

/// The agent an event belongs to, and whether it ends that agent's reply.
fn speaker(ev: &Event) -> Option<(&str, bool)> {
    match ev {
        Event::AgentStarted { agent, .. }
        | Event::AgentFirstToken { agent, .. }
        | Event::AgentToken { agent, .. }
        | Event::AgentRetrying { agent, .. } => Some((agent, false)),
        Event::ServerWaiting { agent, .. } if !agent.is_empty() => Some((agent, false)),
        Event::AgentMessage { agent, .. }
        | Event::AgentFailed { agent, .. }
        | Event::AgentPassed { agent, .. }
        | Event::Farewell { agent, .. } => Some((agent, true)),
        _ => None,
    }
}

impl Floor {
    pub(super) fn new() -> Floor {
        Floor {
            order: VecDeque::new(),
            current: None,
            held: HashMap::new(),
        }
    }

    /// The events to print now, in order, `ev` among them or held back.
    pub(super) fn admit(&mut self, ev: Event, out: &mut Vec<Event>) {
        match &ev {
            Event::RoundStarted { agents, .. } => {
                self.release_all(out);
                self.order = agents.iter().cloned().collect();
            }
            Event::Termination { .. } => {
                // The farewells follow, in the order they start.
                self.release_all(out);
                self.order.clear();
            }
            // Whatever closes the round (or the party) comes after every
            // reply; a farewell that failed quietly keeps nobody waiting.
            Event::RoundFinished { .. } | Event::Highlights { .. } | Event::SessionEnded { .. } => self.release_all(out),
            _ => {}
        }
        let Some((agent, ends)) = speaker(&ev) else {
            return out.push(ev);
        };
        if !self.order.iter().any(|a| a == agent) {
            self.order.push_back(agent.to_string());
        }
        let current = self.current.get_or_insert_with(|| self.order.front().cloned().unwrap_or_default());
        if current != agent {
            self.held.entry(agent.to_string()).or_default().push(ev);
            return;
        }
        out.push(ev);
        if ends {
            self.pass_on(out);
        }
    }

    /// The current speaker is done: the next in order takes the floor, its
    /// held events first; one whose reply is already whole passes it on.
    fn pass_on(&mut self, out: &mut Vec<Event>) {
        loop {
            if let Some(done) = self.current.take() {
                self.order.retain(|a| *a != done);
            }
            let Some(next) = self.order.front().cloned() else { return };
            let held = self.held.remove(&next).unwrap_or_default();
            let whole = held.last().and_then(speaker).is_some_and(|(_, ends)| ends);
            out.extend(held);
            self.current = Some(next);
            if !whole {
                return;
            }
        }
    }

    /// Everything held goes out, in the speaking order.
    fn release_all(&mut self, out: &mut Vec<Event>) {
        for agent in std::mem::take(&mut self.order) {
            out.extend(self.held.remove(&agent).unwrap_or_default());
        }
        // Anyone not in the order (cannot happen, but nothing is dropped).
        for (_, events) in self.held.drain() {
            out.extend(events);
        }
        self.current = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(agent: &str, text: &str) -> Event {
        Event::AgentToken {
            agent: agent.into(),
            text: text.into(),
        }
    }

    fn done(agent: &str) -> Event {
        Event::AgentFailed {
            agent: agent.into(),
            round: 1,
            cause: "x".into(),
        }
    }

    fn started(agents: &[&str]) -> Event {
        Event::RoundStarted {
            round: 1,
            max_rounds: 5,
            agents: agents.iter().map(|a| a.to_string()).collect(),
            continued: false,
        }
    }

    fn texts(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::AgentToken { agent, text } => Some(format!("{agent}:{text}")),
                Event::AgentFailed { agent, .. } => Some(format!("{agent}:end")),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn replies_streaming_side_by_side_print_one_after_another_in_the_picked_order() {
        let mut f = Floor::new();
        let mut out = Vec::new();
        for ev in [
            started(&["a", "b", "c"]),
            token("c", "c1"),
            token("a", "a1"),
            token("b", "b1"),
            done("c"),
            token("a", "a2"),
            token("b", "b2"),
            done("a"),
            done("b"),
        ] {
            f.admit(ev, &mut out);
        }
        assert_eq!(
            texts(&out),
            ["a:a1", "a:a2", "a:end", "b:b1", "b:b2", "b:end", "c:c1", "c:end"],
            "a streams live, b follows from where it is, c (whole already) last"
        );
    }

    #[test]
    fn one_speaker_at_a_time_is_printed_as_it_comes() {
        let mut f = Floor::new();
        let mut out = Vec::new();
        for ev in [started(&["a", "b"]), token("a", "x"), done("a"), token("b", "y"), done("b")] {
            f.admit(ev, &mut out);
            assert!(f.held.is_empty(), "nothing waits when replies come in turn");
        }
        assert_eq!(texts(&out), ["a:x", "a:end", "b:y", "b:end"]);
    }

    #[test]
    fn the_round_end_releases_a_reply_that_never_finished() {
        let mut f = Floor::new();
        let mut out = Vec::new();
        for ev in [started(&["a", "b"]), token("b", "y"), token("a", "x")] {
            f.admit(ev, &mut out);
        }
        assert_eq!(texts(&out), ["a:x"]);
        f.admit(
            Event::RoundFinished {
                round: 1,
                menu: String::new(),
            },
            &mut out,
        );
        assert_eq!(texts(&out), ["a:x", "b:y"], "nothing is dropped");
    }
}
