//! The facilitator's second thoughts on the last round (`/redo`, `/undo`,
//! `/edit`, `/takes`, `/take`), end to end against the loopback OpenAI
//! server: what the next speakers and rounds are sent, what the session
//! file keeps, and a resume of it.

use crate::common;

use bmad_party::engine::{Command, Event};
use bmad_party::session::TurnKind;
use bmad_party::testing::FakeOpenAi;
use common::*;

/// The agents' replies standing in the session, in order: (agent, text).
fn replies(path: &std::path::Path) -> Vec<(String, String)> {
    load(path)
        .turns
        .into_iter()
        .filter(|t| t.kind == TurnKind::Agent)
        .map(|t| (t.agent.unwrap_or_default(), t.text))
        .collect()
}

#[tokio::test]
async fn a_reply_asked_again_replaces_it_for_the_room_and_every_take_is_kept() {
    let server = FakeOpenAi::varied().await;
    let mut party = Party::two_a_round(&server);
    party
        .agents
        .retain(|a| ["moderator", "analyst", "architect", "developer"].contains(&a.id.as_str()));
    let events = party
        .run(vec![
            Step::Say("How should we price the new plan?"),
            Step::Say("/redo"),
            Step::Say("/takes"),
            Step::Say("/redo bob"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    let path = session_file(&events);
    let fm = load(&path).fm;
    assert_eq!(fm.set_aside.len(), 1, "one take set aside");
    let take = &fm.set_aside[0];
    assert_eq!((take.round, take.by.as_str(), take.turns.len()), (1, "redo", 1));
    let set = take.turns[0].clone();
    let now = replies(&path);
    assert_eq!(now.len(), 2, "the round still has its two replies: {now:?}");
    assert_eq!(now[1].0, set.agent.clone().unwrap(), "the same speaker was asked again");
    assert_ne!(now[1].1, set.text, "with a new reply");
    assert!(rejected(&events).iter().any(|m| m.contains("“bob”")));
    let notes = notices(&events);
    assert!(notes.iter().any(|n| n.starts_with("take 1 (/redo, 1 turns)")), "{notes:?}");
    // The asked-again speaker saw the first reply, not its own set-aside one.
    let asked = last_agent_prompt(&server);
    assert!(asked.contains(&now[0].1[..20]) && !asked.contains(&set.text[..30]));

    // The next round is sent the reply that stands; /take brings the
    // earlier one back and the new one becomes a take; a resume keeps it all.
    let mut again = Party::two_a_round(&server);
    again.agents = party.agents.clone();
    again.resume = Some(path.clone());
    let events = again
        .run(vec![
            Step::Say("/take 1"),
            Step::Say("What would you cut first?"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    assert!(
        notices(&events)
            .iter()
            .any(|n| n.contains("take 1 is back; what stood there is take 2 now")),
        "{:?}",
        notices(&events)
    );
    let prompt = last_agent_prompt(&server);
    assert!(prompt.contains(&set.text[..30]), "the take brought back is what the room sees");
    assert!(!prompt.contains(&now[1].1[..30]), "the reply set aside is not");
    let fm = load(&path).fm;
    assert_eq!(fm.set_aside.len(), 1);
    assert_eq!(fm.set_aside[0].take, 2, "a number is never given twice");
    let kept: Vec<&str> = fm.set_aside[0]
        .turns
        .iter()
        .filter(|t| t.kind == TurnKind::Agent)
        .map(|t| t.text.as_str())
        .collect();
    assert_eq!(
        kept,
        [now[1].1.as_str()],
        "the reply it replaced is kept, with the notice that asked again"
    );
}

#[tokio::test]
async fn a_take_keeps_its_number_while_others_come_and_go() {
    let server = FakeOpenAi::varied().await;
    let party = Party::two_a_round(&server);
    let events = party
        .run(vec![
            Step::Say("How should we price the new plan?"),
            Step::Say("/redo"),
            Step::Say("/redo"),
            Step::Say("/take 1"),
            Step::Say("/takes"),
            Step::Say("/take 9"),
            Step::Say("What would you cut first?"),
            Step::Say("/take 2"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    let notes = notices(&events);
    assert!(
        notes.iter().any(|n| n.contains("take 1 is back; what stood there is take 3 now")),
        "{notes:?}"
    );
    let listed = notes.iter().find(|n| n.starts_with("take ")).expect("/takes listed them");
    let numbers: Vec<&str> = listed.lines().filter_map(|l| l.split(' ').nth(1)).collect();
    assert_eq!(numbers, ["2", "3"], "take 1 came back; the others kept their numbers:\n{listed}");
    let refused = rejected(&events);
    assert!(
        refused.iter().any(|m| m.contains("there is no take 9: this round's are 2, 3")),
        "{refused:?}"
    );
    assert!(
        refused.iter().any(|m| m.contains("take 2 (round 1) cannot come back now")),
        "{refused:?}"
    );
    let kept: Vec<usize> = load(&session_file(&events)).fm.set_aside.iter().map(|t| t.take).collect();
    assert_eq!(kept, [2, 3]);
    let seeds: Vec<u64> = server.received().iter().filter_map(|r| r.body.get("seed")?.as_u64()).collect();
    assert_eq!(seeds, [1, 2], "each redo is sampled with its own take's seed");
}

#[tokio::test]
async fn redo_of_an_earlier_speaker_asks_the_later_ones_again_too() {
    let server = FakeOpenAi::varied().await;
    let mut party = Party::new(&server);
    party.config.party.agents_per_round = (3, 3);
    let events = party
        .run(vec![Step::Say("How should we price the new plan?"), Step::Cmd(Command::Quit)])
        .await;
    let path = session_file(&events);
    let first = replies(&path);
    assert_eq!(first.len(), 3);
    let mut again = Party::new(&server);
    again.config.party.agents_per_round = (3, 3);
    again.resume = Some(path.clone());
    let second = first[1].0.clone();
    let say: &'static str = Box::leak(format!("/redo {second}").into_boxed_str());
    let events = again.run(vec![Step::Say(say), Step::Cmd(Command::Quit)]).await;
    let rounds = rounds(&events);
    assert_eq!(
        rounds,
        [vec![first[1].0.clone(), first[2].0.clone()]],
        "the second and third speak again"
    );
    let now = replies(&path);
    assert_eq!(now.len(), 3);
    assert_eq!(now[0], first[0], "the first reply stands");
    assert!(now[1].1 != first[1].1 && now[2].1 != first[2].1);
    let take = &load(&path).fm.set_aside[0];
    assert_eq!(take.turns.iter().filter(|t| t.kind == TurnKind::Agent).count(), 2);
}

#[tokio::test]
async fn undo_edit_and_take_move_rounds_and_the_topic() {
    let server = FakeOpenAi::varied().await;
    let party = Party::two_a_round(&server);
    let events = party
        .run(vec![
            Step::Say("How should we price the new plan?"),
            Step::Say("What would you cut first?"),
            Step::Say("/undo"),
            Step::Say("/edit What would you keep no matter what?"),
            Step::Say("/takes"),
            Step::Say("/undo"),
            Step::Say("/undo"),
            Step::Say("/edit nothing"),
            Step::Say("/takes"),
            Step::Say("Shall we start over on onboarding?"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    let notes = notices(&events);
    assert!(
        notes.iter().any(|n| n.contains("round 2 taken back, set aside as take 1")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("round 1 is played again from your edited message")),
        "{notes:?}"
    );
    assert!(rejected(&events).iter().any(|m| m.contains("nothing to take back")));
    let path = session_file(&events);
    let s = load(&path);
    assert_eq!(
        s.fm.topic, "Shall we start over on onboarding?",
        "round 1 taken back: the next message is the topic"
    );
    let facilitator: Vec<&str> = s
        .turns
        .iter()
        .filter(|t| t.kind == TurnKind::Facilitator)
        .map(|t| t.text.as_str())
        .collect();
    assert_eq!(facilitator, ["Shall we start over on onboarding?"]);
    assert_eq!(s.fm.conversation_state.current_round, 1);
    let by: Vec<&str> = s.fm.set_aside.iter().map(|t| t.by.as_str()).collect();
    assert_eq!(by, ["undo", "edit", "undo"], "every take kept");
    let prompt = last_agent_prompt(&server);
    assert!(!prompt.contains("What would you cut first?"), "a round taken back is not sent");
}

#[tokio::test]
async fn a_speaker_who_passes_when_asked_again_is_no_room_run_dry() {
    use std::sync::{Arc, Mutex};
    // After the flip every reply copies the room's first one: the agent
    // asked again passes.
    let sent: Arc<Mutex<Vec<String>>> = Arc::default();
    let echo = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (s, e) = (sent.clone(), echo.clone());
    let server = FakeOpenAi::start(move |_, n| {
        let mut sent = s.lock().unwrap();
        let text = match sent.first() {
            Some(first) if e.load(std::sync::atomic::Ordering::SeqCst) => first.clone(),
            _ => bmad_party::testing::varied_reply(n),
        };
        sent.push(text.clone());
        bmad_party::testing::stream_of(&text)
    })
    .await;
    let party = Party::two_a_round(&server);
    let flip = echo.clone();
    let events = party
        .run(vec![
            Step::Say("How should we price the new plan?"),
            Step::Do(Box::new(move || flip.store(true, std::sync::atomic::Ordering::SeqCst))),
            Step::Say("/redo"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    assert!(
        events.iter().any(|e| matches!(e, Event::AgentPassed { .. })),
        "the agent asked again passed"
    );
    assert!(
        !events.iter().any(|e| matches!(e, Event::RoomRepeats { .. })),
        "one pass in a part asked again is not a room run dry"
    );
}

#[tokio::test]
async fn redo_asks_the_last_speaker_again_not_the_host_whose_summary_goes_with_the_round() {
    // Round 2 circles, and the moderator sums up and redirects at its end.
    let server = FakeOpenAi::start(circling_reply).await;
    let mut party = Party::new(&server);
    party.config.party.silence.consecutive_similar_rounds = 2;
    party.config.party.consensus.enabled = false;
    let events = party
        .run(vec![
            Step::Say("Roadmap?"),
            Step::Say("Again?"),
            Step::Say("/redo"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    let host_spoke = events
        .iter()
        .any(|e| matches!(e, Event::AgentMessage { agent, round: 2, .. } if agent == "moderator"));
    assert!(host_spoke, "the moderator summed up round 2");
    let rounds = rounds(&events);
    let asked = rounds.last().unwrap();
    assert_eq!(asked.len(), 1, "one speaker asked again: {rounds:?}");
    assert_ne!(asked[0], "moderator", "the host is no speaker to ask again");
    let take = &load(&session_file(&events)).fm.set_aside[0];
    assert!(
        take.turns.iter().any(|t| t.agent.as_deref() == Some("moderator")),
        "the summary went with the part it summed up"
    );
}

#[tokio::test]
async fn a_reply_asked_again_is_sampled_with_its_takes_seed_and_a_server_refusing_it_is_asked_without() {
    use bmad_party::testing::Reply;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    // The server refuses the first request that carries a seed, as OpenAI
    // refuses an argument it does not know.
    let refused = Arc::new(AtomicBool::new(false));
    let once = refused.clone();
    let server = FakeOpenAi::start(move |r, n| {
        if r.body.get("seed").is_some() && !once.swap(true, Ordering::SeqCst) {
            return Reply::Status {
                code: 400,
                headers: vec![],
                body: r#"{"error":{"message":"Unrecognized request argument supplied: seed","type":"invalid_request_error"}}"#.into(),
            };
        }
        bmad_party::testing::stream_of(&bmad_party::testing::varied_reply(n))
    })
    .await;
    let party = Party::two_a_round(&server);
    let events = party
        .run(vec![
            Step::Say("How should we price the new plan?"),
            Step::Say("/redo"),
            Step::Say("/redo"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    assert!(refused.load(Ordering::SeqCst), "the seed was sent");
    let turns: Vec<_> = server
        .received()
        .into_iter()
        .filter(|r| r.prompt_text().contains("Note from the session"))
        .collect();
    let seeds: Vec<Option<u64>> = turns.iter().map(|r| r.body.get("seed").and_then(|s| s.as_u64())).collect();
    assert_eq!(
        seeds,
        [None, None, Some(1), None, None],
        "round 1 unseeded; the redo seeded with take 1, refused, asked again without; from then on none"
    );
    assert_eq!(replies(&session_file(&events)).len(), 2, "both redos were answered");
}
