//! The room's judgement, end to end against the loopback OpenAI server:
//! consensus, silence (idle facilitator, a room repeating itself), the
//! diligence push and its budget, agents asking the facilitator, and the
//! turn-reset protocol — each also surviving a resume.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

use std::time::Duration;

use bmad_party::engine::{Command, Event, ExitReason, TurnConfirmationResponse};
use bmad_party::i18n::Lang;
use bmad_party::session::{ConfirmKind, ConfirmStatus, TurnKind};
use bmad_party::testing::{shuffled, stream_of, varied_reply, FakeOpenAi, Recorded, Reply};
use common::*;

/// Only agent turns get the scripted text; farewells and summaries vary.
fn turn_reply(r: &Recorded) -> bool {
    r.prompt_text().contains("Note from the session")
}

#[tokio::test]
async fn consensus_becomes_a_proposal_only_with_all_three_conditions() {
    let agree = |r: &Recorded, n: usize| {
        if turn_reply(r) {
            stream_of(&shuffled(
                "Agreed: we ship the plugin API with a sandbox and signed manifests first.",
                n,
            ))
        } else {
            stream_of(&varied_reply(n))
        }
    };
    let server = FakeOpenAi::start(agree).await;
    let mut party = Party::new(&server);
    // Without the speakers' own stances, agreement is measured by similarity.
    party.config.party.self_check = false;
    party.config.party.consensus.lookback = 2;
    party.config.party.consensus.threshold = 0.8;
    party.config.party.silence.enabled = false;
    let events = party.run(vec![Step::Say("Plugins?"), Step::Say("And then?"), Step::CONFIRM]).await;
    let scores: Vec<f64> = events
        .iter()
        .filter_map(|e| {
            if let Event::ConsensusScore { score, method, .. } = e {
                assert_eq!(method, "lexical");
                *score
            } else {
                None
            }
        })
        .collect();
    assert_eq!(scores.len(), 2);
    assert!(scores.iter().all(|s| *s > 0.99), "{scores:?}");
    assert_eq!(requests(&events, ConfirmKind::Consensus), 1, "proposed after the look-back window");
    assert_eq!(exit_reason(&events), Some(ExitReason::Consensus));
    let s = load(&session_file(&events));
    assert!(s.fm.conversation_state.consensus_reached);
    assert!(s.fm.conversation_state.exit_flags.consensus);
    assert_eq!(s.fm.conversation_state.exit_reason.as_deref(), Some("consensus"));

    // Same agreement but no convergence words: no proposal.
    let plain = |r: &Recorded, n: usize| {
        if turn_reply(r) {
            stream_of(&shuffled("We ship the plugin API with a sandbox and signed manifests first.", n))
        } else {
            stream_of(&varied_reply(n))
        }
    };
    let server = FakeOpenAi::start(plain).await;
    let mut party = Party::new(&server);
    party.config.party.consensus.lookback = 2;
    party.config.party.silence.enabled = false;
    let events = party
        .run(vec![Step::Say("Plugins?"), Step::Say("And then?"), Step::Say("More?")])
        .await;
    assert_eq!(requests(&events, ConfirmKind::Consensus), 0);

    // "safe" against "not safe": similar words, opposite claims: no consensus.
    // Each agent holds its side (a reply asked for again says the same).
    let polar = |r: &Recorded, n: usize| {
        if !turn_reply(r) {
            stream_of(&varied_reply(n))
        } else if r.speaker().unwrap_or_default().chars().count().is_multiple_of(2) {
            stream_of(&shuffled("Agreed, the plugin sandbox is safe for third parties.", n))
        } else {
            stream_of(&shuffled("Agreed, the plugin sandbox is not safe for third parties.", n))
        }
    };
    let server = FakeOpenAi::start(polar).await;
    let mut party = Party::new(&server);
    party.config.party.consensus.lookback = 2;
    party.config.party.consensus.threshold = 0.5;
    party.config.party.silence.enabled = false;
    let events = party.run(vec![Step::Say("Safe?"), Step::Say("Sure?"), Step::Say("Really?")]).await;
    assert_eq!(requests(&events, ConfirmKind::Consensus), 0, "contradiction blocks consensus");
}

