//! Round modes: replies that stream at once (hybrid, parallel), against the
//! loopback server. Whatever order they finish in, the transcript and the
//! session file keep the picked order; a finished reply is on disk before
//! the others are over; Ctrl+C stops them all; the farewells stream at once.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

use std::time::Duration;

use bmad_party::config::RoundMode;
use bmad_party::engine::{Command, Event};
use bmad_party::session::TurnKind;
use bmad_party::testing::{events_of, FakeOpenAi, Recorded, Reply};
use common::*;

/// Each persona's reply streams at its own pace: Maya's slowest, Kofi's
/// fastest, so replies finish in another order than they were picked.
fn paced(r: &Recorded, n: usize) -> Reply {
    let name = speaker(r);
    let delay = match name.as_str() {
        "Maya" => 60,
        "Ingrid" => 30,
        _ => 5,
    };
    let words: Vec<String> = (1..=8).map(|i| format!("{name}{n}w{i}")).collect();
    Reply::Stream {
        events: events_of(&format!("{} speaks for {name} here.", words.join(" "))),
        done: true,
        delay: Duration::from_millis(delay),
        cut_after: None,
        stall_after: None,
    }
}

/// A room of Maya, Ingrid and Kofi, all three speaking every round.
fn room_of_three(server: &FakeOpenAi, mode: RoundMode) -> Party {
    let mut party = Party::new(server);
    party
        .agents
        .retain(|a| ["analyst", "architect", "developer"].contains(&a.id.as_str()));
    party.config.party.agents_per_round = (3, 3);
    party.config.party.round_mode = Some(mode);
    party
}

/// The agents of the session file's turns of `kind` (in `round`, if given),
/// in the file's order.
fn saved_speakers(events: &[Event], kind: TurnKind, round: Option<u32>) -> Vec<String> {
    load(&session_file(events))
        .turns
        .iter()
        .filter(|t| t.kind == kind && round.is_none_or(|r| t.round == r))
        .filter_map(|t| t.agent.clone())
        .collect()
}

fn ids_of(events: &[Event], f: impl Fn(&Event) -> Option<String>) -> Vec<String> {
    events.iter().filter_map(f).collect()
}

#[tokio::test]
async fn parallel_replies_stream_at_once_and_keep_the_picked_order() {
    let server = FakeOpenAi::start(paced).await;
    let party = room_of_three(&server, RoundMode::Parallel);
    let events = party.run(vec![Step::Say("Market research for a new checkout")]).await;
    let picked = rounds(&events)[0].clone();
    assert_eq!(picked.len(), 3);
    // Every speaker started (and got a first token) before anyone finished.
    let first_done = events.iter().position(|e| matches!(e, Event::AgentMessage { .. })).unwrap();
    let started = events[..first_done]
        .iter()
        .filter(|e| matches!(e, Event::AgentFirstToken { .. }))
        .count();
    assert_eq!(started, 3, "all three streamed before the first was over");
    // They finished fastest first: Kofi, Ingrid, Maya.
    let finished = ids_of(&events, |e| match e {
        Event::AgentMessage { agent, round: 1, .. } => Some(agent.clone()),
        _ => None,
    });
    assert_eq!(finished, ["developer", "architect", "analyst"]);
    assert_ne!(picked, finished, "the picked order differs from the finishing order");
    // The file keeps the picked order.
    assert_eq!(saved_speakers(&events, TurnKind::Agent, Some(1)), picked);
    // Parallel: no one's prompt held another's reply of the same round.
    let reqs = server.received();
    for r in reqs.iter().take(3) {
        let prompt = r.prompt_text();
        for other in ["Maya", "Ingrid", "Kofi"] {
            assert!(!prompt.contains(&format!("speaks for {other}")), "{prompt}");
        }
    }
}

