//! `/cast` in the room, end to end against the loopback OpenAI server: a
//! cast drafted for the session's topic, reviewed by steps sent as
//! commands and as typed lines (drop, edit, ask one again, a bad place),
//! kept: saved as agent files and a party file, and the room switches to
//! it and speaks with it. Quit, Ctrl+C and a topic-less `/cast` save
//! nothing.

use crate::common;

use bmad_party::engine::{CastReview, Command, DraftView, Event, InputKind};
use bmad_party::testing::{stream_of, FakeOpenAi, Recorded, Reply};
use common::*;

fn persona(name: &str, title: &str, role: &str, identity: &str) -> serde_json::Value {
    serde_json::json!({
        "name": name, "title": title, "icon": "🥐",
        "role": role, "identity": identity,
        "communication_style": "Plain and short.",
        "principles": ["Fresh bread first", "Say what it costs"],
    })
}

fn bakery() -> String {
    serde_json::json!({
        "name": "Bakery hours",
        "scene": "Saturday, six in the morning, before the doors open.",
        "personas": [
            persona("Ana", "Baker", "Bakes from four in the morning and sells out by noon.", "Has run the ovens for twenty years."),
            persona("Bo", "Nurse", "Finishes night shifts when every shop is still shut.", "Works at the hospital across the river."),
            persona("Cy", "Owner", "Pays the rent and the wages out of thin margins.", "Bought the shop after the old owner retired."),
            persona("Dee", "Regular", "Buys a loaf on the way to work each weekday.", "Lives two streets away with three children."),
        ],
    })
    .to_string()
}

fn schema_of(r: &Recorded) -> String {
    r.body.get("response_format").map(|f| f.to_string()).unwrap_or_default()
}

fn is_cast(r: &Recorded) -> bool {
    schema_of(r).contains("\"personas\"")
}

fn is_one(r: &Recorded) -> bool {
    !is_cast(r) && schema_of(r).contains("\"communication_style\"")
}

/// The loopback model: a bakery cast for a cast, Eli for one persona,
/// a point of its own for every other call.
async fn server() -> FakeOpenAi {
    FakeOpenAi::start(|r, _| {
        if is_cast(r) {
            stream_of(&bakery())
        } else if is_one(r) {
            let eli = persona(
                "Eli",
                "Courier",
                "Delivers bread to the cafés before seven.",
                "Rides a cargo bike in every weather.",
            );
            stream_of(&eli.to_string())
        } else {
            stream_of("A point of my own about the hours.")
        }
    })
    .await
}

fn drafts(events: &[Event]) -> Vec<(DraftView, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::CastDraft { draft, note, .. } => Some((draft.clone(), note.clone())),
            _ => None,
        })
        .collect()
}

/// Each review's end: the kept party's id, None when nothing was saved.
fn closed(events: &[Event]) -> Vec<Option<String>> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::CastClosed { party, .. } => Some(party.clone()),
            _ => None,
        })
        .collect()
}

fn names(d: &DraftView) -> Vec<&str> {
    d.personas.iter().map(|p| p.persona.name.as_str()).collect()
}

