//! The facilitator's second thoughts on the last round (`/redo`, `/undo`,
//! `/edit`, `/takes`, `/take`; read by `engine::redo`).
//!
//! What is taken back is set aside, never lost: the tail of the round from
//! one turn on goes into the session's `set_aside` as a numbered take (its
//! number is never reused, so `/takes` before each `/take` is not needed),
//! and `/take N` brings a take back in place of what stands (which becomes
//! a take in turn, with the next number). Asking an agent again asks again everyone who spoke
//! after it in that round too: they answered a reply that no longer
//! stands. The round's judgement (the host's reading, the speakers'
//! self-checks, consensus, a room going in circles) is made again when
//! the round is played again, but for the run-dry count (a speaker who
//! passes when asked again is not a room run dry); a question or proposal
//! the set-aside turns raised expires.

use super::party::Party;
use super::Next;
use crate::engine::redo::{Redo, RedoError};
use crate::engine::{Event, NoticeKind, Phase};
use crate::i18n::{Room as Said, Say};
use crate::session::{ConfirmStatus, SetAside, SetAsideTurn, TurnKind};

/// What `set_aside` records a take as.
const BY_REDO: &str = "redo";
const BY_UNDO: &str = "undo";
const BY_EDIT: &str = "edit";
const BY_TAKE: &str = "take";

impl Party {
    /// A typed second thought: carried out, or refused saying why.
    pub(super) async fn redo(&mut self, redo: Result<Redo, RedoError>) -> Next {
        let lang = self.room.lang;
        let refused = match redo {
            Err(RedoError::Unknown { word }) => {
                let room = self.room.speaker_names(|_| true);
                Said::NoSuchSpeaker { word: &word, room: &room }.say(lang)
            }
            Err(RedoError::EditWithoutMessage) => Said::EditNeedsMessage.say(lang),
            Err(RedoError::TakeWithoutNumber) => Said::TakeNeedsNumber.say(lang),
            Err(RedoError::Trailing { command }) => Said::TakesNothingAfter { command }.say(lang),
            Ok(Redo::Again(agent)) => return self.ask_again(agent.as_deref()).await,
            Ok(Redo::Undo) => return self.undo().await,
            Ok(Redo::Edit(text)) => return self.edit(text).await,
            Ok(Redo::Takes) => return self.list_takes(),
            Ok(Redo::Take(n)) => return self.bring_back(n).await,
        };
        self.emit(Event::Rejected { message: refused });
        Next::Wait
    }

    /// The last round and where its turns begin, if one was played since
    /// the last reset.
    fn last_round(&self) -> Option<(u32, usize)> {
        let round = self.state().current_round;
        let turns = &self.session.turns;
        let start = turns.iter().position(|t| t.round == round && t.kind != TurnKind::Notice)?;
        let reset_since = turns[start..].iter().any(|t| t.kind == TurnKind::Reset);
        (round > 0 && !reset_since).then_some((round, start))
    }

    fn refuse(&self, message: String) -> Next {
        self.emit(Event::Rejected { message });
        Next::Wait
    }

