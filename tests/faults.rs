//! Server faults, each against the loopback OpenAI server: bounded retries
//! with backoff, then a visible failed turn with its cause; the party goes
//! on, or ends gracefully when nobody in a round can be reached; never a
//! panic; the session file always valid and resumable.

mod common;

use std::time::Duration;

use bmad_party::engine::{Event, ExitReason};
use bmad_party::session::TurnKind;
use bmad_party::testing::{chunk, events_of, stream_events, stream_of, varied_reply, FakeOpenAi, Recorded, Reply};
use common::*;

fn ended(events: &[Event]) -> Option<ExitReason> {
    events.iter().find_map(|e| {
        if let Event::SessionEnded { reason, .. } = e {
            *reason
        } else {
            None
        }
    })
}

fn retries(events: &[Event]) -> Vec<(u64, String)> {
    events
        .iter()
        .filter_map(|e| {
            if let Event::AgentRetrying { delay_ms, cause, .. } = e {
                Some((*delay_ms, cause.clone()))
            } else {
                None
            }
        })
        .collect()
}

fn failures(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| {
            if let Event::AgentFailed { cause, .. } = e {
                Some(cause.clone())
            } else {
                None
            }
        })
        .collect()
}

/// The file parses, and every failed turn in it says why.
fn file_is_sound(events: &[Event]) -> bmad_party::session::Session {
    let s = load(&session_file(events));
    for t in s.turns.iter().filter(|t| t.kind == TurnKind::Failed) {
        assert!(t.text.contains(':'), "a failed turn names its cause: {}", t.text);
    }
    s
}

#[tokio::test]
async fn rate_limit_without_retry_after_backs_off_exponentially_then_fails_visibly() {
    let server = FakeOpenAi::start(|_, _| Reply::Status {
        code: 429,
        headers: vec![],
        body: r#"{"error":{"message":"rate limited","type":"rate_limit_error"}}"#.into(),
    })
    .await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    let r = retries(&events);
    assert!(r.len() >= 3, "bounded retries: {r:?}");
    // Backoff grows (the schedule has jitter, so compare the ends).
    assert!(r[2].0 > r[0].0, "exponential backoff: {r:?}");
    let f = failures(&events);
    assert!(
        !f.is_empty() && f.iter().all(|c| c.contains("HTTP 429") && c.contains("after 4 attempts")),
        "{f:?}"
    );
    assert_eq!(
        ended(&events),
        Some(ExitReason::Unreachable),
        "nobody reachable: a graceful end, with the reason"
    );
    let s = file_is_sound(&events);
    assert_eq!(s.fm.conversation_state.exit_reason.as_deref(), Some("unreachable"));
}

#[tokio::test]
async fn bad_gateway_and_service_unavailable_then_success() {
    let server = FakeOpenAi::varied().await;
    server.push([
        Reply::Status {
            code: 502,
            headers: vec![],
            body: "<html><body>502 Bad Gateway</body></html>".into(),
        },
        Reply::Status {
            code: 503,
            headers: vec![("retry-after".into(), "0".into())],
            body: "".into(),
        },
    ]);
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    let r = retries(&events);
    assert_eq!(r.len(), 2);
    assert!(
        r[0].1.contains("HTTP 502") && r[0].1.contains("Bad Gateway"),
        "a non-OpenAI body is shown as text: {r:?}"
    );
    assert!(failures(&events).is_empty());
    file_is_sound(&events);
}

#[tokio::test]
async fn connection_refused_is_retried_then_the_party_ends_gracefully() {
    // A port with nobody listening.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let server = FakeOpenAi::varied().await;
    let mut party = Party::new(&server);
    party.provider = std::sync::Arc::new(
        bmad_party::llm::OpenAiProvider::new(bmad_party::llm::OpenAiSettings {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            api_key: "k".into(),
            model: "m".into(),
            request_timeout: Duration::from_secs(5),
            stall_timeout: Duration::from_secs(2),
            max_retries: 2,
            min_backoff: Duration::from_millis(10),
        })
        .unwrap(),
    );
    let events = party.run(vec![Step::Say("Topic"), Step::Say("never")]).await;
    let f = failures(&events);
    assert!(
        f.iter().all(|c| c.contains("cannot connect") && c.contains("after 3 attempts")),
        "{f:?}"
    );
    assert_eq!(ended(&events), Some(ExitReason::Unreachable));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Notice { text, .. } if text.contains("No agent could be reached"))));
    file_is_sound(&events);
}

