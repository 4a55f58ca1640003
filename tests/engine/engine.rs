//! End-to-end engine tests: a real engine task, a real async-openai client,
//! a real HTTP server on 127.0.0.1 speaking the OpenAI streaming protocol.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

use std::collections::HashSet;
use std::time::Duration;

use bmad_party::engine::{Command, Event, ExitReason, NoticeKind};
use bmad_party::i18n::Lang;
use bmad_party::session::{ConfirmKind, ConfirmStatus, StepId, TurnKind};
use bmad_party::testing::{events_of, stream_of, FakeOpenAi, Reply};
use common::*;

fn ended(events: &[Event]) -> (Option<ExitReason>, bool) {
    events
        .iter()
        .find_map(|e| match e {
            Event::SessionEnded { reason, completed, .. } => Some((*reason, *completed)),
            _ => None,
        })
        .expect("session ended")
}

#[tokio::test]
async fn party_runs_to_the_round_limit_with_the_defaults() {
    let server = FakeOpenAi::varied().await;
    let party = Party::new(&server);
    let mut script = say(10, "What should we do next?");
    script.push(Step::CONFIRM);
    let events = party.run(script).await;

    assert_eq!(rounds(&events).len(), 10, "ten rounds ran");
    let warning_at = events
        .iter()
        .position(|e| matches!(e, Event::Notice { kind: NoticeKind::Warning, text } if text.contains("round 8 of 10 is done")))
        .expect("warning");
    let round9 = events
        .iter()
        .position(|e| matches!(e, Event::RoundStarted { round: 9, .. }))
        .unwrap();
    assert!(warning_at < round9, "the warning comes after round 8, before round 9");
    assert_eq!(
        notices(&events).iter().filter(|n| n.contains("Heads-up: round")).count(),
        1,
        "the warning fires once"
    );
    let limit = events
        .iter()
        .position(|e| {
            matches!(
                e,
                Event::ConfirmationRequest {
                    kind: ConfirmKind::RoundLimit,
                    ..
                }
            )
        })
        .expect("limit question");
    let round10_end = events
        .iter()
        .position(|e| matches!(e, Event::RoundFinished { round: 10, .. }))
        .unwrap();
    assert!(limit > round10_end);
    assert!(notices(&events)
        .iter()
        .any(|n| n.contains("maximum number of rounds has been reached (10 rounds)")));
    assert_eq!(ended(&events), (Some(ExitReason::RoundLimit), true));

    // After the warning, every agent prompt says what remains.
    let reqs = server.received();
    let turn_prompts: Vec<_> = reqs.iter().filter(|r| r.prompt_text().contains("Note from the session")).collect();
    let after_warning: Vec<_> = turn_prompts
        .iter()
        .filter(|r| r.prompt_text().contains("round 9.") || r.prompt_text().contains("round 10."))
        .collect();
    assert!(!after_warning.is_empty());
    // In the turn's closing note: the system prompt stays the same all
    // session, the cached front of every prompt.
    let note = |r: &bmad_party::testing::Recorded| {
        let t = r.prompt_text();
        t[t.rfind("Note from the session").unwrap()..].to_string()
    };
    for r in &after_warning {
        assert!(note(r).contains("round(s) and"), "remaining is stated: {}", note(r));
        assert!(!r.system_prompt().contains("round(s) and"));
    }
    assert!(
        after_warning.iter().any(|r| note(r).contains("2 round(s)")),
        "round 9 prompt says 2 rounds remain"
    );
    let before: Vec<_> = turn_prompts.iter().filter(|r| r.prompt_text().contains("round 3.")).collect();
    assert!(before.iter().all(|r| !r.prompt_text().contains("nearly over")));

    let farewells: Vec<_> = events.iter().filter(|e| matches!(e, Event::Farewell { .. })).collect();
    assert!((2..=3).contains(&farewells.len()), "{} farewells", farewells.len());
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Highlights { text } if text.starts_with("**Session Highlights:**"))));

    let s = load(&session_file(&events));
    assert!(!s.fm.party_active);
    assert!(s.fm.workflow_completed);
    assert_eq!(s.fm.steps_completed, vec![StepId::Number(1), StepId::Number(2), StepId::Number(3)]);
    assert_eq!(s.fm.conversation_state.current_round, 10);
    assert!(s.fm.conversation_state.exit_flags.round_limit);
    assert!(!s.fm.conversation_state.exit_flags.user_requested);
    assert_eq!(s.fm.conversation_state.exit_reason.as_deref(), Some("round_limit"));
    assert_eq!(s.fm.confirmations.len(), 1);
    assert_eq!(s.fm.confirmations[0].status, ConfirmStatus::Confirmed);
    let agent_turns = s.turns.iter().filter(|t| t.kind == TurnKind::Agent).count();
    assert_eq!(agent_turns, agent_messages(&events).len());
    assert!(s.turns.iter().filter(|t| t.kind == TurnKind::Farewell).count() >= 2);
}