/// A server that embeds every reply alike; every other request gets a varied reply.
async fn embedding_server(embeds: bool) -> FakeOpenAi {
    FakeOpenAi::start(move |r: &Recorded, n: usize| {
        if !r.path.ends_with("/embeddings") {
            stream_of(&varied_reply(n))
        } else if embeds {
            let inputs = r.body["input"].as_array().map_or(0, |a| a.len());
            let data: Vec<serde_json::Value> = (0..inputs)
                .map(|i| serde_json::json!({"index": i, "embedding": [0.6, 0.8, 0.0]}))
                .collect();
            Reply::Json(serde_json::json!({ "object": "list", "data": data }))
        } else {
            Reply::Status {
                code: 404,
                headers: vec![],
                body: r#"{"detail":"Not Found"}"#.into(),
            }
        }
    })
    .await
}

fn methods(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ConsensusScore {
                method, score: Some(_), ..
            } => Some(method.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn an_endpoint_that_serves_embeddings_is_found_without_configuration() {
    let server = embedding_server(true).await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic"), Step::Say("Next")]).await;
    assert_eq!(methods(&events), ["embedding", "embedding"]);
    let asked = server.embeddings();
    assert_eq!(asked[0].body["model"], "test-model", "probed with the model the endpoint serves");
}

#[tokio::test]
async fn an_endpoint_without_embeddings_is_probed_once_and_falls_back_quietly() {
    let server = embedding_server(false).await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Topic"), Step::Say("Next"), Step::Say("More")]).await;
    assert_eq!(server.embeddings().len(), 1, "probed once");
    assert_eq!(methods(&events), ["lexical", "lexical", "lexical"]);
    assert!(
        !notices(&events).iter().any(|n| n.contains("Embeddings")),
        "nobody asked for embeddings: no notice"
    );
}

#[tokio::test]
async fn a_slow_embeddings_endpoint_costs_one_wait_then_lexical() {
    let server = FakeOpenAi::start(|r: &Recorded, n: usize| {
        if r.path.ends_with("/embeddings") {
            Reply::Hang
        } else {
            stream_of(&varied_reply(n))
        }
    })
    .await;
    let mut s = settings(&server);
    s.request_timeout = std::time::Duration::from_millis(300);
    let mut party = Party::new(&server);
    party.provider = provider_with(s);
    let events = party.run(vec![Step::Say("Topic"), Step::Say("Next")]).await;
    assert_eq!(server.embeddings().len(), 1);
    assert_eq!(methods(&events), ["lexical", "lexical"]);
    assert_eq!(agent_messages(&events).len(), 4, "the room went on");
}

#[tokio::test]
async fn consensus_with_auto_exit_and_embeddings_with_fallback() {
    // The endpoint offers embeddings: identical vectors for every reply.
    let server = FakeOpenAi::start(|r: &Recorded, n: usize| {
        if r.path.ends_with("/embeddings") {
            let inputs = r.body["input"].as_array().map_or(0, |a| a.len());
            let data: Vec<serde_json::Value> = (0..inputs)
                .map(|i| serde_json::json!({"index": i, "embedding": [0.6, 0.8, 0.0]}))
                .collect();
            Reply::Json(serde_json::json!({ "object": "list", "data": data, "model": "emb" }))
        } else if turn_reply(r) {
            stream_of(&format!("Agreed, exactly right. {}", varied_reply(n)))
        } else {
            stream_of(&varied_reply(n))
        }
    })
    .await;
    let mut party = Party::new(&server);
    party.config.llm.embedding_model = Some("emb".into());
    // Without the speakers' own stances, agreement is measured by similarity.
    party.config.party.self_check = false;
    party.config.party.consensus.lookback = 2;
    party.config.party.auto_exit_enabled = true;
    party.config.party.silence.enabled = false;
    party.config.party.consensus.disagreement_words = vec!["disagree".into()];
    let events = party.run(vec![Step::Say("Topic"), Step::Say("Next"), Step::Say("never")]).await;
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::ConsensusScore { method, score: Some(s), .. } if method == "embedding" && *s > 0.99)));
    assert_eq!(exit_reason(&events), Some(ExitReason::Consensus), "auto exit, no question");
    assert_eq!(requests(&events, ConfirmKind::Consensus), 0);
    assert!(server
        .embeddings()
        .iter()
        .any(|r| r.path == "/v1/embeddings" && r.body["model"] == "emb"));

    // Embeddings failing: said once, then lexical.
    let server = FakeOpenAi::start(|r: &Recorded, n: usize| {
        if r.path.ends_with("/embeddings") {
            Reply::Status {
                code: 404,
                headers: vec![],
                body: r#"{"error":{"message":"no such model"}}"#.into(),
            }
        } else {
            stream_of(&varied_reply(n))
        }
    })
    .await;
    let mut party = Party::new(&server);
    party.config.llm.embedding_model = Some("emb".into());
    let events = party.run(vec![Step::Say("Topic"), Step::Say("Next")]).await;
    let fallbacks = notices(&events)
        .iter()
        .filter(|n| n.contains("Embeddings are not available"))
        .count();
    assert_eq!(fallbacks, 1);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::ConsensusScore { round: 2, method, .. } if method == "lexical")));
}

