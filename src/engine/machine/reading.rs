//! After a round the facilitator's message opened, the host reads that
//! message (`engine::reading`): a close invited becomes the host's
//! proposal to end, naming a point a reply still raised; agreement asked
//! for is answered by the replies' own words, or as the host hears a reply
//! they leave open (consensus); a job without its facts, or the room's
//! questions invited, becomes the host's question. Every reading is in the
//! session file (`readings`) and sent as an event, read or not. The
//! facilitator decides every proposal.

use super::party::Party;
use super::stream::{Reply, StreamMode};
use super::Next;
use crate::engine::reading::{
    act, agreed, asked, cannot_read, caveat, heard_yes, invited, parse, unfit, yes_in_words, Act, Asked, Discussion, RoundFacts, Unfit,
};
use crate::engine::stated::{disagrees_outright, stated_stance};
use crate::i18n::Say;
use crate::llm::{ChatMessage, ChatRequest, Cue, Role};
use crate::roster::agents::Agent;
use crate::session::{HeardRecord, ReadingRecord, TurnKind};
use crate::verdict::Reading;
use crate::verdict::Stance;

/// The letter, with room for a space or a quote before it. A plain letter,
/// not JSON: the letter reads better on small models
/// (docs/decisions/2026-11-24-what-the-1-5b-can-judge.md).
const READING_MAX_TOKENS: u32 = 3;
/// One short question.
const QUESTION_MAX_TOKENS: u32 = 80;
/// The earlier messages when there are none.
const NOTHING_YET: &str = "(nothing yet)";
/// "Yes" or "no", with room for a mark around it.
const HEARING_MAX_TOKENS: u32 = 3;

/// One of the host's neutral calls (a reading, a facts question, a
/// hearing): no persona, no room, no schema; a judgement, not a voice, so
/// the likeliest answer (temperature 0).
fn neutral(messages: Vec<ChatMessage>, max_tokens: u32, stop: Vec<String>, cue: Cue) -> ChatRequest {
    ChatRequest {
        model: None,
        endpoint: None,
        messages,
        temperature: 0.0,
        max_tokens: Some(max_tokens),
        stop,
        json_schema: None,
        seed: None,
        cue,
    }
}

/// The host's reading of a message, made and not yet acted on.
pub(super) struct Read {
    /// The answer as the model wrote it.
    answer: String,
    /// What it was read as; None: unreadable or failed.
    reading: Option<Reading>,
    /// Why nothing was read.
    error: Option<String>,
    /// The facilitator's messages before it, as the call showed them.
    earlier: String,
    /// How long the call took: a reading made mid-round, for an agent's
    /// question, is acted on when the round closes.
    took: std::time::Duration,
    /// An agent's question held back (`reading::holds_question`).
    pub(super) held: Option<String>,
    /// Read from the facilitator's own words (`reading::invited`), not by
    /// the model: says nothing of whether the model can read.
    by_words: bool,
}

impl Read {
    /// What the message was read as (None: unreadable or failed).
    pub(super) fn reading(&self) -> Option<Reading> {
        self.reading
    }
}

impl Party {
    /// Reads `message`, the facilitator's message that opened `round`: one
    /// neutral call on the message alone, and a second with the
    /// facilitator's earlier messages when it reads as a job without its
    /// facts (they may have been given before). Only then: the earlier
    /// messages blur the reading of a close that offers a choice ("Anything
    /// left to add, or are we done?"; docs/decisions/2026-11-25-hearing-a-yes.md).
    /// A message that invites the close or the room's questions in so many
    /// words (`reading::invited`) is read from them, without a call.
    /// Err: the facilitator quit meanwhile.
    pub(super) async fn read(&mut self, round: u32, message: &str) -> Result<Read, Next> {
        let earlier = self.earlier_messages(round);
        if let Some((reading, phrase)) = invited(message) {
            return Ok(Read {
                answer: format!("words: \"{phrase}\""),
                reading: Some(reading),
                error: None,
                earlier,
                took: std::time::Duration::ZERO,
                held: None,
                by_words: true,
            });
        }
        let started = std::time::Instant::now();
        let (mut answer, mut failure) = self.read_letter(round, message, NOTHING_YET).await?;
        if parse(&answer) == Some(Reading::MissingFacts) && earlier != NOTHING_YET {
            (answer, failure) = self.read_letter(round, message, &earlier).await?;
        }
        let reading = parse(&answer);
        let error = failure.or_else(|| reading.is_none().then(|| "no letter A–D in the answer".to_string()));
        Ok(Read {
            answer,
            reading,
            error,
            earlier,
            took: started.elapsed(),
            held: None,
            by_words: false,
        })
    }