#[tokio::test]
async fn chinese_notices_use_the_seed_wording() {
    // Replies of the agents' own (a bare "好的。" is a stub, no turn).
    let server = FakeOpenAi::start(|_, n| stream_of(&bmad_party::testing::varied_reply_zh(n))).await;
    let mut party = Party::new(&server);
    party.lang = Lang::Zh;
    party.config.party.auto_exit_enabled = true;
    party.config.party.max_rounds = 3;
    party.config.party.warn_at_rounds = 2;
    let events = party.run(say(5, "继续讨论")).await;
    let n = notices(&events).join("\n");
    assert!(n.contains("🔔 提示：对话已进行 2 轮（上限 3 轮）"), "{n}");
    assert!(n.contains("💡 您可以选择继续或输入 [E] 退出"), "{n}");
    assert!(n.contains("⏰ 已达到最大对话轮次（3 轮）"), "{n}");
    assert!(n.contains("🎊 感谢参与！正在结束对话..."), "{n}");
    assert_eq!(rounds(&events).len(), 3);
}

#[tokio::test]
async fn auto_exit_ends_at_the_limit_without_asking() {
    let server = FakeOpenAi::always("Noted.").await;
    let mut party = Party::new(&server);
    party.config.party.auto_exit_enabled = true;
    party.config.party.max_rounds = 2;
    party.config.party.warn_at_rounds = 1;
    let events = party.run(say(5, "Next?")).await;
    assert_eq!(rounds(&events).len(), 2);
    assert!(!events.iter().any(|e| matches!(e, Event::ConfirmationRequest { .. })));
    assert_eq!(ended(&events), (Some(ExitReason::RoundLimit), true));
}

#[tokio::test]
async fn continuing_past_the_limit_raises_it() {
    let server = FakeOpenAi::varied().await;
    let mut party = Party::new(&server);
    party.config.party.max_rounds = 2;
    party.config.party.warn_at_rounds = 0;
    let mut script = say(2, "Go on");
    script.push(Step::Answer {
        confirmed: false,
        extend: Some(1),
        reason: None,
    });
    script.push(Step::Say("One more"));
    script.push(Step::CONFIRM);
    let events = party.run(script).await;
    assert_eq!(rounds(&events).len(), 3);
    assert!(notices(&events)
        .iter()
        .any(|n| n.contains("Continuing for 1 more rounds (new limit: 3)")));
    let s = load(&session_file(&events));
    assert_eq!(s.fm.conversation_state.max_rounds, 3);
    assert_eq!(
        s.fm.confirmations.iter().map(|c| c.status).collect::<Vec<_>>(),
        vec![ConfirmStatus::Rejected, ConfirmStatus::Confirmed]
    );
    assert!(s.fm.conversation_state.exit_flags.round_limit);
}

#[tokio::test]
async fn exit_triggers_match_whole_facilitator_messages_only() {
    // Agents saying "quit" or "goodbye" never end the party.
    let server = FakeOpenAi::always("I would never quit this. goodbye").await;
    let party = Party::new(&server);
    let events = party
        .run(vec![
            Step::Say("Topic"),
            Step::Say("we should not quit now"),
            Step::Say("  GoodBye  "),
        ])
        .await;
    assert_eq!(rounds(&events).len(), 2);
    assert_eq!(ended(&events), (Some(ExitReason::UserRequested), true));
    let s = load(&session_file(&events));
    assert!(s.fm.conversation_state.exit_flags.user_requested);
    assert_eq!(s.fm.conversation_state.exit_reason.as_deref(), Some("user_requested"));
}

