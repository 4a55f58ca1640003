//! The full-screen view, rendered into ratatui's TestBackend from the events
//! of a real engine run (offline rehearsal provider), snapshotted with insta.
//! Styles that carry meaning (the status bar's colours) are asserted on the
//! buffer, not only the symbols.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use std::time::{Duration, Instant};

use bmad_party::config::Config;
use bmad_party::engine::{CastReview, Command, Event, Phase, Status};
use bmad_party::frontend::tui::app::{App, Focus, Modal};
use bmad_party::frontend::tui::view;
use bmad_party::session::ConfirmKind;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Color;
use ratatui::Terminal;

use crate::screen;
use screen::*;

/// insta names the snapshot after the file that calls it: this one.
fn snapshot(name: &str, t: &Terminal<TestBackend>) {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\d{4}-\d{2}-\d{2}-\d{6}", "YYYY-MM-DD-HHMMSS");
    settings.add_filter(r"/tmp/\.tmp[A-Za-z0-9]+", "/tmp/DIR");
    // Timings depend on the machine: the round's clock and a reply's speed.
    settings.add_filter(r"⏱ \d\d:\d\d", "⏱ MM:SS");
    // The session's clock in a rehearsal's first seconds: a loaded machine
    // takes one more to reach the screen taken. A clock a test sets (25:10)
    // stays as it is.
    settings.add_filter(r"\b00:0\d/(\d\d:\d\d)\b", "00:0S/$1");
    settings.add_filter(r" · (first token )?\d[^│┃]*([│┃])", " · TIMING $2");
    settings.bind(|| insta::assert_snapshot!(name, t.backend()));
}

#[tokio::test]
async fn welcome_screen() {
    let (events, _d) = rehearsal_events(&[], Config::default()).await;
    let welcome = prefix_until(&events, |e| matches!(e, Event::Welcome { .. }));
    let app = app_from(&welcome);
    let t = render(&app, 80, 24);
    snapshot("welcome_80x24", &t);
    assert!(row_text(&t, 0).contains("OFFLINE REHEARSAL"));
    assert!(app.agents.iter().all(|a| a.model.is_none()), "a room of one model names none");
}

#[tokio::test]
async fn round_with_three_panes_mid_stream() {
    let (events, _d) = rehearsal_events(
        &["How should we design a plugin system and its public APIs for third parties?"],
        Config::default(),
    )
    .await;
    // Stop once the second agent has streamed a few tokens: first done,
    // second streaming, third queued.
    let mut started = 0;
    let mut tokens_after = 0;
    let prefix = prefix_until(&events, |e| {
        match e {
            Event::AgentStarted { .. } => started += 1,
            Event::AgentToken { .. } if started == 2 => tokens_after += 1,
            _ => {}
        }
        // A pane fills a sentence at a time (reply hygiene judges whole ones).
        started == 2 && tokens_after == 2
    });
    let app = app_from(&prefix);
    assert_eq!(app.panes.len(), 3, "three agents this round");
    let t = render(&app, 100, 30);
    snapshot("round_three_panes_100x30", &t);
    let screen = screen_text(&t);
    assert!(
        screen.contains("done") && screen.contains("streaming") && screen.contains("queued"),
        "{screen}"
    );
}

fn status(round: u32, active: u64, phase: Phase) -> Event {
    Event::Status(Status {
        phase,
        round,
        max_rounds: 10,
        warn_at_rounds: 8,
        active_seconds: active,
        max_seconds: 1800,
        warn_at_seconds: 1500,
        clock_running: true,
        tokens: 12_345,
        pending_requests: 0,
        consensus: Some(0.62),
        push_used: 1,
        push_budget: 3,
        awaiting_answer_from: None,
        muted: Vec::new(),
        only: Vec::new(),
    })
}

/// The background colour of the status bar cell under `needle`.
fn status_bg(t: &Terminal<TestBackend>, needle: &str) -> Color {
    let y = t.backend().buffer().area.height - 1;
    let row = row_text(t, y);
    let byte = row.find(needle).unwrap_or_else(|| panic!("`{needle}` in `{row}`"));
    let x = row[..byte].chars().count() as u16;
    t.backend().buffer()[(x + 1, y)].bg
}

