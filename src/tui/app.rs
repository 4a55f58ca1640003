//! The TUI's state: built from engine events, changed by keys, read by the
//! view. No terminal and no HTTP here; keys turn into engine `Command`s.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::TextArea;

use crate::engine::{AgentInfo, Command, Event, ExitReason, NoticeKind, Phase, Status};
use crate::i18n::Lang;
use crate::session::ConfirmKind;

#[derive(Debug, Clone, PartialEq)]
pub enum EntryKind {
    Welcome,
    Facilitator,
    Agent { id: String, interrupted: bool },
    Farewell { id: String },
    Notice(NoticeKind),
    Failed { id: String },
    Highlights,
    Closing,
    Question { id: String },
    Push,
}

/// One finished item of the transcript. Entries never change once pushed,
/// which is what makes the per-entry wrap cache valid.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub kind: EntryKind,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaneStatus {
    Queued,
    Thinking,
    Streaming,
    Retrying,
    Waiting,
    Done,
    Failed,
    Interrupted,
    /// The round ended before this agent's turn.
    Skipped,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pane {
    pub agent: String,
    pub status: PaneStatus,
    pub text: String,
    pub note: String,
    /// Since when the model has been reading the prompt (no token yet).
    pub since: Option<Instant>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Modal {
    ConfirmExit,
    /// A proposal to end: an agent's (end marker), the room's consensus, or
    /// the runtime's when the room goes in circles.
    Proposal {
        request_id: String,
        kind: ConfirmKind,
        agent: Option<String>,
        text: String,
        input: String,
    },
    Limit {
        request_id: String,
        kind: ConfirmKind,
        text: String,
        extend: u32,
        continue_selected: bool,
    },
    /// Seed 003: confirm or reject a reset, with an optional reason.
    TurnReset {
        request_id: String,
        message: String,
        description: String,
        reason: String,
        reject_selected: bool,
    },
    /// The push budget is spent: keep going on its own, or wait.
    Budget {
        request_id: String,
        text: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Input,
    Menu,
}

/// What a key asks of the view (scrolling needs the layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScrollAction {
    Up(usize),
    Down(usize),
    PageUp,
    PageDown,
    Top,
    Bottom,
}

#[derive(Debug, Default, PartialEq)]
pub struct KeyOutcome {
    pub commands: Vec<Command>,
    pub scroll: Option<ScrollAction>,
    pub quit: bool,
    pub redraw: bool,
}

/// The message box: soft-wrapped, no highlighted cursor line.
fn new_input() -> TextArea<'static> {
    let mut t = TextArea::default();
    t.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
    t.set_cursor_line_style(ratatui::style::Style::default());
    t
}

pub struct App {
    pub lang: Lang,
    pub agents: Vec<AgentInfo>,
    pub user_name: String,
    pub provider: String,
    pub model: String,
    pub rehearsal: bool,
    pub topic: Option<String>,
    pub file: Option<String>,
    pub entries: Vec<Entry>,
    pub panes: Vec<Pane>,
    pub round: u32,
    pub status: Option<Status>,
    /// When `status` arrived, to run the clock between events.
    pub status_at: Instant,
    pub modals: VecDeque<Modal>,
    pub help: bool,
    pub focus: Focus,
    pub input: TextArea<'static>,
    /// Set while the reader is scrolled up and something new arrived.
    pub new_below: bool,
    pub scrolled: bool,
    pub ended: Option<(Option<String>, Option<ExitReason>)>,
    pub ctrl_c_at: Option<Instant>,
    pub flash: Option<String>,
    pub queued: usize,
    pub consensus: Option<f64>,
    /// When the last `Typing` command went out (at most one a second).
    pub typing_sent: Option<Instant>,
}

impl App {
    pub fn new(lang: Lang) -> App {
        let input = new_input();
        App {
            lang,
            agents: Vec::new(),
            user_name: String::new(),
            provider: String::new(),
            model: String::new(),
            rehearsal: false,
            topic: None,
            file: None,
            entries: Vec::new(),
            panes: Vec::new(),
            round: 0,
            status: None,
            status_at: Instant::now(),
            modals: VecDeque::new(),
            help: false,
            focus: Focus::Input,
            input,
            new_below: false,
            scrolled: false,
            ended: None,
            ctrl_c_at: None,
            flash: None,
            queued: 0,
            consensus: None,
            typing_sent: None,
        }
    }