#[tokio::test]
async fn exit_command_and_facilitator_leaving() {
    let server = FakeOpenAi::always("Fine.").await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic"), Step::Cmd(Command::Exit)]).await;
    assert_eq!(ended(&events), (Some(ExitReason::UserRequested), true));

    let events = party.run(vec![Step::Say("Topic")]).await;
    assert_eq!(ended(&events), (Some(ExitReason::FacilitatorLeft), true));
    let s = load(&session_file(&events));
    assert_eq!(s.fm.conversation_state.exit_reason.as_deref(), Some("facilitator_left"));
}

fn marker_server_at(request_no: usize) -> impl Fn(&bmad_party::testing::Recorded, usize) -> Reply {
    move |_, n| {
        if n == request_no {
            stream_of("We have converged on a plan. <!-- END -->")
        } else {
            stream_of("Interesting, let us continue.")
        }
    }
}

#[tokio::test]
async fn an_end_marker_with_no_words_is_a_proposal_not_an_empty_reply() {
    // Request 4, in round 2: the marker alone, or after a stub hygiene cuts.
    for reply in ["<!-- END -->", "Here's what I would do:\n<!-- END -->"] {
        let server = FakeOpenAi::start(move |_, n| {
            if n == 4 {
                stream_of(reply)
            } else {
                stream_of("Interesting, let us continue.")
            }
        })
        .await;
        let party = Party::new(&server);
        let events = party.run(vec![Step::Say("Topic"), Step::Say("Thoughts?"), Step::CONFIRM]).await;
        let clean = events
            .iter()
            .find_map(|e| match e {
                Event::EndProposal { response_clean, .. } => Some(response_clean.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{reply:?}: an end proposal"));
        assert_eq!(clean, "(proposes to end the party, without a word of why)", "{reply:?}");
        assert!(
            !events.iter().any(|e| matches!(e, Event::AgentFailed { .. })),
            "{reply:?}: no failure shown"
        );
        assert_eq!(ended(&events), (Some(ExitReason::AgentProposed), true), "{reply:?}");
    }
}

#[tokio::test]
async fn an_end_marker_in_the_first_round_is_held_back() {
    let server = FakeOpenAi::start(marker_server_at(1)).await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic")]).await;
    assert!(
        !events.iter().any(|e| matches!(e, Event::EndProposal { .. })),
        "nothing discussed yet"
    );
    assert!(!shown_tokens(&events).contains("END"), "the marker is still stripped");
}

#[tokio::test]
async fn end_marker_confirmed_ends_the_party() {
    // Request 1 and 2: round 1 (two or three agents); request 4 is in round 2.
    let server = FakeOpenAi::start(marker_server_at(4)).await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic"), Step::Say("Thoughts?"), Step::CONFIRM]).await;
    let (agent, clean) = events
        .iter()
        .find_map(|e| match e {
            Event::EndProposal {
                agent,
                response_text,
                response_clean,
                ..
            } => {
                assert!(response_text.contains("<!-- END -->"));
                Some((agent.clone(), response_clean.clone()))
            }
            _ => None,
        })
        .expect("an end proposal");
    assert_eq!(clean, "We have converged on a plan.");
    let shown: String = shown_tokens(&events);
    assert!(!shown.contains("END"), "the marker never streams to the screen");
    assert_eq!(ended(&events), (Some(ExitReason::AgentProposed), true));
    let s = load(&session_file(&events));
    assert!(s.fm.conversation_state.exit_flags.agent_proposed);
    assert_eq!(s.fm.confirmations[0].kind, ConfirmKind::EndProposal);
    assert_eq!(s.fm.confirmations[0].agent.as_deref(), Some(agent.as_str()));
    let text = std::fs::read_to_string(session_file(&events)).unwrap();
    assert!(!text.contains("<!-- END -->"), "the marker is not saved as the agent's turn");
    // The proposal ends the round at once: nobody speaks after the proposer.
    let last_round: Vec<_> = s.turns.iter().filter(|t| t.kind == TurnKind::Agent && t.round == 2).collect();
    assert_eq!(last_round.last().unwrap().agent.as_deref(), Some(agent.as_str()));
}

#[tokio::test]
async fn end_marker_answered_with_a_message_continues_the_party() {
    let server = FakeOpenAi::start(marker_server_at(4)).await;
    let party = Party::new(&server);
    let events = party
        .run(vec![
            Step::Say("Topic"),
            Step::Say("Thoughts?"),
            Step::Say("No, let's look at costs first"),
        ])
        .await;
    assert!(events.iter().any(|e| matches!(
        e,
        Event::ConfirmationResolved {
            status: ConfirmStatus::Rejected,
            ..
        }
    )));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::FacilitatorMessage { round: 3, text } if text == "No, let's look at costs first")));
    assert_eq!(rounds(&events).len(), 3);
    assert_eq!(ended(&events), (Some(ExitReason::FacilitatorLeft), true));
}

