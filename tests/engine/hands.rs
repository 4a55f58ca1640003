//! The facilitator's hands on who speaks (`/mute`, `/unmute`, `/only`),
//! end to end against the loopback OpenAI server: before the topic and
//! during the party, refused with a reason, saved, and kept by a resume.

use crate::common;

use bmad_party::engine::{Command, Event};
use bmad_party::testing::FakeOpenAi;
use common::*;

fn rejected(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Rejected { message } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

/// The agents each agent call of the server went to, in order.
fn called(server: &FakeOpenAi, from: usize) -> Vec<String> {
    server.received()[from..]
        .iter()
        .filter(|r| r.prompt_text().contains("Note from the session"))
        .map(speaker)
        .collect()
}

#[tokio::test]
async fn mute_and_only_choose_who_speaks_are_saved_and_a_resume_keeps_them() {
    let server = FakeOpenAi::always("A point of my own about it.").await;
    let mut party = Party::new(&server);
    party.config.party.agents_per_round = (3, 3);
    let events = party
        .run(vec![
            // Before the topic: kept for the session the topic opens.
            Step::Say("/mute @Kofi"),
            Step::Say("How should we price the new plan, Kofi?"),
            Step::Say("/only maya, ingrid"),
            Step::Say("What would you cut first?"),
            Step::Say("/only kofi what do you say?"),
            Step::Say("/mute maya ingrid amara priya tomás lena hiro"),
            Step::Say("/only bob"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    let rounds = rounds(&events);
    assert_eq!(rounds.len(), 2, "{rounds:?}");
    assert!(!rounds[0].contains(&"developer".to_string()), "muted, even when named: {rounds:?}");
    assert_eq!(rounds[0].len(), 3);
    assert_eq!(rounds[1], ["analyst", "architect"], "the next round is theirs alone, in that order");
    let refused = rejected(&events);
    assert!(refused[0].contains("Kofi is muted: /unmute developer first"), "{refused:?}");
    assert!(
        refused.iter().any(|m| m.contains("one speaker at least stays unmuted")),
        "{refused:?}"
    );
    assert!(refused.iter().any(|m| m.contains("no speaker here is called “bob”")), "{refused:?}");
    let notes = notices(&events);
    assert!(notes.iter().any(|n| n.contains("🔇 muted: Kofi (developer)")), "{notes:?}");
    assert!(
        notes.iter().any(|n| n.contains("the next round goes to Maya, Ingrid only")),
        "{notes:?}"
    );
    // The status bar is told; the round takes the `only`.
    let statuses: Vec<_> = events
        .iter()
        .filter_map(|e| if let Event::Status(s) = e { Some(s) } else { None })
        .collect();
    assert!(statuses.iter().any(|s| s.only == ["analyst", "architect"]));
    assert!(statuses.last().is_some_and(|s| s.muted == ["developer"] && s.only.is_empty()));
    let path = session_file(&events);
    let saved = load(&path).fm.conversation_state;
    assert_eq!(
        (saved.muted.as_slice(), saved.only.as_slice()),
        (&["developer".to_string()][..], &[][..])
    );

    // A resume: Kofi is still muted until unmuted; then `/only` with a
    // message opens the round it is for.
    let mut again = Party::new(&server);
    again.config.party.agents_per_round = (3, 3);
    again.resume = Some(path.clone());
    let from = server.received().len();
    let events = again
        .run(vec![
            Step::Say("Where do we stand?"),
            Step::Say("/unmute"),
            Step::Say("/only kofi: and you, Kofi?"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    let rounds = common::rounds(&events);
    assert!(
        !rounds[0].contains(&"developer".to_string()),
        "still muted after the resume: {rounds:?}"
    );
    assert_eq!(rounds[1], ["developer"]);
    let calls = called(&server, from);
    let kofi = calls.iter().position(|a| a == "Kofi").expect("Kofi is called");
    assert!(calls[kofi..].iter().all(|a| a == "Kofi"), "Kofi's round is his alone: {calls:?}");
    let last = server.received().last().unwrap().prompt_text();
    assert!(last.contains("and you, Kofi?"), "the message reaches the one it is for");
    let saved = load(&path).fm.conversation_state;
    assert!(saved.muted.is_empty() && saved.only.is_empty());
}
