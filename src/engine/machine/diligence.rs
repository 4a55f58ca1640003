//! Diligence: when the facilitator is quiet
//! after a round, the runtime nudges the room (a visible, labelled message)
//! and runs another round, within a budget; a spent budget becomes a
//! question for the facilitator. The push text, its budget and the
//! facilitator-idle timeout (a room left waiting too long ends gracefully,
//! with a warning before) live here together.
//!
//! The text: `diligence.<lang>.md`, then `diligence.md`, then the built-in
//! one. The first file that exists decides: if it is blank (after removing
//! YAML frontmatter, which is never part of the text), the push is off.

use std::time::Duration;

use tokio::time::Instant;

use super::party::Party;
use super::{minutes_text, Next, RoundInput};
use crate::engine::{ExitReason, NoticeKind, Phase};
use crate::i18n::{Lang, Room, Say};
use crate::session::ConfirmKind;
use crate::source::split_frontmatter;
use crate::source::SourceError;
use crate::workflow::Workflow;

/// The idle clock's state and the pushes' pause: when the facilitator and
/// the room last acted, whether the idle warning went out.
pub(super) struct Idle {
    /// When the facilitator last did anything (typed, sent, answered).
    facilitator_at: Instant,
    /// When the room last finished a round.
    room_at: Instant,
    pub(super) warned: bool,
    /// The facilitator chose to stop the automatic pushes until they write.
    pub(super) pushes_paused: bool,
}

impl Idle {
    pub(super) fn new() -> Idle {
        let now = Instant::now();
        Idle {
            facilitator_at: now,
            room_at: now,
            warned: false,
            pushes_paused: false,
        }
    }

    /// The facilitator did something: the idle clock starts again.
    pub(super) fn facilitator_acted(&mut self) {
        self.facilitator_at = Instant::now();
        self.warned = false;
    }

    /// The room finished a round or a call.
    pub(super) fn room_acted(&mut self) {
        self.room_at = Instant::now();
    }

    pub(super) fn room_acted_at(&self) -> Instant {
        self.room_at
    }

    /// Their last action or the room's, whichever came later.
    fn waiting_since(&self) -> Instant {
        self.facilitator_at.max(self.room_at)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum PushText {
    Text { text: String, source: String },
    Disabled { source: String },
}

fn builtin(lang: Lang) -> String {
    Room::AutomaticNudge.say(lang)
}

fn body(text: &str) -> &str {
    match split_frontmatter(text) {
        Some((_, body, _)) => body,
        None => text,
    }
}

pub(super) fn resolve(workflow: &Workflow, lang: Lang) -> Result<PushText, SourceError> {
    for rel in [format!("diligence.{}.md", lang.code()), "diligence.md".to_string()] {
        if let Some(f) = workflow.optional_file(&rel)? {
            let text = body(&f.text).trim();
            return Ok(if text.is_empty() {
                PushText::Disabled { source: f.path }
            } else {
                PushText::Text {
                    text: crate::text::sanitize(text),
                    source: f.path,
                }
            });
        }
    }
    Ok(PushText::Text {
        text: builtin(lang),
        source: "(built-in)".into(),
    })
}

/// What decides whether an automatic push may come.
struct PushState {
    has_text: bool,
    /// The room waits for the facilitator (no round, no question open).
    waiting: bool,
    questions_open: bool,
    /// The facilitator chose to wait ("wait for me") and has not written since.
    paused: bool,
    /// An agent asked the facilitator: a legitimate pause.
    agent_asked: bool,
    rounds_played: u32,
    /// Some agent takes part in pushed rounds.
    anyone_pushable: bool,
}

fn push_may_happen(s: PushState) -> bool {
    s.has_text && s.waiting && !s.questions_open && !s.paused && !s.agent_asked && s.rounds_played > 0 && s.anyone_pushable
}

/// (warning, exit) moments of the facilitator-idle timeout counted from
/// `since`: the warning a minute before (half the timeout when it is short),
/// once.
fn idle_deadlines(since: Instant, timeout: Duration, warned: bool) -> (Option<Instant>, Option<Instant>) {
    let exit = since + timeout;
    let lead = if timeout > Duration::from_secs(120) {
        Duration::from_secs(60)
    } else {
        timeout / 2
    };
    ((!warned).then(|| exit - lead), Some(exit))
}

impl Party {
    fn room_waiting(&self) -> bool {
        matches!(self.phase, Phase::Waiting | Phase::Confirming)
    }

    /// When the next push (or the budget question) is due, if one may happen.
    pub(super) fn push_deadline(&self) -> Option<Instant> {
        let s = self.state();
        let may = push_may_happen(PushState {
            has_text: matches!(self.room.push_text, PushText::Text { .. }),
            waiting: self.phase == Phase::Waiting,
            questions_open: !self.pending.is_empty(),
            paused: self.idle.pushes_paused,
            agent_asked: s.awaiting_answer_from.is_some(),
            rounds_played: s.current_round,
            anyone_pushable: self.room.agents.iter().any(|a| a.diligence_push_max.is_none_or(|m| m >= 1)),
        });
        may.then(|| self.waiting_since() + Duration::from_secs(self.room.cfg.party.diligence.idle_seconds))
    }

    /// A push (a round) or, with the budget spent, the question.
    pub(super) async fn on_push_due(&mut self) -> Next {
        let d = self.session.fm.diligence.clone();
        if d.used >= d.budget {
            let q = self.render("budget_question", &[("count", &d.used.to_string())]);
            self.raise(ConfirmKind::BudgetExhausted, None, q, None).await;
            return Next::Wait;
        }
        match self.room.push_text.clone() {
            PushText::Text { text, .. } => Next::Round(RoundInput::Push(text)),
            PushText::Disabled { .. } => Next::Listen,
        }
    }

    /// The facilitator answered the budget question: the budget resets
    /// either way; continuing pushes at once, stopping waits for them.
    pub(super) async fn budget_answered(&mut self, keep_going: bool) -> Next {
        self.session.fm.diligence.used = 0;
        self.save().await;
        if keep_going {
            if let PushText::Text { text, .. } = self.room.push_text.clone() {
                return Next::Round(RoundInput::Push(text));
            }
        } else {
            self.idle.pushes_paused = true;
            let text = self.render("pushes_paused", &[("user_name", &self.room.user_name)]);
            self.notice(NoticeKind::Info, text).await;
        }
        Next::Wait
    }

    fn idle_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.room.cfg.party.silence.user_timeout_minutes * 60.0)
    }

