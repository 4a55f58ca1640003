//! Keys and pastes into the TUI's state: each key goes through the key
//! table (`keymap`) for the context on screen and becomes a change of state,
//! engine `Command`s, or both.

use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::super::keymap::{self, Action, Context};
use super::super::modals::{ConfirmExit, Outcome, Roster};
use super::{new_input, App, Focus, KeyOutcome, Modal, ScrollAction};
use crate::engine::Command;
use crate::i18n::{Say, Screen};

/// The most of the message box a draft carries (`App::draft`).
const DRAFT_BYTES: usize = 4_000;

impl App {
    fn take_input(&mut self) -> String {
        let text = self.input.lines().join("\n");
        self.input = new_input();
        text
    }

    /// Bracketed paste: into the modal's field or the input box.
    /// A paste goes into the open modal, else the message box; before the
    /// topic, the message box's text is told as a draft (`draft`).
    pub fn on_paste(&mut self, text: &str) -> Option<Command> {
        let clean = crate::text::sanitize(text);
        if let Some(m) = self.modals.front_mut() {
            m.component_mut().paste(&clean);
            return None;
        }
        if self.modals.is_empty() && !self.help && self.ended.is_none() {
            self.focus = Focus::Input;
            self.input.insert_str(&clean);
            return self.draft();
        }
        None
    }

    /// Before the topic, what is typed so far: the engine reads ahead the
    /// prompts of the agents it points to (`Command::Draft`).
    fn draft(&self) -> Option<Command> {
        if self.topic.is_some() {
            return None;
        }
        // Its start is enough to guess from: a long paste is not copied
        // at every key.
        let mut text = String::new();
        for line in self.input.lines() {
            if text.len() >= DRAFT_BYTES {
                break;
            }
            if !text.is_empty() {
                text.push('\n');
            }
            let room = DRAFT_BYTES.saturating_sub(text.len());
            text.push_str(&line[..crate::text::floor_char_boundary(line, room)]);
        }
        Some(Command::Draft { text })
    }

    pub fn on_key(&mut self, key: KeyEvent, now: Instant) -> KeyOutcome {
        let mut out = KeyOutcome {
            redraw: true,
            ..Default::default()
        };
        self.flash = None;

        if keymap::action(Context::Anywhere, &key) == Some(Action::Stop) {
            self.stop(now, &mut out);
            return out;
        }
        self.ctrl_c_at = None;

        let context = self.key_context();
        let action = keymap::action(context, &key);
        match context {
            Context::Ended => match action {
                Some(Action::ExportHtml) => self.keep(crate::export::Format::Html),
                Some(Action::ExportMarkdown) => self.keep(crate::export::Format::Markdown),
                _ => out.quit = true,
            },
            Context::Help => match action {
                Some(Action::LineUp) => self.help_scroll = self.help_scroll.saturating_sub(1),
                Some(Action::PageUp) => self.help_scroll = self.help_scroll.saturating_sub(10),
                Some(Action::LineDown) => self.help_scroll = self.help_scroll.saturating_add(1).min(super::super::help::MAX_SCROLL),
                Some(Action::PageDown) => self.help_scroll = self.help_scroll.saturating_add(10).min(super::super::help::MAX_SCROLL),
                _ => self.help = false,
            },
            _ if !self.modals.is_empty() => {
                let outcome = match (action, self.modals.front_mut()) {
                    (Some(a), Some(m)) => m.component_mut().on_action(a, &key),
                    _ => Outcome::Keep,
                };
                match outcome {
                    Outcome::Close(command) => {
                        self.modals.pop_front();
                        if let Some(c) = command {
                            if matches!(c, Command::Message { .. }) {
                                self.queued += 1;
                            }
                            out.commands.push(c);
                        }
                    }
                    Outcome::Send(c) => out.commands.push(c),
                    Outcome::Keep => {}
                }
            }
            _ => match keymap::action(Context::Screen, &key) {
                Some(Action::PageUp) => self.scroll(ScrollAction::PageUp),
                Some(Action::PageDown) => self.scroll(ScrollAction::PageDown),
                _ if context == Context::Typing => self.on_typing(action, key, now, &mut out),
                _ => out.redraw = self.on_menu(action, &mut out),
            },
        }
        out
    }

    /// The last reply to the clipboard (OSC 52, `KeyOutcome::copy`) and,
    /// since a terminal may refuse it unsaid, into `<session>.copied.md`
    /// beside the session file; the flash says where.
    fn copy_last(&mut self, out: &mut KeyOutcome) {
        let last = self.transcript.entries().iter().rev().find_map(|e| match &e.kind {
            super::EntryKind::Agent { id, .. } => Some((id.clone(), e.text.clone())),
            _ => None,
        });
        let Some((id, text)) = last else {
            self.flash = Some(Screen::NothingToCopy.say(self.lang));
            return;
        };
        let name = self.agent(&id).map_or(id.clone(), |a| a.name.clone());
        let shown = match self.file.as_deref() {
            Some(session) => {
                let f = crate::session::beside(std::path::Path::new(session), "copied.md");
                match crate::session::store_write(&f, &[text.as_bytes()], crate::session::Folder::Known) {
                    Ok(()) => f.display().to_string(),
                    Err(e) => format!("{}: {e}", f.display()),
                }
            }
            None => "-".into(),
        };
        self.flash = Some(Screen::Copied { name: &name, file: &shown }.say(self.lang));
        out.copy = Some(text);
    }

