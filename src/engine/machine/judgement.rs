//! After each round: how much the agents agree (consensus), whether the
//! room repeats itself (silence) or has run dry (a round of passes, or
//! rounds of mostly passes and echoes). Consensus never ends the party
//! silently: it becomes a proposal the facilitator confirms, or an exit
//! only with `auto_exit_enabled`. A room going in circles or run dry first
//! gets a moderator's summary and redirect; if it goes on, a proposal.
//!
//! Agreement is measured by the best means the room has: the speakers'
//! own stances (`self_check`), else embeddings from the endpoint, else
//! lexical similarity.

use foldhash::{HashMap, HashMapExt};

use super::party::Party;
use super::stream::{Reply, StreamMode};
use super::Next;
use crate::engine::similarity::{cosine, cosine_dense, lexical, mean_pairwise, stance_share, vector, ConsensusRule, RoundView, Verdict};
use crate::engine::ExitReason;
use crate::engine::{Event, NoticeKind};
use crate::llm::{ChatMessage, ChatRequest, Cue, Role};
use crate::roster::agents::Agent;
use crate::session::{ConfirmKind, TurnKind};
use crate::verdict::Stance;

/// What judging the room keeps between rounds.
pub(super) struct Judgement {
    /// Embedding vectors per transcript index, when embeddings are used.
    pub(super) embeddings: HashMap<usize, Vec<f32>>,
    pub(super) embeddings_failed: bool,
    /// Lexical agreement of a round, by the transcript indices of its
    /// replies: judging looks back several rounds, each scored once.
    pub(super) lexical_scores: HashMap<Vec<usize>, Option<f64>>,
    /// Each speaker's stance from its self-check, by (round, agent id).
    pub(super) stances: HashMap<(u32, String), Stance>,
    /// Consecutive rounds that repeated the one before.
    pub(super) repeat_streak: u32,
    /// What the last rounds yielded, oldest first (`run_dry`).
    pub(super) yields: Vec<RoundYield>,
    /// No consensus proposal before this round after a declined one.
    pub(super) consensus_quiet_until: u32,
    /// No agent's proposal to end before this round after a declined one.
    pub(super) end_quiet_until: u32,
    /// The model read the opening message as a close (`reading::cannot_read`):
    /// no message is read again this session.
    pub(super) cannot_read: bool,
}

impl Default for Judgement {
    fn default() -> Self {
        Judgement {
            embeddings: HashMap::new(),
            embeddings_failed: false,
            lexical_scores: HashMap::new(),
            stances: HashMap::new(),
            repeat_streak: 0,
            yields: Vec::new(),
            consensus_quiet_until: 0,
            end_quiet_until: 0,
            cannot_read: false,
        }
    }
}

impl Judgement {
    /// Turns from transcript index `i` on changed: what was measured of them goes.
    pub(super) fn forget_from(&mut self, i: usize) {
        self.embeddings.retain(|&k, _| k < i);
        self.lexical_scores.retain(|k, _| k.iter().all(|&x| x < i));
    }
}

/// How long a probe for embeddings waits for its first answer.
const EMBEDDING_PROBE: std::time::Duration = std::time::Duration::from_secs(15);

/// The model an unconfigured endpoint is asked for embeddings with:
/// OpenAI's small embedding model on OpenAI (its chat models embed
/// nothing), the chat model itself elsewhere (Ollama, llama.cpp and vLLM
/// embed with the model they serve, when started to).
pub(super) fn probe_model(base_url: Option<&str>, chat_model: &str) -> String {
    match base_url {
        None => "text-embedding-3-small".into(),
        Some(u) if u.contains("api.openai.com") => "text-embedding-3-small".into(),
        Some(_) => chat_model.into(),
    }
}

/// What one round's speakers came to, as the run-dry rule reads it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct RoundYield {
    pub(super) speakers: usize,
    /// Speakers who passed (asked twice, nothing of their own).
    pub(super) passed: usize,
    /// Replies whose larger part was cut as copies of earlier turns.
    pub(super) echoed: usize,
}

impl RoundYield {
    fn all_passed(&self) -> bool {
        self.speakers > 0 && self.passed == self.speakers
    }

    fn mostly_empty(&self) -> bool {
        self.speakers > 0 && 2 * (self.passed + self.echoed) > self.speakers
    }
}

/// How the room repeats itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Repeats {
    /// The rounds say much the same (`silence.content_similarity`).
    Circling,
    /// Nothing new at all (`run_dry`).
    Dry,
}

