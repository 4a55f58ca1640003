//! The offline rehearsal provider: deterministic, persona-flavoured replies
//! with no model and no network, so a facilitator can learn the program and
//! tests can run anywhere. It exercises what a real room does: cross-talk
//! between agents, and an end proposal every few rounds. It is always
//! labelled as a rehearsal, never passed off as a model.

use std::time::Duration;

use futures::stream::BoxStream;
use futures::StreamExt;

use super::{ChatRequest, Cue, LlmEvent, Provider, ProviderInfo};
use crate::i18n::Lang;
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

fn pick<'a>(items: &[&'a str], seed: u64) -> &'a str {
    items[(seed % items.len() as u64) as usize]
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect::<String>().trim_end_matches('.').to_string(),
        None => String::new(),
    }
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
        .split(',')
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
    lang: Lang,
) -> String {
    let seed = hash(&[&agent.id, &round.to_string(), message.unwrap_or(""), &earlier.len().to_string()]);
    let subject = focus(message.unwrap_or(topic));
    let cap = capability(agent, seed >> 8);
    let rule = principle(agent, seed >> 16);
    let cross = earlier.last().map(|(name, _)| name.clone());
    match lang {
        Lang::Zh => {
            let open = pick(
                &["从{title}的角度看，", "作为{title}，我想说：", "说到这里，我这个{title}有话要讲——"],
                seed,
            )
            .replace("{title}", &agent.title);
            let mut s = format!("{open}关于「{subject}」，我会先从{cap}入手。我的原则是：{rule}。");
            if let Some(name) = cross {
                s.push_str(
                    &pick(
                        &[
                            "\n\n{name}说得有道理，我想在此基础上补充一点：先做一个最小的实验来验证最大的风险。",
                            "\n\n我和{name}的看法不太一样：在动手之前，我们需要先弄清楚谁会真正受益。",
                        ],
                        seed >> 24,
                    )
                    .replace("{name}", &name),
                );
            } else {
                s.push_str("\n\n我的建议：先明确成功的标准，再决定第一步做什么。");
            }
            s
        }
        Lang::En => {
            let open = pick(
                &[
                    "From where I sit as {title}, on “{subject}”",
                    "Speaking as the {title}: on “{subject}”",
                    "Let me put my {title} hat on. On “{subject}”",
                ],
                seed,
            )
            .replace("{title}", &agent.title)
            .replace("{subject}", &subject);
            let mut s = format!("{open} I'd start with **{cap}**. My rule of thumb: {}.", lower_first(&rule));
            if let Some(name) = cross {
                s.push_str(&pick(&[
                    "\n\n{name} makes a good point, and I'd build on it: run the smallest experiment that tests the riskiest assumption first.",
                    "\n\nI see it differently than {name}, though: before we build anything, let's be clear about who actually benefits.",
                    "\n\nAs {name} said, scope is the real risk here; I'd add that we should write down what we will *not* do.",
                ], seed >> 24).replace("{name}", &name));
            } else {
                s.push_str("\n\nMy suggestion: agree on what success looks like before we pick the first step.");
            }
            s
        }
    }
}

fn farewell(agent: &Agent, user: &str, lang: Lang) -> String {
    let rule = principle(agent, hash(&[&agent.id, "bye"]));
    match lang {
        Lang::Zh => format!("谢谢你，{user}！我的收获是：{rule}。下次再聊！"),
        Lang::En => format!("Thanks, {user}! What I take away: {}. See you next time!", lower_first(&rule)),
    }
}

fn highlights(topic: &str, rounds: u32, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("经过 {rounds} 轮讨论，大家同意从小处着手：先验证风险最大的假设，明确成功标准，再逐步扩展；关于「{}」的细节仍有待下次继续。", focus(topic)),
        Lang::En => format!("Over {rounds} round(s) the room agreed to start small: test the riskiest assumption first, define success up front, and grow from there; the details of “{}” remain open for next time.", focus(topic)),
    }
}

impl Rehearsal {
    fn reply(&self, cue: &Cue) -> String {
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
                let mut text = turn_reply(agent, *round, message.as_deref(), topic, earlier, *lang);
                // The first speaker of round 2 (then every 5th) asks the
                // facilitator directly, so the question protocol shows up too.
                if let Some(marker) = ask_marker {
                    if self.ask_every > 0 && round % self.ask_every == 2 % self.ask_every && earlier.is_empty() && message.is_some() {
                        text.push_str("\n\n");
                        text.push_str(marker);
                        text.push(' ');
                        text.push_str(match lang {
                            Lang::Zh => "对您来说，这件事更看重速度还是稳妥？",
                            Lang::En => "What matters more to you here: speed or safety?",
                        });
                        return text;
                    }
                }
                // The last speaker of every Nth round proposes to end, so the
                // facilitator meets the confirmation in a rehearsal too.
                if let Some(marker) = end_marker {
                    if self.propose_every > 0 && round % self.propose_every == 0 && earlier.len() + 1 >= 2 {
                        text.push_str(match lang {
                            Lang::Zh => "\n\n我觉得我们已经把主要观点都谈透了，可以收尾了。",
                            Lang::En => "\n\nI think we've covered the main points; we could wrap up here.",
                        });
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
        let text = self.reply(&req.cue);
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
    match lang {
        Lang::Zh => format!(
            "## 决定\n- 从最小的实验开始，先验证「{topic}」中风险最大的假设。\n## 未决问题\n- 成功的标准由谁来定？\n## 分歧\n- 先做调研还是先做原型。\n"
        ),
        Lang::En => format!(
            "## Decisions\n- Start with the smallest experiment that tests the riskiest assumption of “{topic}”.\n## Open questions\n- Who decides what success looks like?\n## Disagreements\n- Whether to research first or prototype first.\n"
        ),
    }
}

fn memory(topic: &str, names: &[String], lang: Lang) -> String {
    let (first, second) = (names.first().map_or("", String::as_str), names.get(1).map_or("", String::as_str));
    match lang {
        Lang::Zh => format!(
            "- (outcome) 关于「{topic}」：先做最小的实验，验证风险最大的假设。\n- (dynamic by {first}) {first} 和 {second} 在先调研还是先做原型上各执一词。\n"
        ),
        Lang::En => format!(
            "- (outcome) On “{topic}”: start with the smallest experiment that tests the riskiest assumption.\n- (dynamic by {first}) {first} and {second} split over researching first or prototyping first.\n"
        ),
    }
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
}
