//! The prompts as a speaker's call reads them.

use super::*;
use crate::assets::{embedded_agents, WorkflowSource};

/// The built-in workflow and room.
fn room() -> (Workflow, Vec<Agent>) {
    let workflow = Workflow::load(WorkflowSource { dir: None }).unwrap();
    let agents = crate::roster::agents::load_roster(&embedded_agents()).unwrap();
    (workflow, agents)
}

fn english<'a>(workflow: &'a Workflow, agents: &'a [Agent]) -> PromptEnv<'a> {
    PromptEnv {
        workflow,
        agents,
        user_name: "Ada",
        speech_language: "English",
        lang: Lang::En,
        document_language: "English",
    }
}

fn turn(kind: TurnKind, agent: Option<&str>, text: &str) -> Turn {
    let label = agent.map_or("Ada".into(), |a| format!("🙂 {a}"));
    Turn::said(kind, agent, 1, &label, text)
}

#[test]
fn a_history_extended_turn_by_turn_equals_one_made_at_once() {
    let (workflow, agents) = room();
    let env = english(&workflow, &agents);
    let (me, other) = (&agents[0], &agents[1]);
    let turns = [
        turn(TurnKind::Facilitator, None, "Plugins?"),
        turn(TurnKind::Agent, Some(&other.id), "Contracts first."),
        turn(TurnKind::Agent, Some(&me.id), "Agreed, with tests."),
        turn(TurnKind::Notice, None, "a notice is not history"),
        turn(TurnKind::Agent, Some(&me.id), "And a second thought."),
        turn(TurnKind::Continue, None, ""),
        turn(TurnKind::Agent, Some(&other.id), ""),
        turn(TurnKind::Agent, Some(&other.id), "Then ship."),
        turn(TurnKind::Facilitator, None, "Decide."),
    ];
    let whole = env.history(Some(me), &turns);
    assert_eq!(
        whole.iter().map(|m| m.role).collect::<Vec<_>>(),
        [Role::User, Role::Assistant, Role::User]
    );
    // Seen by no one in particular: one user message, every turn named.
    let shared = env.history(None, &turns);
    assert_eq!(shared.iter().map(|m| m.role).collect::<Vec<_>>(), [Role::User], "one user message");
    let text = shared[0].content.to_string();
    assert!(
        text.contains(&format!("{}: Agreed, with tests.", me.name)) && text.contains(&format!("{}: Then ship.", other.name)),
        "every agent's turn under its name: {text}"
    );
    assert!(!text.contains("a notice is not history"));
    let mut view = HistoryView::default();
    for end in 0..=turns.len() {
        env.extend_history(None, &turns[..end], &mut view);
        assert_eq!(
            view.messages(),
            env.history(None, &turns[..end]).as_slice(),
            "shared, grown to {end} turns"
        );
    }
    // Every way of growing the transcript in two steps and in single
    // turns gives the same messages as making them at once.
    for split in 0..=turns.len() {
        let mut view = HistoryView::default();
        env.extend_history(Some(me), &turns[..split], &mut view);
        env.extend_history(Some(me), &turns, &mut view);
        assert_eq!(view.messages(), whole.as_slice(), "extended after {split} turns");
    }
    let mut view = HistoryView::default();
    for end in 0..=turns.len() {
        env.extend_history(Some(me), &turns[..end], &mut view);
        assert_eq!(
            view.messages(),
            env.history(Some(me), &turns[..end]).as_slice(),
            "grown to {end} turns"
        );
    }
    // A shorter transcript than the view covers (a new context) starts over.
    env.extend_history(Some(me), &turns[..2], &mut view);
    assert_eq!(view.messages(), env.history(Some(me), &turns[..2]).as_slice());
}

/// Two speakers' calls over the same conversation differ only after it:
/// the room's system prompt and the history are one shared front.
#[test]
fn every_speakers_call_shares_the_room_and_the_conversation_and_ends_with_its_persona() {
    let (workflow, agents) = room();
    let env = english(&workflow, &agents);
    let history = vec![ChatMessage::new(Role::User, "Ada: Plugins?")];
    let system = env.room_system(Some("<!-- END -->"), Some("!?@human"));
    assert!(
        !agents.iter().any(|a| system.contains(&format!("You are {}", a.name))),
        "the room names no speaker"
    );
    let flat = |m: &[ChatMessage]| m.iter().map(|x| x.content.to_string()).collect::<Vec<_>>().join("\u{0}");
    let a = flat(&env.speaker_messages(PromptLayout::RoomFirst, &system, &agents[0], &history, "note A"));
    let b = flat(&env.speaker_messages(PromptLayout::RoomFirst, &system, &agents[1], &history, "note B"));
    let shared = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let front = system.chars().count() + 1 + "Ada: Plugins?".chars().count();
    assert!(shared >= front, "shared {shared} of a front of {front}");
    assert!(a.ends_with("note A") && a.contains(&format!("You are {}", agents[0].name)));
    // persona_first: the persona opens the system prompt, the rules follow.
    let own = env.speaker_messages(PromptLayout::PersonaFirst, &system, &agents[0], &history, "note A");
    assert!(own[0].content.starts_with(&format!("You are {}", agents[0].name)) && own[0].content.ends_with(&*system));
}

#[test]
fn the_turn_note_points_to_the_next_principle_each_round_and_the_runtime_texts_keep_only_its_frame() {
    let (workflow, agents) = room();
    let env = english(&workflow, &agents);
    let maya = agents.iter().find(|a| a.id == "analyst").expect("the analyst");
    let first = env.turn_instruction(maya, 1, &[], "");
    assert!(
        first.contains("would make. Let it come from what Maya believes (Every claim needs a source or an experiment that could prove it wrong), applied to this topic in Maya's own words, not quoted. Now write"),
        "{first}"
    );
    let later = env.turn_instruction(maya, 2, &["Kofi".to_string()], "");
    assert!(
        later.contains("believes (Understand the problem and who has it before debating solutions),"),
        "{later}"
    );
    // The fourth round takes the first principle again.
    assert!(env.turn_instruction(maya, 4, &[], "").contains("believes (Every claim"));
    let runtime = env.runtime_texts(maya, 1, &[], None, None, None).join("\n");
    assert!(
        runtime.contains(
            "would make. Let it come from what Maya believes (), applied to this topic in Maya's own words, not quoted. Now write"
        ) && !runtime.contains("Every claim"),
        "{runtime}"
    );
    // A persona without principles gets the note as before.
    let mut plain = maya.clone();
    plain.principles = vec![" ".into()];
    assert!(env.turn_instruction(&plain, 1, &[], "").contains("would make. Now write"));
}
