//! Builds each model call from the workflow's templates, the persona and
//! the conversation so far.

use crate::config::PromptLayout;
use crate::i18n::Lang;
use crate::llm::{ChatMessage, Role};
use crate::roster::agents::Agent;
use crate::session::{Turn, TurnKind};
use crate::workflow::Workflow;

/// Adds a closing instruction to the conversation: merged into the last
/// user message, so roles keep alternating, or as a new one.
pub(crate) fn with_instruction(mut msgs: Vec<ChatMessage>, text: &str) -> Vec<ChatMessage> {
    match msgs.last_mut() {
        Some(last) if last.role == Role::User => {
            last.content = [&*last.content, "\n\n", text].concat().into();
        }
        _ => msgs.push(ChatMessage::new(Role::User, text)),
    }
    msgs
}

/// One agent's history as messages, for the first `covered` turns of the
/// transcript it was made from. Turns are only ever appended, so the same
/// view stays true as the transcript grows.
#[derive(Debug, Clone, Default)]
pub(crate) struct HistoryView {
    covered: usize,
    messages: Vec<ChatMessage>,
}

impl HistoryView {
    pub(crate) fn messages(&self) -> &[ChatMessage] {
        &self.messages
    }

    /// How many turns from its start it holds.
    pub(crate) fn covered(&self) -> usize {
        self.covered
    }

    /// A history that opens with `note` (the first turn after it, a round's
    /// opening, joins the same user message).
    pub(crate) fn after_note(note: String) -> HistoryView {
        HistoryView {
            covered: 0,
            messages: vec![ChatMessage::new(Role::User, note)],
        }
    }
}

