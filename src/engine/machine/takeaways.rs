//! After the highlights, when the party was asked for them (`--takeaways`,
//! `--non-interactive`): the takeaways file — the note-taker's lists from
//! the model, or from the transcript when the model cannot give them, and
//! each agent's position in its own words. Pure parts: `engine::takeaways`.

use super::party::Party;
use super::stream::{Reply, StreamMode};
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
            let mut reply = self
                .stream_reply(self.takeaways_request(&topic), None, StreamMode::Silent, None)
                .await;
            if let Reply::TooLong(_) = reply {
                reply = self
                    .stream_reply(self.takeaways_request(&topic), None, StreamMode::Silent, None)
                    .await;
            }
            match reply {
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
        let fm = &self.session.fm;
        let notes = notes.unwrap_or_else(|| {
            from_transcript(
                &self.session.turns,
                &fm.confirmations,
                &self.room.cfg.party.consensus.disagreement_words,
                self.room.lang,
            )
        });
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

    /// The note-taker's request: the transcript's latest turns that fit.
    fn takeaways_request(&self, topic: &str) -> ChatRequest {
        let system = self.env().takeaways_system(topic);
        let fixed = self.room.budget.cost(&system) + 300u32.saturating_sub(self.room.budget.reply);
        let turns = self.transcript_within(&self.session.turns, fixed);
        ChatRequest {
            model: None,
            messages: self.env().highlights_messages(system, &turns),
            temperature: 0.2,
            max_tokens: Some(300),
            stop: vec![],
            cue: Cue::Takeaways {
                topic: topic.to_string(),
                lang: self.room.lang,
            },
        }
    }
}
