//! Rooms of several models: agents on two loopback servers at once, each
//! request going to its agent's server with that endpoint's model and key;
//! each server's window, quirks and outage are its own.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

use std::time::Duration;

use bmad_party::config::Endpoint;
use bmad_party::engine::budget::estimate_tokens;
use bmad_party::engine::Event;
use bmad_party::llm::OpenAiSettings;
use bmad_party::testing::{events_of, stream_events, stream_of, varied_reply, FakeOpenAi, Recorded, Reply};
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

/// The chunks of `text` and a last one counting its tokens as a server
/// does: `prompt` in, one per chunk out.
fn counted(text: &str, prompt: u64) -> Vec<String> {
    let mut events = events_of(text);
    let usage = serde_json::json!({"id": "x", "choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": events.len() - 1}});
    events.push(usage.to_string());
    events
}

fn refuses_stop(r: &Recorded) -> bool {
    r.body.get("stop").is_some_and(|s| !s.is_null())
}

fn hosted(server: &FakeOpenAi) -> Endpoint {
    Endpoint {
        api_key_env: Some("HOSTED_KEY".into()),
        reply_max_tokens: Some(150),
        key_line: Some(7),
        ..endpoint("hosted", server, "hosted-model")
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

fn failed_with_cause(events: &[Event]) -> Vec<(String, u32, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::AgentFailed { agent, round, cause } => Some((agent.clone(), *round, cause.clone())),
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
            events: counted(&long_reply(n), 1000),
        }
    })
    .await;
    // The named one: quick, and its window is small (llama.cpp's `/props`).
    let remote = FakeOpenAi::start(|_, n| stream_events(counted(&long_reply(n + 100), 700))).await;
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
            retry_window: Duration::from_secs(4),
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
    let marks = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mark = |marks: &std::sync::Arc<std::sync::Mutex<Vec<std::time::Instant>>>| {
        let marks = marks.clone();
        Step::Do(Box::new(move || marks.lock().unwrap().push(std::time::Instant::now())))
    };
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
        // The rounds after: the gone server's agents are not asked.
        mark(&marks),
        Step::Say(ask),
        mark(&marks),
        Step::Say(ask),
    ];
    let events = party.run(script).await;

    // The front ends are told which model each agent speaks with.
    let told: Vec<(String, Option<String>)> = events
        .iter()
        .find_map(|e| match e {
            Event::SessionStarted { agents, .. } => Some(agents.iter().map(|a| (a.name.clone(), a.model.clone())).collect()),
            _ => None,
        })
        .unwrap();
    assert!(
        told.len() >= 3 && told.iter().any(|(n, _)| HOSTED.contains(&n.as_str())),
        "{told:?}"
    );
    for (name, model) in &told {
        let expected = if HOSTED.contains(&name.as_str()) {
            "hosted-model"
        } else {
            "test-model"
        };
        assert_eq!(model.as_deref(), Some(expected), "{name}");
    }

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
    // window and failed, the second was not made to wait again (told at
    // once), and the default endpoint's agent finished the round. The two
    // rounds after ask nobody on it, each told, and wait for nothing.
    let f = failed_with_cause(&events);
    let round = f[0].1;
    assert_eq!(messages(&events, round - 1).len(), 3);
    let not_asked = |r: u32| {
        f.iter()
            .filter(|(_, fr, cause)| *fr == r && cause.contains("not asked: the server of endpoint `hosted`"))
            .count()
    };
    assert_eq!(f.iter().filter(|(_, r, _)| *r == round).count(), 2, "{f:?}");
    assert_eq!(not_asked(round), 1, "{f:?}");
    for r in [round + 1, round + 2] {
        assert_eq!(not_asked(r), 2, "both hosted agents told in round {r}: {f:?}");
        assert_eq!(messages(&events, r), ["Kofi"]);
    }
    assert!(
        f.iter().all(|(who, _, _)| ["architect", "analyst"].contains(&who.as_str())),
        "{f:?}"
    );
    let when = format!("since round {round}; it is asked again in round {}", round + 3);
    assert!(f.iter().any(|(_, r, c)| *r == round + 1 && c.contains(&when)), "{when}: {f:?}");
    let marks = marks.lock().unwrap();
    let after = marks[1] - marks[0];
    assert!(after < Duration::from_secs(3), "the round after waited {after:?}");
    // The session file says which endpoint and model wrote each reply.
    let s = load(&session_file(&events));
    let via: Vec<(&str, Option<&str>, Option<&str>)> = s
        .turns
        .iter()
        .filter(|t| t.kind == bmad_party::session::TurnKind::Agent && t.round == 1)
        .map(|t| (t.label.as_str(), t.endpoint.as_deref(), t.model.as_deref()))
        .collect();
    assert_eq!(
        via,
        [
            ("🏗️ Ingrid", Some("hosted"), Some("hosted-model")),
            ("💻 Kofi", None, Some("test-model")),
            ("📊 Maya", Some("hosted"), Some("hosted-model"))
        ]
    );
    // And how many tokens each server counted: the room's total is theirs.
    let state = &s.fm.conversation_state;
    let (default, named) = (&state.endpoint_tokens["default"], &state.endpoint_tokens["hosted"]);
    assert_eq!(state.endpoint_tokens.len(), 2, "{:?}", state.endpoint_tokens);
    assert!(default.prompt >= 2000 && named.prompt >= 1400, "{default:?} {named:?}");
    assert_eq!(default.prompt % 1000 + named.prompt % 700, 0, "each server's own counts");
    assert_eq!(state.tokens.prompt, default.prompt + named.prompt);
    assert_eq!(state.tokens.completion, default.completion + named.completion);
}