    /// One reading call: the answer as written, and why there is none.
    async fn read_letter(&mut self, round: u32, message: &str, earlier: &str) -> Result<(String, Option<String>), Next> {
        let system = self.render("read_message_system", &[]);
        let user = self.render(
            "read_message",
            &[("earlier", earlier), ("message", &crate::text::ellipsize(message, 600))],
        );
        let messages = vec![ChatMessage::new(Role::System, system), ChatMessage::new(Role::User, user)];
        let req = neutral(messages, READING_MAX_TOKENS, vec![], Cue::Reading { round, question: false });
        Ok(match self.stream_reply(req, None, StreamMode::Silent, None).await {
            Reply::Quit { .. } => return Err(Next::Quit),
            Reply::Completed { raw, .. } => (raw, None),
            Reply::Failed(e) | Reply::Unreachable(e) | Reply::TooLong(e) | Reply::Emptied(e) => {
                (String::new(), Some(e.say(self.room.lang)))
            }
            Reply::Interrupted { shown } => (shown, Some("interrupted".into())),
        })
    }

    /// Whether `message` is read: configured so, and either the model has
    /// not shown it cannot (`reading::cannot_read`) or the message's own
    /// words invite (`reading::invited`), which need no model.
    pub(super) fn reads_message(&self, message: &str) -> bool {
        self.room.cfg.party.read_messages && (!self.judgement.cannot_read || invited(message).is_some())
    }

    /// What `message` asks of the room (`reading::asked`, with the
    /// configured words and the room's names).
    pub(super) fn asked(&self, message: &str) -> Asked {
        let c = &self.room.cfg.party.consensus;
        let names: Vec<&str> = self.room.agents.iter().map(|a| a.name.as_str()).collect();
        asked(message, &names, &c.open_question_words, &c.agreement_words)
    }

    /// Acts on the reading of `message`, the facilitator's message that
    /// opened `round` (`made`: already read, to weigh an agent's question;
    /// `passed`: speakers who had nothing to add).
    /// Some: what comes next (a proposal or a question raised, the
    /// facilitator quit); None: judging goes on as after any round.
    pub(super) async fn read_message(&mut self, round: u32, message: &str, made: Option<Read>, passed: usize) -> Option<Next> {
        let asked = self.state().awaiting_answer_from.is_some();
        if !self.pending.is_empty() || (asked && made.is_none()) {
            return None;
        }
        let replies = self.round_replies(round);
        let facts = RoundFacts {
            replies: replies.len(),
            passed,
            just_answered: self.answers_question(round),
            asked: self.asked(message),
            first_round: round <= 1,
        };
        let made = match made {
            Some(r) => r,
            None => match self.read(round, message).await {
                Ok(r) => r,
                Err(next) => return Some(next),
            },
        };
        let Read {
            answer,
            reading,
            error,
            earlier,
            took,
            held,
            by_words,
        } = made;
        let unfit = !by_words && cannot_read(reading, facts.first_round);
        // An agent's question stands for the host's: the facilitator answers one.
        let decided = reading.filter(|_| !asked && !unfit).map_or(Act::Nothing, |r| act(r, facts));
        let mut done = match decided {
            _ if unfit => "nothing: the opening read as a close; no more readings",
            _ if asked => "nothing: an agent asked",
            Act::ProposeEnd if self.room.cfg.party.end_detection.enable_detection => "propose_end",
            Act::CheckAgreement => "check_agreement",
            Act::AskFacts => "ask_facts",
            Act::AskInvited => "ask_invited",
            _ => "nothing",
        };
        let mut question = None;
        let asking = std::time::Instant::now();
        let written = match decided {
            Act::AskFacts => Some(self.facts_question(round, message, &earlier).await),
            Act::AskInvited => Some(self.invited_question(round).await),
            _ => None,
        };
        let mut wrote = None;
        match written {
            Some(Err(next)) => return Some(next),
            Some(Ok(Some(q))) => {
                match self.question_unfit(round, &q, decided == Act::AskFacts) {
                    Some(why) => done = why.act(),
                    None => question = Some(q.clone()),
                }
                wrote = Some(crate::text::ellipsize(&q, 200));
            }
            Some(Ok(None)) => done = "nothing: no question in the answer",
            None => {}
        }
        let mut stances = Vec::new();
        let mut heard = Vec::new();
        let mut quit = None;
        if decided == Act::CheckAgreement {
            match self.stances(round, message, &replies).await {
                None => done = "nothing: consensus is off or quiet",
                Some(found) => (stances, heard, quit) = found,
            }
        }
        let ms = (took + asking.elapsed()).as_millis() as u64;
        self.record_reading(ReadingRecord {
            round,
            answer: crate::text::ellipsize(&answer, 200),
            reading,
            act: done.to_string(),
            error,
            held_question: held,
            question: wrote,
            heard,
            ms,
        })
        .await;
        if quit.is_some() {
            return quit;
        }
        if unfit {
            self.stop_reading().await;
        }
        self.act_on_reading(round, message, done, &replies, &stances, passed, question)
            .await
    }

