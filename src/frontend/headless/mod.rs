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
use crate::i18n::{Printed, Say};

/// What one stdin line means.
#[derive(Debug, PartialEq)]
pub(crate) enum Line {
    Command(Command),
    /// A JSON object that is not a command: reported and skipped.
    Invalid(String),
}

pub(crate) fn parse_line(line: &str) -> Line {
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
pub(crate) async fn run(mut setup: Setup, format: EventFormat, topic: Option<String>) -> i32 {
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
    let mut input = Input {
        opening: topic.map(|text| Command::Message { text }),
        lang,
        ..Input::default()
    };
    let mut awaiting = false;
    let mut signals = Signals::new();
    let mut ending = super::exit::Ending::default();
    loop {
        tokio::select! {
            ev = engine.events.recv() => {
                let Some(ev) = ev else { break };
                let (asked, ended) = print_burst(&mut printer, &mut engine.events, &mut ending, ev).await;
                awaiting |= asked;
                if ended {
                    break;
                }
            }
            line = reader.next_line(), if !input.eof => input.take(line),
            _ = signals.next() => {
                ending.signalled = true;
                let _ = engine.commands.send(Command::Quit);
            }
        }
        // A draft answers nothing: the engine still waits for a line.
        while awaiting {
            let Some(cmd) = input.next_command() else { break };
            awaiting = matches!(cmd, Command::Draft { .. });
            let _ = engine.commands.send(cmd);
        }
    }
    printer.flush();
    match engine.task.await {
        Ok(()) => ending.status().code().into(),
        Err(e) => {
            let error = e.to_string();
            eprintln!("bmad-party: {}", Printed::EngineStopped { error: &error }.say(lang));
            1
        }
    }
}

/// Prints `ev` and everything queued behind it in one write. The engine
/// runs on this thread, so the queue holds one event whenever this task
/// wakes; letting the engine run once more first collects the rest of a
/// burst (a network read holds dozens of tokens). Returns whether the
/// engine asked for input, and whether the session ended.
async fn print_burst(
    printer: &mut Printer,
    events: &mut tokio::sync::mpsc::UnboundedReceiver<Event>,
    ending: &mut super::exit::Ending,
    ev: Event,
) -> (bool, bool) {
    let (mut asked, mut ended, mut yielded) = (false, false, false);
    let mut next = Some(ev);
    while let Some(ev) = next.take() {
        printer.print(&ev);
        ending.see(&ev);
        match ev {
            Event::AwaitingInput { .. } => asked = true,
            Event::SessionEnded { .. } => ended = true,
            _ => {}
        }
        if !ended {
            next = events.try_recv().ok();
            if next.is_none() && !yielded {
                yielded = true;
                tokio::task::yield_now().await;
                next = events.try_recv().ok();
            }
        }
    }
    printer.flush();
    (asked, ended)
}

/// The facilitator's side: stdin lines as they come, numbered for
/// messages; the topic given on the command line goes first.
#[derive(Default)]
struct Input {
    lines: VecDeque<(usize, String)>,
    line_no: usize,
    eof: bool,
    opening: Option<Command>,
    /// The party's: what is wrong with a line is said in it.
    lang: crate::i18n::Lang,
}

impl Input {
    /// A line read from stdin, its end, or a read error (reported; the
    /// input ends there).
    fn take(&mut self, line: std::io::Result<Option<String>>) {
        match line {
            Ok(Some(l)) => {
                self.line_no += 1;
                self.lines.push_back((self.line_no, l));
            }
            Ok(None) => self.eof = true,
            Err(e) => {
                let (n, error) = (self.line_no + 1, e.to_string());
                eprintln!("bmad-party: {}", Printed::StdinUnreadable { n, error: &error }.say(self.lang));
                self.eof = true;
            }
        }
    }

    /// The next command for an engine that asks for input: the opening,
    /// then each line (a JSON object that is no command is reported and
    /// skipped); at the end of input, the facilitator has left. None while
    /// no line has come.
    fn next_command(&mut self) -> Option<Command> {
        if let Some(c) = self.opening.take() {
            return Some(c);
        }
        loop {
            match self.lines.pop_front() {
                Some((n, l)) => match parse_line(&l) {
                    Line::Command(c) => return Some(c),
                    Line::Invalid(why) => eprintln!("bmad-party: {}", Printed::StdinNotCommand { n, why: &why }.say(self.lang)),
                },
                None if self.eof => return Some(Command::Left),
                None => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests;
