//! Hearing a yes (`hear_answer`): when the facilitator asks whether the room
//! agrees and a reply's own words say neither yes nor no, the host hears
//! that reply with one neutral call, end to end against the loopback
//! server. Only a heard yes counts, and only beside a reply whose own
//! words agree; a no, an unreadable answer or a failed
//! call leaves the reply as its words left it; a reply whose words agree,
//! or object in its opening or without stating agreement anywhere, is not
//! heard at all (one that objects only later, beside a stated agreement,
//! is: it may be a caveat on a yes).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

use bmad_party::engine::{Event, ExitReason};
use bmad_party::session::{ConfirmKind, ReadingRecord};
use bmad_party::testing::{stream_of, varied_reply, FakeOpenAi, Reply};
use common::*;

/// "Which venue?", then "Shall we book the Harbour Hall, everyone?", read
/// as asking for agreement; the second round's first speaker answers with
/// `first`, the next with `second`; the host hears with `hearings`.
/// Returns the events, the server and the session file's reading of the
/// question.
async fn heard_round(
    first: &'static str,
    second: &'static str,
    hearings: Vec<Reply>,
    confirm: bool,
) -> (Vec<Event>, FakeOpenAi, ReadingRecord) {
    heard_round_with(first, second, hearings, confirm, true).await
}

/// `heard_round`, with consensus on or off.
async fn heard_round_with(
    first: &'static str,
    second: &'static str,
    hearings: Vec<Reply>,
    confirm: bool,
    consensus: bool,
) -> (Vec<Event>, FakeOpenAi, ReadingRecord) {
    let server = FakeOpenAi::start(move |_, n| match n {
        3 => stream_of(first),
        4.. => stream_of(second),
        _ => stream_of(&varied_reply(n)),
    })
    .await;
    let mut party = Party::two_a_round(&server);
    party.config.party.consensus.enabled = consensus;
    server.push_readings([stream_of("D"), stream_of("B")]);
    server.push_hearings(hearings);
    let mut script = vec![Step::Say("Which venue?"), Step::Say("Shall we book the Harbour Hall, everyone?")];
    if confirm {
        script.push(Step::CONFIRM);
    }
    let events = party.run(script).await;
    assert_eq!(agent_messages(&events).len(), 4, "both rounds answered");
    let reading = load(&session_file(&events)).fm.readings[1].clone();
    (events, server, reading)
}

#[tokio::test]
async fn a_reply_that_goes_ahead_without_an_agreement_word_is_heard_as_yes_beside_a_stated_one() {
    let (events, server, reading) = heard_round(
        "Then I will call them today and hold the 14th.",
        "Sounds good to me. I will draft the invitation tonight.",
        vec![stream_of("Yes")],
        true,
    )
    .await;
    assert_eq!(requests(&events, ConfirmKind::Consensus), 1);
    assert_eq!(exit_reason(&events), Some(ExitReason::Consensus));
    assert_eq!(reading.act, "check_agreement");
    let event = events.iter().find_map(|e| match e {
        Event::Reading { round: 2, heard, .. } => Some(heard.clone()),
        _ => None,
    });
    assert_eq!(event, Some(vec![Some(true)]), "the reading event carries the hearings");
    let asked = server.hearings();
    assert_eq!(asked.len(), 1, "only the reply that said neither is heard");
    let prompt = asked[0].body["messages"].to_string();
    assert!(prompt.contains("Shall we book the Harbour Hall, everyone?"), "{prompt}");
    assert!(prompt.contains("Then I will call them today and hold the 14th."), "{prompt}");
    assert_eq!(asked[0].body["temperature"], 0.0);
    assert_eq!(reading.heard.len(), 1);
    assert_eq!(reading.heard[0].yes, Some(true));
}

#[tokio::test]
async fn heard_yeses_without_a_yes_in_anyones_words_are_no_consensus() {
    // Thanks and a plan of one's own, both heard as yes (a 1.5B hears
    // them so): nobody said yes, so the room has not agreed.
    let (events, server, reading) = heard_round(
        "Thank you for your input. I appreciate it very much.",
        "I will draft the invitation tonight.",
        vec![stream_of("Yes"), stream_of(" yes.")],
        false,
    )
    .await;
    assert_eq!(server.hearings().len(), 2, "both replies said neither");
    assert!(reading.heard.iter().all(|h| h.yes == Some(true)), "{:?}", reading.heard);
    assert_eq!(reading.heard[1].answer, "yes.");
    assert_eq!(requests(&events, ConfirmKind::Consensus), 0);
}