    /// The reading in the session file, then shown (`Event::Reading`). A
    /// reading that leads to no act changes nothing else: it goes into the
    /// file with the next save (the next message, a notice, the exit), one
    /// disk sync a round fewer. What acts is saved at once.
    async fn record_reading(&mut self, record: ReadingRecord) {
        if let Some(e) = &record.error {
            tracing::info!(round = record.round, error = %e, answer = %record.answer, "the reading judged nothing");
        }
        let event = crate::engine::Event::Reading {
            round: record.round,
            reading: record.reading,
            act: record.act.clone(),
            heard: record.heard.iter().map(|h| h.yes).collect(),
            ms: record.ms,
        };
        let acts = !record.act.starts_with("nothing");
        self.session.fm.readings.push(record);
        if acts {
            self.save().await;
        }
        self.emit(event);
    }

    /// The model read the opening message as a close: it cannot tell the
    /// messages apart, and the host stops reading them, saying so.
    async fn stop_reading(&mut self) {
        self.judgement.cannot_read = true;
        let text = crate::i18n::Room::StopsReadingMessages.say(self.room.lang);
        self.notice(crate::engine::NoticeKind::Warning, text).await;
    }

    /// What the reading decided (`done`, as recorded): the host's proposal
    /// to end, the room's consensus, the host's question for the facts.
    #[allow(clippy::too_many_arguments, reason = "the reading's parts, each used once")]
    async fn act_on_reading(
        &mut self,
        round: u32,
        message: &str,
        done: &str,
        replies: &[(String, String)],
        stances: &[Stance],
        passed: usize,
        question: Option<String>,
    ) -> Option<Next> {
        let mut outcome = None;
        match done {
            "propose_end" => {
                let Some(host) = self.host_of(round) else { return outcome };
                let text = self.close_text(replies);
                // Why the host proposes, in the transcript before the modal.
                let said = format!("{} {}: {text}", host.icon, host.name);
                self.notice(crate::engine::NoticeKind::Info, said).await;
                outcome = Some(self.end_proposal(&host, text.clone(), text).await);
            }
            "check_agreement" if agreed(stances, passed, self.stated_agreement(replies, stances)) => {
                // Every speaker passed: the room had nothing to add.
                let unopposed = stances.is_empty();
                // The facilitator's own question, quoted: the proposal says what they asked.
                let q = crate::text::ellipsize(crate::engine::reading::last_question(message).unwrap_or(message), 160);
                let text = self.render(
                    if unopposed { "agreement_unopposed" } else { "agreement_proposal" },
                    &[("question", &q)],
                );
                outcome = Some(self.propose_consensus(text).await);
            }
            "check_agreement" => tracing::info!(round, ?stances, "agreement asked for, not given"),
            "ask_facts" | "ask_invited" => {
                if let (Some(q), Some(host)) = (question, self.host_of(round)) {
                    self.agent_question(round, &host, q).await;
                    outcome = Some(Next::Wait);
                }
            }
            _ => {}
        }
        outcome
    }

    /// Whether a reply the round counts as a yes (`stances`, in the order
    /// of `replies`) states agreement in its own words: a yes the host
    /// heard completes a consensus but cannot start one, and a reply heard
    /// as no cannot start it either, whatever its words.
    fn stated_agreement(&self, replies: &[(String, String)], stances: &[Stance]) -> bool {
        let c = &self.room.cfg.party.consensus;
        yes_in_words(replies, stances, &c.agreement_words, &c.disagreement_words)
    }

