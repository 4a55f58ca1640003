//! The headless front end: facilitator messages and commands come in as
//! stdin lines, the transcript (or JSON events) goes out on stdout. Lines
//! are fed one at a time, each when the engine asks for input, so piping N
//! messages runs N rounds; end of input means the facilitator has left.

mod floor;
mod printer;

use printer::Printer;

use super::signals::Signals;
use std::collections::VecDeque;
use std::io::IsTerminal;

use tokio::io::AsyncBufReadExt;

use crate::cli::EventFormat;
use crate::engine::{self, Command, Event, Setup};

/// What one stdin line means.
#[derive(Debug, PartialEq)]
pub enum Line {
    Command(Command),
    /// A JSON object that is not a command: reported and skipped.
    Invalid(String),
}

pub fn parse_line(line: &str) -> Line {
    let trimmed = line.trim();
    if trimmed.starts_with('{') {
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(trimmed) {
            if value.is_object() {
                return match serde_json::from_value::<Command>(value) {
                    Ok(c) => Line::Command(c),
                    Err(e) => Line::Invalid(e.to_string()),
                };
            }
        }
    }
    Line::Command(Command::Message {
        text: line.trim_end_matches(['\r', '\n']).to_string(),
    })
}

/// Runs a party on stdin/stdout; returns the process exit code. `topic`,
/// given on the command line, is the first message; stdin's lines follow.
pub async fn run(mut setup: Setup, format: EventFormat, topic: Option<String>) -> i32 {
    let lang = setup.lang;
    // No screen shares the thread: the engine writes its saves itself.
    setup.saves = engine::Saves::Inline;
    let mut engine = engine::spawn(setup);
    let mut printer = Printer::new(
        format,
        lang,
        std::io::stdin().is_terminal() && std::io::stdout().is_terminal(),
        format == EventFormat::Text && std::io::stdout().is_terminal() && super::colors_allowed(),
    );
    let mut reader = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut lines: VecDeque<(usize, String)> = VecDeque::new();
    let mut line_no = 0usize;
    let mut eof = false;
    let mut awaiting = false;
    let mut signals = Signals::new();
    let mut opening = topic.map(|text| Command::Message { text });
    let mut ending = super::exit::Ending::default();
    loop {
        tokio::select! {
            ev = engine.events.recv() => {
                let Some(ev) = ev else { break };
                let mut next = Some(ev);
                let mut ended = false;
                // Everything queued goes out in one write. The engine runs on
                // this thread, so the queue holds one event whenever this task
                // wakes; letting the engine run once more first collects the
                // rest of a burst (a network read holds dozens of tokens).
                let mut yielded = false;
                while let Some(ev) = next.take() {
                    printer.print(&ev);
                    ending.see(&ev);
                    match ev {
                        Event::AwaitingInput { .. } => awaiting = true,
                        Event::SessionEnded { .. } => ended = true,
                        _ => {}
                    }
                    if !ended {
                        next = engine.events.try_recv().ok();
                        if next.is_none() && !yielded {
                            yielded = true;
                            tokio::task::yield_now().await;
                            next = engine.events.try_recv().ok();
                        }
                    }
                }
                printer.flush();
                if ended {
                    break;
                }
            }
            line = reader.next_line(), if !eof => match line {
                Ok(Some(l)) => {
                    line_no += 1;
                    lines.push_back((line_no, l));
                }
                Ok(None) => eof = true,
                Err(e) => {
                    let n = line_no + 1;
                    eprintln!("bmad-party: {}", crate::tr!("stdin line {n}: {e}", "标准输入第 {n} 行：{e}"));
                    eof = true;
                }
            },
            _ = signals.next() => {
                ending.signalled = true;
                let _ = engine.commands.send(Command::Quit);
            }
        }
        while awaiting {
            let next = match opening.take() {
                Some(c) => Some(c),
                None => match lines.pop_front() {
                    Some((n, l)) => match parse_line(&l) {
                        Line::Command(c) => Some(c),
                        Line::Invalid(why) => {
                            eprintln!(
                                "bmad-party: {}",
                                crate::tr!(
                                    "stdin line {n}: not a command ({why}); skipped",
                                    "标准输入第 {n} 行：不是命令（{why}）；已跳过"
                                )
                            );
                            continue;
                        }
                    },
                    None if eof => Some(Command::Left),
                    None => None,
                },
            };
            let Some(cmd) = next else { break };
            awaiting = false;
            if engine.commands.send(cmd).is_err() {
                break;
            }
        }
    }
    printer.flush();
    match engine.task.await {
        Ok(()) => ending.status().code().into(),
        Err(e) => {
            eprintln!(
                "bmad-party: {}",
                crate::tr!("the engine stopped unexpectedly: {e}", "引擎意外停止：{e}")
            );
            1
        }
    }
}

#[cfg(test)]
mod tests;