#[tokio::test]
async fn auto_end_and_disabled_detection() {
    let server = FakeOpenAi::start(marker_server_at(4)).await;
    let mut party = Party::new(&server);
    party.config.party.end_detection.auto_end = true;
    let events = party
        .run(vec![Step::Say("Topic"), Step::Say("Thoughts?"), Step::Say("never reached")])
        .await;
    assert_eq!(rounds(&events).len(), 2);
    assert_eq!(ended(&events), (Some(ExitReason::AgentProposed), true));
    assert!(!events.iter().any(|e| matches!(e, Event::ConfirmationRequest { .. })));

    let server = FakeOpenAi::start(marker_server_at(1)).await;
    let mut party = Party::new(&server);
    party.config.party.end_detection.enable_detection = false;
    let events = party.run(vec![Step::Say("Topic"), Step::Say("Go on")]).await;
    assert!(!events.iter().any(|e| matches!(e, Event::EndProposal { .. })));
    assert_eq!(rounds(&events).len(), 2);
    let shown: String = shown_tokens(&events);
    assert!(!shown.contains("<!--"), "markers are stripped even when detection is off");
    assert!(
        !server.received()[0].system_prompt().contains("<!-- END -->"),
        "agents are not told about the marker"
    );
}

#[tokio::test]
async fn time_limit_is_noticed_mid_round_and_can_be_extended() {
    // Slow tokens: the 3-second limit fires while agents are still talking.
    let slow = |_: &bmad_party::testing::Recorded, n| Reply::Stream {
        events: events_of(&format!("Agent reply number {n} arrives slowly")),
        done: true,
        delay: Duration::from_millis(150),
        cut_after: None,
        stall_after: None,
    };
    let server = FakeOpenAi::start(slow).await;
    let mut party = Party::new(&server);
    // 1.8 s: the first round (two or more agents, about 1 s each) outlasts it.
    party.config.party.max_duration_minutes = 0.03;
    party.config.party.warn_at_minutes = 0.01;
    let script = vec![
        Step::Say("Topic"),
        Step::Answer {
            confirmed: false,
            extend: Some(1),
            reason: None,
        },
        Step::Say("Second"),
        Step::Cmd(Command::Exit),
    ];
    let events = party.run(script).await;
    let n = notices(&events).join("\n");
    assert!(n.contains("The session time limit has been reached (0.03 minutes)"), "{n}");
    assert!(n.contains("Heads-up"), "time warning: {n}");
    let limit_notice = events
        .iter()
        .position(|e| {
            matches!(
                e,
                Event::Notice {
                    kind: NoticeKind::Limit,
                    ..
                }
            )
        })
        .unwrap();
    let round1_end = events
        .iter()
        .position(|e| matches!(e, Event::RoundFinished { round: 1, .. }))
        .unwrap();
    assert!(limit_notice < round1_end, "the limit was noticed while round 1 was running");
    let spoke_in_round1 = events.iter().filter(|e| matches!(e, Event::AgentMessage { round: 1, .. })).count();
    assert_eq!(
        spoke_in_round1, 2,
        "the agent speaking when the limit fired finished; nobody spoke after it"
    );
    assert!(events.iter().any(|e| matches!(
        e,
        Event::ConfirmationRequest {
            kind: ConfirmKind::TimeLimit,
            ..
        }
    )));
    assert!(n.contains("Continuing for 1 more minutes"));
    let s = load(&session_file(&events));
    assert_eq!(s.fm.conversation_state.exit_reason.as_deref(), Some("user_requested"));
    assert!(s.fm.conversation_state.warned_time);
    assert!(s.fm.conversation_state.max_duration_minutes >= 1.0);
}

