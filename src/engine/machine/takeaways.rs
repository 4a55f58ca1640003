//! After the highlights, when the party was asked for them (`--takeaways`,
//! `--non-interactive`), or at any time with `/takeaways` (`/summary`
//! puts the same lists into the transcript): the takeaways file — the note-taker's lists from
//! the model, or from the transcript when the model cannot give them, and
//! each agent's position in its own words. Pure parts: `engine::takeaways`.

use super::party::Party;
use super::stream::Reply;
use std::path::{Path, PathBuf};

use super::Next;
use crate::engine::takeaways::{from_transcript, parse_notes, positions, render, summary, Heading, Notes, OnDemand};
use crate::engine::{Event, ExitReason, NoticeKind, Phase, TakeawaysTo};
use crate::i18n::Say;
use crate::llm::{ChatRequest, Cue};
use crate::session::{Folder, TurnKind};

impl Party {
    /// Writes the takeaways where the room was told to; says where, or why not.
    pub(super) async fn write_takeaways(&mut self, reason: ExitReason) {
        let path = match &self.room.takeaways {
            TakeawaysTo::Nowhere => return,
            TakeawaysTo::File(p) => p.clone(),
            TakeawaysTo::BesideSession => self.beside_session(),
        };
        self.takeaways_to(&path, reason != ExitReason::Unreachable).await;
    }

    /// `<session>.takeaways.md`, beside the session file.
    fn beside_session(&self) -> PathBuf {
        crate::session::beside(&self.store.path, "takeaways.md")
    }

    /// The takeaways written to `path` (the note-taker asked when `ask`);
    /// told with `takeaways`, or `save_failed`. True when written.
    async fn takeaways_to(&mut self, path: &Path, ask: bool) -> bool {
        let topic = self.session.fm.topic.clone();
        let notes = self.notes(ask).await;
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
        match crate::session::store_write(path, &[doc.as_bytes()], Folder::MayBeNew) {
            Ok(()) => {
                self.emit(Event::Takeaways { path: shown });
                true
            }
            Err(e) => {
                self.emit(Event::SaveFailed {
                    path: shown,
                    error: e.to_string(),
                });
                false
            }
        }
    }

    /// The three lists: the note-taker's when `ask` and an agent spoke,
    /// else (or when it gives none) the transcript's.
    async fn notes(&mut self, ask: bool) -> Notes {
        let topic = self.session.fm.topic.clone();
        let spoke = self.session.turns.iter().any(|t| t.kind == TurnKind::Agent);
        let mut notes = None;
        if spoke && ask {
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
        let mut notes = notes.unwrap_or_else(|| self.transcript_notes());
        notes.decisions = crate::engine::pins::decisions_first(&self.session.fm.pinned, &notes.decisions);
        notes
    }

    /// `/summary` and `/takeaways [PATH]` while the party goes on: where
    /// the room stands into the transcript (a notice, saved), or the
    /// takeaways file written now (`PATH`, else where the party writes it,
    /// else beside the session; written again at the end as the party
    /// asks).
    pub(super) async fn on_demand(&mut self, ask: OnDemand) -> Next {
        let lang = self.room.lang;
        if !self.session.turns.iter().any(|t| t.kind == TurnKind::Agent) {
            self.emit(Event::Rejected {
                message: crate::i18n::Room::NothingToSumUp.say(lang),
            });
            return Next::Wait;
        }
        self.set_phase(Phase::Round);
        match ask {
            OnDemand::Summary => {
                let notes = self.notes(true).await;
                let round = self.state().current_round;
                let text = summary(round, &notes, &positions(&self.session.turns), lang);
                self.notice(NoticeKind::Info, text).await;
            }
            OnDemand::Takeaways(path) => {
                let path = match (path, &self.room.takeaways) {
                    (Some(p), _) => p,
                    (None, TakeawaysTo::File(p)) => p.clone(),
                    (None, _) => self.beside_session(),
                };
                if self.takeaways_to(&path, true).await {
                    let path = path.display().to_string();
                    self.notice(NoticeKind::Info, crate::i18n::Room::TakeawaysWritten { path: &path }.say(lang))
                        .await;
                }
            }
        }
        self.idle.room_acted();
        self.set_phase(Phase::Waiting);
        Next::Wait
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