#[tokio::test]
async fn an_idle_facilitator_is_warned_then_the_party_ends() {
    let server = FakeOpenAi::varied().await;
    let mut party = Party::new(&server);
    party.config.party.silence.user_timeout_minutes = 0.04; // 2.4 s
    party.config.party.diligence.idle_seconds = 3600;
    let events = party.run(vec![Step::Say("Topic"), Step::Wait(Duration::from_secs(5))]).await;
    let n = notices(&events);
    let warn = n
        .iter()
        .position(|t| t.contains("without a message, the party ends"))
        .expect("a warning first");
    let exit = n.iter().position(|t| t.contains("No message from Ada")).expect("then the exit");
    assert!(warn < exit);
    assert_eq!(exit_reason(&events), Some(ExitReason::Silence));
    let s = load(&session_file(&events));
    assert!(s.fm.conversation_state.exit_flags.silence);
}

#[tokio::test]
async fn a_room_repeating_itself_gets_a_moderator_then_a_proposal() {
    let server = FakeOpenAi::start(circling_reply).await;
    let mut party = Party::new(&server);
    party.config.party.silence.consecutive_similar_rounds = 2;
    party.config.party.consensus.enabled = false;
    // The default room's host (moderator: true) takes the floor when the room circles.
    assert!(party.agents.iter().any(|a| a.id == "moderator" && a.moderator));
    let events = party
        .run(vec![
            Step::Say("Roadmap?"),
            Step::Say("Again?"),
            Step::Say("And?"),
            Step::Say("Once more?"),
            Step::CONFIRM,
        ])
        .await;
    let host_spoke: Vec<u32> = events
        .iter()
        .filter_map(|e| {
            if let Event::AgentMessage { agent, round, .. } = e {
                (agent == "moderator").then_some(*round)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(host_spoke, vec![2], "the moderator redirects after the first repetition");
    assert!(
        rounds(&events).iter().all(|r| !r.contains(&"moderator".to_string())),
        "the moderator is not picked for ordinary rounds"
    );
    assert_eq!(requests(&events, ConfirmKind::Silence), 1, "then, still circling, a proposal");
    assert_eq!(exit_reason(&events), Some(ExitReason::Silence));
    let s = load(&session_file(&events));
    assert_eq!(s.fm.conversation_state.silence_count, 2);
    assert!(s.fm.conversation_state.exit_flags.silence);

    // Without a moderator agent the runtime summarises.
    let server = FakeOpenAi::start(circling_reply).await;
    let mut party = Party::new(&server);
    party.agents.retain(|a| !a.moderator);
    party.config.party.silence.consecutive_similar_rounds = 2;
    party.config.party.consensus.enabled = false;
    let events = party.run(vec![Step::Say("Roadmap?"), Step::Say("Again?")]).await;
    assert!(notices(&events).iter().any(|n| n.starts_with("🔁 The room is going in circles.")));
}

#[tokio::test]
async fn a_moderator_summary_that_only_repeats_the_room_gives_way_to_the_runtimes() {
    // The moderator says the room's last two turns again, word for word.
    let server = FakeOpenAi::start(|r: &Recorded, n: usize| {
        let prompt = r.prompt_text();
        if prompt.contains("The discussion is going in circles") {
            let said: Vec<&str> = prompt
                .lines()
                .filter_map(|l| l.split_once(": ").map(|(_, text)| text))
                .filter(|text| text.contains("roadmap") && text.split_whitespace().count() >= 5)
                .collect();
            stream_of(&said[said.len().saturating_sub(2)..].join(" "))
        } else {
            circling_reply(r, n)
        }
    })
    .await;
    let mut party = Party::new(&server);
    party.config.party.silence.consecutive_similar_rounds = 2;
    party.config.party.consensus.enabled = false;
    let events = party.run(vec![Step::Say("Roadmap?"), Step::Say("Again?")]).await;
    let host = |e: &Event| match e {
        Event::AgentMessage { agent, .. } | Event::AgentPassed { agent, .. } => agent == "moderator",
        _ => false,
    };
    assert!(
        events.iter().filter(|e| host(e)).all(|e| matches!(e, Event::AgentPassed { .. })),
        "the copy is not the host's summary"
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::AgentPassed { agent, .. } if agent == "moderator")));
    assert!(
        notices(&events).iter().any(|n| n.starts_with("🔁 The room is going in circles.")),
        "the runtime sums up"
    );
    let s = load(&session_file(&events));
    assert!(
        s.turns
            .iter()
            .any(|t| t.kind == TurnKind::Notice && t.text.contains("nothing new to add")),
        "the session file keeps the pass a resumed party shows"
    );
}

fn push_events(events: &[Event]) -> Vec<(u32, u32)> {
    events
        .iter()
        .filter_map(|e| {
            if let Event::DiligencePush { used, budget, .. } = e {
                Some((*used, *budget))
            } else {
                None
            }
        })
        .collect()
}

#[tokio::test]
async fn pushes_count_down_then_ask_and_the_answer_resets_the_budget() {
    let server = FakeOpenAi::varied().await;
    let mut party = Party::new(&server);
    party.config.party.diligence.idle_seconds = 1;
    party.config.party.consensus.enabled = false;
    party.config.party.silence.enabled = false;
    // Two agents never take part in pushed rounds.
    for a in party.agents.iter_mut().filter(|a| a.id == "pm" || a.id == "developer") {
        a.diligence_push_max = Some(0);
    }
    let script = vec![
        Step::Say("Topic"),
        Step::CONFIRM,
        Step::Wait(Duration::from_millis(200)),
        Step::Cmd(Command::Exit),
    ];
    let events = party.run(script).await;
    let pushes = push_events(&events);
    assert_eq!(pushes[..3], [(1, 3), (2, 3), (3, 3)], "remaining budget 2, 1, 0");
    assert_eq!(requests(&events, ConfirmKind::BudgetExhausted), 1);
    assert_eq!(pushes.get(3), Some(&(1, 3)), "answering resets the budget and the room goes on");
    // Pushed rounds never include the excluded agents.
    let mut pushed_round = false;
    for e in &events {
        match e {
            Event::DiligencePush { .. } => pushed_round = true,
            Event::FacilitatorMessage { .. } => pushed_round = false,
            Event::RoundStarted { agents, .. } if pushed_round => {
                assert!(
                    !agents.contains(&"pm".to_string()) && !agents.contains(&"developer".to_string()),
                    "{agents:?}"
                );
            }
            _ => {}
        }
    }
    let s = load(&session_file(&events));
    assert_eq!(s.fm.diligence.budget, 3);
    assert!(s.turns.iter().filter(|t| t.kind == TurnKind::Push).count() >= 4);
    // The push text tells the agents it is automatic.
    assert!(server.received().iter().any(|r| r
        .prompt_text()
        .contains("Automatic push: (Automatic nudge from the runtime, not a new request")));
}

#[tokio::test]
async fn stopping_the_pushes_waits_for_the_facilitator() {
    let server = FakeOpenAi::varied().await;
    let mut party = Party::new(&server);
    party.config.party.diligence.idle_seconds = 1;
    party.config.party.diligence.push_max = 1;
    party.config.party.silence.enabled = false;
    let script = vec![
        Step::Say("Topic"),
        Step::Answer {
            confirmed: false,
            extend: None,
            reason: None,
        },
        Step::Wait(Duration::from_secs(3)),
        Step::Cmd(Command::Exit),
    ];
    let events = party.run(script).await;
    assert_eq!(push_events(&events), vec![(1, 1)], "no push after stop");
    assert!(notices(&events).iter().any(|n| n.contains("Automatic pushes paused")));
}

#[tokio::test]
async fn push_text_files_blank_language_and_frontmatter() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("diligence.md"), "---\nnote: ignored\n---\nKeep going, room.\n").unwrap();
    std::fs::write(dir.path().join("diligence.zh.md"), "---\nnote: 忽略\n---\n请继续讨论。\n").unwrap();
    let server = FakeOpenAi::varied().await;
    let mut party = Party::new(&server);
    party.workflow_dir = Some(dir.path().to_path_buf());
    party.lang = Lang::Zh;
    party.config.party.diligence.idle_seconds = 1;
    party.config.party.diligence.push_max = 1;
    party.config.party.silence.enabled = false;
    let events = party
        .run(vec![
            Step::Say("主题"),
            Step::Wait(Duration::from_millis(1800)),
            Step::Cmd(Command::Exit),
        ])
        .await;
    let text = events
        .iter()
        .find_map(|e| {
            if let Event::DiligencePush { text, .. } = e {
                Some(text.clone())
            } else {
                None
            }
        })
        .expect("a push");
    assert_eq!(
        text, "请继续讨论。",
        "diligence.zh.md wins for Chinese; its frontmatter is not text"
    );

    std::fs::write(dir.path().join("diligence.zh.md"), "---\nnote: off\n---\n\n  \n").unwrap();
    let server = FakeOpenAi::varied().await;
    let mut party = Party::new(&server);
    party.workflow_dir = Some(dir.path().to_path_buf());
    party.lang = Lang::Zh;
    party.config.party.diligence.idle_seconds = 1;
    party.config.party.silence.enabled = false;
    let events = party
        .run(vec![
            Step::Say("主题"),
            Step::Wait(Duration::from_millis(2500)),
            Step::Cmd(Command::Exit),
        ])
        .await;
    assert!(push_events(&events).is_empty(), "a blank file turns the push off");
}

