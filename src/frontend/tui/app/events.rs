//! Engine events into the TUI's state, one family to a function: the
//! session, the transcript and the round, a speaker's pane, the questions.

use std::time::{Duration, Instant};

use super::super::modals::{Budget, CastModal, Limit, Proposal, TurnReset};
use super::{App, EntryKind, Modal, Pane, PaneStatus};
use crate::engine::{Event, NoticeKind};
use crate::i18n::{Say, Screen};
use crate::session::{ConfirmKind, TurnKind};

impl App {
    /// Applies an engine event. Returns true when the screen must change.
    pub fn on_event(&mut self, ev: Event) -> bool {
        if matches!(
            ev,
            Event::AgentStarted { .. }
                | Event::AgentToken { .. }
                | Event::AgentRetrying { .. }
                | Event::AgentMessage { .. }
                | Event::AgentFailed { .. }
                | Event::AgentPassed { .. }
                | Event::RoundFinished { .. }
                | Event::Farewell { .. }
                | Event::Highlights { .. }
                | Event::SessionEnded { .. }
        ) {
            // The server answered, or the call that waited for it is over.
            self.server_down_since = None;
        }
        match ev {
            ev @ (Event::SessionStarted { .. }
            | Event::ModelChosen { .. }
            | Event::AgentModels { .. }
            | Event::RoomChanged { .. }
            | Event::CleanupLevels { .. }
            | Event::SessionFile { .. }
            | Event::Earlier { .. }
            | Event::Takeaways { .. }
            | Event::Status(..)
            | Event::Rejected { .. }
            | Event::SaveFailed { .. }
            | Event::SessionEnded { .. }) => self.on_session_event(ev),
            ev @ (Event::Welcome { .. }
            | Event::FacilitatorMessage { .. }
            | Event::RoundStarted { .. }
            | Event::RoundFinished { .. }
            | Event::Notice { .. }
            | Event::DiligencePush { .. }
            | Event::ConsensusScore { .. }
            | Event::Termination { .. }
            | Event::Highlights { .. }
            | Event::Closing { .. }) => self.on_transcript_event(ev),
            ev @ (Event::AgentStarted { .. }
            | Event::AgentFirstToken { .. }
            | Event::AgentToken { .. }
            | Event::AgentMessage { .. }
            | Event::Farewell { .. }) => self.on_pane_event(ev),
            ev @ (Event::AgentRetrying { .. } | Event::ServerWaiting { .. } | Event::AgentFailed { .. } | Event::AgentPassed { .. }) => {
                self.on_pane_trouble(ev)
            }
            ev @ (Event::EndProposal { .. }
            | Event::ConfirmationRequest { .. }
            | Event::TurnConfirmationRequest(..)
            | Event::ConfirmationResolved { .. }
            | Event::AgentQuestion { .. }) => self.on_question_event(ev),
            // The engine waits: nothing typed is queued any more (a room
            // command has no message to show for it).
            Event::AwaitingInput { .. } => return std::mem::take(&mut self.queued) > 0,
            Event::CastDraft { request_id, draft, note } => self.on_cast_draft(request_id, draft, note),
            // The review is over: saved (the room's change and notices
            // say so) or not.
            Event::CastClosed { request_id, .. } => self.modals.retain(|m| m.component().request_id() != Some(request_id.as_str())),
            // Judgement records: the session file and the JSON lines have them.
            Event::SelfCheck { .. } | Event::Reading { .. } | Event::RoomRepeats { .. } => {}
        }
        true
    }

