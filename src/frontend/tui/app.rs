//! The TUI's state: built from engine events (here), changed by keys and
//! pastes (`keys`), read by the view. No terminal and no HTTP here; keys go
//! through the key table (`keymap`) and turn into engine `Command`s.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use ratatui_textarea::TextArea;

use super::keymap::Context;
pub use super::modals::Modal;
use super::theme::Speakers;
pub use super::transcript::EntryKind;
pub use super::transcript::ScrollAction;
use super::transcript::Transcript;
use crate::engine::{AgentInfo, Command, ExitReason, Phase, Status};
use crate::i18n::{Lang, Say, Screen};
use crate::session::Latency;

mod events;
mod keys;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaneStatus {
    Queued,
    Thinking,
    Streaming,
    Retrying,
    /// The model's server cannot be reached; it is tried again.
    ServerDown,
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
    /// The reply's first token came this long after its request.
    pub first_token_ms: Option<u64>,
    /// The finished reply's timing.
    pub latency: Option<Latency>,
}

impl Pane {
    fn new(agent: String) -> Pane {
        Pane {
            agent,
            status: PaneStatus::Queued,
            text: String::new(),
            note: String::new(),
            since: None,
            first_token_ms: None,
            latency: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Input,
    Menu,
}

#[derive(Debug, Default, PartialEq)]
pub struct KeyOutcome {
    pub commands: Vec<Command>,
    pub quit: bool,
    pub redraw: bool,
    /// Text for the terminal's clipboard (OSC 52).
    pub copy: Option<String>,
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
    /// Every agent the session has had in the room (the headings of their
    /// turns read them from here).
    pub agents: Vec<AgentInfo>,
    /// Who is in the room now, by id, in its order.
    pub room: Vec<String>,
    /// The agents of the roster out of the room (`/invite` brings them in).
    pub out: Vec<AgentInfo>,
    pub user_name: String,
    pub provider: String,
    pub model: String,
    /// The default endpoint's reply cleanup (`full`, `light`, `off`), once told.
    pub cleanup: Option<&'static str>,
    /// The model server's host and port, for "waiting for the server".
    pub server: Option<String>,
    pub rehearsal: bool,
    pub topic: Option<String>,
    /// The named party's name (None: the default room).
    pub party: Option<String>,
    pub file: Option<String>,
    pub transcript: Transcript,
    pub panes: Vec<Pane>,
    pub round: u32,
    pub status: Option<Status>,
    /// When `status` arrived, to run the clock between events.
    pub status_at: Instant,
    /// Since when the model's server has been unreachable, while it is.
    pub server_down_since: Option<Instant>,
    pub modals: VecDeque<Modal>,
    pub help: bool,
    /// How far the help overlay is scrolled (it is taller than a small terminal).
    pub help_scroll: u16,
    pub focus: Focus,
    pub input: TextArea<'static>,
    pub ended: Option<(Option<String>, Option<ExitReason>)>,
    /// When the current round began, and how long it took once it ended.
    pub round_clock: Option<(Instant, Option<Duration>)>,
    /// Where this round's (or the farewells') entries begin.
    ordered_from: usize,
    /// `NO_COLOR`: drawn in the terminal's own colours.
    pub no_color: bool,
    /// What the final screen wrote (keepsakes), one line each.
    pub kept: Vec<String>,
    pub ctrl_c_at: Option<Instant>,
    pub flash: Option<String>,
    pub queued: usize,
    pub consensus: Option<f64>,
    /// When the last `Typing` command went out (at most one a second).
    pub typing_sent: Option<Instant>,
}

impl App {
    /// "waiting for the server at host:port (12 s)" on a pane, "waiting for
    /// host:port (12 s)" where room is short; counted from when the server was
    /// last reached.
    pub(crate) fn server_down(&self, now: Instant, short: bool) -> String {
        let secs = self.server_down_since.map_or(0, |t| now.saturating_duration_since(t).as_secs());
        match &self.server {
            Some(host) if short => Screen::WaitingForHostShort { host, secs }.say(self.lang),
            Some(host) => Screen::WaitingForHost { host, secs }.say(self.lang),
            None => Screen::WaitingForServer { secs }.say(self.lang),
        }
    }

    pub fn new(lang: Lang) -> App {
        let input = new_input();
        App {
            lang,
            agents: Vec::new(),
            room: Vec::new(),
            out: Vec::new(),
            user_name: String::new(),
            provider: String::new(),
            model: String::new(),
            cleanup: None,
            server: None,
            rehearsal: false,
            topic: None,
            party: None,
            file: None,
            transcript: Transcript::default(),
            panes: Vec::new(),
            round: 0,
            status: None,
            status_at: Instant::now(),
            server_down_since: None,
            modals: VecDeque::new(),
            help: false,
            help_scroll: 0,
            focus: Focus::Input,
            input,
            ended: None,
            kept: Vec::new(),
            no_color: false,
            round_clock: None,
            ordered_from: 0,
            ctrl_c_at: None,
            flash: None,
            queued: 0,
            consensus: None,
            typing_sent: None,
        }
    }

    /// The roster modal's rows from who is in the room now.
    fn refresh(&self, roster: &mut super::modals::Roster) {
        let (muted, next) = self.status.as_ref().map_or((&[][..], &[][..]), |s| (&s.muted[..], &s.only[..]));
        roster.refresh(&self.agents, &self.room, &self.out, muted, next);
    }

    /// An open roster modal follows the room.
    fn refresh_roster(&mut self) {
        let mut modals = std::mem::take(&mut self.modals);
        for m in modals.iter_mut() {
            if let Modal::Roster(r) = m {
                self.refresh(r);
            }
        }
        self.modals = modals;
    }

    pub(crate) fn agent(&self, id: &str) -> Option<&AgentInfo> {
        self.agents.iter().find(|a| a.id == id)
    }

    fn push(&mut self, kind: EntryKind, text: String) {
        self.transcript.push(kind, text);
    }

    /// An agent's turn in the speaking order (the panes' order) among this
    /// round's turns, whatever order their replies finished in — as the
    /// session file keeps them.
    fn push_in_order(&mut self, kind: EntryKind, text: String) {
        let rank = |id: &str| self.panes.iter().position(|p| p.agent == id);
        let Some(mine) = kind.speaker().and_then(rank) else {
            return self.push(kind, text);
        };
        let entries = self.transcript.entries();
        let later = (self.ordered_from..entries.len()).find(|&i| entries[i].kind.speaker().and_then(rank).is_some_and(|r| r > mine));
        match later {
            Some(i) => self.transcript.insert(i, kind, text),
            None => self.push(kind, text),
        }
    }

    /// Who is in the room, for the transcript's headings.
    pub(crate) fn speakers(&self) -> Speakers<'_> {
        Speakers {
            agents: &self.agents,
            lang: self.lang,
            user_name: &self.user_name,
        }
    }

    pub fn scroll(&mut self, action: ScrollAction) {
        let who = Speakers {
            agents: &self.agents,
            lang: self.lang,
            user_name: &self.user_name,
        };
        self.transcript.scroll(&who, action);
    }

    /// Which part of the key table reads the next key.
    pub(crate) fn key_context(&self) -> Context {
        if self.ended.is_some() {
            Context::Ended
        } else if self.help {
            Context::Help
        } else if let Some(m) = self.modals.front() {
            m.component().context()
        } else {
            match self.focus {
                Focus::Input => Context::Typing,
                Focus::Menu => Context::Menu,
            }
        }
    }

    fn pane_mut(&mut self, id: &str) -> Option<&mut Pane> {
        self.panes.iter_mut().find(|p| p.agent == id)
    }

    pub(crate) fn streaming(&self) -> bool {
        self.status.as_ref().is_some_and(|s| s.phase == Phase::Round)
            || self
                .panes
                .iter()
                .any(|p| matches!(p.status, PaneStatus::Thinking | PaneStatus::Streaming))
    }

    /// Seconds of active time now, running the clock between status events.
    pub(crate) fn active_seconds(&self, now: Instant) -> u64 {
        match &self.status {
            Some(s) if s.clock_running => s.active_seconds + now.saturating_duration_since(self.status_at).as_secs(),
            Some(s) => s.active_seconds,
            None => 0,
        }
    }
}
