//! Asking the model for a cast: the request from the workflow's templates
//! (`cast_*` in step 01), a JSON schema for servers that constrain output
//! (the model layer falls back to a plain request where a server refuses
//! one), then the answer read and checked; a draft that cannot be used is
//! asked for again with its flaws, twice at most. Then the answer that
//! keeps the most sound personas, still a room, is taken (`read::salvage`).

use futures::StreamExt;
use serde_json::{json, Value};

use super::read::{read, read_one, salvage};
use super::{Brief, Draft, Persona, SIZES};
use crate::i18n::{Cast, Say};
use crate::llm::{CastCue, ChatMessage, ChatRequest, Cue, Failure, LlmEvent, Provider, Role};
use crate::workflow::Workflow;

/// How many times a whole cast is asked for.
pub(crate) const ATTEMPTS: u32 = 3;
/// How many times one persona is asked for.
const ONE_ATTEMPTS: u32 = 2;
/// Room for six personas in a language that takes many tokens.
const MAX_TOKENS: u32 = 3000;

/// What asking came to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Drafted {
    /// A draft to review; `left_out` names personas of the last answer
    /// that could not be used.
    Ready {
        draft: Draft,
        attempts: u32,
        left_out: Vec<String>,
    },
    /// No answer could be used: the last one's flaws.
    Refused { attempts: u32, flaws: Vec<Cast> },
    /// The model could not be reached or refused the request.
    Failed(Failure),
}

/// What asking for one persona came to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OneDrafted {
    Ready(Persona),
    /// No answer could be used: the last one's flaws.
    Refused(Vec<Cast>),
    Failed(Failure),
}

/// The model to ask, and the workflow its words come from.
pub(crate) struct Asker<'a> {
    pub provider: &'a dyn Provider,
    pub workflow: &'a Workflow,
}