    /// Why the question the host wrote in `round` is not put to the
    /// facilitator (`reading::unfit`): weighed against the topic and the
    /// facilitator's messages so far, the room's turns, and the questions
    /// put to them before (the host's, and the agents').
    fn question_unfit(&self, round: u32, q: &str, job: bool) -> Option<Unfit> {
        let turns = &self.session.turns;
        let of = |kind: TurnKind| {
            turns
                .iter()
                .filter(move |t| t.kind == kind && t.round <= round)
                .map(|t| t.text.clone())
        };
        let said: Vec<String> = std::iter::once(self.session.fm.topic.clone())
            .chain(of(TurnKind::Facilitator))
            .collect();
        let room: Vec<String> = of(TurnKind::Agent).collect();
        let asked: Vec<String> = self
            .session
            .fm
            .readings
            .iter()
            .filter(|r| r.act.starts_with("ask_"))
            .filter_map(|r| r.question.clone())
            .chain(of(TurnKind::Question))
            .collect();
        let why = unfit(
            q,
            &Discussion {
                said: &said,
                turns: &room,
                asked: &asked,
                job,
            },
        );
        if let Some(why) = why {
            tracing::info!(round, question = %q, ?why, "the host's question is not put to the facilitator");
        }
        why
    }

    /// The host's proposal to end an invited close: with the point a reply
    /// still raised (`reading::caveat`), named with its speaker.
    fn close_text(&self, replies: &[(String, String)]) -> String {
        let user = self.room.user_name.clone();
        let words = &self.room.cfg.party.consensus.disagreement_words;
        let named = caveat(replies, words).and_then(|(id, point)| {
            let agent = self.room.agents.iter().find(|a| a.id == id)?;
            Some((agent.name.clone(), crate::text::ellipsize(&point, 160)))
        });
        match named {
            Some((name, point)) => self.render("host_close_caveat", &[("user_name", &user), ("name", &name), ("point", &point)]),
            None => self.render("host_close", &[("user_name", &user)]),
        }
    }

    /// The host's question for the facts a job needs: a second neutral
    /// call. Ok(None): the answer held no question; Err: what comes next
    /// (the facilitator quit).
    async fn facts_question(&mut self, round: u32, message: &str, earlier: &str) -> Result<Option<String>, Next> {
        let language = self.env().speech_language.to_string();
        let prompt = self.render(
            "facts_question",
            &[
                ("user_name", &self.room.user_name.clone()),
                ("message", &crate::text::ellipsize(message, 600)),
                ("earlier", earlier),
                ("language", &language),
            ],
        );
        self.host_question(round, prompt).await
    }

    /// The host's question when the facilitator invited the room's: a
    /// fact of their own situation the room needs, from the topic alone.
    /// The planning facts of `facts_question` (how many people, the
    /// budget) do not fit a question under discussion.
    async fn invited_question(&mut self, round: u32) -> Result<Option<String>, Next> {
        let language = self.env().speech_language.to_string();
        let topic = crate::text::ellipsize(&self.session.fm.topic, 300);
        let prompt = self.render(
            "invited_question",
            &[
                ("user_name", &self.room.user_name.clone()),
                ("topic", &topic),
                ("language", &language),
            ],
        );
        self.host_question(round, prompt).await
    }

    /// One neutral call that writes the host's question (`prompt`), read
    /// up to its question mark. Ok(None): the answer held no question;
    /// Err: what comes next (the facilitator quit).
    async fn host_question(&mut self, round: u32, prompt: String) -> Result<Option<String>, Next> {
        let messages = vec![ChatMessage::new(Role::User, prompt)];
        let req = neutral(
            messages,
            QUESTION_MAX_TOKENS,
            vec!["\n\n".into()],
            Cue::Reading { round, question: true },
        );
        match self.stream_reply(req, None, StreamMode::Silent, None).await {
            Reply::Quit { .. } => Err(Next::Quit),
            Reply::Completed { raw, .. } => Ok(crate::engine::reading::question_in(&raw)),
            _ => Ok(None),
        }
    }