    /// `/redo [NAME]`: NAME's reply in the last round (else its last reply)
    /// and the replies after it are set aside, and those speakers asked
    /// again, seeing the replies before it.
    async fn ask_again(&mut self, agent: Option<&str>) -> Next {
        let lang = self.room.lang;
        let Some((round, start)) = self.last_round() else {
            return self.refuse(Said::NothingToTakeBack.say(lang));
        };
        // The host's summary is no reply to ask again: it goes with the
        // part it summed up.
        let host = |id: &str| self.room.agents.iter().any(|a| a.id == id && a.moderator);
        let replied = |t: &crate::session::Turn| {
            matches!(t.kind, TurnKind::Agent | TurnKind::Failed | TurnKind::Question)
                && t.agent.as_deref().is_some_and(|id| !host(id))
                && agent.is_none_or(|a| t.agent.as_deref() == Some(a))
        };
        let Some(cut) = (start..self.session.turns.len()).rev().find(|&i| replied(&self.session.turns[i])) else {
            return self.refuse(match agent.and_then(|id| self.room.agents.iter().find(|a| a.id == id)) {
                Some(a) => Said::DidNotSpeak { name: &a.name, round }.say(lang),
                None => Said::NoReplyToAskAgain { round }.say(lang),
            });
        };
        // The speakers from the cut on, each once, in their order; the
        // named one even if muted since, the others only if not.
        let mut picked: Vec<usize> = Vec::new();
        for t in &self.session.turns[cut..] {
            let Some(id) = t.agent.as_deref().filter(|id| !host(id)) else {
                continue;
            };
            let Some(i) = self.room.agents.iter().position(|a| a.id == id) else {
                continue;
            };
            if !picked.contains(&i) && (Some(id) == agent || !self.is_muted(id)) {
                picked.push(i);
            }
        }
        if picked.is_empty() {
            return self.refuse(Said::NobodyToAskAgain.say(lang));
        }
        let earlier: Vec<(String, String)> = self.session.turns[start..cut]
            .iter()
            .filter(|t| t.kind == TurnKind::Agent)
            .filter_map(|t| {
                let a = self.room.agents.iter().find(|a| Some(a.id.as_str()) == t.agent.as_deref())?;
                Some((a.name.clone(), t.text.clone()))
            })
            .collect();
        let opening = &self.session.turns[start];
        let message = matches!(opening.kind, TurnKind::Facilitator | TurnKind::Push).then(|| opening.text.clone());
        let read = message.clone().filter(|_| opening.kind == TurnKind::Facilitator);
        let continued = opening.kind != TurnKind::Facilitator;
        let names: Vec<&str> = picked.iter().map(|&i| self.room.agents[i].name.as_str()).collect();
        let names = names.join(", ");
        self.set_aside(cut, BY_REDO);
        let take = self.take_number();
        let text = Said::AskedAgain {
            names: &names,
            round,
            take,
        }
        .say(lang);
        self.notice(NoticeKind::Info, text).await;
        self.stop_warming();
        let opened = super::round::Opened {
            message,
            read,
            continued,
            replay: true,
        };
        self.play(round, picked, opened, earlier).await
    }

    /// `/undo`: the whole last round is set aside.
    async fn undo(&mut self) -> Next {
        let Some((round, start)) = self.last_round() else {
            return self.refuse(Said::NothingToTakeBack.say(self.room.lang));
        };
        self.set_aside(start, BY_UNDO);
        self.state_mut().current_round = round - 1;
        let take = self.take_number();
        let text = Said::RoundTakenBack { round, take }.say(self.room.lang);
        self.notice(NoticeKind::Info, text).await;
        self.set_phase(Phase::Waiting);
        Next::Wait
    }

    /// `/edit MESSAGE`: the last round, opened by the facilitator's
    /// message, is set aside and played again from MESSAGE.
    async fn edit(&mut self, text: String) -> Next {
        let lang = self.room.lang;
        let Some((round, start)) = self.last_round() else {
            return self.refuse(Said::NothingToTakeBack.say(lang));
        };
        if self.session.turns[start].kind != TurnKind::Facilitator {
            return self.refuse(Said::NoMessageToEdit { round }.say(lang));
        }
        self.set_aside(start, BY_EDIT);
        self.state_mut().current_round = round - 1;
        let take = self.take_number();
        let said = Said::MessageEdited { round, take }.say(lang);
        self.notice(NoticeKind::Info, said).await;
        self.facilitator_message(text).await
    }

    /// The takes that can be brought back: of the last round, or of the
    /// round after it, taken back whole.
    fn takes(&self) -> Vec<usize> {
        let (round, len) = (self.state().current_round, self.session.turns.len());
        let fits = |s: &SetAside| (s.round == round && s.at <= len) || (s.round == round + 1 && s.by != BY_REDO && s.by != BY_TAKE);
        self.session
            .fm
            .set_aside
            .iter()
            .enumerate()
            .filter(|(_, s)| fits(s))
            .map(|(i, _)| i)
            .collect()
    }

    /// `/takes`: what of the last round is set aside, numbered.
    fn list_takes(&self) -> Next {
        let lang = self.room.lang;
        let takes = self.takes();
        if takes.is_empty() {
            return self.refuse(Said::NoTakes.say(lang));
        }
        let lines: Vec<String> = takes
            .iter()
            .map(|&i| {
                let s = &self.session.fm.set_aside[i];
                let first = s.turns.iter().find(|t| t.agent.is_some()).or(s.turns.first());
                let said = first.map_or(String::new(), |t| {
                    let who = if t.label.is_empty() {
                        String::new()
                    } else {
                        format!("{}: ", t.label)
                    };
                    format!("{who}{}", crate::text::ellipsize(&t.text, 80))
                });
                Said::TakeLine {
                    take: s.take,
                    by: &s.by,
                    turns: s.turns.len(),
                    said: &said,
                }
                .say(lang)
            })
            .collect();
        self.emit(Event::Notice {
            kind: NoticeKind::Info,
            text: lines.join("\n"),
        });
        Next::Wait
    }

