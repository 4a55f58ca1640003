//! Step 03, the graceful exit: whatever ended the party, the room says
//! goodbye in character, the highlights sum it up, and the session file is
//! marked completed. `quit_now` is the other way out: saved, resumable.

use chrono::Utc;

use super::minutes_text;
use super::party::Party;
use super::stream::{Reply, StreamMode};
use super::takes::{Places, Takes};
use crate::engine::cleanup::Voices;
use crate::engine::{Event, ExitReason, NoticeKind, Phase};
use crate::llm::{ChatRequest, Cue};
use crate::roster::agents::Agent;
use crate::session::{ConfirmKind, ConfirmStatus, ExitFlags, Session, StepId, Turn, TurnKind};

impl Party {
    /// Step 03: open questions closed, thanks, farewells of the most
    /// engaged agents, the highlights, the closing, and the file marked
    /// completed.
    pub(super) async fn graceful_exit(mut self, reason: ExitReason) {
        self.stop_warming();
        self.set_phase(Phase::Exiting);
        self.close_open_questions();
        raise(&mut self.state_mut().exit_flags, reason);
        self.state_mut().exit_reason = Some(reason.code().to_string());
        let exiting = self.render("exiting", &[]);
        self.notice(NoticeKind::Exit, exiting.clone()).await;
        self.emit(Event::Termination { reason, text: exiting });
        let thanks = self.render("thanks", &[("user_name", &self.room.user_name)]);
        self.notice(NoticeKind::Info, thanks).await;

        let topic = self.session.fm.topic.clone();
        let engaged = self.most_engaged();
        let quit = self.farewells(&engaged, &topic).await;

        let highlights = self.highlights(reason, &topic, quit).await;
        self.push_turn(TurnKind::Highlights, None, highlights.clone(), false);
        self.emit(Event::Highlights { text: highlights });
        if !quit {
            self.remember_at_end().await;
            self.write_takeaways(reason).await;
        }
        let closing = self.render("closing", &[]);
        self.push_turn(TurnKind::Closing, None, closing.clone(), false);
        self.emit(Event::Closing { text: closing });

        let fm = &mut self.session.fm;
        fm.party_active = false;
        fm.workflow_completed = true;
        fm.steps_completed = vec![StepId::Number(1), StepId::Number(2), StepId::Number(3)];
        self.save().await;
        self.set_phase(Phase::Ended);
        self.emit(self.ended(Some(reason), true));
    }

    /// Questions still open are moot once the party ends: recorded as
    /// rejected, with why.
    fn close_open_questions(&mut self) {
        let open: Vec<String> = self.pending.drain(..).map(|p| p.id).collect();
        for c in self.session.fm.confirmations.iter_mut().filter(|c| open.contains(&c.request_id)) {
            c.status = ConfirmStatus::Rejected;
            c.reason = Some("the party ended".into());
            c.answered_at = Some(Utc::now());
        }
    }

    /// The "Session highlights" paragraph: topic, perspectives, rounds, why
    /// it ended, and the note-taker's outcomes when the room spoke and the
    /// facilitator did not quit.
    async fn highlights(&mut self, reason: ExitReason, topic: &str, quit: bool) -> String {
        let rounds = self.state().current_round;
        let perspectives = engaged_names(&self.room.anyone(), &self.session);
        let count = perspectives.len();
        let perspectives = perspectives.join(", ");
        let why = self.reason_text(reason);
        let mut outcomes = String::new();
        let spoke = self.session.turns.iter().any(|t| t.kind == TurnKind::Agent);
        if spoke && !quit {
            let reply = self
                .ask_note_taker(|this| this.highlights_request(topic, &perspectives, rounds, &why))
                .await;
            if let Reply::Completed { shown, .. } = reply {
                // Two or three sentences were asked for; a small model may
                // write a page, and a highlight is not the transcript again.
                let shown = crate::engine::cleanup::first_sentences(shown.trim(), 3);
                outcomes = shown.trim().replace('\n', " ");
            }
        }
        let pinned: Vec<String> = self.session.fm.pinned.iter().map(|p| p.line()).collect();
        if !pinned.is_empty() {
            // The phrase ends the list with its own full stop.
            let list = pinned.join("; ");
            let list = list.trim_end_matches(['.', '。', '!', '！', '?', '？', '…']);
            outcomes = format!(
                "{} {outcomes}",
                crate::i18n::Say::say(&crate::i18n::Room::PinnedDecisions { list }, self.room.lang)
            );
        }
        let highlights = self.render(
            "highlights",
            &[
                ("topic", topic),
                ("count", &count.to_string()),
                ("perspectives", &perspectives),
                ("rounds", &rounds.to_string()),
                ("outcomes", &outcomes),
                ("reason", &why),
            ],
        );
        highlights.replace("  ", " ")
    }