#[tokio::test]
async fn time_limit_with_auto_exit_ends_while_waiting() {
    let server = FakeOpenAi::always("ok").await;
    let mut party = Party::new(&server);
    party.config.party.auto_exit_enabled = true;
    party.config.party.max_duration_minutes = 0.02;
    party.config.party.warn_at_minutes = 0.0;
    let events = party.run(vec![Step::Say("Topic"), Step::Wait(Duration::from_secs(3))]).await;
    assert_eq!(ended(&events), (Some(ExitReason::TimeLimit), true));
    let s = load(&session_file(&events));
    assert!(s.fm.conversation_state.exit_flags.time_limit);
    assert!(s.fm.conversation_state.active_seconds >= 1);
}

#[tokio::test]
async fn selection_names_counts_and_rotation() {
    let server = FakeOpenAi::varied().await;
    let party = Party::new(&server);
    let mut script = vec![Step::Say("Hiro, how do we test this?"), Step::Say("@pm and Priya: scope?")];
    script.extend(say(10, "What do you all think?"));
    let events = party.run(script).await;
    let r = rounds(&events);
    assert_eq!(r[0][0], "test-architect");
    assert!(r[1].contains(&"pm".to_string()) && r[1].contains(&"ux-designer".to_string()));
    assert!(r.iter().all(|a| (2..=3).contains(&a.len())), "{r:?}");
    let generic: HashSet<&String> = r[2..].iter().flatten().collect();
    assert!(generic.len() >= 6, "rotation: {generic:?}");
}

