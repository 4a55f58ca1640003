//! Reply cleanup end to end: scripted replies that do what small models do
//! (speak as another agent, open with their own label, quote themselves,
//! give back the runtime's instruction, loop, run into the token cap) go
//! through the loopback server and the engine. The facilitator sees only the
//! speaker's own words, while streaming too; what was cut is counted in the
//! session file. The protocol is heard first: no cleanup rule hides a marker.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

use bmad_party::engine::Event;
use bmad_party::testing::{chunk, events_of, stream_events, FakeOpenAi, Recorded};
use common::*;

/// Someone in the room other than `name`.
fn other_than(name: &str) -> &'static str {
    if name == "Kofi" {
        "Ingrid"
    } else {
        "Kofi"
    }
}

fn is_turn(r: &Recorded) -> bool {
    r.prompt_text().contains("Note from the session")
}

/// A sentence of its own for request `n`: no two share a run of words, so
/// none reads as an echo of another.
fn plain(n: usize) -> String {
    const VERBS: [&str; 10] = [
        "ship", "measure", "review", "document", "test", "price", "sketch", "audit", "cache", "split",
    ];
    const NOUNS: [&str; 10] = [
        "contracts",
        "latency",
        "onboarding",
        "pricing",
        "backlog",
        "schema",
        "roadmap",
        "alerts",
        "budget",
        "release",
    ];
    format!("Idea {n}: {} {} before anything else.", VERBS[n % 10], NOUNS[(n * 3) % 10])
}

#[tokio::test]
async fn what_small_models_do_wrong_never_reaches_the_facilitator() {
    let server = FakeOpenAi::start(|r, n| {
        let me = speaker(r);
        if !is_turn(r) {
            return bmad_party::testing::stream_of("Thank you all, it was a good talk.");
        }
        let other = other_than(&me);
        let p = plain(n);
        let text = match n {
            // Speaks on as another agent.
            1 => format!("{p}\n{other}: I agree completely, ship it."),
            // Opens with its own label and quotes itself.
            2 => format!("{me}: As {me} said, {p}"),
            // Gives back the runtime's instruction.
            3 => format!("{p} (Note from the session, not part of the conversation: round 2. Now write {other}'s reply)"),
            // Loops.
            4 => format!("{p} {p} {p}"),
            _ => p,
        };
        stream_events(events_of(&text))
    })
    .await;
    let party = Party::new(&server);
    let events = party
        .run(vec![
            Step::Say("How do we start?"),
            Step::Say("And then?"),
            Step::Say("Anything else?"),
        ])
        .await;
    let replies = agent_messages(&events);
    assert!(replies.len() >= 6, "{replies:?}");
    let names = ["Kofi", "Ingrid", "Maya", "Priya", "Tomás", "Lena", "Amara", "Hiro", "Sage", "Ada"];
    for (_, text) in &replies {
        for n in names {
            assert!(!text.contains(&format!("{n}:")), "a label in {text:?}");
            assert!(!text.contains(&format!("As {n} said")), "a self-quote in {text:?}");
        }
        assert!(!text.contains("Note from the session"), "runtime text in {text:?}");
        assert!(text.matches("Idea").count() <= 1, "a loop in {text:?}");
    }
    // What streamed is what was kept: nothing was shown and then taken back.
    let streamed = shown_tokens(&events);
    for n in names {
        assert!(!streamed.contains(&format!("\n{n}:")), "streamed a label: {streamed:?}");
    }
    assert!(!streamed.contains("Note from the session"));
    for n in 1..=4 {
        assert!(
            replies.iter().any(|(_, t)| *t == plain(n)),
            "reply {n} cleaned to its own words: {replies:?}"
        );
    }
    // Counted in the session file, by kind.
    let s = load(&session_file(&events));
    for kind in ["speaks_as_other", "own_label", "self_quote", "runtime_text", "loop"] {
        assert!(
            s.fm.hygiene.get(kind).copied().unwrap_or(0) >= 1,
            "{kind} counted: {:?}",
            s.fm.hygiene
        );
    }
    // Every turn asked for a capped reply and named the others as stop labels.
    let turn = server.received().into_iter().find(is_turn).expect("a turn");
    assert_eq!(turn.body["max_tokens"], 350);
    let stops: Vec<String> = serde_json::from_value(turn.body["stop"].clone()).unwrap();
    assert!(stops.contains(&"\nAda:".to_string()), "{stops:?}");
    assert!(!stops.contains(&format!("\n{}:", speaker(&turn))), "not its own label: {stops:?}");
}