#[tokio::test]
async fn hybrid_lets_the_first_speaker_open_and_the_others_answer_it_at_once() {
    let server = FakeOpenAi::start(paced).await;
    let party = room_of_three(&server, RoundMode::Hybrid);
    let events = party.run(vec![Step::Say("Market research for a new checkout")]).await;
    let picked = rounds(&events)[0].clone();
    let first_name = |id: &str| match id {
        "analyst" => "Maya",
        "architect" => "Ingrid",
        _ => "Kofi",
    };
    // The first speaker's reply is over before the others start.
    let opener_done = events
        .iter()
        .position(|e| matches!(e, Event::AgentMessage { agent, .. } if *agent == picked[0]))
        .unwrap();
    let round_over = events.iter().position(|e| matches!(e, Event::RoundFinished { .. })).unwrap();
    let others_started: Vec<usize> = events[..round_over]
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::AgentStarted { agent, round: 1 } if *agent != picked[0]))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(others_started.len(), 2);
    assert!(others_started.iter().all(|&i| i > opener_done));
    // Both others saw the opener's reply, neither the other's.
    let reqs = server.received();
    let opener = first_name(&picked[0]);
    for r in &reqs[1..3] {
        let prompt = r.prompt_text();
        assert!(prompt.contains(&format!("speaks for {opener}")), "{prompt}");
        let me = speaker(r);
        for other in ["Maya", "Ingrid", "Kofi"].into_iter().filter(|n| *n != opener && *n != me) {
            assert!(!prompt.contains(&format!("speaks for {other}")), "{prompt}");
        }
    }
    assert_eq!(saved_speakers(&events, TurnKind::Agent, Some(1)), picked);
}

#[tokio::test]
async fn a_finished_reply_is_on_disk_while_the_others_stream_and_ctrl_c_stops_them_all() {
    // Kofi answers at once; the others stream slowly and would take a minute.
    let server = FakeOpenAi::start(|r, _| {
        if speaker(r) == "Kofi" {
            return bmad_party::testing::stream_of("Ship the smallest slice first.");
        }
        Reply::Stream {
            events: events_of(&(1..=600).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ")),
            done: true,
            delay: Duration::from_millis(100),
            cut_after: None,
            stall_after: None,
        }
    })
    .await;
    let party = room_of_three(&server, RoundMode::Parallel);
    let mut h = bmad_party::engine::spawn(party.setup());
    let mut events = Vec::new();
    let (mut sent_topic, mut aborted) = (false, false);
    let started = std::time::Instant::now();
    while let Some(ev) = tokio::time::timeout(Duration::from_secs(30), h.events.recv()).await.unwrap() {
        events.push(ev.clone());
        match ev {
            Event::AwaitingInput { .. } if !sent_topic => {
                sent_topic = true;
                h.commands.send(Command::Message { text: "Topic".into() }).unwrap();
            }
            Event::AgentMessage { ref agent, .. } if agent == "developer" && !aborted => {
                // As if the process died now: the file already holds it.
                assert_eq!(
                    saved_speakers(&events, TurnKind::Agent, None),
                    ["developer"],
                    "the finished reply is saved before the others are over"
                );
            }
            Event::AgentToken { ref agent, .. } if agent != "developer" && !aborted => {
                let others_streaming = events
                    .iter()
                    .filter_map(|e| match e {
                        Event::AgentToken { agent, .. } if agent != "developer" => Some(agent.clone()),
                        _ => None,
                    })
                    .collect::<std::collections::BTreeSet<_>>();
                let kofi_done = events
                    .iter()
                    .any(|e| matches!(e, Event::AgentMessage { agent, .. } if agent == "developer"));
                if others_streaming.len() == 2 && kofi_done {
                    aborted = true;
                    h.commands.send(Command::Abort).unwrap();
                }
            }
            Event::AwaitingInput { .. } => h.commands.send(Command::Quit).unwrap(),
            Event::SessionEnded { .. } => break,
            _ => {}
        }
    }
    assert!(aborted);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "Ctrl+C did not wait for the slow replies"
    );
    let msgs: Vec<(String, bool)> = events
        .iter()
        .filter_map(|e| match e {
            Event::AgentMessage { agent, interrupted, .. } => Some((agent.clone(), *interrupted)),
            _ => None,
        })
        .collect();
    assert_eq!(msgs.len(), 3, "{msgs:?}");
    assert_eq!(msgs.iter().filter(|(_, i)| *i).count(), 2, "both slow replies stopped: {msgs:?}");
    let picked = rounds(&events)[0].clone();
    assert_eq!(
        saved_speakers(&events, TurnKind::Agent, None),
        picked,
        "interrupted or not, the picked order"
    );
}

