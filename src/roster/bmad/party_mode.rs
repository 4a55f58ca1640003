//! A BMAD project's own party mode (G4 `bmad-party-mode`): its skill's
//! `customize.toml` `[workflow]` table with `_bmad/custom/bmad-party-mode.toml`
//! (team) and `.user.toml` (personal) merged over it. From it: custom
//! members (`[[workflow.party_members]]`), groups
//! (`[[workflow.party_groups]]`), `default_party`, `party_memory` and
//! `memory_dir` — read the way BMAD's `resolve_party.py` reads them, so the
//! same project opens the same rooms in both tools.

use std::path::Path;

use toml::{Table, Value};

use super::install::{customize_files, merge, read_table};
use super::{code_to_id, palette, rel, resolve_path, Project};
use crate::config::{valid_id, PartyDef};
use crate::i18n::Problem;
use crate::roster::agents::Agent;
use crate::roster::parties::{answers_to, Parties};
use crate::source::SourceError;
use crate::text::sanitize;

const SKILL: &str = "bmad-party-mode";

/// What the project's party mode adds to the room.
#[derive(Debug, Default)]
pub(crate) struct PartyMode {
    pub parties: Parties,
    /// Members that join parties only (new custom codes).
    pub extra: Vec<Agent>,
}

fn text(t: &Table, key: &str) -> Option<String> {
    t.get(key)
        .and_then(Value::as_str)
        .map(|s| sanitize(s).trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The merged `[workflow]` table, if the project has a party mode at all.
fn workflow_table(project: &Project, problems: &mut Vec<SourceError>) -> Option<(Table, String)> {
    let mut merged = Table::new();
    let mut source = None;
    if let Some(path) = customize_files(&project.root).get(SKILL) {
        if let Some(t) = read_table(path, &project.root, problems) {
            merge(&mut merged, t);
            source = Some(rel(&project.root, path));
        }
    }
    for layer in [format!("{SKILL}.toml"), format!("{SKILL}.user.toml")] {
        let p = project.dir.join("custom").join(layer);
        if let Some(t) = p.is_file().then(|| read_table(&p, &project.root, problems)).flatten() {
            merge(&mut merged, t);
            source.get_or_insert_with(|| rel(&project.root, &p));
        }
    }
    let workflow = merged.get("workflow").and_then(Value::as_table).cloned()?;
    Some((workflow, source.unwrap_or_default()))
}

/// Applies the project's party mode to `room` (its installed agents):
/// custom members that match an installed agent override it in place
/// (the fields they give), new ones join parties only; groups become
/// parties.
pub(crate) fn load(project: &Project, room: &mut [Agent], output_folder: Option<&Path>, problems: &mut Vec<SourceError>) -> PartyMode {
    let mut out = PartyMode {
        parties: Parties {
            default_memory: true,
            ..Parties::default()
        },
        extra: Vec::new(),
    };
    let Some((wf, source)) = workflow_table(project, problems) else {
        return out;
    };
    let problem = |key: String, message: Problem| SourceError::new(&source, None, &key, message);
    for (i, m) in wf.get("party_members").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let key = format!("workflow.party_members[{i}]");
        let Some(m) = m.as_table() else {
            problems.push(problem(key, Problem::NotATableSkipped));
            continue;
        };
        let Some(code) = text(m, "code") else {
            problems.push(problem(key, Problem::NoCodeSkipped));
            continue;
        };
        let installed = room
            .iter_mut()
            .find(|a| answers_to(a, &code) || text(m, "name").is_some_and(|n| a.name.eq_ignore_ascii_case(&n)));
        match installed {
            Some(a) => {
                apply(a, m);
                // The installed agent's file did not name it: this entry did.
                if text(m, "endpoint").is_some() {
                    a.endpoint_from = Some(format!("{source} [{key}]"));
                }
            }
            None => {
                let color = palette(room.len() + out.extra.len());
                out.extra.push(custom_member(&code, m, color, format!("{source} [{key}]")));
            }
        }
    }
    for (i, g) in wf.get("party_groups").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let key = format!("workflow.party_groups[{i}]");
        match group(g, format!("{source} [{key}]")) {
            Ok(def) => out.parties.defs.push(def),
            Err(message) => problems.push(problem(key, message)),
        }
    }
    out.parties.default_party = text(&wf, "default_party");
    out.parties.default_memory = wf.get("party_memory").and_then(Value::as_bool).unwrap_or(true);
    out.parties.memory_dir = text(&wf, "memory_dir").map(|d| {
        let d = match output_folder {
            Some(o) => d.replace("{output_folder}", &o.display().to_string()),
            None => d,
        };
        resolve_path(&project.root, &d)
    });
    out
}

/// A new custom member: a party-only agent made of the fields it gives
/// (its role, if it gives none, is its title).
fn custom_member(code: &str, m: &Table, color: String, source: String) -> Agent {
    let mut a = Agent {
        id: code_to_id(code),
        name: code.to_string(),
        title: "Agent".into(),
        color: Some(color),
        source,
        aliases: super::aliases_of(code),
        ..Agent::default()
    };
    apply(&mut a, m);
    if a.role.is_empty() {
        a.role = a.title.clone();
    }
    a
}

