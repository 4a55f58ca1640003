//! English: Cast.

use crate::i18n::keys::Cast;

pub(in crate::i18n) fn cast(k: &Cast) -> String {
    match k {
        Cast::NoJson => "the answer held no JSON object".into(),
        Cast::NoPersonas => "the object has no `personas` list".into(),
        Cast::Count { have } => format!("it has {have} personas; the room needs 3 to 6"),
        Cast::Missing { who, field, .. } => format!("{who}: `{field}` is missing or empty"),
        Cast::NotAName { name, .. } => format!("`name` is one person's first name, not a label or a sentence: not “{name}”"),
        Cast::NameIsTitle { name, .. } => {
            format!("“{name}” is both `name` and `title`: `name` is one person's first name, `title` what they are in two to four words")
        }
        Cast::SameName { name, .. } => format!("two personas are called {name}: give each its own name"),
        Cast::Taken { name, .. } => format!("{name} is the name of someone already in the program: choose another name"),
        Cast::Alike { who, other, field, .. } => {
            format!("{who}'s {field} is {other}'s: make them different people who want different things")
        }
        Cast::Crowded { who, others, .. } => {
            format!("{who} is described with {others}: say only who {who} is, what {who} wants and how {who} talks")
        }
        Cast::Language { who, language, .. } => format!("{who} is not written in {language}"),
        Cast::NoLines { who, .. } => format!("{who} cites no line of the documents in `lines`"),
        Cast::NoSuchLine { who, line, last, .. } => {
            format!("{who} cites line {line}, but the documents have lines 1 to {last}")
        }

        Cast::Drafting { topic, model, size } => format!("Drafting a cast of {size} for “{topic}” with {model}…"),
        Cast::AskingAgain { attempt, of, flaws } => {
            format!("The draft could not be used ({flaws}); asking again ({attempt} of {of})…")
        }
        Cast::Refused { attempts, flaws } => {
            format!("No usable cast after {attempts} drafts, so nothing was saved. The last one: {flaws}")
        }
        Cast::Salvaged { dropped } => format!("Left out of the last draft, as they could not be used: {dropped}"),
        Cast::LeftOut { lines } => {
            format!("The documents are longer than a draft's prompt holds: their last {lines} lines were not read.")
        }
        Cast::NotAnswering { cause } => format!("The server did not answer at once ({cause}); asking it anyway…"),
        Cast::ModelFailed { cause } => format!("The model could not draft a cast: {cause}"),
        Cast::DraftingInRoom {
            topic,
            model,
            size,
            documents,
        } => {
            let from = match documents {
                0 => String::new(),
                1 => " from the document in front of the room".into(),
                n => format!(" from the {n} documents in front of the room"),
            };
            format!("Drafting a cast of {size} for “{topic}”{from} with {model}…")
        }
        Cast::NeedsTopic => "/cast needs a topic until the party has one: /cast TOPIC".into(),
        Cast::NoDocuments => "/cast --from: no document is in front of the room (/context PATH puts one there)".into(),
        Cast::NoConfigFolder => "/cast saves to your config folder, and this system names none (set XDG_CONFIG_HOME or HOME)".into(),
        Cast::Stopped => "Stopped; the cast stays as it was.".into(),

        Cast::ReviewHelp => "keep · drop N · again N · edit N FIELD TEXT · quit".into(),
        Cast::NoSuchPersona { n, count } => format!("`{n}`: there are personas 1 to {count}"),
        Cast::NoSuchField { field, fields } => format!("`{field}`: the fields are {fields}"),
        Cast::TooFewLeft => "a party needs two personas at least: this one stays".into(),
        Cast::UnknownReview { line } => format!("`{line}`: not a review command"),
        Cast::AskingOne { who } => format!("Asking for someone in place of {who}…"),
        Cast::ReviewOpen => "a cast is under review: keep it or quit it first (keep · drop N · again N · edit N FIELD TEXT · quit)".into(),
        Cast::Dropped { who } => format!("{who} is left out."),
        Cast::Replaced { who, by } => format!("{by} in place of {who}."),
        Cast::OneRefused { who, flaws } => format!("No usable persona in place of {who} ({flaws}); {who} stays."),

        Cast::Saved { name, id, count, dir } => format!("Saved “{name}” (--party {id}), {count} agents, in {dir}"),
        Cast::Renamed { from, to } => format!("{from} is already someone in the program: saved as {to}"),
        Cast::StartIt { id } => format!("Start it: bmad-party --party {id}"),
        Cast::NoBmadProject => "--into bmad: no BMAD project here (looked for _bmad/ here and above; --bmad DIR names one)".into(),
        Cast::NothingSaved => "Nothing was saved.".into(),
        Cast::NotSaved { cause } => format!("The cast could not be saved, so nothing was: {cause}"),
    }
}
