//! The room's own judgement through each speaker's self-check, end to end
//! against the loopback OpenAI server: a proposal to end and a question for
//! the facilitator from scripted self-check answers (well-formed, wrapped,
//! cut off, unreadable), a server that refuses constrained output,
//! consensus from the speakers' stances, a declined proposal kept quiet,
//! and a room that has run dry. The self-check is off by default (a small
//! local model judges badly through it): these parties turn it on.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

use bmad_party::engine::{Event, ExitReason};
use bmad_party::session::{ConfirmKind, ConfirmStatus};
use bmad_party::testing::{stream_of, varied_reply, FakeOpenAi, Recorded, Reply};
use common::*;

fn check(stance: &str, ask: &str, end: bool) -> Reply {
    stream_of(&serde_json::json!({"stance": stance, "ask": ask, "end": end}).to_string())
}

fn replies(events: &[Event]) -> usize {
    events.iter().filter(|e| matches!(e, Event::AgentMessage { .. })).count()
}

/// A party on a server whose every turn differs (no echoes, no similarity).
async fn varied_party() -> (FakeOpenAi, Party) {
    let server = FakeOpenAi::varied().await;
    let mut party = Party::two_a_round(&server);
    party.config.party.self_check = true;
    (server, party)
}

#[tokio::test]
async fn a_self_check_that_reads_an_invited_close_proposes_the_end_and_the_facilitator_decides() {
    let (server, party) = varied_party().await;
    server.push_checks([check("new", "", false), check("new", "", false), check("agree", "", true)]);
    let events = party
        .run(vec![
            Step::Say("Plugins?"),
            Step::Say("That settles it. Are we done?"),
            Step::CONFIRM,
        ])
        .await;
    assert_eq!(exit_reason(&events), Some(ExitReason::AgentProposed));
    // The proposal stops the round: the second round's second speaker never speaks.
    assert_eq!(replies(&events), 3);
    let checks = server.checks();
    assert_eq!(checks.len(), 3, "one self-check after each reply");
    let first = &checks[0];
    assert_eq!(first.body["response_format"]["type"], "json_schema", "{}", first.body);
    assert_eq!(first.body["temperature"], 0.0);
    let msgs = first.body["messages"].as_array().unwrap();
    let turn = &server.received()[0].body["messages"];
    let turn = turn.as_array().unwrap();
    assert_eq!(&msgs[..turn.len()], turn.as_slice(), "the check goes on from the turn's own prompt");
    assert_eq!(msgs[turn.len()]["role"], "assistant");
    assert!(msgs.last().unwrap()["content"].as_str().unwrap().contains("\"stance\""));
    // What was asked and what came back is in the session file.
    let s = load(&session_file(&events));
    assert_eq!(s.fm.self_checks.len(), 3);
    assert!(s.fm.self_checks[2].verdict.as_ref().is_some_and(|v| v.end));
    assert!(s.fm.self_checks[2].answer.contains("\"end\":true"));
    assert!(s.fm.conversation_state.exit_flags.agent_proposed);
}

#[tokio::test]
async fn a_self_check_question_pauses_the_round_until_the_facilitator_answers() {
    let (server, party) = varied_party().await;
    // Wrapped in prose and a code fence, as models write it.
    server.push_checks([stream_of(
        "Here you go:\n```json\n{\"stance\": \"new\", \"ask\": \"How many people are coming, and what is the budget?\", \"end\": false}\n```",
    )]);
    let events = party
        .run(vec![
            Step::Say("Please plan our team offsite."),
            Step::Say("Twelve people, 8,000 euros."),
        ])
        .await;
    let asked: Vec<&String> = events
        .iter()
        .filter_map(|e| match e {
            Event::AgentQuestion { question, .. } => Some(question),
            _ => None,
        })
        .collect();
    assert_eq!(asked, ["How many people are coming, and what is the budget?"]);
    // The question ended the first round after its one reply.
    let first_round = events
        .iter()
        .take_while(|e| !matches!(e, Event::AgentQuestion { .. }))
        .filter(|e| matches!(e, Event::AgentMessage { .. }))
        .count();
    assert_eq!(first_round, 1);
    let s = load(&session_file(&events));
    assert!(s.turns.iter().any(|t| t.text.contains("How many people are coming")));
}

