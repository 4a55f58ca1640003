//! Reading a drafted cast: the JSON object in the model's answer however
//! it is wrapped, its fields under the names models give them, then what
//! makes it unusable — too few or too many personas, a field left empty,
//! two personas alike, a name already taken, text in another language,
//! lines cited that the documents do not have. Each flaw is said back to
//! the model when it is asked again.

use serde_json::{Map, Value};

use super::{Brief, Draft, Persona, SIZES};
use crate::i18n::Cast;

/// What an answer came to: the draft as far as it could be read, and
/// what is wrong with it (nothing: it can be reviewed as it is).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Read {
    pub draft: Draft,
    pub flaws: Vec<Cast>,
}

/// Reads and checks an answer to a whole-cast request.
pub(crate) fn read(answer: &str, brief: &Brief) -> Read {
    let Some(value) = crate::engine::self_check::object_in(answer) else {
        return Read {
            draft: Draft::default(),
            flaws: vec![Cast::NoJson],
        };
    };
    let map = as_map(&value);
    let list = personas_of(&value);
    let mut draft = Draft {
        name: text(&map, &["name", "party", "partyname", "title"]),
        scene: text(&map, &["scene", "setting", "situation"]),
        personas: list.iter().map(persona).collect(),
    };
    if draft.name.is_empty() {
        draft.name = crate::text::ellipsize(brief.topic.trim(), 48);
    }
    let cast: Vec<String> = draft.personas.iter().map(|p| p.name.clone()).collect();
    draft.personas.iter_mut().for_each(|p| ground(p, &brief.sources, &cast));
    let mut flaws = Vec::new();
    if list.is_empty() {
        flaws.push(Cast::NoPersonas);
    } else if !SIZES.contains(&draft.personas.len()) {
        flaws.push(Cast::Count {
            have: draft.personas.len(),
        });
    }
    flaws.extend(check(&draft.personas, brief));
    Read { draft, flaws }
}

/// Reads and checks an answer to a one-persona request: `others` are the
/// personas it joins.
/// One persona asked for in place of `replaced`: checked against the rest
/// of the cast and against the one it replaces (someone else, not the
/// same again, nor described as them).
pub(crate) fn read_one(answer: &str, brief: &Brief, others: &[Persona], replaced: Option<&Persona>) -> Result<Persona, Vec<Cast>> {
    let value = crate::engine::self_check::object_in(answer).ok_or_else(|| vec![Cast::NoJson])?;
    // A model asked for one may still answer with a list of one.
    let mut one = match personas_of(&value).first() {
        Some(p) if as_map(&value).get("name").is_none() => persona(p),
        _ => persona(&value),
    };
    let cast: Vec<String> = others.iter().map(|p| p.name.clone()).chain([one.name.clone()]).collect();
    ground(&mut one, &brief.sources, &cast);
    let mut all = others.to_vec();
    all.extend(replaced.cloned());
    all.push(one.clone());
    let flaws: Vec<Cast> = check(&all, brief)
        .into_iter()
        .filter(|f| f.persona() == Some(all.len() - 1))
        .collect();
    if flaws.is_empty() {
        Ok(one)
    } else {
        Err(flaws)
    }
}

/// A key as the model may spell it: lower case, letters and digits only
/// (`communicationStyle`, `communication style` → `communicationstyle`).
fn key(k: &str) -> String {
    k.chars().filter(char::is_ascii_alphanumeric).flat_map(char::to_lowercase).collect()
}

fn as_map(v: &Value) -> Map<String, Value> {
    v.as_object()
        .map(|m| m.iter().map(|(k, v)| (key(k), v.clone())).collect())
        .unwrap_or_default()
}

/// The first of `keys` the object has, as clean text (a list is joined).
fn text(map: &Map<String, Value>, keys: &[&str]) -> String {
    let raw = keys.iter().find_map(|k| map.get(*k)).map(|v| match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "),
        Value::Null => String::new(),
        other => other.to_string(),
    });
    crate::text::sanitize(&raw.unwrap_or_default())
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The list of personas, under whatever name the model gave it (or the
/// answer itself when it is a list).
fn personas_of(v: &Value) -> Vec<Value> {
    if let Value::Array(items) = v {
        return items.clone();
    }
    let map = as_map(v);
    ["personas", "cast", "characters", "members", "agents", "people", "participants"]
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_array).cloned())
        .unwrap_or_default()
}