pub(crate) struct PromptEnv<'a> {
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

    fn end_instruction(&self, marker: &str) -> String {
        self.workflow.render("end_marker_instruction", self.lang, &[("end_marker", marker)])
    }

    fn ask_instruction(&self, marker: &str) -> String {
        self.workflow.render(
            "ask_instruction",
            self.lang,
            &[("ask_marker", marker), ("user_name", self.user_name)],
        )
    }

    /// The system prompt of every speaker's call: the room's rules and the
    /// markers' instructions, naming nobody in particular. The same for
    /// every agent all session long (what remains of the session goes in the
    /// turn note instead), so it stays the cached front of every prompt.
    pub(crate) fn room_system(&self, end_marker: Option<&str>, ask_marker: Option<&str>) -> String {
        let mut s = self.workflow.render(
            "room_system",
            self.lang,
            &[
                ("room_rules", self.room_rules().as_str()),
                ("language", self.speech_language),
                ("user_name", self.user_name),
            ],
        );
        if let Some(m) = end_marker {
            s.push_str("\n\n");
            s.push_str(&self.end_instruction(m));
        }
        if let Some(m) = ask_marker {
            s.push_str("\n\n");
            s.push_str(&self.ask_instruction(m));
        }
        s
    }

    /// Who speaks: the agent's persona, between the conversation and the
    /// turn's note.
    pub(crate) fn persona(&self, a: &Agent) -> String {
        let principles = a.principles.iter().map(|p| format!("- {p}")).collect::<Vec<_>>().join("\n");
        let card = self.workflow.render(
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
                // A workflow folder copied when the persona held the room's
                // rules still names them here: they are in `room_system` now.
                ("room_rules", ""),
                ("language", self.speech_language),
                ("user_name", self.user_name),
            ],
        );
        card.trim().to_string()
    }

    /// A speaker's call. `persona_first`: the persona and `room` (from
    /// [`Self::room_system`]) as the system prompt, the agent's own history,
    /// `note`. `room_first`: `room` alone as the system prompt, the shared
    /// history, then the persona and `note` — the only part that differs
    /// from one agent's call to the next. An empty `note`: the call's front
    /// alone, up to where the persona (`room_first`) or the note would go —
    /// what a read-ahead sends.
    pub(crate) fn speaker_messages(
        &self,
        layout: PromptLayout,
        room: &str,
        a: &Agent,
        history: &[ChatMessage],
        note: &str,
    ) -> Vec<ChatMessage> {
        let system = match layout {
            PromptLayout::PersonaFirst => [self.persona(a).as_str(), "\n\n", room].concat(),
            PromptLayout::RoomFirst => room.to_string(),
        };
        let mut msgs = Vec::with_capacity(history.len() + 2);
        msgs.push(ChatMessage::new(Role::System, system));
        msgs.extend_from_slice(history);
        match layout {
            _ if note.is_empty() => msgs,
            PromptLayout::PersonaFirst => with_instruction(msgs, note),
            PromptLayout::RoomFirst => with_instruction(msgs, &[self.persona(a).as_str(), "\n\n", note].concat()),
        }
    }

    /// After a speaker's reply: the question of its self-check.
    pub(crate) fn self_check_note(&self, a: &Agent) -> String {
        self.workflow
            .render("self_check", self.lang, &[("name", a.name.as_str()), ("user_name", self.user_name)])
    }

    /// Added to a turn's note when its reply is asked for once more
    /// because cleaning left nothing of the agent's own.
    pub(crate) fn ask_again_note(&self, a: &Agent) -> String {
        self.workflow.render("ask_again", self.lang, &[("name", a.name.as_str())])
    }

    /// Opens a history whose earlier rounds were left out to fit the
    /// model's window: the topic stays in view.
    pub(crate) fn omitted_note(&self, rounds: usize, topic: &str) -> String {
        self.workflow.render(
            "history_omitted",
            self.lang,
            &[
                ("rounds", rounds.to_string().as_str()),
                ("topic", crate::text::ellipsize(topic, 600).as_str()),
            ],
        )
    }

    /// The conversation as `viewer` sees it (None: as every speaker does).
    #[cfg(test)]
    pub(crate) fn history(&self, viewer: Option<&Agent>, turns: &[Turn]) -> Vec<ChatMessage> {
        let mut view = HistoryView::default();
        self.extend_history(viewer, turns, &mut view);
        view.messages
    }

    /// Brings `view`, a history of a prefix of `turns`, up to all of them.
    /// Seen by a `viewer` (`persona_first`), its own turns are the
    /// assistant's and everyone else's labelled user turns, merged so roles
    /// alternate. Seen by no one in particular (`room_first`), every turn is
    /// a labelled user turn: one message, the same for every speaker, so
    /// consecutive calls of different agents share it whole. A history only
    /// grows between calls, so it is extended rather than rebuilt from the
    /// whole transcript each time.
    pub(crate) fn extend_history(&self, viewer: Option<&Agent>, turns: &[Turn], view: &mut HistoryView) {
        if view.covered > turns.len() {
            *view = HistoryView::default();
        }
        let role_of = |t: &Turn| match t.kind {
            TurnKind::Facilitator | TurnKind::Continue | TurnKind::Push => Some(Role::User),
            TurnKind::Agent if viewer.is_some_and(|v| t.agent.as_deref() == Some(v.id.as_str())) => Some(Role::Assistant),
            TurnKind::Agent => Some(Role::User),
            _ => None,
        };
        // Consecutive turns of one role share a message: a run of them is
        // sized once, each turn copied straight in (`write!` costs more than
        // the copying here), and joins the last message when that has the
        // same role.
        let mut spoken = turns[view.covered..].iter().filter_map(|t| role_of(t).map(|r| (r, t))).peekable();
        while let Some((role, first)) = spoken.next() {
            let mut group = vec![first];
            while let Some((_, t)) = spoken.next_if(|(r, _)| *r == role) {
                group.push(t);
            }
            let joins = view.messages.last().filter(|m| m.role == role).map(|m| m.content.clone());
            let size: usize =
                group.iter().map(|t| t.text.len() + t.label.len() + 64).sum::<usize>() + joins.as_ref().map_or(0, |c| c.len());
            let mut content = String::with_capacity(size);
            if let Some(earlier) = &joins {
                content.push_str(earlier);
            }
            for (i, t) in group.into_iter().enumerate() {
                if i > 0 || joins.is_some() {
                    content.push_str("\n\n");
                }
                match t.kind {
                    TurnKind::Facilitator => {
                        for part in [self.user_name, ": ", &t.text] {
                            content.push_str(part);
                        }
                    }
                    TurnKind::Continue => {
                        content.push_str(&self.workflow.render("continue_prompt", self.lang, &[("user_name", self.user_name)]));
                    }
                    TurnKind::Agent if role == Role::User => {
                        // The plain name, as the roster gives it: the label the
                        // server is asked to stop at (`stop_labels`) is this one.
                        let name = t
                            .agent
                            .as_deref()
                            .and_then(|id| self.agents.iter().find(|a| a.id == id))
                            .map_or(t.label.as_str(), |a| a.name.as_str());
                        for part in [name, ": ", &t.text] {
                            content.push_str(part);
                        }
                    }
                    _ => content.push_str(&t.text),
                }
            }
            if joins.is_some() {
                view.messages.pop();
            }
            view.messages.push(ChatMessage::new(role, content));
        }
        view.covered = turns.len();
    }

    pub(crate) fn turn_instruction(&self, a: &Agent, round: u32, earlier: &[String], remaining: &str) -> String {
        self.turn_note(a, round, earlier, remaining, &self.principle_note(a, round, true))
    }

    /// The principle the speaker is pointed to this round, said in the
    /// turn note (`principle`; empty for a persona without principles):
    /// told only to make "a point only it would make", a small model makes
    /// one any persona could have made. Each round takes the next of its
    /// principles, so a long party does not hear one creed every turn.
    /// Without `words`, only its frame (the runtime's part of it).
    fn principle_note(&self, a: &Agent, round: u32, words: bool) -> String {
        let Some(principle) = a.principle_for_round(round) else {
            return String::new();
        };
        let principle = if words { principle } else { "" };
        self.workflow
            .render("principle", self.lang, &[("name", a.name.as_str()), ("principle", principle)])
    }

    fn turn_note(&self, a: &Agent, round: u32, earlier: &[String], remaining: &str, principle: &str) -> String {
        let order = match earlier.last() {
            None => self.workflow.render(
                "speaks_first",
                self.lang,
                &[
                    ("user_name", self.user_name),
                    ("name", a.name.as_str()),
                    ("title", a.title.as_str()),
                    ("principle", principle),
                ],
            ),
            Some(last) => self.workflow.render(
                "spoke_before",
                self.lang,
                &[
                    ("names", earlier.join(", ").as_str()),
                    ("name", a.name.as_str()),
                    ("last", last.as_str()),
                    ("title", a.title.as_str()),
                    ("principle", principle),
                ],
            ),
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

    /// The runtime's own words in a turn's prompt (rules, instructions): a
    /// reply must not give them back.
    pub(crate) fn runtime_texts(
        &self,
        a: &Agent,
        round: u32,
        earlier: &[String],
        end_marker: Option<&str>,
        ask_marker: Option<&str>,
        remaining: Option<&str>,
    ) -> Vec<String> {
        let mut out = vec![
            self.room_system(None, None),
            // The principle's frame without the principle: the persona's
            // own words, which its reply may well take up, are not the runtime's.
            self.turn_note(a, round, earlier, remaining.unwrap_or(""), &self.principle_note(a, round, false)),
        ];
        out.extend(end_marker.map(|m| self.end_instruction(m)));
        out.extend(ask_marker.map(|m| self.ask_instruction(m)));
        out.extend(remaining.map(String::from));
        // The history says it where the room went on by itself; a small
        // model hands it back as part of its reply.
        out.push(self.workflow.render("continue_prompt", self.lang, &[("user_name", self.user_name)]));
        out
    }

    pub(crate) fn farewell_instruction(&self, a: &Agent, topic: &str) -> String {
        self.workflow.render(
            "farewell_prompt",
            self.lang,
            &[
                ("name", a.name.as_str()),
                ("user_name", self.user_name),
                ("topic", topic),
                ("language", self.speech_language),
            ],
        )
    }

    pub(crate) fn highlights_system(&self, topic: &str, perspectives: &str, rounds: u32, reason: &str) -> String {
        self.workflow.render(
            "highlights_prompt",
            self.lang,
            &[
                ("topic", topic),
                ("perspectives", perspectives),
                ("rounds", rounds.to_string().as_str()),
                ("reason", reason),
                ("language", self.document_language),
            ],
        )
    }

    /// The takeaways' note-taker: three lists under fixed headings.
    pub(crate) fn takeaways_system(&self, topic: &str) -> String {
        self.workflow.render(
            "takeaways_prompt",
            self.lang,
            &[("topic", topic), ("language", self.document_language)],
        )
    }

    /// The memory's note-taker: a few typed lines for next time.
    pub(crate) fn memory_system(&self, topic: &str, names: &str) -> String {
        self.workflow.render(
            "memory_prompt",
            self.lang,
            &[
                ("topic", topic),
                ("names", names),
                ("user_name", self.user_name),
                ("language", self.speech_language),
            ],
        )
    }

    /// The highlights call: `system` from [`Self::highlights_system`], the
    /// transcript as one user message.
    pub(crate) fn highlights_messages(&self, system: String, turns: &[Turn]) -> Vec<ChatMessage> {
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
    pub(crate) fn moderator_instruction(&self) -> String {
        self.workflow.render(
            "moderator_prompt",
            self.lang,
            &[("user_name", self.user_name), ("language", self.speech_language)],
        )
    }
}

#[cfg(test)]
mod tests;