#[tokio::test]
async fn a_heard_no_an_unreadable_answer_or_a_failed_call_is_no_yes() {
    let failed = Reply::Status {
        code: 400,
        headers: vec![],
        body: "{\"error\":{\"message\":\"bad request\"}}".into(),
    };
    for (hearings, yes) in [
        (vec![stream_of("Yes"), stream_of("No")], [Some(true), Some(false)]),
        (vec![stream_of("Yes"), stream_of("Maybe")], [Some(true), None]),
        (vec![stream_of("Yes"), failed], [Some(true), None]),
    ] {
        let (events, _, reading) = heard_round(
            "Then I will call them today and hold the 14th.",
            "Let me look at the train times first.",
            hearings,
            false,
        )
        .await;
        assert_eq!(requests(&events, ConfirmKind::Consensus), 0, "one yes of two is not the room's");
        assert_eq!(reading.heard.iter().map(|h| h.yes).collect::<Vec<_>>(), yes);
    }
}

#[tokio::test]
async fn a_reply_whose_words_agree_or_object_is_not_heard() {
    let (events, server, reading) = heard_round(
        "Agreed, the Harbour Hall it is.",
        "I disagree: the hall has no step-free entrance.",
        vec![stream_of("Yes"), stream_of("Yes")],
        false,
    )
    .await;
    assert!(server.hearings().is_empty(), "their own words answered");
    assert_eq!(requests(&events, ConfirmKind::Consensus), 0, "an objection stands");
    assert!(reading.heard.is_empty());
}

#[tokio::test]
async fn a_stated_objection_leaves_nothing_to_hear() {
    // The second reply objects in its own words: nothing heard could make
    // the room agree, so the first is not heard either.
    let (events, server, reading) = heard_round(
        "Then I will call them today and hold the 14th.",
        "I disagree: the hall has no step-free entrance.",
        vec![stream_of("Yes")],
        false,
    )
    .await;
    assert!(server.hearings().is_empty());
    assert_eq!(reading.act, "check_agreement");
    assert_eq!(requests(&events, ConfirmKind::Consensus), 0);
}

#[tokio::test]
async fn with_consensus_off_nothing_is_heard_or_proposed() {
    let (events, server, reading) = heard_round_with(
        "Then I will call them today and hold the 14th.",
        "I will draft the invitation tonight.",
        vec![stream_of("Yes"), stream_of("Yes")],
        false,
        false,
    )
    .await;
    assert!(server.hearings().is_empty());
    assert_eq!(reading.act, "nothing: consensus is off or quiet");
    assert_eq!(requests(&events, ConfirmKind::Consensus), 0);
}

#[tokio::test]
async fn a_caveat_after_the_opening_is_heard_and_a_yes_makes_it_agreement() {
    // "However" is a disagreement word, but only after the opening: the
    // reply weighs the cost and then goes ahead, so the host hears it.
    let caveat = "Let's weigh the booking. However, the deposit is high. I'm in favour of moving forward with it.";
    let (events, server, reading) = heard_round(caveat, "Agreed, the Harbour Hall it is.", vec![stream_of("Yes")], true).await;
    assert_eq!(server.hearings().len(), 1, "the reply with the caveat is heard");
    assert_eq!(reading.heard.iter().map(|h| h.yes).collect::<Vec<_>>(), [Some(true)]);
    assert_eq!(requests(&events, ConfirmKind::Consensus), 1);
    // Heard as no, the caveat stays a disagreement: no consensus.
    let (events, _, reading) = heard_round(caveat, "Agreed, the Harbour Hall it is.", vec![stream_of("No")], false).await;
    assert_eq!(reading.heard.iter().map(|h| h.yes).collect::<Vec<_>>(), [Some(false)]);
    assert_eq!(requests(&events, ConfirmKind::Consensus), 0);
}
