//! Questions for the facilitator: a proposal to end, a limit reached, the
//! push budget spent, a turn reset. Each is recorded in the session file
//! while open (`confirmations`), answered once, and carried out here.

use chrono::Utc;
use tokio::time::Instant;

use super::party::Party;
use super::termination::{DEFAULT_EXTEND_MINUTES, DEFAULT_EXTEND_ROUNDS};
use super::{minutes_text, Next};
use crate::engine::{Command, Event, ExitReason, NoticeKind, Phase};
use crate::roster::agents::Agent;
use crate::session::{ConfirmKind, ConfirmStatus, ConfirmationRecord};

/// A question waiting for the facilitator.
pub(super) struct Pending {
    pub(super) id: String,
    pub(super) kind: ConfirmKind,
    pub(super) agent: Option<String>,
    /// Turn-reset requests expire unanswered at this moment.
    pub(super) expires: Option<Instant>,
}

impl Party {
    /// Request ids count the session's confirmations: `req-1`, `req-2`…
    pub(super) fn next_request_id(&self) -> String {
        format!("req-{}", self.session.fm.confirmations.len() + 1)
    }

    pub(super) async fn raise(&mut self, kind: ConfirmKind, agent: Option<&Agent>, text: String, extend: Option<u32>) -> String {
        let id = self.next_request_id();
        self.session.fm.confirmations.push(ConfirmationRecord {
            request_id: id.clone(),
            kind,
            status: ConfirmStatus::Pending,
            reason: None,
            agent: agent.map(|a| a.id.clone()),
            asked_at: Utc::now(),
            answered_at: None,
        });
        self.pending.push_back(Pending {
            id: id.clone(),
            kind,
            agent: agent.map(|a| a.id.clone()),
            expires: None,
        });
        self.save().await;
        self.emit(Event::ConfirmationRequest {
            request_id: id.clone(),
            kind,
            text,
            extend,
        });
        self.set_phase(Phase::Confirming);
        id
    }

    pub(super) async fn end_proposal(&mut self, agent: &Agent, raw: String, clean_text: String) -> Next {
        let ed = &self.room.cfg.party.end_detection;
        if ed.auto_end || !ed.require_confirmation {
            self.emit(Event::EndProposal {
                request_id: String::new(),
                agent: agent.id.clone(),
                response_text: raw,
                response_clean: clean_text,
            });
            let text = self.render("end_accepted", &[("name", &agent.name)]);
            self.notice(NoticeKind::Exit, text).await;
            return Next::Exit(ExitReason::AgentProposed);
        }
        self.emit(Event::EndProposal {
            request_id: self.next_request_id(),
            agent: agent.id.clone(),
            response_text: raw,
            response_clean: clean_text,
        });
        let q = self.render("end_proposal", &[("name", &agent.name)]);
        self.raise(ConfirmKind::EndProposal, Some(agent), q, None).await;
        Next::Wait
    }

    /// A message while a question is open: empty confirms, text declines
    /// and is then handled as the facilitator's next message.
    pub(super) async fn answer_with_message(&mut self, text: String) -> Next {
        let Some(front) = self.pending.front() else { return Next::Wait };
        let id = front.id.clone();
        if text.is_empty() {
            return self.answer(&id, true, None, None).await;
        }
        let why = if self.room.is_exit_trigger(&text) {
            "exit requested"
        } else {
            "the facilitator continued with a message"
        };
        self.idle.pushes_paused = false;
        let next = self.answer(&id, false, Some(why.into()), None).await;
        if !matches!(next, Next::Exit(_) | Next::Quit) {
            self.room.queue.push_front(Command::Message { text });
        }
        next
    }

