//! The offline rehearsal provider: deterministic, persona-flavoured replies
//! with no model and no network, so a facilitator can learn the program and
//! tests can run anywhere. It exercises what a real room does: cross-talk
//! between agents, and an end proposal every few rounds. It is always
//! labelled as a rehearsal, never passed off as a model.

use std::time::Duration;

use futures::stream::BoxStream;
use futures::StreamExt;

use super::{ChatRequest, Cue, LlmEvent, Provider, ProviderInfo};
use crate::i18n::{Lang, Room, Say};
use crate::roster::agents::Agent;

pub struct Rehearsal {
    /// Pause between streamed words, so replies visibly stream.
    pub token_delay: Duration,
    /// An end proposal comes at rounds that are multiples of this (0: never).
    pub propose_every: u32,
    /// A question to the facilitator comes at round 2, then every this many rounds (0: never).
    /// It stays clear of the proposal rounds: an end marker in the round that
    /// answers the room's question is not raised.
    pub ask_every: u32,
}

impl Default for Rehearsal {
    fn default() -> Self {
        Rehearsal {
            token_delay: Duration::from_millis(20),
            propose_every: 4,
            ask_every: 5,
        }
    }
}

/// FNV-1a: a stable hash, so the same party rehearses the same way on every machine.
fn hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0xff)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn focus(message: &str) -> String {
    let one_line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::text::ellipsize(&one_line, 60)
}

