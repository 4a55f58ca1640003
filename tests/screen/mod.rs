//! The TUI tests' tools: a rehearsal party's events (new or resumed), the
//! TUI's state built from them, a frame drawn into ratatui's TestBackend and
//! read back as text.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use bmad_party::assets::{embedded_agents, WorkflowSource};
use bmad_party::config::Config;
use bmad_party::engine::{self, Command, Event, Setup};
use bmad_party::frontend::tui::app::App;
use bmad_party::frontend::tui::view;
use bmad_party::i18n::Lang;
use bmad_party::llm::Rehearsal;
use bmad_party::roster::agents::load_roster;
use bmad_party::workflow::Workflow;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// Runs a rehearsal party with `messages` and returns every event.
pub async fn rehearsal_events(messages: &[&str], config: Config) -> (Vec<Event>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let events = rehearsal_in(dir.path(), messages, config, None).await;
    (events, dir)
}

/// A rehearsal party in `dir`, a new one or `resume`d; after the messages
/// the facilitator quits (the session stays resumable).
pub async fn rehearsal_in(dir: &std::path::Path, messages: &[&str], config: Config, resume: Option<&std::path::Path>) -> Vec<Event> {
    let resume = resume.map(|p| engine::Resume {
        path: p.to_path_buf(),
        session: bmad_party::session::load(p).unwrap(),
        lock: None,
    });
    // Snapshots need one order of events: replies one after another (the
    // concurrent modes' panes are drawn from events made by hand).
    let mut config = config;
    config.party.round_mode = Some(bmad_party::config::RoundMode::Sequential);
    let setup = Setup {
        config,
        workflow: Workflow::load(WorkflowSource::default()).unwrap(),
        agents: load_roster(&embedded_agents()).unwrap(),
        pool: load_roster(&embedded_agents()).unwrap(),
        provider: Arc::new(Rehearsal {
            token_delay: Duration::ZERO,
            propose_every: 4,
            ask_every: 5,
        }),
        endpoints: vec![],
        lang: Lang::En,
        speech_language: "English".into(),
        user_name: "Ada".into(),
        output: dir.to_path_buf(),
        resume,
        document_language: None,
        notices: vec![],
        saves: Default::default(),
        takeaways: Default::default(),
        party: None,
        memory: None,
        documents: vec![],
        parties: vec![],
        casts: Some(engine::CastsTo {
            agents_dir: dir.join("config/agents"),
            parties_dir: dir.join("config/parties"),
            parties: vec![],
            memory_dir: None,
        }),
    };
    let mut h = engine::spawn(setup);
    let mut events = Vec::new();
    let mut next = messages.iter();
    while let Some(ev) = h.events.recv().await {
        events.push(ev.clone());
        match ev {
            Event::AwaitingInput { .. } => {
                let cmd = next
                    .next()
                    .map(|m| Command::Message { text: m.to_string() })
                    .unwrap_or(Command::Quit);
                h.commands.send(cmd).unwrap();
            }
            Event::SessionEnded { .. } => break,
            _ => {}
        }
    }
    events
}

pub fn app_from(events: &[Event]) -> App {
    let mut app = App::new(Lang::En);
    for e in events {
        app.on_event(e.clone());
    }
    app
}

pub fn render(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    let now = app.status_at;
    t.draw(|f| view::draw(f, app, now)).unwrap();
    t
}

pub fn prefix_until(events: &[Event], stop: impl FnMut(&Event) -> bool) -> Vec<Event> {
    let end = events.iter().position(stop).expect("event present");
    events[..=end].to_vec()
}

pub fn row_text(t: &Terminal<TestBackend>, y: u16) -> String {
    let b = t.backend().buffer();
    (0..b.area.width).map(|x| b[(x, y)].symbol().to_string()).collect()
}

/// The whole frame as text, a line a row.
pub fn screen_text(t: &Terminal<TestBackend>) -> String {
    let h = t.backend().buffer().area.height;
    (0..h).map(|y| row_text(t, y)).collect::<Vec<_>>().join("\n")
}
