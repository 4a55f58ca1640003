//! After the highlights, when the party was asked for them (`--takeaways`,
//! `--non-interactive`): the takeaways file — the note-taker's lists from
//! the model, or from the transcript when the model cannot give them, and
//! each agent's position in its own words. Pure parts: `engine::takeaways`.

use super::party::Party;
use super::stream::Reply;
use crate::engine::takeaways::{from_transcript, parse_notes, positions, render, Heading};
use crate::engine::{Event, ExitReason, TakeawaysTo};
use crate::llm::{ChatRequest, Cue};
use crate::session::{Folder, TurnKind};

impl Party {
    /// Writes the takeaways where the room was told to; says where, or why not.
    pub(super) async fn write_takeaways(&mut self, reason: ExitReason) {
        let path = match &self.room.takeaways {
            TakeawaysTo::Nowhere => return,
            TakeawaysTo::File(p) => p.clone(),
            TakeawaysTo::BesideSession => {
                let stem = self
                    .store
                    .path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                self.store.path.with_file_name(format!("{stem}.takeaways.md"))
            }
        };
        let topic = self.session.fm.topic.clone();
        let spoke = self.session.turns.iter().any(|t| t.kind == TurnKind::Agent);
        let mut notes = None;
        if spoke && reason != ExitReason::Unreachable {
            match self.ask_note_taker(|this| this.takeaways_request(&topic)).await {
                Reply::Completed { shown, .. } => {
                    notes = parse_notes(&shown);
                    if notes.is_none() {
                        tracing::info!("the takeaways' notes had none of the asked headings: taken from the transcript");
                    }
                }
                Reply::Failed(cause) | Reply::Unreachable(cause) | Reply::TooLong(cause) | Reply::Emptied(cause) => {
                    tracing::warn!(%cause, "no notes for the takeaways: taken from the transcript");
                }
                Reply::Interrupted { .. } | Reply::Quit { .. } => {}
            }
        }
        let notes = notes.unwrap_or_else(|| self.transcript_notes());
        let fm = &self.session.fm;
        let file = self.store.path.display().to_string();
        let heading = Heading {
            topic: &topic,
            date: &fm.date,
            rounds: fm.conversation_state.current_round,
            session_file: &file,
            lang: self.room.lang,
        };
        let doc = render(&heading, &notes, &positions(&self.session.turns));
        let shown = path.display().to_string();
        match crate::session::store_write(&path, &[doc.as_bytes()], Folder::MayBeNew) {
            Ok(()) => self.emit(Event::Takeaways { path: shown }),
            Err(e) => self.emit(Event::SaveFailed {
                path: shown,
                error: e.to_string(),
            }),
        }
    }

    /// The three lists from the transcript alone, for when the model
    /// gives none (the takeaways, the memory).
    pub(super) fn transcript_notes(&self) -> crate::engine::takeaways::Notes {
        from_transcript(
            &self.session.turns,
            &self.session.fm.confirmations,
            &self.room.cfg.party.consensus.disagreement_words,
            self.room.lang,
        )
    }

    /// The note-taker's request for the three lists.
    fn takeaways_request(&self, topic: &str) -> ChatRequest {
        let system = self.env().takeaways_system(topic);
        let cue = Cue::Takeaways {
            topic: topic.to_string(),
            lang: self.room.lang,
        };
        self.note_request(system, 0.2, cue)
    }
}