fn capability(agent: &Agent, seed: u64) -> String {
    let caps: Vec<&str> = agent
        .capabilities
        .as_deref()
        .unwrap_or("")
        // A list in English or Chinese punctuation.
        .split([',', '，', '、'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    if caps.is_empty() {
        agent.title.to_lowercase()
    } else {
        caps[(seed % caps.len() as u64) as usize].to_string()
    }
}

fn principle(agent: &Agent, seed: u64) -> String {
    if agent.principles.is_empty() {
        agent.role.clone()
    } else {
        agent.principles[(seed % agent.principles.len() as u64) as usize].clone()
    }
}

pub(crate) fn turn_reply(
    agent: &Agent,
    round: u32,
    message: Option<&str>,
    topic: &str,
    earlier: &[(String, String)],
    again: Option<u64>,
    lang: Lang,
) -> String {
    let (round, earlier_len, again) = (round.to_string(), earlier.len().to_string(), again.map(|s| s.to_string()));
    let mut parts = vec![agent.id.as_str(), &round, message.unwrap_or(""), &earlier_len];
    // A reply asked again (`seed`) rehearses another one.
    parts.extend(again.as_deref());
    let seed = hash(&parts);
    let subject = focus(message.unwrap_or(topic));
    let cap = capability(agent, seed >> 8);
    let rule = principle(agent, seed >> 16);
    let cross = earlier.last().map(|(name, _)| name.as_str());
    Room::RehearsalTurn {
        title: &agent.title,
        subject: &subject,
        cap: &cap,
        rule: &rule,
        cross,
        seed,
    }
    .say(lang)
}

fn farewell(agent: &Agent, user: &str, lang: Lang) -> String {
    let rule = principle(agent, hash(&[&agent.id, "bye"]));
    Room::RehearsalFarewell { user, rule: &rule }.say(lang)
}

fn highlights(topic: &str, rounds: u32, lang: Lang) -> String {
    Room::RehearsalHighlights {
        rounds,
        topic: &focus(topic),
    }
    .say(lang)
}

impl Rehearsal {
    /// `again`: the request's seed, set when a reply is asked again.
    fn reply(&self, cue: &Cue, again: Option<u64>) -> String {
        match cue {
            Cue::Turn {
                agent,
                round,
                message,
                topic,
                earlier,
                end_marker,
                ask_marker,
                lang,
            } => {
                let mut text = turn_reply(agent, *round, message.as_deref(), topic, earlier, again, *lang);
                // The first speaker of round 2 (then every 5th) asks the
                // facilitator directly, so the question protocol shows up too.
                if let Some(marker) = ask_marker {
                    if self.ask_every > 0 && round % self.ask_every == 2 % self.ask_every && earlier.is_empty() && message.is_some() {
                        text.push_str("\n\n");
                        text.push_str(marker);
                        text.push(' ');
                        text.push_str(&Room::RehearsalQuestion.say(*lang));
                        return text;
                    }
                }
                // The last speaker of every Nth round proposes to end, so the
                // facilitator meets the confirmation in a rehearsal too.
                if let Some(marker) = end_marker {
                    if self.propose_every > 0 && round % self.propose_every == 0 && earlier.len() + 1 >= 2 {
                        text.push_str(&Room::RehearsalWrapUp.say(*lang));
                        text.push(' ');
                        text.push_str(marker);
                    }
                }
                text
            }
            Cue::Farewell {
                agent, user_name, lang, ..
            } => farewell(agent, user_name, *lang),
            Cue::Highlights { topic, rounds, lang } => highlights(topic, *rounds, *lang),
            Cue::Selection { candidates } => serde_json::to_string(&candidates.iter().take(2).collect::<Vec<_>>()).unwrap_or_default(),
            Cue::Takeaways { topic, lang } => takeaways(topic, *lang),
            Cue::Memory { topic, names, lang } => memory(topic, names, *lang),
            // The rehearsal's judgement comes through its markers (a
            // proposal after some rounds, a question): its self-check
            // judges nothing.
            Cue::SelfCheck { .. } => r#"{"stance": "new", "ask": "", "end": false}"#.to_string(),
            // Nor does its reading: the rehearsal's facilitator is a person
            // trying the program, whose messages it does not sort.
            Cue::Reading { question: false, .. } => "D".to_string(),
            Cue::Reading { question: true, .. } => String::new(),
            // Never asked: its readings never ask whether the room agrees.
            Cue::Hearing { .. } => "no".to_string(),
            Cue::WarmUp => String::new(),
            Cue::Cast(ask) => super::rehearsal_cast::answer(ask),
        }
    }
}

/// Splits text into stream pieces the way models do: words with their
/// following space, so markers and multi-byte text are split realistically.
fn pieces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        cur.push(c);
        if c == ' ' || c == '\n' || crate::text::is_cjk(c) && cur.chars().count() >= 2 {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

impl Provider for Rehearsal {
    fn info(&self) -> ProviderInfo {
        ProviderInfo {
            kind: "rehearsal".into(),
            model: "rehearsal".into(),
            model_settled: true,
            base_url: None,
            rehearsal: true,
        }
    }

    fn stream(&self, req: ChatRequest) -> BoxStream<'static, LlmEvent> {
        let text = self.reply(&req.cue, req.seed);
        let prompt_tokens: u64 = req.messages.iter().map(|m| m.content.chars().count() as u64 / 4 + 1).sum();
        let parts = pieces(&text);
        let completion = parts.len() as u64;
        let delay = self.token_delay;
        let tokens = futures::stream::iter(parts).then(move |p| async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            LlmEvent::Token(p)
        });
        tokens
            .chain(futures::stream::iter([
                LlmEvent::Usage {
                    prompt: prompt_tokens,
                    completion,
                    cached: None,
                },
                LlmEvent::Done,
            ]))
            .boxed()
    }
}

/// A note-taker's lists under the asked headings.
fn takeaways(topic: &str, lang: Lang) -> String {
    Room::RehearsalTakeaways { topic }.say(lang)
}

fn memory(topic: &str, names: &[String], lang: Lang) -> String {
    let (first, second) = (names.first().map_or("", String::as_str), names.get(1).map_or("", String::as_str));
    Room::RehearsalMemory { topic, first, second }.say(lang)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_rejoin_to_the_text() {
        let t = "Hello **world**, 中文测试 <!-- END -->";
        assert_eq!(pieces(t).concat(), t);
        assert!(pieces(t).len() > 4);
    }

    #[test]
    fn a_reply_asked_again_rehearses_another_and_the_first_stays_as_it_was() {
        let agent = crate::roster::agents::load_roster(&crate::assets::embedded_agents())
            .unwrap()
            .into_iter()
            .find(|a| a.id == "architect")
            .expect("the built-in architect");
        let say = |again| turn_reply(&agent, 2, Some("Pricing?"), "Pricing", &[], again, Lang::En);
        assert_eq!(say(None), say(None), "the same party rehearses the same way");
        assert_ne!(say(Some(1)), say(None));
        assert_ne!(say(Some(1)), say(Some(2)));
    }
}
