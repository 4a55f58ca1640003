//! Server faults, each against the loopback OpenAI server: bounded retries
//! with backoff, then a visible failed turn with its cause; the party goes
//! on, or ends gracefully when nobody in a round can be reached; never a
//! panic; the session file always valid and resumable.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

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
        "nobody reachable: the party stops, with the reason"
    );
    let s = file_is_sound(&events);
    assert!(s.fm.party_active && !s.fm.workflow_completed, "kept open for --resume");
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
    party.provider = provider_with(bmad_party::llm::OpenAiSettings {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        max_retries: 2,
        retry_window: Duration::from_secs(1),
        min_backoff: Duration::from_millis(10),
        ..settings(&server)
    });
    let events = party.run(vec![Step::Say("Topic"), Step::Say("never")]).await;
    let f = failures(&events);
    // Waited for through the window, then the round stops at its first
    // speaker: the others would wait out the same window in vain.
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].contains("cannot connect") && f[0].contains("unreachable for 1 s"), "{f:?}");
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
    party.provider = provider_with(bmad_party::llm::OpenAiSettings {
        request_timeout: Duration::from_millis(800),
        max_retries: 2,
        min_backoff: Duration::from_millis(10),
        ..settings(&server)
    });
    let events = party.run(vec![Step::Say("Topic")]).await;
    assert!(
        retries(&events).iter().any(|(_, c)| c.contains("no reply within")),
        "{:?}",
        retries(&events)
    );
    assert!(failures(&events).is_empty());
    file_is_sound(&events);
}

#[tokio::test]
async fn server_quirks_are_accepted() {
    let quirky = vec![
        // Missing id/created/object, empty finish_reason, usage: {}.
        r#"{"choices":[{"index":0,"delta":{"content":"Hello "},"finish_reason":""}]}"#.to_string(),
        r#"{"choices":[{"delta":{"reasoning_content":"hmm","content":"from "}}],"usage":{}}"#.to_string(),
        "{not json at all".to_string(),
        r#"{"id":"x","choices":[{"index":0,"delta":{"content":"quirks."},"finish_reason":"eos"}],"usage":{"prompt_tokens":10,"completion_tokens":3}}"#.to_string(),
    ];
    let server = FakeOpenAi::start(move |_, _| stream_events(quirky.clone())).await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    let msgs = agent_messages(&events);
    assert!(msgs.len() >= 2);
    assert!(msgs.iter().all(|(_, t)| t == "Hello from quirks."), "{msgs:?}");
    let s = load(&session_file(&events));
    assert!(s.fm.conversation_state.tokens.prompt >= 20);
    let req = &server.received()[0];
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer test-key"));
    assert_eq!(req.body["stream"], true);
    assert_eq!(req.body["model"], "test-model");
}

#[tokio::test]
async fn retries_429_with_retry_after_then_succeeds() {
    let server = FakeOpenAi::always("After the wait.").await;
    server.push([Reply::Status {
        code: 429,
        headers: vec![("retry-after".into(), "1".into())],
        body: r#"{"error":{"message":"slow down","type":"rate_limit_error"}}"#.into(),
    }]);
    let party = Party::new(&server);
    let started = std::time::Instant::now();
    let events = party.run(vec![Step::Say("Topic")]).await;
    let retry = events
        .iter()
        .find_map(|e| match e {
            Event::AgentRetrying {
                delay_ms, cause, attempt, ..
            } => Some((*delay_ms, cause.clone(), *attempt)),
            _ => None,
        })
        .expect("a retry");
    assert_eq!(retry.0, 1000, "Retry-After is honoured");
    assert!(retry.1.contains("429") && retry.1.contains("slow down"), "{}", retry.1);
    assert_eq!(retry.2, 1);
    assert!(started.elapsed() >= Duration::from_secs(1));
    assert!(agent_messages(&events)[0].1 == "After the wait.");
    assert!(!events.iter().any(|e| matches!(e, Event::AgentFailed { .. })));
}

#[tokio::test]
async fn retries_500_and_non_json_429_then_succeeds() {
    let server = FakeOpenAi::always("Recovered.").await;
    server.push([
        Reply::Status {
            code: 500,
            headers: vec![],
            body: "upstream exploded".into(),
        },
        Reply::Status {
            code: 429,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: "Too Many Requests".into(),
        },
    ]);
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    let retries: Vec<_> = events.iter().filter(|e| matches!(e, Event::AgentRetrying { .. })).collect();
    assert_eq!(retries.len(), 2);
    assert_eq!(agent_messages(&events)[0].1, "Recovered.");
}

#[tokio::test]
async fn stream_cut_mid_reply_is_retried_from_scratch() {
    let server = FakeOpenAi::always("The whole reply.").await;
    server.push([Reply::Stream {
        events: events_of("A partial reply that will be cut"),
        done: true,
        delay: Duration::ZERO,
        cut_after: Some(3),
        stall_after: None,
    }]);
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    assert!(events.iter().any(|e| matches!(e, Event::AgentRetrying { .. })));
    let first = &agent_messages(&events)[0];
    assert_eq!(first.1, "The whole reply.", "partial text of the cut attempt is discarded");
}