    /// The facilitator's answer to request `request_id`: recorded, then
    /// carried out.
    pub(super) async fn answer(&mut self, request_id: &str, confirmed: bool, reason: Option<String>, extend: Option<u32>) -> Next {
        let Some(p) = self
            .pending
            .iter()
            .position(|p| p.id == request_id)
            .and_then(|pos| self.pending.remove(pos))
        else {
            self.room.reject_answer(request_id);
            return Next::Wait;
        };
        let status = if confirmed {
            ConfirmStatus::Confirmed
        } else {
            ConfirmStatus::Rejected
        };
        if let Some(rec) = self.session.fm.confirmations.iter_mut().find(|c| c.request_id == p.id) {
            rec.status = status;
            rec.reason = reason.clone().filter(|r| !r.trim().is_empty());
            rec.answered_at = Some(Utc::now());
        }
        self.save().await;
        self.emit(Event::ConfirmationResolved {
            request_id: p.id.clone(),
            kind: p.kind,
            status,
            reason: reason.clone(),
        });
        let next = match (p.kind, confirmed) {
            (ConfirmKind::EndProposal, true) => self.end_accepted(p.agent.as_deref()).await,
            (ConfirmKind::RoundLimit, true) => Next::Exit(ExitReason::RoundLimit),
            (ConfirmKind::Consensus, true) => Next::Exit(ExitReason::Consensus),
            (ConfirmKind::Silence, true) => Next::Exit(ExitReason::Silence),
            (ConfirmKind::Consensus, false) => {
                let s = self.state_mut();
                s.exit_flags.consensus = false;
                let quiet = s.current_round + self.room.cfg.party.consensus.lookback;
                self.judgement.consensus_quiet_until = quiet;
                self.save().await;
                Next::Wait
            }
            (ConfirmKind::Silence, false) => {
                self.state_mut().exit_flags.silence = false;
                self.save().await;
                Next::Wait
            }
            (ConfirmKind::TurnReset, ok) => {
                self.finish_reset(ok, reason.clone()).await;
                Next::Wait
            }
            (ConfirmKind::BudgetExhausted, ok) => self.budget_answered(ok).await,
            (ConfirmKind::TimeLimit, true) => Next::Exit(ExitReason::TimeLimit),
            (ConfirmKind::RoundLimit, false) => self.more_rounds(extend.unwrap_or(DEFAULT_EXTEND_ROUNDS).max(1)).await,
            (ConfirmKind::TimeLimit, false) => self.more_minutes(extend.unwrap_or(DEFAULT_EXTEND_MINUTES).max(1)).await,
            (ConfirmKind::EndProposal, false) => {
                // Declined: no agent proposes again for a while.
                self.judgement.end_quiet_until = self.state().current_round + self.room.cfg.party.end_detection.quiet_rounds + 1;
                Next::Wait
            }
        };
        self.set_phase(if self.pending.is_empty() {
            Phase::Waiting
        } else {
            Phase::Confirming
        });
        next
    }

    /// An agent's proposal to end, accepted: its name in the exit notice.
    async fn end_accepted(&mut self, agent: Option<&str>) -> Next {
        let name = agent
            .and_then(|id| self.room.agents.iter().find(|a| a.id == id))
            .map(|a| a.name.clone())
            .unwrap_or_default();
        let text = self.render("end_accepted", &[("name", &name)]);
        self.notice(NoticeKind::Exit, text).await;
        Next::Exit(ExitReason::AgentProposed)
    }

    /// The round limit, moved `n` rounds on from the current round.
    async fn more_rounds(&mut self, n: u32) -> Next {
        let s = self.state_mut();
        s.max_rounds = s.current_round + n;
        s.exit_flags.round_limit = false;
        let max = s.max_rounds;
        let text = self.render("continued_rounds", &[("extend", &n.to_string()), ("max_rounds", &max.to_string())]);
        self.notice(NoticeKind::Info, text).await;
        Next::Wait
    }

    /// The time limit, moved `n` minutes on from the active time so far.
    async fn more_minutes(&mut self, n: u32) -> Next {
        let active_min = self.active() as f64 / 60.0;
        let s = self.state_mut();
        s.max_duration_minutes = (active_min + f64::from(n)).ceil();
        s.exit_flags.time_limit = false;
        let max = s.max_duration_minutes;
        self.clock.limit_fired = false;
        let text = self.render(
            "continued_minutes",
            &[("extend", &n.to_string()), ("max_minutes", &minutes_text(max))],
        );
        self.notice(NoticeKind::Info, text).await;
        Next::Wait
    }
}
