//! Named parties: standing casts ("launch review", "focus group") picked
//! with `--party NAME`. They come from the config's `bmad.parties` and, in
//! a BMAD project, from its party-mode customization's
//! `[[workflow.party_groups]]` (`bmad::party_mode`). A party names its
//! members by id, alias or name, the way BMAD's `resolve_party.py` does;
//! one that names none is open-cast: the default room under its scene.

use std::path::PathBuf;

use crate::config::PartyDef;
use crate::i18n::{Lang, Printed, Say, Start};
use crate::roster::agents::Agent;

/// Every party the config and the project define, and what the default
/// room does.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Parties {
    pub defs: Vec<PartyDef>,
    /// The party a session holds when `--party` names none.
    pub default_party: Option<String>,
    /// Whether the default room keeps a memory.
    pub default_memory: bool,
    /// Where memories go (BMAD's `memory_dir`); None: under the output folder.
    pub memory_dir: Option<PathBuf>,
}

/// The party a session is held by: its cast and what it says to the room.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Chosen {
    /// None: the default room (its memory folder is `installed`).
    pub id: Option<String>,
    pub name: Option<String>,
    pub scene: Option<String>,
    pub memory: bool,
    pub agents: Vec<Agent>,
    /// Members named that no agent answers to.
    pub unresolved: Vec<String>,
    /// The agents whose endpoint the party's member entry names
    /// (`architect@hosted`), by id, with where the party is defined.
    pub assigned: Vec<(String, String)>,
}

impl Chosen {
    /// The memory folder's name, BMAD's: the party's id, `installed` for
    /// the default room.
    pub(crate) fn memory_name(&self) -> &str {
        self.id.as_deref().unwrap_or("installed")
    }
}

/// A named party as the session knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedParty {
    pub id: String,
    pub name: String,
    pub scene: Option<String>,
}

impl Chosen {
    /// The party's name and scene, unless it is the default room.
    pub(crate) fn named(&self) -> Option<NamedParty> {
        Some(NamedParty {
            id: self.id.clone()?,
            name: self.name.clone().unwrap_or_default(),
            scene: self.scene.clone(),
        })
    }
}

/// Why no party could be chosen.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PartyError {
    /// `--party` (or `default_party`) names no known party.
    Unknown { requested: String, known: Vec<String> },
    /// None of its members is in the room.
    Empty { party: String, named: Vec<String> },
}

impl PartyError {
    fn key(&self) -> Start {
        match self {
            PartyError::Unknown { requested, known } if known.is_empty() => Start::NoPartyDefined {
                requested: requested.clone(),
            },
            PartyError::Unknown { requested, known } => Start::NoParty {
                requested: requested.clone(),
                known: known.join(", "),
            },
            PartyError::Empty { party, named } => Start::PartyEmpty {
                party: party.clone(),
                named: named.join(", "),
            },
        }
    }
}

/// In English, for logs and tests.
impl std::fmt::Display for PartyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.key().fmt(f)
    }
}

impl std::error::Error for PartyError {}

impl Say for PartyError {
    fn say(&self, lang: Lang) -> String {
        self.key().say(lang)
    }
}

/// Whether `agent` answers to `name`: its id, an alias, its name, or the
/// id behind a BMAD code (`bmad-agent-architect` → `architect`), ignoring case.
pub(crate) fn answers_to(agent: &Agent, name: &str) -> bool {
    let name = name.trim().trim_start_matches('@');
    let short = ["bmad-agent-", "bmad-"].iter().find_map(|p| name.strip_prefix(p)).unwrap_or(name);
    [name, short].iter().any(|n| {
        agent.id.eq_ignore_ascii_case(n) || agent.aliases.iter().any(|a| a.eq_ignore_ascii_case(n)) || agent.name.eq_ignore_ascii_case(n)
    })
}

