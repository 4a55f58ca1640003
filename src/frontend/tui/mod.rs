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
pub mod keymap;
pub mod markdown;
pub mod modals;
mod status;
pub mod transcript;
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
use app::{App, ScrollAction};

const FRAME: Duration = Duration::from_millis(16);

static TERMINAL_ACTIVE: AtomicBool = AtomicBool::new(false);
static KEYBOARD_FLAGS: AtomicBool = AtomicBool::new(false);

/// Undoes everything `enter` did. Safe to call twice, never panics.
pub fn restore() {
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

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // A panic in any task (engine, provider, UI) would otherwise leave a
        // raw, alternate-screen terminal behind while other tasks keep
        // drawing. Restore, report, and end the whole process.
        let was_active = TERMINAL_ACTIVE.load(Ordering::SeqCst);
        restore();
        previous(info);
        if was_active {
            eprintln!("{}", crate::tr!("bmad-party stopped after an internal error. The session file holds everything up to the last completed change; continue it with --resume.", "bmad-party 因内部错误而停止。会话文件保存了最后一次完成的变化之前的全部内容；可用 --resume 继续。"));
            std::process::exit(101);
        }
    }));
}

/// Runs the full-screen party; returns the exit code.
/// `topic`: the opening message, given on the command line.
pub async fn run(setup: Setup, topic: Option<String>) -> i32 {
    install_panic_hook();
    if let Err(e) = enter() {
        restore();
        eprintln!(
            "bmad-party: {}",
            crate::tr!("cannot set up the terminal: {e}", "无法初始化终端：{e}")
        );
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
            eprintln!(
                "bmad-party: {}",
                crate::tr!("cannot set up the terminal: {e}", "无法初始化终端：{e}")
            );
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
    let mut dirty = true;
    let mut last_draw = Instant::now() - FRAME;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut engine_done = false;
    let mut quitting = false;
    let mut ending = crate::frontend::exit::Ending::default();
    let mut file: Option<String> = None;
    let mut last_failure = String::new();
    // For the start-up benchmark: exec to first frame, then leave.
    let first_frame_only = std::env::var_os("BMAD_PARTY_EXIT_AFTER_FIRST_FRAME").is_some();
    loop {
        if dirty && last_draw.elapsed() >= FRAME {
            let now = Instant::now();
            if terminal.draw(|f| view::draw(f, &app, now)).is_err() {
                let _ = engine.commands.send(Command::Quit);
                break;
            }
            last_draw = now;
            dirty = false;
            if first_frame_only {
                let _ = engine.commands.send(Command::Quit);
                break;
            }
        }
        // The seconds on screen move: the session clock, the wait for a
        // server that is down.
        let clock_running =
            (app.status.as_ref().is_some_and(|s| s.clock_running) || app.server_down_since.is_some()) && app.ended.is_none();
        let redraw_at = tokio::time::Instant::from_std(last_draw + FRAME);
        tokio::select! {
            ev = engine.events.recv(), if !engine_done => match ev {
                Some(ev) => {
                    let ended = matches!(ev, Event::SessionEnded { completed: false, .. });
                    let mut see = |ev: &Event| {
                        ending.see(ev);
                        match ev {
                            Event::SessionEnded { file: Some(f), .. } | Event::SessionFile { path: f } => file = Some(f.clone()),
                            Event::AgentFailed { cause, .. } => last_failure = cause.clone(),
                            _ => {}
                        }
                    };
                    see(&ev);
                    dirty |= app.on_event(ev);
                    // Drain what is already queued: one frame for a burst.
                    while let Ok(ev) = engine.events.try_recv() {
                        see(&ev);
                        dirty |= app.on_event(ev);
                    }
                    if ended || (quitting && app.ended.is_some()) {
                        break;
                    }
                }
                None => engine_done = true,
            },
            ev = input.next() => match ev {
                Some(Ok(TermEvent::Key(key))) if key.kind != KeyEventKind::Release => {
                    let out = app.on_key(key, Instant::now());
                    for c in out.commands {
                        if c == Command::Quit {
                            quitting = true;
                        }
                        let _ = engine.commands.send(c);
                    }
                    if out.quit || (quitting && (engine_done || app.ended.is_some())) {
                        break;
                    }
                    dirty |= out.redraw;
                }
                Some(Ok(TermEvent::Paste(text))) => {
                    app.on_paste(&text);
                    dirty = true;
                }
                Some(Ok(TermEvent::Mouse(m))) => match m.kind {
                    MouseEventKind::ScrollUp => {
                        app.scroll(ScrollAction::Up(3));
                        dirty = true;
                    }
                    MouseEventKind::ScrollDown => {
                        app.scroll(ScrollAction::Down(3));
                        dirty = true;
                    }
                    _ => {}
                },
                Some(Ok(TermEvent::Resize(_, _))) => dirty = true,
                Some(Ok(_)) => {}
                Some(Err(_)) | None => {
                    let _ = engine.commands.send(Command::Quit);
                    quitting = true;
                    if engine_done {
                        break;
                    }
                }
            },
            _ = tokio::time::sleep_until(redraw_at), if dirty => {}
            _ = tick.tick(), if clock_running => dirty = true,
            _ = signals.next() => {
                ending.signalled = true;
                let _ = engine.commands.send(Command::Quit);
                quitting = true;
            }
        }
        if engine_done && (quitting || app.ended.is_none()) {
            break;
        }
    }
    drop(engine.commands);
    match tokio::time::timeout(Duration::from_secs(5), engine.task).await {
        Ok(Err(e)) if e.is_panic() => (101, None),
        _ => {
            // The engine's last word may still be queued (the screen left
            // before it came): it decides the status.
            while let Ok(ev) = engine.events.try_recv() {
                if let Event::SessionEnded { file: Some(f), .. } = &ev {
                    file = Some(f.clone());
                }
                ending.see(&ev);
            }
            let status = ending.status();
            let file = file.unwrap_or_default();
            (
                i32::from(status.code()),
                crate::frontend::exit::explain(status, lang, &file, &last_failure, ending.elsewhere.as_deref()),
            )
        }
    }
}