#[tokio::test]
async fn a_reply_cut_on_every_attempt_fails_that_agent_only() {
    let server = FakeOpenAi::varied().await;
    let cut = Reply::Stream {
        events: events_of("this reply never completes at all"),
        done: true,
        delay: Duration::ZERO,
        cut_after: Some(2),
        stall_after: None,
    };
    server.push((0..4).map(|_| cut.clone()));
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic"), Step::Say("Next")]).await;
    let f = failures(&events);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].contains("cut off") || f[0].contains("stream broken"), "{f:?}");
    assert!(
        events.iter().any(|e| matches!(e, Event::RoundStarted { round: 2, .. })),
        "the party goes on"
    );
    file_is_sound(&events);
}

#[tokio::test]
async fn invalid_utf8_in_the_stream_is_retried_and_never_panics() {
    let server = FakeOpenAi::varied().await;
    let mut bad = b"data: {\"choices\":[{\"delta\":{\"content\":\"caf".to_vec();
    bad.extend_from_slice(&[0xff, 0xfe]);
    bad.extend_from_slice(b"\"}}]}\n\n");
    server.push([Reply::RawStream {
        chunks: vec![bad],
        done: true,
    }]);
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    assert!(!retries(&events).is_empty(), "the broken attempt is retried");
    assert!(failures(&events).is_empty());
    file_is_sound(&events);
}

#[tokio::test]
async fn a_one_megabyte_reply_is_kept_whole() {
    let big: String = (0..20_000).map(|i| format!("word{i} ")).collect::<String>() + "end.";
    assert!(big.len() > 1_000_000 / 8);
    let body = big.repeat(8);
    let events_list: Vec<String> = body
        .as_bytes()
        .chunks(4096)
        .map(|c| chunk(Some(std::str::from_utf8(c).unwrap()), None))
        .chain([chunk(None, Some("stop"))])
        .collect();
    let server = FakeOpenAi::varied().await;
    server.push([stream_events(events_list)]);
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    let first = agent_messages(&events)[0].1.clone();
    assert_eq!(first.len(), body.trim().len(), "a {} byte reply arrives whole", body.len());
    let s = file_is_sound(&events);
    assert!(s.turns.iter().any(|t| t.text.len() == body.trim().len()), "and is saved whole");
}

#[tokio::test]
async fn streams_without_done_or_with_an_error_chunk() {
    let server = FakeOpenAi::varied().await;
    server.push([
        // Ends cleanly but never says [DONE]: the text is taken as the reply.
        Reply::Stream {
            events: events_of("Complete without the done line."),
            done: false,
            delay: Duration::ZERO,
            cut_after: None,
            stall_after: None,
        },
        // An error object mid-stream: retried.
        stream_events(vec![
            chunk(Some("partial "), None),
            r#"{"error":{"message":"upstream overloaded"}}"#.to_string(),
        ]),
    ]);
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    let msgs = agent_messages(&events);
    assert_eq!(msgs[0].1, "Complete without the done line.");
    assert!(retries(&events).iter().any(|(_, c)| c.contains("upstream overloaded")));
    assert!(failures(&events).is_empty());
    file_is_sound(&events);
}

#[tokio::test]
async fn a_request_that_never_gets_an_answer_times_out() {
    let server = FakeOpenAi::start(|_: &Recorded, n| stream_of(&varied_reply(n))).await;
    server.push([Reply::Hang]);
    let mut party = Party::new(&server);
    party.provider = std::sync::Arc::new(
        bmad_party::llm::OpenAiProvider::new(bmad_party::llm::OpenAiSettings {
            base_url: server.base_url(),
            api_key: "k".into(),
            model: "m".into(),
            request_timeout: Duration::from_millis(800),
            stall_timeout: Duration::from_secs(2),
            max_retries: 2,
            min_backoff: Duration::from_millis(10),
        })
        .unwrap(),
    );
    let events = party.run(vec![Step::Say("Topic")]).await;
    assert!(
        retries(&events).iter().any(|(_, c)| c.contains("no reply within")),
        "{:?}",
        retries(&events)
    );
    assert!(failures(&events).is_empty());
    file_is_sound(&events);
}
