//! Notes while the party goes on (`/summary`, `/takeaways [PATH]`), end to
//! end against the loopback OpenAI server.

use crate::common;

use bmad_party::engine::{Command, Event};
use bmad_party::session::TurnKind;
use bmad_party::testing::FakeOpenAi;
use common::*;

#[tokio::test]
async fn a_pinned_reply_comes_first_in_the_highlights_and_the_takeaways() {
    let server = FakeOpenAi::varied().await;
    let mut party = Party::two_a_round(&server);
    party
        .agents
        .retain(|a| ["moderator", "analyst", "architect"].contains(&a.id.as_str()));
    party.takeaways = bmad_party::engine::TakeawaysTo::BesideSession;
    let events = party
        .run(vec![
            Step::Say("/pin"),
            Step::Say("How should we price the new plan?"),
            Step::Say("/pin kofi"),
            Step::Say("/pin"),
            Step::Say("/unpin"),
            Step::Say("/pin maya"),
            Step::Cmd(Command::Exit),
        ])
        .await;
    let refused = rejected(&events);
    assert!(refused[0].contains("no reply to pin yet"), "before the topic: {refused:?}");
    assert!(
        refused.iter().any(|m| m.contains("no speaker here is called “kofi”")),
        "{refused:?}"
    );
    assert_eq!(rounds(&events).len(), 1, "no pin command became a message");
    let path = session_file(&events);
    let s = load(&path);
    let maya = s
        .turns
        .iter()
        .rfind(|t| t.kind == TurnKind::Agent && t.agent.as_deref() == Some("analyst"))
        .expect("Maya spoke");
    assert_eq!(s.fm.pinned.len(), 1, "/unpin took the first back");
    assert_eq!((s.fm.pinned[0].agent.as_str(), &s.fm.pinned[0].text), ("analyst", &maya.text));
    let highlights = events
        .iter()
        .find_map(|e| match e {
            Event::Highlights { text } => Some(text.clone()),
            _ => None,
        })
        .unwrap();
    assert!(highlights.contains("Pinned as decided: 📊 Maya:"), "{highlights}");
    let written = events
        .iter()
        .find_map(|e| match e {
            Event::Takeaways { path } => Some(path.clone()),
            _ => None,
        })
        .unwrap();
    let doc = std::fs::read_to_string(written).unwrap();
    let decisions = doc.split("## Decisions\n\n").nth(1).unwrap();
    assert!(decisions.starts_with("- 📊 Maya: "), "the pin is the first decision: {doc}");
}

#[tokio::test]
async fn summary_and_takeaways_come_on_demand_the_party_goes_on_and_a_resume_keeps_them() {
    let server = FakeOpenAi::varied().await;
    let party = Party::two_a_round(&server);
    let mine = party.dir.path().join("mine.md");
    let take_mine: &'static str = Box::leak(format!("/takeaways {}", mine.display()).into_boxed_str());
    let events = party
        .run(vec![
            Step::Say("/summary"),
            Step::Say("How should we price the new plan?"),
            Step::Say("/summary"),
            Step::Say("/takeaways"),
            Step::Say(take_mine),
            Step::Say("What would you cut first?"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    let refused = rejected(&events);
    assert!(refused[0].contains("nothing to sum up yet"), "before the topic: {refused:?}");
    let notes = notices(&events);
    let summary = notes
        .iter()
        .find(|n| n.starts_with("📍 Where we are after round 1"))
        .expect("the summary is in the transcript");
    assert!(summary.contains("**Positions**"), "{summary}");
    let written: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Takeaways { path } => Some(std::path::PathBuf::from(path)),
            _ => None,
        })
        .collect();
    assert_eq!(written.len(), 2);
    assert!(
        written[0].to_string_lossy().ends_with(".takeaways.md"),
        "beside the session: {written:?}"
    );
    assert_eq!(written[1], mine);
    for p in &written {
        let doc = std::fs::read_to_string(p).unwrap();
        assert!(doc.starts_with("# Takeaways: How should we price the new plan?"), "{doc}");
    }
    assert_eq!(rounds(&events).len(), 2, "the party went on");
    let path = session_file(&events);
    let kept = load(&path)
        .turns
        .iter()
        .any(|t| t.kind == TurnKind::Notice && t.text.starts_with("📍 Where we are"));
    assert!(kept, "the summary is saved with the session");

    // A resume shows the summary where it stood, the room as it was, and
    // the agents' prompts leave the notice out.
    let mut again = Party::two_a_round(&server);
    again.resume = Some(path.clone());
    let events = again
        .run(vec![Step::Say("And what would you keep?"), Step::Cmd(Command::Quit)])
        .await;
    let earlier = events
        .iter()
        .find_map(|e| match e {
            Event::Earlier { turns } => Some(turns.clone()),
            _ => None,
        })
        .expect("the resumed turns are shown");
    let at = earlier
        .iter()
        .position(|t| t.kind == TurnKind::Notice && t.text.starts_with("📍 Where we are after round 1"))
        .expect("the summary is among them");
    assert!(
        earlier[at + 1..]
            .iter()
            .any(|t| t.kind == TurnKind::Facilitator && t.text == "What would you cut first?"),
        "in its place, before round 2"
    );
    assert_eq!(rounds(&events).len(), 1, "round 3 was played");
    assert!(!last_agent_prompt(&server).contains("Where we are"), "no agent is sent the summary");
    let s = load(&path);
    assert_eq!(s.fm.conversation_state.current_round, 3);
    let summaries = s
        .turns
        .iter()
        .filter(|t| t.kind == TurnKind::Notice && t.text.starts_with("📍 Where we are"))
        .count();
    assert_eq!(summaries, 1, "kept once across the resume");
}
