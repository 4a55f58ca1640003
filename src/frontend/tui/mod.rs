//! The full-screen front end. One `select!` loop over the terminal's event
//! stream, the engine's events, a redraw deadline and (only while the
//! session clock runs) a one-second tick; nothing polls. Bursts of tokens
//! are coalesced into at most one frame per 16 ms.
//!
//! The terminal is restored on every way out: normal exit, an error, a
//! panic anywhere (the hook restores it, then ends the process; the session
//! was saved at its last change), and SIGTERM/SIGHUP (the engine saves and
//! stops first).

pub mod app;
mod help;
pub(crate) mod keymap;
pub mod markdown;
pub(crate) mod modals;
mod status;
pub(crate) mod theme;
pub(crate) mod transcript;
pub mod view;

use std::io::{stdout, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture, Event as TermEvent, EventStream, KeyEventKind,
    KeyboardEnhancementFlags, MouseEventKind, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, supports_keyboard_enhancement, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::crossterm::{cursor, execute};
use ratatui::Terminal;

use crate::engine::{self, Command, Event, Setup};
use crate::i18n::{Lang, Printed, Say};
use app::{App, ScrollAction};

const FRAME: Duration = Duration::from_millis(16);

static TERMINAL_ACTIVE: AtomicBool = AtomicBool::new(false);
static KEYBOARD_FLAGS: AtomicBool = AtomicBool::new(false);

/// Undoes everything `enter` did. Safe to call twice, never panics.
pub(crate) fn restore() {
    if TERMINAL_ACTIVE.swap(false, Ordering::SeqCst) {
        let mut out = stdout();
        if KEYBOARD_FLAGS.swap(false, Ordering::SeqCst) {
            let _ = execute!(out, PopKeyboardEnhancementFlags);
        }
        let _ = execute!(out, DisableMouseCapture, DisableBracketedPaste, LeaveAlternateScreen, cursor::Show);
        let _ = disable_raw_mode();
        let _ = out.flush();
    }
}

fn enter() -> std::io::Result<()> {
    enable_raw_mode()?;
    TERMINAL_ACTIVE.store(true, Ordering::SeqCst);
    let mut out = stdout();
    execute!(out, EnterAlternateScreen, EnableBracketedPaste, EnableMouseCapture, cursor::Hide)?;
    // Where the terminal speaks the kitty keyboard protocol, Shift+Enter is
    // told apart from Enter; elsewhere Alt+Enter is the new-line key.
    if supports_keyboard_enhancement().unwrap_or(false)
        && execute!(
            out,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )
        .is_ok()
    {
        KEYBOARD_FLAGS.store(true, Ordering::SeqCst);
    }
    Ok(())
}

fn install_panic_hook(lang: Lang) {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // A panic in any task (engine, provider, UI) would otherwise leave a
        // raw, alternate-screen terminal behind while other tasks keep
        // drawing. Restore, report, and end the whole process.
        let was_active = TERMINAL_ACTIVE.load(Ordering::SeqCst);
        restore();
        previous(info);
        if was_active {
            eprintln!("{}", Printed::StoppedAfterInternalError.say(lang));
            std::process::exit(101);
        }
    }));
}

/// Runs the full-screen party; returns the exit code.
/// `topic`: the opening message, given on the command line.
pub(crate) async fn run(setup: Setup, topic: Option<String>) -> i32 {
    let lang = setup.lang;
    install_panic_hook(lang);
    let unusable = |e: std::io::Error| {
        let error = e.to_string();
        eprintln!("bmad-party: {}", Printed::CannotSetUpTerminal { error: &error }.say(lang));
    };
    if let Err(e) = enter() {
        restore();
        unusable(e);
        return 1;
    }
    let (code, after) = match Terminal::new(CrosstermBackend::new(stdout())) {
        Ok(mut terminal) => {
            let out = event_loop(&mut terminal, setup, topic).await;
            let _ = terminal.show_cursor();
            out
        }
        Err(e) => {
            restore();
            unusable(e);
            (1, None)
        }
    };
    restore();
    // What the full screen said last is gone with it: a party that did not
    // end well says why where the shell shows it.
    if let Some(line) = after {
        eprintln!("bmad-party: {line}");
    }
    code
}

/// What the loop keeps between wake-ups, beside the app's state.
#[derive(Default)]
struct Run {
    /// The screen must be drawn again.
    dirty: bool,
    /// The engine's event channel closed.
    engine_done: bool,
    /// A quit was sent; the loop leaves once the engine has ended.
    quitting: bool,
    ending: crate::frontend::exit::Ending,
    /// The session file, as the engine last named it.
    file: Option<String>,
    /// The last failed reply's cause, for the line to the shell.
    last_failure: String,
}

/// Whether the loop goes on.
#[derive(PartialEq)]
enum Flow {
    Go,
    Stop,
}

impl Run {
    /// What the exit status needs from an event.
    fn see(&mut self, ev: &Event) {
        self.ending.see(ev);
        match ev {
            Event::SessionEnded { file: Some(f), .. } | Event::SessionFile { path: f } => self.file = Some(f.clone()),
            Event::AgentFailed { cause, .. } => self.last_failure = cause.clone(),
            _ => {}
        }
    }

    /// An engine event, and whatever is queued behind it: one frame for a burst.
    fn on_engine(&mut self, app: &mut App, events: &mut tokio::sync::mpsc::UnboundedReceiver<Event>, ev: Event) -> Flow {
        let ended = matches!(ev, Event::SessionEnded { completed: false, .. });
        self.see(&ev);
        self.dirty |= app.on_event(ev);
        while let Ok(ev) = events.try_recv() {
            self.see(&ev);
            self.dirty |= app.on_event(ev);
        }
        if ended || (self.quitting && app.ended.is_some()) {
            Flow::Stop
        } else {
            Flow::Go
        }
    }

