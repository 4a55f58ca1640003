//! The clean transcript: the conversation as Markdown to paste or share —
//! no frontmatter, no turn markers, the room named once at the top.

use std::fmt::Write as _;

use super::{Item, Keepsake};
use crate::i18n::{Record, Say};
use crate::session::{Turn, TurnKind};

pub(crate) fn transcript(k: &Keepsake) -> String {
    let lang = k.lang();
    let fm = &k.session.fm;
    let mut o = String::new();
    let topic = clean(&fm.topic).replace('\n', " ");
    let _ = writeln!(o, "# 🎉 {}{topic}\n", Record::TitlePrefix.say(lang));
    let mut facts = vec![
        fm.date.clone(),
        format!("{}: {}", Record::LineFacilitator.say(lang), clean(&fm.user_name)),
        Record::Rounds { n: k.rounds() }.say(lang),
        k.duration(),
    ];
    let voices = k.voice_figures();
    if !voices.is_empty() {
        let each: Vec<String> = voices
            .iter()
            .map(|(label, figures)| super::voice_line(&model_code(label), figures))
            .collect();
        facts.push(format!("{}: {}", Record::LineModels.say(lang), each.join("; ")));
    } else if !fm.provider.model.is_empty() {
        facts.push(format!("{}: {}", Record::LineModel.say(lang), clean(&fm.provider.model)));
    }
    if let Some(end) = k.ending() {
        facts.push(format!("{}: {end}", Record::LineEndedBy.say(lang)));
    }
    let _ = writeln!(o, "*{}*\n", facts.join(" · "));
    let room: Vec<String> = k
        .cast
        .iter()
        .filter(|p| p.turns > 0)
        .map(|p| {
            let mut s = label(&p.who.icon, &p.who.name);
            if !p.who.title.is_empty() {
                let _ = write!(s, " ({})", clean(&p.who.title));
            }
            if let Some(voice) = &p.voice {
                let _ = write!(s, " {}", model_code(voice));
            }
            s
        })
        .collect();
    if !room.is_empty() {
        let _ = writeln!(o, "**{}**: {}\n", Record::TheRoom.say(lang), room.join(", "));
    }
    for s in &k.sections {
        let title = match s.round {
            Some(r) => super::round_title(lang, r),
            None => super::ending_title(lang),
        };
        let _ = writeln!(o, "## {title}\n");
        for item in &s.items {
            match item {
                Item::Turn(t) => turn(&mut o, k, t),
                Item::Decision(c) => quote(&mut o, &k.decision(c)),
            }
        }
    }
    o
}

fn turn(o: &mut String, k: &Keepsake, t: &Turn) {
    let lang = k.lang();
    let text = clean(t.text.trim());
    match t.kind {
        TurnKind::Agent | TurnKind::Farewell | TurnKind::Question => {
            let mut who = match t.agent.as_deref().and_then(|id| k.persona(id)) {
                Some(p) => label(&p.who.icon, &p.who.name),
                None => format!("**{}**", clean(&t.label)),
            };
            if let Some(voice) = k.voice(t) {
                let _ = write!(who, " {}", model_code(voice));
            }
            let asks = if t.kind == TurnKind::Question {
                Record::AsksYouSuffix.say(lang)
            } else {
                String::new()
            };
            let cut = if t.interrupted {
                Record::InterruptedSuffix.say(lang)
            } else {
                String::new()
            };
            let _ = writeln!(o, "{who}{asks}: {text}{cut}\n");
        }
        TurnKind::Facilitator => {
            let _ = writeln!(o, "**{}**: {text}\n", clean(&t.label));
        }
        TurnKind::Highlights | TurnKind::Closing => {
            let _ = writeln!(o, "{text}\n");
        }
        TurnKind::Reset => {
            let _ = writeln!(o, "---\n\n*{}*\n", text.lines().next().unwrap_or(""));
        }
        TurnKind::Notice | TurnKind::Failed | TurnKind::Continue | TurnKind::Push => {
            if !text.is_empty() {
                quote(o, &text);
            }
        }
    }
}

fn quote(o: &mut String, text: &str) {
    for line in text.lines() {
        if line.is_empty() {
            o.push_str(">\n");
        } else {
            let _ = writeln!(o, "> {line}");
        }
    }
    o.push('\n');
}

/// `🏗️ **Ingrid**`.
fn label(icon: &str, name: &str) -> String {
    if icon.is_empty() {
        format!("**{}**", clean(name))
    } else {
        format!("{} **{}**", clean(icon), clean(name))
    }
}

/// A model's name as inline code: its underscores and stars stay letters.
/// A backtick in it (a hand-edited file) would end the code: it becomes a quote.
fn model_code(model: &str) -> String {
    format!("`{}`", clean(model).replace('`', "'"))
}

/// No control characters from a hand-edited file reach whoever opens the copy.
fn clean(text: &str) -> String {
    crate::text::sanitize(text)
}