#[tokio::test]
async fn status_bar_normal_amber_red() {
    let (events, _d) = rehearsal_events(&["Topic"], Config::default()).await;
    let base = prefix_until(&events, |e| matches!(e, Event::RoundFinished { .. }));
    let amber = Color::Rgb(255, 176, 0);

    let mut app = app_from(&base);
    app.on_event(status(3, 600, Phase::Waiting));
    let t = render(&app, 80, 24);
    snapshot("status_normal", &t);
    assert_eq!(status_bg(&t, "Round 3/10"), Color::Reset);
    assert_eq!(status_bg(&t, "10:00/30:00"), Color::Reset);
    assert!(row_text(&t, 23).contains("12.3k tok"));

    app.on_event(status(8, 1510, Phase::Waiting));
    let t = render(&app, 80, 24);
    snapshot("status_amber", &t);
    assert_eq!(status_bg(&t, "Round 8/10 ⚠"), amber);
    assert_eq!(status_bg(&t, "25:10/30:00"), amber);

    app.on_event(status(10, 1800, Phase::Waiting));
    let t = render(&app, 80, 24);
    snapshot("status_red", &t);
    assert_eq!(status_bg(&t, "Round 10/10"), Color::Red);
    assert_eq!(status_bg(&t, "30:00/30:00"), Color::Red);
}

#[tokio::test]
async fn the_clock_ticks_between_events() {
    let (events, _d) = rehearsal_events(&["Topic"], Config::default()).await;
    let mut app = app_from(&prefix_until(&events, |e| matches!(e, Event::RoundFinished { .. })));
    app.on_event(status(1, 59, Phase::Waiting));
    let later = app.status_at + Duration::from_secs(2);
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| view::draw(f, &app, later)).unwrap();
    assert!(row_text(&t, 23).contains("01:01/30:00"), "{}", row_text(&t, 23));
}

#[tokio::test]
async fn modals_exit_end_proposal_and_limits() {
    let mut cfg = Config::default();
    cfg.party.max_rounds = 5;
    cfg.party.warn_at_rounds = 3;
    let (events, _d) = rehearsal_events(&["Topic", "Two", "Three", "Four"], cfg).await;

    // End proposal (the rehearsal proposes at round 4).
    let upto = prefix_until(&events, |e| {
        matches!(
            e,
            Event::ConfirmationRequest {
                kind: ConfirmKind::EndProposal,
                ..
            }
        )
    });
    let mut app = app_from(&upto);
    assert!(matches!(app.modals.front(), Some(Modal::Proposal(_))));
    let t = render(&app, 80, 24);
    snapshot("modal_end_proposal", &t);

    // The modal takes every key: typing goes into its field, not the input box.
    for c in "more".chars() {
        app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE), Instant::now());
    }
    assert!(app.input.lines().join("").is_empty());
    let out = app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), Instant::now());
    assert_eq!(out.commands, vec![Command::Message { text: "more".into() }]);
    assert!(app.modals.is_empty());

    // Exit confirmation from the menu keys.
    let mut app = app_from(&prefix_until(&events, |e| matches!(e, Event::RoundFinished { round: 1, .. })));
    app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE), Instant::now());
    assert_eq!(app.focus, Focus::Menu);
    let t = render(&app, 80, 24);
    assert!(row_text(&t, 23).contains("[E] Exit"), "menu hints: {}", row_text(&t, 23));
    app.on_key(KeyEvent::new(KeyCode::Char('E'), KeyModifiers::NONE), Instant::now());
    let t = render(&app, 80, 24);
    snapshot("modal_exit", &t);
    let out = app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), Instant::now());
    assert_eq!(out.commands, vec![Command::Exit]);

    // Limit reached: a round-limit request, then a time-limit one queued behind it.
    let mut app = app_from(&prefix_until(&events, |e| matches!(e, Event::RoundFinished { round: 1, .. })));
    app.on_event(Event::ConfirmationRequest {
        request_id: "req-7".into(),
        kind: ConfirmKind::RoundLimit,
        text: "The room has used all 5 rounds. End the party now, or continue for 3 more rounds?".into(),
        extend: Some(3),
    });
    app.on_event(Event::ConfirmationRequest {
        request_id: "req-8".into(),
        kind: ConfirmKind::TimeLimit,
        text: "The party has used its 30 minutes. End now, or continue for 5 more minutes?".into(),
        extend: Some(5),
    });
    let t = render(&app, 80, 24);
    snapshot("modal_round_limit", &t);
    app.on_key(KeyEvent::new(KeyCode::Right, KeyModifiers::NONE), Instant::now());
    app.on_key(KeyEvent::new(KeyCode::Char('+'), KeyModifiers::NONE), Instant::now());
    let out = app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), Instant::now());
    assert_eq!(
        out.commands,
        vec![Command::Answer {
            request_id: "req-7".into(),
            confirmed: false,
            reason: None,
            extend: Some(4)
        }]
    );
    let t = render(&app, 80, 24);
    snapshot("modal_time_limit", &t);
    let out = app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), Instant::now());
    assert_eq!(
        out.commands,
        vec![Command::Answer {
            request_id: "req-8".into(),
            confirmed: true,
            reason: None,
            extend: None
        }]
    );
}

