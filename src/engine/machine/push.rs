//! Seed 002 mapped to party mode: when the facilitator is quiet after a
//! round, the runtime nudges the room (a visible, labelled message) and runs
//! another round, within a budget; a spent budget becomes a question for the
//! facilitator. Also the facilitator-idle timeout (silence): a room left
//! waiting too long ends gracefully, with a warning a minute before.

use std::time::Duration;

use tokio::time::Instant;

use super::{Engine, ExitReason, Phase, RoundInput};
use crate::engine::diligence::PushText;
use crate::engine::NoticeKind;
use crate::session::ConfirmKind;

impl Engine {
    fn room_waiting(&self) -> bool {
        self.session.is_some() && self.exit.is_none() && !self.quit && matches!(self.phase, Phase::Waiting | Phase::Confirming)
    }

    /// When the next push (or the budget question) is due, if one may happen.
    pub(super) fn push_deadline(&self) -> Option<Instant> {
        let s = self.state()?;
        let PushText::Text { .. } = &self.push_text else { return None };
        if !self.room_waiting() || self.phase != Phase::Waiting || !self.pending.is_empty() || self.pushes_paused {
            return None;
        }
        if s.awaiting_answer_from.is_some() || s.current_round == 0 {
            return None;
        }
        if !self.agents.iter().any(|a| a.diligence_push_max.is_none_or(|m| m >= 1)) {
            return None;
        }
        Some(self.waiting_since() + Duration::from_secs(self.cfg.party.diligence.idle_seconds))
    }

    pub(super) async fn on_push_due(&mut self) {
        let Some(d) = self.session.as_ref().map(|s| s.fm.diligence.clone()) else {
            return;
        };
        if d.used >= d.budget {
            let q = self.render("budget_question", &[("count", &d.used.to_string())]);
            self.raise(ConfirmKind::BudgetExhausted, None, q, None).await;
            return;
        }
        let PushText::Text { text, .. } = self.push_text.clone() else {
            return;
        };
        self.run_round(RoundInput::Push(text)).await;
    }

    /// The facilitator answered the budget question: the budget resets
    /// either way; continuing pushes at once, stopping waits for them.
    pub(super) async fn budget_answered(&mut self, keep_going: bool) {
        self.session.as_mut().expect("session").fm.diligence.used = 0;
        self.save().await;
        if keep_going {
            if let PushText::Text { text, .. } = self.push_text.clone() {
                self.set_phase(Phase::Waiting);
                self.run_round(RoundInput::Push(text)).await;
            }
        } else {
            self.pushes_paused = true;
            let text = self.render("pushes_paused", &[("user_name", &self.user_name)]);
            self.notice(NoticeKind::Info, text).await;
        }
    }

    fn idle_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.cfg.party.silence.user_timeout_minutes * 60.0)
    }

    /// Since when the room has been waiting on the facilitator: their last
    /// action or the room's last finished round, whichever came later. A
    /// round that takes a slow model longer than the timeout must not count
    /// as the facilitator's silence.
    fn waiting_since(&self) -> Instant {
        self.facilitator_active_at.max(self.room_active_at)
    }

    /// (warning, exit) moments of the facilitator-idle timeout. It runs only
    /// while the room waits: never during a round or a model call, and the
    /// engine takes a queued command before any timer (see
    /// `wait_for_command`).
    pub(super) fn idle_deadlines(&self) -> (Option<Instant>, Option<Instant>) {
        if !self.cfg.party.silence.enabled || !self.room_waiting() {
            return (None, None);
        }
        let timeout = self.idle_timeout();
        let exit = self.waiting_since() + timeout;
        let lead = if timeout > Duration::from_secs(120) {
            Duration::from_secs(60)
        } else {
            timeout / 2
        };
        let warn = (!self.idle_warned).then(|| exit - lead);
        (warn, Some(exit))
    }

    pub(super) async fn on_idle_warning(&mut self) {
        self.idle_warned = true;
        let left = self.waiting_since() + self.idle_timeout();
        let minutes = left.saturating_duration_since(Instant::now()).as_secs_f64() / 60.0;
        let text = self.render(
            "idle_warning",
            &[("user_name", &self.user_name), ("minutes", &super::minutes_text(minutes.max(0.01)))],
        );
        self.notice(NoticeKind::Warning, text).await;
    }

    pub(super) async fn on_idle_exit(&mut self) {
        let minutes = super::minutes_text(self.cfg.party.silence.user_timeout_minutes);
        let text = self.render("idle_exit", &[("user_name", &self.user_name), ("minutes", &minutes)]);
        self.state_mut().exit_flags.silence = true;
        self.notice(NoticeKind::Exit, text).await;
        self.exit = Some(ExitReason::Silence);
    }
}