impl Asker<'_> {
    /// A cast for `brief`; `progress` hears each time it is asked again.
    pub(crate) async fn draft(&self, brief: &Brief, progress: &mut (dyn FnMut(Cast) + Send)) -> Drafted {
        let mut messages = vec![
            ChatMessage::new(Role::System, self.workflow.render("cast_system", brief.lang, &[])),
            ChatMessage::new(Role::User, self.request(brief)),
        ];
        let mut attempt = 1;
        let mut answers = Vec::new();
        loop {
            let answer = match self.call(brief, &messages, schema(brief, false), false, attempt).await {
                Ok(a) => a,
                Err(f) => return Drafted::Failed(f),
            };
            let mut got = read(&answer, brief);
            if brief.sources.is_empty() {
                got.draft.personas.iter_mut().for_each(|p| p.lines.clear());
            }
            if got.flaws.is_empty() {
                return Drafted::Ready {
                    draft: got.draft,
                    attempts: attempt,
                    left_out: vec![],
                };
            }
            tracing::info!(attempt, flaws = %said(&got.flaws, brief), answer = %crate::text::ellipsize(&answer, 600), "a drafted cast could not be used");
            if attempt == ATTEMPTS {
                // The answer that keeps the most personas, the latest of
                // equals: a small model asked again can answer worse.
                answers.push(got.clone());
                let best =
                    answers
                        .iter()
                        .rev()
                        .filter_map(|r| salvage(r, brief))
                        .fold(None::<(Draft, Vec<String>)>, |best, s| match best {
                            Some(b) if b.0.personas.len() >= s.0.personas.len() => Some(b),
                            _ => Some(s),
                        });
                return match best {
                    Some((draft, left_out)) => Drafted::Ready {
                        draft,
                        attempts: attempt,
                        left_out,
                    },
                    None => Drafted::Refused {
                        attempts: attempt,
                        flaws: got.flaws,
                    },
                };
            }
            answers.push(got.clone());
            attempt += 1;
            progress(Cast::AskingAgain {
                attempt,
                of: ATTEMPTS,
                flaws: said(&got.flaws, brief),
            });
            messages.push(ChatMessage::new(Role::Assistant, answer));
            let flaws: Vec<String> = got.flaws.iter().map(|f| format!("- {}", f.say(brief.lang))).collect();
            let again = self.workflow.render("cast_again", brief.lang, &[("flaws", &flaws.join("\n"))]);
            messages.push(ChatMessage::new(Role::User, again));
        }
    }

    /// One persona in place of the draft's `at`-th, asked for twice at
    /// most.
    pub(crate) async fn one(&self, brief: &Brief, draft: &Draft, at: usize) -> OneDrafted {
        let others: Vec<Persona> = draft
            .personas
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != at)
            .map(|(_, p)| p.clone())
            .collect();
        let replaced = draft.personas.get(at).map(|p| p.name.clone()).unwrap_or_default();
        let mut taken = brief.taken.clone();
        taken.extend(draft.personas.iter().map(|p| p.name.clone()));
        let brief = Brief { taken, ..brief.clone() };
        let room: Vec<String> = others.iter().map(|p| format!("- {}, {}: {}", p.name, p.title, p.role)).collect();
        let request = self.workflow.render(
            "cast_one",
            brief.lang,
            &[
                ("topic", &brief.topic),
                ("others", &room.join("\n")),
                ("replaced", &replaced),
                ("sources", &self.sources(&brief)),
                ("language", &brief.language),
            ],
        );
        let mut messages = vec![
            ChatMessage::new(Role::System, self.workflow.render("cast_system", brief.lang, &[])),
            ChatMessage::new(Role::User, request),
        ];
        let mut flaws = vec![];
        for attempt in 1..=ONE_ATTEMPTS {
            let answer = match self.call(&brief, &messages, schema(&brief, true), true, attempt).await {
                Ok(a) => a,
                Err(f) => return OneDrafted::Failed(f),
            };
            match read_one(&answer, &brief, &others, draft.personas.get(at)) {
                Ok(mut p) => {
                    if brief.sources.is_empty() {
                        p.lines.clear();
                    }
                    return OneDrafted::Ready(p);
                }
                Err(f) => flaws = f,
            }
            let listed: Vec<String> = flaws.iter().map(|f| format!("- {}", f.say(brief.lang))).collect();
            messages.push(ChatMessage::new(Role::Assistant, answer));
            let again = self.workflow.render("cast_again", brief.lang, &[("flaws", &listed.join("\n"))]);
            messages.push(ChatMessage::new(Role::User, again));
        }
        OneDrafted::Refused(flaws)
    }

    fn request(&self, brief: &Brief) -> String {
        self.workflow.render(
            "cast_request",
            brief.lang,
            &[
                ("topic", &brief.topic),
                ("size", &brief.size.to_string()),
                ("sources", &self.sources(brief)),
                ("language", &brief.language),
            ],
        )
    }

    /// The documents' part of a request: empty without any.
    fn sources(&self, brief: &Brief) -> String {
        if brief.sources.is_empty() {
            return String::new();
        }
        let documents = brief.sources.numbered();
        format!(
            "\n{}\n",
            self.workflow.render("cast_sources", brief.lang, &[("documents", &documents)])
        )
    }

    /// One answer, whole; a failed call is the model layer's failure
    /// (retries and server quirks stay there).
    async fn call(&self, brief: &Brief, messages: &[ChatMessage], schema: Value, one: bool, attempt: u32) -> Result<String, Failure> {
        let req = ChatRequest {
            model: None,
            endpoint: None,
            messages: messages.to_vec(),
            temperature: 0.7,
            max_tokens: Some(MAX_TOKENS),
            stop: vec![],
            json_schema: Some(schema),
            // An answer asked again is sampled anew on servers that
            // sample the same prompt the same way every time.
            seed: (attempt > 1).then_some(u64::from(attempt)),
            cue: Cue::Cast(CastCue {
                topic: brief.topic.clone(),
                size: brief.size,
                lines: brief.sources.count(),
                lang: brief.lang,
                taken: brief.taken.clone(),
                one,
            }),
        };
        let mut stream = self.provider.stream(req);
        let mut text = String::new();
        while let Some(event) = stream.next().await {
            match event {
                LlmEvent::Token(t) => text.push_str(&t),
                // What streamed before a retry is void.
                LlmEvent::Retrying { .. } => text.clear(),
                LlmEvent::Failed(f) | LlmEvent::Unreachable(f) => return Err(f),
                LlmEvent::TooLong { cause, .. } => return Err(cause),
                LlmEvent::Done => break,
                LlmEvent::Usage { .. } | LlmEvent::Capped | LlmEvent::Waiting { .. } => {}
            }
        }
        Ok(text)
    }
}

/// The flaws in one line, in the program's language.
pub(crate) fn said(flaws: &[Cast], brief: &Brief) -> String {
    flaws.iter().map(|f| f.say(brief.lang)).collect::<Vec<_>>().join("; ")
}

/// The answer's shape, for servers that constrain output: one persona,
/// or the cast; `lines` is asked for only when there are documents.
fn schema(brief: &Brief, one: bool) -> Value {
    // The keywords every constraining server takes (OpenAI's strict
    // mode refuses `minLength`); an empty field is caught when read.
    let text = json!({ "type": "string" });
    let mut properties = json!({
        "name": text, "title": text, "icon": text, "role": text, "identity": text,
        "communication_style": text,
        "principles": { "type": "array", "items": text, "minItems": 1, "maxItems": 5 },
    });
    let mut required = vec!["name", "title", "icon", "role", "identity", "communication_style", "principles"];
    if !brief.sources.is_empty() {
        properties["lines"] = json!({ "type": "array", "items": { "type": "integer", "minimum": 1 }, "minItems": 1, "maxItems": 8 });
        required.push("lines");
    }
    let persona = json!({ "type": "object", "properties": properties, "required": required, "additionalProperties": false });
    if one {
        return persona;
    }
    let size = brief.size.clamp(*SIZES.start(), *SIZES.end());
    json!({
        "type": "object",
        "properties": {
            "name": text,
            "scene": text,
            "personas": { "type": "array", "items": persona, "minItems": size, "maxItems": size },
        },
        "required": ["name", "scene", "personas"],
        "additionalProperties": false
    })
}