#[tokio::test]
async fn help_overlay() {
    let (events, _d) = rehearsal_events(&["Topic"], Config::default()).await;
    let mut app = app_from(&prefix_until(&events, |e| matches!(e, Event::RoundFinished { .. })));
    app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE), Instant::now());
    app.on_key(KeyEvent::new(KeyCode::Char('?'), KeyModifiers::NONE), Instant::now());
    let t = render(&app, 80, 24);
    snapshot("help_overlay", &t);
    // Taller than 24 rows: it scrolls to its last rows, the typed commands.
    let screen = |t: &Terminal<TestBackend>| (0..24).map(|y| row_text(t, y)).collect::<Vec<_>>().join("\n");
    assert!(!screen(&t).contains("Push budget spent"));
    for _ in 0..20 {
        app.on_key(KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE), Instant::now());
    }
    let t = render(&app, 80, 24);
    let text = screen(&t);
    assert!(
        text.contains("/pin [NAME]") && text.contains("/only alone takes it back"),
        "the last rows: {text}"
    );
    assert!(app.help, "scrolling keeps the help open");
    app.on_key(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE), Instant::now());
    assert!(!app.help);
}

#[tokio::test]
async fn final_screen() {
    let (events, _d) = rehearsal_events(&["Topic", "*exit"], Config::default()).await;
    let mut app = app_from(&events);
    assert!(app.ended.is_some());
    let t = render(&app, 80, 24);
    snapshot("final_screen", &t);
    let screen: String = (0..24).map(|y| row_text(&t, y)).collect::<Vec<_>>().join("\n");
    assert!(
        screen.contains("Session saved to") && screen.contains("H: keep it as a web page") && screen.contains("any other key quits"),
        "{screen}"
    );
    let out = app.on_key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE), Instant::now());
    assert!(out.quit);
}

#[tokio::test]
async fn small_and_tiny_terminals() {
    let (events, _d) = rehearsal_events(&["Topic"], Config::default()).await;
    let app = app_from(&prefix_until(&events, |e| matches!(e, Event::AgentToken { .. })));
    let t = render(&app, 60, 20);
    snapshot("size_60x20", &t);
    let t = render(&app, 20, 5);
    snapshot("size_20x5", &t);
    for (w, h) in [(1, 1), (2, 1), (1, 3), (39, 11), (40, 12), (41, 13), (200, 60)] {
        render(&app, w, h);
    }
}

#[tokio::test]
async fn turn_reset_budget_and_consensus_modals() {
    let (events, _d) = rehearsal_events(&["Topic"], Config::default()).await;
    let base = prefix_until(&events, |e| matches!(e, Event::RoundFinished { .. }));

    let mut app = app_from(&base);
    app.on_event(Event::TurnConfirmationRequest(bmad_party::engine::TurnConfirmationRequest {
        request_id: "req-2".into(),
        message: "重置对话".into(),
        description: Some("The round counter and the agents' memory of this conversation restart; the transcript keeps everything so far above a divider.".into()),
    }));
    for c in "new subject".chars() {
        app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE), Instant::now());
    }
    let t = render(&app, 80, 24);
    snapshot("modal_turn_reset", &t);
    let out = app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), Instant::now());
    assert_eq!(
        out.commands,
        vec![Command::TurnConfirmationResponse(bmad_party::engine::TurnConfirmationResponse {
            request_id: "req-2".into(),
            confirmed: true,
            reason: Some("new subject".into())
        })]
    );

    let mut app = app_from(&base);
    app.on_event(Event::TurnConfirmationRequest(bmad_party::engine::TurnConfirmationRequest {
        request_id: "req-3".into(),
        message: "clear".into(),
        description: None,
    }));
    app.on_key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE), Instant::now());
    let out = app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), Instant::now());
    assert!(
        matches!(&out.commands[0], Command::TurnConfirmationResponse(r) if !r.confirmed && r.reason.is_none()),
        "Tab selects reject"
    );

    let mut app = app_from(&base);
    app.on_event(Event::ConfirmationRequest { request_id: "req-4".into(), kind: ConfirmKind::BudgetExhausted, text: "🤖 The room has carried on by itself 3 times while you were quiet. Keep it going on its own (Enter), or stop the automatic pushes until you write (Esc / type a message)?".into(), extend: None });
    let t = render(&app, 80, 24);
    snapshot("modal_push_budget", &t);
    let out = app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE), Instant::now());
    assert_eq!(
        out.commands,
        vec![Command::Answer {
            request_id: "req-4".into(),
            confirmed: false,
            reason: None,
            extend: None
        }]
    );

    let mut app = app_from(&base);
    app.on_event(Event::ConfirmationRequest { request_id: "req-5".into(), kind: ConfirmKind::Consensus, text: "🤝 You asked \"Are we all agreed on Compass?\", and the room agrees. End the party now? Press Enter to end, or type a message to keep going.".into(), extend: None });
    let t = render(&app, 80, 24);
    snapshot("modal_consensus", &t);
    let out = app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), Instant::now());
    assert_eq!(
        out.commands,
        vec![Command::Answer {
            request_id: "req-5".into(),
            confirmed: true,
            reason: None,
            extend: None
        }]
    );
}