    /// The session: who is in it, its file, its status, how it ended.
    fn on_session_event(&mut self, ev: Event) {
        match ev {
            Event::SessionStarted {
                provider,
                model,
                rehearsal,
                agents,
                lang,
                user_name,
                file,
                topic,
                party,
                base_url,
                out,
                ..
            } => {
                self.room = agents.iter().map(|a| a.id.clone()).collect();
                self.out = out;
                self.party = party;
                self.provider = provider;
                self.model = model;
                self.server = base_url.as_deref().map(crate::text::host_of);
                self.rehearsal = rehearsal;
                self.agents = agents;
                self.lang = lang;
                self.user_name = user_name;
                self.file = file;
                self.topic = topic;
            }
            Event::ModelChosen { model } => self.model = model,
            // The header shows the default endpoint's.
            Event::CleanupLevels { levels } => self.cleanup = levels.iter().find(|l| l.endpoint.is_none()).map(|l| l.level.code()),
            // Pane titles and reply headings read the label from here.
            Event::AgentModels { agents } => {
                for m in agents {
                    if let Some(a) = self.agents.iter_mut().find(|a| a.id == m.id) {
                        a.model = m.model;
                    }
                }
            }
            // Who is in the room now and who is out; a leaver stays known,
            // for their earlier turns' headings.
            Event::RoomChanged { agents, out, party } => {
                self.party = party;
                self.room = agents.iter().map(|a| a.id.clone()).collect();
                for a in agents {
                    match self.agents.iter_mut().find(|b| b.id == a.id) {
                        Some(b) => *b = a,
                        None => self.agents.push(a),
                    }
                }
                self.out = out;
                self.refresh_roster();
            }
            Event::SessionFile { path } => self.file = Some(path),
            Event::Earlier { turns } => {
                for t in turns {
                    if t.kind == TurnKind::Facilitator && self.topic.is_none() {
                        self.topic = Some(t.text.clone());
                    }
                    self.push(EntryKind::earlier(&t), t.text);
                }
                let here = Screen::SittingBegins.say(self.lang);
                self.push(EntryKind::Divider, here);
            }
            Event::Takeaways { path } => {
                self.kept.push(Screen::TakeawaysAt { path: &path }.say(self.lang));
            }
            Event::Status(s) => {
                self.status = Some(s);
                self.status_at = Instant::now();
                self.refresh_roster();
            }
            Event::Rejected { message } => self.flash = Some(message),
            Event::SaveFailed { path, error } => self.push(EntryKind::Notice(NoticeKind::Error), format!("⚠️ {path}: {error}")),
            Event::SessionEnded { file, reason, .. } => {
                if file.is_some() {
                    self.file = file.clone();
                }
                self.modals.clear();
                self.ended = Some((file, reason));
            }

            _ => {}
        }
    }

    /// The transcript and the round: messages, notices, the closing.
    fn on_transcript_event(&mut self, ev: Event) {
        match ev {
            Event::Welcome { text } => self.push(EntryKind::Welcome, text),
            Event::FacilitatorMessage { text, .. } => {
                if self.topic.is_none() {
                    self.topic = Some(text.clone());
                }
                self.queued = self.queued.saturating_sub(1);
                self.push(EntryKind::Facilitator, text);
            }
            Event::RoundStarted { round, agents, .. } => {
                self.round = round;
                self.ordered_from = self.transcript.entries().len();
                self.panes = agents.into_iter().map(Pane::new).collect();
                self.round_clock = Some((Instant::now(), None));
            }
            Event::RoundFinished { .. } => {
                if let Some((start, end @ None)) = &mut self.round_clock {
                    *end = Some(start.elapsed());
                }
                for p in &mut self.panes {
                    if p.status == PaneStatus::Queued {
                        p.status = PaneStatus::Skipped;
                    }
                }
            }
            Event::Notice { kind, text } => self.push(EntryKind::Notice(kind), text),
            Event::DiligencePush { text, .. } => self.push(EntryKind::Push, text),
            Event::ConsensusScore { score, .. } => self.consensus = score,
            Event::Termination { .. } => {
                self.modals.retain(|m| !matches!(m, Modal::ConfirmExit(_)));
                self.panes.clear();
                self.ordered_from = self.transcript.entries().len();
            }
            Event::Highlights { text } => {
                self.panes.clear();
                self.push(EntryKind::Highlights, text);
            }
            Event::Closing { text } => self.push(EntryKind::Closing, text),
            _ => {}
        }
    }

