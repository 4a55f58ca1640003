//! The room: agent personas from `agents/*.md` (YAML frontmatter plus an
//! optional Markdown body of extra persona instructions).

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::i18n::{Lang, Problem};
use crate::source::{split_frontmatter, yaml_error, SourceError, SourceFile};

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Agent {
    pub id: String,
    pub name: String,
    pub title: String,
    pub icon: String,
    pub role: String,
    pub identity: String,
    pub communication_style: String,
    pub principles: Vec<String>,
    pub capabilities: Option<String>,
    pub color: Option<String>,
    pub model: Option<String>,
    /// The named endpoint (`bmad.llm.endpoints`) it speaks through; None:
    /// the default one. Set by its file, a party's member entry or
    /// `--endpoint`, checked against the config at start.
    pub endpoint: Option<String>,
    /// Where `endpoint` was named when not in the agent's own file (a BMAD
    /// project's `[[workflow.party_members]]` entry), for messages.
    pub endpoint_from: Option<String>,
    /// Below 1: never takes part in rounds the runtime pushed on its own.
    pub diligence_push_max: Option<u32>,
    /// Summarises and redirects when the room goes in circles.
    pub moderator: bool,
    /// Extra persona instructions (the Markdown body).
    pub instructions: String,
    /// Where the agent came from, for messages and `--list-agents`.
    pub source: String,
    /// Other names it answers to (a BMAD code without its `bmad-agent-` prefix).
    pub aliases: Vec<String>,
    /// Its persona in other languages, by language code (`translations` in
    /// its file): `in_language` puts one in place.
    #[serde(skip)]
    pub translations: BTreeMap<String, Persona>,
}

/// An agent's persona in one language: each field given replaces the
/// agent's own when the party speaks that language; the others stay.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Persona {
    pub title: Option<String>,
    pub role: Option<String>,
    pub identity: Option<String>,
    pub communication_style: Option<String>,
    pub principles: Option<Vec<String>>,
    pub capabilities: Option<String>,
}

impl Agent {
    /// The principle its turn note points to in `round` (1-based): its
    /// principles in turn, the first again after the last; None without
    /// any. The closing stop goes: the note puts its own.
    pub(crate) fn principle_for_round(&self, round: u32) -> Option<&str> {
        let principles: Vec<&str> = self
            .principles
            .iter()
            .map(|p| p.trim().trim_end_matches(['.', '。', '!', '！', ';', '；']))
            .filter(|p| !p.is_empty())
            .collect();
        let at = (round.max(1) as usize - 1) % principles.len().max(1);
        principles.get(at).copied()
    }

    /// The agent as a party in `lang` sees it: its persona in that
    /// language where its file gives one (titles on the panes, the persona
    /// in every prompt), else as written.
    pub(crate) fn in_language(&self, lang: Lang) -> Agent {
        let mut a = self.clone();
        let Some(t) = self.translations.get(lang.code()) else { return a };
        for (field, given) in [
            (&mut a.title, &t.title),
            (&mut a.role, &t.role),
            (&mut a.identity, &t.identity),
            (&mut a.communication_style, &t.communication_style),
        ] {
            if let Some(text) = given {
                *field = text.clone();
            }
        }
        if let Some(p) = &t.principles {
            a.principles = p.clone();
        }
        if t.capabilities.is_some() {
            a.capabilities = t.capabilities.clone();
        }
        a
    }

    /// `icon Name` as the transcript shows it.
    pub(crate) fn label(&self) -> String {
        if self.icon.is_empty() {
            self.name.clone()
        } else {
            format!("{} {}", self.icon, self.name)
        }
    }
}

/// An agent file's `color`: one of the terminal's named colours, or `#rrggbb`.
/// Each front end maps it to what it draws with (terminal cells, escape
/// codes, a page's style sheet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AgentColor {
    Red,
    Green,
    Yellow,
    Blue,
    Magenta,
    Cyan,
    Gray,
    White,
    LightRed,
    LightGreen,
    LightYellow,
    LightBlue,
    LightMagenta,
    LightCyan,
    Rgb(u8, u8, u8),
}