#[tokio::test]
async fn unreadable_and_cut_off_answers_judge_nothing_and_the_round_goes_on() {
    let (server, party) = varied_party().await;
    server.push_checks([
        stream_of("I think the room should keep going."),
        stream_of(r#"{"stance": "agree", "ask": "How many peo"#),
        Reply::Status {
            code: 500,
            headers: vec![],
            body: "{\"error\":{\"message\":\"boom\"}}".into(),
        },
    ]);
    let events = party.run(vec![Step::Say("Plugins?"), Step::Say("More?")]).await;
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::AgentQuestion { .. } | Event::EndProposal { .. })));
    assert_eq!(replies(&events), 4, "both rounds played in full");
    let s = load(&session_file(&events));
    let first = &s.fm.self_checks[0];
    assert!(first.verdict.is_none() && first.error.as_deref().is_some_and(|e| e.contains("no JSON object")));
    // Cut off mid-question: the stance counts, the half question does not.
    let second = s.fm.self_checks[1].verdict.as_ref().expect("read");
    assert_eq!(second.stance, Some(bmad_party::verdict::Stance::Agree));
    assert!(s.turns.iter().all(|t| !t.text.contains("How many peo")));
}

#[tokio::test]
async fn a_server_that_refuses_constrained_output_is_asked_plainly_from_then_on() {
    let (server, party) = varied_party().await;
    server.refuse_response_format();
    server.push_checks([check("new", "", false), check("new", "", false), check("agree", "", true)]);
    let events = party
        .run(vec![Step::Say("Plugins?"), Step::Say("Are we done?"), Step::CONFIRM])
        .await;
    assert_eq!(
        exit_reason(&events),
        Some(ExitReason::AgentProposed),
        "the plain answer still proposes"
    );
    let forms: Vec<String> = server
        .checks()
        .iter()
        .map(|r: &Recorded| r.body["response_format"]["type"].as_str().unwrap_or("none").to_string())
        .collect();
    // OpenAI's form, then llama-cpp-python's, then none — remembered for the session.
    assert_eq!(forms, ["json_schema", "json_object", "none", "none", "none"]);
}

/// llama-cpp-python takes only `json_object` (with the schema beside it)
/// and says so with a 500 whose validation error names the field.
#[tokio::test]
async fn a_llama_cpp_python_server_gets_its_own_form_of_the_schema_without_retries() {
    let (server, party) = varied_party().await;
    server.refuse_json_schema_like_llama_cpp_python();
    server.push_checks([check("new", "", false), check("agree", "", false)]);
    let events = party.run(vec![Step::Say("Plugins?")]).await;
    let forms: Vec<String> = server
        .checks()
        .iter()
        .map(|r: &Recorded| r.body["response_format"]["type"].as_str().unwrap_or("none").to_string())
        .collect();
    assert_eq!(forms, ["json_schema", "json_object", "json_object"]);
    assert!(server.checks()[1].body["response_format"]["schema"]["properties"]["stance"].is_object());
    let s = load(&session_file(&events));
    assert!(s.fm.self_checks.iter().all(|c| c.verdict.is_some()), "{:?}", s.fm.self_checks);
}

#[tokio::test]
async fn stances_that_agree_in_their_own_words_become_a_consensus_proposal() {
    let (server, mut party) = varied_party().await;
    party.config.party.consensus.lookback = 2;
    server.push_checks([
        check("new", "", false),
        check("new", "", false),
        check("agree", "", false),
        check("agree", "", false),
        check("agree", "", false),
        check("agree", "", false),
    ]);
    let events = party
        .run(vec![
            Step::Say("Name?"),
            Step::Say("Compass?"),
            Step::Say("All good?"),
            Step::CONFIRM,
        ])
        .await;
    // The replies share no words (`varied_reply`): similarity would never see it.
    assert_eq!(requests(&events, ConfirmKind::Consensus), 1);
    assert_eq!(exit_reason(&events), Some(ExitReason::Consensus));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::ConsensusScore { method, score: Some(s), .. } if method == "stance" && *s > 0.99)));
}

