//! The TUI's input and robustness, from the events of a real engine run
//! (offline rehearsal provider) into ratatui's TestBackend: keys, scrolling,
//! pasting, hostile model text. The drawn screens are snapshotted in tui.rs.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use std::time::{Duration, Instant};

use bmad_party::config::Config;
use bmad_party::engine::{Command, Event};
use bmad_party::frontend::tui::app::App;
use bmad_party::frontend::tui::view;
use bmad_party::i18n::Lang;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

use crate::screen;
use screen::*;

#[tokio::test]
async fn scrolling_holds_still_and_marks_new_messages() {
    let (events, _d) = rehearsal_events(&["One", "Two", "Three"], Config::default()).await;
    let split = events
        .iter()
        .position(|e| matches!(e, Event::RoundStarted { round: 3, .. }))
        .unwrap();
    let mut app = app_from(&events[..split]);
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let now = Instant::now();
    t.draw(|f| view::draw(f, &app, now)).unwrap();
    app.scroll(bmad_party::frontend::tui::app::ScrollAction::PageUp);
    t.draw(|f| view::draw(f, &app, now)).unwrap();
    let before: Vec<String> = (1..10).map(|y| row_text(&t, y)).collect();
    for e in &events[split..] {
        app.on_event(e.clone());
    }
    t.draw(|f| view::draw(f, &app, now)).unwrap();
    let after: Vec<String> = (1..10).map(|y| row_text(&t, y)).collect();
    assert_eq!(before[..4], after[..4], "the view does not jump while the reader is scrolled up");
    let screen: String = (0..24).map(|y| row_text(&t, y)).collect::<Vec<_>>().join("\n");
    assert!(screen.contains("new messages ↓"), "{screen}");
    app.scroll(bmad_party::frontend::tui::app::ScrollAction::Bottom);
    t.draw(|f| view::draw(f, &app, now)).unwrap();
    let screen: String = (0..24).map(|y| row_text(&t, y)).collect::<Vec<_>>().join("\n");
    assert!(!screen.contains("new messages ↓"));
}

#[tokio::test]
async fn hostile_model_text_never_reaches_the_terminal_as_control_sequences() {
    let mut app = App::new(Lang::En);
    // As the engine delivers it: the engine strips sequences before events.
    let mut s = bmad_party::text::Sanitizer::new();
    let hostile = "ok \u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J\u{1b}]0;pwned\u{7}\u{9b}31m done\u{202e}";
    let clean = s.push(hostile);
    app.on_event(Event::AgentMessage {
        agent: "x".into(),
        name: "X".into(),
        icon: "".into(),
        round: 1,
        text: clean,
        interrupted: false,
        latency: None,
    });
    let t = render(&app, 60, 20);
    let b = t.backend().buffer();
    for cell in b.content() {
        assert!(
            !cell
                .symbol()
                .chars()
                .any(|c| c.is_control() || ('\u{80}'..='\u{9f}').contains(&c) || c == '\u{202e}'),
            "{:?}",
            cell.symbol()
        );
    }
    let screen: String = (0..20).map(|y| row_text(&t, y)).collect::<Vec<_>>().join("\n");
    assert!(screen.contains("ok  done"), "{screen}");
}

#[tokio::test]
async fn ctrl_c_stops_then_quits() {
    let (events, _d) = rehearsal_events(&["Topic"], Config::default()).await;
    let mut app = app_from(&prefix_until(&events, |e| matches!(e, Event::AgentToken { .. })));
    let t0 = Instant::now();
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    let out = app.on_key(ctrl_c, t0);
    assert_eq!(out.commands, vec![Command::Abort]);
    let t = render(&app, 80, 24);
    assert!(row_text(&t, 23).contains("Press Ctrl+C again"), "{}", row_text(&t, 23));
    let out = app.on_key(ctrl_c, t0 + Duration::from_secs(1));
    assert_eq!(out.commands, vec![Command::Quit]);
}

#[tokio::test]
async fn typing_enter_and_new_lines() {
    let (events, _d) = rehearsal_events(&[], Config::default()).await;
    let mut app = app_from(&events[..2]);
    let mut told = Vec::new();
    for c in "Plugins".chars() {
        told.extend(
            app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE), Instant::now())
                .commands,
        );
    }
    // Before the topic, each key tells the engine what is typed so far
    // (the read-ahead's guess of who opens).
    assert_eq!(told.len(), 7);
    assert_eq!(told.last(), Some(&Command::Draft { text: "Plugins".into() }));
    app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT), Instant::now());
    app.on_key(KeyEvent::new(KeyCode::Char('?'), KeyModifiers::NONE), Instant::now());
    assert_eq!(
        app.input.lines(),
        ["Plugins", "?"],
        "Alt+Enter is a new line; ? types in the input box"
    );
    let out = app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), Instant::now());
    assert_eq!(out.commands, vec![Command::Message { text: "Plugins\n?".into() }]);
    assert!(app.input.is_empty());
    let told = app.on_paste("pasted \u{1b}[31mtext");
    assert_eq!(app.input.lines(), ["pasted text"], "pasted control sequences are stripped");
    assert_eq!(
        told,
        Some(Command::Draft {
            text: "pasted text".into()
        })
    );
}

#[tokio::test]
async fn after_the_topic_typing_tells_no_draft() {
    let (events, _d) = rehearsal_events(&["Topic"], Config::default()).await;
    let mut app = app_from(&events);
    let out = app.on_key(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE), Instant::now());
    assert!(
        out.commands.iter().all(|c| !matches!(c, Command::Draft { .. })),
        "{:?}",
        out.commands
    );
    assert_eq!(app.on_paste("more"), None);
}

#[tokio::test]
async fn a_one_megabyte_paste_is_kept_whole_and_drawn() {
    let (events, _d) = rehearsal_events(&[], Config::default()).await;
    let mut app = app_from(&events[..2]);
    let big: String = "lorem ipsum dolor sit amet ".repeat(40_000);
    assert!(big.len() > 1_000_000);
    let draft = app.on_paste(&big);
    assert!(
        matches!(draft, Some(Command::Draft { text }) if text.len() <= 8_000),
        "a draft is only its start"
    );
    assert_eq!(app.input.lines().join("\n").len(), big.len(), "nothing lost");
    render(&app, 80, 24);
    render(&app, 1, 1);
    let out = app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), Instant::now());
    assert!(matches!(&out.commands[0], Command::Message { text } if text.len() == big.trim().len()));
}

#[tokio::test]
async fn a_named_party_titles_the_screen_and_context_attaches_in_the_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("brief.md");
    std::fs::write(&doc, "The launch is on the 14th.").unwrap();
    let attach = format!("/context {}", doc.display());
    let events = rehearsal_in(dir.path(), &["Launch?", &attach], Config::default(), None).await;
    let mut events = events;
    for e in &mut events {
        if let Event::SessionStarted { party, .. } = e {
            *party = Some("Launch crew".into());
        }
    }
    let app = app_from(&events);
    let t = render(&app, 100, 30);
    assert!(row_text(&t, 0).contains("Launch crew · Launch?"), "{}", row_text(&t, 0));
    assert!(
        app.transcript
            .entries()
            .iter()
            .any(|e| e.text.starts_with("📎 brief.md is in front of the room")),
        "the notice is in the transcript"
    );
    assert_eq!(app.topic.as_deref(), Some("Launch?"), "the attachment is no message to the room");
}