fn persona(v: &Value) -> Persona {
    let m = as_map(v);
    let principles = match ["principles", "values", "beliefs"].iter().find_map(|k| m.get(*k)) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_string).or_else(|| (!i.is_null()).then(|| i.to_string())))
            .collect(),
        Some(Value::String(s)) => crate::roster::agents::Principles::One(s.clone()).into_list(),
        _ => vec![],
    };
    let lines = ["lines", "line", "from", "sources", "grounding"]
        .iter()
        .find_map(|k| m.get(*k))
        .map(line_numbers)
        .unwrap_or_default();
    let icon = text(&m, &["icon", "emoji"]);
    Persona {
        name: text(&m, &["name"]).replace('*', ""),
        title: text(&m, &["title", "job", "occupation"]),
        // An icon is a glyph or two, never a word.
        icon: if icon.is_empty() || icon.chars().count() > 4 || icon.chars().any(char::is_alphanumeric) {
            "👤".into()
        } else {
            icon
        },
        role: text(&m, &["role", "stake"]),
        identity: text(&m, &["identity", "background", "description", "bio"]),
        communication_style: text(&m, &["communicationstyle", "style", "voice", "tone"]),
        principles: principles
            .iter()
            .map(|p| crate::text::sanitize(p).trim().to_string())
            .filter(|p| !p.is_empty())
            .collect(),
        lines,
    }
}

/// The lines about `name` in the documents: each line naming them, with
/// the two after it up to a line naming someone else of the cast (an
/// interview's answers follow its speaker's name).
fn block(name: &str, sources: &super::Sources, cast: &[String]) -> Vec<u32> {
    let line = |n: u32| sources.locate(n).map_or("", |(_, l)| l);
    let names_other = |n: u32| cast.iter().any(|o| o.trim() != name && mentions(line(n), o));
    let mut lines = Vec::new();
    for n in (1..=sources.count()).filter(|&n| mentions(line(n), name)) {
        lines.push(n);
        lines.extend((n + 1..=n + 2).take_while(|&m| m <= sources.count() && !names_other(m) && !mentions(line(m), name)));
    }
    lines.dedup();
    lines
}

/// A persona the documents name stands on the lines about them: cited
/// lines about someone else of the cast are left out, and a citation left
/// with none of its own lines (small models number lines poorly) is
/// replaced by them (eight at most). A persona the documents do not name
/// keeps its citation.
fn ground(p: &mut Persona, sources: &super::Sources, cast: &[String]) {
    let name = p.name.trim();
    if name.is_empty() {
        return;
    }
    let own = block(name, sources, cast);
    if own.is_empty() {
        return;
    }
    let others: Vec<u32> = cast
        .iter()
        .filter(|o| o.trim() != name && !o.trim().is_empty())
        .flat_map(|o| block(o.trim(), sources, cast))
        .collect();
    let kept: Vec<u32> = p.lines.iter().copied().filter(|n| !others.contains(n)).collect();
    p.lines = if kept.iter().any(|n| own.contains(n)) {
        kept
    } else {
        own.into_iter().take(8).collect()
    };
}

/// Whether `text` names `name` as a word (`Bo` in `Bo said`, not in
/// `Bought`); a name in a script written without spaces, anywhere.
fn mentions(text: &str, name: &str) -> bool {
    let name = name.trim();
    if name.is_empty() {
        return false;
    }
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        let apart = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() || crate::text::is_cjk(c));
        name.chars().any(crate::text::is_cjk) || (apart(before) && apart(after))
    })
}