    /// A key, a paste, the wheel or a resize; the terminal's stream ending
    /// is a quit.
    fn on_terminal(
        &mut self,
        app: &mut App,
        commands: &tokio::sync::mpsc::UnboundedSender<Command>,
        ev: Option<std::io::Result<TermEvent>>,
    ) -> Flow {
        match ev {
            Some(Ok(TermEvent::Key(key))) if key.kind != KeyEventKind::Release => {
                let out = app.on_key(key, Instant::now());
                if let Some(text) = &out.copy {
                    let _ = execute!(stdout(), ratatui::crossterm::clipboard::CopyToClipboard::to_clipboard_from(text));
                }
                for c in out.commands {
                    if c == Command::Quit {
                        self.quitting = true;
                    }
                    let _ = commands.send(c);
                }
                if out.quit || (self.quitting && (self.engine_done || app.ended.is_some())) {
                    return Flow::Stop;
                }
                self.dirty |= out.redraw;
            }
            Some(Ok(TermEvent::Paste(text))) => {
                if let Some(c) = app.on_paste(&text) {
                    let _ = commands.send(c);
                }
                self.dirty = true;
            }
            Some(Ok(TermEvent::Mouse(m))) => {
                let scroll = match m.kind {
                    MouseEventKind::ScrollUp => Some(ScrollAction::Up(3)),
                    MouseEventKind::ScrollDown => Some(ScrollAction::Down(3)),
                    _ => None,
                };
                if let Some(s) = scroll {
                    app.scroll(s);
                    self.dirty = true;
                }
            }
            Some(Ok(TermEvent::Resize(_, _))) => self.dirty = true,
            Some(Ok(_)) => {}
            Some(Err(_)) | None => {
                let _ = commands.send(Command::Quit);
                self.quitting = true;
                if self.engine_done {
                    return Flow::Stop;
                }
            }
        }
        Flow::Go
    }

    /// The exit code and the line for the shell, once the engine has ended
    /// (or five seconds have passed). The engine's last word may still be
    /// queued (the screen left before it came): it decides the status.
    async fn finish(mut self, engine: engine::EngineHandle, lang: crate::i18n::Lang) -> (i32, Option<String>) {
        let engine::EngineHandle {
            commands,
            mut events,
            task,
        } = engine;
        drop(commands);
        match tokio::time::timeout(Duration::from_secs(5), task).await {
            Ok(Err(e)) if e.is_panic() => (101, None),
            _ => {
                while let Ok(ev) = events.try_recv() {
                    if let Event::SessionEnded { file: Some(f), .. } = &ev {
                        self.file = Some(f.clone());
                    }
                    self.ending.see(&ev);
                }
                let status = self.ending.status();
                let file = self.file.unwrap_or_default();
                (
                    i32::from(status.code()),
                    crate::frontend::exit::explain(status, lang, &file, &self.last_failure, self.ending.elsewhere.as_deref()),
                )
            }
        }
    }
}

/// The exit code, and a line for the shell when the party did not end well.
async fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<std::io::Stdout>>,
    setup: Setup,
    topic: Option<String>,
) -> (i32, Option<String>) {
    let lang = setup.lang;
    let mut app = App::new(setup.lang);
    app.no_color = !crate::frontend::colors_allowed();
    let mut engine = engine::spawn(setup);
    if let Some(text) = topic {
        // Read when the engine first asks for a message, as if typed.
        let _ = engine.commands.send(Command::Message { text });
    }
    let mut input = EventStream::new();
    let mut signals = crate::frontend::signals::Signals::new();
    let mut run = Run {
        dirty: true,
        ..Run::default()
    };
    let mut last_draw = Instant::now() - FRAME;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    // For the start-up benchmark: exec to first frame, then leave.
    let first_frame_only = std::env::var_os("BMAD_PARTY_EXIT_AFTER_FIRST_FRAME").is_some();
    loop {
        if run.dirty && last_draw.elapsed() >= FRAME {
            let now = Instant::now();
            if terminal.draw(|f| view::draw(f, &app, now)).is_err() || first_frame_only {
                let _ = engine.commands.send(Command::Quit);
                break;
            }
            last_draw = now;
            run.dirty = false;
        }
        // The seconds on screen move: the session clock, the wait for a
        // server that is down.
        let clock_running =
            (app.status.as_ref().is_some_and(|s| s.clock_running) || app.server_down_since.is_some()) && app.ended.is_none();
        let redraw_at = tokio::time::Instant::from_std(last_draw + FRAME);
        let flow = tokio::select! {
            ev = engine.events.recv(), if !run.engine_done => match ev {
                Some(ev) => run.on_engine(&mut app, &mut engine.events, ev),
                None => {
                    run.engine_done = true;
                    Flow::Go
                }
            },
            ev = input.next() => run.on_terminal(&mut app, &engine.commands, ev),
            _ = tokio::time::sleep_until(redraw_at), if run.dirty => Flow::Go,
            _ = tick.tick(), if clock_running => {
                run.dirty = true;
                Flow::Go
            }
            _ = signals.next() => {
                run.ending.signalled = true;
                let _ = engine.commands.send(Command::Quit);
                run.quitting = true;
                Flow::Go
            }
        };
        if flow == Flow::Stop || (run.engine_done && (run.quitting || app.ended.is_none())) {
            break;
        }
    }
    run.finish(engine, lang).await
}