#[tokio::test]
async fn a_capped_reply_ends_at_its_last_full_sentence_and_one_emptied_twice_passes() {
    let server = FakeOpenAi::start(|r, n| {
        if !is_turn(r) {
            return bmad_party::testing::stream_of("Goodbye, and thank you.");
        }
        if n == 1 {
            // Cut off by the token cap mid-sentence.
            let mut ev: Vec<String> = ["Keep the scope small. ", "Ship in two weeks, then ", "measure what users"]
                .iter()
                .map(|t| chunk(Some(t), None))
                .collect();
            ev.push(chunk(None, Some("length")));
            return stream_events(ev);
        }
        if n == 2 || n == 3 {
            // Nothing but another agent's line, twice: once asked again, then it passes.
            let other = other_than(&speaker(r));
            return stream_events(events_of(&format!("{other}: I would do it all myself.")));
        }
        if n == 4 {
            // The next agent's first try is emptied too; asked again, it has words of its own.
            return stream_events(events_of(&format!("{}: Me first.", other_than(&speaker(r)))));
        }
        bmad_party::testing::stream_of("A reply of the speaker's own, plain and short.")
    })
    .await;
    let mut party = Party::new(&server);
    // A cap this low holds every unfinished sentence back.
    party.config.llm.reply_max_tokens = 40;
    party.config.party.agents_per_round = (3, 3);
    let events = party.run(vec![Step::Say("Scope?")]).await;
    let replies = agent_messages(&events);
    assert_eq!(replies[0].1, "Keep the scope small.", "{replies:?}");
    assert!(
        !events.iter().any(|e| matches!(e, Event::AgentFailed { .. })),
        "the server answered: no failure"
    );
    let passed: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::AgentPassed { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(passed.len(), 1, "{passed:?}");
    assert!(passed[0].contains("nothing new to add"), "{passed:?}");
    assert_eq!(
        replies[1].1, "A reply of the speaker's own, plain and short.",
        "asked again: {replies:?}"
    );
    // Asked again: the same prompt with a note on why at its end, a little warmer.
    let reqs = server.received();
    let (first, again) = (&reqs[1].body, &reqs[2].body);
    let (m1, m2) = (first["messages"].as_array().unwrap(), again["messages"].as_array().unwrap());
    assert_eq!(m1.len(), m2.len());
    assert_eq!(m1[..m1.len() - 1], m2[..m2.len() - 1], "the prefix is the same");
    let (last1, last2) = (
        m1.last().unwrap()["content"].as_str().unwrap(),
        m2.last().unwrap()["content"].as_str().unwrap(),
    );
    assert!(last2.starts_with(last1) && last2[last1.len()..].contains("first draft"), "{last2}");
    assert!(again["temperature"].as_f64() > first["temperature"].as_f64());
    let s = load(&session_file(&events));
    assert_eq!(s.fm.hygiene.get("capped"), Some(&1));
    assert_eq!(s.fm.hygiene.get("asked_again"), Some(&2));
    assert_eq!(s.fm.hygiene.get("passed"), Some(&1));
    assert!(
        s.turns.iter().any(|t| t.text.contains("nothing new to add")),
        "the pass is in the transcript"
    );
}

#[tokio::test]
async fn a_reply_of_headings_only_is_asked_again_then_passes() {
    // `### Settled\n### Open`: what a small model made of "say what is
    // settled and what is open".
    let server = FakeOpenAi::start(|r, _| {
        if is_turn(r) {
            stream_events(events_of("### Settled\n\n### Open\n\n### Next Action\n"))
        } else {
            stream_events(vec![chunk(Some("[]"), Some("stop"))])
        }
    })
    .await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    let passed = events.iter().filter(|e| matches!(e, Event::AgentPassed { .. })).count();
    let asked_again = events
        .iter()
        .filter(|e| matches!(e, Event::AgentRetrying { cause, .. } if cause.contains("empty_heading")))
        .count();
    assert!(passed >= 2, "every speaker passes: {passed}");
    assert_eq!(asked_again, passed, "each asked once more first");
    // A round everyone passed has run dry: the host's summary follows it.
    let said: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::AgentMessage { agent, text, .. } if agent != "moderator" => Some(text),
            _ => None,
        })
        .collect();
    assert!(said.is_empty(), "no heading-only turn: {said:?}");
    assert!(events.iter().any(|e| matches!(e, Event::RoomRepeats { dry: true, .. })));
}

