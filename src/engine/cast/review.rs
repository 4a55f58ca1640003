//! The facilitator's review of a draft before anything is saved: keep it,
//! drop a persona, ask again for one, edit a field, rename the party or
//! change its scene. Each change is a pure function on the draft; `cast`
//! reads them as typed lines (`parse`), and a full-screen review sends the
//! same ones.

use super::{Draft, Persona};
use crate::i18n::Cast;

/// One review step: typed as a line (`parse`), sent by the full-screen
/// review, or given in the headless JSON protocol (`{"drop": 1}`, places
/// counted from 0 as in the draft's `personas`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Review {
    /// Save the draft as it stands.
    Keep,
    /// Save nothing.
    Quit,
    /// Leave out the persona at this place (0-based).
    Drop(usize),
    /// Ask the model for someone else in this place.
    Again(usize),
    Edit {
        at: usize,
        field: Field,
        text: String,
    },
    /// The party's name.
    Name(String),
    Scene(String),
    /// Show the draft again.
    Show,
}

/// A persona's field the facilitator can edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Name,
    Title,
    Icon,
    Role,
    Identity,
    /// The communication style.
    #[serde(alias = "communication_style")]
    Style,
    Principles,
}

impl Field {
    /// Every field, in the order a persona is shown.
    pub(crate) const ALL: [Field; 7] = [
        Field::Name,
        Field::Title,
        Field::Icon,
        Field::Role,
        Field::Identity,
        Field::Style,
        Field::Principles,
    ];
}

/// The fields as they are typed, `style` standing for the communication style.
const FIELDS: &[(&str, Field)] = &[
    ("name", Field::Name),
    ("title", Field::Title),
    ("icon", Field::Icon),
    ("role", Field::Role),
    ("identity", Field::Identity),
    ("style", Field::Style),
    ("communication_style", Field::Style),
    ("principles", Field::Principles),
];

/// Reads a typed review line against a draft of `count` personas:
/// `keep`, `quit`, `drop N`, `again N`, `edit N FIELD TEXT`, `name TEXT`,
/// `scene TEXT`, `show` (N counted from 1, as the draft is shown).
pub(crate) fn parse(line: &str, count: usize) -> Result<Review, Cast> {
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    let place = |n: &str| -> Result<usize, Cast> {
        n.trim_start_matches('#')
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=count).contains(n))
            .map(|n| n - 1)
            .ok_or_else(|| Cast::NoSuchPersona { n: n.into(), count })
    };
    match word.to_lowercase().as_str() {
        "keep" | "k" | "y" | "yes" | "save" => Ok(Review::Keep),
        "quit" | "q" | "n" | "no" => Ok(Review::Quit),
        "show" | "" => Ok(Review::Show),
        "drop" => Ok(Review::Drop(place(rest)?)),
        "again" => Ok(Review::Again(place(rest)?)),
        "name" if !rest.is_empty() => Ok(Review::Name(rest.into())),
        "scene" if !rest.is_empty() => Ok(Review::Scene(rest.into())),
        "edit" => {
            let mut parts = rest.splitn(3, char::is_whitespace);
            let at = place(parts.next().unwrap_or(""))?;
            let typed = parts.next().unwrap_or("").to_lowercase();
            let field = FIELDS
                .iter()
                .find(|(n, _)| *n == typed)
                .map(|(_, f)| *f)
                .ok_or_else(|| Cast::NoSuchField {
                    field: typed.clone(),
                    fields: "name, title, icon, role, identity, style, principles".into(),
                })?;
            let text = parts.next().unwrap_or("").trim().to_string();
            if text.is_empty() {
                return Err(Cast::UnknownReview { line: line.into() });
            }
            Ok(Review::Edit { at, field, text })
        }
        _ => Err(Cast::UnknownReview { line: line.into() }),
    }
}