#[tokio::test]
async fn an_agent_question_shows_in_transcript_pane_and_status_bar() {
    // The rehearsal's first speaker asks the facilitator in round 2.
    let (events, _d) = rehearsal_events(&["One", "Two", "Three"], Config::default()).await;
    let upto = prefix_until(&events, |e| matches!(e, Event::Status(s) if s.awaiting_answer_from.is_some()));
    let app = app_from(&upto);
    let t = render(&app, 100, 30);
    snapshot("agent_question_100x30", &t);
    let screen = screen_text(&t);
    assert!(screen.contains("asks: What matters more to you here: speed or safety?"), "{screen}");
    assert!(screen.contains("waiting for facilitator"), "the pane says so: {screen}");
    assert!(row_text(&t, 29).contains("asks you"), "{}", row_text(&t, 29));
}

#[tokio::test]
async fn a_server_that_is_down_is_waited_for_on_the_pane_and_the_status_bar() {
    let (events, _d) = rehearsal_events(&["How do we keep the on-call rotation fair?"], Config::default()).await;
    let mut started = 0;
    let mut upto = prefix_until(&events, |e| {
        if let Event::AgentStarted { .. } = e {
            started += 1;
        }
        started == 2
    });
    let second = match upto.last() {
        Some(Event::AgentStarted { agent, .. }) => agent.clone(),
        _ => unreachable!(),
    };
    upto.push(Event::ServerWaiting {
        agent: second,
        waited_ms: 0,
        window_ms: 60_000,
        cause: "cannot connect: Connection refused".into(),
    });
    let mut app = app_from(&upto);
    // As on a local server whose model was chosen from its list.
    app.rehearsal = false;
    app.provider = "openai".into();
    app.server = Some("localhost:11434".into());
    app.on_event(Event::ModelChosen {
        model: "llama3.2:latest".into(),
    });
    let down = app.server_down_since.expect("the wait is known");
    // The clock shows the wait alone, however long a loaded machine took
    // to reach this screen.
    if let Some(s) = app.status.as_mut() {
        s.active_seconds = 0;
    }
    let mut t = Terminal::new(TestBackend::new(100, 30)).unwrap();
    t.draw(|f| view::draw(f, &app, down + Duration::from_secs(12))).unwrap();
    snapshot("server_down_100x30", &t);
    let screen = screen_text(&t);
    assert!(
        screen.contains("openai · llama3.2:latest"),
        "the header names the chosen model: {screen}"
    );
    assert!(
        screen.contains("│waiting for the server at localhost:11434 (12 s)│"),
        "the pane: {screen}"
    );
    assert!(screen.contains("waiting for localhost:11434 (12 s)"), "the status bar: {screen}");
    // The first token after the outage: the wait is over everywhere.
    let mut app = app;
    app.on_event(Event::AgentToken {
        agent: match &upto[upto.len() - 2] {
            Event::AgentStarted { agent, .. } => agent.clone(),
            _ => unreachable!(),
        },
        text: "Back. ".into(),
    });
    let mut t = Terminal::new(TestBackend::new(100, 30)).unwrap();
    t.draw(|f| view::draw(f, &app, down + Duration::from_secs(13))).unwrap();
    let screen = screen_text(&t);
    assert!(!screen.contains("waiting for the server"), "{screen}");
}

