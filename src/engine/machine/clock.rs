//! Active time: the clock runs only while the program does (a resumed
//! session goes on from what its file says), with a warning and a limit.

use std::time::Duration;

use tokio::time::Instant;

use super::party::Party;
use super::{minutes_text, Next};
use crate::engine::{Event, NoticeKind};

pub(super) struct Clock {
    /// When the clock (re)started, and the active seconds counted before.
    opened: Instant,
    base: u64,
    /// The time limit fired (and was announced).
    pub(super) limit_fired: bool,
    /// The limit fired mid-reply: the reply finishes, the round stops, and
    /// check-termination takes it from there.
    pub(super) time_up: bool,
}

impl Clock {
    pub(super) fn start(base: u64, limit_fired: bool) -> Clock {
        Clock {
            opened: Instant::now(),
            base,
            limit_fired,
            time_up: false,
        }
    }

    pub(super) fn active(&self) -> u64 {
        self.base + self.opened.elapsed().as_secs()
    }

    /// When `minutes` of active time will have passed.
    fn moment(&self, minutes: f64) -> Instant {
        let left = (minutes * 60.0 - self.base as f64).max(0.0);
        self.opened + Duration::from_secs_f64(left)
    }
}

/// Waits until `deadline`; forever when there is none.
pub(super) async fn at(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// A timer re-armed only when its deadline changes. `at` builds a new
/// `Sleep` each time, and a new `Sleep` registers with the timer wheel and
/// wakes the I/O driver (a syscall) — fine per command, too much per token.
pub(super) struct Alarm {
    deadline: Option<Instant>,
    sleep: std::pin::Pin<Box<tokio::time::Sleep>>,
}

impl Alarm {
    pub(super) fn new(deadline: Option<Instant>) -> Alarm {
        // The far-off instant is never awaited: `ring` pends while unset.
        let sleep = Box::pin(tokio::time::sleep_until(
            deadline.unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400 * 365)),
        ));
        Alarm { deadline, sleep }
    }

    pub(super) fn set(&mut self, deadline: Option<Instant>) {
        if deadline != self.deadline {
            self.deadline = deadline;
            if let Some(d) = deadline {
                self.sleep.as_mut().reset(d);
            }
        }
    }

    pub(super) async fn ring(&mut self) {
        match self.deadline {
            Some(_) => self.sleep.as_mut().await,
            None => std::future::pending().await,
        }
    }
}

impl Party {
    pub(super) fn active(&self) -> u64 {
        self.clock.active()
    }

    pub(super) fn max_seconds(&self) -> u64 {
        (self.state().max_duration_minutes * 60.0).round() as u64
    }

    pub(super) fn time_deadline(&self) -> Option<Instant> {
        let s = self.state();
        if self.clock.limit_fired || !s.max_duration_minutes.is_finite() {
            return None;
        }
        Some(self.clock.moment(s.max_duration_minutes))
    }

    pub(super) fn warn_deadline(&self) -> Option<Instant> {
        let s = self.state();
        if s.warned_time || s.warn_at_minutes <= 0.0 || self.clock.limit_fired {
            return None;
        }
        Some(self.clock.moment(s.warn_at_minutes))
    }

    pub(super) async fn on_time_warning(&mut self) {
        let s = self.state().clone();
        if s.warned_time {
            return;
        }
        self.state_mut().warned_time = true;
        let left = (s.max_duration_minutes - s.warn_at_minutes).max(0.0);
        let text = self.render(
            "time_warning",
            &[
                ("minutes", &minutes_text(s.warn_at_minutes)),
                ("max_minutes", &minutes_text(s.max_duration_minutes)),
                ("minutes_left", &minutes_text(left)),
            ],
        );
        self.notice(NoticeKind::Warning, text).await;
        self.emit(Event::Status(self.status()));
    }

    /// The time limit fired while the room waits: check-termination's
    /// time-limit step at once.
    pub(super) async fn on_time_limit(&mut self) -> Next {
        if self.clock.limit_fired {
            return Next::Listen;
        }
        self.clock.limit_fired = true;
        self.time_limit_reached(true).await
    }

    /// The time limit fired while a reply streams: said at once; the agent
    /// speaking finishes, the round stops after it, and the limit is
    /// recorded by check-termination.
    pub(super) fn time_limit_mid_reply(&mut self) {
        if self.clock.limit_fired {
            return;
        }
        self.clock.limit_fired = true;
        self.clock.time_up = true;
        let max = self.state().max_duration_minutes;
        let text = self.render("time_limit", &[("max_minutes", &minutes_text(max))]);
        self.emit(Event::Notice {
            kind: NoticeKind::Limit,
            text,
        });
    }
}