    /// The farewells stream side by side; each is recorded as soon as it is
    /// over, in the order of `engaged` (the most engaged first). True when
    /// the facilitator quit meanwhile.
    async fn farewells(&mut self, engaged: &[Agent], topic: &str) -> bool {
        let round = self.state().current_round;
        let mut takes = Takes::new(StreamMode::Exit);
        for (slot, agent) in engaged.iter().enumerate() {
            self.emit(Event::AgentStarted {
                agent: agent.id.clone(),
                round,
            });
            let (req, voices) = self.farewell_request(agent, topic);
            self.start_take(&mut takes, slot, req, Some(agent), Some(&voices));
        }
        let mut places = Places::new(self.session.turns.len(), engaged.len());
        let mut shortened = vec![false; engaged.len()];
        let mut quit = false;
        while let Some((slot, reply)) = self.next_reply(&mut takes).await {
            let agent = &engaged[slot];
            match reply {
                Reply::TooLong(_) if !shortened[slot] && !quit => {
                    // The budget is lowered now: built again, it is shorter.
                    shortened[slot] = true;
                    let (req, voices) = self.farewell_request(agent, topic);
                    self.start_take(&mut takes, slot, req, Some(agent), Some(&voices));
                }
                Reply::Completed { shown, latency, .. } if !shown.trim().is_empty() => {
                    let text = shown.trim().to_string();
                    self.insert_at = Some(places.of(slot));
                    self.push_reply(round, TurnKind::Farewell, agent, text.clone(), false, Some(latency));
                    self.insert_at = None;
                    places.add(slot, 1);
                    self.save().await;
                    self.emit(Event::Farewell {
                        agent: agent.id.clone(),
                        name: agent.name.clone(),
                        icon: agent.icon.clone(),
                        text,
                    });
                }
                Reply::Failed(cause) | Reply::TooLong(cause) => tracing::warn!(agent = %agent.id, %cause, "farewell failed"),
                Reply::Unreachable(cause) => tracing::warn!(agent = %agent.id, %cause, "farewell failed: the server is gone"),
                Reply::Quit { .. } => quit = true,
                _ => {}
            }
        }
        quit
    }

    /// An agent's farewell, fitted to the context budget, and the voices it
    /// may not take.
    fn farewell_request(&mut self, agent: &Agent, topic: &str) -> (ChatRequest, Voices) {
        let note = self.env().farewell_instruction(agent, topic);
        let messages = self.speaker_call(agent, &note);
        // The instruction alone: the last message also holds the latest
        // turns, which a farewell may well sum up.
        let runtime = [self.env().farewell_instruction(agent, topic)];
        // A farewell sums up in its own words: a sentence copied from the
        // discussion is dropped. (The farewells stream at once: none sees
        // another.)
        let voices = self.voices_for(agent, &runtime);
        let req = ChatRequest {
            model: agent.model.clone(),
            endpoint: agent.endpoint.clone(),
            messages,
            temperature: self.room.cfg.llm.temperature,
            // A sentence or two.
            max_tokens: Some(self.room.budget_of(agent.endpoint.as_deref()).reply.min(120)),
            stop: self.stop_labels(agent),
            json_schema: None,
            seed: None,
            cue: Cue::Farewell {
                agent: agent.clone(),
                topic: topic.to_string(),
                user_name: self.room.user_name.clone(),
                lang: self.room.lang,
            },
        };
        (req, voices)
    }

    /// The highlights' request.
    fn highlights_request(&self, topic: &str, perspectives: &str, rounds: u32, why: &str) -> ChatRequest {
        let system = self.env().highlights_system(topic, perspectives, rounds, why);
        let cue = Cue::Highlights {
            topic: topic.to_string(),
            rounds,
            lang: self.room.lang,
        };
        self.note_request(system, 0.3, cue)
    }

    /// A note-taker's request (highlights, takeaways): `system`, then the
    /// transcript's latest turns that fit beside a 300-token answer.
    pub(super) fn note_request(&self, system: String, temperature: f32, cue: Cue) -> ChatRequest {
        let fixed = self.room.budget.cost(&system) + 300u32.saturating_sub(self.room.budget.reply);
        let turns = self.transcript_within(&self.session.turns, fixed);
        ChatRequest {
            model: None,
            endpoint: None,
            messages: self.env().highlights_messages(system, &turns),
            temperature,
            max_tokens: Some(300),
            stop: vec![],
            json_schema: None,
            seed: None,
            cue,
        }
    }

    /// Asks the note-taker silently; a prompt the server found too long is
    /// built again (shorter, the budget lowered) and asked once more.
    pub(super) async fn ask_note_taker(&mut self, ask: impl Fn(&Self) -> ChatRequest) -> Reply {
        let reply = self.stream_reply(ask(self), None, StreamMode::Silent, None).await;
        match reply {
            Reply::TooLong(_) => self.stream_reply(ask(self), None, StreamMode::Silent, None).await,
            other => other,
        }
    }

