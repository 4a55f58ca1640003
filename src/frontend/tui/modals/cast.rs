//! The review of a cast drafted by `/cast`: the party and its personas in a
//! list, the highlighted one in full (its document lines quoted), and the
//! keys to keep the cast, drop or ask again for the highlighted persona, or
//! edit one of its fields (the party's name and scene on the party's row).
//! Every step goes to the engine (`Command::Cast`), which owns the draft
//! and sends it back changed (`cast_draft`); its `cast_closed` closes the
//! modal, so a cast that could not be saved stays open with the cause.

use ratatui::crossterm::event::KeyEvent;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{button, typed, Component, Outcome, View};
use crate::engine::{CastField, CastReview, Command, DraftView};
use crate::frontend::tui::keymap::{Action, Context};
use crate::frontend::tui::markdown::{parse, wrap};
use crate::frontend::tui::theme::{Speakers, ATTENTION, FAINT, GOOD, HEADING, INK, MUTED};
use crate::i18n::{Lang, Say, Screen};

/// The most lines the modal's body takes, so a 24-row terminal shows it
/// whole, its keys included.
const BODY_LINES: usize = 19;

/// What the field editor changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    PartyName,
    PartyScene,
    Persona(CastField),
}

impl Target {
    /// The fields of a row: the party's on row 0, a persona's below.
    fn of_row(row: usize) -> Vec<Target> {
        match row {
            0 => vec![Target::PartyName, Target::PartyScene],
            _ => CastField::ALL.iter().map(|&f| Target::Persona(f)).collect(),
        }
    }

    fn label(self, lang: Lang) -> String {
        match self {
            Target::PartyName => Screen::CastPartyName.say(lang),
            Target::PartyScene => Screen::CastScene.say(lang),
            Target::Persona(f) => field_label(f, lang),
        }
    }
}

fn field_label(f: CastField, lang: Lang) -> String {
    match f {
        CastField::Name => Screen::CastFieldName,
        CastField::Title => Screen::CastFieldTitle,
        CastField::Icon => Screen::CastFieldIcon,
        CastField::Role => Screen::CastFieldRole,
        CastField::Identity => Screen::CastFieldIdentity,
        CastField::Style => Screen::CastFieldStyle,
        CastField::Principles => Screen::CastFieldPrinciples,
    }
    .say(lang)
}

/// A field being edited: which, and its text so far.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Editing {
    pub(crate) target: Target,
    pub(crate) text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CastModal {
    pub request_id: String,
    pub draft: DraftView,
    /// What the engine said of the last step.
    pub note: Option<String>,
    /// The highlighted row: 0 the party, then each persona.
    pub(crate) at: usize,
    pub(crate) editing: Option<Editing>,
    /// A step was sent and its answer is awaited (asking the model again
    /// takes a while): keys wait too, but Esc.
    pub(crate) busy: bool,
    /// Esc was pressed once: a second closes the review, saving nothing
    /// (a draft may have taken minutes).
    pub(crate) quit_armed: bool,
    /// Quit was sent: nothing more is.
    pub(crate) quitting: bool,
}

impl CastModal {
    pub(crate) fn new(request_id: String, draft: DraftView, note: Option<String>) -> CastModal {
        CastModal {
            request_id,
            draft,
            note,
            at: 1,
            editing: None,
            busy: false,
            quit_armed: false,
            quitting: false,
        }
    }

    /// The engine's draft after a step: the highlight stays where it was,
    /// within the cast.
    pub(crate) fn update(&mut self, draft: DraftView, note: Option<String>) {
        self.draft = draft;
        self.note = note;
        self.busy = false;
        self.at = self.at.min(self.draft.personas.len());
    }

    fn send(&mut self, review: CastReview) -> Outcome {
        self.busy = true;
        Outcome::Send(Command::Cast {
            request_id: self.request_id.clone(),
            review,
        })
    }

    /// The highlighted persona's place in the draft.
    fn persona(&self) -> Option<usize> {
        self.at.checked_sub(1).filter(|&i| i < self.draft.personas.len())
    }

    fn text_of(&self, target: Target) -> String {
        match (target, self.persona().and_then(|i| self.draft.personas.get(i)).map(|p| &p.persona)) {
            (Target::PartyName, _) => self.draft.name.clone(),
            (Target::PartyScene, _) => self.draft.scene.clone(),
            (Target::Persona(f), Some(p)) => p.field(f),
            (Target::Persona(_), None) => String::new(),
        }
    }

    fn edit_key(&mut self, action: Action, key: &KeyEvent) -> Outcome {
        let Some(editing) = self.editing.as_mut() else {
            return Outcome::Keep;
        };
        match action {
            Action::TypeChar => editing.text.extend(typed(key)),
            Action::Erase => _ = editing.text.pop(),
            Action::Toggle | Action::LineUp => {
                let fields = Target::of_row(self.at);
                let i = fields.iter().position(|t| *t == editing.target).unwrap_or(0);
                let step = if action == Action::Toggle { 1 } else { fields.len() - 1 };
                let target = fields[(i + step) % fields.len()];
                let text = self.text_of(target);
                self.editing = Some(Editing { target, text });
            }
            Action::Close => self.editing = None,
            Action::Confirm => {
                let Some(Editing { target, text }) = self.editing.take() else {
                    return Outcome::Keep;
                };
                if text.trim().is_empty() {
                    return Outcome::Keep;
                }
                let review = match (target, self.persona()) {
                    (Target::PartyName, _) => CastReview::Name(text),
                    (Target::PartyScene, _) => CastReview::Scene(text),
                    (Target::Persona(field), Some(at)) => CastReview::Edit { at, field, text },
                    (Target::Persona(_), None) => return Outcome::Keep,
                };
                return self.send(review);
            }
            _ => {}
        }
        Outcome::Keep
    }