#[tokio::test]
async fn a_resumed_session_shows_its_earlier_turns_with_the_view_at_the_bottom() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.party.max_rounds = 60;
    config.party.warn_at_rounds = 58;
    let messages: Vec<String> = (1..=30).map(|i| format!("Point {i}: what do we settle next?")).collect();
    let refs: Vec<&str> = messages.iter().map(String::as_str).collect();
    let first = rehearsal_in(dir.path(), &refs, config.clone(), None).await;
    let file = first
        .iter()
        .find_map(|e| match e {
            Event::SessionFile { path } => Some(std::path::PathBuf::from(path)),
            _ => None,
        })
        .unwrap();
    let said = bmad_party::session::load(&file).unwrap().turns;
    assert!(said.len() > 60, "{} turns", said.len());

    // Resumed: stop as soon as it waits for the facilitator.
    let again = rehearsal_in(dir.path(), &[], config, Some(&file)).await;
    let upto = prefix_until(&again, |e| matches!(e, Event::AwaitingInput { .. }));
    let app = app_from(&upto);
    // Every earlier turn is in the transcript, then the divider, then the
    // resumed notice.
    assert!(
        app.transcript.entries().len() > said.len(),
        "{} entries",
        app.transcript.entries().len()
    );
    let last_agent = said.iter().rev().find(|t| t.kind == bmad_party::session::TurnKind::Agent).unwrap();
    assert!(app.transcript.entries().iter().any(|e| e.text == last_agent.text));
    assert!(!app.transcript.scrolled(), "the view follows the end");
    let t = render(&app, 100, 30);
    let screen = screen_text(&t);
    assert!(screen.contains("this sitting begins here"), "{screen}");
    assert!(screen.contains("Resuming"), "{screen}");
    assert!(!screen.contains("Point 2:"), "the top of the session is scrolled away: {screen}");
}

/// A parallel round mid-way, from events as the engine sends them: the
/// three panes stream at once, the third finished first.
#[tokio::test]
async fn parallel_panes_stream_side_by_side_and_the_transcript_keeps_the_speaking_order() {
    let (events, _d) = rehearsal_events(&["Plugins?"], Config::default()).await;
    let opening = prefix_until(&events, |e| matches!(e, Event::FacilitatorMessage { .. }));
    let mut app = app_from(&opening);
    let ids: Vec<String> = app.agents.iter().take(3).map(|a| a.id.clone()).collect();
    let token = |i: usize, text: &str| Event::AgentToken {
        agent: ids[i].clone(),
        text: text.into(),
    };
    let done = |i: usize, text: &str| Event::AgentMessage {
        agent: ids[i].clone(),
        name: String::new(),
        icon: String::new(),
        round: 1,
        text: text.into(),
        interrupted: false,
        latency: None,
    };
    let mut live = vec![Event::RoundStarted {
        round: 1,
        max_rounds: 10,
        agents: ids.clone(),
        continued: false,
    }];
    live.extend((0..3).map(|i| Event::AgentStarted {
        agent: ids[i].clone(),
        round: 1,
    }));
    live.extend([
        token(0, "First speaker, "),
        token(2, "Third speaker, short."),
        token(1, "Second speaker, "),
        done(2, "Third speaker, short."),
        token(0, "still going."),
        done(0, "First speaker, still going."),
        token(1, "halfway "),
    ]);
    for e in live {
        app.on_event(e);
    }
    let t = render(&app, 100, 30);
    snapshot("parallel_panes_100x30", &t);
    let screen = screen_text(&t);
    assert!(screen.contains("streaming"), "the second still streams: {screen}");
    assert_eq!(screen.matches("done").count(), 2, "{screen}");
    let said: Vec<&str> = app
        .transcript
        .entries()
        .iter()
        .filter(|e| e.text.ends_with("speaker, short.") || e.text.ends_with("still going."))
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(
        said,
        ["First speaker, still going.", "Third speaker, short."],
        "the first speaker's reply stands before the third's, though it finished later"
    );
    // The second finishes last and takes its place between them.
    app.on_event(done(1, "Second speaker, halfway there."));
    let order: Vec<&str> = app
        .transcript
        .entries()
        .iter()
        .filter(|e| e.text.contains(" speaker, "))
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(
        order,
        [
            "First speaker, still going.",
            "Second speaker, halfway there.",
            "Third speaker, short."
        ]
    );
}

