//! Latency a facilitator can see: each reply's time to its first token and
//! its writing speed reach the front ends and the session file, and survive
//! a resume; the TUI shows them on the panes and the round's time on the
//! status bar.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;
use crate::screen;

use std::time::Duration;

use bmad_party::engine::Event;
use bmad_party::testing::{chunk, FakeOpenAi, Reply};
use common::*;

/// A model that reads the prompt for 300 ms, then writes 11 pieces.
fn slow_model() -> Reply {
    let mut events: Vec<String> = (0..10).map(|i| chunk(Some(&format!("Word{i} ")), None)).collect();
    events.push(chunk(Some("done."), None));
    events.push(chunk(None, Some("stop")));
    Reply::ReadsPrompt {
        wait: Duration::from_millis(300),
        events,
    }
}

#[tokio::test]
async fn each_reply_carries_its_first_token_time_to_the_front_ends_and_the_file() {
    let server = FakeOpenAi::start(|_, _| slow_model()).await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;

    let firsts: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            Event::AgentFirstToken { ms, .. } => Some(*ms),
            _ => None,
        })
        .collect();
    let messages: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::AgentMessage { latency, .. } => Some(latency.expect("a finished reply has its timing")),
            _ => None,
        })
        .collect();
    assert!(!messages.is_empty());
    assert!(firsts.len() >= messages.len(), "a first token for every reply");
    for l in &messages {
        assert!(l.first_token_ms >= 300, "the prompt was read for 300 ms: {l:?}");
        assert!(l.total_ms >= l.first_token_ms);
        assert_eq!(l.tokens, 11, "a piece a token when the server counts none");
    }
    // The first token comes before the message, for the same agent.
    let first_at = events.iter().position(|e| matches!(e, Event::AgentFirstToken { .. })).unwrap();
    let message_at = events.iter().position(|e| matches!(e, Event::AgentMessage { .. })).unwrap();
    assert!(first_at < message_at);

    let file = session_file(&events);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains(" first_token_ms="), "{text}");
    let saved: Vec<_> = load(&file)
        .turns
        .iter()
        .filter(|t| t.kind == bmad_party::session::TurnKind::Agent)
        .map(|t| t.latency.expect("kept in the file"))
        .collect();
    assert_eq!(saved, messages, "read back as written");
}

#[tokio::test]
async fn the_panes_show_the_first_token_and_speed_and_the_status_bar_the_rounds_time() {
    let server = FakeOpenAi::start(|_, _| slow_model()).await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    // Mid-round: the first pane has its first token and streams.
    let upto = screen::prefix_until(&events, |e| matches!(e, Event::AgentToken { .. }));
    let app = screen::app_from(&upto);
    let text = screen::screen_text(&screen::render(&app, 120, 30));
    assert!(text.contains("streaming… · first token 0."), "{text}");
    assert!(text.contains("⏱ 00:0"), "the round's time: {text}");
    // The round over: done, with the time and the speed.
    let upto = screen::prefix_until(&events, |e| matches!(e, Event::RoundFinished { .. }));
    let app = screen::app_from(&upto);
    let text = screen::screen_text(&screen::render(&app, 120, 30));
    assert!(text.contains("done · 0."), "{text}");
    assert!(text.contains(" tok/s"), "{text}");
}

/// A reply asked for once more (its first draft held nothing of the
/// agent's own) is one wait for the facilitator: its first token counts from
/// the turn's first request, not from the second.
#[tokio::test]
async fn a_reply_asked_again_counts_its_wait_from_the_first_request() {
    const TOPIC: &str = "How should we price the new API for small teams?";
    let server = FakeOpenAi::start(|r, n| {
        if r.prompt_text().contains("first draft of this reply") {
            bmad_party::testing::stream_of("Per-seat pricing punishes the small teams we want, so I would meter calls instead.")
        } else if n == 1 {
            // The facilitator's message handed back, after reading 400 ms.
            Reply::ReadsPrompt {
                wait: Duration::from_millis(400),
                events: vec![chunk(Some(TOPIC), None), chunk(None, Some("stop"))],
            }
        } else {
            bmad_party::testing::stream_of(&bmad_party::testing::varied_reply(n))
        }
    })
    .await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say(TOPIC)]).await;
    assert!(
        server
            .received()
            .iter()
            .any(|r| r.prompt_text().contains("first draft of this reply")),
        "the first speaker was asked again"
    );
    let first = events
        .iter()
        .find_map(|e| match e {
            Event::AgentMessage { latency, .. } => Some(latency.expect("timed")),
            _ => None,
        })
        .expect("a reply");
    assert!(first.first_token_ms >= 400, "from the first request: {first:?}");
    assert!(first.total_ms >= first.first_token_ms);
}