/// One `[[workflow.party_groups]]` entry as a standing cast, or why it is
/// skipped.
fn group(g: &Value, source: String) -> Result<PartyDef, Problem> {
    let Some(g) = g.as_table() else {
        return Err(Problem::NotATableSkipped);
    };
    let Some(id) = text(g, "id").filter(|id| valid_id(id)) else {
        return Err(Problem::GroupIdSkipped);
    };
    let members = g.get("members").and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(|s| sanitize(s).trim().to_string())
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
    });
    Ok(PartyDef {
        name: text(g, "name").unwrap_or_else(|| id.clone()),
        scene: text(g, "scene"),
        members,
        memory: g.get("memory").and_then(Value::as_bool).unwrap_or(false),
        source,
        id,
        translations: Default::default(),
    })
}

/// A custom member's fields over an agent (the ones it gives).
fn apply(a: &mut Agent, m: &Table) {
    if let Some(v) = text(m, "name") {
        a.name = v.replace('*', "");
    }
    if let Some(v) = text(m, "icon") {
        a.icon = v;
    }
    if let Some(v) = text(m, "title") {
        a.title = v;
    }
    if let Some(persona) = text(m, "persona") {
        // The persona mixes voice and values in one paragraph; its first
        // sentence usually says how they talk.
        let first = persona
            .split_inclusive(['.', '!', '?', '。'])
            .next()
            .unwrap_or(&persona)
            .trim()
            .to_string();
        a.identity = persona;
        a.communication_style = first;
    }
    if let Some(v) = text(m, "capabilities") {
        a.capabilities = Some(v);
    }
    if let Some(v) = text(m, "model") {
        a.model = Some(v);
    }
    if let Some(v) = text(m, "endpoint") {
        a.endpoint = Some(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, Project) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let project = Project {
            root: dir.path().to_path_buf(),
            dir: dir.path().join("_bmad"),
        };
        (dir, project)
    }

    const SKILL_TOML: &str = include_str!("../../../tests/fixtures/party-mode/customize.toml");

    #[test]
    fn groups_members_and_overrides_are_read_like_bmad() {
        let (_d, p) = project(&[
            ("_bmad/core/bmad-party-mode/customize.toml", SKILL_TOML),
            (
                "_bmad/custom/bmad-party-mode.user.toml",
                "[workflow]\ndefault_party = \"launch\"\n[[workflow.party_members]]\ncode = \"bmad-agent-architect\"\nicon = \"🧱\"\n[[workflow.party_groups]]\nid = \"launch\"\nmembers = [\"winston\", \"vex\"]\nmemory = true\n[[workflow.party_groups]]\nid = \"bad id\"\n",
            ),
        ]);
        let files = crate::assets::embedded_agents();
        let mut room = crate::roster::agents::load_roster(&files).unwrap();
        room.truncate(1);
        room[0].id = "bmad-agent-architect".into();
        room[0].name = "Winston".into();
        room[0].aliases = vec!["architect".into()];
        let mut problems = vec![];
        let pm = load(&p, &mut room, Some(Path::new("/out")), &mut problems);
        assert_eq!(
            room[0].icon, "🧱",
            "the override keeps the installed slot, changes the field it gives"
        );
        assert_eq!(room[0].name, "Winston", "fields it omits are kept");
        assert_eq!(pm.extra.len(), 1);
        assert_eq!((pm.extra[0].id.as_str(), pm.extra[0].name.as_str()), ("sec-hawk", "Vex"));
        assert_eq!(pm.extra[0].communication_style, "Clipped and suspicious.");
        let ids: Vec<_> = pm.parties.defs.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["code-review-crew", "review", "launch"], "the bad id is skipped");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].to_string().contains("party_groups[3]"), "{}", problems[0]);
        assert_eq!(pm.parties.default_party.as_deref(), Some("launch"));
        assert!(
            pm.parties.defs[2].memory && !pm.parties.defs[0].memory,
            "memory is off unless a group says true"
        );
        assert_eq!(pm.parties.defs[2].name, "launch", "a group without a name is called by its id");
        assert_eq!(pm.parties.memory_dir, Some(PathBuf::from("/out/party-mode/memories")));
        let mut pool = room.clone();
        pool.extend(pm.extra.clone());
        let chosen = crate::roster::parties::choose(&pm.parties, &room, &pool, None).unwrap();
        let names: Vec<_> = chosen.agents.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["Winston", "Vex"]);
    }

    #[test]
    fn a_project_without_a_party_mode_has_the_default_room_remembering() {
        let (_d, p) = project(&[("_bmad/config.toml", "[core]\n")]);
        let pm = load(&p, &mut [], None, &mut vec![]);
        assert!(pm.parties.defs.is_empty() && pm.parties.default_memory);
    }

    use std::path::PathBuf;
}