/// A room of several models: each pane's title and each reply's heading in
/// the transcript name the model that speaks.
#[tokio::test]
async fn a_room_of_several_models_names_the_model_on_each_pane_and_reply() {
    let (events, _d) = rehearsal_events(&["Plugins?"], Config::default()).await;
    let mut opening = prefix_until(&events, |e| matches!(e, Event::FacilitatorMessage { .. }));
    let models = ["gpt-4o-mini", "llama3.2", "llama3.2"];
    for e in &mut opening {
        if let Event::SessionStarted { agents, .. } = e {
            for (a, m) in agents.iter_mut().zip(models) {
                a.model = Some(m.into());
            }
        }
    }
    let mut app = app_from(&opening);
    let ids: Vec<String> = app.agents.iter().take(2).map(|a| a.id.clone()).collect();
    let mut live = vec![Event::RoundStarted {
        round: 1,
        max_rounds: 10,
        agents: ids.clone(),
        continued: false,
    }];
    live.extend(ids.iter().map(|id| Event::AgentStarted {
        agent: id.clone(),
        round: 1,
    }));
    live.extend([
        Event::AgentToken {
            agent: ids[1].clone(),
            text: "Local and quick.".into(),
        },
        Event::AgentMessage {
            agent: ids[1].clone(),
            name: String::new(),
            icon: String::new(),
            round: 1,
            text: "Local and quick.".into(),
            interrupted: false,
            latency: None,
        },
        Event::AgentToken {
            agent: ids[0].clone(),
            text: "Hosted, and ".into(),
        },
    ]);
    for e in live {
        app.on_event(e);
    }
    let t = render(&app, 100, 30);
    snapshot("several_models_100x30", &t);
    let screen = screen_text(&t);
    assert!(screen.contains("[gpt-4o-mini]") && screen.contains("[llama3.2]"), "{screen}");
    assert_eq!(screen.matches("[llama3.2]").count(), 2, "the pane and the reply: {screen}");
}

#[tokio::test]
async fn the_status_bar_names_a_pending_only_and_the_muted() {
    let (events, _d) = rehearsal_events(&["Topic"], Config::default()).await;
    let base = prefix_until(&events, |e| matches!(e, Event::RoundFinished { .. }));
    let mut app = app_from(&base);
    let Event::Status(mut s) = status(3, 600, Phase::Waiting) else {
        unreachable!("a status")
    };
    s.muted = vec!["developer".into()];
    s.only = vec!["analyst".into(), "architect".into()];
    app.on_event(Event::Status(s));
    // (A wide character takes two cells: the row shows a space after it.)
    let t = render(&app, 160, 24);
    let row = row_text(&t, 23);
    assert!(row.contains("only Maya, Ingrid │") && row.contains(" Kofi │"), "{row}");
    // Narrower, the pending `only` stays and the muted go first.
    let t = render(&app, 100, 24);
    let row = row_text(&t, 23);
    assert!(row.contains("only Maya, Ingrid │") && !row.contains("Kofi"), "{row}");
}

#[tokio::test]
async fn the_roster_modal_lists_who_is_in_and_out_and_sends_room_commands() {
    let (events, _d) = rehearsal_events(&["/dismiss maya", "/mute kofi", "Topic"], Config::default()).await;
    // Before the topic: the lobby keeps both for the session.
    let mut app = app_from(&prefix_until(&events, |e| matches!(e, Event::FacilitatorMessage { .. })));
    let key = |app: &mut App, code: KeyCode| app.on_key(KeyEvent::new(code, KeyModifiers::NONE), Instant::now());
    key(&mut app, KeyCode::Esc);
    let hints = row_text(&render(&app, 180, 30), 29);
    assert!(hints.contains("[R] Room"), "the menu offers it: {hints}");
    key(&mut app, KeyCode::Char('r'));
    let t = render(&app, 100, 30);
    snapshot("modal_roster", &t);
    // The first row is the room's first speaker; Maya is out, Kofi muted.
    let screen = |app: &App| {
        let t = render(app, 100, 30);
        (0..30).map(|y| row_text(&t, y)).collect::<Vec<_>>().join("\n")
    };
    let text = screen(&app);
    let (out_at, maya_at) = (text.find("Out of the room").unwrap(), text.find("Maya — Business Analyst").unwrap());
    assert!(out_at < maya_at, "Maya is out");
    let speakers: Vec<&String> = app.room.iter().filter(|id| *id != "moderator").collect();
    let kofi = speakers.iter().position(|id| *id == "developer").expect("Kofi is in");
    for _ in 0..kofi {
        key(&mut app, KeyCode::Down);
    }
    let highlighted = |text: &str| text.lines().position(|l| l.contains("▶") && l.contains("Kofi"));
    assert!(highlighted(&screen(&app)).is_some(), "the highlight is on Kofi");
    let out = key(&mut app, KeyCode::Char('m'));
    assert_eq!(
        out.commands,
        [Command::Message {
            text: "/unmute developer".into()
        }]
    );
    let out = key(&mut app, KeyCode::Enter);
    assert_eq!(
        out.commands,
        [Command::Message {
            text: "/dismiss developer".into()
        }]
    );
    assert!(matches!(app.modals.front(), Some(Modal::Roster(_))), "it stays open");
    // The engine's answer moves Kofi out; the highlight follows him.
    let (mut room, mut gone) = match events.iter().rev().find(|e| matches!(e, Event::RoomChanged { .. })) {
        Some(Event::RoomChanged { agents, out, .. }) => (agents.clone(), out.clone()),
        _ => panic!("the room was told"),
    };
    let kofi = room.iter().position(|a| a.id == "developer").unwrap();
    gone.push(room.remove(kofi));
    app.on_event(Event::RoomChanged {
        agents: room,
        out: gone,
        party: None,
    });
    let text = screen(&app);
    let heading = text.lines().position(|l| l.contains("Out of the room")).unwrap();
    assert!(highlighted(&text).is_some_and(|k| k > heading), "{text}");
    let out = key(&mut app, KeyCode::Enter);
    assert_eq!(
        out.commands,
        [Command::Message {
            text: "/invite developer".into()
        }]
    );
    key(&mut app, KeyCode::Esc);
    assert!(app.modals.is_empty());
}

