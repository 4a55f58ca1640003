//! The headless front end: facilitator messages and commands come in as
//! stdin lines, the transcript (or JSON events) goes out on stdout. Lines
//! are fed one at a time, each when the engine asks for input, so piping N
//! messages runs N rounds; end of input means the facilitator has left.

mod floor;

use super::signals::Signals;
use std::collections::VecDeque;
use std::io::{IsTerminal, Write};

use foldhash::{HashMap, HashMapExt};
use tokio::io::AsyncBufReadExt;

use crate::cli::EventFormat;
use crate::engine::{self, AgentInfo, Command, Event, InputKind, Setup};
use crate::i18n::{pick, t, Lang, Msg};
use crate::session::{ConfirmKind, TurnKind};

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

struct Printer {
    format: EventFormat,
    lang: Lang,
    agents: HashMap<String, AgentInfo>,
    user_name: String,
    interactive: bool,
    mid_line: bool,
    /// The current agent has streamed text on its line.
    spoke: bool,
    /// The server outage being waited out: the last wait heard of (ms) and
    /// the ten-second step last reported.
    outage: Option<(u64, u64)>,
    /// The model server's URL, for "waiting for the server".
    server: Option<String>,
    /// Names in colour and bold: text output to a terminal, `NO_COLOR` unset.
    ink: bool,
    /// Output is buffered and flushed when no more events are waiting, so a
    /// burst of tokens costs one write, not one per token.
    buf: Vec<u8>,
    /// Text output: one agent's reply at a time.
    floor: floor::Floor,
    admitted: Vec<Event>,
}

impl Printer {
    fn new(format: EventFormat, lang: Lang, interactive: bool, ink: bool) -> Printer {
        Printer {
            format,
            lang,
            agents: HashMap::new(),
            user_name: String::new(),
            interactive,
            mid_line: false,
            spoke: false,
            outage: None,
            server: None,
            ink,
            buf: Vec::with_capacity(64 * 1024),
            floor: floor::Floor::new(),
            admitted: Vec::new(),
        }
    }

    fn agent(&self, id: &str) -> (String, String) {
        self.agents
            .get(id)
            .map(|a| (a.icon.clone(), a.name.clone()))
            .unwrap_or_else(|| (String::new(), id.to_string()))
    }

    /// `{icon} {name}` of an agent, in its colour and bold when inking.
    fn speaker(&self, id: &str) -> String {
        let (icon, name) = self.agent(id);
        let color = self.agents.get(id).and_then(|a| a.color.as_deref());
        self.paint(format!("{icon} {name}").trim_start(), &format!("1;{}", sgr_color(color)))
    }