    fn row(&self, i: usize, label: String) -> Line<'static> {
        let chosen = i == self.at;
        let style = if chosen {
            Style::new().bg(ATTENTION).fg(INK).bold()
        } else {
            Style::new()
        };
        Line::from(vec![
            Span::raw(if chosen { "▶" } else { " " }),
            Span::styled(format!(" {label} "), style),
        ])
    }

    /// The highlighted row in full, or the field being edited.
    fn details(&self, lang: Lang, width: u16) -> Vec<Line<'static>> {
        let label = |s: String| Span::styled(format!("{s}: "), Style::new().fg(HEADING).bold());
        // The label starts the field's first line, and the two wrap as one.
        let field = |name: String, text: &str| wrap(&parse(&format!("**{name}:** {text}")), width);
        if let Some(e) = &self.editing {
            let mut out = vec![Line::from(label(e.target.label(lang)))];
            out.push(Line::from(vec![
                Span::styled("> ", Style::new().fg(ATTENTION)),
                Span::raw(e.text.clone()),
                Span::styled("▌", Style::new().fg(ATTENTION)),
            ]));
            return out;
        }
        match self.persona().and_then(|i| self.draft.personas.get(i)) {
            None => field(Screen::CastScene.say(lang), &self.draft.scene),
            Some(p) => {
                let mut out = Vec::new();
                for f in [CastField::Role, CastField::Identity, CastField::Style, CastField::Principles] {
                    out.extend(field(field_label(f, lang), &p.persona.field(f)));
                }
                for line in &p.from {
                    out.push(Line::from(Span::styled(
                        format!("↳ {}", crate::text::ellipsize(line, width as usize)),
                        Style::new().fg(MUTED),
                    )));
                }
                out
            }
        }
    }

    fn keys(&self, lang: Lang) -> Line<'static> {
        let key = Style::new().bg(ATTENTION).fg(INK).bold();
        let (context, actions): (Context, &[Action]) = match (&self.editing, self.persona()) {
            (Some(_), _) => (Context::CastEdit, &[Action::Confirm, Action::Toggle, Action::Close]),
            (None, Some(_)) => (
                Context::CastModal,
                &[Action::Confirm, Action::Drop, Action::AskAgain, Action::Edit, Action::Close],
            ),
            (None, None) => (Context::CastModal, &[Action::Confirm, Action::Edit, Action::Close]),
        };
        let mut spans = Vec::new();
        for &action in actions {
            spans.extend(button(context, action, lang, key));
            spans.push(Span::raw("  "));
        }
        Line::from(spans)
    }
}

impl Component for CastModal {
    fn context(&self) -> Context {
        if self.editing.is_some() {
            Context::CastEdit
        } else {
            Context::CastModal
        }
    }

    fn on_action(&mut self, action: Action, key: &KeyEvent) -> Outcome {
        if self.editing.is_some() {
            return self.edit_key(action, key);
        }
        if self.quitting || (self.busy && action != Action::Close) {
            return Outcome::Keep;
        }
        let armed = std::mem::take(&mut self.quit_armed);
        match action {
            Action::LineUp => self.at = self.at.saturating_sub(1),
            Action::LineDown => self.at = (self.at + 1).min(self.draft.personas.len()),
            Action::Confirm => return self.send(CastReview::Keep),
            Action::Close if armed => {
                self.quitting = true;
                return self.send(CastReview::Quit);
            }
            Action::Close => self.quit_armed = true,
            Action::Drop => {
                if let Some(at) = self.persona() {
                    return self.send(CastReview::Drop(at));
                }
            }
            Action::AskAgain => {
                if let Some(at) = self.persona() {
                    return self.send(CastReview::Again(at));
                }
            }
            Action::Edit => {
                let target = Target::of_row(self.at)[0];
                let text = self.text_of(target);
                self.editing = Some(Editing { target, text });
            }
            _ => {}
        }
        Outcome::Keep
    }

    fn view(&self, who: &Speakers<'_>, width: u16) -> View {
        let lang = who.lang;
        let mut rows = vec![self.row(0, format!("🎭 {}", self.draft.name))];
        for (i, p) in self.draft.personas.iter().enumerate() {
            let p = &p.persona;
            rows.push(self.row(i + 1, format!("{} {} — {}", p.icon, p.name, p.title)));
        }
        let mut tail = Vec::new();
        if self.quit_armed {
            tail.push(Line::from(Span::styled(
                Screen::CastQuitAgain.say(lang),
                Style::new().fg(ATTENTION),
            )));
        } else if self.busy {
            tail.push(Line::from(Span::styled(Screen::CastWaiting.say(lang), Style::new().fg(ATTENTION))));
        } else if let Some(note) = &self.note {
            tail.extend(wrap(&parse(note), width));
        }
        tail.push(Line::default());
        tail.push(self.keys(lang));
        let mut details = self.details(lang, width);
        let room = BODY_LINES.saturating_sub(rows.len() + tail.len() + 1).max(3);
        if details.len() > room {
            details.truncate(room - 1);
            details.push(Line::from(Span::styled("…", Style::new().fg(FAINT))));
        }
        let mut body = rows;
        body.push(Line::from(Span::styled("─".repeat(width as usize), Style::new().fg(FAINT))));
        body.extend(details);
        body.extend(tail);
        View {
            title: format!(" 🎭 {} ", Screen::CastTitle.say(lang)),
            color: GOOD,
            body,
        }
    }

    fn request_id(&self) -> Option<&str> {
        Some(&self.request_id)
    }

    fn paste(&mut self, text: &str) {
        if let Some(e) = self.editing.as_mut() {
            e.text.push_str(&text.replace('\n', " "));
        }
    }
}