#[tokio::test]
async fn one_disagreeing_stance_keeps_consensus_away() {
    let (server, mut party) = varied_party().await;
    party.config.party.consensus.lookback = 2;
    server.push_checks([
        check("agree", "", false),
        check("agree", "", false),
        check("agree", "", false),
        check("disagree", "", false),
        check("agree", "", false),
        check("agree", "", false),
    ]);
    let events = party.run(vec![Step::Say("Name?"), Step::Say("Compass?"), Step::Say("Sure?")]).await;
    assert_eq!(requests(&events, ConfirmKind::Consensus), 0);
}

#[tokio::test]
async fn a_declined_proposal_is_not_raised_again_for_the_quiet_rounds() {
    let server = FakeOpenAi::start(|_, n| stream_of(&varied_reply(n))).await;
    let mut party = Party::two_a_round(&server);
    party.config.party.self_check = true;
    party.config.party.end_detection.quiet_rounds = 2;
    // Every stance agrees too: consensus would be proposed in the quiet rounds.
    party.config.party.consensus.enabled = false;
    // Every speaker reads every message as an invited close.
    server.push_checks((0..20).map(|_| check("agree", "", true)));
    let events = party
        .run(vec![
            Step::Say("Topic."),
            Step::Say("Done?"),
            Step::Say("No, go on."),
            Step::Say("More."),
            Step::Say("And now?"),
            Step::CONFIRM,
        ])
        .await;
    // Held in round 1 (nothing discussed yet); proposed in round 2,
    // declined; rounds 3 and 4 are quiet; round 5 proposes again.
    let proposals: Vec<u32> = {
        let mut round = 0;
        events
            .iter()
            .filter_map(|e| match e {
                Event::RoundStarted { round: r, .. } => {
                    round = *r;
                    None
                }
                Event::EndProposal { .. } => Some(round),
                _ => None,
            })
            .collect()
    };
    assert_eq!(proposals, [2, 5]);
    let s = load(&session_file(&events));
    let statuses: Vec<ConfirmStatus> = s.fm.confirmations.iter().map(|c| c.status).collect();
    assert_eq!(statuses, [ConfirmStatus::Rejected, ConfirmStatus::Confirmed]);
}

#[tokio::test]
async fn a_room_where_everyone_passes_is_summed_up_then_offered_the_end() {
    // Every turn only repeats the topic: hygiene cuts it, asked again, the speaker passes.
    let server = FakeOpenAi::start(|r, _| {
        if r.prompt_text().contains("Note from the session") {
            stream_of("What should our plugin API look like for third-party developers?")
        } else {
            stream_of("- Settled: nothing yet.\n- Open: the plugin API.")
        }
    })
    .await;
    let party = Party::two_a_round(&server);
    let events = party
        .run(vec![
            Step::Say("What should our plugin API look like for third-party developers?"),
            Step::Say("Go on."),
            Step::CONFIRM,
        ])
        .await;
    let repeats: Vec<(u32, bool)> = events
        .iter()
        .filter_map(|e| match e {
            Event::RoomRepeats { round, dry } => Some((*round, *dry)),
            _ => None,
        })
        .collect();
    assert_eq!(repeats, [(1, true), (2, true)], "each all-pass round is noticed");
    assert_eq!(requests(&events, ConfirmKind::Silence), 1, "the second time, the end is offered");
    assert_eq!(exit_reason(&events), Some(ExitReason::Silence));
    let s = load(&session_file(&events));
    assert_eq!(s.fm.conversation_state.silence_count, 2);
}