/// Line numbers however given: `[3, 5]`, `"3-5"`, `["L3", "notes.md:5"]`.
fn line_numbers(v: &Value) -> Vec<u32> {
    let mut out = Vec::new();
    let mut add = |s: &str| {
        // The number after a file's name, ranges written out.
        let s = s.rsplit(':').next().unwrap_or(s);
        let nums: Vec<u32> = s.split(|c: char| !c.is_ascii_digit()).filter_map(|d| d.parse().ok()).collect();
        match (s.contains(['-', '–']), nums.as_slice()) {
            (true, [a, b]) if a <= b && b - a < 50 => out.extend(*a..=*b),
            _ => out.extend(nums),
        }
    };
    match v {
        Value::Number(n) => add(&n.to_string()),
        Value::String(s) => s.split([',', ';']).for_each(&mut add),
        Value::Array(items) => {
            for i in items {
                match i {
                    Value::Number(n) => add(&n.to_string()),
                    Value::String(s) => add(s),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out.dedup();
    out
}

/// Whether `name` reads as a person's name: a few words, no sentence in
/// it, and no word of the topic or the persona's title (`Ferry User`,
/// `Electric Ferry CEO`, `居民` for a `居民代表` are labels).
fn is_a_name(name: &str, labels: &[&str]) -> bool {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 4)
            .map(str::to_lowercase)
            .collect()
    };
    let label_words: Vec<String> = labels.iter().flat_map(|l| words(l)).collect();
    // Written without spaces, a label is the title or the topic's own
    // words (`居民` of `居民代表`).
    let unspaced = name.chars().any(crate::text::is_cjk) && labels.iter().any(|l| l.contains(name.trim()));
    // A full stop after a short word is an abbreviation (`Dr.`, `Mme.`,
    // `J.`), not a sentence's end.
    let sentence_end = name
        .split_whitespace()
        .any(|w| w.ends_with('.') && w.trim_end_matches('.').chars().count() > 4);
    !unspaced
        && !sentence_end
        && name.split_whitespace().count() <= 4
        && name.chars().count() <= 40
        && !name.contains([',', ':', ';', '。', '，', '：'])
        && !words(name).iter().any(|w| label_words.contains(w))
}

/// How alike two roles (or identities) may read, their names left out,
/// before the two are one persona: a template filled with each name
/// (`Ana wants the park.`, `Bo wants the park.`) is one role.
const ALIKE_ROLES: f64 = 0.8;

fn close(a: &str, a_name: &str, b: &str, b_name: &str) -> bool {
    let (a, b) = (a.replace(a_name, " "), b.replace(b_name, " "));
    crate::engine::similarity::lexical(&a, &b) >= ALIKE_ROLES
}

/// The other personas of the cast `p` is described by: an identity that
/// names two of them is the cast's description, one that names another
/// (by name, or by a title as written: `Library Staff is dedicated…` in a
/// persona of another title) and not `p` is theirs, and a way of talking
/// names nobody else.
fn crowding(p: &Persona, personas: &[Persona]) -> Vec<String> {
    let named = |text: &str| -> Vec<String> {
        let mut names: Vec<String> = personas
            .iter()
            .filter(|o| !o.name.is_empty() && o.name != p.name && mentions(text, &o.name))
            .map(|o| o.name.clone())
            .collect();
        let mut seen = Vec::new();
        names.retain(|n| {
            let new = !seen.contains(n);
            seen.push(n.clone());
            new
        });
        names
    };
    let (identity, style) = (named(&p.identity), named(&p.communication_style));
    // Titles count only for an identity that does not name its own: one
    // title may be shared, and "the nurse next door" is no description.
    let own_title = p.title.trim();
    let titled: Vec<String> = personas
        .iter()
        .map(|o| o.title.trim())
        .filter(|t| !t.is_empty() && !t.eq_ignore_ascii_case(own_title) && mentions(&p.identity, t))
        .map(str::to_string)
        .collect();
    let own = mentions(&p.identity, &p.name) || (!own_title.is_empty() && mentions(&p.identity, own_title));
    let about_another = (!identity.is_empty() || !titled.is_empty()) && !p.name.is_empty() && !own;
    match () {
        _ if identity.len() >= 2 => identity,
        _ if about_another && identity.is_empty() => {
            let mut titled = titled;
            titled.dedup();
            titled
        }
        _ if about_another => identity,
        _ => style,
    }
}

/// What a crowded identity says of its own persona: its clauses that
/// name them (`…, Aisha wants her brakes fixed by Monday, …`).
fn own_part(identity: &str, name: &str) -> Option<String> {
    let parts: Vec<&str> = identity
        .split([',', ';', '.', '，', '；', '。'])
        .flat_map(|c| c.split(" and "))
        .map(str::trim)
        .filter(|c| mentions(c, name))
        .collect();
    (!parts.is_empty()).then(|| format!("{}.", parts.join("; ")))
}

/// The fields of the persona at `i` left empty: an agent file needs them.
pub(super) fn missing(p: &Persona, i: usize) -> Vec<Cast> {
    let who = if p.name.is_empty() { format!("#{}", i + 1) } else { p.name.clone() };
    [
        ("name", p.name.is_empty()),
        ("title", p.title.is_empty()),
        ("role", p.role.is_empty()),
        ("identity", p.identity.is_empty()),
        ("communication_style", p.communication_style.is_empty()),
        ("principles", p.principles.is_empty()),
    ]
    .into_iter()
    .filter(|(_, empty)| *empty)
    .map(|(field, _)| Cast::Missing {
        at: i,
        who: who.clone(),
        field: field.into(),
    })
    .collect()
}

/// What is wrong with each persona, and between them.
fn check(personas: &[Persona], brief: &Brief) -> Vec<Cast> {
    let mut flaws = Vec::new();
    let language = crate::engine::cleanup::language::of(&brief.language);
    for (i, p) in personas.iter().enumerate() {
        let who = if p.name.is_empty() { format!("#{}", i + 1) } else { p.name.clone() };
        flaws.extend(missing(p, i));
        // The same text as name and title is one of them wrong, and only
        // the model knows which (`李明` as both; `Ferry User` as both).
        if !p.name.is_empty() && p.name.trim().eq_ignore_ascii_case(p.title.trim()) {
            flaws.push(Cast::NameIsTitle {
                at: i,
                name: crate::text::ellipsize(&p.name, 60),
            });
        } else if !p.name.is_empty() && !is_a_name(&p.name, &[&brief.topic, &p.title]) {
            flaws.push(Cast::NotAName {
                at: i,
                name: crate::text::ellipsize(&p.name, 60),
            });
        }
        let same = |a: &str, b: &str| !a.is_empty() && a.trim().eq_ignore_ascii_case(b.trim());
        // The room calls them by their first names: two of one first name
        // are one name in the room.
        // What the room calls them: the given name (`Jane` of `Jane Doe`,
        // `Amara` of `Dr. Amara Okafor`), or the whole name when there is
        // no other (`Dr. Johnson`).
        let first = |n: &str| {
            let names: Vec<&str> = n.split_whitespace().filter(|w| !w.ends_with('.')).collect();
            match names.as_slice() {
                [given, _, ..] => (*given).to_string(),
                _ => n.trim().to_string(),
            }
        };
        if let Some(j) = personas[..i].iter().position(|o| same(&first(&o.name), &first(&p.name))) {
            flaws.push(Cast::SameName {
                at: i,
                name: first(&personas[j].name),
            });
        } else if brief.taken.iter().any(|t| same(t, &p.name)) {
            flaws.push(Cast::Taken {
                at: i,
                name: p.name.clone(),
            });
        }
        let others = crowding(p, personas);
        if !others.is_empty() {
            flaws.push(Cast::Crowded {
                at: i,
                who: who.clone(),
                others: others.join(", "),
            });
        }
        // One title is no flaw (two residents may want opposite things);
        // one stake is.
        let like = |o: &Persona| {
            if close(&o.role, &o.name, &p.role, &p.name) {
                Some("role")
            } else if others.is_empty() && close(&o.identity, &o.name, &p.identity, &p.name) {
                Some("identity")
            } else {
                None
            }
        };
        if let Some((o, field)) = personas[..i].iter().find_map(|o| like(o).map(|f| (o, f))) {
            flaws.push(Cast::Alike {
                at: i,
                who: who.clone(),
                other: o.name.clone(),
                field: field.into(),
            });
        }
        let said = [p.role.as_str(), &p.identity, &p.communication_style, &p.principles.join(" ")].join(" ");
        if language.is_some_and(|l| l.is_other_than(&said)) {
            flaws.push(Cast::Language {
                at: i,
                who: who.clone(),
                language: brief.language.clone(),
            });
        }
        if !brief.sources.is_empty() {
            let last = brief.sources.count();
            match p.lines.iter().find(|&&n| n == 0 || n > last) {
                _ if p.lines.is_empty() => flaws.push(Cast::NoLines { at: i, who }),
                Some(&line) => flaws.push(Cast::NoSuchLine { at: i, who, line, last }),
                None => {}
            }
        }
    }
    flaws
}

/// The last answer's way to keep what the model got right: a crowded
/// identity cut to what it says of its own persona, then the draft
/// without the personas still flawed, when what is left is a room (at
/// least three, nothing wrong with the whole). The names of those left
/// out come with it. Only a draft asked for three times comes here, so a
/// model that answers well is never cut.
pub(crate) fn salvage(read: &Read, brief: &Brief) -> Option<(Draft, Vec<String>)> {
    let too_many = |f: &Cast| matches!(f, Cast::Count { have } if *have > *SIZES.end());
    if !read.flaws.iter().all(|f| f.persona().is_some() || too_many(f)) {
        return None;
    }
    // A crowded identity keeps what it says of its own persona.
    let mut draft = read.draft.clone();
    let crowded: Vec<usize> = read
        .flaws
        .iter()
        .filter(|f| matches!(f, Cast::Crowded { .. }))
        .filter_map(Cast::persona)
        .collect();
    for i in crowded {
        let p = &mut draft.personas[i];
        for text in [&mut p.identity, &mut p.communication_style] {
            if let Some(own) = own_part(text, &p.name) {
                *text = own;
            }
        }
    }
    let flaws = check(&draft.personas, brief);
    let flawed: Vec<usize> = flaws.iter().filter_map(Cast::persona).collect();
    let (kept, dropped): (Vec<_>, Vec<_>) = draft.personas.iter().enumerate().partition(|(i, _)| !flawed.contains(i));
    let mut kept: Vec<Persona> = kept.into_iter().map(|(_, p)| p.clone()).collect();
    kept.truncate(*SIZES.end());
    if kept.len() < *SIZES.start() {
        return None;
    }
    let dropped = dropped
        .into_iter()
        .map(|(i, p)| if p.name.is_empty() { format!("#{}", i + 1) } else { p.name.clone() })
        .collect();
    Some((Draft { personas: kept, ..draft }, dropped))
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
