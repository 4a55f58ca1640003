//! A speaker's judgement right after its reply (`engine::self_check`): the
//! prompt the reply answered, the reply, then the `self_check` note. On a
//! server that keeps prompt states (llama.cpp's) only the reply and the note
//! are read: the rest is the prompt it has just read. The answer may ask
//! the facilitator or propose the end (the round's to act on) and gives
//! the stance consensus reads. Every check is in the session file and
//! sent as an event, read or not.

use super::party::Party;
use super::stream::{Reply, StreamMode};
use crate::engine::self_check::{parse, schema};
use crate::engine::Event;
use crate::i18n::Say;
use crate::llm::{ChatMessage, ChatRequest, Cue, Role};
use crate::roster::agents::Agent;
use crate::session::SelfCheckRecord;
use crate::verdict::SelfCheck;

/// What a self-check came to.
pub(super) enum Checked {
    /// Read: the speaker's judgement (None when nothing in it could be read).
    Verdict(Option<SelfCheck>),
    /// The call failed: no judgement, the round goes on.
    Nothing,
    /// The facilitator quit meanwhile.
    Quit,
}

/// The longest answer a check needs: the object with a short question.
const CHECK_MAX_TOKENS: u32 = 120;

impl Party {
    /// Asks `agent` for its judgement after `reply`, the answer to `prompt`.
    pub(super) async fn self_check(&mut self, agent: &Agent, round: u32, prompt: &[ChatMessage], reply: &str) -> Checked {
        let note = self.env().self_check_note(agent);
        let mut messages = Vec::with_capacity(prompt.len() + 2);
        messages.extend_from_slice(prompt);
        messages.push(ChatMessage::new(Role::Assistant, reply));
        messages.push(ChatMessage::new(Role::User, note));
        let req = ChatRequest {
            model: agent.model.clone(),
            endpoint: agent.endpoint.clone(),
            messages,
            // A judgement, not a voice: the likeliest answer.
            temperature: 0.0,
            max_tokens: Some(CHECK_MAX_TOKENS),
            stop: vec![],
            json_schema: Some(schema()),
            seed: None,
            cue: Cue::SelfCheck {
                agent: agent.clone(),
                round,
            },
        };
        let started = std::time::Instant::now();
        let answer = self.stream_reply(req, None, StreamMode::Silent, None).await;
        let ms = started.elapsed().as_millis() as u64;
        let (answer, read) = match answer {
            Reply::Quit { .. } => return Checked::Quit,
            Reply::Completed { raw, .. } => {
                let read = parse(&raw).map_err(|e| e.to_string());
                (raw, read)
            }
            Reply::Failed(cause) | Reply::Unreachable(cause) | Reply::TooLong(cause) | Reply::Emptied(cause) => {
                (String::new(), Err(cause.say(self.room.lang)))
            }
            Reply::Interrupted { shown } => (shown, Err("interrupted".to_string())),
        };
        let failed = answer.is_empty() && read.is_err();
        let (verdict, error) = match read {
            Ok(v) => (Some(v), None),
            Err(e) => {
                tracing::info!(agent = %agent.id, round, error = %e, answer = %crate::text::ellipsize(&answer, 300), "a self-check judged nothing");
                (None, Some(e))
            }
        };
        self.session.fm.self_checks.push(SelfCheckRecord {
            round,
            agent: agent.id.clone(),
            answer: crate::text::ellipsize(&answer, 300),
            verdict: verdict.clone(),
            error: error.clone(),
            ms,
        });
        if let Some(stance) = verdict.as_ref().and_then(|v| v.stance) {
            self.judgement.stances.insert((round, agent.id.clone()), stance);
        }
        self.save().await;
        self.emit(Event::SelfCheck {
            round,
            agent: agent.id.clone(),
            verdict: verdict.clone(),
            error,
            ms,
        });
        if failed {
            Checked::Nothing
        } else {
            Checked::Verdict(verdict)
        }
    }
}