    /// Since when the room has been waiting on the facilitator: their last
    /// action or the room's last finished round, whichever came later. A
    /// round that takes a slow model longer than the timeout must not count
    /// as the facilitator's silence.
    fn waiting_since(&self) -> Instant {
        self.idle.waiting_since()
    }

    /// (warning, exit) moments of the facilitator-idle timeout. It runs only
    /// while the room waits: never during a round or a model call, and the
    /// engine takes a queued command before any timer (see
    /// `wait_for_command`).
    pub(super) fn idle_deadlines(&self) -> (Option<Instant>, Option<Instant>) {
        if !self.room.cfg.party.silence.enabled || !self.room_waiting() {
            return (None, None);
        }
        idle_deadlines(self.waiting_since(), self.idle_timeout(), self.idle.warned)
    }

    pub(super) async fn on_idle_warning(&mut self) {
        self.idle.warned = true;
        let left = self.waiting_since() + self.idle_timeout();
        let minutes = left.saturating_duration_since(Instant::now()).as_secs_f64() / 60.0;
        let text = self.render(
            "idle_warning",
            &[("user_name", &self.room.user_name), ("minutes", &minutes_text(minutes.max(0.01)))],
        );
        self.notice(NoticeKind::Warning, text).await;
    }

    pub(super) async fn on_idle_exit(&mut self) -> Next {
        let minutes = minutes_text(self.room.cfg.party.silence.user_timeout_minutes);
        let text = self.render("idle_exit", &[("user_name", &self.room.user_name), ("minutes", &minutes)]);
        self.state_mut().exit_flags.silence = true;
        self.notice(NoticeKind::Exit, text).await;
        Next::Exit(ExitReason::Silence)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::WorkflowSource;

    fn workflow_with(files: &[(&str, &str)]) -> (Workflow, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        (
            Workflow::load(WorkflowSource {
                dir: Some(dir.path().to_path_buf()),
            })
            .unwrap(),
            dir,
        )
    }

    fn pushable() -> PushState {
        PushState {
            has_text: true,
            waiting: true,
            questions_open: false,
            paused: false,
            agent_asked: false,
            rounds_played: 1,
            anyone_pushable: true,
        }
    }

    #[test]
    fn a_push_waits_for_a_quiet_room_after_its_first_round() {
        assert!(push_may_happen(pushable()));
        for blocked in [
            PushState {
                has_text: false,
                ..pushable()
            },
            PushState {
                waiting: false,
                ..pushable()
            },
            PushState {
                questions_open: true,
                ..pushable()
            },
            PushState {
                paused: true,
                ..pushable()
            },
            PushState {
                agent_asked: true,
                ..pushable()
            },
            PushState {
                rounds_played: 0,
                ..pushable()
            },
            PushState {
                anyone_pushable: false,
                ..pushable()
            },
        ] {
            assert!(!push_may_happen(blocked));
        }
    }

    #[test]
    fn the_idle_warning_comes_a_minute_before_or_halfway() {
        let t = Instant::now();
        let (warn, exit) = idle_deadlines(t, Duration::from_secs(300), false);
        assert_eq!(
            (warn, exit),
            (Some(t + Duration::from_secs(240)), Some(t + Duration::from_secs(300)))
        );
        let (warn, _) = idle_deadlines(t, Duration::from_secs(60), false);
        assert_eq!(warn, Some(t + Duration::from_secs(30)));
        assert_eq!(idle_deadlines(t, Duration::from_secs(60), true).0, None);
    }

    #[test]
    fn language_file_wins_and_frontmatter_is_ignored() {
        let (w, _d) = workflow_with(&[
            ("diligence.zh.md", "---\nnote: x\n---\n继续推进。\n"),
            ("diligence.md", "Keep going.\n"),
        ]);
        assert!(matches!(resolve(&w, Lang::Zh).unwrap(), PushText::Text { text, .. } if text == "继续推进。"));
        assert!(matches!(resolve(&w, Lang::En).unwrap(), PushText::Text { text, .. } if text == "Keep going."));
    }

    #[test]
    fn a_blank_file_disables_the_push() {
        let (w, _d) = workflow_with(&[("diligence.md", "---\ncomment: off\n---\n   \n")]);
        assert!(matches!(resolve(&w, Lang::En).unwrap(), PushText::Disabled { .. }));
        // The built-in workflow ships both files with text.
        let w = Workflow::load(WorkflowSource::default()).unwrap();
        assert!(
            matches!(resolve(&w, Lang::Zh).unwrap(), PushText::Text { text, source } if text.contains("自动推进") && source.ends_with("diligence.zh.md"))
        );
    }
}
