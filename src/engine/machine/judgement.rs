//! After each round: how much the agents agree (consensus) and whether the
//! room repeats itself (silence). Consensus never ends
//! the party silently: it becomes a proposal the facilitator confirms, or
//! an exit only with `auto_exit_enabled`. A room going in circles first gets
//! a moderator's summary and redirect; if it keeps circling, a proposal.

use regex::RegexBuilder;

use super::party::Party;
use super::stream::{Reply, StreamMode};
use super::Next;
use crate::engine::similarity::{cosine, cosine_dense, lexical, mean_pairwise, vector, ConsensusRule, RoundView, Verdict};
use crate::engine::ExitReason;
use crate::engine::{Event, NoticeKind};
use crate::llm::{ChatMessage, ChatRequest, Cue, Role};
use crate::session::{ConfirmKind, TurnKind};

impl Party {
    /// The agents' completed replies of the last `keep` rounds since the
    /// last reset, oldest first: (round, [(transcript index, text)]). It walks
    /// back from the end, so its cost does not grow with the session.
    fn replies_by_round(&self, keep: usize) -> Vec<(u32, Vec<(usize, String)>)> {
        let turns = self.session.turns.as_slice();
        let mut out: Vec<(u32, Vec<(usize, String)>)> = Vec::new();
        for (i, t) in turns.iter().enumerate().rev() {
            if t.kind == TurnKind::Reset {
                break;
            }
            if t.kind != TurnKind::Agent || t.interrupted {
                continue;
            }
            let same_round = out.last().is_some_and(|(r, _)| *r == t.round);
            if same_round {
                out.last_mut().expect("checked").1.push((i, t.text.clone()));
            } else if out.len() == keep {
                break;
            } else {
                out.push((t.round, vec![(i, t.text.clone())]));
            }
        }
        out.reverse();
        for (_, replies) in &mut out {
            replies.reverse();
        }
        out
    }

    /// Mean pairwise agreement of one round's replies, with the method used.
    async fn round_score(&mut self, replies: &[(usize, String)]) -> (Option<f64>, &'static str) {
        if let Some(model) = self.room.cfg.llm.embedding_model.clone().filter(|_| !self.embeddings_failed) {
            let missing: Vec<(usize, String)> = replies.iter().filter(|(i, _)| !self.embeddings.contains_key(i)).cloned().collect();
            let mut ok = true;
            if !missing.is_empty() {
                match self
                    .room
                    .provider
                    .embed(&model, missing.iter().map(|(_, t)| t.clone()).collect())
                    .await
                {
                    Ok(vectors) => {
                        for ((i, _), v) in missing.into_iter().zip(vectors) {
                            self.embeddings.insert(i, v);
                        }
                    }
                    Err(cause) => {
                        ok = false;
                        self.embeddings_failed = true;
                        tracing::warn!(%cause, "embeddings failed; lexical similarity from now on");
                        let text = self.render("embedding_fallback", &[("cause", &cause)]);
                        self.notice(NoticeKind::Info, text).await;
                    }
                }
            }
            if ok {
                let vs: Vec<&Vec<f32>> = replies.iter().filter_map(|(i, _)| self.embeddings.get(i)).collect();
                return (mean_pairwise(vs.len(), |a, b| cosine_dense(vs[a], vs[b])), "embedding");
            }
        }
        let key: Vec<usize> = replies.iter().map(|(i, _)| *i).collect();
        let score = *self.lexical_scores.entry(key).or_insert_with(|| {
            let vectors: Vec<_> = replies.iter().map(|(_, t)| vector(t)).collect();
            mean_pairwise(vectors.len(), |a, b| cosine(&vectors[a], &vectors[b]))
        });
        (score, "lexical")
    }

    /// After a round with replies: the agreement score, then (when no
    /// question is open) consensus and repetition, which may end the party.
    pub(super) async fn judge_round(&mut self, round: u32) -> Next {
        let lookback = self.room.cfg.party.consensus.lookback.max(1) as usize;
        // Consensus looks back `lookback` rounds, repetition compares the last two.
        let rounds = self.replies_by_round(lookback.max(2));
        let Some((last_round, _)) = rounds.last() else { return Next::Wait };
        if *last_round != round {
            return Next::Wait;
        }
        let window_start = rounds.len().saturating_sub(lookback);
        let mut views = Vec::new();
        let mut method = "lexical";
        for (_, replies) in &rounds[window_start..] {
            let (score, m) = self.round_score(replies).await;
            method = m;
            views.push(RoundView {
                replies: replies.iter().map(|(_, t)| t.clone()).collect(),
                score,
            });
        }
        let score = views.last().and_then(|v| v.score);
        let rounded = score.map(|x| (x * 100.0).round() / 100.0);
        if self.state().consensus_score != rounded {
            self.state_mut().consensus_score = rounded;
            self.save().await;
        }
        self.emit(Event::ConsensusScore {
            round,
            score,
            method: method.into(),
        });
        self.emit(crate::engine::Event::Status(self.status()));
        // Limits and open questions come first (step 00's order).
        if !self.pending.is_empty() || self.state().awaiting_answer_from.is_some() {
            return Next::Wait;
        }
        let c = self.room.cfg.party.consensus.clone();
        if c.enabled && round >= self.consensus_quiet_until {
            let re = RegexBuilder::new(&c.convergence_indicator)
                .case_insensitive(true)
                .build()
                .expect("validated when the config was loaded");
            let rule = ConsensusRule {
                threshold: c.threshold,
                lookback,
                convergence: &re,
                disagreement_words: &c.disagreement_words,
            };
            match rule.judge(&views) {
                Verdict::Reached => return self.consensus_reached(score.unwrap_or(0.0), lookback).await,
                Verdict::NotYet(why) => tracing::debug!(round, %why, "no consensus"),
            }
        }
        if self.room.cfg.party.silence.enabled && rounds.len() >= 2 {
            let joined = |r: &(u32, Vec<(usize, String)>)| r.1.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join("\n");
            let sim = lexical(&joined(&rounds[rounds.len() - 2]), &joined(&rounds[rounds.len() - 1]));
            self.repeat_streak = if sim >= self.room.cfg.party.silence.content_similarity {
                self.repeat_streak + 1
            } else {
                0
            };
            if self.repeat_streak + 1 >= self.room.cfg.party.silence.consecutive_similar_rounds {
                self.repeat_streak = 0;
                return self.going_in_circles(round).await;
            }
        }
        Next::Wait
    }

