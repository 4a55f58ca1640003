//! What the facilitator's message asks, end to end against the loopback
//! OpenAI server: a question about a disagreement, an open choice or one
//! member's view never becomes a consensus, however alike the replies and
//! however the model sorts the message; a proposal quotes the question the
//! facilitator asked, or says nobody asked; a question put to one member is
//! never answered with the host's question for a job's facts.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

use bmad_party::engine::Event;
use bmad_party::session::ConfirmKind;
use bmad_party::testing::{stream_of, FakeOpenAi, Reply};
use common::*;

fn check(stance: &str) -> Reply {
    stream_of(&serde_json::json!({"stance": stance, "ask": "", "end": false}).to_string())
}

/// Three rounds of a room whose speakers say they agree from the second
/// round on (self-checks: consensus is due after the third) and whose
/// later messages the model reads as `reading`:
/// the third message is `message`. The consensus proposals' texts, and
/// what the reading of the third message did.
async fn agreeing_room(message: &'static str, reading: &'static str, confirm: bool) -> (Vec<String>, String) {
    let server = FakeOpenAi::varied().await;
    let mut party = Party::two_a_round(&server);
    party.config.party.self_check = true;
    party.config.party.consensus.lookback = 2;
    server.push_checks(["new", "new", "agree", "agree", "agree", "agree"].map(check));
    server.push_readings([stream_of("D"), stream_of(reading), stream_of(reading), stream_of(reading)]);
    let mut script = vec![Step::Say("Which name?"), Step::Say("Compass, then."), Step::Say(message)];
    if confirm {
        script.push(Step::CONFIRM);
    }
    let events = party.run(script).await;
    let texts = events
        .iter()
        .filter_map(|e| match e {
            Event::ConfirmationRequest {
                kind: ConfirmKind::Consensus,
                text,
                ..
            } => Some(text.clone()),
            _ => None,
        })
        .collect();
    let s = load(&session_file(&events));
    let third = s.fm.readings.iter().find(|r| r.round == 3).map(|r| r.act.clone());
    (texts, third.expect("the third message was read"))
}

#[tokio::test]
async fn a_question_about_a_disagreement_or_a_choice_proposes_no_consensus_however_alike_the_replies() {
    for message in [
        "Priya, you disagree with Kofi on this — why?",
        "So where exactly do the two of you part ways?",
        "Is it Compass or Atlas, then?",
        "Priya，你和 Kofi 意见不一样，为什么？",
        "到底选「罗盘」还是「灯塔」？",
    ] {
        let (texts, third) = agreeing_room(message, "B", false).await;
        assert!(texts.is_empty(), "{message}: {texts:?}");
        assert_eq!(third, "nothing", "{message}: read as B, not checked for agreement");
    }
}

#[tokio::test]
async fn a_consensus_quotes_the_question_asked_or_says_nobody_asked() {
    let (texts, _) = agreeing_room("Thursday it is. Are we all agreed?", "D", true).await;
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(texts[0].contains("You asked \"Are we all agreed?\""), "{}", texts[0]);
    let (texts, _) = agreeing_room("Thursday it is, right after stand-up.", "D", true).await;
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(texts[0].starts_with("🤝 Nobody asked for agreement"), "{}", texts[0]);
    assert!(!texts[0].contains("You asked"), "{}", texts[0]);
}

#[tokio::test]
async fn a_question_put_to_one_member_gets_no_question_for_a_jobs_facts() {
    let server = FakeOpenAi::varied().await;
    let party = Party::two_a_round(&server);
    // The model reads both as a job without its facts; only the job is one.
    server.push_readings([
        stream_of("D"),
        stream_of("C"),
        stream_of("C"),
        stream_of("C"),
        stream_of("How many people will be attending the meeting?"),
    ]);
    let events = party
        .run(vec![
            Step::Say("Should we split our monolith into microservices?"),
            Step::Say("Ingrid, what would it cost us in operations?"),
        ])
        .await;
    assert!(
        !events.iter().any(|e| matches!(e, Event::AgentQuestion { .. })),
        "no question for the facts of a job nobody gave"
    );
    let s = load(&session_file(&events));
    let acts: Vec<&str> = s.fm.readings.iter().map(|r| r.act.as_str()).collect();
    assert_eq!(acts, ["nothing", "nothing"]);
}

#[tokio::test]
async fn a_hosts_question_from_a_template_or_for_a_count_just_given_is_not_put() {
    let server = FakeOpenAi::varied().await;
    let party = Party::two_a_round(&server);
    server.push_readings([
        stream_of("C"),
        stream_of("How many people will be attending the meeting?"),
        stream_of("C"),
        stream_of("C"),
        stream_of("How many people will come to the launch?"),
    ]);
    let events = party
        .run(vec![
            Step::Say("Plan the launch of our new app."),
            Step::Say("We are forty people, with a budget of 5,000 euros. Plan the launch."),
        ])
        .await;
    assert!(!events.iter().any(|e| matches!(e, Event::AgentQuestion { .. })));
    let s = load(&session_file(&events));
    let done: Vec<(&str, Option<&str>)> = s.fm.readings.iter().map(|r| (r.act.as_str(), r.question.as_deref())).collect();
    assert_eq!(
        done,
        [
            (
                "nothing: the question names nothing of the discussion",
                Some("How many people will be attending the meeting?")
            ),
            (
                "nothing: the message gave what the question asks",
                Some("How many people will come to the launch?")
            ),
        ]
    );
}