    /// Stop now, state saved, session left resumable.
    pub(super) async fn quit_now(mut self) {
        self.save().await;
        self.set_phase(Phase::Ended);
        self.emit(self.ended(None, false));
    }

    /// Nobody could reach the model: no farewells or highlights (nobody
    /// could give them), the session left open as a crash would leave it,
    /// so `--resume` continues it once the server is back. A party asked
    /// for takeaways gets them from the transcript.
    pub(super) async fn suspend(mut self) {
        self.stop_warming();
        self.write_takeaways(ExitReason::Unreachable).await;
        self.save().await;
        self.set_phase(Phase::Ended);
        self.emit(self.ended(Some(ExitReason::Unreachable), false));
    }

    fn reason_text(&self, reason: ExitReason) -> String {
        let s = self.state();
        let user_name = &self.room.user_name;
        match reason {
            ExitReason::RoundLimit => self.render("reason_round_limit", &[("max_rounds", &s.max_rounds.to_string())]),
            ExitReason::TimeLimit => self.render("reason_time_limit", &[("max_minutes", &minutes_text(s.max_duration_minutes))]),
            ExitReason::UserRequested => self.render("reason_user_requested", &[("user_name", user_name)]),
            ExitReason::AgentProposed => {
                let s = &self.session;
                let name =
                    s.fm.confirmations
                        .iter()
                        .rev()
                        .find(|c| c.kind == ConfirmKind::EndProposal)
                        .and_then(|c| c.agent.clone())
                        .or_else(|| {
                            s.turns
                                .iter()
                                .rev()
                                .find(|t| t.kind == TurnKind::Agent)
                                .and_then(|t| t.agent.clone())
                        })
                        .and_then(|id| self.room.agents.iter().find(|a| a.id == id).map(|a| a.name.clone()))
                        .unwrap_or_default();
                self.render("reason_agent_proposed", &[("name", &name)])
            }
            ExitReason::FacilitatorLeft => self.render("reason_facilitator_left", &[("user_name", user_name)]),
            ExitReason::Unreachable => self.render("reason_unreachable", &[]),
            ExitReason::Consensus => self.render("reason_consensus", &[]),
            ExitReason::Silence => self.render("reason_silence", &[]),
        }
    }

    /// The 2–3 agents who spoke most.
    fn most_engaged(&self) -> Vec<Agent> {
        most_engaged(&self.room.agents, &self.session.turns)
    }
}

/// The 2–3 agents who spoke most (the latest speaker wins a tie): a third
/// joins when they spoke at least half as often as the first.
fn most_engaged(agents: &[Agent], turns: &[Turn]) -> Vec<Agent> {
    let mut stats: Vec<(usize, usize, &Agent)> = agents
        .iter()
        .filter_map(|a| {
            let mine: Vec<usize> = turns
                .iter()
                .enumerate()
                .filter(|(_, t)| t.kind == TurnKind::Agent && t.agent.as_deref() == Some(&a.id))
                .map(|(i, _)| i)
                .collect();
            mine.last().map(|&last| (mine.len(), last, a))
        })
        .collect();
    stats.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let n = if stats.len() >= 3 && stats[2].0 * 2 >= stats[0].0 { 3 } else { 2 };
    stats.into_iter().take(n).map(|(_, _, a)| a.clone()).collect()
}

/// The names of the agents who spoke, in the room's order.
pub(super) fn engaged_names(agents: &[Agent], s: &Session) -> Vec<String> {
    agents
        .iter()
        .filter(|a| {
            s.turns
                .iter()
                .any(|t| t.kind == TurnKind::Agent && t.agent.as_deref() == Some(&a.id))
        })
        .map(|a| a.name.clone())
        .collect()
}

/// The exit flag of the session file that `reason` raises.
fn raise(flags: &mut ExitFlags, reason: ExitReason) {
    match reason {
        ExitReason::UserRequested | ExitReason::FacilitatorLeft => flags.user_requested = true,
        ExitReason::RoundLimit => flags.round_limit = true,
        ExitReason::TimeLimit => flags.time_limit = true,
        ExitReason::AgentProposed => flags.agent_proposed = true,
        ExitReason::Consensus => flags.consensus = true,
        ExitReason::Silence => flags.silence = true,
        // Not an exit: `suspend` keeps the session open.
        ExitReason::Unreachable => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_exit_raises_its_own_flag_and_a_lost_model_none() {
        let raised = |reason| {
            let mut f = ExitFlags::default();
            raise(&mut f, reason);
            f
        };
        assert!(raised(ExitReason::FacilitatorLeft).user_requested);
        assert!(raised(ExitReason::Consensus).consensus);
        assert!(raised(ExitReason::Silence).silence);
        assert_eq!(raised(ExitReason::Unreachable), ExitFlags::default(), "the session stays open");
    }
}