    /// When the facilitator asked whether the room agrees: each reply's
    /// stance by its own words (`stated_stance`), and, unless one of them
    /// objects outright (then nothing can agree), each reply whose words
    /// say neither, or object only after the opening, as the host hears it
    /// (`hear`; only a yes counts). None: consensus is
    /// off, or quiet after a declined proposal. The third part: the
    /// facilitator quit during a hearing (the stances so far still go in
    /// the session file).
    async fn stances(
        &mut self,
        round: u32,
        message: &str,
        replies: &[(String, String)],
    ) -> Option<(Vec<Stance>, Vec<HeardRecord>, Option<Next>)> {
        let c = self.room.cfg.party.consensus.clone();
        if !c.enabled || round < self.judgement.consensus_quiet_until {
            return None;
        }
        let mut stances: Vec<Stance> = replies
            .iter()
            .map(|(_, text)| stated_stance(text, &c.agreement_words, &c.disagreement_words))
            .collect();
        // A disagreement word only after a reply's opening, in a reply that
        // also states agreement, may be a caveat on a yes: that reply is
        // heard too, and stays a disagreement unless the hearing says yes.
        // One that disagrees outright leaves nothing to hear.
        let doubtful: Vec<bool> = replies
            .iter()
            .zip(&stances)
            .map(|((_, text), s)| *s == Stance::Disagree && !disagrees_outright(text, &c.agreement_words, &c.disagreement_words))
            .collect();
        let outright = stances.iter().zip(&doubtful).any(|(s, doubt)| *s == Stance::Disagree && !doubt);
        let mut heard = Vec::new();
        let mut quit = None;
        if !outright {
            for (((id, text), s), doubt) in replies.iter().zip(stances.iter_mut()).zip(&doubtful) {
                if *s != Stance::New && !doubt {
                    continue;
                }
                match self.hear(round, message, id, text).await {
                    Err(next) => {
                        quit = Some(next);
                        break;
                    }
                    Ok(h) => {
                        if h.yes == Some(true) {
                            *s = Stance::Agree;
                        }
                        heard.push(h);
                    }
                }
            }
        }
        for ((id, _), s) in replies.iter().zip(&stances) {
            self.judgement.stances.insert((round, id.clone()), *s);
        }
        Some((stances, heard, quit))
    }

    /// The host hears one reply to the facilitator's yes/no question: one
    /// neutral call, answered yes or no. Err: the facilitator quit.
    async fn hear(&mut self, round: u32, message: &str, id: &str, text: &str) -> Result<HeardRecord, Next> {
        let name = self
            .room
            .agents
            .iter()
            .find(|a| a.id == id)
            .map_or(id.to_string(), |a| a.name.clone());
        let system = self.render("hear_answer_system", &[]);
        let user = self.render(
            "hear_answer",
            &[
                // Its end: the question the replies answer.
                ("question", &crate::text::ellipsize_start(message, 300)),
                ("name", &name),
                ("reply", &crate::text::ellipsize(text.trim(), 600)),
            ],
        );
        let messages = vec![ChatMessage::new(Role::System, system), ChatMessage::new(Role::User, user)];
        let req = neutral(messages, HEARING_MAX_TOKENS, vec![], Cue::Hearing { round });
        let answer = match self.stream_reply(req, None, StreamMode::Silent, None).await {
            Reply::Quit { .. } => return Err(Next::Quit),
            Reply::Completed { raw, .. } => raw,
            _ => String::new(),
        };
        Ok(HeardRecord {
            agent: id.to_string(),
            yes: heard_yes(&answer),
            answer: crate::text::ellipsize(answer.trim(), 40),
        })
    }

    /// The agents' completed replies of `round`: (agent id, text).
    fn round_replies(&self, round: u32) -> Vec<(String, String)> {
        self.session
            .turns
            .iter()
            .rev()
            .take_while(|t| t.round >= round)
            .filter(|t| t.round == round && t.kind == TurnKind::Agent && !t.interrupted)
            .filter_map(|t| Some((t.agent.clone()?, t.text.clone())))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect()
    }

    /// The facilitator's last three messages before `round`, oldest first.
    fn earlier_messages(&self, round: u32) -> String {
        let mut said: Vec<String> = self
            .session
            .turns
            .iter()
            .rev()
            .filter(|t| t.kind == TurnKind::Facilitator && t.round < round)
            .take(3)
            .map(|t| crate::text::ellipsize(&t.text, 300))
            .collect();
        said.reverse();
        if said.is_empty() {
            NOTHING_YET.into()
        } else {
            said.join(" / ")
        }
    }

    /// Who speaks for the room: the host (`moderator: true`), else the
    /// round's first speaker.
    fn host_of(&self, round: u32) -> Option<Agent> {
        let first = || {
            let id = self
                .session
                .turns
                .iter()
                .find(|t| t.round == round && t.kind == TurnKind::Agent)?
                .agent
                .clone()?;
            self.room.agents.iter().find(|a| a.id == id)
        };
        self.room
            .agents
            .iter()
            .find(|a| a.moderator)
            .or_else(first)
            .or(self.room.agents.first())
            .cloned()
    }
}