    /// `/take N`: take N comes back where it stood; what stands there from
    /// that place on is set aside in its stead.
    async fn bring_back(&mut self, n: usize) -> Next {
        let lang = self.room.lang;
        let takes = self.takes();
        let Some(&i) = takes.iter().find(|&&i| self.session.fm.set_aside[i].take == n) else {
            if let Some(s) = self.session.fm.set_aside.iter().find(|s| s.take == n) {
                return self.refuse(Said::TakeOfAnotherRound { n, round: s.round }.say(lang));
            }
            if takes.is_empty() {
                return self.refuse(Said::NoTakes.say(lang));
            }
            let have: Vec<String> = takes.iter().map(|&i| self.session.fm.set_aside[i].take.to_string()).collect();
            return self.refuse(Said::NoSuchTake { n, have: &have.join(", ") }.say(lang));
        };
        let take = self.session.fm.set_aside.remove(i);
        // A round taken back whole comes back after what was said since;
        // a take of the last round in place of what stands from its place.
        let again = take.round == self.state().current_round;
        let standing = (again && take.at < self.session.turns.len()).then_some(take.at);
        if let Some(at) = standing {
            self.set_aside(at, BY_TAKE);
        }
        let round = take.round;
        let back: Vec<_> = take.turns.into_iter().map(|t| t.into_turn(round)).collect();
        for t in &back {
            if let (TurnKind::Agent, Some(a)) = (
                t.kind,
                t.agent.as_deref().and_then(|id| self.room.agents.iter().find(|a| a.id == id)),
            ) {
                self.emit(Event::AgentMessage {
                    agent: a.id.clone(),
                    name: a.name.clone(),
                    icon: a.icon.clone(),
                    round,
                    text: t.text.clone(),
                    interrupted: t.interrupted,
                    latency: None,
                });
            }
        }
        self.session.turns.extend(back);
        self.state_mut().current_round = round;
        let text = match standing {
            Some(_) => Said::TakeBack {
                take: n,
                now: self.take_number(),
            }
            .say(lang),
            None => Said::RoundBack { take: n, round }.say(lang),
        };
        self.notice(NoticeKind::Info, text).await;
        self.set_phase(Phase::Waiting);
        Next::Wait
    }

    /// The number of the take set aside last (0: none).
    fn take_number(&self) -> usize {
        self.session.fm.set_aside.last().map_or(0, |s| s.take)
    }

    /// The turns from `at` on set aside as a take of the last round; what
    /// was worked out for them, and the round's judgement, go with them;
    /// open questions expire.
    fn set_aside(&mut self, at: usize, by: &str) {
        let round = self.state().current_round;
        let tail: Vec<_> = self.session.turns.drain(at..).collect();
        self.store.forget_from(at);
        self.context.forget_from(at);
        self.judgement.forget_from(at);
        let agents: Vec<String> = tail.iter().filter_map(|t| t.agent.clone()).collect();
        let fm = &mut self.session.fm;
        fm.self_checks.retain(|c| c.round != round || !agents.contains(&c.agent));
        fm.readings.retain(|r| r.round != round);
        fm.conversation_state.consensus_score = None;
        fm.conversation_state.awaiting_answer_from = None;
        self.judgement.stances.retain(|k, _| k.0 != round || !agents.contains(&k.1));
        self.judgement.yields.clear();
        self.judgement.repeat_streak = 0;
        for p in std::mem::take(&mut self.pending) {
            if let Some(rec) = self.session.fm.confirmations.iter_mut().find(|c| c.request_id == p.id) {
                rec.status = ConfirmStatus::Expired;
                rec.reason = Some("the round was taken back".into());
            }
            self.emit(Event::ConfirmationResolved {
                request_id: p.id,
                kind: p.kind,
                status: ConfirmStatus::Expired,
                reason: Some("the round was taken back".into()),
            });
        }
        self.state_mut().last_take += 1;
        let take = self.state().last_take;
        self.session.fm.set_aside.push(SetAside {
            take,
            round,
            at,
            by: by.to_string(),
            turns: tail.into_iter().map(SetAsideTurn::of).collect(),
        });
    }
}