    pub fn agent(&self, id: &str) -> Option<&AgentInfo> {
        self.agents.iter().find(|a| a.id == id)
    }

    fn push(&mut self, kind: EntryKind, text: String) {
        self.entries.push(Entry { kind, text });
        if self.scrolled {
            self.new_below = true;
        }
    }

    fn pane_mut(&mut self, id: &str) -> Option<&mut Pane> {
        self.panes.iter_mut().find(|p| p.agent == id)
    }

    pub fn streaming(&self) -> bool {
        self.status.as_ref().is_some_and(|s| s.phase == Phase::Round)
            || self
                .panes
                .iter()
                .any(|p| matches!(p.status, PaneStatus::Thinking | PaneStatus::Streaming))
    }

    /// Seconds of active time now, running the clock between status events.
    pub fn active_seconds(&self, now: Instant) -> u64 {
        match &self.status {
            Some(s) if s.clock_running => s.active_seconds + now.saturating_duration_since(self.status_at).as_secs(),
            Some(s) => s.active_seconds,
            None => 0,
        }
    }

    /// Applies an engine event. Returns true when the screen must change.
    pub fn on_event(&mut self, ev: Event) -> bool {
        match ev {
            Event::SessionStarted {
                provider,
                model,
                rehearsal,
                agents,
                lang,
                user_name,
                file,
                topic,
                ..
            } => {
                self.provider = provider;
                self.model = model;
                self.rehearsal = rehearsal;
                self.agents = agents;
                self.lang = lang;
                self.user_name = user_name;
                self.file = file;
                self.topic = topic;
            }
            Event::Welcome { text } => self.push(EntryKind::Welcome, text),
            Event::SessionFile { path } => self.file = Some(path),
            Event::FacilitatorMessage { text, .. } => {
                if self.topic.is_none() {
                    self.topic = Some(text.clone());
                }
                self.queued = self.queued.saturating_sub(1);
                self.push(EntryKind::Facilitator, text);
            }
            Event::RoundStarted { round, agents, .. } => {
                self.round = round;
                self.panes = agents
                    .into_iter()
                    .map(|a| Pane {
                        agent: a,
                        status: PaneStatus::Queued,
                        text: String::new(),
                        note: String::new(),
                        since: None,
                    })
                    .collect();
            }
            Event::AgentStarted { agent, .. } => {
                if self.pane_mut(&agent).is_none() {
                    // Farewells come outside a round: give them a pane too.
                    self.panes.push(Pane {
                        agent: agent.clone(),
                        status: PaneStatus::Queued,
                        text: String::new(),
                        note: String::new(),
                        since: None,
                    });
                }
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Thinking;
                    p.text.clear();
                    p.note.clear();
                    p.since = Some(Instant::now());
                }
            }
            Event::AgentToken { agent, text } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Streaming;
                    p.text.push_str(&text);
                    p.since = None;
                }
            }
            Event::AgentRetrying {
                agent,
                attempt,
                delay_ms,
                cause,
            } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Retrying;
                    p.text.clear();
                    p.note = format!("#{attempt} in {:.1}s: {cause}", delay_ms as f64 / 1000.0);
                    // The next attempt reads the prompt again once the delay is over.
                    p.since = Some(Instant::now() + std::time::Duration::from_millis(delay_ms));
                }
            }
            Event::AgentMessage {
                agent, text, interrupted, ..
            } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = if interrupted { PaneStatus::Interrupted } else { PaneStatus::Done };
                    p.text = text.clone();
                }
                self.push(EntryKind::Agent { id: agent, interrupted }, text);
            }
            Event::AgentFailed { agent, cause, .. } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Failed;
                    p.note = cause.clone();
                }
                self.push(EntryKind::Failed { id: agent }, cause);
            }
            Event::AgentPassed { agent, text, .. } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Skipped;
                    p.text.clear();
                    p.note.clear();
                }
                self.push(EntryKind::Notice(NoticeKind::Info), text);
            }
            Event::RoundFinished { .. } => {
                for p in &mut self.panes {
                    if p.status == PaneStatus::Queued {
                        p.status = PaneStatus::Skipped;
                    }
                }
            }
            Event::Notice { kind, text } => self.push(EntryKind::Notice(kind), text),
            Event::EndProposal {
                request_id,
                agent,
                response_clean,
                ..
            } => {
                if !request_id.is_empty() {
                    if let Some(p) = self.pane_mut(&agent) {
                        p.status = PaneStatus::Waiting;
                    }
                    self.modals.push_back(Modal::Proposal {
                        request_id,
                        kind: ConfirmKind::EndProposal,
                        agent: Some(agent),
                        text: response_clean,
                        input: String::new(),
                    });
                }
            }
            Event::ConfirmationRequest {
                request_id,
                kind,
                text,
                extend,
            } => match kind {
                ConfirmKind::EndProposal | ConfirmKind::TurnReset => {}
                ConfirmKind::Consensus | ConfirmKind::Silence => self.modals.push_back(Modal::Proposal {
                    request_id,
                    kind,
                    agent: None,
                    text,
                    input: String::new(),
                }),
                ConfirmKind::BudgetExhausted => self.modals.push_back(Modal::Budget { request_id, text }),
                ConfirmKind::RoundLimit | ConfirmKind::TimeLimit => self.modals.push_back(Modal::Limit {
                    request_id,
                    kind,
                    text,
                    extend: extend.unwrap_or(3),
                    continue_selected: false,
                }),
            },
            Event::TurnConfirmationRequest(r) => self.modals.push_back(Modal::TurnReset {
                request_id: r.request_id,
                message: r.message,
                description: r.description.unwrap_or_default(),
                reason: String::new(),
                reject_selected: false,
            }),
            Event::ConfirmationResolved { request_id, .. } => {
                self.modals.retain(|m| match m {
                    Modal::Proposal { request_id: r, .. }
                    | Modal::Limit { request_id: r, .. }
                    | Modal::TurnReset { request_id: r, .. }
                    | Modal::Budget { request_id: r, .. } => *r != request_id,
                    Modal::ConfirmExit => true,
                });
            }
            Event::AgentQuestion { agent, question, .. } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Waiting;
                }
                self.push(EntryKind::Question { id: agent }, question);
            }
            Event::DiligencePush { text, .. } => self.push(EntryKind::Push, text),
            Event::ConsensusScore { score, .. } => self.consensus = score,
            Event::Termination { .. } => {
                self.modals.retain(|m| *m != Modal::ConfirmExit);
                self.panes.clear();
            }
            Event::Farewell { agent, text, .. } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Done;
                }
                self.push(EntryKind::Farewell { id: agent }, text);
            }
            Event::Highlights { text } => {
                self.panes.clear();
                self.push(EntryKind::Highlights, text);
            }
            Event::Closing { text } => self.push(EntryKind::Closing, text),
            Event::Status(s) => {
                self.status = Some(s);
                self.status_at = Instant::now();
            }
            Event::AwaitingInput { .. } => return false,
            Event::Rejected { message } => self.flash = Some(message),
            Event::SaveFailed { path, error } => self.push(EntryKind::Notice(NoticeKind::Error), format!("⚠️ {path}: {error}")),
            Event::SessionEnded { file, reason, .. } => {
                if file.is_some() {
                    self.file = file.clone();
                }
                self.modals.clear();
                self.ended = Some((file, reason));
            }
        }
        true
    }

    fn take_input(&mut self) -> String {
        let text = self.input.lines().join("\n");
        self.input = new_input();
        text
    }

    /// Bracketed paste: into the modal's field or the input box.
    pub fn on_paste(&mut self, text: &str) {
        let clean = crate::text::sanitize(text);
        match self.modals.front_mut() {
            Some(Modal::Proposal { input, .. }) | Some(Modal::TurnReset { reason: input, .. }) => {
                input.push_str(&clean.replace('\n', " "));
                return;
            }
            _ => {}
        }
        if self.modals.is_empty() && !self.help && self.ended.is_none() {
            self.focus = Focus::Input;
            self.input.insert_str(&clean);
        }
    }

    pub fn on_key(&mut self, key: KeyEvent, now: Instant) -> KeyOutcome {
        let mut out = KeyOutcome {
            redraw: true,
            ..Default::default()
        };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        self.flash = None;

        // Ctrl+C works everywhere: first stops the replies, second quits.
        if ctrl && key.code == KeyCode::Char('c') {
            let armed = self.ctrl_c_at.is_some_and(|t| now.duration_since(t) < Duration::from_secs(5));
            if armed || self.ended.is_some() {
                out.commands.push(Command::Quit);
                out.quit = self.ended.is_some();
            } else {
                self.ctrl_c_at = Some(now);
                out.commands.push(Command::Abort);
                self.flash = Some(match self.lang {
                    Lang::Zh => "已停止生成。再按一次 Ctrl+C 立即退出（状态已保存）。".into(),
                    Lang::En => "Stopped the replies. Press Ctrl+C again to quit now (state is saved).".into(),
                });
            }
            return out;
        }
        self.ctrl_c_at = None;

        if self.ended.is_some() {
            out.quit = true;
            return out;
        }
        if self.help {
            self.help = false;
            return out;
        }
        if let Some(modal) = self.modals.front_mut() {
            match modal {
                Modal::ConfirmExit => match key.code {
                    KeyCode::Enter | KeyCode::Char('y' | 'Y' | 'e' | 'E') => {
                        self.modals.pop_front();
                        out.commands.push(Command::Exit);
                    }
                    KeyCode::Esc | KeyCode::Char('n' | 'N' | 'q') => {
                        self.modals.pop_front();
                    }
                    _ => {}
                },
                Modal::Budget { request_id, .. } => match key.code {
                    KeyCode::Enter | KeyCode::Char('y' | 'Y' | 'c' | 'C') => {
                        out.commands.push(Command::Answer {
                            request_id: request_id.clone(),
                            confirmed: true,
                            reason: None,
                            extend: None,
                        });
                        self.modals.pop_front();
                    }
                    KeyCode::Esc | KeyCode::Char('n' | 'N' | 's' | 'S') => {
                        out.commands.push(Command::Answer {
                            request_id: request_id.clone(),
                            confirmed: false,
                            reason: None,
                            extend: None,
                        });
                        self.modals.pop_front();
                    }
                    _ => {}
                },
                Modal::TurnReset {
                    request_id,
                    reason,
                    reject_selected,
                    ..
                } => match key.code {
                    KeyCode::Tab | KeyCode::BackTab | KeyCode::Left | KeyCode::Right => *reject_selected = !*reject_selected,
                    KeyCode::Enter | KeyCode::Esc => {
                        let confirmed = key.code == KeyCode::Enter && !*reject_selected;
                        let reason = Some(reason.trim().to_string()).filter(|r| !r.is_empty());
                        out.commands
                            .push(Command::TurnConfirmationResponse(crate::engine::TurnConfirmationResponse {
                                request_id: request_id.clone(),
                                confirmed,
                                reason,
                            }));
                        self.modals.pop_front();
                    }
                    KeyCode::Backspace => {
                        reason.pop();
                    }
                    KeyCode::Char(c) if !ctrl => reason.push(c),
                    _ => {}
                },
                Modal::Proposal { request_id, input, .. } => match key.code {
                    KeyCode::Enter if input.trim().is_empty() => {
                        out.commands.push(Command::Answer {
                            request_id: request_id.clone(),
                            confirmed: true,
                            reason: None,
                            extend: None,
                        });
                        self.modals.pop_front();
                    }
                    KeyCode::Enter => {
                        // A message declines the proposal and goes to the room.
                        out.commands.push(Command::Message {
                            text: input.trim().to_string(),
                        });
                        self.queued += 1;
                        self.modals.pop_front();
                    }
                    KeyCode::Esc => {
                        out.commands.push(Command::Answer {
                            request_id: request_id.clone(),
                            confirmed: false,
                            reason: Some("continue".into()),
                            extend: None,
                        });
                        self.modals.pop_front();
                    }
                    KeyCode::Backspace => {
                        input.pop();
                    }
                    KeyCode::Char(c) if !ctrl => input.push(c),
                    _ => {}
                },
                Modal::Limit {
                    request_id,
                    extend,
                    continue_selected,
                    ..
                } => match key.code {
                    KeyCode::Left | KeyCode::Right | KeyCode::Tab | KeyCode::BackTab => *continue_selected = !*continue_selected,
                    KeyCode::Char('+' | '=') | KeyCode::Up => *extend = (*extend + 1).min(999),
                    KeyCode::Char('-') | KeyCode::Down => *extend = extend.saturating_sub(1).max(1),
                    KeyCode::Char('e' | 'E') => {
                        out.commands.push(Command::Answer {
                            request_id: request_id.clone(),
                            confirmed: true,
                            reason: None,
                            extend: None,
                        });
                        self.modals.pop_front();
                    }
                    KeyCode::Char('c' | 'C') => {
                        out.commands.push(Command::Answer {
                            request_id: request_id.clone(),
                            confirmed: false,
                            reason: None,
                            extend: Some(*extend),
                        });
                        self.modals.pop_front();
                    }
                    KeyCode::Enter => {
                        let cmd = if *continue_selected {
                            Command::Answer {
                                request_id: request_id.clone(),
                                confirmed: false,
                                reason: None,
                                extend: Some(*extend),
                            }
                        } else {
                            Command::Answer {
                                request_id: request_id.clone(),
                                confirmed: true,
                                reason: None,
                                extend: None,
                            }
                        };
                        out.commands.push(cmd);
                        self.modals.pop_front();
                    }
                    _ => {}
                },
            }
            return out;
        }

        let scroll = match key.code {
            KeyCode::PageUp => Some(ScrollAction::PageUp),
            KeyCode::PageDown => Some(ScrollAction::PageDown),
            _ => None,
        };
        if scroll.is_some() {
            out.scroll = scroll;
            return out;
        }

        match self.focus {
            Focus::Input => match key.code {
                KeyCode::Esc => self.focus = Focus::Menu,
                KeyCode::Char(_) | KeyCode::Backspace | KeyCode::Delete if self.topic.is_some() => {
                    // Typing postpones an automatic push; tell the engine, sparingly.
                    if self.typing_sent.is_none_or(|t| now.duration_since(t) >= Duration::from_secs(1)) {
                        self.typing_sent = Some(now);
                        out.commands.push(Command::Typing);
                    }
                    self.input.input(key);
                }
                KeyCode::Enter if key.modifiers.intersects(KeyModifiers::ALT | KeyModifiers::SHIFT) => self.input.insert_newline(),
                KeyCode::Enter => {
                    let text = self.take_input();
                    let text = text.trim();
                    if !text.is_empty() {
                        out.commands.push(Command::Message { text: text.to_string() });
                        if self.streaming() {
                            self.queued += 1;
                        }
                        out.scroll = Some(ScrollAction::Bottom);
                    }
                }
                _ => {
                    self.input.input(key);
                }
            },
            Focus::Menu => match key.code {
                KeyCode::Char('e' | 'E') => self.modals.push_back(Modal::ConfirmExit),
                KeyCode::Char('c' | 'C') => {
                    if self.topic.is_some() && !self.streaming() {
                        out.commands.push(Command::Continue);
                    }
                }
                KeyCode::Char('?') => self.help = true,
                KeyCode::Char('i') | KeyCode::Enter => self.focus = Focus::Input,
                KeyCode::Up | KeyCode::Char('k') => out.scroll = Some(ScrollAction::Up(1)),
                KeyCode::Down | KeyCode::Char('j') => out.scroll = Some(ScrollAction::Down(1)),
                KeyCode::Home | KeyCode::Char('g') => out.scroll = Some(ScrollAction::Top),
                KeyCode::End | KeyCode::Char('G') => out.scroll = Some(ScrollAction::Bottom),
                _ => out.redraw = false,
            },
        }
        out
    }
}