#[tokio::test]
async fn abort_stops_streaming_and_keeps_what_was_said() {
    let slow = |_: &bmad_party::testing::Recorded, _| Reply::Stream {
        // Long enough a sentence to stream before its end (hygiene judges
        // shorter ones whole).
        events: events_of(&(1..=40).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ")),
        done: true,
        delay: Duration::from_millis(100),
        cut_after: None,
        stall_after: None,
    };
    let server = FakeOpenAi::start(slow).await;
    let party = Party::new(&server);
    let mut h = bmad_party::engine::spawn(party.setup());
    let mut events = Vec::new();
    let mut sent_topic = false;
    let mut aborted = false;
    while let Some(ev) = tokio::time::timeout(Duration::from_secs(30), h.events.recv()).await.unwrap() {
        events.push(ev.clone());
        match ev {
            Event::AwaitingInput { .. } if !sent_topic => {
                sent_topic = true;
                h.commands.send(Command::Message { text: "Topic".into() }).unwrap();
            }
            Event::AgentToken { .. } if !aborted && events.iter().filter(|e| matches!(e, Event::AgentToken { .. })).count() == 3 => {
                aborted = true;
                h.commands.send(Command::Abort).unwrap();
            }
            Event::AwaitingInput { .. } => h.commands.send(Command::Quit).unwrap(),
            Event::SessionEnded { completed, .. } => {
                assert!(!completed, "quit leaves the session resumable");
                break;
            }
            _ => {}
        }
    }
    let msgs: Vec<_> = events
        .iter()
        .filter_map(|e| {
            if let Event::AgentMessage { interrupted, text, .. } = e {
                Some((*interrupted, text.clone()))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(msgs.len(), 1, "the round stopped after the interrupted agent");
    assert!(msgs[0].0);
    let s = load(&session_file(&events));
    assert!(s.fm.party_active && !s.fm.workflow_completed);
    assert!(s.turns.iter().any(|t| t.interrupted));
    assert_eq!(s.fm.conversation_state.current_round, 1);
}

#[tokio::test]
async fn resume_continues_round_time_flags_and_context() {
    let server = FakeOpenAi::always("Context matters.").await;
    let party = Party::new(&server);
    // First run: two rounds, then quit (state saved, party still active).
    let mut h = bmad_party::engine::spawn(party.setup());
    let mut said = 0;
    let mut file = None;
    while let Some(ev) = h.events.recv().await {
        match ev {
            Event::SessionFile { path } => file = Some(path),
            Event::AwaitingInput { .. } if said < 2 => {
                said += 1;
                h.commands
                    .send(Command::Message {
                        text: format!("Point number {said}"),
                    })
                    .unwrap();
            }
            Event::AwaitingInput { .. } => h.commands.send(Command::Quit).unwrap(),
            Event::SessionEnded { .. } => break,
            _ => {}
        }
    }
    let path = std::path::PathBuf::from(file.unwrap());
    let before = load(&path);
    assert_eq!(before.fm.conversation_state.current_round, 2);
    let turns_before = before.turns.len();

    let mut again = Party::new(&server);
    again.resume = Some(path.clone());
    let requests_before = server.received().len();
    let events = again.run(vec![Step::Say("Point number 3")]).await;
    assert!(events.iter().any(|e| matches!(e, Event::SessionStarted { resumed: true, .. })));
    assert!(
        events.iter().any(|e| matches!(e, Event::RoundStarted { round: 3, .. })),
        "round numbering continues"
    );
    let after = load(&path);
    assert_eq!(
        after.turns[..turns_before],
        before.turns[..],
        "nothing saved before is lost or changed"
    );
    // The agents of round 3 see the earlier conversation.
    let first_new = &server.received()[requests_before];
    let prompt = first_new.prompt_text();
    assert!(prompt.contains("Point number 1") && prompt.contains("Point number 2") && prompt.contains("Point number 3"));
    assert!(after.fm.workflow_completed);
    assert!(after.fm.conversation_state.active_seconds >= before.fm.conversation_state.active_seconds);
}

/// Every call carries the whole conversation as the agent sees it: its own
/// replies as assistant messages, word for word; everyone else's, and the
/// facilitator's, inside user messages; roles alternating; nothing missing
/// as the transcript grows (histories are kept between calls, not rebuilt).
#[tokio::test]
async fn every_call_carries_the_whole_conversation_as_the_agent_sees_it() {
    let server = FakeOpenAi::varied().await;
    let mut party = Party::new(&server);
    // A small room, so that each agent speaks in several rounds.
    party.agents.retain(|a| !a.moderator);
    party.agents.truncate(3);
    let said = [
        "Plugins: what first?",
        "And the sandbox?",
        "Decide between the two.",
        "Anything missing?",
    ];
    let events = party.run(said.iter().map(|s| Step::Say(s)).collect()).await;
    let replies: Vec<(String, String)> = agent_messages(&events);
    let requests: Vec<Vec<(String, String)>> = server
        .received()
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .map(|r| {
            r.body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| (m["role"].as_str().unwrap().to_string(), m["content"].as_str().unwrap().to_string()))
                .collect()
        })
        .collect();
    assert!(replies.len() >= 8, "four rounds of replies: {replies:?}");
    for (k, (agent, _)) in replies.iter().enumerate() {
        let msgs = &requests[k];
        assert_eq!(msgs[0].0, "system");
        for pair in msgs[1..].windows(2) {
            assert_ne!(pair[0].0, pair[1].0, "call {k}: roles alternate");
        }
        let asked: Vec<usize> = (0..msgs.len()).filter(|&i| msgs[i].1.contains("Note from the session")).collect();
        assert_eq!(asked, [msgs.len() - 1], "call {k}: the turn instruction, once, at the end");
        let own: Vec<&str> = replies[..k].iter().filter(|(a, _)| a == agent).map(|(_, t)| t.as_str()).collect();
        let sent_own: Vec<&str> = msgs.iter().filter(|(r, _)| r == "assistant").map(|(_, c)| c.as_str()).collect();
        assert_eq!(sent_own, own, "call {k}: the agent's own replies, in order");
        let users = msgs
            .iter()
            .filter(|(r, _)| r == "user")
            .map(|(_, c)| c.as_str())
            .collect::<Vec<_>>()
            .join("\n\n");
        let mut at = 0;
        for (a, text) in replies[..k].iter().filter(|(a, _)| a != agent) {
            let found = users[at..].find(text.as_str());
            assert!(found.is_some(), "call {k}: {a}'s reply is in the history in order: {text}");
            at += found.unwrap() + text.len();
        }
        for s in said.iter().filter(|s| users.contains(*s)) {
            assert!(users.contains(&format!("Ada: {s}")), "call {k}: {s}");
        }
    }
    let repeated = replies
        .iter()
        .filter(|(a, _)| replies.iter().filter(|(b, _)| b == a).count() >= 3)
        .count();
    assert!(repeated > 0, "some agent spoke three times or more");
    // The last call of the last round has heard every message.
    let last_round = requests[replies.len() - 1].iter().map(|(_, c)| c.as_str()).collect::<String>();
    assert!(said.iter().all(|s| last_round.contains(s)));
}