/// What a review step leaves to its caller once the draft has taken it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Applied {
    /// The draft changed, or is to be shown again; `dropped`: the persona
    /// left out.
    Shown {
        dropped: Option<String>,
    },
    Keep,
    Quit,
    /// Ask the model for someone in this place (checked to be one).
    Again(usize),
}

/// A review step on the draft, however it came (a typed line, a key, a
/// JSON step): the changes made here, the rest the caller's; a place out
/// of the draft is refused (JSON places are not checked by `parse`).
pub(crate) fn apply(draft: &mut Draft, step: Review) -> Result<Applied, Cast> {
    let count = draft.personas.len();
    let place = |at: usize| {
        (at < count).then_some(at).ok_or_else(|| Cast::NoSuchPersona {
            n: at.saturating_add(1).to_string(),
            count,
        })
    };
    let clean = |t: &str| crate::text::sanitize(t).trim().to_string();
    let shown = Applied::Shown { dropped: None };
    Ok(match step {
        Review::Keep => Applied::Keep,
        Review::Quit => Applied::Quit,
        Review::Show => shown,
        Review::Name(name) => {
            draft.name = clean(&name);
            shown
        }
        Review::Scene(scene) => {
            draft.scene = clean(&scene);
            shown
        }
        Review::Drop(at) => Applied::Shown {
            dropped: Some(drop(draft, place(at)?)?.name),
        },
        Review::Edit { at, field, text } => {
            edit(draft, place(at)?, field, &text)?;
            shown
        }
        Review::Again(at) => Applied::Again(place(at)?),
    })
}

/// Leaves the persona at `at` out; a party keeps two at least.
pub(crate) fn drop(draft: &mut Draft, at: usize) -> Result<Persona, Cast> {
    if draft.personas.len() <= 2 {
        return Err(Cast::TooFewLeft);
    }
    Ok(draft.personas.remove(at))
}

/// Why the draft as it stands cannot be saved: fields left empty (none
/// for a draft read and checked; this is the last look before writing).
pub(crate) fn unsaveable(draft: &Draft) -> Vec<Cast> {
    draft
        .personas
        .iter()
        .enumerate()
        .flat_map(|(i, p)| super::read::missing(p, i))
        .collect()
}