#[tokio::test]
async fn an_agent_question_ends_the_round_blocks_pushes_and_gets_the_answer_first() {
    let server = FakeOpenAi::start(|r: &Recorded, n: usize| {
        if n == 1 {
            stream_of("Before we go on I need one thing from you.\n!?@human Which platform matters most to you?")
        } else if turn_reply(r) {
            stream_of(&varied_reply(n))
        } else {
            stream_of("bye")
        }
    })
    .await;
    let mut party = Party::new(&server);
    party.config.party.diligence.idle_seconds = 1;
    let events = party
        .run(vec![
            Step::Say("Topic"),
            Step::Wait(Duration::from_millis(2500)),
            Step::Say("Mobile first."),
            Step::Cmd(Command::Exit),
        ])
        .await;
    let (asker, question) = events
        .iter()
        .find_map(|e| {
            if let Event::AgentQuestion { agent, question, .. } = e {
                Some((agent.clone(), question.clone()))
            } else {
                None
            }
        })
        .expect("a question");
    assert_eq!(question, "Which platform matters most to you?");
    let round1: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, Event::AgentMessage { round: 1, .. }))
        .collect();
    assert_eq!(round1.len(), 1, "the question ended the round at once");
    assert!(push_events(&events).is_empty(), "no push while a question is pending");
    assert_eq!(rounds(&events)[1][0], asker, "the answer goes to the asking agent first");
    let shown: String = shown_tokens(&events);
    assert!(!shown.contains("!?@human"), "the marker is never shown");
    let s = load(&session_file(&events));
    let q = s
        .turns
        .iter()
        .find(|t| t.kind == TurnKind::Question)
        .expect("the question in the transcript");
    assert!(
        q.text.contains("asks: Which platform matters most to you?**") && q.text.contains("Awaiting Ada's response"),
        "{}",
        q.text
    );
    assert_eq!(s.fm.conversation_state.awaiting_answer_from, None, "cleared once answered");
    assert!(
        server.received()[0].system_prompt().contains("!?@human"),
        "step 02 tells agents about the marker"
    );
}

