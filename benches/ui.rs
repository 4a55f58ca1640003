//! Drawing and streaming cost of the full screen (divan).
//!
//! - one frame at 200×60 with 100 / 1k / 10k / 100k transcript entries, at the
//!   bottom and scrolled to the middle, with three panes streaming;
//! - streaming absorption: tokens per second that the UI state update plus
//!   coalesced drawing (a frame every 50 tokens, about what 60 fps allows at
//!   a few thousand tokens a second) takes in for three panes at once.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use std::time::Instant;

use bmad_party::engine::{AgentInfo, Event};
use bmad_party::frontend::tui::app::{App, ScrollAction};
use bmad_party::frontend::tui::view;
use bmad_party::i18n::Lang;
use divan::Bencher;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn main() {
    divan::main();
}

const IDS: [&str; 3] = ["architect", "pm", "qa"];

fn app_with(entries: usize) -> App {
    let mut app = App::new(Lang::En);
    app.on_event(Event::SessionStarted {
        provider: "openai".into(),
        model: "m".into(),
        rehearsal: false,
        base_url: None,
        agents: IDS
            .iter()
            .map(|id| AgentInfo {
                id: (*id).into(),
                name: id.to_uppercase(),
                title: "Title".into(),
                icon: "🏗️".into(),
                color: Some("cyan".into()),
                model: None,
                moderator: false,
            })
            .collect(),
        lang: Lang::En,
        user_name: "Ada".into(),
        party: None,
        out: vec![],
        resumed: false,
        file: Some("/tmp/x.md".into()),
        topic: Some("A topic".into()),
    });
    for i in 0..entries {
        let text = format!(
            "Message **{i}**: we should design the plugin API around *stable contracts* and `versioned` manifests, \
             test the riskiest assumption first, and write down what we will not do.\n\n- point one for {i}\n- point two"
        );
        app.on_event(Event::AgentMessage {
            agent: IDS[i % 3].into(),
            name: "N".into(),
            icon: "🏗️".into(),
            round: (i / 3) as u32,
            text,
            interrupted: false,
            latency: None,
        });
    }
    app.on_event(Event::RoundStarted {
        round: 1,
        max_rounds: 10,
        agents: IDS.iter().map(|s| (*s).into()).collect(),
        continued: false,
    });
    for id in IDS {
        app.on_event(Event::AgentStarted {
            agent: id.into(),
            round: 1,
        });
        for w in 0..40 {
            app.on_event(Event::AgentToken {
                agent: id.into(),
                text: format!("token{w} "),
            });
        }
    }
    app
}

/// Draws a frame after each new token, as while agents stream.
fn frames(bencher: Bencher, mut app: App, mut t: Terminal<TestBackend>) {
    let now = Instant::now();
    let mut n = 0;
    bencher.bench_local(|| {
        n += 1;
        app.on_event(Event::AgentToken {
            agent: "pm".into(),
            text: format!("more{n} "),
        });
        t.draw(|f| view::draw(f, &app, now)).unwrap();
    });
}

fn screen(entries: usize) -> (App, Terminal<TestBackend>) {
    let app = app_with(entries);
    let mut t = Terminal::new(TestBackend::new(200, 60)).unwrap();
    t.draw(|f| view::draw(f, &app, Instant::now())).unwrap();
    (app, t)
}

#[divan::bench(args = [100, 1_000, 10_000, 100_000], sample_count = 30)]
fn frame_at_bottom(bencher: Bencher, entries: usize) {
    let (app, t) = screen(entries);
    frames(bencher, app, t);
}

#[divan::bench(args = [100, 1_000, 10_000, 100_000], sample_count = 30)]
fn frame_scrolled_to_middle(bencher: Bencher, entries: usize) {
    let (mut app, mut t) = screen(entries);
    app.scroll(ScrollAction::Top);
    // Half the transcript down: about 7 rows per entry at this width.
    app.scroll(ScrollAction::Down(entries * 7 / 2));
    t.draw(|f| view::draw(f, &app, Instant::now())).unwrap();
    frames(bencher, app, t);
}

const TOKENS: usize = 200_000;

/// Tokens arrive as fast as the UI takes them, three panes at once; like the
/// real loop, a frame is drawn when 16 ms have passed since the last one.
#[divan::bench(sample_count = 5, counter = divan::counter::ItemsCount::new(TOKENS))]
fn streaming_absorption_three_panes(bencher: Bencher) {
    bencher
        .with_inputs(|| (app_with(1_000), Terminal::new(TestBackend::new(200, 60)).unwrap()))
        .bench_local_values(|(mut app, mut t)| {
            let mut last = Instant::now();
            for i in 0..TOKENS {
                app.on_event(Event::AgentToken {
                    agent: IDS[i % 3].into(),
                    text: "word ".into(),
                });
                if last.elapsed() >= std::time::Duration::from_millis(16) {
                    let now = Instant::now();
                    t.draw(|f| view::draw(f, &app, now)).unwrap();
                    last = now;
                }
            }
            let now = Instant::now();
            t.draw(|f| view::draw(f, &app, now)).unwrap();
        });
}