#[tokio::test]
async fn failed_agent_is_shown_and_the_party_goes_on() {
    let server = FakeOpenAi::always("Still here.").await;
    // The first agent's call keeps failing (4 attempts), the others succeed.
    server.push((0..4).map(|_| Reply::Status {
        code: 503,
        headers: vec![],
        body: r#"{"object":"error","message":"model overloaded"}"#.into(),
    }));
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic"), Step::Say("Again")]).await;
    let failed = events
        .iter()
        .find_map(|e| {
            if let Event::AgentFailed { cause, .. } = e {
                Some(cause.clone())
            } else {
                None
            }
        })
        .expect("a failed turn");
    assert!(
        failed.contains("503") && failed.contains("model overloaded") && failed.contains("4 attempts"),
        "{failed}"
    );
    assert_eq!(rounds(&events).len(), 2, "the party went on");
    let s = load(&session_file(&events));
    assert!(s
        .turns
        .iter()
        .any(|t| t.kind == TurnKind::Failed && t.text.contains("model overloaded")));
}

#[tokio::test]
async fn a_round_nobody_can_answer_stops_and_keeps_the_session_open() {
    let server = FakeOpenAi::start(|_, _| Reply::Status {
        code: 401,
        headers: vec![],
        body: r#"{"error":{"message":"invalid api key"}}"#.into(),
    })
    .await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic"), Step::Say("never")]).await;
    assert_eq!(ended(&events), Some(ExitReason::Unreachable));
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::SessionEnded {
                completed: false,
                saved: true,
                ..
            }
        )),
        "saved, not finished: the party can be resumed"
    );
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::Farewell { .. } | Event::Highlights { .. })));
    let s = load(&session_file(&events));
    assert_eq!(s.fm.conversation_state.exit_reason, None);
    assert!(s.fm.party_active && !s.fm.workflow_completed);
    assert!(notices(&events).iter().any(|n| n.contains("invalid api key")));
    // A 401 is not retried.
    assert!(server.received().len() <= 3);
}

#[tokio::test]
async fn a_stalled_stream_times_out_and_is_retried() {
    let server = FakeOpenAi::always("Unstuck.").await;
    server.push([Reply::Stream {
        events: events_of("stuck here forever"),
        done: true,
        delay: Duration::ZERO,
        cut_after: None,
        stall_after: Some(1),
    }]);
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    let cause = events
        .iter()
        .find_map(|e| {
            if let Event::AgentRetrying { cause, .. } = e {
                Some(cause.clone())
            } else {
                None
            }
        })
        .unwrap();
    assert!(cause.contains("stalled"), "{cause}");
    assert_eq!(agent_messages(&events)[0].1, "Unstuck.");
}

fn waits(events: &[Event]) -> Vec<u64> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ServerWaiting { waited_ms, .. } => Some(*waited_ms),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_server_that_restarts_within_the_window_costs_no_turn() {
    let server = FakeOpenAi::varied().await;
    // The first speaker is answered; as the second asks, the server dies
    // and is back two seconds later.
    server.push([
        stream_of(&varied_reply(1)),
        Reply::Restart {
            down: Duration::from_secs(2),
        },
    ]);
    let party = Party::new(&server);
    let started = std::time::Instant::now();
    let events = party.run(vec![Step::Say("Topic"), Step::Say("And next?")]).await;
    assert!(failures(&events).is_empty(), "no turn lost: {:?}", failures(&events));
    let w = waits(&events);
    assert!(
        w.len() >= 3 && w.windows(2).all(|p| p[0] < p[1]) && *w.last().unwrap() >= 400,
        "the wait is shown as it grows: {w:?}"
    );
    assert!(
        events.iter().any(
            |e| matches!(e, Event::ServerWaiting { agent, window_ms: 10_000, cause, .. } if !agent.is_empty() && cause.contains("cannot connect"))
        ),
        "the waiting agent, the window and the cause are named"
    );
    // Both rounds complete: every picked speaker spoke.
    let spoke = agent_messages(&events).len();
    let picked: usize = events
        .iter()
        .filter_map(|e| match e {
            Event::RoundStarted { agents, .. } => Some(agents.len()),
            _ => None,
        })
        .sum();
    assert_eq!(spoke, picked, "{spoke} of {picked} spoke");
    assert!(started.elapsed() < Duration::from_secs(20));
    let s = file_is_sound(&events);
    assert!(s.turns.iter().all(|t| t.kind != TurnKind::Failed));
}

#[tokio::test]
async fn a_server_gone_for_longer_than_the_window_ends_the_round_at_its_first_speaker() {
    let server = FakeOpenAi::varied().await;
    server.push([Reply::Restart {
        down: Duration::from_secs(60),
    }]);
    let mut party = Party::new(&server);
    party.provider = provider_with(bmad_party::llm::OpenAiSettings {
        retry_window: Duration::from_secs(2),
        ..settings(&server)
    });
    let started = std::time::Instant::now();
    let events = party.run(vec![Step::Say("Topic"), Step::Say("never")]).await;
    let f = failures(&events);
    assert_eq!(f.len(), 1, "the others are not made to wait out the window too: {f:?}");
    assert!(f[0].contains("unreachable for 2 s"), "{f:?}");
    assert_eq!(ended(&events), Some(ExitReason::Unreachable), "nobody reachable: a graceful end");
    assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
    file_is_sound(&events);
}
