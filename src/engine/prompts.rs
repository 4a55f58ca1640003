//! Builds each model call from the workflow's templates, the persona and
//! the conversation so far.

use crate::agents::Agent;
use crate::i18n::Lang;
use crate::llm::{ChatMessage, Role};
use crate::session::{Turn, TurnKind};
use crate::workflow::Workflow;

/// Adds a closing instruction to the conversation: merged into the last
/// user message, so roles keep alternating, or as a new one.
fn with_instruction(mut msgs: Vec<ChatMessage>, text: &str) -> Vec<ChatMessage> {
    match msgs.last_mut() {
        Some(last) if last.role == Role::User => {
            last.content.push_str("\n\n");
            last.content.push_str(text);
        }
        _ => msgs.push(ChatMessage::new(Role::User, text)),
    }
    msgs
}

pub struct PromptEnv<'a> {
    pub workflow: &'a Workflow,
    pub agents: &'a [Agent],
    pub user_name: &'a str,
    pub speech_language: &'a str,
    /// Program language, for templates that have a Chinese form.
    pub lang: Lang,
    /// The language of written outcomes (highlights).
    pub document_language: &'a str,
}

impl PromptEnv<'_> {
    fn room_rules(&self) -> String {
        let roster = self
            .agents
            .iter()
            .map(|a| format!("{} ({})", a.name, a.title))
            .collect::<Vec<_>>()
            .join(", ");
        self.workflow.render(
            "room_rules",
            self.lang,
            &[
                ("user_name", self.user_name),
                ("language", self.speech_language),
                ("agent_count", self.agents.len().to_string().as_str()),
                ("roster", roster.as_str()),
            ],
        )
    }

    pub fn system(&self, a: &Agent, end_marker: Option<&str>, ask_marker: Option<&str>, remaining: Option<&str>) -> String {
        let principles = a.principles.iter().map(|p| format!("- {p}")).collect::<Vec<_>>().join("\n");
        let mut s = self.workflow.render(
            "agent_system",
            self.lang,
            &[
                ("name", a.name.as_str()),
                ("title", a.title.as_str()),
                ("icon", a.icon.as_str()),
                ("role", a.role.as_str()),
                ("identity", a.identity.as_str()),
                ("communication_style", a.communication_style.as_str()),
                ("principles", principles.as_str()),
                ("capabilities", a.capabilities.as_deref().unwrap_or("-")),
                ("instructions", a.instructions.as_str()),
                ("room_rules", self.room_rules().as_str()),
                ("language", self.speech_language),
                ("user_name", self.user_name),
            ],
        );
        if let Some(m) = end_marker {
            s.push_str("\n\n");
            s.push_str(&self.workflow.render("end_marker_instruction", self.lang, &[("end_marker", m)]));
        }
        if let Some(m) = ask_marker {
            s.push_str("\n\n");
            s.push_str(
                &self
                    .workflow
                    .render("ask_instruction", self.lang, &[("ask_marker", m), ("user_name", self.user_name)]),
            );
        }
        if let Some(r) = remaining {
            s.push_str("\n\n");
            s.push_str(r);
        }
        s
    }

    /// The conversation as `agent` sees it: its own turns as the assistant,
    /// everyone else's as labelled user turns, merged so roles alternate.
    pub fn history(&self, agent: &Agent, turns: &[Turn]) -> Vec<ChatMessage> {
        let role_of = |t: &Turn| match t.kind {
            TurnKind::Facilitator | TurnKind::Continue | TurnKind::Push => Some(Role::User),
            TurnKind::Agent if t.agent.as_deref() == Some(agent.id.as_str()) => Some(Role::Assistant),
            TurnKind::Agent => Some(Role::User),
            _ => None,
        };
        // Consecutive turns of one role share a message. This runs over the
        // whole history for every agent turn, so each message is sized once
        // and every turn copied straight into it (`write!` costs more than
        // the copying here).
        let mut out: Vec<ChatMessage> = Vec::new();
        let mut spoken = turns.iter().filter_map(|t| role_of(t).map(|r| (r, t))).peekable();
        while let Some((role, first)) = spoken.next() {
            let mut group = vec![first];
            while let Some((_, t)) = spoken.next_if(|(r, _)| *r == role) {
                group.push(t);
            }
            let size: usize = group.iter().map(|t| t.text.len() + t.label.len() + 64).sum();
            let mut content = String::with_capacity(size);
            for (i, t) in group.into_iter().enumerate() {
                if i > 0 {
                    content.push_str("\n\n");
                }
                match t.kind {
                    TurnKind::Facilitator => {
                        for part in [self.user_name, " (facilitator): ", &t.text] {
                            content.push_str(part);
                        }
                    }
                    TurnKind::Continue => {
                        content.push_str(&self.workflow.render("continue_prompt", self.lang, &[("user_name", self.user_name)]));
                    }
                    TurnKind::Agent if role == Role::User => {
                        let title = t
                            .agent
                            .as_deref()
                            .and_then(|id| self.agents.iter().find(|a| a.id == id))
                            .map(|a| a.title.as_str());
                        content.push_str(&t.label);
                        if let Some(title) = title {
                            for part in [" (", title, ")"] {
                                content.push_str(part);
                            }
                        }
                        content.push_str(": ");
                        content.push_str(&t.text);
                    }
                    _ => content.push_str(&t.text),
                }
            }
            out.push(ChatMessage::new(role, content));
        }
        out
    }

    pub fn turn_instruction(&self, a: &Agent, round: u32, earlier: &[String], remaining: &str) -> String {
        let order = if earlier.is_empty() {
            self.workflow.render("speaks_first", self.lang, &[("user_name", self.user_name)])
        } else {
            self.workflow
                .render("spoke_before", self.lang, &[("names", earlier.join(", ").as_str())])
        };
        self.workflow.render(
            "turn",
            self.lang,
            &[
                ("name", a.name.as_str()),
                ("round", round.to_string().as_str()),
                ("user_name", self.user_name),
                ("order", order.as_str()),
                ("remaining", remaining),
            ],
        )
    }

    /// All messages of one agent turn.
    #[allow(clippy::too_many_arguments)]
    pub fn turn_messages(
        &self,
        a: &Agent,
        turns: &[Turn],
        round: u32,
        earlier: &[String],
        end_marker: Option<&str>,
        ask_marker: Option<&str>,
        remaining: Option<&str>,
    ) -> Vec<ChatMessage> {
        let mut msgs = vec![ChatMessage::new(Role::System, self.system(a, end_marker, ask_marker, remaining))];
        msgs.extend(self.history(a, turns));
        let instr = self.turn_instruction(a, round, earlier, remaining.unwrap_or(""));
        with_instruction(msgs, &instr)
    }

    pub fn farewell_messages(&self, a: &Agent, turns: &[Turn], topic: &str) -> Vec<ChatMessage> {
        let mut msgs = vec![ChatMessage::new(Role::System, self.system(a, None, None, None))];
        msgs.extend(self.history(a, turns));
        let ask = self.workflow.render(
            "farewell_prompt",
            self.lang,
            &[
                ("name", a.name.as_str()),
                ("user_name", self.user_name),
                ("topic", topic),
                ("language", self.speech_language),
            ],
        );
        with_instruction(msgs, &ask)
    }

    pub fn highlights_messages(&self, turns: &[Turn], topic: &str, perspectives: &str, rounds: u32, reason: &str) -> Vec<ChatMessage> {
        let system = self.workflow.render(
            "highlights_prompt",
            self.lang,
            &[
                ("topic", topic),
                ("perspectives", perspectives),
                ("rounds", rounds.to_string().as_str()),
                ("reason", reason),
                ("language", self.document_language),
            ],
        );
        let transcript = turns
            .iter()
            .filter(|t| matches!(t.kind, TurnKind::Facilitator | TurnKind::Agent))
            .map(|t| {
                format!(
                    "{}: {}",
                    if t.kind == TurnKind::Facilitator {
                        self.user_name
                    } else {
                        &t.label
                    },
                    t.text
                )
            })
            .collect::<Vec<_>>()
            .join("\n\n");
        vec![ChatMessage::new(Role::System, system), ChatMessage::new(Role::User, transcript)]
    }
}

impl PromptEnv<'_> {
    /// The moderator's turn when the room goes in circles.
    pub fn moderator_messages(&self, a: &Agent, turns: &[Turn]) -> Vec<ChatMessage> {
        let mut msgs = vec![ChatMessage::new(Role::System, self.system(a, None, None, None))];
        msgs.extend(self.history(a, turns));
        let ask = self.workflow.render(
            "moderator_prompt",
            self.lang,
            &[("user_name", self.user_name), ("language", self.speech_language)],
        );
        with_instruction(msgs, &ask)
    }
}
