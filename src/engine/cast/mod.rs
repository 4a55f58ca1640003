//! Casts drafted for a question: the model invents the room a topic needs
//! (3–6 personas who want different things), or distils it from documents
//! (interview notes, a customer table, minutes) with each persona citing
//! the lines it comes from. The draft is read leniently and checked
//! (`read`), asked again with what was wrong (`ask`), reviewed by the
//! facilitator (`review`), and saved whole or not at all as agent files and
//! a named party (`save`), or into a BMAD project's party mode (`bmad`).
//! With no model the rehearsal provider drafts one from a fixed list
//! (`llm::rehearsal_cast`), the same for the same topic.
//!
//! Two ways in: `bmad-party cast` (`commands::cast`) and `/cast` typed in
//! the room (`typed`, carried out by the step machine's `cast`). Both draft,
//! review and save through the functions here.

pub(crate) mod ask;
pub(crate) mod bmad;
pub(crate) mod read;
pub(crate) mod review;
pub(crate) mod save;
pub(crate) mod typed;

use serde::{Deserialize, Serialize};

use crate::i18n::Lang;

/// The fewest and the most personas a drafted cast has.
pub(crate) const SIZES: std::ops::RangeInclusive<usize> = 3..=6;
/// How many personas a cast has unless the facilitator says.
pub(crate) const DEFAULT_SIZE: usize = 4;

/// One drafted persona: an agent file's fields, and the document lines it
/// comes from (numbered across every source, 1-based).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Persona {
    pub name: String,
    pub title: String,
    pub icon: String,
    pub role: String,
    pub identity: String,
    pub communication_style: String,
    pub principles: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<u32>,
}

/// A drafted cast: the party's name and scene, and its personas.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Draft {
    pub name: String,
    pub scene: String,
    pub personas: Vec<Persona>,
}

impl Draft {
    /// The draft as the facilitator reviews it, each persona's document
    /// lines quoted.
    pub(crate) fn view(&self, sources: &Sources) -> DraftView {
        DraftView {
            name: self.name.clone(),
            scene: self.scene.clone(),
            personas: self
                .personas
                .iter()
                .map(|p| PersonaView {
                    persona: p.clone(),
                    from: p
                        .lines
                        .iter()
                        .filter_map(|&n| sources.locate(n))
                        .map(|(at, line)| format!("{at}: {}", crate::text::ellipsize(line, 120)))
                        .collect(),
                })
                .collect(),
        }
    }
}

/// A draft as it is shown for review: `cast`'s JSON on stdout, and the
/// engine's `cast_draft` event (the full-screen review draws it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DraftView {
    pub name: String,
    pub scene: String,
    pub personas: Vec<PersonaView>,
}

/// One persona of a [`DraftView`]: its fields (the document lines it
/// cites, as the model saw them numbered, among them) and those lines
/// quoted (`notes.md:12: …`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PersonaView {
    #[serde(flatten)]
    pub persona: Persona,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub from: Vec<String>,
}

impl Persona {
    /// A field's text as `review::edit` takes it (principles joined by `; `).
    pub(crate) fn field(&self, f: review::Field) -> String {
        match f {
            review::Field::Name => self.name.clone(),
            review::Field::Title => self.title.clone(),
            review::Field::Icon => self.icon.clone(),
            review::Field::Role => self.role.clone(),
            review::Field::Identity => self.identity.clone(),
            review::Field::Style => self.communication_style.clone(),
            review::Field::Principles => self.principles.join("; "),
        }
    }
}

/// What a cast is drafted for.
#[derive(Debug, Clone, Default)]
pub(crate) struct Brief {
    pub topic: String,
    /// How many personas to ask for (within [`SIZES`]).
    pub size: usize,
    /// The language every text is written in (`communication_language`).
    pub language: String,
    /// The program's language: which prompt templates and words.
    pub lang: Lang,
    /// Names already in the program (the room and the pool): a persona
    /// must not take one.
    pub taken: Vec<String>,
    pub sources: Sources,
}

/// The documents a cast is distilled from, their non-empty lines numbered
/// across all of them as the model sees them.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Sources {
    /// Each line: the document's name, its line number in the text read,
    /// the line.
    lines: Vec<(String, u32, String)>,
    /// Lines left out: the documents were longer than a prompt holds.
    pub left_out: u32,
}

/// The most of the documents a draft's prompt holds, in characters.
const SOURCE_CHARS: usize = 16_000;

impl Sources {
    /// The non-empty lines of `documents` (name, text), as many as fit.
    pub(crate) fn new(documents: &[(String, String)]) -> Sources {
        let mut out = Sources::default();
        let mut chars = 0;
        for (name, text) in documents {
            for (i, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() {
                    continue;
                }
                chars += line.chars().count() + 8;
                if chars > SOURCE_CHARS {
                    out.left_out += 1;
                    continue;
                }
                out.lines.push((name.clone(), i as u32 + 1, line.to_string()));
            }
        }
        out
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// How many lines the model is shown.
    pub(crate) fn count(&self) -> u32 {
        self.lines.len() as u32
    }

    /// The documents as the model reads them: each under its name, each
    /// line after its number.
    pub(crate) fn numbered(&self) -> String {
        let mut out = String::new();
        let mut current: Option<&str> = None;
        for (n, (name, _, line)) in self.lines.iter().enumerate() {
            if current != Some(name.as_str()) {
                if current.is_some() {
                    out.push('\n');
                }
                out.push_str(&format!("### {name}\n"));
                current = Some(name);
            }
            out.push_str(&format!("{}: {line}\n", n + 1));
        }
        out
    }

    /// Where line `n` (as the model numbered it) is: `notes.md:12`, and
    /// the line; None for a number the model was not shown.
    pub(crate) fn locate(&self, n: u32) -> Option<(String, &str)> {
        let (name, at, line) = self.lines.get((n as usize).checked_sub(1)?)?;
        Some((format!("{name}:{at}"), line.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::Sources;

    #[test]
    fn lines_are_numbered_across_documents_and_found_back_in_their_file() {
        let s = Sources::new(&[
            ("notes.md".into(), "Ana: the queue is long\n\nBo: I pay by card".into()),
            ("table.csv".into(), "name,wish\nCy,delivery".into()),
        ]);
        assert_eq!(s.count(), 4);
        assert_eq!(
            s.numbered(),
            "### notes.md\n1: Ana: the queue is long\n2: Bo: I pay by card\n\n### table.csv\n3: name,wish\n4: Cy,delivery\n"
        );
        assert_eq!(s.locate(2), Some(("notes.md:3".into(), "Bo: I pay by card")));
        assert_eq!(s.locate(4).map(|l| l.0), Some("table.csv:2".into()));
        assert_eq!((s.locate(0), s.locate(5)), (None, None));
    }

    #[test]
    fn a_document_longer_than_a_prompt_holds_is_cut_at_a_line_and_counted() {
        let long = "a line of the notes that goes on for a while\n".repeat(1000);
        let s = Sources::new(&[("notes.md".into(), long)]);
        assert!(s.count() > 100 && s.left_out > 0);
        assert_eq!(s.count() + s.left_out, 1000);
    }
}