fn reset_request(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| {
            if let Event::TurnConfirmationRequest(r) = e {
                Some(r.request_id.clone())
            } else {
                None
            }
        })
        .collect()
}

#[tokio::test]
async fn reset_confirmed_restarts_rounds_and_context() {
    let server = FakeOpenAi::varied().await;
    let party = Party::new(&server);
    let mut h = bmad_party::engine::spawn(party.setup());
    let mut events = Vec::new();
    let mut script = vec!["First topic", "More on it", "重置对话", "A brand new topic"].into_iter();
    while let Some(ev) = tokio::time::timeout(Duration::from_secs(30), h.events.recv()).await.unwrap() {
        events.push(ev.clone());
        match ev {
            Event::TurnConfirmationRequest(r) => {
                assert!(r.description.as_deref().unwrap_or("").contains("round counter"));
                h.commands
                    .send(Command::TurnConfirmationResponse(TurnConfirmationResponse {
                        request_id: r.request_id,
                        confirmed: true,
                        reason: Some("new subject".into()),
                    }))
                    .unwrap();
            }
            Event::AwaitingInput {
                kind: bmad_party::engine::InputKind::Message,
            } => {
                let cmd = script.next().map(|t| Command::Message { text: t.into() }).unwrap_or(Command::Quit);
                h.commands.send(cmd).unwrap();
            }
            Event::SessionEnded { .. } => break,
            _ => {}
        }
    }
    assert_eq!(reset_request(&events).len(), 1);
    let rounds_started: Vec<u32> = events
        .iter()
        .filter_map(|e| {
            if let Event::RoundStarted { round, .. } = e {
                Some(*round)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(rounds_started, vec![1, 2, 1], "the round counter restarts");
    let s = load(&session_file(&events));
    assert_eq!(s.fm.topic, "A brand new topic");
    assert_eq!(s.fm.confirmations[0].kind, ConfirmKind::TurnReset);
    assert_eq!(s.fm.confirmations[0].status, ConfirmStatus::Confirmed);
    assert_eq!(s.fm.confirmations[0].reason.as_deref(), Some("new subject"));
    assert!(s.turns.iter().any(|t| t.kind == TurnKind::Reset), "a divider");
    assert!(
        !s.turns.iter().any(|t| t.kind == TurnKind::Facilitator && t.text == "重置对话"),
        "the trigger is not sent to the agents"
    );
    let last = server.received().into_iter().rfind(turn_reply).unwrap();
    assert!(
        last.prompt_text().contains("A brand new topic") && !last.prompt_text().contains("First topic"),
        "context restarts after the reset"
    );

    // Resume: the reset and its record survive; context still starts after it.
    let mut again = Party::new(&server);
    again.resume = Some(session_file(&events));
    let before = server.received().len();
    let events = again.run(vec![Step::Say("Continue after resume")]).await;
    assert!(events.iter().any(|e| matches!(e, Event::RoundStarted { round: 2, .. })));
    let prompt = server.received()[before].prompt_text();
    assert!(prompt.contains("A brand new topic") && !prompt.contains("First topic"));
}

#[tokio::test]
async fn reset_rejected_with_reason_or_expired() {
    let server = FakeOpenAi::varied().await;
    let party = Party::new(&server);
    let events = party
        .run(vec![
            Step::Say("Topic"),
            Step::Say("/reset"),
            Step::Answer {
                confirmed: false,
                extend: None,
                reason: Some("keep going"),
            },
            Step::Say("Next"),
        ])
        .await;
    assert_eq!(reset_request(&events).len(), 1);
    assert!(notices(&events).iter().any(|n| n.contains("Reset rejected (keep going)")));
    assert!(
        events.iter().any(|e| matches!(e, Event::RoundStarted { round: 2, .. })),
        "the rounds go on"
    );
    let s = load(&session_file(&events));
    assert_eq!(s.fm.confirmations[0].status, ConfirmStatus::Rejected);
    assert_eq!(s.fm.confirmations[0].reason.as_deref(), Some("keep going"));

    let mut party = Party::new(&server);
    party.config.party.confirmation_timeout_seconds = 1;
    let events = party
        .run(vec![
            Step::Say("Topic"),
            Step::Say("CLEAR"),
            Step::Wait(Duration::from_millis(1800)),
            Step::Say("Next"),
        ])
        .await;
    let s = load(&session_file(&events));
    assert_eq!(s.fm.confirmations[0].status, ConfirmStatus::Rejected);
    assert!(
        s.fm.confirmations[0].reason.as_deref().unwrap_or("").starts_with("expired"),
        "{:?}",
        s.fm.confirmations[0].reason
    );
}
