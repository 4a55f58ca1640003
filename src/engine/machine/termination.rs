//! Step 00, check-termination: after every round (and on resume), the time
//! limit that fired meanwhile, the round limit, and the round warning. A
//! limit ends the party at once with `auto_exit_enabled`, else it becomes a
//! question for the facilitator: end now, or continue N more.

use super::party::Party;
use super::{minutes_text, Next};
use crate::engine::{Event, ExitReason, NoticeKind};
use crate::session::{ConfirmKind, ConversationState};

/// How many rounds / minutes "continue" adds when the answer names none.
pub(super) const DEFAULT_EXTEND_ROUNDS: u32 = 3;
pub(super) const DEFAULT_EXTEND_MINUTES: u32 = 5;

/// What check-termination finds, in the order it looks.
#[derive(Debug, PartialEq)]
pub(super) enum Verdict {
    /// The time limit fired and is not yet recorded or asked about.
    TimeLimit,
    RoundLimit,
    /// The round warning is due, with the rounds left.
    RoundWarning {
        left: u32,
    },
    Nothing,
}

/// The state's verdict. `time_up`: the time limit fired mid-reply;
/// `limit_fired`: it fired at all; `time_question_open`: the facilitator is
/// already being asked about it.
pub(super) fn verdict(s: &ConversationState, time_up: bool, limit_fired: bool, time_question_open: bool) -> Verdict {
    if time_up || (limit_fired && !s.exit_flags.time_limit && !time_question_open) {
        return Verdict::TimeLimit;
    }
    if s.current_round >= s.max_rounds {
        // Reached before and continued past, or being asked about: nothing new.
        return if s.exit_flags.round_limit {
            Verdict::Nothing
        } else {
            Verdict::RoundLimit
        };
    }
    if s.warn_at_rounds > 0 && s.current_round >= s.warn_at_rounds && !s.warned_rounds {
        return Verdict::RoundWarning {
            left: s.max_rounds - s.current_round,
        };
    }
    Verdict::Nothing
}

impl Party {
    /// After a warning, what a speaker is told is left (rounds, minutes).
    pub(super) fn remaining_text(&self, round: u32) -> Option<String> {
        let s = self.state();
        if !(s.warned_rounds || s.warned_time) {
            return None;
        }
        let rounds_left = s.max_rounds.saturating_sub(round) + 1;
        let secs_left = self.max_seconds().saturating_sub(self.active());
        let minutes_left = secs_left.div_ceil(60);
        Some(self.render(
            "remaining",
            &[
                ("rounds_left", &rounds_left.to_string()),
                ("minutes_left", &minutes_left.to_string()),
            ],
        ))
    }

    pub(super) async fn check_termination(&mut self) -> Next {
        let time_question_open = self.pending.iter().any(|p| p.kind == ConfirmKind::TimeLimit);
        match verdict(self.state(), self.clock.time_up, self.clock.limit_fired, time_question_open) {
            Verdict::TimeLimit => {
                self.clock.time_up = false;
                self.time_limit_reached(false).await
            }
            Verdict::RoundLimit => self.round_limit_reached().await,
            Verdict::RoundWarning { left } => {
                self.state_mut().warned_rounds = true;
                let s = self.state();
                let text = self.render(
                    "round_warning",
                    &[
                        ("round", &s.current_round.to_string()),
                        ("max_rounds", &s.max_rounds.to_string()),
                        ("rounds_left", &left.to_string()),
                    ],
                );
                self.notice(NoticeKind::Warning, text).await;
                self.emit(Event::Status(self.status()));
                Next::Wait
            }
            Verdict::Nothing => Next::Wait,
        }
    }

    async fn round_limit_reached(&mut self) -> Next {
        let max = self.state().max_rounds;
        self.state_mut().exit_flags.round_limit = true;
        let text = self.render("round_limit", &[("max_rounds", &max.to_string())]);
        self.notice(NoticeKind::Limit, text).await;
        if self.room.cfg.party.auto_exit_enabled {
            return Next::Exit(ExitReason::RoundLimit);
        }
        let q = self.render(
            "round_limit_question",
            &[("max_rounds", &max.to_string()), ("extend", &DEFAULT_EXTEND_ROUNDS.to_string())],
        );
        self.raise(ConfirmKind::RoundLimit, None, q, Some(DEFAULT_EXTEND_ROUNDS)).await;
        Next::Wait
    }

    /// `announce`: say it now (it fired while the room waited); otherwise
    /// it was said when it fired mid-reply and is only recorded.
    pub(super) async fn time_limit_reached(&mut self, announce: bool) -> Next {
        let max = self.state().max_duration_minutes;
        self.state_mut().exit_flags.time_limit = true;
        let text = self.render("time_limit", &[("max_minutes", &minutes_text(max))]);
        if announce {
            self.notice(NoticeKind::Limit, text).await;
        } else {
            self.push_turn(crate::session::TurnKind::Notice, None, text, false);
            self.save().await;
        }
        if self.room.cfg.party.auto_exit_enabled {
            return Next::Exit(ExitReason::TimeLimit);
        }
        let q = self.render(
            "time_limit_question",
            &[("max_minutes", &minutes_text(max)), ("extend", &DEFAULT_EXTEND_MINUTES.to_string())],
        );
        self.raise(ConfirmKind::TimeLimit, None, q, Some(DEFAULT_EXTEND_MINUTES)).await;
        Next::Wait
    }

    /// The facilitator asked to end ([E], an exit trigger) or left.
    pub(super) async fn request_exit(&mut self, reason: ExitReason) -> Next {
        let key = match reason {
            ExitReason::UserRequested => Some("exit_requested"),
            ExitReason::FacilitatorLeft => Some("facilitator_left"),
            _ => None,
        };
        if let Some(k) = key {
            let text = self.render(k, &[("user_name", &self.room.user_name)]);
            self.notice(NoticeKind::Exit, text).await;
        }
        Next::Exit(reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(round: u32) -> ConversationState {
        let mut s = ConversationState::new(chrono::Utc::now(), 10, 8, 30.0, 25.0);
        s.current_round = round;
        s
    }

    #[test]
    fn a_time_limit_comes_before_everything_else() {
        assert_eq!(verdict(&state(10), true, true, false), Verdict::TimeLimit);
        // Fired while waiting and already asked about: not again.
        assert_eq!(verdict(&state(3), false, true, true), Verdict::Nothing);
        let mut recorded = state(3);
        recorded.exit_flags.time_limit = true;
        assert_eq!(verdict(&recorded, false, true, false), Verdict::Nothing);
    }

    #[test]
    fn the_round_limit_once_then_nothing_until_continued() {
        assert_eq!(verdict(&state(10), false, false, false), Verdict::RoundLimit);
        let mut asked = state(10);
        asked.exit_flags.round_limit = true;
        assert_eq!(verdict(&asked, false, false, false), Verdict::Nothing);
    }

    #[test]
    fn the_round_warning_once_from_its_round_on() {
        assert_eq!(verdict(&state(7), false, false, false), Verdict::Nothing);
        assert_eq!(verdict(&state(8), false, false, false), Verdict::RoundWarning { left: 2 });
        let mut warned = state(9);
        warned.warned_rounds = true;
        assert_eq!(verdict(&warned, false, false, false), Verdict::Nothing);
        let mut off = state(9);
        off.warn_at_rounds = 0;
        assert_eq!(verdict(&off, false, false, false), Verdict::Nothing);
    }
}