#[tokio::test]
async fn agents_on_two_endpoints_get_their_prompts_laid_out_as_their_own_endpoint_says() {
    // The default endpoint: persona_first (the default); the named one:
    // room_first, its own setting.
    let local = FakeOpenAi::varied().await;
    let remote = FakeOpenAi::start(|_, n| stream_of(&varied_reply(n + 100))).await;
    let mut party = Party::new(&local);
    party.config.llm.warm_up = bmad_party::config::WarmUp::Off;
    party.config.llm.endpoints = vec![Endpoint {
        prompt_layout: Some(bmad_party::config::PromptLayout::RoomFirst),
        ..hosted(&remote)
    }];
    party.config.party.agents_per_round = (3, 3);
    party.endpoints = vec![(
        "hosted".into(),
        provider_with(OpenAiSettings {
            model: "hosted-model".into(),
            ..settings(&remote)
        }),
    )];
    for a in &mut party.agents {
        if HOSTED.contains(&a.name.as_str()) {
            a.endpoint = Some("hosted".into());
        }
    }
    let ask = "Ingrid, Kofi and Maya: how do we plan the on-call rotation?";
    party.run(vec![Step::Say(ask), Step::Say(ask)]).await;

    let speakers = |rs: Vec<Recorded>| rs.into_iter().filter_map(|r| Some((r.speaker()?, r))).collect::<Vec<_>>();
    let (on_local, on_remote) = (speakers(local.received()), speakers(remote.received()));
    assert!(
        on_local.len() >= 2 && on_remote.len() >= 4,
        "{} / {}",
        on_local.len(),
        on_remote.len()
    );
    let last = |r: &Recorded| {
        let m = r.body["messages"].as_array().unwrap();
        m.last().unwrap()["content"].as_str().unwrap_or_default().to_string()
    };
    for (who, r) in &on_local {
        let you = format!("You are {who}");
        assert!(r.system_prompt().starts_with(&you), "persona_first for {who}");
        assert!(!last(r).contains(&you), "{who}");
    }
    for (who, r) in &on_remote {
        assert!(HOSTED.contains(&who.as_str()), "{who}");
        let you = format!("You are {who}");
        assert!(!r.system_prompt().contains(&you), "room_first: the room opens {who}'s prompt");
        assert!(last(r).contains(&you), "room_first: the persona comes last for {who}");
    }
}

#[tokio::test]
async fn the_labels_follow_a_named_endpoints_model_once_its_server_lists_it() {
    let local = FakeOpenAi::varied().await;
    let remote = FakeOpenAi::start(|_, n| stream_of(&varied_reply(n + 100))).await;
    remote.route(
        "/v1/models",
        serde_json::json!({"object": "list", "data": [{"id": "listed-model"}]}),
    );
    let mut party = Party::new(&local);
    party.config.llm.warm_up = bmad_party::config::WarmUp::Off;
    // No `model:`: the server's list names it (setup's stand-in meanwhile).
    party.config.llm.endpoints = vec![Endpoint {
        model: None,
        ..hosted(&remote)
    }];
    let stand_in = "gpt-4o-mini";
    let named = OpenAiSettings {
        model_named: false,
        model: stand_in.into(),
        ..settings(&remote)
    };
    party.endpoints = vec![("hosted".into(), provider_with(named))];
    for a in &mut party.agents {
        if HOSTED.contains(&a.name.as_str()) {
            a.endpoint = Some("hosted".into());
        }
    }
    let events = party
        .run(vec![Step::Say("Ingrid, Kofi and Maya: how do we plan the on-call rotation?")])
        .await;

    // Every set of labels told, in order: session_started's, then each agent_models.
    let told: Vec<Vec<(String, Option<String>)>> = events
        .iter()
        .filter_map(|e| match e {
            Event::SessionStarted { agents, .. } => Some(agents.iter().map(|a| (a.id.clone(), a.model.clone())).collect()),
            Event::AgentModels { agents } => Some(agents.iter().map(|a| (a.id.clone(), a.model.clone())).collect()),
            _ => None,
        })
        .collect();
    assert!(told.len() >= 2, "the labels followed the list: {told:?}");
    assert!(
        told.iter().flatten().all(|(_, m)| m.as_deref() != Some(stand_in)),
        "never the stand-in: {told:?}"
    );
    let last = told.last().unwrap();
    for (id, model) in last {
        let on_hosted = ["architect", "analyst"].contains(&id.as_str());
        let expected = if on_hosted { "listed-model" } else { "test-model" };
        assert_eq!(model.as_deref(), Some(expected), "{id}: {told:?}");
    }
    let asked = remote.received();
    assert!(!asked.is_empty() && asked.iter().all(|r| r.body["model"] == "listed-model"));
}