    /// A speaker's pane: its reply as it streams, retries, failures and passes.
    fn on_pane_event(&mut self, ev: Event) {
        match ev {
            Event::AgentStarted { agent, .. } => {
                if self.pane_mut(&agent).is_none() {
                    // Farewells come outside a round: give them a pane too.
                    self.panes.push(Pane::new(agent.clone()));
                }
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Thinking;
                    p.text.clear();
                    p.note.clear();
                    p.since = Some(Instant::now());
                }
            }
            Event::AgentFirstToken { agent, ms } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.first_token_ms = Some(ms);
                }
            }
            Event::AgentToken { agent, text } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Streaming;
                    p.text.push_str(&text);
                    p.since = None;
                }
            }
            Event::AgentMessage {
                agent,
                text,
                interrupted,
                latency,
                ..
            } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = if interrupted { PaneStatus::Interrupted } else { PaneStatus::Done };
                    p.text = text.clone();
                    p.latency = latency;
                }
                self.push_in_order(EntryKind::Agent { id: agent, interrupted }, text);
            }
            Event::Farewell { agent, text, .. } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Done;
                }
                self.push_in_order(EntryKind::Farewell { id: agent }, text);
            }
            _ => {}
        }
    }

    /// A turn that did not go as asked: a retry, a server out of reach, a
    /// failure, a pass.
    fn on_pane_trouble(&mut self, ev: Event) {
        match ev {
            Event::AgentRetrying {
                agent,
                attempt,
                delay_ms,
                cause,
            } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Retrying;
                    p.text.clear();
                    p.note = format!("#{attempt} in {:.1}s: {cause}", delay_ms as f64 / 1000.0);
                    // The next attempt reads the prompt again once the delay is over.
                    p.since = Some(Instant::now() + std::time::Duration::from_millis(delay_ms));
                }
            }
            Event::ServerWaiting { agent, waited_ms, .. } => {
                let now = Instant::now();
                self.server_down_since = Some(now.checked_sub(Duration::from_millis(waited_ms)).unwrap_or(now));
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::ServerDown;
                    p.text.clear();
                }
            }
            Event::AgentFailed { agent, cause, .. } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Failed;
                    p.note = cause.clone();
                }
                self.push_in_order(EntryKind::Failed { id: agent }, cause);
            }
            Event::AgentPassed { agent, text, .. } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Skipped;
                    p.text.clear();
                    p.note.clear();
                }
                self.push(EntryKind::Notice(NoticeKind::Info), text);
            }
            _ => {}
        }
    }

    /// A drafted cast to review: the open review shows it changed, else
    /// the review opens in front.
    fn on_cast_draft(&mut self, request_id: String, draft: crate::engine::DraftView, note: Option<String>) {
        let open = self.modals.iter_mut().find_map(|m| match m {
            Modal::Cast(c) if c.request_id == request_id => Some(c),
            _ => None,
        });
        match open {
            Some(review) => review.update(draft, note),
            None => self.modals.push_front(Modal::Cast(CastModal::new(request_id, draft, note))),
        }
    }

    /// Questions for the facilitator become modals; an agent's goes to the transcript.
    fn on_question_event(&mut self, ev: Event) {
        match ev {
            Event::EndProposal {
                request_id,
                agent,
                response_clean,
                ..
            } if !request_id.is_empty() => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Waiting;
                }
                self.modals.push_back(Modal::Proposal(Proposal {
                    request_id,
                    kind: ConfirmKind::EndProposal,
                    agent: Some(agent),
                    text: response_clean,
                    input: String::new(),
                }));
            }
            Event::ConfirmationRequest {
                request_id,
                kind,
                text,
                extend,
            } => match kind {
                ConfirmKind::EndProposal | ConfirmKind::TurnReset => {}
                ConfirmKind::Consensus | ConfirmKind::Silence => self.modals.push_back(Modal::Proposal(Proposal {
                    request_id,
                    kind,
                    agent: None,
                    text,
                    input: String::new(),
                })),
                ConfirmKind::BudgetExhausted => self.modals.push_back(Modal::Budget(Budget { request_id, text })),
                ConfirmKind::RoundLimit | ConfirmKind::TimeLimit => self.modals.push_back(Modal::Limit(Limit {
                    request_id,
                    kind,
                    text,
                    extend: extend.unwrap_or(3),
                    continue_selected: false,
                })),
            },
            Event::TurnConfirmationRequest(r) => self.modals.push_back(Modal::TurnReset(TurnReset {
                request_id: r.request_id,
                message: r.message,
                description: r.description.unwrap_or_default(),
                reason: String::new(),
                reject_selected: false,
            })),
            Event::ConfirmationResolved { request_id, .. } => {
                self.modals.retain(|m| m.component().request_id().is_none_or(|r| r != request_id));
            }
            Event::AgentQuestion { agent, question, .. } => {
                if let Some(p) = self.pane_mut(&agent) {
                    p.status = PaneStatus::Waiting;
                }
                self.push(EntryKind::Question { id: agent }, question);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{AgentInfo, AgentModel};

    #[test]
    fn the_panes_follow_a_model_label_learnt_later() {
        let mut app = App::new(crate::i18n::Lang::En);
        let info = |id: &str, model: Option<&str>| AgentInfo {
            id: id.into(),
            name: id.into(),
            title: String::new(),
            icon: String::new(),
            color: None,
            model: model.map(String::from),
            moderator: false,
        };
        app.agents = vec![info("architect", None), info("developer", Some("llama3.2"))];
        let label = |id: &str, model: &str| AgentModel {
            id: id.into(),
            model: Some(model.into()),
        };
        let agents = vec![
            label("architect", "listed-model"),
            label("developer", "llama3.2"),
            label("gone", "x"),
        ];
        assert!(app.on_event(Event::AgentModels { agents }), "the screen changes");
        let models: Vec<_> = app.agents.iter().map(|a| a.model.as_deref()).collect();
        assert_eq!(models, [Some("listed-model"), Some("llama3.2")]);
    }
}
