//! The facilitator's hands on who is in the room and who speaks
//! (`/invite`, `/dismiss`, `/mute`, `/unmute`, `/only`), end to end
//! against the loopback OpenAI server: before the topic and during the
//! party, refused with a reason, saved, and kept by a resume.

use crate::common;

use bmad_party::engine::{Command, Event};
use bmad_party::testing::FakeOpenAi;
use common::*;

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

/// The room as the last `room_changed` (else `session_started`) told it.
fn room_told(events: &[Event]) -> (Vec<String>, Vec<String>) {
    let ids = |v: &[bmad_party::engine::AgentInfo]| v.iter().map(|a| a.id.clone()).collect::<Vec<_>>();
    events
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::RoomChanged { agents, out, .. } | Event::SessionStarted { agents, out, .. } => Some((ids(agents), ids(out))),
            _ => None,
        })
        .expect("the room is told")
}

#[tokio::test]
async fn invite_and_dismiss_change_the_room_its_prompts_and_file_and_a_resume_keeps_them() {
    let server = FakeOpenAi::always("A point of my own about it.").await;
    let mut party = Party::new(&server);
    party.config.party.agents_per_round = (2, 2);
    party.agents.retain(|a| a.id != "developer" && a.id != "test-architect");
    let events = party
        .run(vec![
            Step::Say("/invite maya"),
            Step::Say("/invite"),
            Step::Say("How should we price the new plan?"),
            Step::Say("/invite hiro @Kofi"),
            Step::Say("/dismiss maya ingrid amara priya tomás"),
            Step::Say("/mute lena"),
            Step::Say("What would you test first?"),
            Step::Say("/dismiss kofi hiro"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    let refused = rejected(&events);
    assert!(refused[0].contains("Maya (analyst) is in the room already"), "{refused:?}");
    assert!(
        refused[1].contains("/invite needs a name") && refused[1].contains("Kofi (developer)"),
        "it names who can be invited: {refused:?}"
    );
    assert!(refused[2].contains("one speaker at least stays unmuted"), "{refused:?}");
    let notes = notices(&events);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("🚪 Hiro (test-architect), Kofi (developer) joined the room")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("👋 Maya (analyst), Ingrid (architect)")),
        "{notes:?}"
    );
    let (room, out) = room_told(&events);
    assert_eq!(room, ["moderator", "scrum-master", "test-architect", "developer"]);
    assert_eq!(out.len(), 5, "the five sent out can be invited again: {out:?}");
    let rounds = rounds(&events);
    assert_eq!(rounds.len(), 2);
    assert!(
        rounds[1].iter().all(|a| a == "developer" || a == "test-architect"),
        "Lena is muted, the others gone: {rounds:?}"
    );
    // The newcomers see the conversation so far and the room as it is.
    let last = last_agent_prompt(&server);
    assert!(last.contains("How should we price the new plan?"), "{last}");
    assert!(last.contains("Hiro (Test Architect)") && last.contains("Lena (Scrum Master)"));
    assert!(!last.contains("Maya (Business Analyst)"), "one sent out is not in the room's list");

    let path = session_file(&events);
    let fm = load(&path).fm;
    let cs = &fm.conversation_state;
    assert_eq!(cs.invited, ["test-architect", "developer"]);
    assert_eq!(cs.dismissed, ["analyst", "architect", "tech-writer", "ux-designer", "pm"]);
    assert!(fm.agents.contains(&"developer".to_string()) && fm.cast.iter().any(|c| c.id == "test-architect"));

    // A resume rebuilds the room as it was left, from the same cast; one
    // sent out comes back with /invite.
    let mut again = Party::new(&server);
    again.config.party.agents_per_round = (2, 2);
    again.agents = party.agents.clone();
    again.resume = Some(path.clone());
    let events = again
        .run(vec![
            Step::Say("And the price?"),
            Step::Say("/invite maya"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    let started = room_told(&events[..1 + events.iter().position(|e| matches!(e, Event::SessionStarted { .. })).unwrap()]);
    assert_eq!(started.0, ["moderator", "scrum-master", "test-architect", "developer"]);
    assert!(
        notices(&events).iter().all(|n| !n.contains("not in the room")),
        "nobody is missing: {:?}",
        notices(&events)
    );
    assert!(common::rounds(&events)[0].iter().all(|a| a == "developer" || a == "test-architect"));
    assert_eq!(room_told(&events).0.last().map(String::as_str), Some("analyst"));
    let cs = load(&path).fm.conversation_state;
    assert_eq!(cs.dismissed, ["architect", "tech-writer", "ux-designer", "pm"]);
    assert_eq!(cs.muted, ["scrum-master"]);
}

#[tokio::test]
async fn party_switches_the_cast_scene_and_record_and_the_thread_goes_on() {
    let server = FakeOpenAi::varied().await;
    let mut party = Party::new(&server);
    party.config.party.agents_per_round = (2, 2);
    let pool = party.pool.clone();
    party
        .agents
        .retain(|a| ["moderator", "analyst", "architect"].contains(&a.id.as_str()));
    party.parties = vec![bmad_party::engine::Standing {
        party: bmad_party::roster::parties::NamedParty {
            id: "launch".into(),
            name: "Launch crew".into(),
            scene: Some("A launch review the night before the release.".into()),
        },
        agents: pool
            .iter()
            .filter(|a| a.id == "developer" || a.id == "test-architect")
            .cloned()
            .collect(),
        memory: None,
    }];
    let events = party
        .run(vec![
            Step::Say("How should we launch the new plan?"),
            Step::Say("/party"),
            Step::Say("/party nope"),
            Step::Say("/party launch CREW"),
            Step::Say("/party launch"),
            Step::Say("What could break tonight?"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    let refused = rejected(&events);
    assert!(
        refused[0].contains("/party needs a name") && refused[0].contains("Launch crew"),
        "{refused:?}"
    );
    assert!(refused[1].contains("no party is called “nope”"), "{refused:?}");
    assert!(refused[2].contains("the room is Launch crew already"), "{refused:?}");
    assert!(
        notices(&events)
            .iter()
            .any(|n| n.starts_with("🎪 the room is Launch crew now: Kofi (developer), Hiro (test-architect)")),
        "{:?}",
        notices(&events)
    );
    let (room, _) = room_told(&events);
    assert_eq!(room, ["moderator", "developer", "test-architect"]);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::RoomChanged { party: Some(p), .. } if p == "Launch crew")));
    let rounds = rounds(&events);
    assert!(rounds[1].iter().all(|a| a == "developer" || a == "test-architect"), "{rounds:?}");
    let last = last_agent_prompt(&server);
    assert!(last.contains("the night before the release"), "the new scene");
    assert!(last.contains("How should we launch the new plan?"), "the thread carried over");
    let fm = load(&session_file(&events)).fm;
    assert_eq!(fm.party.as_deref(), Some("launch"), "recorded: a resume opens the new party");
    assert!(fm.conversation_state.invited.is_empty() && fm.conversation_state.dismissed.is_empty());
    assert!(fm.cast.iter().any(|c| c.id == "test-architect"));
}