#[tokio::test]
async fn the_menu_asks_again_takes_back_sums_up_edits_and_browses_takes() {
    let (events, _d) = rehearsal_events(&["Topic"], Config::default()).await;
    let finished = events.iter().position(|e| matches!(e, Event::RoundFinished { .. })).unwrap();
    let waiting = finished
        + events[finished..]
            .iter()
            .position(|e| matches!(e, Event::AwaitingInput { .. }))
            .unwrap();
    let mut app = app_from(&events[..=waiting]);
    let key = |app: &mut App, c: char| app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE), Instant::now());
    app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE), Instant::now());
    assert_eq!(key(&mut app, 'a').commands, [Command::Message { text: "/redo".into() }]);
    assert_eq!(key(&mut app, 'u').commands, [Command::Message { text: "/undo".into() }]);
    assert_eq!(key(&mut app, 'w').commands, [Command::Message { text: "/summary".into() }]);
    let out = key(&mut app, 'y');
    let last = app
        .transcript
        .entries()
        .iter()
        .rev()
        .find(|e| matches!(e.kind, bmad_party::frontend::tui::app::EntryKind::Agent { .. }));
    assert_eq!(
        out.copy.as_deref(),
        last.map(|e| e.text.as_str()),
        "the last reply goes to the clipboard"
    );
    let flash = app.flash.clone().unwrap_or_default();
    assert!(
        flash.contains("copied to the clipboard (OSC 52") && flash.contains(".copied.md"),
        "{flash}"
    );
    let beside = flash.rsplit(" and to ").next().unwrap();
    assert_eq!(
        std::fs::read_to_string(beside).ok().as_deref(),
        out.copy.as_deref(),
        "and beside the session"
    );
    let out = key(&mut app, 'l');
    assert!(out.commands.is_empty());
    assert_eq!(app.focus, Focus::Input);
    assert_eq!(app.input.lines().join("\n"), "/edit Topic", "the last message, ready to change");
    app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE), Instant::now());
    assert_eq!(key(&mut app, 't').commands, [Command::Message { text: "/takes".into() }]);
    assert_eq!(app.focus, Focus::Input);
    assert_eq!(app.input.lines().join("\n"), "/take ", "the number to bring back goes after it");
}

