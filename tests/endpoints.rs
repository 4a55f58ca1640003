//! Rooms of several models: agents on two loopback servers at once, each
//! request going to its agent's server with that endpoint's model and key;
//! each server's window, quirks and outage are its own.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

mod common;

use std::time::Duration;

use bmad_party::config::Endpoint;
use bmad_party::engine::budget::estimate_tokens;
use bmad_party::engine::Event;
use bmad_party::llm::OpenAiSettings;
use bmad_party::testing::{events_of, stream_of, varied_reply, FakeOpenAi, Recorded, Reply};
use common::*;

/// The agents that speak through the named endpoint.
const HOSTED: [&str; 2] = ["Ingrid", "Maya"];
const OMITTED: &str = "earlier round(s) are left out here to fit the model's context window";

fn estimate(r: &Recorded) -> u32 {
    r.body["messages"]
        .as_array()
        .map(|m| m.iter().map(|x| estimate_tokens(x["content"].as_str().unwrap_or(""))).sum())
        .unwrap_or(0)
}

/// A reply long enough that a few rounds outgrow a small window.
fn long_reply(n: usize) -> String {
    (0..4).map(|i| varied_reply(n * 5 + i)).collect::<Vec<_>>().join(" ")
}

fn refuses_stop(r: &Recorded) -> bool {
    r.body.get("stop").is_some_and(|s| !s.is_null())
}

fn hosted(server: &FakeOpenAi) -> Endpoint {
    Endpoint {
        name: "hosted".into(),
        base_url: server.base_url(),
        model: Some("hosted-model".into()),
        api_key_env: Some("HOSTED_KEY".into()),
        context_tokens: None,
        reply_max_tokens: Some(150),
        parallel_requests: None,
        file: "config.yaml".into(),
        line: Some(4),
    }
}

fn messages(events: &[Event], round: u32) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::AgentMessage { name, round: r, .. } if *r == round => Some(name.clone()),
            _ => None,
        })
        .collect()
}

fn failed(events: &[Event]) -> Vec<(String, u32)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::AgentFailed { agent, round, .. } => Some((agent.clone(), *round)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_room_on_two_servers_sends_each_agent_to_its_own_and_one_going_down_stops_only_its_agents() {
    // The default endpoint: a model that takes its time and refuses `stop`.
    let local = FakeOpenAi::start(|r, n| {
        if refuses_stop(r) {
            return Reply::Status {
                code: 400,
                headers: vec![],
                body: r#"{"error": {"message": "Unsupported parameter: 'stop' is not supported with this model.", "param": "stop"}}"#
                    .into(),
            };
        }
        Reply::Paced {
            first: Duration::from_millis(120),
            each: Duration::from_millis(2),
            events: events_of(&long_reply(n)),
        }
    })
    .await;
    // The named one: quick, and its window is small (llama.cpp's `/props`).
    let remote = FakeOpenAi::start(|_, n| stream_of(&long_reply(n + 100))).await;
    remote.route(
        "/props",
        serde_json::json!({"default_generation_settings": {"n_ctx": 2000}, "total_slots": 1}),
    );

    let mut party = Party::new(&local);
    party.config.llm.context_tokens = Some(16_384);
    party.config.llm.warm_up = bmad_party::config::WarmUp::Off;
    party.config.llm.endpoints = vec![hosted(&remote)];
    party.config.party.agents_per_round = (3, 3);
    party.config.party.max_rounds = 10;
    party.endpoints = vec![(
        "hosted".into(),
        provider_with(OpenAiSettings {
            api_key: "hosted-key".into(),
            model: "hosted-model".into(),
            retry_window: Duration::from_secs(2),
            ..settings(&remote)
        }),
    )];
    for a in &mut party.agents {
        if HOSTED.contains(&a.name.as_str()) {
            a.endpoint = Some("hosted".into());
        }
    }
    let ask = "Ingrid, Kofi and Maya, what next?";
    let down = remote.clone();
    let script = vec![
        Step::Say("Ingrid, Kofi and Maya: how do we plan the on-call rotation?"),
        Step::Say(ask),
        Step::Say(ask),
        Step::Say(ask),
        // The named endpoint's server dies as its next request comes.
        Step::Do(Box::new(move || {
            down.push([Reply::Restart {
                down: Duration::from_secs(60),
            }])
        })),
        Step::Say(ask),
    ];
    let events = party.run(script).await;

    let to_local = local.received();
    let to_remote = remote.received();
    let turns = |rs: &[Recorded]| rs.iter().filter(|r| r.speaker().is_some()).count();
    assert!(
        turns(&to_local) >= 4 && turns(&to_remote) >= 6,
        "{} / {}",
        turns(&to_local),
        turns(&to_remote)
    );
    // Each request on its agent's server, with that endpoint's model and key.
    for r in &to_remote {
        assert_eq!(r.header("authorization"), Some("Bearer hosted-key"));
        assert_eq!(r.body["model"], "hosted-model");
        let who = r.speaker().unwrap_or_default();
        assert!(HOSTED.contains(&who.as_str()), "{who} on the named endpoint");
    }
    for r in &to_local {
        assert_eq!(r.header("authorization"), Some("Bearer test-key"));
        assert_eq!(r.body["model"], "test-model");
        let who = r.speaker();
        assert!(
            who.as_deref().is_none_or(|w| !HOSTED.contains(&w)),
            "{who:?} on the default endpoint"
        );
    }
    // The refusal of `stop` is the default server's quirk alone.
    let refused = to_local.iter().filter(|r| refuses_stop(r)).count();
    assert_eq!(refused, 1, "asked once with `stop`, then without");
    assert!(
        to_remote.iter().filter(|r| r.speaker().is_some()).all(refuses_stop),
        "the other server still gets `stop`"
    );
    // The small window (the named server's own answer) holds there only.
    let cap = |r: &Recorded| r.body["max_tokens"].as_u64().unwrap_or(0) as u32;
    for r in to_remote.iter().filter(|r| r.speaker().is_some()) {
        assert_eq!(cap(r), 150, "the endpoint's own reply cap");
        assert!(estimate(r) + cap(r) <= 2000, "{} + {}", estimate(r), cap(r));
    }
    assert!(
        to_remote.iter().any(|r| r.prompt_text().contains(OMITTED)),
        "the small window cut the history"
    );
    assert!(!to_local.iter().any(|r| r.prompt_text().contains(OMITTED)));
    assert!(
        to_local.iter().any(|r| estimate(r) > 2000),
        "the default server's prompts are not held to it"
    );
    // The round the named server died in: its first agent waited out the
    // window and failed, the second was not made to wait again, and the
    // default endpoint's agent finished the round.
    let f = failed(&events);
    assert_eq!(f.len(), 1, "{f:?}");
    let (who, round) = &f[0];
    assert!(["architect", "analyst"].contains(&who.as_str()), "{who}");
    assert_eq!(messages(&events, *round), ["Kofi"]);
    assert_eq!(messages(&events, round - 1).len(), 3);
}