/// A room that has run dry, the plainest form of content repetition: a
/// round in which every speaker passed, or two rounds in a row that were
/// mostly passes and echoes.
pub(super) fn run_dry(yields: &[RoundYield]) -> bool {
    match yields {
        [.., last] if last.all_passed() => true,
        [.., a, b] => a.mostly_empty() && b.mostly_empty(),
        _ => false,
    }
}

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
            if let Some((_, texts)) = out.last_mut().filter(|(r, _)| *r == t.round) {
                texts.push((i, t.text.clone()));
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

    /// The embedding model: the configured one; else, on a real endpoint,
    /// one probed for once (`probe_model`) and kept while it answers.
    fn embedding_model(&self) -> Option<(String, bool)> {
        if self.judgement.embeddings_failed {
            return None;
        }
        if let Some(m) = self.room.cfg.llm.embedding_model.clone() {
            return Some((m, false));
        }
        let info = self.room.provider.info();
        (!info.rehearsal).then(|| (probe_model(info.base_url.as_deref(), &info.model), true))
    }

    /// Mean pairwise agreement of one round's replies, with the method used.
    async fn round_score(&mut self, replies: &[(usize, String)]) -> (Option<f64>, &'static str) {
        if let Some((model, probing)) = self.embedding_model() {
            let missing: Vec<(usize, String)> = replies
                .iter()
                .filter(|(i, _)| !self.judgement.embeddings.contains_key(i))
                .cloned()
                .collect();
            let mut ok = true;
            if !missing.is_empty() {
                let call = self.room.provider.embed(&model, missing.iter().map(|(_, t)| t.clone()).collect());
                // A probe waits briefly: an endpoint that serves embeddings
                // answers a few replies in seconds.
                let answer = if probing && self.judgement.embeddings.is_empty() {
                    tokio::time::timeout(EMBEDDING_PROBE, call)
                        .await
                        .unwrap_or_else(|_| Err(format!("no answer within {} s", EMBEDDING_PROBE.as_secs())))
                } else {
                    call.await
                };
                match answer {
                    Ok(vectors) if vectors.len() == missing.len() && vectors.iter().all(|v| !v.is_empty()) => {
                        if self.judgement.embeddings.is_empty() && probing {
                            tracing::info!(%model, "the endpoint serves embeddings: consensus measures by them");
                        }
                        for ((i, _), v) in missing.into_iter().zip(vectors) {
                            self.judgement.embeddings.insert(i, v);
                        }
                    }
                    Ok(_) | Err(_) if probing && self.judgement.embeddings.is_empty() => {
                        // Nobody asked for embeddings: no notice, a log line.
                        ok = false;
                        self.judgement.embeddings_failed = true;
                        tracing::info!(%model, "no embeddings from the endpoint: lexical similarity");
                    }
                    answer => {
                        ok = false;
                        self.judgement.embeddings_failed = true;
                        let cause = answer.err().unwrap_or_else(|| "vectors missing from the reply".into());
                        tracing::warn!(%cause, "embeddings failed; lexical similarity from now on");
                        let text = self.render("embedding_fallback", &[("cause", &cause)]);
                        self.notice(NoticeKind::Info, text).await;
                    }
                }
            }
            if ok {
                let vs: Vec<&Vec<f32>> = replies.iter().filter_map(|(i, _)| self.judgement.embeddings.get(i)).collect();
                return (mean_pairwise(vs.len(), |a, b| cosine_dense(vs[a], vs[b])), "embedding");
            }
        }
        let key: Vec<usize> = replies.iter().map(|(i, _)| *i).collect();
        let score = *self.judgement.lexical_scores.entry(key).or_insert_with(|| {
            let vectors: Vec<_> = replies.iter().map(|(_, t)| vector(t)).collect();
            mean_pairwise(vectors.len(), |a, b| cosine(&vectors[a], &vectors[b]))
        });
        (score, "lexical")
    }

    /// After a round with replies: the agreement score, then (when no
    /// question is open) consensus and repetition, which may end the party.
    /// `message`: the facilitator's message that opened the round; one
    /// that asks about a disagreement or leaves a choice open
    /// (`Asked::keeps_positions_open`) proposes no consensus, however
    /// alike the replies.
    pub(super) async fn judge_round(&mut self, round: u32, message: Option<&str>) -> Next {
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
        for (r, replies) in &rounds[window_start..] {
            let stances: Vec<Option<Stance>> = replies.iter().map(|(i, _)| self.stance_of(*r, *i)).collect();
            let (score, m) = match stance_share(&stances) {
                Some(share) => (Some(share), "stance"),
                None => self.round_score(replies).await,
            };
            method = m;
            views.push(RoundView {
                replies: replies.iter().map(|(_, t)| t.clone()).collect(),
                stances,
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
        let open = message.is_some_and(|m| self.asked(m).keeps_positions_open());
        if open {
            tracing::info!(round, "the message asked about a disagreement or an open choice: no consensus");
        }
        if c.enabled && !open && round >= self.judgement.consensus_quiet_until {
            let rule = ConsensusRule {
                threshold: c.threshold,
                lookback,
                convergence: c.convergence_indicator.regex(),
                disagreement_words: &c.disagreement_words,
            };
            match rule.judge(&views) {
                Verdict::Reached => return self.consensus_reached(score.unwrap_or(0.0), lookback, message).await,
                Verdict::NotYet(why) => tracing::debug!(round, %why, "no consensus"),
            }
        }
        if self.room.cfg.party.silence.enabled && rounds.len() >= 2 {
            let joined = |r: &(u32, Vec<(usize, String)>)| r.1.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join("\n");
            let sim = lexical(&joined(&rounds[rounds.len() - 2]), &joined(&rounds[rounds.len() - 1]));
            self.judgement.repeat_streak = if sim >= self.room.cfg.party.silence.content_similarity {
                self.judgement.repeat_streak + 1
            } else {
                0
            };
            if self.judgement.repeat_streak + 1 >= self.room.cfg.party.silence.consecutive_similar_rounds {
                self.judgement.repeat_streak = 0;
                return self.going_in_circles(round, Repeats::Circling).await;
            }
        }
        Next::Wait
    }

    /// The stance the speaker of transcript turn `i` gave in round `round`.
    fn stance_of(&self, round: u32, i: usize) -> Option<Stance> {
        let agent = self.session.turns.get(i)?.agent.as_deref()?;
        self.judgement.stances.get(&(round, agent.to_string())).copied()
    }

    /// Consensus measured over `rounds` rounds at `score`: proposed, naming
    /// the facilitator's question when it asked whether the room agrees
    /// (`message`, the round's), else saying nobody was asked.
    async fn consensus_reached(&mut self, score: f64, rounds: usize, message: Option<&str>) -> Next {
        let words = &self.room.cfg.party.consensus.agreement_words;
        let question = message.and_then(|m| crate::engine::reading::agreement_question(m, words));
        let (score, rounds) = (format!("{score:.2}"), rounds.to_string());
        let text = match question {
            Some(q) => {
                let q = crate::text::ellipsize(q, 160);
                self.render("consensus_asked", &[("question", &q), ("score", &score), ("rounds", &rounds)])
            }
            None => self.render("consensus_proposal", &[("score", &score), ("rounds", &rounds)]),
        };
        self.propose_consensus(text).await
    }

    /// The room agrees: flagged in the file, then a proposal the facilitator
    /// confirms (with `auto_exit_enabled`, the graceful exit).
    pub(super) async fn propose_consensus(&mut self, text: String) -> Next {
        {
            let s = self.state_mut();
            s.consensus_reached = true;
            s.exit_flags.consensus = true;
        }
        if self.room.cfg.party.auto_exit_enabled {
            self.notice(NoticeKind::Exit, text).await;
            Next::Exit(ExitReason::Consensus)
        } else {
            self.raise(ConfirmKind::Consensus, None, text, None).await;
            Next::Wait
        }
    }

    /// After a round, what its speakers came to: a room that has run dry
    /// gets a summary and a redirect, then a proposal to end (Some: what
    /// comes next). Open questions come first.
    pub(super) async fn judge_yield(&mut self, round: u32, yielded: RoundYield) -> Option<Next> {
        if !self.room.cfg.party.silence.enabled || yielded.speakers == 0 {
            return None;
        }
        let yields = &mut self.judgement.yields;
        yields.push(yielded);
        if yields.len() > 2 {
            yields.remove(0);
        }
        if !self.pending.is_empty() || self.state().awaiting_answer_from.is_some() || !run_dry(&self.judgement.yields) {
            return None;
        }
        tracing::info!(round, yields = ?self.judgement.yields, "the room has run dry");
        // Fresh evidence for the next time, whatever the similarity rule had counted.
        self.judgement.yields.clear();
        self.judgement.repeat_streak = 0;
        Some(self.going_in_circles(round, Repeats::Dry).await)
    }

    /// The room repeats itself or has run dry (content repetition): the
    /// first time a summary and a redirect, then a proposal to end.
    async fn going_in_circles(&mut self, round: u32, how: Repeats) -> Next {
        self.emit(Event::RoomRepeats {
            round,
            dry: how == Repeats::Dry,
        });
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
        let proposal = match how {
            Repeats::Circling => "silence_proposal",
            Repeats::Dry => "dry_proposal",
        };
        let text = self.render(proposal, &[("rounds", &n.to_string())]);
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
            if let Some(next) = self.moderator_redirect(&m, round).await {
                return next;
            }
        }
        self.runtime_redirect(round).await
    }

    /// The moderator's turn to sum up where the room circles; None when it
    /// said nothing (the runtime's summary follows).
    async fn moderator_redirect(&mut self, m: &Agent, round: u32) -> Option<Next> {
        let note = self.env().moderator_instruction();
        let messages = self.speaker_call(m, &note);
        // The instruction alone: the last message also holds the turns
        // the moderator sums up.
        let runtime = [self.env().moderator_instruction()];
        let mut voices = self.voices_for(m, &runtime);
        // The moderator sums up where the room circles.
        voices.keep_echoes = true;
        let req = ChatRequest {
            model: m.model.clone(),
            endpoint: m.endpoint.clone(),
            messages,
            temperature: self.room.cfg.llm.temperature,
            max_tokens: Some(self.room.budget_of(m.endpoint.as_deref()).reply),
            stop: self.stop_labels(m),
            json_schema: None,
            seed: None,
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
        let reply = self.stream_reply(req, Some(m), StreamMode::Round, Some(&voices)).await;
        let (text, latency) = match &reply {
            Reply::Completed { shown, latency, .. } => (shown.trim().to_string(), Some(*latency)),
            Reply::Interrupted { shown } => (shown.trim().to_string(), None),
            _ => (String::new(), None),
        };
        match reply {
            Reply::Quit { .. } => return Some(Next::Quit),
            // Kept on screen as it streamed, a summary that only says the
            // room's sentences again sums up nothing: its pane is cleared
            // and the runtime sums up instead.
            Reply::Completed { copies: true, .. } => {
                tracing::info!(agent = %m.id, "the moderator's summary only repeated the room: the runtime sums up");
                self.show_pass(round, m).await;
            }
            Reply::Completed { .. } | Reply::Interrupted { .. } if !text.is_empty() => {
                self.push_reply(round, TurnKind::Agent, m, text.clone(), false, latency);
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
                return Some(Next::Wait);
            }
            Reply::Failed(cause) => tracing::warn!(%cause, "the moderator could not answer"),
            _ => {}
        }
        None
    }

    /// The runtime's summary of the room, as a warning notice.
    async fn runtime_redirect(&mut self, round: u32) -> Next {
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
            endpoint: None,
            messages: vec![ChatMessage::new(Role::System, system), ChatMessage::new(Role::User, transcript)],
            temperature: 0.3,
            max_tokens: Some(250),
            stop: vec![],
            json_schema: None,
            seed: None,
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

#[cfg(test)]
mod tests {
    use super::{probe_model, run_dry, RoundYield};

    fn y(speakers: usize, passed: usize, echoed: usize) -> RoundYield {
        RoundYield { speakers, passed, echoed }
    }

    #[test]
    fn an_unconfigured_endpoint_is_probed_with_a_model_it_can_embed_with() {
        assert_eq!(probe_model(None, "gpt-4o-mini"), "text-embedding-3-small");
        assert_eq!(
            probe_model(Some("https://api.openai.com/v1"), "gpt-4o-mini"),
            "text-embedding-3-small"
        );
        assert_eq!(probe_model(Some("http://127.0.0.1:11434/v1"), "llama3.2:latest"), "llama3.2:latest");
    }

    #[test]
    fn a_round_of_passes_has_run_dry_at_once() {
        assert!(run_dry(&[y(3, 3, 0)]));
        assert!(run_dry(&[y(2, 0, 0), y(2, 2, 0)]));
        assert!(!run_dry(&[y(3, 2, 0)]), "one speaker still had something");
        assert!(!run_dry(&[]));
        assert!(!run_dry(&[y(0, 0, 0)]), "a round nobody spoke in says nothing");
    }

    #[test]
    fn two_rounds_of_mostly_passes_and_echoes_have_run_dry() {
        assert!(run_dry(&[y(3, 1, 1), y(3, 2, 0)]));
        assert!(run_dry(&[y(2, 0, 2), y(3, 0, 2)]), "echoes alone");
        assert!(!run_dry(&[y(3, 1, 0), y(3, 2, 0)]), "the first had mostly words of its own");
        assert!(!run_dry(&[y(3, 2, 0)]), "one such round is not yet dry");
        assert!(!run_dry(&[y(2, 1, 0), y(2, 1, 0)]), "half is not most");
    }
}