#[tokio::test]
async fn the_farewells_stream_at_once_and_are_saved_most_engaged_first() {
    let server = FakeOpenAi::start(paced).await;
    let party = room_of_three(&server, RoundMode::Parallel);
    let events = party.run(vec![Step::Say("Checkout metrics"), Step::Say("/exit")]).await;
    let after_exit = events.iter().position(|e| matches!(e, Event::Termination { .. })).unwrap();
    let tail = &events[after_exit..];
    let first_farewell = tail.iter().position(|e| matches!(e, Event::Farewell { .. })).unwrap();
    let started = ids_of(&tail[..first_farewell], |e| match e {
        Event::AgentStarted { agent, .. } => Some(agent.clone()),
        _ => None,
    });
    assert!(started.len() >= 2, "the farewells started together: {started:?}");
    assert_eq!(
        saved_speakers(&events, TurnKind::Farewell, None),
        started,
        "saved in the order they were asked, not the order they finished"
    );
    assert!(load(&session_file(&events)).fm.workflow_completed);
}

#[tokio::test]
async fn a_question_for_the_facilitator_waits_for_the_replies_beside_it() {
    let server = FakeOpenAi::start(|r, n| {
        if speaker(r) == "Kofi" {
            let text = "We need a budget figure first.\n!?@human What budget do we have?";
            return Reply::Stream {
                events: events_of(text),
                done: true,
                delay: Duration::from_millis(1),
                cut_after: None,
                stall_after: None,
            };
        }
        paced(r, n)
    })
    .await;
    let party = room_of_three(&server, RoundMode::Parallel);
    let events = party.run(vec![Step::Say("Checkout metrics")]).await;
    let asked = events.iter().position(|e| matches!(e, Event::AgentQuestion { .. })).unwrap();
    let replies_before = events[..asked]
        .iter()
        .filter(|e| matches!(e, Event::AgentMessage { round: 1, .. }))
        .count();
    assert_eq!(replies_before, 3, "the question is asked once every reply beside it is over");
    let s = load(&session_file(&events));
    let round1: Vec<TurnKind> = s.turns.iter().filter(|t| t.round == 1).map(|t| t.kind).collect();
    assert_eq!(
        round1[..5],
        [
            TurnKind::Facilitator,
            TurnKind::Agent,
            TurnKind::Agent,
            TurnKind::Agent,
            TurnKind::Question
        ]
    );
}

/// When each speaker's request came to its server: (speaker, when).
type Arrivals = std::sync::Arc<std::sync::Mutex<Vec<(String, std::time::Instant)>>>;

/// A server on this machine (so one request at a time, by its address)
/// whose replies take a model's time, noting when each speaker's came.
async fn noting_server(arrivals: &Arrivals) -> FakeOpenAi {
    let arrivals = arrivals.clone();
    FakeOpenAi::start(move |r, n| {
        let name = speaker(r);
        if !name.is_empty() {
            arrivals.lock().unwrap().push((name.clone(), std::time::Instant::now()));
        }
        let words: Vec<String> = (1..=8).map(|i| format!("{name}{n}w{i}")).collect();
        Reply::Paced {
            first: Duration::from_millis(150),
            each: Duration::from_millis(5),
            events: events_of(&format!("{} speaks for {name} here.", words.join(" "))),
        }
    })
    .await
}