    /// Writes the ended session's keepsake beside it and says where (or why not).
    fn keep(&mut self, format: crate::export::Format) {
        let Some(file) = self.ended.as_ref().and_then(|(f, _)| f.clone()) else {
            return;
        };
        // The session file names its cast; no roster is needed.
        let line = match crate::export::export(std::path::Path::new(&file), format, None, |_| Vec::new()) {
            Ok(path) => match format {
                crate::export::Format::Html => format!("🌐 {} {}", Screen::WebPageAt.say(self.lang), path.display()),
                crate::export::Format::Markdown => format!("📝 {} {}", Screen::TranscriptAt.say(self.lang), path.display()),
            },
            Err(e) => format!("⚠️ {e}"),
        };
        if !self.kept.contains(&line) {
            self.kept.push(line);
        }
    }

    /// Ctrl+C: the first stops the replies, a second within 5 s quits.
    fn stop(&mut self, now: Instant, out: &mut KeyOutcome) {
        let armed = self.ctrl_c_at.is_some_and(|t| now.duration_since(t) < Duration::from_secs(5));
        if armed || self.ended.is_some() {
            out.commands.push(Command::Quit);
            out.quit = self.ended.is_some();
        } else {
            self.ctrl_c_at = Some(now);
            out.commands.push(Command::Abort);
            self.flash = Some(Screen::StoppedPressAgain.say(self.lang));
        }
    }

    fn on_typing(&mut self, action: Option<Action>, key: KeyEvent, now: Instant, out: &mut KeyOutcome) {
        match action {
            Some(Action::OpenMenu) => self.focus = Focus::Menu,
            Some(Action::NewLine) => self.input.insert_newline(),
            Some(Action::Send) => {
                let text = self.take_input();
                let text = text.trim();
                if !text.is_empty() {
                    out.commands.push(Command::Message { text: text.to_string() });
                    if self.streaming() {
                        self.queued += 1;
                    }
                    self.scroll(ScrollAction::Bottom);
                }
            }
            _ => {
                let edits = matches!(key.code, KeyCode::Char(_) | KeyCode::Backspace | KeyCode::Delete)
                    && !key.modifiers.contains(KeyModifiers::CONTROL);
                // Typing postpones an automatic push; tell the engine, sparingly.
                if edits && self.topic.is_some() && self.typing_sent.is_none_or(|t| now.duration_since(t) >= Duration::from_secs(1)) {
                    self.typing_sent = Some(now);
                    out.commands.push(Command::Typing);
                }
                self.input.input(key);
                if edits {
                    out.commands.extend(self.draft());
                }
            }
        }
    }

    /// The menu's keys; false when the key does nothing (no redraw).
    fn on_menu(&mut self, action: Option<Action>, out: &mut KeyOutcome) -> bool {
        match action {
            Some(Action::Exit) => self.modals.push_back(Modal::ConfirmExit(ConfirmExit)),
            Some(Action::Continue) => {
                if self.topic.is_some() && !self.streaming() {
                    out.commands.push(Command::Continue);
                }
            }
            Some(Action::Roster) => {
                let mut roster = Roster { rows: Vec::new(), at: 0 };
                self.refresh(&mut roster);
                self.modals.push_front(Modal::Roster(roster));
            }
            Some(Action::AskAgain | Action::Undo | Action::Summary) if self.topic.is_some() && !self.streaming() => {
                let text = match action {
                    Some(Action::Undo) => "/undo",
                    Some(Action::Summary) => "/summary",
                    _ => "/redo",
                };
                out.commands.push(Command::Message { text: text.into() });
            }
            Some(Action::Takes) if self.topic.is_some() && !self.streaming() => {
                out.commands.push(Command::Message { text: "/takes".into() });
                self.input = new_input();
                self.input.insert_str("/take ");
                self.focus = Focus::Input;
            }
            Some(Action::Copy) => self.copy_last(out),
            Some(Action::EditLast) => {
                let last = self
                    .transcript
                    .entries()
                    .iter()
                    .rev()
                    .find(|e| e.kind == super::EntryKind::Facilitator);
                if let Some(text) = last.map(|e| format!("/edit {}", e.text)) {
                    self.input = new_input();
                    self.input.insert_str(&text);
                    self.focus = Focus::Input;
                }
            }
            Some(Action::Help) => {
                self.help = true;
                self.help_scroll = 0;
            }
            Some(Action::Type) => self.focus = Focus::Input,
            Some(Action::LineUp) => self.scroll(ScrollAction::Up(1)),
            Some(Action::LineDown) => self.scroll(ScrollAction::Down(1)),
            Some(Action::Top) => self.scroll(ScrollAction::Top),
            Some(Action::Bottom) => self.scroll(ScrollAction::Bottom),
            _ => return false,
        }
        true
    }
}
