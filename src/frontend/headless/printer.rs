//! The headless driver's output: every event as a JSON line, or the
//! transcript as text (names painted when inking), one family of events
//! to a function.

use std::io::Write;

use foldhash::{HashMap, HashMapExt};

use super::floor;
use crate::cli::EventFormat;
use crate::engine::{AgentInfo, Event, InputKind};
use crate::i18n::{Lang, Printed, Say};
use crate::session::{ConfirmKind, TurnKind};

pub(super) struct Printer {
    format: EventFormat,
    lang: Lang,
    agents: HashMap<String, AgentInfo>,
    user_name: String,
    interactive: bool,
    mid_line: bool,
    /// The current agent has streamed text on its line.
    spoke: bool,
    /// The agent whose line is open (`agent_started`), until its message.
    speaking: Option<String>,
    /// The server outage being waited out: the last wait heard of (ms) and
    /// the ten-second step last reported.
    outage: Option<(u64, u64)>,
    /// The model server's URL, for "waiting for the server".
    server: Option<String>,
    /// The default endpoint's model, for the cleanup line; empty for the
    /// rehearsal, which has none to tell of.
    model: String,
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
    pub(super) fn new(format: EventFormat, lang: Lang, interactive: bool, ink: bool) -> Printer {
        Printer {
            format,
            lang,
            agents: HashMap::new(),
            user_name: String::new(),
            model: String::new(),
            interactive,
            mid_line: false,
            spoke: false,
            speaking: None,
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

    /// `{icon} {name}` of an agent, in its colour and bold when inking; in
    /// a room of several models, the model it speaks with after it.
    fn speaker(&self, id: &str) -> String {
        let (icon, name) = self.agent(id);
        let agent = self.agents.get(id);
        let color = agent.and_then(|a| a.color.as_deref());
        let model = agent
            .and_then(|a| a.model.as_deref())
            .map(|m| format!(" [{m}]"))
            .unwrap_or_default();
        let name = self.paint(format!("{icon} {name}").trim_start(), &format!("1;{}", sgr_color(color)));
        format!("{name}{model}")
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
    pub(super) fn flush(&mut self) {
        if !self.buf.is_empty() {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(&self.buf);
            let _ = stdout.flush();
            self.buf.clear();
        }
    }

    /// Writes one event to the buffer; `flush` sends it out.
    pub(super) fn print(&mut self, ev: &Event) {
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

    /// Writes one event: as a JSON line, or as text by its family.
    fn write_event(&mut self, out: &mut Vec<u8>, ev: &Event) {
        if self.format == EventFormat::Json {
            if serde_json::to_writer(&mut *out, ev).is_ok() {
                let _ = writeln!(out);
            }
            return;
        }
        match ev {
            Event::SessionStarted { .. }
            | Event::AgentModels { .. }
            | Event::RoomChanged { .. }
            | Event::CleanupLevels { .. }
            | Event::Earlier { .. }
            | Event::SessionFile { .. }
            | Event::Rejected { .. }
            | Event::SaveFailed { .. }
            | Event::SessionEnded { .. } => self.session_text(out, ev),
            Event::FacilitatorMessage { .. }
            | Event::RoundStarted { .. }
            | Event::AgentStarted { .. }
            | Event::AgentToken { .. }
            | Event::AgentMessage { .. }
            | Event::Farewell { .. }
            | Event::RoundFinished { .. } => self.round_text(out, ev),
            Event::AgentRetrying { .. } | Event::AgentFailed { .. } | Event::AgentPassed { .. } => self.trouble_text(out, ev),
            Event::ServerWaiting { .. } => self.server_text(out, ev),
            Event::ConfirmationRequest { .. }
            | Event::AwaitingInput { .. }
            | Event::AgentQuestion { .. }
            | Event::TurnConfirmationRequest(..) => self.question_text(out, ev),
            Event::Welcome { .. }
            | Event::Highlights { .. }
            | Event::Closing { .. }
            | Event::Notice { .. }
            | Event::DiligencePush { .. }
            | Event::Takeaways { .. } => self.notice_text(out, ev),
            // The JSON lines carry these; in text, a notice beside them says what matters.
            Event::CastDraft { .. } => self.cast_text(out, ev),
            Event::CastClosed { .. }
            | Event::ModelChosen { .. }
            | Event::ConsensusScore { .. }
            | Event::SelfCheck { .. }
            | Event::Reading { .. }
            | Event::RoomRepeats { .. }
            | Event::AgentFirstToken { .. }
            | Event::EndProposal { .. }
            | Event::ConfirmationResolved { .. }
            | Event::Termination { .. }
            | Event::Status(..) => {}
        }
    }

    /// The session: its header, the earlier turns, its file, how it ended.
    fn session_text(&mut self, out: &mut Vec<u8>, ev: &Event) {
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
                    format!("🎭 {}", Printed::RehearsalBadge.say(self.lang))
                } else {
                    format!("{provider} · {model}")
                };
                self.model = if *rehearsal { String::new() } else { model.clone() };
                let party = party.as_ref().map(|p| format!(" · {p}")).unwrap_or_default();
                let _ = writeln!(out, "bmad-party{party} · {what}\n");
            }
            // A line an endpoint; none for the rehearsal.
            Event::CleanupLevels { levels } if !self.model.is_empty() => {
                self.end_line(&mut out);
                for l in levels {
                    let who = l.endpoint.as_ref().map_or_else(|| self.model.clone(), |n| n.clone());
                    let line = Printed::CleanupLevel {
                        who: &who,
                        level: l.level.code(),
                        why: &l.why,
                    };
                    let _ = writeln!(out, "{}", line.say(self.lang));
                }
            }
            Event::CleanupLevels { .. } => {}
            // Nothing printed: the speakers' names carry the labels from now on.
            Event::AgentModels { agents } => {
                for m in agents {
                    if let Some(a) = self.agents.get_mut(&m.id) {
                        a.model = m.model.clone();
                    }
                }
            }
            // Nothing printed (a notice says who came or went): a newcomer's
            // name and label are known from now on, a leaver's kept.
            Event::RoomChanged { agents, .. } => {
                for a in agents {
                    self.agents.insert(a.id.clone(), a.clone());
                }
            }
            Event::Earlier { turns } => {
                self.end_line(&mut out);
                for turn in turns {
                    let _ = match turn.kind {
                        TurnKind::Facilitator | TurnKind::Agent | TurnKind::Farewell => {
                            let cut = if turn.interrupted {
                                format!(" {}", Printed::Interrupted.say(self.lang))
                            } else {
                                String::new()
                            };
                            writeln!(out, "\n{}: {}{cut}", turn.label, turn.text)
                        }
                        _ => writeln!(out, "\n{}", turn.text),
                    };
                }
                let here = Printed::SittingBegins.say(self.lang);
                let _ = writeln!(out, "\n──── {here} ────");
            }
            Event::SessionFile { path } => {
                let _ = writeln!(out, "{}", Printed::SessionFile { path }.say(self.lang));
            }
            Event::Rejected { message } => eprintln!("bmad-party: {message}"),
            Event::SaveFailed { path, error } => eprintln!(
                "bmad-party: {} {path}: {error} {}",
                Printed::SaveFailed.say(self.lang),
                Printed::KeptInMemory.say(self.lang)
            ),
            Event::SessionEnded {
                file, saved, elsewhere, ..
            } => {
                self.end_line(&mut out);
                match file {
                    Some(f) if *saved => {
                        let _ = writeln!(out, "{}", Printed::SessionSavedTo { file: f }.say(self.lang));
                    }
                    Some(f) if elsewhere.is_some() => {
                        let status = crate::error::ExitStatus::NotSaved;
                        let text = crate::frontend::exit::explain(status, self.lang, f, "", elsewhere.as_deref());
                        let _ = writeln!(out, "⚠️ {}", text.unwrap_or_default());
                    }
                    Some(f) => {
                        let _ = writeln!(out, "{}", Printed::SessionNotSaved { file: f }.say(self.lang));
                    }
                    None => {}
                }
            }
            _ => {}
        }
    }

    /// A round: the facilitator's message, each reply as it streams, the menu after.
    fn round_text(&mut self, out: &mut Vec<u8>, ev: &Event) {
        let mut out = out;
        match ev {
            Event::FacilitatorMessage { text, .. } => {
                self.end_line(&mut out);
                if !self.interactive {
                    let _ = writeln!(out, "\n{}: {text}", self.paint(&self.user_name, "1"));
                }
            }
            Event::RoundStarted { round, max_rounds, .. } => {
                self.end_line(&mut out);
                let rule = Printed::RoundRule {
                    n: *round,
                    max: *max_rounds,
                }
                .say(self.lang);
                let _ = writeln!(out, "\n{}", self.paint(&rule, "2"));
            }
            Event::AgentStarted { agent, .. } => {
                self.end_line(&mut out);
                let _ = write!(out, "\n{}: ", self.speaker(agent));
                self.mid_line = true;
                self.spoke = false;
                self.speaking = Some(agent.clone());
            }
            Event::AgentToken { text, .. } => {
                let _ = write!(out, "{text}");
                self.mid_line = !text.ends_with('\n');
                self.spoke = true;
            }
            Event::AgentMessage {
                interrupted, text, agent, ..
            } => {
                // A reply that streamed nothing on its own open line shows
                // what the room heard (an end marker alone: a proposal to
                // end, said as one).
                if self.speaking.take().as_ref() == Some(agent) && !self.spoke && !text.is_empty() {
                    let _ = write!(out, "{text}");
                }
                if *interrupted {
                    let _ = write!(out, " {}", Printed::Interrupted.say(self.lang));
                }
                self.mid_line = true;
                self.end_line(&mut out);
            }
            Event::Farewell { .. } => self.end_line(&mut out),
            Event::RoundFinished { menu, .. } => {
                self.end_line(&mut out);
                let _ = writeln!(out, "\n{menu}");
            }
            _ => {}
        }
    }

    /// A turn that did not go as asked: a retry, a failure, a pass.
    fn trouble_text(&mut self, out: &mut Vec<u8>, ev: &Event) {
        let mut out = out;
        match ev {
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
                    "  ↻ {}: {cause}\n{icon} {name}: ",
                    Printed::Retrying {
                        attempt: *attempt,
                        secs: *delay_ms as f64 / 1000.0
                    }
                    .say(self.lang),
                );
                self.mid_line = true;
            }
            Event::AgentFailed { agent, cause, .. } => {
                if self.mid_line && !self.spoke {
                    // Still on this agent's header line: say it right there.
                    let _ = writeln!(out, "{}", Printed::CouldNotAnswer { cause }.say(self.lang));
                    self.mid_line = false;
                } else {
                    self.end_line(&mut out);
                    let (icon, name) = self.agent(agent);
                    let _ = writeln!(
                        out,
                        "{}",
                        Printed::AgentFailed {
                            icon: &icon,
                            name: &name,
                            cause
                        }
                        .say(self.lang)
                    );
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
            _ => {}
        }
    }

    /// A server outage being waited out: a line when it starts and one every ten seconds.
    fn server_text(&mut self, out: &mut Vec<u8>, ev: &Event) {
        let mut out = out;
        let Event::ServerWaiting {
            agent,
            waited_ms,
            window_ms,
            cause,
        } = ev
        else {
            return;
        };
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
                Some(url) => Printed::WaitingForServerAt { url, secs, window, cause }.say(self.lang),
                None => Printed::WaitingForServer { secs, window, cause }.say(self.lang),
            };
            let _ = writeln!(out, "  ⏳ {text}");
            if !agent.is_empty() {
                let (icon, name) = self.agent(agent);
                let _ = write!(out, "{icon} {name}: ");
                self.mid_line = true;
            }
        }
    }

    /// Questions: for the facilitator, from an agent, and the input prompt.
    fn question_text(&mut self, out: &mut Vec<u8>, ev: &Event) {
        let mut out = out;
        match ev {
            Event::ConfirmationRequest {
                request_id, kind, text, ..
            } => {
                self.end_line(&mut out);
                let hint = match kind {
                    ConfirmKind::RoundLimit | ConfirmKind::TimeLimit => Printed::LimitAnswerHint.say(self.lang),
                    _ => Printed::EndAnswerHint.say(self.lang),
                };
                let _ = writeln!(out, "\n❓ [{request_id}] {text}\n   {hint}");
            }
            Event::AwaitingInput { kind } if self.interactive => {
                self.end_line(&mut out);
                let label = match kind {
                    InputKind::Message => Printed::AwaitingMessage.say(self.lang),
                    InputKind::Answer => Printed::AwaitingAnswer.say(self.lang),
                    InputKind::Review => Printed::AwaitingReview.say(self.lang),
                };
                let _ = write!(out, "\n{label}\n> ");
            }
            Event::AgentQuestion { name, question, .. } => {
                self.end_line(&mut out);
                let _ = writeln!(out, "\n❓ {name}: {question}");
            }
            Event::TurnConfirmationRequest(r) => {
                self.end_line(&mut out);
                let hint = Printed::ResetAnswerHint.say(self.lang);
                let _ = writeln!(
                    out,
                    "\n❓ [{}] {}\n   {}\n   {hint}",
                    r.request_id,
                    r.message,
                    r.description.clone().unwrap_or_default()
                );
            }
            _ => {}
        }
    }

    /// A drafted cast to review: each persona numbered as review lines
    /// name it, each field as `edit N FIELD` names it, then how to answer.
    fn cast_text(&mut self, out: &mut Vec<u8>, ev: &Event) {
        let mut out = out;
        let Event::CastDraft { request_id, draft, note } = ev else { return };
        self.end_line(&mut out);
        let _ = writeln!(out, "\n🎭 [{request_id}] {}", draft.name);
        if !draft.scene.is_empty() {
            let _ = writeln!(out, "   {}", draft.scene);
        }
        for (i, shown) in draft.personas.iter().enumerate() {
            let p = &shown.persona;
            let _ = writeln!(out, "\n{:>2}. {} {} — {}", i + 1, p.icon, p.name, p.title);
            use crate::engine::CastField as F;
            for (field, f) in [
                ("role", F::Role),
                ("identity", F::Identity),
                ("style", F::Style),
                ("principles", F::Principles),
            ] {
                let _ = writeln!(out, "    {field}: {}", p.field(f));
            }
            for line in &shown.from {
                let _ = writeln!(out, "    ↳ {line}");
            }
        }
        if let Some(note) = note {
            let _ = writeln!(out, "\n{note}");
        }
        let _ = writeln!(out, "\n{}", crate::i18n::Cast::ReviewHelp.say(self.lang));
    }

    /// What the room is told between rounds: welcome, notices, pushes, the closing.
    fn notice_text(&mut self, out: &mut Vec<u8>, ev: &Event) {
        let mut out = out;
        match ev {
            Event::Welcome { text } => {
                self.end_line(&mut out);
                let _ = writeln!(out, "{text}\n");
            }
            Event::Highlights { text } | Event::Closing { text } => {
                self.end_line(&mut out);
                let _ = writeln!(out, "\n{text}");
            }
            Event::Notice { text, .. } => {
                self.end_line(&mut out);
                let _ = writeln!(out, "\n{text}");
            }
            Event::DiligencePush { text, used, budget } => {
                self.end_line(&mut out);
                let _ = writeln!(
                    out,
                    "{}",
                    Printed::AutomaticPush {
                        used: *used,
                        budget: *budget,
                        text
                    }
                    .say(self.lang)
                );
            }
            Event::Takeaways { path } => {
                self.end_line(&mut out);
                let _ = writeln!(out, "{}", Printed::TakeawaysAt { path }.say(self.lang));
            }
            _ => {}
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
#[path = "printer_tests.rs"]
mod tests;
