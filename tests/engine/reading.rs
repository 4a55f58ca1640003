//! The host's reading of the facilitator's message (`read_messages`, on by
//! default), end to end against the loopback OpenAI server: an invited close
//! proposed by the host and decided by the facilitator, with a point a
//! reply still raised named; a job without its facts asked about once; agreement asked
//! for and stated in the replies' own words; unreadable and failed readings
//! that change nothing; a letter in prose or JSON.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

use bmad_party::engine::{Event, ExitReason};
use bmad_party::session::ConfirmKind;
use bmad_party::testing::{stream_of, varied_reply, FakeOpenAi, Recorded, Reply};
use common::*;

fn letter(l: &str) -> Reply {
    stream_of(l)
}

fn questions(events: &[Event]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::AgentQuestion { agent, question, .. } => Some((agent.clone(), question.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn an_invited_close_read_by_the_host_is_proposed_and_the_facilitator_decides() {
    let server = FakeOpenAi::varied().await;
    let party = Party::two_a_round(&server);
    server.push_readings([letter("D"), letter("A")]);
    let events = party
        .run(vec![
            Step::Say("Which name?"),
            Step::Say("Compass it is. Anything left, or is that it?"),
            Step::CONFIRM,
        ])
        .await;
    assert_eq!(exit_reason(&events), Some(ExitReason::AgentProposed));
    // Both rounds played in full: the reading comes after the replies.
    assert_eq!(agent_messages(&events).len(), 4);
    let proposer = events.iter().find_map(|e| match e {
        Event::EndProposal { agent, .. } => Some(agent.clone()),
        _ => None,
    });
    assert_eq!(proposer.as_deref(), Some("moderator"), "the host proposes for the room");
    // One neutral call per message: no persona, no room, the likeliest answer.
    let read = server.readings();
    assert_eq!(read.len(), 2);
    let first: &Recorded = &read[0];
    assert_eq!(first.body["temperature"], 0.0);
    assert!(first.body["response_format"].is_null(), "a letter needs no schema");
    assert_eq!(first.body["max_tokens"], 3);
    let msgs = first.body["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 2);
    assert!(!first.prompt_text().contains("Business Analyst"), "no persona in the reading");
    assert!(read[1].prompt_text().contains("Compass it is. Anything left, or is that it?"));
    assert!(
        !read[1].prompt_text().contains("Which name?"),
        "a message is read alone first: earlier ones tip a close that offers a choice"
    );
    let s = load(&session_file(&events));
    let acts: Vec<&str> = s.fm.readings.iter().map(|r| r.act.as_str()).collect();
    assert_eq!(acts, ["nothing", "propose_end"]);
    assert_eq!(s.fm.readings[1].reading, Some(bmad_party::verdict::Reading::Close));
}

#[tokio::test]
async fn an_invited_close_with_a_point_still_raised_is_proposed_with_the_point_named() {
    let server = FakeOpenAi::start(|_, n| {
        stream_of(if n == 3 {
            "Agreed on the name. However, the rollout plan is not ready yet. Legal must see it."
        } else {
            "Fine with me."
        })
    })
    .await;
    let party = Party::two_a_round(&server);
    server.push_readings([letter("D"), letter("A")]);
    let events = party
        .run(vec![Step::Say("The rollout."), Step::Say("Anything left, or is that it?")])
        .await;
    let said = events.iter().find_map(|e| match e {
        Event::EndProposal { response_clean, .. } => Some(response_clean.clone()),
        _ => None,
    });
    let said = said.expect("the facilitator asked: the host proposes the end");
    assert!(
        said.contains("raised one more point: \"However, the rollout plan is not ready yet.\""),
        "{said}"
    );
    let s = load(&session_file(&events));
    assert_eq!(s.fm.readings[1].reading, Some(bmad_party::verdict::Reading::Close));
    assert_eq!(s.fm.readings[1].act, "propose_end");
}

/// A close or questions invited in so many words ("propose to end",
/// "有什么需要问我的") are read from the words, with no call; the host's
/// question for an invitation is written from the topic.
#[tokio::test]
async fn an_invitation_in_so_many_words_is_read_without_a_call() {
    let server = FakeOpenAi::varied().await;
    let party = Party::two_a_round(&server);
    server.push_readings([letter("D"), stream_of("How many customers pay monthly today?")]);
    let events = party
        .run(vec![
            Step::Say("Should we offer a yearly plan?"),
            Step::Say("Is there anything you need to ask me first?"),
            Step::Say("About 400 customers, all monthly."),
            Step::Say("I think we have covered it. If you agree, propose to end it."),
            Step::CONFIRM,
        ])
        .await;
    assert_eq!(
        questions(&events),
        [("moderator".to_string(), "How many customers pay monthly today?".to_string())]
    );
    assert_eq!(exit_reason(&events), Some(ExitReason::AgentProposed));
    let read = server.readings();
    assert_eq!(read.len(), 3, "the opening and the answer read by the model, the question written");
    let asked = read[1].prompt_text();
    assert!(
        asked.contains("Should we offer a yearly plan?") && !asked.contains("how many people"),
        "the question is written from the topic, not for a plan's facts: {asked}"
    );
    let s = load(&session_file(&events));
    let seen: Vec<(&str, &str)> = s.fm.readings.iter().map(|r| (r.answer.as_str(), r.act.as_str())).collect();
    assert_eq!(
        seen,
        [
            ("D", "nothing"),
            ("words: \"you need to ask me\"", "ask_invited"),
            ("D", "nothing"),
            ("words: \"propose to end it\"", "propose_end"),
        ]
    );
}

#[tokio::test]
async fn a_job_without_its_facts_gets_the_hosts_question_once() {
    let server = FakeOpenAi::varied().await;
    let party = Party::two_a_round(&server);
    // The answer to the question reads as a job without facts again (alone,
    // then with the earlier messages): not asked twice.
    server.push_readings([
        letter("C"),
        stream_of("Question: \"How many people will join the offsite, and when?\""),
        letter("C"),
        letter("C"),
    ]);
    let events = party
        .run(vec![Step::Say("Plan our offsite."), Step::Say("Twelve people in March.")])
        .await;
    assert_eq!(
        questions(&events),
        [(
            "moderator".to_string(),
            "How many people will join the offsite, and when?".to_string()
        )]
    );
    // The round the answer opened is answered by the room, not by the host.
    let second: Vec<String> = rounds(&events).into_iter().nth(1).unwrap_or_default();
    assert!(!second.is_empty() && !second.contains(&"moderator".to_string()), "{second:?}");
    let read = server.readings();
    assert_eq!(read.len(), 4, "letter, question, letter alone, letter with the earlier messages");
    assert!(read[1].prompt_text().contains("Plan our offsite."));
    assert!(!read[2].prompt_text().contains("Plan our offsite."), "read alone first");
    assert!(
        read[3].prompt_text().contains("Plan our offsite."),
        "read as C: again, with what was said before"
    );
    let s = load(&session_file(&events));
    let acts: Vec<&str> = s.fm.readings.iter().map(|r| r.act.as_str()).collect();
    assert_eq!(acts, ["ask_facts", "nothing"]);
}

#[tokio::test]
async fn the_end_marker_in_the_round_that_answers_the_rooms_question_is_not_raised() {
    let server = FakeOpenAi::varied().await;
    let party = Party::two_a_round(&server);
    server.push_readings([letter("C")]);
    server.push([
        stream_of(&varied_reply(1)),
        stream_of(&varied_reply(2)),
        stream_of("Twelve people fit one long table at the venue by the river. <!-- END -->"),
    ]);
    let events = party
        .run(vec![Step::Say("Plan our offsite."), Step::Say("Twelve people in March.")])
        .await;
    assert_eq!(questions(&events).len(), 1);
    assert!(
        !events.iter().any(|e| matches!(e, Event::EndProposal { .. })),
        "facts the room asked for open work, not a close"
    );
    assert_eq!(agent_messages(&events).len(), 4, "the answer's round played in full");
}

/// "Which name?", then `question`, read as asking for agreement, which the
/// second round's first speaker answers with `first` and the next with
/// `rest`; the facilitator confirms what is asked of them when `confirm`.
/// Checks both rounds were answered and the stances read.
async fn agreement_round(first: &'static str, rest: &'static str, question: &'static str, confirm: bool) -> Vec<Event> {
    let server = FakeOpenAi::start(move |_, n| match n {
        3 => stream_of(first),
        4.. => stream_of(rest),
        _ => stream_of(&varied_reply(n)),
    })
    .await;
    let party = Party::two_a_round(&server);
    server.push_readings([letter("D"), letter("B")]);
    let mut script = vec![Step::Say("Which name?"), Step::Say(question)];
    if confirm {
        script.push(Step::CONFIRM);
    }
    let events = party.run(script).await;
    assert_eq!(agent_messages(&events).len(), 4, "both rounds answered");
    assert_eq!(
        load(&session_file(&events)).fm.readings[1].act,
        "check_agreement",
        "the stances were read"
    );
    events
}

#[tokio::test]
async fn agreement_asked_for_and_stated_in_the_replies_own_words_is_consensus() {
    let events = agreement_round(
        "Agreed, Compass it is. It reads well in every language we ship.",
        "Yes, Compass works for me: short, and the domain is free.",
        "Does everyone agree on Compass?",
        true,
    )
    .await;
    assert_eq!(requests(&events, ConfirmKind::Consensus), 1);
    assert_eq!(exit_reason(&events), Some(ExitReason::Consensus));
    // The proposal quotes what the facilitator asked.
    assert!(events.iter().any(|e| matches!(e, Event::ConfirmationRequest { text, .. }
        if text.starts_with("🤝 You asked \"Does everyone agree on Compass?\", and the room agrees."))));
}

#[tokio::test]
async fn agreement_asked_for_but_contested_is_no_consensus() {
    // "but I" is a word of disagreement.
    let events = agreement_round(
        "Agreed, Compass it is.",
        "Yes, the name is fine, but I worry the domain costs too much.",
        "Does everyone agree on Compass?",
        false,
    )
    .await;
    assert_eq!(requests(&events, ConfirmKind::Consensus), 0);
}

#[tokio::test]
async fn one_yes_among_replies_arguing_for_another_name_is_no_consensus() {
    // The round's first reply agrees; the second argues for another name.
    let events = agreement_round(
        "Agreed! Compass is easy to remember.",
        "Based on our discussion, TeamGoalManager is the most fitting name for the tool.",
        "Does everyone agree we go with Compass?",
        false,
    )
    .await;
    assert_eq!(requests(&events, ConfirmKind::Consensus), 0);
}

#[tokio::test]
async fn a_question_that_hands_the_facilitator_their_own_message_back_is_not_asked() {
    let server = FakeOpenAi::start(|_, n| {
        if n == 1 {
            stream_of("!?@human 我们应用要不要加深色模式？")
        } else {
            stream_of(&varied_reply(n))
        }
    })
    .await;
    let party = Party::two_a_round(&server);
    let events = party.run(vec![Step::Say("我们的应用要不要加深色模式？")]).await;
    assert!(questions(&events).is_empty(), "{:?}", questions(&events));
    assert_eq!(agent_messages(&events).len(), 2, "the round played in full");
}

#[tokio::test]
async fn unreadable_and_failed_readings_change_nothing() {
    let server = FakeOpenAi::varied().await;
    let party = Party::two_a_round(&server);
    server.push_readings([
        stream_of("I think the leader wants a plan."),
        Reply::Status {
            code: 400,
            headers: vec![],
            body: "{\"error\":{\"message\":\"bad request\"}}".into(),
        },
    ]);
    let events = party.run(vec![Step::Say("Plugins?"), Step::Say("More?")]).await;
    assert!(questions(&events).is_empty());
    assert!(!events.iter().any(|e| matches!(e, Event::EndProposal { .. })));
    assert_eq!(agent_messages(&events).len(), 4, "both rounds played in full");
    let s = load(&session_file(&events));
    assert!(s.fm.readings[0].reading.is_none());
    assert!(s.fm.readings[0].error.as_deref().is_some_and(|e| e.contains("no letter")));
    assert!(s.fm.readings[1].error.is_some());
}

#[tokio::test]
async fn a_letter_wrapped_in_prose_or_json_is_read() {
    let server = FakeOpenAi::varied().await;
    let party = Party::two_a_round(&server);
    server.push_readings([stream_of("\"D\" -"), stream_of("{\"answer\": \"A\"}")]);
    let events = party
        .run(vec![
            Step::Say("Plugins?"),
            Step::Say("That settles it. Are we done?"),
            Step::CONFIRM,
        ])
        .await;
    assert_eq!(exit_reason(&events), Some(ExitReason::AgentProposed));
}

#[tokio::test]
async fn continue_rounds_and_a_room_that_reads_nothing_make_no_reading() {
    let server = FakeOpenAi::varied().await;
    let mut party = Party::two_a_round(&server);
    let events = party
        .run(vec![Step::Say("Plugins?"), Step::Cmd(bmad_party::engine::Command::Continue)])
        .await;
    assert_eq!(server.readings().len(), 1, "the message is read, [C] is not");
    assert!(events.iter().any(|e| matches!(e, Event::Reading { .. })));
    let server = FakeOpenAi::varied().await;
    party = Party::two_a_round(&server);
    party.config.party.read_messages = false;
    party.run(vec![Step::Say("Plugins?")]).await;
    assert!(server.readings().is_empty());
}

/// A room that asks the facilitator in round 2, through the marker.
async fn asking_room() -> FakeOpenAi {
    FakeOpenAi::start(|_, n| {
        if n == 3 {
            stream_of("Fine by me.\n!?@human Can we move on to the next part of the discussion?")
        } else {
            stream_of(&varied_reply(n))
        }
    })
    .await
}

#[tokio::test]
async fn an_agents_question_after_an_invited_close_is_held_and_the_close_proposed() {
    let server = asking_room().await;
    let party = Party::two_a_round(&server);
    server.push_readings([letter("D"), letter("A")]);
    let events = party
        .run(vec![
            Step::Say("Which name?"),
            Step::Say("Compass it is. Anything left, or is that it?"),
            Step::CONFIRM,
        ])
        .await;
    assert!(questions(&events).is_empty(), "{:?}", questions(&events));
    assert_eq!(exit_reason(&events), Some(ExitReason::AgentProposed));
    assert_eq!(server.readings().len(), 2, "each message read once");
    assert_eq!(
        agent_messages(&events).len(),
        4,
        "the speaker after the held question still answered"
    );
    let s = load(&session_file(&events));
    let r = &s.fm.readings[1];
    assert_eq!(r.act, "propose_end");
    assert_eq!(
        r.held_question.as_deref(),
        Some("Can we move on to the next part of the discussion?")
    );
    assert!(
        s.turns.iter().any(|t| t.text.contains("next part of the discussion")),
        "the question stays in its reply's words"
    );
}

#[tokio::test]
async fn an_agents_question_after_a_call_for_agreement_is_held_and_the_round_goes_on() {
    let server = FakeOpenAi::start(|_, n| match n {
        3 => stream_of("Fine by me.\n!?@human Can we move on to the next part of the discussion?"),
        4 => stream_of("Agreed, Compass it is: short and easy to say."),
        _ => stream_of(&varied_reply(n)),
    })
    .await;
    let party = Party::two_a_round(&server);
    server.push_readings([letter("D"), letter("B")]);
    let events = party
        .run(vec![Step::Say("Which name?"), Step::Say("Compass, then. Does everyone agree?")])
        .await;
    assert!(questions(&events).is_empty(), "{:?}", questions(&events));
    // The next speaker still answered, and its yes made the room's.
    assert_eq!(agent_messages(&events).len(), 4);
    assert_eq!(requests(&events, ConfirmKind::Consensus), 1, "consensus proposed");
    let s = load(&session_file(&events));
    assert!(s.fm.readings[1].held_question.is_some());
}

#[tokio::test]
async fn an_agents_question_on_any_other_message_is_asked_and_stands_for_the_hosts() {
    let server = asking_room().await;
    let party = Party::two_a_round(&server);
    // The job reads as lacking its facts: the agent's question is the one
    // asked, and no second call writes the host's.
    server.push_readings([letter("D"), letter("C"), letter("C")]);
    let events = party
        .run(vec![Step::Say("Which name?"), Step::Say("Now plan the launch party.")])
        .await;
    let asked: Vec<String> = questions(&events).into_iter().map(|(_, q)| q).collect();
    assert_eq!(asked, ["Can we move on to the next part of the discussion?"]);
    assert_eq!(server.readings().len(), 3, "the readings (C read twice), no facts question written");
    let s = load(&session_file(&events));
    assert_eq!(s.fm.readings[1].act, "nothing: an agent asked");
    assert!(s.fm.readings[1].held_question.is_none());
}

#[tokio::test]
async fn an_agents_question_stands_when_the_reading_fails() {
    let server = asking_room().await;
    let party = Party::two_a_round(&server);
    server.push_readings([letter("D"), stream_of("Well, it depends.")]);
    let events = party
        .run(vec![Step::Say("Which name?"), Step::Say("Anything left, or is that it?")])
        .await;
    assert_eq!(questions(&events).len(), 1, "the agent's own judgement stands");
}

#[tokio::test]
async fn an_agents_question_in_the_round_that_answers_the_rooms_question_is_held() {
    // Every first reply of a round asks: once, and again after the answer.
    let server = FakeOpenAi::start(|_, n| {
        if n % 2 == 1 {
            stream_of("Good point.\n!?@human How many people are coming?")
        } else {
            stream_of(&varied_reply(n))
        }
    })
    .await;
    let party = Party::two_a_round(&server);
    let events = party
        .run(vec![Step::Say("Plan our offsite."), Step::Say("Twelve people in March.")])
        .await;
    let asked: Vec<String> = questions(&events).into_iter().map(|(_, q)| q).collect();
    assert_eq!(asked, ["How many people are coming?"], "asked once, not again after the answer");
    assert_eq!(agent_messages(&events).len(), 3, "the answer's round played in full");
    let s = load(&session_file(&events));
    let held: Vec<_> = s.fm.readings.iter().filter_map(|r| r.held_question.as_deref()).collect();
    assert_eq!(held, ["How many people are coming?"]);
}

const PLUGIN_TOPIC: &str = "What should our plugin API look like for third-party developers?";

/// A room whose speakers only repeat the topic (cut, asked again, they
/// pass) when their prompt holds `trigger`, and speak otherwise.
async fn room_repeating_the_topic_on(trigger: &'static str) -> FakeOpenAi {
    FakeOpenAi::start(move |r, n| {
        if r.prompt_text().contains(trigger) {
            stream_of(PLUGIN_TOPIC)
        } else {
            stream_of(&varied_reply(n))
        }
    })
    .await
}

/// The topic, then an invited close, confirmed.
async fn close_after_the_topic(party: &Party, server: &FakeOpenAi) -> Vec<Event> {
    server.push_readings([letter("D"), letter("A")]);
    party
        .run(vec![
            Step::Say(PLUGIN_TOPIC),
            Step::Say("Good, a REST API with webhooks it is. Shall we wrap up?"),
            Step::CONFIRM,
        ])
        .await
}

#[tokio::test]
async fn an_invited_close_in_a_room_that_has_run_dry_is_proposed_not_redirected() {
    // The first speaker of each round says something; the others only
    // repeat the topic: two rounds mostly passes, the room has run dry.
    let server = room_repeating_the_topic_on("Already spoke this round").await;
    let mut party = Party::new(&server);
    party.config.party.agents_per_round = (3, 3);
    let events = close_after_the_topic(&party, &server).await;
    let passed = events.iter().filter(|e| matches!(e, Event::AgentPassed { .. })).count();
    assert!(passed >= 3, "the room ran dry: {passed} passes");
    assert!(
        !events.iter().any(|e| matches!(e, Event::RoomRepeats { .. })),
        "no redirect when the facilitator invited the close"
    );
    assert_eq!(exit_reason(&events), Some(ExitReason::AgentProposed));
}

#[tokio::test]
async fn an_invited_close_that_every_speaker_passes_on_is_proposed() {
    // Asked whether the room is done, every speaker only repeats the topic.
    // Nothing more to add is an answer.
    let server = room_repeating_the_topic_on("Shall we wrap up?").await;
    let party = Party::two_a_round(&server);
    let events = close_after_the_topic(&party, &server).await;
    let passed = events.iter().filter(|e| matches!(e, Event::AgentPassed { round: 2, .. })).count();
    assert_eq!(passed, 2, "every speaker of the close passed");
    assert_eq!(exit_reason(&events), Some(ExitReason::AgentProposed));
    let s = load(&session_file(&events));
    assert_eq!(s.fm.readings[1].act, "propose_end");
}

#[tokio::test]
async fn agreement_asked_for_that_every_speaker_passes_on_is_proposed_as_unopposed() {
    // Asked whether everyone agrees, every speaker only repeats the topic:
    // nothing to add to a yes/no question is no objection.
    let server = room_repeating_the_topic_on("Is everyone fine with that?").await;
    let party = Party::two_a_round(&server);
    server.push_readings([letter("D"), letter("B")]);
    let events = party
        .run(vec![
            Step::Say(PLUGIN_TOPIC),
            Step::Say("So a REST API with webhooks. Is everyone fine with that?"),
            Step::CONFIRM,
        ])
        .await;
    let passed = events.iter().filter(|e| matches!(e, Event::AgentPassed { round: 2, .. })).count();
    assert_eq!(passed, 2, "every speaker of the round passed");
    assert_eq!(requests(&events, ConfirmKind::Consensus), 1);
    let asked = events.iter().find_map(|e| match e {
        Event::ConfirmationRequest { text, .. } => Some(text.clone()),
        _ => None,
    });
    assert!(
        asked.is_some_and(|t| t.contains("nobody objected")),
        "the proposal says what it rests on"
    );
    assert_eq!(exit_reason(&events), Some(ExitReason::Consensus));
    assert!(server.hearings().is_empty(), "no reply to hear");
}

#[tokio::test]
async fn the_opening_read_as_a_close_is_never_proposed_and_stops_the_reading() {
    let server = FakeOpenAi::start(|_, n| stream_of(&varied_reply(n))).await;
    let party = Party::two_a_round(&server);
    // The 0.5B answers A (a close) to every message, the opening too.
    server.push_readings([letter("A"), letter("A")]);
    let events = party
        .run(vec![
            Step::Say("What should our plugin API look like?"),
            Step::Say("Good, REST with webhooks. Anything left, or is that it?"),
        ])
        .await;
    let told = events.iter().any(|e| {
        matches!(e, Event::Notice { kind: bmad_party::engine::NoticeKind::Warning, text } if text.contains("cannot tell your messages apart"))
    });
    assert!(told, "the facilitator is told why the host stops reading");
    assert_eq!(
        requests(&events, ConfirmKind::EndProposal),
        0,
        "no proposal from a reading that cannot read"
    );
    let s = load(&session_file(&events));
    assert_eq!(s.fm.readings.len(), 1, "the second message was not read: {:?}", s.fm.readings);
    assert!(s.fm.readings[0].act.contains("no more readings"));
}

/// The facilitator's own words need no model: they are read after the
/// model has shown it cannot read.
#[tokio::test]
async fn a_close_in_so_many_words_is_proposed_after_the_reading_stopped() {
    let server = FakeOpenAi::start(|_, n| stream_of(&varied_reply(n))).await;
    let party = Party::two_a_round(&server);
    server.push_readings([letter("A")]);
    let events = party
        .run(vec![
            Step::Say("What should our plugin API look like?"),
            Step::Say("Good, REST with webhooks. We can stop here."),
            Step::CONFIRM,
        ])
        .await;
    assert_eq!(exit_reason(&events), Some(ExitReason::AgentProposed));
    assert_eq!(server.readings().len(), 1, "only the opening went to the model");
    let s = load(&session_file(&events));
    assert_eq!(s.fm.readings[1].act, "propose_end");
}