#[tokio::test]
async fn a_drafted_cast_is_reviewed_in_a_modal_that_owns_its_keys() {
    let (events, d) = rehearsal_events(&["Topic", "/cast A tool library for our street", "keep"], Config::default()).await;
    let drafted = prefix_until(&events, |e| matches!(e, Event::CastDraft { .. }));
    let mut app = app_from(&drafted);
    let Some(Modal::Cast(review)) = app.modals.front() else {
        panic!("the review opens in front")
    };
    let (request_id, first, party_name) = (
        review.request_id.clone(),
        review.draft.personas[0].persona.clone(),
        review.draft.name.clone(),
    );
    let t = render(&app, 100, 30);
    snapshot("modal_cast", &t);
    let text = screen_text(&t);
    assert!(text.contains("A cast drafted for the question"), "{text}");
    let chosen = text.lines().find(|l| l.contains('▶')).unwrap_or_default();
    assert!(
        chosen.contains(&format!("{} — {}", first.name, first.title)),
        "the first persona: {text}"
    );
    assert!(
        text.contains(" Enter  Keep") && text.contains(" D  Drop") && text.contains(" Esc  Quit"),
        "{text}"
    );
    // On a 80×24 terminal the keys still show, the details cut short.
    let small = screen_text(&render(&app, 80, 24));
    assert!(small.contains(" Enter  Keep"), "{small}");

    let key = |app: &mut App, code: KeyCode| app.on_key(KeyEvent::new(code, KeyModifiers::NONE), Instant::now());
    let cast = |review| Command::Cast {
        request_id: request_id.clone(),
        review,
    };
    key(&mut app, KeyCode::Down);
    assert_eq!(key(&mut app, KeyCode::Char('d')).commands, [cast(CastReview::Drop(1))]);
    // Waiting for the engine's answer, the keys wait too.
    assert!(key(&mut app, KeyCode::Char('a')).commands.is_empty());
    app.on_event(Event::CastDraft {
        request_id: request_id.clone(),
        draft: review_draft(&app),
        note: Some("Bo is left out.".into()),
    });
    assert!(screen_text(&render(&app, 100, 30)).contains("Bo is left out."));
    assert_eq!(key(&mut app, KeyCode::Char('a')).commands, [cast(CastReview::Again(1))]);
    app.on_event(Event::CastDraft {
        request_id: request_id.clone(),
        draft: review_draft(&app),
        note: None,
    });
    // Editing: the field starts from its text; `d` is a letter here; Tab
    // goes to the next field, from its own text.
    key(&mut app, KeyCode::Char('e'));
    let editing = screen_text(&render(&app, 100, 30));
    assert!(
        editing.contains(" Tab  Next field") && editing.contains(" Esc  Cancel"),
        "{editing}"
    );
    key(&mut app, KeyCode::Tab);
    for _ in 0..40 {
        key(&mut app, KeyCode::Backspace);
    }
    for c in "Ward nurse, d".chars() {
        assert!(key(&mut app, KeyCode::Char(c)).commands.is_empty());
    }
    assert_eq!(
        key(&mut app, KeyCode::Enter).commands,
        [cast(CastReview::Edit {
            at: 1,
            field: bmad_party::engine::CastField::Title,
            text: "Ward nurse, d".into()
        })]
    );
    app.on_event(Event::CastDraft {
        request_id: request_id.clone(),
        draft: review_draft(&app),
        note: None,
    });
    // The party's row edits its name and scene.
    key(&mut app, KeyCode::Up);
    key(&mut app, KeyCode::Up);
    key(&mut app, KeyCode::Char('e'));
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Char('!'));
    let Some(Modal::Cast(review)) = app.modals.front() else {
        unreachable!()
    };
    let scene = format!("{}!", review.draft.scene);
    assert_eq!(key(&mut app, KeyCode::Enter).commands, [cast(CastReview::Scene(scene))]);
    app.on_event(Event::CastDraft {
        request_id: request_id.clone(),
        draft: review_draft(&app),
        note: None,
    });
    // Esc once only asks; another key goes on; Esc twice saves nothing.
    assert!(key(&mut app, KeyCode::Esc).commands.is_empty());
    assert!(screen_text(&render(&app, 100, 30)).contains("Esc again: close and save nothing"));
    assert!(key(&mut app, KeyCode::Down).commands.is_empty());
    assert!(!screen_text(&render(&app, 100, 30)).contains("Esc again"));
    key(&mut app, KeyCode::Up);
    assert_eq!(key(&mut app, KeyCode::Enter).commands, [cast(CastReview::Keep)]);
    assert!(
        matches!(app.modals.front(), Some(Modal::Cast(_))),
        "open until the engine closes it"
    );
    app.on_event(Event::CastClosed {
        request_id: request_id.clone(),
        party: Some("x".into()),
    });
    assert!(app.modals.is_empty());
    app.on_event(Event::CastDraft {
        request_id: "cast-2".into(),
        draft: bmad_party::engine::DraftView::default(),
        note: None,
    });
    key(&mut app, KeyCode::Esc);
    let quit = Command::Cast {
        request_id: "cast-2".into(),
        review: CastReview::Quit,
    };
    assert_eq!(key(&mut app, KeyCode::Esc).commands, [quit]);
    assert!(key(&mut app, KeyCode::Esc).commands.is_empty(), "quit is sent once");

    // The engine's run saved the cast and switched the room to it.
    let switched = events.iter().rev().find_map(|e| match e {
        Event::RoomChanged { party, .. } => party.clone(),
        _ => None,
    });
    assert_eq!(switched, Some(party_name), "the room switched to the kept cast");
    assert_eq!(std::fs::read_dir(d.path().join("config/parties")).unwrap().count(), 1);
}

/// The open review's draft, as the engine would send it back.
fn review_draft(app: &App) -> bmad_party::engine::DraftView {
    match app.modals.front() {
        Some(Modal::Cast(c)) => c.draft.clone(),
        _ => panic!("the review is open"),
    }
}