    async fn consensus_reached(&mut self, score: f64, rounds: usize) -> Next {
        {
            let s = self.state_mut();
            s.consensus_reached = true;
            s.exit_flags.consensus = true;
        }
        let text = self.render(
            "consensus_proposal",
            &[("score", &format!("{score:.2}")), ("rounds", &rounds.to_string())],
        );
        if self.room.cfg.party.auto_exit_enabled {
            self.notice(NoticeKind::Exit, text).await;
            Next::Exit(ExitReason::Consensus)
        } else {
            self.raise(ConfirmKind::Consensus, None, text, None).await;
            Next::Wait
        }
    }

    async fn going_in_circles(&mut self, round: u32) -> Next {
        let count = {
            let s = self.state_mut();
            s.silence_count += 1;
            s.silence_count
        };
        self.save().await;
        if count == 1 {
            return self.redirect(round).await;
        }
        self.state_mut().exit_flags.silence = true;
        let n = self.room.cfg.party.silence.consecutive_similar_rounds;
        let text = self.render("silence_proposal", &[("rounds", &n.to_string())]);
        if self.room.cfg.party.auto_exit_enabled {
            self.notice(NoticeKind::Exit, text).await;
            Next::Exit(ExitReason::Silence)
        } else {
            self.raise(ConfirmKind::Silence, None, text, None).await;
            Next::Wait
        }
    }

    /// The moderator (or, without one, the runtime) summarises and redirects.
    async fn redirect(&mut self, round: u32) -> Next {
        if let Some(m) = self.room.agents.iter().find(|a| a.moderator).cloned() {
            let note = self.env().moderator_instruction();
            let messages = self.speaker_call(&m, &note);
            // The instruction alone: the last message also holds the turns
            // the moderator sums up.
            let runtime = [self.env().moderator_instruction()];
            let mut voices = self.voices_for(&m, &runtime);
            // The moderator sums up where the room circles.
            voices.keep_echoes = true;
            let req = ChatRequest {
                model: m.model.clone(),
                messages,
                temperature: self.room.cfg.llm.temperature,
                max_tokens: Some(self.room.cfg.llm.reply_max_tokens),
                stop: self.stop_labels(&m),
                cue: Cue::Turn {
                    agent: m.clone(),
                    round,
                    message: None,
                    topic: self.session.fm.topic.clone(),
                    earlier: vec![],
                    end_marker: None,
                    ask_marker: None,
                    lang: self.room.lang,
                },
            };
            self.emit(Event::AgentStarted {
                agent: m.id.clone(),
                round,
            });
            let reply = self.stream_reply(req, Some(&m), StreamMode::Round, Some(&voices)).await;
            let (text, latency) = match &reply {
                Reply::Completed { shown, latency, .. } => (shown.trim().to_string(), Some(*latency)),
                Reply::Interrupted { shown } => (shown.trim().to_string(), None),
                _ => (String::new(), None),
            };
            match reply {
                Reply::Quit { .. } => return Next::Quit,
                Reply::Completed { .. } | Reply::Interrupted { .. } if !text.is_empty() => {
                    self.push_reply(round, TurnKind::Agent, &m, text.clone(), false, latency);
                    self.save().await;
                    self.emit(Event::AgentMessage {
                        agent: m.id.clone(),
                        name: m.name.clone(),
                        icon: m.icon.clone(),
                        round,
                        text,
                        interrupted: false,
                        latency,
                    });
                    return Next::Wait;
                }
                Reply::Failed(cause) => tracing::warn!(%cause, "the moderator could not answer"),
                _ => {}
            }
        }
        let system = self.env().moderator_instruction();
        let all = self.context_turns().to_vec();
        let turns = self.transcript_within(&all, self.room.budget.cost(&system) + 250u32.saturating_sub(self.room.budget.reply));
        let transcript = turns
            .iter()
            .filter(|t| matches!(t.kind, TurnKind::Facilitator | TurnKind::Agent))
            .map(|t| format!("{}: {}", t.label, t.text))
            .collect::<Vec<_>>()
            .join("\n\n");
        let req = ChatRequest {
            model: None,
            messages: vec![ChatMessage::new(Role::System, system), ChatMessage::new(Role::User, transcript)],
            temperature: 0.3,
            max_tokens: Some(250),
            stop: vec![],
            cue: Cue::Highlights {
                topic: self.session.fm.topic.clone(),
                rounds: round,
                lang: self.room.lang,
            },
        };
        let summary = match self.stream_reply(req, None, StreamMode::Silent, None).await {
            Reply::Completed { shown, .. } => shown.trim().to_string(),
            Reply::Quit { .. } => return Next::Quit,
            _ => String::new(),
        };
        let text = self.render("circling", &[("summary", &summary)]);
        self.notice(NoticeKind::Warning, text.trim().to_string()).await;
        Next::Wait
    }
}
