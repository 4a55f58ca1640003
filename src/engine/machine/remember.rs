//! The party's memory, written silently (pure parts: `engine::memory`; the
//! file: `crate::memlog`): one line once the room has had a couple of
//! rounds (BMAD's floor — a session quit and never resumed is still
//! remembered), and at the graceful exit a note-taker's handful of lines
//! (outcomes, dynamics, callbacks), or what the transcript gives when the
//! model cannot be asked. Nothing is said in the room about any of it.

use super::graceful_exit::engaged_names;
use super::party::Party;
use super::stream::Reply;
use crate::engine::memory::{check_against_transcript, fallback, parse_reply};
use crate::engine::Event;
use crate::i18n::Say;
use crate::llm::{ChatRequest, Cue};
use crate::memlog::Entry;
use crate::session::TurnKind;

/// The round after which the floor line is written.
const FLOOR_ROUND: u32 = 2;

impl Party {
    /// After a round: the floor line, once, when the room has had
    /// `FLOOR_ROUND` rounds.
    pub(super) fn remember_floor(&mut self, round: u32) {
        if round == FLOOR_ROUND && self.room.memory.is_some() {
            let line = self.session_line();
            self.write_memory(&[Entry::new("moment", None, &line)]);
        }
    }

    /// At the graceful exit: what the session leaves the party's memory.
    pub(super) async fn remember_at_end(&mut self) {
        if self.room.memory.is_none() || !self.session.turns.iter().any(|t| t.kind == TurnKind::Agent) {
            return;
        }
        let mut entries = Vec::new();
        let topic = self.session.fm.topic.clone();
        let asked = self.memory_system(&topic);
        match self.ask_note_taker(|this| this.memory_request(&asked, &topic)).await {
            Reply::Completed { shown, .. } => {
                let said: Vec<(String, String)> = (self.session.turns.iter())
                    .filter(|t| t.kind == TurnKind::Agent)
                    .filter_map(|t| Some((t.agent.clone()?, t.text.clone())))
                    .collect();
                entries = check_against_transcript(parse_reply(&shown, &self.room.agents, &asked), &said);
                if entries.is_empty() {
                    tracing::info!("the memory note-taker wrote no lines in the asked form: taken from the transcript");
                }
            }
            Reply::Failed(cause) | Reply::Unreachable(cause) | Reply::TooLong(cause) | Reply::Emptied(cause) => {
                tracing::warn!(%cause, "no memory lines from the model: taken from the transcript");
            }
            Reply::Interrupted { .. } | Reply::Quit { .. } => return,
        }
        if entries.is_empty() {
            entries = fallback(&self.transcript_notes(), &self.session_line());
        }
        let pinned = self
            .session
            .fm
            .pinned
            .iter()
            .map(|p| Entry::new("outcome", Some(&p.agent), &p.text));
        let entries: Vec<Entry> = pinned.chain(entries).collect();
        self.write_memory(&entries);
    }

    /// The session in one line: when, who brought what to whom (the
    /// agents who spoke, not the whole room).
    fn session_line(&self) -> String {
        let fm = &self.session.fm;
        let names = engaged_names(&self.room.anyone(), &self.session).join(", ");
        let topic = crate::text::ellipsize(&fm.topic, 120);
        crate::i18n::Room::MemoryLine {
            date: &fm.date.to_string(),
            user: &self.room.user_name,
            topic: &topic,
            names: &names,
        }
        .say(self.room.lang)
    }

    fn write_memory(&mut self, entries: &[Entry]) {
        let Some(m) = self.room.memory.as_mut() else { return };
        match crate::memlog::append(&m.path, entries, chrono::Local::now()) {
            Ok(n) => tracing::info!(path = %m.path.display(), added = entries.len(), entries = n, "memory written"),
            Err(e) => {
                let path = m.path.display().to_string();
                tracing::warn!(%path, %e, "the memory could not be written");
                self.emit(Event::SaveFailed {
                    path,
                    error: e.to_string(),
                });
            }
        }
    }

    /// The memory note-taker's instructions.
    fn memory_system(&self, topic: &str) -> String {
        let names = self.room.agents.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ");
        self.env().memory_system(topic, &names)
    }

    /// The memory note-taker's request, `system` its instructions.
    fn memory_request(&self, system: &str, topic: &str) -> ChatRequest {
        let cue = Cue::Memory {
            topic: topic.to_string(),
            names: self.room.agents.iter().map(|a| a.name.clone()).collect(),
            lang: self.room.lang,
        };
        self.note_request(system.to_string(), 0.3, cue)
    }
}
