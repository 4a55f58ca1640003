//! A model on a CPU, against the loopback server: it reads a long prompt in
//! silence before its first token, and a round takes longer than the
//! facilitator-idle timeout. Neither is a fault.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

use std::time::Duration;

use bmad_party::engine::{Event, ExitReason};
use bmad_party::testing::{events_of, varied_reply, FakeOpenAi, Reply};
use common::*;

#[tokio::test]
async fn a_first_token_later_than_the_stall_timeout_is_one_clean_reply() {
    // The stall timeout is 2 s (common::provider), the request timeout 5 s:
    // three seconds of reading the prompt is within the wait for a first
    // token, and the reply that follows is taken as it comes.
    let server = FakeOpenAi::start(|_, n| Reply::ReadsPrompt {
        wait: if n == 1 { Duration::from_secs(3) } else { Duration::ZERO },
        events: events_of(&varied_reply(n)),
    })
    .await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("A slow model, please")]).await;
    let retries: Vec<&Event> = events.iter().filter(|e| matches!(e, Event::AgentRetrying { .. })).collect();
    assert!(retries.is_empty(), "no retry while the model reads the prompt: {retries:?}");
    assert!(!events.iter().any(|e| matches!(e, Event::AgentFailed { .. })));
    let replies = agent_messages(&events);
    assert!(replies.len() >= 2, "{replies:?}");
    assert_eq!(replies[0].1, varied_reply(1), "the slow reply whole, once");
    // One request per reply: the prompt was not sent (and read) twice.
    let chats = server.received().iter().filter(|r| r.path.ends_with("/chat/completions")).count();
    let started = events.iter().filter(|e| matches!(e, Event::AgentStarted { .. })).count();
    assert_eq!(chats, started + 1, "every turn and farewell, and the highlights, asked once");
}

#[tokio::test]
async fn rounds_longer_than_the_idle_timeout_still_give_every_message_its_round() {
    // Each reply takes 0.7 s, so a round of 2-3 agents takes longer than the
    // facilitator-idle timeout of 1.2 s. The facilitator's messages are
    // queued and handed over the moment the engine asks: each one must get
    // its round, and the party must end because the facilitator left.
    let server = FakeOpenAi::start(|_, n| Reply::ReadsPrompt {
        wait: Duration::from_millis(700),
        events: events_of(&varied_reply(n)),
    })
    .await;
    let mut party = Party::new(&server);
    party.config.party.silence.user_timeout_minutes = 0.02;
    party.config.party.diligence.idle_seconds = 1;
    let events = party
        .run(vec![
            Step::Say("First topic"),
            Step::Say("Second message"),
            Step::Say("Third message"),
        ])
        .await;
    let said: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::FacilitatorMessage { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(said, ["First topic", "Second message", "Third message"]);
    assert_eq!(rounds(&events).len(), 3, "a round for each message");
    let end = events.iter().find_map(|e| match e {
        Event::SessionEnded { reason, .. } => *reason,
        _ => None,
    });
    assert_eq!(end, Some(ExitReason::FacilitatorLeft), "{:?}", notices(&events));
    assert!(
        !events.iter().any(|e| matches!(e, Event::DiligencePush { .. })),
        "no push while messages were waiting"
    );
}