    /// `text` in the SGR `style` when inking, else as it is.
    fn paint(&self, text: &str, style: &str) -> String {
        if self.ink {
            format!("\x1b[{style}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn end_line(&mut self, out: &mut impl Write) {
        if self.mid_line {
            let _ = writeln!(out);
            self.mid_line = false;
        }
    }

    /// Sends what was buffered.
    fn flush(&mut self) {
        if !self.buf.is_empty() {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(&self.buf);
            let _ = stdout.flush();
            self.buf.clear();
        }
    }

    /// Writes one event to the buffer; `flush` sends it out.
    fn print(&mut self, ev: &Event) {
        let mut out = std::mem::take(&mut self.buf);
        if self.format == EventFormat::Json {
            // Every event as it comes: each names its agent.
            self.write_event(&mut out, ev);
        } else {
            let mut admitted = std::mem::take(&mut self.admitted);
            self.floor.admit(ev.clone(), &mut admitted);
            for ev in admitted.drain(..) {
                self.write_event(&mut out, &ev);
            }
            self.admitted = admitted;
        }
        self.buf = out;
    }

    fn write_event(&mut self, out: &mut Vec<u8>, ev: &Event) {
        if self.format == EventFormat::Json {
            if serde_json::to_writer(&mut *out, ev).is_ok() {
                let _ = writeln!(out);
            }
            return;
        }
        let mut out = out;
        match ev {
            Event::SessionStarted {
                provider,
                model,
                rehearsal,
                agents,
                user_name,
                party,
                base_url,
                ..
            } => {
                self.server = base_url.as_deref().map(crate::text::shown_url);
                self.agents = agents.iter().map(|a| (a.id.clone(), a.clone())).collect();
                self.user_name = user_name.clone();
                let what = if *rehearsal {
                    format!("🎭 {}", t(self.lang, Msg::RehearsalBadge))
                } else {
                    format!("{provider} · {model}")
                };
                let party = party.as_ref().map(|p| format!(" · {p}")).unwrap_or_default();
                let _ = writeln!(out, "bmad-party{party} · {what}\n");
            }
            // The notice beside it says so; the header line is printed.
            Event::ModelChosen { .. } => {}
            Event::Welcome { text } => {
                self.end_line(&mut out);
                let _ = writeln!(out, "{text}\n");
            }
            Event::Highlights { text } | Event::Closing { text } => {
                self.end_line(&mut out);
                let _ = writeln!(out, "\n{text}");
            }
            Event::Earlier { turns } => {
                self.end_line(&mut out);
                for turn in turns {
                    let _ = match turn.kind {
                        TurnKind::Facilitator | TurnKind::Agent | TurnKind::Farewell => {
                            let cut = if turn.interrupted {
                                format!(" {}", t(self.lang, Msg::Interrupted))
                            } else {
                                String::new()
                            };
                            writeln!(out, "\n{}: {}{cut}", turn.label, turn.text)
                        }
                        _ => writeln!(out, "\n{}", turn.text),
                    };
                }
                let here = pick(self.lang, "this sitting begins here", "本次从这里继续");
                let _ = writeln!(out, "\n──── {here} ────");
            }
            Event::SessionFile { path } => {
                let _ = writeln!(out, "📄 {}: {path}", t(self.lang, Msg::SessionFile));
            }
            Event::FacilitatorMessage { text, .. } => {
                self.end_line(&mut out);
                if !self.interactive {
                    let _ = writeln!(out, "\n{}: {text}", self.paint(&self.user_name, "1"));
                }
            }
            Event::RoundStarted { round, max_rounds, .. } => {
                self.end_line(&mut out);
                let rule = format!("── {} {round}/{max_rounds} ──", t(self.lang, Msg::Round));
                let _ = writeln!(out, "\n{}", self.paint(&rule, "2"));
            }
            Event::AgentStarted { agent, .. } => {
                self.end_line(&mut out);
                let _ = write!(out, "\n{}: ", self.speaker(agent));
                self.mid_line = true;
                self.spoke = false;
            }
            Event::AgentToken { text, .. } => {
                let _ = write!(out, "{text}");
                self.mid_line = !text.ends_with('\n');
                self.spoke = true;
            }
            Event::AgentRetrying {
                agent,
                attempt,
                delay_ms,
                cause,
            } => {
                self.end_line(&mut out);
                let (icon, name) = self.agent(agent);
                let _ = write!(
                    out,
                    "  ↻ {} #{attempt} in {:.1} s: {cause}\n{icon} {name}: ",
                    t(self.lang, Msg::Retrying),
                    *delay_ms as f64 / 1000.0
                );
                self.mid_line = true;
            }
            Event::ServerWaiting {
                agent,
                waited_ms,
                window_ms,
                cause,
            } => {
                // A line when an outage starts (its wait starts again from
                // nothing) and one every ten seconds: the provider looks
                // again every few seconds.
                let step = waited_ms / 10_000;
                let announce = match self.outage {
                    Some((last, reported)) => *waited_ms <= last || step != reported,
                    None => true,
                };
                let reported = self.outage.map_or(step, |(_, r)| r);
                self.outage = Some((*waited_ms, if announce { step } else { reported }));
                if announce {
                    self.end_line(&mut out);
                    let (secs, window) = (waited_ms / 1000, window_ms / 1000);
                    let text = match &self.server {
                        Some(url) => {
                            crate::tr!(self.lang; "waiting for the server at {url} ({secs} s of {window} s): {cause}", "正在等待 {url} 的服务器（{secs}/{window} 秒）：{cause}")
                        }
                        None => {
                            crate::tr!(self.lang; "waiting for the server ({secs} s of {window} s): {cause}", "正在等待服务器（{secs}/{window} 秒）：{cause}")
                        }
                    };
                    let _ = writeln!(out, "  ⏳ {text}");
                    if !agent.is_empty() {
                        let (icon, name) = self.agent(agent);
                        let _ = write!(out, "{icon} {name}: ");
                        self.mid_line = true;
                    }
                }
            }
            Event::AgentMessage { interrupted, .. } => {
                if *interrupted {
                    let _ = write!(out, " {}", t(self.lang, Msg::Interrupted));
                }
                self.mid_line = true;
                self.end_line(&mut out);
            }
            Event::Farewell { .. } => self.end_line(&mut out),
            Event::AgentFailed { agent, cause, .. } => {
                if self.mid_line && !self.spoke {
                    // Still on this agent's header line: say it right there.
                    let _ = writeln!(out, "⚠️ {}: {cause}", t(self.lang, Msg::AgentFailed));
                    self.mid_line = false;
                } else {
                    self.end_line(&mut out);
                    let (icon, name) = self.agent(agent);
                    let _ = writeln!(out, "⚠️ {icon} {name} {}: {cause}", t(self.lang, Msg::AgentFailed));
                }
            }
            Event::AgentPassed { text, .. } => {
                if self.mid_line && !self.spoke {
                    // Still on this agent's header line: the pass replaces it.
                    let _ = writeln!(out, "—");
                    self.mid_line = false;
                }
                self.end_line(&mut out);
                let _ = writeln!(out, "{text}");
            }
            Event::RoundFinished { menu, .. } => {
                self.end_line(&mut out);
                let _ = writeln!(out, "\n{menu}");
            }
            Event::Notice { text, .. } => {
                self.end_line(&mut out);
                let _ = writeln!(out, "\n{text}");
            }
            Event::ConfirmationRequest {
                request_id, kind, text, ..
            } => {
                self.end_line(&mut out);
                let hint = match kind {
                    ConfirmKind::RoundLimit | ConfirmKind::TimeLimit => t(self.lang, Msg::LimitAnswerHint),
                    _ => t(self.lang, Msg::AnswerHint),
                };
                let _ = writeln!(out, "\n❓ [{request_id}] {text}\n   {hint}");
            }
            Event::Rejected { message } => eprintln!("bmad-party: {message}"),
            Event::SaveFailed { path, error } => eprintln!(
                "bmad-party: {} {path}: {error} {}",
                t(self.lang, Msg::SaveFailed),
                crate::tr!(
                    "(kept in memory; retried on every change)",
                    "（内容保留在内存中；每次变化时重试保存）"
                )
            ),
            Event::SessionEnded {
                file, saved, elsewhere, ..
            } => {
                self.end_line(&mut out);
                match file {
                    Some(f) if *saved => {
                        let _ = writeln!(out, "📄 {} {f}", t(self.lang, Msg::SessionSaved));
                    }
                    Some(f) if elsewhere.is_some() => {
                        let status = crate::frontend::exit::Status::NotSaved;
                        let text = crate::frontend::exit::explain(status, self.lang, f, "", elsewhere.as_deref());
                        let _ = writeln!(out, "⚠️ {}", text.unwrap_or_default());
                    }
                    Some(f) => {
                        let _ = writeln!(out, "⚠️ {} {f}", t(self.lang, Msg::SessionNotSaved));
                    }
                    None => {}
                }
            }
            Event::AwaitingInput { kind } => {
                if self.interactive {
                    self.end_line(&mut out);
                    let label = match kind {
                        InputKind::Message => t(self.lang, Msg::AwaitingMessage),
                        InputKind::Answer => t(self.lang, Msg::AwaitingAnswer),
                    };
                    let _ = write!(out, "\n{label}\n> ");
                }
            }
            Event::AgentQuestion { name, question, .. } => {
                self.end_line(&mut out);
                let _ = writeln!(out, "\n❓ {name}: {question}");
            }
            Event::TurnConfirmationRequest(r) => {
                self.end_line(&mut out);
                let hint = pick(
                    self.lang,
                    "Empty line: confirm the reset; a message rejects it and goes on; or send {\"type\":\"turn_confirmation_response\",\"request_id\":\"…\",\"confirmed\":true,\"reason\":\"…\"}",
                    "直接回车（空行）确认重置；输入消息则拒绝并继续；或发送 {\"type\":\"turn_confirmation_response\",\"request_id\":\"…\",\"confirmed\":true,\"reason\":\"…\"}",
                );
                let _ = writeln!(
                    out,
                    "\n❓ [{}] {}\n   {}\n   {hint}",
                    r.request_id,
                    r.message,
                    r.description.clone().unwrap_or_default()
                );
            }
            Event::DiligencePush { text, used, budget } => {
                self.end_line(&mut out);
                let _ = writeln!(out, "\n🤖 {} ({used}/{budget}): {text}", t(self.lang, Msg::PushLabel));
            }
            Event::ConsensusScore { .. }
            | Event::SelfCheck { .. }
            | Event::Reading { .. }
            | Event::RoomRepeats { .. }
            | Event::AgentFirstToken { .. } => {}
            Event::Takeaways { path } => {
                self.end_line(&mut out);
                let _ = writeln!(out, "📝 {} {path}", pick(self.lang, "Takeaways:", "要点："));
            }
            Event::EndProposal { .. } | Event::ConfirmationResolved { .. } | Event::Termination { .. } | Event::Status(_) => {}
        }
    }
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

/// The SGR colour of an agent's `color` (as agent files name it).
fn sgr_color(color: Option<&str>) -> String {
    use crate::roster::agents::AgentColor as A;
    let code = match color.and_then(A::parse) {
        Some(A::Red) => "31",
        Some(A::Green) => "32",
        Some(A::Yellow) => "33",
        Some(A::Blue) => "34",
        Some(A::Magenta) => "35",
        Some(A::Cyan) | None => "36",
        Some(A::Gray) => "37",
        Some(A::White) => "97",
        Some(A::LightRed) => "91",
        Some(A::LightGreen) => "92",
        Some(A::LightYellow) => "93",
        Some(A::LightBlue) => "94",
        Some(A::LightMagenta) => "95",
        Some(A::LightCyan) => "96",
        Some(A::Rgb(r, g, b)) => return format!("38;2;{r};{g};{b}"),
    };
    code.to_string()
}

#[cfg(test)]
mod tests;
