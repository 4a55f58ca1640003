//! Reading ahead before the topic (`engine::machine::warm`), end to end on
//! the loopback server: while the topic is typed, the system prompts of the
//! agents likeliest to open are read (one-token calls), guided by the draft.
//! The reads after a round are tested with the context budget.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

use std::time::Duration;

use bmad_party::engine::Command;
use bmad_party::testing::{FakeOpenAi, Recorded};
use common::*;

fn draft(text: &str) -> Step {
    Step::Send(Command::Draft { text: text.into() })
}

fn wait(ms: u64) -> Step {
    Step::Wait(Duration::from_millis(ms))
}

/// The calls of round 1's speakers, as they were sent.
fn first_round(server: &FakeOpenAi) -> Vec<Recorded> {
    server
        .received()
        .into_iter()
        .filter(|r| {
            r.prompt_text()
                .contains("Note from the session, not part of the conversation: round 1.")
        })
        .collect()
}

fn leak(s: String) -> &'static str {
    s.leak()
}

/// While the topic is typed, a round's worth of the agents likeliest to
/// open is read ahead (system prompts only), the one the draft names
/// first; then the server is left free, until a later draft names another,
/// who is read too. Each agent once; each round-1 speaker that was read
/// opens its call with the system prompt that was read.
#[tokio::test]
async fn while_the_topic_is_typed_the_likeliest_openers_are_read_ahead() {
    let server = FakeOpenAi::varied().await;
    let party = Party::new(&server);
    let (first, later) = (party.agents[4].name.clone(), party.agents[6].name.clone());
    let topic = leak(format!("{first}, how should we run on-call next year?"));
    let steps = vec![
        draft(&format!("{first}, how should")),
        wait(2500),
        draft(&format!("{later}, how should")),
        wait(500),
        Step::Say(topic),
    ];
    let events = party.run(steps).await;
    let aheads = server.read_aheads();
    let round = party.config.party.agents_per_round.1;
    assert_eq!(aheads.len(), round + 1, "a round's worth, then the one the later draft named");
    assert_eq!(speaker(&aheads[0]), first, "the agent the draft names first");
    assert_eq!(speaker(&aheads[round]), later);
    let mut read: Vec<String> = aheads.iter().map(speaker).collect();
    read.sort();
    read.dedup();
    assert_eq!(read.len(), aheads.len(), "each agent read once");
    for r in &aheads {
        assert_eq!(r.body["max_tokens"], 1);
        let messages = r.body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 1, "the system prompt alone: nothing of the topic is known yet");
        assert_eq!(messages[0]["role"], "system");
    }
    assert_eq!(rounds(&events)[0][0], party.agents[4].id, "the named agent opens");
    let calls = first_round(&server);
    assert!(calls.iter().any(|r| speaker(r) == first), "the opener's call");
    for r in &calls {
        let Some(ahead) = aheads.iter().find(|a| speaker(a) == speaker(r)) else {
            continue;
        };
        // The call opens with what was read, and goes on with the topic.
        assert_eq!(r.body["messages"][0], ahead.body["messages"][0], "{}", speaker(r));
    }
}

/// A topic that is there at once (a script, a paste) is never held up by
/// a read it did not need.
#[tokio::test]
async fn a_topic_sent_at_once_gets_no_read_before_it() {
    let server = FakeOpenAi::varied().await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("How should we run on-call next year?")]).await;
    assert_eq!(rounds(&events).len(), 1);
    assert!(server.read_aheads().is_empty());
}

/// A document put in front of the room before the topic changes every
/// system prompt: the openers are read again, with it.
#[tokio::test]
async fn a_document_before_the_topic_has_the_openers_read_again() {
    let server = FakeOpenAi::varied().await;
    let party = Party::new(&server);
    let doc = party.dir.path().join("brief.md");
    std::fs::write(&doc, "Our pager rotates weekly between four people.").unwrap();
    let context = leak(format!("/context {}", doc.display()));
    let steps = vec![
        wait(2500),
        Step::Say(context),
        wait(1000),
        Step::Say("How should we run on-call next year?"),
    ];
    party.run(steps).await;
    let aheads = server.read_aheads();
    let round = party.config.party.agents_per_round.1;
    assert_eq!(aheads.len(), 2 * round, "a round's worth, then the same again with the document");
    let with_doc: Vec<&Recorded> = aheads.iter().filter(|r| r.prompt_text().contains("pager rotates weekly")).collect();
    assert_eq!(with_doc.len(), round);
    assert!(aheads[..round].iter().all(|r| !r.prompt_text().contains("pager")));
    for r in first_round(&server) {
        if let Some(ahead) = with_doc.iter().find(|a| speaker(a) == speaker(&r)) {
            assert_eq!(r.body["messages"][0], ahead.body["messages"][0]);
        }
    }
}