/// Sets one field of the persona at `at`; principles are typed apart by
/// `;`. A text that leaves the field empty (`**` for a name) is refused,
/// the field as it was.
pub(crate) fn edit(draft: &mut Draft, at: usize, field: Field, text: &str) -> Result<(), Cast> {
    let Some(p) = draft.personas.get_mut(at) else { return Ok(()) };
    let before = p.clone();
    let text = crate::text::sanitize(text).trim().to_string();
    match field {
        Field::Name => p.name = text.replace('*', ""),
        Field::Title => p.title = text,
        Field::Icon => p.icon = text,
        Field::Role => p.role = text,
        Field::Identity => p.identity = text,
        Field::Style => p.communication_style = text,
        Field::Principles => {
            p.principles = text
                .split([';', '；'])
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
        }
    }
    let field_of = |c: &Cast| match c {
        Cast::Missing { field, .. } => field.clone(),
        _ => String::new(),
    };
    let was: Vec<String> = super::read::missing(&before, at).iter().map(field_of).collect();
    let emptied = super::read::missing(p, at).into_iter().find(|m| !was.contains(&field_of(m)));
    match emptied {
        Some(flaw) => {
            *p = before;
            Err(flaw)
        }
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(n: usize) -> Draft {
        Draft {
            name: "Room".into(),
            scene: String::new(),
            personas: (0..n)
                .map(|i| Persona {
                    name: format!("P{i}"),
                    ..Persona::default()
                })
                .collect(),
        }
    }

    #[test]
    fn typed_lines_read_as_review_steps_counted_from_one() {
        assert_eq!(parse("keep", 3), Ok(Review::Keep));
        assert_eq!(parse(" drop 2 ", 3), Ok(Review::Drop(1)));
        assert_eq!(parse("again #3", 3), Ok(Review::Again(2)));
        assert_eq!(
            parse("edit 1 style Blunt, and brief.", 3),
            Ok(Review::Edit {
                at: 0,
                field: Field::Style,
                text: "Blunt, and brief.".into()
            })
        );
        assert_eq!(parse("name Bakery panel", 3), Ok(Review::Name("Bakery panel".into())));
        assert_eq!(parse("drop 4", 3), Err(Cast::NoSuchPersona { n: "4".into(), count: 3 }));
        assert!(matches!(parse("edit 1 mood calm", 3), Err(Cast::NoSuchField { .. })));
        assert!(matches!(parse("edit 1 role", 3), Err(Cast::UnknownReview { .. })));
        assert!(matches!(parse("dance", 3), Err(Cast::UnknownReview { .. })));
    }

    #[test]
    fn review_steps_read_as_json_places_counted_from_zero() {
        let json = |s: &str| serde_json::from_str::<Review>(s).map_err(|e| e.to_string());
        assert_eq!(json(r#""keep""#), Ok(Review::Keep));
        assert_eq!(json(r#"{"drop": 1}"#), Ok(Review::Drop(1)));
        assert_eq!(
            json(r#"{"edit": {"at": 0, "field": "communication_style", "text": "Brief."}}"#),
            Ok(Review::Edit {
                at: 0,
                field: Field::Style,
                text: "Brief.".into()
            })
        );
        assert_eq!(serde_json::to_string(&Review::Again(2)).unwrap(), r#"{"again":2}"#);
        assert!(json(r#"{"dance": 1}"#).is_err());
    }

    #[test]
    fn a_step_applied_changes_the_draft_or_says_why_not() {
        let mut d = draft(3);
        assert_eq!(
            apply(&mut d, Review::Drop(usize::MAX)),
            Err(Cast::NoSuchPersona {
                n: "18446744073709551615".into(),
                count: 3
            })
        );
        assert_eq!(
            apply(&mut d, Review::Drop(1)),
            Ok(Applied::Shown {
                dropped: Some("P1".into())
            })
        );
        assert_eq!(apply(&mut d, Review::Again(1)), Ok(Applied::Again(1)));
        assert_eq!(
            apply(&mut d, Review::Again(2)),
            Err(Cast::NoSuchPersona { n: "3".into(), count: 2 })
        );
        assert_eq!(apply(&mut d, Review::Drop(0)), Err(Cast::TooFewLeft));
        assert_eq!(
            apply(&mut d, Review::Scene(" A \u{1b}[31mshop ".into())),
            Ok(Applied::Shown { dropped: None })
        );
        assert_eq!(d.scene, "A shop");
        assert_eq!(apply(&mut d, Review::Keep), Ok(Applied::Keep));
    }

    #[test]
    fn a_party_keeps_two_personas_and_principles_split_at_semicolons() {
        let mut d = draft(3);
        assert_eq!(drop(&mut d, 0).map(|p| p.name), Ok("P0".into()));
        assert_eq!(drop(&mut d, 0), Err(Cast::TooFewLeft));
        assert_eq!(edit(&mut d, 1, Field::Principles, "Ship small; \u{1b}[31mmeasure；listen"), Ok(()));
        assert_eq!(d.personas[1].principles, ["Ship small", "measure", "listen"]);
        // What a field shows is what editing it again takes.
        let shown = d.personas[1].field(Field::Principles);
        assert_eq!(edit(&mut d, 1, Field::Principles, &shown), Ok(()));
        assert_eq!(d.personas[1].principles, ["Ship small", "measure", "listen"]);
        // A text that leaves a field empty is refused, the field kept.
        assert!(matches!(
            edit(&mut d, 1, Field::Principles, " ; ；"),
            Err(Cast::Missing { at: 1, .. })
        ));
        assert!(matches!(edit(&mut d, 0, Field::Name, "**"), Err(Cast::Missing { at: 0, .. })));
        assert_eq!(d.personas[0].name, "P1");
        assert_eq!(d.personas[1].principles, ["Ship small", "measure", "listen"]);
    }
}
