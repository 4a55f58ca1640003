//! The turn-reset protocol: a facilitator message that is a reset
//! trigger is not sent to the agents; the runtime asks first. Confirmed, the
//! round counter and the agents' context restart after a divider; rejected
//! or unanswered within the timeout, the conversation goes on.

use tokio::time::Instant;

use super::confirm::Pending;
use super::party::Party;
use super::Next;
use crate::engine::Phase;
use crate::engine::{Event, NoticeKind, TurnConfirmationRequest};
use crate::session::{ConfirmKind, ConfirmStatus, ConfirmationRecord, Turn, TurnKind};

impl Party {
    pub(super) fn is_reset_trigger(&self, text: &str) -> bool {
        let t = text.trim().to_lowercase();
        self.room.cfg.party.reset_triggers.iter().any(|x| x.to_lowercase() == t)
    }

    /// The transcript the agents remember: everything after the last reset.
    pub(super) fn context_turns(&self) -> &[Turn] {
        let turns = self.session.turns.as_slice();
        &turns[self.context_start()..]
    }

    /// Where the remembered transcript starts.
    pub(super) fn context_start(&self) -> usize {
        let turns = self.session.turns.as_slice();
        turns.iter().rposition(|t| t.kind == TurnKind::Reset).map_or(0, |i| i + 1)
    }

    /// Before the first facilitator message that stands since the last
    /// confirmed reset, or since the start (one taken back with `/undo` or
    /// `/edit` does not stand): the next message is the topic.
    pub(super) fn reset_topic_pending(&self) -> bool {
        let turns = self.session.turns.as_slice();
        let from = turns.iter().rposition(|t| t.kind == TurnKind::Reset).unwrap_or(0);
        !turns[from..].iter().any(|t| t.kind == TurnKind::Facilitator)
    }

    pub(super) async fn request_reset(&mut self, message: String) {
        let id = self.next_request_id();
        let description = self.render("reset_description", &[("message", &message)]);
        let pending = self.render("reset_requested", &[("message", &message)]);
        self.session.fm.confirmations.push(ConfirmationRecord {
            request_id: id.clone(),
            kind: ConfirmKind::TurnReset,
            status: ConfirmStatus::Pending,
            reason: None,
            agent: None,
            asked_at: chrono::Utc::now(),
            answered_at: None,
        });
        let timeout = std::time::Duration::from_secs(self.room.cfg.party.confirmation_timeout_seconds);
        self.pending.push_back(Pending {
            id: id.clone(),
            kind: ConfirmKind::TurnReset,
            agent: None,
            expires: Some(Instant::now() + timeout),
        });
        self.notice(NoticeKind::Info, pending).await;
        self.emit(Event::TurnConfirmationRequest(TurnConfirmationRequest {
            request_id: id,
            message,
            description: Some(description),
        }));
        self.set_phase(Phase::Confirming);
    }

    /// The earliest unanswered reset request and when it expires.
    pub(super) fn reset_expiry(&self) -> Option<(Instant, String)> {
        self.pending
            .iter()
            .filter_map(|p| p.expires.map(|t| (t, p.id.clone())))
            .min_by_key(|(t, _)| *t)
    }

    pub(super) async fn expire_reset(&mut self, id: &str) -> Next {
        let secs = self.room.cfg.party.confirmation_timeout_seconds;
        self.answer(id, false, Some(format!("expired: no answer within {secs} s")), None)
            .await
    }

    /// Applies the answer (the record was already updated by `answer`).
    pub(super) async fn finish_reset(&mut self, confirmed: bool, reason: Option<String>) {
        let why = reason
            .filter(|r| !r.trim().is_empty())
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        if !confirmed {
            let text = self.render("reset_rejected", &[("reason", &why)]);
            self.notice(NoticeKind::Info, text).await;
            return;
        }
        let text = self.render("reset_confirmed", &[("reason", &why)]);
        self.notice(NoticeKind::Info, text).await;
        {
            let s = self.state_mut();
            s.current_round = 0;
            s.warned_rounds = false;
            s.awaiting_answer_from = None;
            s.consensus_score = None;
            s.exit_flags = Default::default();
        }
        self.judgement = Default::default();
        let divider = self.render("reset_divider", &[]);
        self.push_turn(TurnKind::Reset, None, divider.clone(), false);
        self.save().await;
        self.emit(Event::Notice {
            kind: NoticeKind::Info,
            text: divider,
        });
        self.emit(Event::Status(self.status()));
    }
}