#[tokio::test]
async fn replies_on_two_one_at_a_time_servers_stream_at_once_but_never_two_on_one_server() {
    let arrivals: Arrivals = Default::default();
    let local = noting_server(&arrivals).await;
    let second = noting_server(&arrivals).await;
    let mut party = Party::new(&local);
    party
        .agents
        .retain(|a| ["analyst", "architect", "developer", "pm"].contains(&a.id.as_str()));
    // Maya and Ingrid on the second server, Kofi and Tomás on the default.
    let on_second = ["Maya", "Ingrid"];
    for a in &mut party.agents {
        if on_second.contains(&a.name.as_str()) {
            a.endpoint = Some("second".into());
        }
    }
    party.config.llm.endpoints = vec![endpoint("second", &second, "second-model")];
    party.endpoints = vec![("second".into(), provider(&second))];
    party.config.llm.warm_up = bmad_party::config::WarmUp::Off;
    party.config.party.agents_per_round = (4, 4);
    // Unset: both servers take one request at a time, yet they differ.
    party.config.party.round_mode = None;
    let events = party.run(vec![Step::Say("Maya, Ingrid, Kofi and Tomás: how do we ship it?")]).await;

    let spoken = rounds(&events)[0].clone();
    assert_eq!(spoken.len(), 4, "{spoken:?}");
    // Each reply's stream, from its first token to its end, by event place.
    let at = |agent: &str, first: bool| {
        events
            .iter()
            .position(|e| match e {
                Event::AgentFirstToken { agent: a, .. } => first && a == agent,
                Event::AgentMessage { agent: a, round: 1, .. } => !first && a == agent,
                _ => false,
            })
            .unwrap()
    };
    let overlap = |a: &str, b: &str| at(a, true) < at(b, false) && at(b, true) < at(a, false);
    assert!(!overlap("analyst", "architect"), "Maya and Ingrid share the second server");
    assert!(!overlap("developer", "pm"), "Kofi and Tomás share the default server");
    let across = [
        ("analyst", "developer"),
        ("analyst", "pm"),
        ("architect", "developer"),
        ("architect", "pm"),
    ];
    assert!(
        across.iter().any(|(a, b)| overlap(a, b)),
        "two on different servers streamed at once: {spoken:?}"
    );
    // The servers' view: a request on a server came after the one before
    // it there had had its whole reply time; on the two servers, two came
    // at once.
    let came = arrivals.lock().unwrap().clone();
    let when = |name: &str| came.iter().find(|(n, _)| n == name).unwrap().1;
    let apart = |a: &str, b: &str| {
        let (x, y) = (when(a), when(b));
        x.max(y) - x.min(y)
    };
    assert!(apart("Maya", "Ingrid") >= Duration::from_millis(150));
    assert!(apart("Kofi", "Tomás") >= Duration::from_millis(150));
    let named = [("Maya", "Kofi"), ("Maya", "Tomás"), ("Ingrid", "Kofi"), ("Ingrid", "Tomás")];
    assert!(named.iter().any(|(a, b)| apart(a, b) < Duration::from_millis(100)), "{came:?}");
    // The later speaker on one server saw the earlier one's reply.
    let reqs: Vec<Recorded> = local.received().into_iter().chain(second.received()).collect();
    let prompt_of = |name: &str| reqs.iter().find(|r| speaker(r) == name).unwrap().prompt_text();
    for (a, b) in [("Maya", "Ingrid"), ("Kofi", "Tomás")] {
        let (first, then) = if when(a) < when(b) { (a, b) } else { (b, a) };
        assert!(prompt_of(then).contains(&format!("speaks for {first}")), "{then} saw {first}");
    }
    // The announced order is the order the file keeps.
    assert_eq!(saved_speakers(&events, TurnKind::Agent, Some(1)), spoken);
}