/// A party's member entry: who, and the endpoint it speaks through when
/// the entry names one after an `@` (`architect@hosted`, `@architect@hosted`).
pub(crate) fn member_entry(entry: &str) -> (&str, Option<&str>) {
    match entry.trim().rsplit_once('@') {
        Some((who, endpoint)) if !who.trim_start_matches('@').trim().is_empty() && !endpoint.trim().is_empty() => {
            (who.trim(), Some(endpoint.trim()))
        }
        _ => (entry, None),
    }
}

/// The agents `names` name, in their order (each once), each on the
/// endpoint its entry names, and the names no agent answers to.
pub(crate) fn members(agents: &[Agent], names: &[String]) -> (Vec<Agent>, Vec<String>) {
    let mut found: Vec<Agent> = Vec::new();
    let mut unresolved = Vec::new();
    for n in names {
        let (who, endpoint) = member_entry(n);
        match agents.iter().find(|a| answers_to(a, who)) {
            Some(a) if !found.iter().any(|f| f.id == a.id) => {
                let mut a = a.clone();
                if let Some(e) = endpoint {
                    a.endpoint = Some(e.to_string());
                }
                found.push(a);
            }
            Some(_) => {}
            None => unresolved.push(n.clone()),
        }
    }
    (found, unresolved)
}

/// The config's parties over a project's (for the same id, the config's),
/// its default party over the project's; the default room remembers only
/// where both allow it.
pub(crate) fn with_config(project: &Parties, defs: &[PartyDef], default_party: Option<&str>, memory: bool) -> Parties {
    let mut out = project.clone();
    for d in defs {
        match out.defs.iter_mut().find(|p| p.id.eq_ignore_ascii_case(&d.id)) {
            Some(p) => *p = d.clone(),
            None => out.defs.push(d.clone()),
        }
    }
    if let Some(d) = default_party {
        out.default_party = Some(d.to_string());
    }
    out.default_memory &= memory;
    out
}

/// The definition `requested` names: its id or its name, ignoring case.
pub(crate) fn find<'a>(defs: &'a [PartyDef], requested: &str) -> Option<&'a PartyDef> {
    let r = requested.trim();
    defs.iter().find(|d| d.id.eq_ignore_ascii_case(r) || d.name.eq_ignore_ascii_case(r))
}

/// The party a session is held by: the one `requested` names, else the
/// default party, else the default room. `room` is the default room,
/// `pool` every agent a party may name (the room and members that join
/// parties only).
pub(crate) fn choose(parties: &Parties, room: &[Agent], pool: &[Agent], requested: Option<&str>) -> Result<Chosen, PartyError> {
    let wanted = requested
        .map(str::to_string)
        .or_else(|| parties.default_party.clone().filter(|d| !d.trim().is_empty()));
    let Some(wanted) = wanted else {
        return Ok(Chosen {
            memory: parties.default_memory,
            agents: room.to_vec(),
            ..Chosen::default()
        });
    };
    let def = find(&parties.defs, &wanted).ok_or_else(|| PartyError::Unknown {
        requested: wanted.clone(),
        known: parties.defs.iter().map(|d| d.id.clone()).collect(),
    })?;
    let (agents, unresolved) = match &def.members {
        Some(names) => members(pool, names),
        None => (room.to_vec(), vec![]),
    };
    let assigned = def
        .members
        .iter()
        .flatten()
        .filter_map(|n| match member_entry(n) {
            (who, Some(_)) => agents.iter().find(|a| answers_to(a, who)),
            _ => None,
        })
        .map(|a| (a.id.clone(), def.source.clone()))
        .collect();
    if agents.is_empty() {
        return Err(PartyError::Empty {
            party: def.id.clone(),
            named: def.members.clone().unwrap_or_default(),
        });
    }
    Ok(Chosen {
        id: Some(def.id.clone()),
        name: Some(def.name.clone()),
        scene: def.scene.clone(),
        memory: def.memory,
        agents,
        unresolved,
        assigned,
    })
}