fn files(dir: &std::path::Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

fn step(review: CastReview) -> Step {
    Step::Cmd(Command::Cast {
        request_id: "cast-1".into(),
        review,
    })
}

#[tokio::test]
async fn a_cast_drafted_in_the_party_is_reviewed_kept_saved_and_the_room_switches_to_it() {
    let server = server().await;
    let party = Party::new(&server);
    let events = party
        .run(vec![
            Step::Say("When should the bakery open on weekdays?"),
            Step::Say("/cast"),
            step(CastReview::Drop(3)),
            Step::Say("edit 1 name Maya"),
            Step::Say("drop 9"),
            step(CastReview::Again(1)),
            Step::Cmd(Command::Cast {
                request_id: "cast-7".into(),
                review: CastReview::Keep,
            }),
            step(CastReview::Scene("A street meeting on a Sunday.".into())),
            step(CastReview::Keep),
            Step::Say("And on Sundays?"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    let drafts = drafts(&events);
    // Drafted for the session's topic, then shown after every step.
    let cast_call = server.received().into_iter().find(is_cast).expect("a cast was asked for");
    assert!(cast_call.prompt_text().contains("When should the bakery open on weekdays?"));
    assert_eq!(names(&drafts[0].0), ["Ana", "Bo", "Cy", "Dee"]);
    assert_eq!(names(&drafts[1].0), ["Ana", "Bo", "Cy"], "drop 4 (counted from 0: 3)");
    assert_eq!(drafts[1].1.as_deref(), Some("Dee is left out."));
    assert_eq!(names(&drafts[2].0), ["Maya", "Bo", "Cy"], "a typed review line");
    assert!(
        drafts[3].1.as_deref().is_some_and(|n| n.contains("`9`: there are personas 1 to 3")),
        "{:?}",
        drafts[3].1
    );
    let one = server.received().into_iter().find(is_one).expect("one persona asked again");
    assert!(
        one.prompt_text().contains("Maya") && one.prompt_text().contains("Cy"),
        "the others are named"
    );
    assert_eq!(names(&drafts[4].0), ["Maya", "Eli", "Cy"]);
    assert_eq!(drafts[4].1.as_deref(), Some("Eli in place of Bo."));
    assert!(rejected(&events).iter().any(|m| m.contains("cast-7")), "{:?}", rejected(&events));
    assert_eq!(drafts.last().unwrap().0.scene, "A street meeting on a Sunday.");
    // The review asked for its steps as review input.
    assert!(events.iter().any(|e| matches!(e, Event::AwaitingInput { kind: InputKind::Review })));

    // Saved: three agents and a party, Maya under her title.
    let config = party.config_dir();
    assert_eq!(files(&config.join("agents")), ["cy.md", "eli.md", "maya-baker.md"]);
    assert_eq!(files(&config.join("parties")), ["bakery-hours.yaml"]);
    let notes = notices(&events);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("Maya is already someone in the program: saved as Maya (Baker)")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("Saved “Bakery hours” (--party bakery-hours), 3 agents")),
        "{notes:?}"
    );
    assert_eq!(closed(&events), [Some("bakery-hours".into())]);

    // The room is the new party, and it speaks.
    let switched = events.iter().rev().find_map(|e| match e {
        Event::RoomChanged { agents, party, .. } => Some((agents.clone(), party.clone())),
        _ => None,
    });
    let (agents, name) = switched.expect("the room changed");
    assert_eq!(name.as_deref(), Some("Bakery hours"));
    let speakers: Vec<&str> = agents.iter().filter(|a| !a.moderator).map(|a| a.id.as_str()).collect();
    assert_eq!(speakers, ["maya-baker", "eli", "cy"]);
    let rounds = rounds(&events);
    assert!(
        rounds.last().unwrap().iter().all(|id| speakers.contains(&id.as_str())),
        "{rounds:?}"
    );
    assert!(server.received().iter().any(|r| speaker(r) == "Eli"), "Eli is asked for a turn");
    let saved = load(&session_file(&events)).fm;
    assert_eq!(saved.party.as_deref(), Some("bakery-hours"));
    assert!(saved.cast.iter().any(|c| c.id == "eli"), "the newcomers are in the session's cast");
}

#[tokio::test]
async fn quit_ctrl_c_and_a_cast_with_no_topic_save_nothing() {
    let server = server().await;
    let party = Party::new(&server);
    let events = party
        .run(vec![
            // Before the topic: a cast needs one.
            Step::Say("/cast"),
            Step::Say("/cast Opening hours of a village bakery"),
            Step::Say("dance"),
            Step::Cmd(Command::Continue),
            Step::Say("quit"),
            Step::Say("/cast --from Opening hours"),
            Step::Say("/cast Opening hours of a village bakery"),
            Step::Cmd(Command::Abort),
            Step::Say("When should the bakery open?"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    let refused = rejected(&events);
    assert!(refused.iter().any(|m| m.contains("/cast needs a topic")), "{refused:?}");
    assert!(
        refused.iter().any(|m| m.contains("no document is in front of the room")),
        "{refused:?}"
    );
    let notes: Vec<String> = drafts(&events).into_iter().filter_map(|d| d.1).collect();
    assert!(notes.iter().any(|n| n.contains("`dance`: not a review command")), "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("a cast is under review")), "{notes:?}");
    assert_eq!(closed(&events), [None, None], "quit, then Ctrl+C");
    assert!(notices(&events).iter().any(|n| n == "Nothing was saved."));
    assert!(!party.config_dir().exists(), "nothing on disk");
    // The party went on with its own room.
    assert_eq!(rounds(&events).len(), 1);
}

#[tokio::test]
async fn ctrl_c_stops_the_drafting_and_the_party_goes_on() {
    let server = FakeOpenAi::start(|r, _| {
        if is_cast(r) {
            Reply::Hang
        } else {
            stream_of("A point of my own about the hours.")
        }
    })
    .await;
    let party = Party::new(&server);
    let events = party
        .run(vec![
            Step::Say("When should the bakery open?"),
            Step::Send(Command::Message { text: "/cast".into() }),
            Step::Wait(std::time::Duration::from_millis(300)),
            Step::Cmd(Command::Abort),
            Step::Say("And on Sundays?"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    let notes = notices(&events);
    assert!(notes.iter().any(|n| n.starts_with("Drafting a cast of 4")), "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("Stopped")), "{notes:?}");
    assert!(drafts(&events).is_empty());
    assert_eq!(rounds(&events).len(), 2, "the party goes on");
}

#[tokio::test]
async fn quitting_the_review_while_someone_is_asked_for_again_closes_it() {
    let server = FakeOpenAi::start(|r, _| {
        if is_cast(r) {
            stream_of(&bakery())
        } else if is_one(r) {
            Reply::Hang
        } else {
            stream_of("A point of my own about the hours.")
        }
    })
    .await;
    let party = Party::new(&server);
    let events = party
        .run(vec![
            Step::Say("When should the bakery open?"),
            Step::Say("/cast"),
            Step::Send(Command::Cast {
                request_id: "cast-1".into(),
                review: CastReview::Again(0),
            }),
            Step::Wait(std::time::Duration::from_millis(300)),
            step(CastReview::Quit),
            Step::Say("And on Sundays?"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    assert!(server.received().iter().any(is_one), "Ana was asked for again");
    assert_eq!(closed(&events), [None]);
    assert_eq!(drafts(&events).len(), 1, "the draft was not shown again");
    assert!(!party.config_dir().exists());
    assert_eq!(rounds(&events).len(), 2, "the party goes on");
}

#[tokio::test]
async fn the_time_a_cast_takes_is_no_idle_time_for_the_push() {
    let server = FakeOpenAi::start(|r, _| {
        if is_cast(r) {
            Reply::ReadsPrompt {
                wait: std::time::Duration::from_millis(1500),
                events: bmad_party::testing::events_of(&bakery()),
            }
        } else {
            stream_of("A point of my own about the hours.")
        }
    })
    .await;
    let mut party = Party::new(&server);
    party.config.party.diligence.idle_seconds = 1;
    let events = party
        .run(vec![
            Step::Say("When should the bakery open?"),
            Step::Say("/cast"),
            Step::Say("quit"),
            Step::Say("And on Sundays?"),
            Step::Cmd(Command::Quit),
        ])
        .await;
    assert_eq!(drafts(&events).len(), 1);
    let pushed = events.iter().filter(|e| matches!(e, Event::DiligencePush { .. })).count();
    assert_eq!(pushed, 0, "the facilitator was reviewing, not idle");
    assert_eq!(rounds(&events).len(), 2);
}

#[tokio::test]
async fn the_review_answers_typing_and_refuses_a_place_out_of_range_and_an_emptied_field() {
    let server = server().await;
    let party = Party::new(&server);
    let events = party
        .run(vec![
            Step::Say("When should the bakery open?"),
            Step::Say("/cast"),
            // Typing asks for the next step again (a headless driver waits
            // for it), and shows nothing new.
            Step::Cmd(Command::Typing),
            step(CastReview::Drop(usize::MAX)),
            step(CastReview::Edit {
                at: 0,
                field: bmad_party::engine::CastField::Title,
                text: "  ".into(),
            }),
            Step::Say("edit 2 name **"),
            step(CastReview::Keep),
            Step::Cmd(Command::Quit),
        ])
        .await;
    let drafts = drafts(&events);
    assert_eq!(drafts.len(), 4, "the first, then one for each refused step");
    let notes: Vec<String> = drafts.iter().filter_map(|d| d.1.clone()).collect();
    assert!(notes[0].ends_with("there are personas 1 to 4"), "{notes:?}");
    assert_eq!(notes[1], "Ana: `title` is missing or empty");
    assert_eq!(notes[2], "#2: `name` is missing or empty");
    let last = &drafts[3].0;
    assert_eq!(
        (last.personas[0].persona.title.as_str(), last.personas[1].persona.name.as_str()),
        ("Baker", "Bo")
    );
    // Kept as it stood: every file reads back.
    assert_eq!(files(&party.config_dir().join("agents")).len(), 4);
}