#[tokio::test]
async fn the_continue_prompt_handed_back_is_cut() {
    let server = FakeOpenAi::start(|r, n| {
        if !is_turn(r) {
            return stream_events(vec![chunk(Some("[]"), Some("stop"))]);
        }
        if r.prompt_text().contains("asks the room to carry on") {
            stream_events(events_of(&format!(
                "{}\n(Ada has nothing to add right now and asks the room to carry on: go deeper on the most important open point, or challenge something said earlier.)",
                plain(n)
            )))
        } else {
            stream_events(events_of(&plain(n)))
        }
    })
    .await;
    let party = Party::new(&server);
    let events = party
        .run(vec![Step::Say("Topic"), Step::Cmd(bmad_party::engine::Command::Continue)])
        .await;
    let messages: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::AgentMessage { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert!(messages.len() >= 4, "two rounds were played: {messages:?}");
    assert!(messages.iter().all(|m| !m.contains("carry on")), "{messages:?}");
    let s = load(&session_file(&events));
    assert!(s.fm.hygiene.get("runtime_text").copied().unwrap_or(0) >= 2, "{:?}", s.fm.hygiene);
}

#[tokio::test]
async fn a_turn_of_thanks_or_a_bare_yes_is_never_shown_and_is_asked_again() {
    // "Thank you, Maya." and "同意。" as whole turns: the 1.5B's stubs.
    let server = FakeOpenAi::start(|r, n| {
        if !is_turn(r) {
            return stream_events(vec![chunk(Some("[]"), Some("stop"))]);
        }
        if r.prompt_text().contains("set aside") {
            stream_events(events_of(&plain(n)))
        } else {
            stream_events(events_of(["Thank you, Maya.", "I completely agree!", "同意。"][n % 3]))
        }
    })
    .await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    let streamed = shown_tokens(&events);
    for stub in ["Thank you", "agree", "同意"] {
        assert!(!streamed.contains(stub), "a stub streamed: {streamed:?}");
    }
    let replies = agent_messages(&events);
    assert!(
        !replies.is_empty() && replies.iter().all(|(_, t)| t.starts_with("Idea ")),
        "{replies:?}"
    );
    let s = load(&session_file(&events));
    assert!(s.fm.hygiene.get("stub").copied().unwrap_or(0) >= 2, "{:?}", s.fm.hygiene);
    assert_eq!(s.fm.hygiene.get("stub"), s.fm.hygiene.get("asked_again"));
}

#[tokio::test]
async fn a_reply_opening_with_the_line_before_its_label_is_never_shown() {
    // The facilitator's label, or the last speaker's, at a reply's very
    // start: the reply was a line of theirs and ends there, in Chinese as
    // in English; asked again, the speaker's own words are shown.
    for (lang, topic, label, own) in [
        (
            bmad_party::i18n::Lang::En,
            "Should our product work offline?",
            "Ada: Agreed, I completely agree with you. We should pilot with one team first.",
            "Interview five offline users first",
        ),
        (
            bmad_party::i18n::Lang::Zh,
            "我们的产品该不该提供离线模式？",
            "Ada: 好的，我们讨论一下离线模式。从功能上讲，离线模式可以提供更好的用户体验，特别是在用户没有网络连接的时候。",
            "先访谈五位离线用户",
        ),
    ] {
        let server = FakeOpenAi::start(move |r, n| {
            let text = r.prompt_text();
            if !(text.contains("Note from the session, not part of the conversation: round")
                || text.contains("会话提示，不属于对话内容：第"))
            {
                return stream_events(vec![chunk(Some("[]"), Some("stop"))]);
            }
            if text.contains("set aside") || text.contains("已被舍弃") {
                stream_events(events_of(&format!("{own}, round {n}.")))
            } else {
                stream_events(events_of(label))
            }
        })
        .await;
        let mut party = Party::new(&server);
        party.lang = lang;
        let events = party.run(vec![Step::Say(topic)]).await;
        let streamed = shown_tokens(&events);
        assert!(!streamed.contains("Ada"), "{lang:?}: {streamed}");
        let replies = agent_messages(&events);
        assert!(
            !replies.is_empty() && replies.iter().all(|(_, t)| t.contains(own)),
            "{lang:?}: {replies:?}"
        );
    }
}

/// The speaker's title, from its persona card ("You are Kofi, Senior Developer 💻.").
fn title_of(r: &Recorded) -> String {
    let opening = format!("You are {}, ", speaker(r));
    let text = r.prompt_text();
    let line = text.lines().find(|l| l.starts_with(&opening)).unwrap_or_default();
    line.get(opening.len()..)
        .unwrap_or_default()
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .to_string()
}

#[tokio::test]
async fn its_own_title_written_as_its_label_is_never_shown() {
    // Every turn opens with the speaker's title as its label ("Senior Developer: …").
    let server = FakeOpenAi::start(|r, n| {
        if !is_turn(r) {
            return stream_events(vec![chunk(Some("[]"), Some("stop"))]);
        }
        stream_events(events_of(&format!("{}: {}", title_of(r), plain(n))))
    })
    .await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    let replies = agent_messages(&events);
    assert!(
        replies.len() >= 2 && replies.iter().all(|(_, t)| t.starts_with("Idea ")),
        "{replies:?}"
    );
    let s = load(&session_file(&events));
    assert_eq!(
        s.fm.hygiene.get("own_label").copied(),
        Some(replies.len() as u64),
        "{:?}",
        s.fm.hygiene
    );
}

/// The end proposal a party's events hold: its agent and clean text.
fn proposal(events: &[Event]) -> Option<(String, String)> {
    events.iter().find_map(|e| match e {
        Event::EndProposal { agent, response_clean, .. } => Some((agent.clone(), response_clean.clone())),
        _ => None,
    })
}

#[tokio::test]
async fn a_marker_after_a_point_cleanup_cut_is_still_heard() {
    // Request 4, in round 2: a list of four points ends the turn at its
    // third (a small model's written answer), and the end marker after it
    // is the speaker's own proposal all the same.
    let reply =
        "We should pilot it first:\n1. One team.\n2. One month.\n3. One metric.\n4. A review.\n\nI think we are done here. <!-- END -->";
    let server = FakeOpenAi::start(move |r, n| {
        if n == 4 && is_turn(r) {
            bmad_party::testing::stream_of(reply)
        } else {
            bmad_party::testing::stream_of(&plain(n))
        }
    })
    .await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic"), Step::Say("Thoughts?"), Step::CONFIRM]).await;
    let (_, clean) = proposal(&events).expect("the proposal is heard past the cut");
    assert_eq!(clean, "We should pilot it first:\n1. One team.\n2. One month.");
    let s = load(&session_file(&events));
    assert_eq!(s.fm.hygiene.get("list_cap"), Some(&1), "{:?}", s.fm.hygiene);
    assert!(s.fm.conversation_state.exit_flags.agent_proposed);
    assert!(!shown_tokens(&events).contains("A review"), "what the rule cut never shows");
}

#[tokio::test]
async fn a_marker_written_in_anothers_line_is_not_the_speakers() {
    // The model goes on as Kofi (or whoever is not speaking) and proposes
    // the end in their name: no proposal of the speaker's.
    let server = FakeOpenAi::start(|r, n| {
        if n == 4 && is_turn(r) {
            let other = other_than(&speaker(r));
            bmad_party::testing::stream_of(&format!("{}\n**{other}**: Agreed, let us wrap up. <!-- END -->", plain(n)))
        } else {
            bmad_party::testing::stream_of(&plain(n))
        }
    })
    .await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic"), Step::Say("Thoughts?")]).await;
    assert_eq!(proposal(&events), None);
    assert!(!shown_tokens(&events).contains("wrap up"));
}

#[tokio::test]
async fn a_question_after_a_point_cleanup_cut_is_still_put_to_the_facilitator() {
    let reply = "Three things:\n1. Users.\n2. Budget.\n3. Time.\n!?@human Which users matter most to you?";
    let server = FakeOpenAi::start(move |r, n| {
        if n == 4 && is_turn(r) {
            bmad_party::testing::stream_of(reply)
        } else {
            bmad_party::testing::stream_of(&plain(n))
        }
    })
    .await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic"), Step::Say("What do you need from me?")]).await;
    let asked: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::AgentQuestion { question, .. } => Some(question.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(asked, ["Which users matter most to you?"], "{:?}", agent_messages(&events));
}

#[tokio::test]
async fn a_light_level_reply_that_speaks_as_another_raises_its_endpoint_to_full() {
    // The default endpoint is set to light; its second turn goes on as
    // another, and from then on every rule applies.
    let server = FakeOpenAi::start(|r, n| {
        if !is_turn(r) {
            return bmad_party::testing::stream_of("Thank you all, it was a good talk.");
        }
        let other = other_than(&speaker(r));
        let text = match n {
            1 => format!("Certainly! Here's how I see it: {}", plain(n)),
            2 => format!("{}\n{other}: I agree completely, ship it.", plain(n)),
            _ => format!("Certainly! Here's how I see it: {}", plain(n)),
        };
        stream_events(events_of(&text))
    })
    .await;
    let mut party = Party::new(&server);
    party.config.llm.cleanup = bmad_party::config::CleanupLevel::Light;
    party.config.party.agents_per_round = (2, 2);
    let script = vec![
        Step::Say("How do we start?"),
        Step::Say("And then?"),
        Step::Cmd(bmad_party::engine::Command::Quit),
    ];
    let events = party.run(script).await;
    let replies = agent_messages(&events);
    // At light, a strong model's courtesy stays; another's line never does.
    assert_eq!(replies[0].1, format!("Certainly! Here's how I see it: {}", plain(1)));
    assert_eq!(replies[1].1, plain(2));
    // Raised: the talk about the reply goes from the next turn on.
    assert!(replies[2..].iter().all(|(_, t)| !t.starts_with("Certainly")), "{replies:?}");
    assert!(
        notices(&events).iter().any(|n| n.contains("full reply cleanup from now on")),
        "{:?}",
        notices(&events)
    );
    let levels: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::CleanupLevels { levels } => Some(serde_json::to_value(levels[0].level).unwrap().as_str().unwrap().to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(levels, ["light", "full"], "told at the start and when raised");
    let file = session_file(&events);
    let s = load(&file);
    assert_eq!(s.fm.cleanup["default"].level, "full");
    assert_eq!(s.fm.cleanup["default"].by, "raised");
    assert_eq!(s.fm.cleanup["default"].raised_in_round, Some(1));
    // Resumed, the model that slipped keeps every rule.
    let mut again = Party::new(&server);
    again.dir = party.dir;
    again.config = party.config.clone();
    again.resume = Some(file.clone());
    let more = again.run(vec![Step::Say("Anything else?")]).await;
    let told = more.iter().find_map(|e| match e {
        Event::CleanupLevels { levels } => Some(levels[0].clone()),
        _ => None,
    });
    let told = told.expect("told on resume");
    assert_eq!(serde_json::to_value(told.level).unwrap(), "full", "{told:?}");
    assert_eq!(load(&file).fm.cleanup["default"].raised_in_round, Some(1));
    // Set to `off` since, the facilitator's choice stands over the raise.
    let mut off = Party::new(&server);
    off.dir = again.dir;
    off.config = again.config.clone();
    off.config.llm.cleanup = bmad_party::config::CleanupLevel::Off;
    off.resume = Some(file.clone());
    let events = off.run(vec![Step::Say("One more?")]).await;
    let told = events.iter().find_map(|e| match e {
        Event::CleanupLevels { levels } => Some(levels[0].clone()),
        _ => None,
    });
    assert_eq!(serde_json::to_value(told.expect("told").level).unwrap(), "off");
}

#[tokio::test]
async fn a_large_model_on_a_local_server_gets_the_light_level_by_the_size_its_server_gives() {
    // Ollama lists sizes in its own list, not in the OpenAI one.
    let server = FakeOpenAi::start(|_, n| bmad_party::testing::stream_of(&plain(n))).await;
    server.route("/v1/models", serde_json::json!({"object": "list", "data": [{"id": "test-model"}]}));
    server.route(
        "/api/tags",
        serde_json::json!({"models": [{"name": "test-model", "details": {"parameter_size": "70.6B"}}]}),
    );
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("How do we start?")]).await;
    let told: Vec<(String, String)> = events
        .iter()
        .filter_map(|e| match e {
            Event::CleanupLevels { levels } => Some((
                serde_json::to_value(levels[0].level).unwrap().as_str().unwrap().to_string(),
                levels[0].why.clone(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0].0, "light");
    assert!(told[0].1.contains("70.6"), "{told:?}");
    let s = load(&session_file(&events));
    assert_eq!(
        (s.fm.cleanup["default"].by.as_str(), s.fm.cleanup["default"].billions),
        ("server_size", Some(70.6))
    );
    // Without a size anywhere, a local server's model gets every rule.
    let server = FakeOpenAi::start(|_, n| bmad_party::testing::stream_of(&plain(n))).await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("How do we start?")]).await;
    let s = load(&session_file(&events));
    assert_eq!(
        (s.fm.cleanup["default"].level.as_str(), s.fm.cleanup["default"].by.as_str()),
        ("full", "local")
    );
}