/// `--list-parties`: each party, who is in it, its scene, whether it
/// remembers, where it is defined. `model` says what to show beside a
/// member (`member@endpoint (model)`): None, nothing (a room of one model).
pub(crate) fn list(parties: &Parties, room: &[Agent], pool: &[Agent], lang: Lang, model: &dyn Fn(&Agent) -> Option<String>) -> String {
    let default = parties.default_party.as_deref().filter(|d| !d.trim().is_empty());
    let remembers = |on: bool| {
        if on {
            Printed::Remembers.say(lang)
        } else {
            String::new()
        }
    };
    let star = |on: bool| if on { '*' } else { ' ' };
    let n = room.len();
    let mut out = format!(
        "{} {}{}\n    {}\n",
        star(default.is_none()),
        Printed::DefaultRoom.say(lang),
        remembers(parties.default_memory),
        Printed::AgentsInRoom { n }.say(lang)
    );
    for d in &parties.defs {
        let is_default = default.is_some_and(|x| find(std::slice::from_ref(d), x).is_some());
        let title = if d.name != d.id {
            format!(" “{}”", d.name)
        } else {
            String::new()
        };
        out.push_str(&format!("{} {}{title}{}\n", star(is_default), d.id, remembers(d.memory)));
        let cast = match &d.members {
            Some(names) => {
                let (agents, unresolved) = members(pool, names);
                let on = |a: &Agent| {
                    let who = match &a.endpoint {
                        Some(e) => format!("{}@{e}", a.label()),
                        None => a.label(),
                    };
                    match model(a) {
                        Some(m) => format!("{who} ({m})"),
                        None => who,
                    }
                };
                let mut s = agents.iter().map(on).collect::<Vec<_>>().join(", ");
                if !unresolved.is_empty() {
                    let missing = unresolved.join(", ");
                    s.push_str(&Printed::MembersNotFound { missing: &missing }.say(lang));
                }
                s
            }
            None => Printed::OpenCast.say(lang),
        };
        out.push_str(&format!("    {cast}\n"));
        if let Some(scene) = &d.scene {
            out.push_str(&format!("    {}\n", crate::text::ellipsize(scene, 100)));
        }
        out.push_str(&format!("    ({})\n", d.source));
    }
    out.push_str(&Printed::DefaultPartyNote.say(lang));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(id: &str, name: &str, aliases: &[&str]) -> Agent {
        let files = crate::assets::embedded_agents();
        let mut a = crate::roster::agents::load_roster(&files).unwrap().remove(0);
        a.id = id.into();
        a.name = name.into();
        a.aliases = aliases.iter().map(|s| s.to_string()).collect();
        a
    }

    fn room() -> Vec<Agent> {
        vec![
            agent("bmad-agent-architect", "Winston", &["architect"]),
            agent("pm", "John", &[]),
            agent("analyst", "Mary", &[]),
        ]
    }

    fn def(id: &str, members: Option<&[&str]>) -> PartyDef {
        PartyDef {
            id: id.into(),
            name: id.replace('-', " "),
            scene: Some("A war room.".into()),
            members: members.map(|m| m.iter().map(|s| s.to_string()).collect()),
            memory: true,
            source: "config.yaml".into(),
            translations: Default::default(),
        }
    }

    #[test]
    fn members_are_found_by_code_alias_or_name_whatever_the_case() {
        let (found, unresolved) = members(
            &room(),
            &[
                "ARCHITECT".into(),
                "john".into(),
                "bmad-agent-analyst".into(),
                "nobody".into(),
                "Winston".into(),
            ],
        );
        let ids: Vec<_> = found.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["bmad-agent-architect", "pm", "analyst"], "in the party's order, each once");
        assert_eq!(unresolved, ["nobody"]);
    }

    #[test]
    fn a_member_entry_may_name_the_endpoint_its_agent_speaks_through() {
        assert_eq!(member_entry("architect@hosted"), ("architect", Some("hosted")));
        assert_eq!(member_entry("@architect@hosted"), ("@architect", Some("hosted")));
        assert_eq!(member_entry("@architect"), ("@architect", None), "an address, not an endpoint");
        assert_eq!(member_entry("architect@"), ("architect@", None));
        let parties = Parties {
            defs: vec![def("mixed", Some(&["architect@hosted", "john", "nobody@box"]))],
            ..Parties::default()
        };
        let c = choose(&parties, &room(), &room(), Some("mixed")).unwrap();
        let on: Vec<_> = c.agents.iter().map(|a| (a.id.as_str(), a.endpoint.as_deref())).collect();
        assert_eq!(on, [("bmad-agent-architect", Some("hosted")), ("pm", None)]);
        assert_eq!(c.assigned, [("bmad-agent-architect".to_string(), "config.yaml".to_string())]);
        assert_eq!(c.unresolved, ["nobody@box"]);
    }

    #[test]
    fn a_named_party_brings_only_its_members_and_its_scene() {
        let parties = Parties {
            defs: vec![def("launch-review", Some(&["pm", "mary"]))],
            ..Parties::default()
        };
        let c = choose(&parties, &room(), &room(), Some("Launch Review")).unwrap();
        assert_eq!(c.id.as_deref(), Some("launch-review"), "found by its name too");
        assert_eq!(c.agents.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), ["John", "Mary"]);
        assert_eq!(c.scene.as_deref(), Some("A war room."));
        assert_eq!(c.memory_name(), "launch-review");
    }

    #[test]
    fn the_default_party_opens_unless_one_is_asked_for_and_none_is_the_whole_room() {
        let mut parties = Parties {
            defs: vec![def("crew", Some(&["pm"])), def("open", None)],
            default_party: Some("crew".into()),
            default_memory: true,
            memory_dir: None,
        };
        assert_eq!(choose(&parties, &room(), &room(), None).unwrap().agents.len(), 1);
        assert_eq!(
            choose(&parties, &room(), &room(), Some("open")).unwrap().agents.len(),
            3,
            "open cast"
        );
        parties.default_party = Some(String::new());
        let c = choose(&parties, &room(), &room(), None).unwrap();
        assert_eq!((c.id, c.agents.len(), c.memory), (None, 3, true));
        assert_eq!(Chosen::default().memory_name(), "installed");
    }

    #[test]
    fn an_unknown_or_empty_party_says_what_there_is() {
        let parties = Parties {
            defs: vec![def("crew", Some(&["ghost"]))],
            ..Parties::default()
        };
        let e = choose(&parties, &room(), &room(), Some("nope")).unwrap_err();
        assert_eq!(
            e,
            PartyError::Unknown {
                requested: "nope".into(),
                known: vec!["crew".into()]
            }
        );
        assert!(e.to_string().contains("crew"), "{e}");
        let e = choose(&parties, &room(), &room(), Some("crew")).unwrap_err();
        assert!(e.to_string().contains("ghost"), "{e}");
        let none = choose(&Parties::default(), &room(), &room(), Some("x")).unwrap_err();
        assert!(none.to_string().contains("bmad.parties"), "{none}");
    }

    #[test]
    fn the_list_marks_the_default_and_names_who_is_missing() {
        let parties = Parties {
            defs: vec![def("crew", Some(&["pm", "ghost"])), def("open", None)],
            default_party: Some("crew".into()),
            ..Parties::default()
        };
        let text = list(&parties, &room(), &room(), Lang::En, &|_| None);
        assert!(text.contains("* crew · remembers\n"), "{text}");
        assert!(text.contains("ghost"), "{text}");
        assert!(text.contains("open cast"), "{text}");
        assert!(text.contains("A war room."), "{text}");
        let models = list(&parties, &room(), &room(), Lang::En, &|a| Some(format!("m-{}", a.id)));
        assert!(models.contains(" (m-pm)"), "the model beside each member: {models}");
    }
}