impl AgentColor {
    /// The colour a file names; None for anything else (the front end's default).
    pub(crate) fn parse(name: &str) -> Option<AgentColor> {
        use AgentColor::*;
        Some(match name {
            "red" => Red,
            "green" => Green,
            "yellow" => Yellow,
            "blue" => Blue,
            "magenta" => Magenta,
            "cyan" => Cyan,
            "gray" => Gray,
            "white" => White,
            "lightred" => LightRed,
            "lightgreen" => LightGreen,
            "lightyellow" => LightYellow,
            "lightblue" => LightBlue,
            "lightmagenta" => LightMagenta,
            "lightcyan" => LightCyan,
            hex if hex.len() == 7 && hex.starts_with('#') && hex[1..].chars().all(|c| c.is_ascii_hexdigit()) => {
                let p = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or(0);
                Rgb(p(1), p(3), p(5))
            }
            _ => return None,
        })
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(crate) enum Principles {
    One(String),
    Many(Vec<String>),
}

impl Principles {
    /// A list stays a list; a string of `- a - b` bullets (as BMAD's
    /// compiled manifests flatten them) is split back into items.
    pub(crate) fn into_list(self) -> Vec<String> {
        match self {
            Principles::Many(v) => v.into_iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect(),
            Principles::One(s) => {
                let s = s.trim();
                let bullets: Vec<String> = if s.starts_with("- ") {
                    s.split("\n- ")
                        .flat_map(|part| part.split(" - "))
                        .map(|p| p.trim().trim_start_matches("- ").trim().to_string())
                        .filter(|p| !p.is_empty())
                        .collect()
                } else {
                    s.lines()
                        .map(|l| l.trim().trim_start_matches("- ").trim().to_string())
                        .filter(|l| !l.is_empty())
                        .collect()
                };
                if bullets.is_empty() {
                    vec![]
                } else {
                    bullets
                }
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgent {
    id: String,
    name: String,
    title: String,
    icon: String,
    role: String,
    identity: String,
    communication_style: String,
    principles: Principles,
    #[serde(default)]
    capabilities: Option<String>,
    #[serde(default)]
    color: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    endpoint: Option<String>,
    #[serde(default)]
    diligence_push_max: Option<u32>,
    #[serde(default)]
    moderator: bool,
    #[serde(default)]
    translations: BTreeMap<String, RawPersona>,
}

impl RawPersona {
    /// The fields as a party uses them: sanitised, an empty one as absent.
    fn into_persona(self) -> Persona {
        let text = |s: Option<String>| s.map(|s| crate::text::sanitize(&s).trim().to_string()).filter(|s| !s.is_empty());
        Persona {
            title: text(self.title),
            role: text(self.role),
            identity: text(self.identity),
            communication_style: text(self.communication_style),
            principles: self
                .principles
                .map(|p| p.into_list().into_iter().filter_map(|p| text(Some(p))).collect::<Vec<_>>())
                .filter(|p| !p.is_empty()),
            capabilities: text(self.capabilities),
        }
    }
}

/// `translations.<code>` in an agent file: the persona's fields in that
/// language, each optional.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPersona {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    identity: Option<String>,
    #[serde(default)]
    communication_style: Option<String>,
    #[serde(default)]
    principles: Option<Principles>,
    #[serde(default)]
    capabilities: Option<String>,
}

pub(crate) const COLORS: &[&str] = &[
    "red",
    "green",
    "yellow",
    "blue",
    "magenta",
    "cyan",
    "gray",
    "white",
    "lightred",
    "lightgreen",
    "lightyellow",
    "lightblue",
    "lightmagenta",
    "lightcyan",
];

/// The frontmatter of an agent file the program writes (an imported card,
/// a drafted persona), in this order.
#[derive(Serialize)]
pub(crate) struct AgentFile<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub title: &'a str,
    pub icon: &'a str,
    pub role: &'a str,
    pub identity: &'a str,
    pub communication_style: &'a str,
    pub principles: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<&'a str>,
}

impl AgentFile<'_> {
    /// The whole file: the frontmatter, then `body` (extra persona
    /// instructions, may be empty).
    pub(crate) fn text(&self, body: &str) -> String {
        format!("---\n{}---\n{body}", serde_saphyr::to_string(self).unwrap_or_default())
    }
}

/// Problems found while loading a roster, one per file and field.
#[derive(Debug, Clone, PartialEq)]
pub struct RosterError {
    pub problems: Vec<SourceError>,
}

impl fmt::Display for RosterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RosterError {}

/// Parses one agent file.
pub fn parse_agent(file: &SourceFile) -> Result<Agent, SourceError> {
    let Some((yaml, body, first_line)) = split_frontmatter(&file.text) else {
        return Err(SourceError::new(&file.path, None, "", Problem::NoFrontmatter));
    };
    let raw: RawAgent = serde_saphyr::from_str(yaml).map_err(|e| yaml_error(&e, &file.path, &file.text, first_line - 1))?;
    let clean = |s: &str| crate::text::sanitize(s).trim().to_string();
    let agent = Agent {
        id: clean(&raw.id),
        name: clean(&raw.name).replace('*', ""),
        title: clean(&raw.title),
        icon: clean(&raw.icon),
        role: clean(&raw.role),
        identity: clean(&raw.identity),
        communication_style: clean(&raw.communication_style),
        principles: raw.principles.into_list().iter().map(|p| clean(p)).collect(),
        capabilities: raw.capabilities.map(|c| clean(&c)).filter(|c| !c.is_empty()),
        color: raw.color.map(|c| c.trim().to_lowercase()),
        model: raw.model.map(|m| m.trim().to_string()).filter(|m| !m.is_empty()),
        endpoint: raw.endpoint.map(|m| m.trim().to_string()).filter(|m| !m.is_empty()),
        endpoint_from: None,
        diligence_push_max: raw.diligence_push_max,
        moderator: raw.moderator,
        instructions: clean(body),
        source: file.path.clone(),
        aliases: Vec::new(),
        translations: raw
            .translations
            .into_iter()
            .map(|(code, t)| (Lang::translation_key(&code), t.into_persona()))
            .collect(),
    };
    for (key, value) in [
        ("id", &agent.id),
        ("name", &agent.name),
        ("title", &agent.title),
        ("role", &agent.role),
    ] {
        if value.is_empty() {
            return Err(SourceError::new(&file.path, None, key, Problem::NotEmpty));
        }
    }
    if !agent.id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(SourceError::new(&file.path, None, "id", Problem::IdChars { id: agent.id }));
    }
    if let Some(c) = &agent.color {
        let hex = c.len() == 7 && c.starts_with('#') && c[1..].chars().all(|h| h.is_ascii_hexdigit());
        if !hex && !COLORS.contains(&c.as_str()) {
            return Err(SourceError::new(
                &file.path,
                None,
                "color",
                Problem::NotAColour {
                    colour: c.clone(),
                    all: COLORS.join(", "),
                },
            ));
        }
    }
    Ok(agent)
}

/// Parses every file, reporting all problems at once so a facilitator fixes
/// a broken room in one pass.
pub fn load_roster(files: &[SourceFile]) -> Result<Vec<Agent>, RosterError> {
    let mut agents: Vec<Agent> = Vec::new();
    let mut problems = Vec::new();
    let mut seen: HashMap<String, String> = HashMap::new();
    for f in files {
        match parse_agent(f) {
            Ok(a) => {
                if let Some(first) = seen.get(&a.id.to_lowercase()) {
                    problems.push(SourceError::new(
                        &f.path,
                        None,
                        "id",
                        Problem::DuplicateId {
                            id: a.id.clone(),
                            first: first.clone(),
                        },
                    ));
                } else {
                    seen.insert(a.id.to_lowercase(), f.path.clone());
                    agents.push(a);
                }
            }
            Err(e) => problems.push(e),
        }
    }
    if !problems.is_empty() {
        return Err(RosterError { problems });
    }
    if agents.is_empty() {
        return Err(RosterError {
            problems: vec![SourceError::new("agents/", None, "", Problem::NoAgentFiles)],
        });
    }
    agents.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(agents)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> SourceFile {
        SourceFile {
            path: path.into(),
            text: text.into(),
        }
    }

    const GOOD: &str = "---\nid: architect\nname: Ingrid\ntitle: Architect\nicon: \"🏗️\"\nrole: r\nidentity: i\ncommunication_style: c\nprinciples: \"- a - b\"\n---\nExtra.\n";

    #[test]
    fn parses_and_splits_principles() {
        let a = parse_agent(&file("agents/a.md", GOOD)).unwrap();
        assert_eq!(a.principles, vec!["a", "b"]);
        assert_eq!(a.instructions, "Extra.");
        assert_eq!(a.label(), "🏗️ Ingrid");
    }

    #[test]
    fn a_translation_replaces_the_fields_it_gives_in_its_language_only() {
        let text = GOOD.replace(
            "---\nExtra.",
            "translations:\n  zh-CN:\n    title: 架构师\n    principles:\n      - 边界优先\n  ES:\n    role: arquitecto\n---\nExtra.",
        );
        let a = parse_agent(&file("agents/a.md", &text)).unwrap();
        let zh = a.in_language(Lang::Zh);
        assert_eq!(zh.title, "架构师");
        assert_eq!(zh.principles, vec!["边界优先"]);
        assert_eq!(zh.role, "r", "a field not given stays as written");
        assert_eq!(zh.name, "Ingrid", "names are not translated");
        assert_eq!(a.in_language(Lang::En), a, "no English block: the file as written");
        assert!(a.translations.contains_key("zh"), "any spelling of a language it speaks");
        assert!(a.translations.contains_key("es"), "others are kept in lower case");
    }

    #[test]
    fn a_misspelt_field_in_a_translation_names_its_line() {
        let text = GOOD.replace("---\nExtra.", "translations:\n  zh:\n    titel: 架构师\n---\nExtra.");
        let e = parse_agent(&file("agents/a.md", &text)).unwrap_err();
        assert_eq!(e.file, "agents/a.md");
        assert_eq!(e.line, Some(12), "{e}");
        assert!(e.to_string().contains("titel"), "{e}");
    }

    #[test]
    fn missing_field_names_file_and_field() {
        let e = parse_agent(&file("agents/a.md", &GOOD.replace("title: Architect\n", ""))).unwrap_err();
        assert_eq!(e.file, "agents/a.md");
        assert_eq!(e.key, "title");
        assert!(e.to_string().contains("`title` is missing"), "{e}");
    }

    #[test]
    fn bad_value_has_file_line() {
        let e = parse_agent(&file("agents/a.md", &GOOD.replace("role: r", "role: [r"))).unwrap_err();
        assert_eq!(e.line, Some(6), "{e}");
    }

    #[test]
    fn duplicate_ids_are_reported() {
        let e = load_roster(&[file("agents/a.md", GOOD), file("agents/b.md", GOOD)]).unwrap_err();
        assert!(
            e.to_string()
                .contains("agents/b.md: `id`: duplicate id `architect` (already used by agents/a.md)"),
            "{e}"
        );
    }
}
