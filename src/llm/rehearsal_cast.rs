//! The rehearsal's cast: with no model, `cast` drafts from a fixed list
//! (`rehearsal_cast.toml`), the personas a topic's hash picks, so a
//! facilitator learns drafting, review and saving offline, and the same
//! topic drafts the same cast on every machine.

use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::json;

use super::CastCue;
use crate::i18n::Lang;

#[derive(Deserialize)]
struct Entry {
    icon: String,
    en: Words,
    zh: Words,
}

#[derive(Deserialize, Clone)]
struct Words {
    name: String,
    title: String,
    role: String,
    identity: String,
    communication_style: String,
    principles: Vec<String>,
}

/// The party's name and scene in one language; `{topic}` is the topic.
#[derive(Deserialize)]
struct Party {
    name: String,
    scene: String,
}

#[derive(Deserialize)]
struct List {
    party: Parties,
    persona: Vec<Entry>,
}

#[derive(Deserialize)]
struct Parties {
    en: Party,
    zh: Party,
}

/// The built-in list, read once; a test reads it, so a broken file is a
/// build's mistake.
#[allow(clippy::panic, reason = "the built-in list: a test reads it")]
static LIST: LazyLock<List> = LazyLock::new(|| match toml::from_str::<List>(include_str!("rehearsal_cast.toml")) {
    Ok(l) => l,
    Err(e) => panic!("src/llm/rehearsal_cast.toml: {e}"),
});

/// FNV-1a, stable across machines.
fn hash(s: &str, n: usize) -> u64 {
    s.bytes()
        .chain(n.to_le_bytes())
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The answer, as JSON text the way a model writes it.
pub(crate) fn answer(ask: &CastCue) -> String {
    let topic = crate::text::ellipsize(ask.topic.split_whitespace().collect::<Vec<_>>().join(" ").as_str(), 60);
    let list = &LIST.persona;
    let mut order: Vec<usize> = (0..list.len()).collect();
    order.sort_by_key(|&i| hash(&topic, i));
    let free = order.into_iter().filter(|&i| {
        let w = words(&list[i], ask.lang);
        !ask.taken.iter().any(|t| t.eq_ignore_ascii_case(&w.name))
    });
    let personas: Vec<serde_json::Value> = free
        .take(if ask.one { 1 } else { ask.size })
        .enumerate()
        .map(|(k, i)| {
            let w = words(&list[i], ask.lang);
            let lines: Vec<u32> = match ask.lines {
                0 => vec![],
                n => {
                    let first = (hash(&topic, i + k) % u64::from(n)) as u32 + 1;
                    vec![first, first % n + 1]
                }
            };
            json!({
                "name": w.name,
                "title": w.title,
                "icon": list[i].icon,
                "role": w.role.replace("{topic}", &topic),
                "identity": w.identity,
                "communication_style": w.communication_style,
                "principles": w.principles,
                "lines": lines,
            })
        })
        .collect();
    if ask.one {
        return personas.first().map(ToString::to_string).unwrap_or_else(|| "{}".into());
    }
    let short = crate::text::ellipsize(&topic, 32);
    let party = match ask.lang {
        Lang::En => &LIST.party.en,
        Lang::Zh => &LIST.party.zh,
    };
    let name = party.name.replace("{topic}", &short);
    let scene = party.scene.replace("{topic}", &topic);
    json!({ "name": name, "scene": scene, "personas": personas }).to_string()
}

fn words(e: &Entry, lang: Lang) -> &Words {
    match lang {
        Lang::En => &e.en,
        Lang::Zh => &e.zh,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn ask(topic: &str, lang: Lang) -> CastCue {
        CastCue {
            topic: topic.into(),
            size: 4,
            lines: 0,
            lang,
            taken: vec![],
            one: false,
        }
    }

    #[test]
    fn the_same_topic_drafts_the_same_cast_and_another_topic_another() {
        let a = answer(&ask("A tool library for the street", Lang::En));
        assert_eq!(a, answer(&ask("A tool library for the street", Lang::En)));
        assert_ne!(a, answer(&ask("Four-day week at a bakery", Lang::En)));
        let one = CastCue {
            one: true,
            taken: vec!["Noor".into()],
            ..ask("Ferries", Lang::Zh)
        };
        let p: serde_json::Value = serde_json::from_str(&answer(&one)).unwrap();
        assert!(p["name"].is_string() && p.get("personas").is_none(), "one persona: {p}");
    }
}
