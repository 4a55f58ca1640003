//! Newest installs (BMAD v6.4+): the roster is `[agents.<code>]` in
//! `_bmad/config.toml`, merged with `config.user.toml` and the team/user
//! files under `_bmad/custom/` the way BMAD's `structural_merge` does
//! (tables deep-merge, scalars override, arrays of tables keyed by `code`
//! or `id` replace matching entries and append new ones, other arrays
//! append). Each agent's persona comes from its skill's `customize.toml`
//! `[agent]` table, with `_bmad/custom/<code>.toml` and `<code>.user.toml`
//! merged over it. Only the agents listed in `[agents.*]` join the room.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::{aliases_of, code_to_id, palette, rel, Project};
use crate::i18n::Problem;
use crate::roster::agents::Agent;
use crate::source::SourceError;
use crate::text::sanitize;

pub(crate) fn merge(base: &mut Table, over: Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(Value::Table(b)), Value::Table(o)) => merge(b, o),
            (Some(Value::Array(b)), Value::Array(o)) => {
                for item in o {
                    let key = |t: &Value| t.as_table().and_then(|t| t.get("code").or_else(|| t.get("id")).cloned());
                    match key(&item).and_then(|k| b.iter().position(|x| key(x).as_ref() == Some(&k))) {
                        Some(pos) => b[pos] = item,
                        None => b.push(item),
                    }
                }
            }
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// Parses a TOML file; a syntax error becomes a located problem.
pub(crate) fn read_table(path: &Path, root: &Path, problems: &mut Vec<SourceError>) -> Option<Table> {
    let text = std::fs::read_to_string(path).ok()?;
    match text.parse::<Table>() {
        Ok(t) => Some(t),
        Err(e) => {
            let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() as u64 + 1);
            problems.push(SourceError::new(
                rel(root, path),
                line,
                "",
                Problem::NotTomlIgnored {
                    error: e.message().to_string(),
                },
            ));
            None
        }
    }
}

/// `config.toml` and its three override layers, merged.
pub(crate) fn merged_config(project: &Project, problems: &mut Vec<SourceError>) -> Option<Table> {
    let base_path = project.dir.join("config.toml");
    if !base_path.is_file() {
        return None;
    }
    let mut merged = read_table(&base_path, &project.root, problems).unwrap_or_default();
    for layer in [
        project.dir.join("config.user.toml"),
        project.dir.join("custom").join("config.toml"),
        project.dir.join("custom").join("config.user.toml"),
    ] {
        if let Some(t) = layer.is_file().then(|| read_table(&layer, &project.root, problems)).flatten() {
            merge(&mut merged, t);
        }
    }
    Some(merged)
}

/// Folders holding a `customize.toml`, by folder name (the agent's code).
pub(super) fn customize_files(root: &Path) -> HashMap<String, PathBuf> {
    let mut out = HashMap::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if !p.is_dir() {
                continue;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            if matches!(name.as_str(), ".git" | "node_modules" | "target" | "_bmad-output" | "custom") {
                continue;
            }
            let c = p.join("customize.toml");
            if c.is_file() {
                out.entry(name.clone()).or_insert(c);
            }
            if depth < 7 {
                stack.push((p, depth + 1));
            }
        }
    }
    out
}

fn text_of(t: &Table, key: &str) -> String {
    match t.get(key) {
        Some(Value::String(s)) => sanitize(s).trim().to_string(),
        _ => String::new(),
    }
}

fn list_of(t: &Table, key: &str) -> Vec<String> {
    match t.get(key) {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str())
            .map(|s| sanitize(s).trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        Some(Value::String(s)) => crate::roster::agents::Principles::One(sanitize(s)).into_list(),
        _ => vec![],
    }
}

/// The roster of a `config.toml` install, or None when there is none.
pub(crate) fn roster(project: &Project, problems: &mut Vec<SourceError>) -> Option<(Vec<Agent>, String)> {
    let merged = merged_config(project, problems)?;
    let agents_table = merged.get("agents").and_then(Value::as_table)?.clone();
    let source = rel(&project.root, &project.dir.join("config.toml"));
    let skills = customize_files(&project.root);
    let mut agents = Vec::new();
    for (code, desc) in &agents_table {
        let Some(desc) = desc.as_table() else {
            problems.push(SourceError::new(
                &source,
                None,
                &format!("agents.{code}"),
                Problem::NotATableSkipped,
            ));
            continue;
        };
        let (agent, persona_src) = persona(project, skills.get(code), code, problems);
        if persona_src.is_none() {
            problems.push(SourceError::new(&source, None, &format!("agents.{code}"), Problem::NoCustomizeToml));
        }
        let mut a = agent_of(code, desc, &agent, agents.len());
        a.source = format!(
            "{source} [agents.{code}]{}",
            persona_src.map(|p| format!(" + {p}")).unwrap_or_default()
        );
        agents.push(a);
    }
    Some((agents, source))
}

/// An agent's persona: the skill's customize.toml (`skill`), then the team
/// and user overrides; the `[agent]` table of it, and where the skill's
/// file is (None: no customize.toml).
fn persona(project: &Project, skill: Option<&std::path::PathBuf>, code: &str, problems: &mut Vec<SourceError>) -> (Table, Option<String>) {
    let mut persona = Table::new();
    let mut persona_src = None;
    if let Some(path) = skill {
        if let Some(t) = read_table(path, &project.root, problems) {
            merge(&mut persona, t);
            persona_src = Some(rel(&project.root, path));
        }
    }
    for layer in [format!("{code}.toml"), format!("{code}.user.toml")] {
        let p = project.dir.join("custom").join(layer);
        if let Some(t) = p.is_file().then(|| read_table(&p, &project.root, problems)).flatten() {
            merge(&mut persona, t);
        }
    }
    let agent = persona.get("agent").and_then(Value::as_table).cloned().unwrap_or_default();
    (agent, persona_src)
}

/// The agent `code` from its `[agents.CODE]` description and its persona's
/// `[agent]` table: the description's words first, the persona's where it
/// has none. `index` picks its colour.
fn agent_of(code: &str, desc: &Table, agent: &Table, index: usize) -> Agent {
    let pick = |k: &str| {
        let d = text_of(desc, k);
        if d.is_empty() {
            text_of(agent, k)
        } else {
            d
        }
    };
    let description = text_of(desc, "description");
    let name = pick("name");
    let title = pick("title");
    let name = if name.is_empty() { code.to_string() } else { name };
    let title = if title.is_empty() { text_of(desc, "module") } else { title };
    let first = |options: Vec<String>| options.into_iter().find(|v| !v.is_empty()).unwrap_or_default();
    Agent {
        id: code_to_id(code),
        name: name.replace('*', ""),
        role: first(vec![text_of(agent, "role"), description.clone(), title.clone()]),
        title: if title.is_empty() { "Agent".into() } else { title },
        icon: pick("icon"),
        identity: first(vec![text_of(agent, "identity"), description.clone()]),
        communication_style: first(vec![text_of(agent, "communication_style"), description]),
        principles: list_of(agent, "principles"),
        capabilities: Some(text_of(desc, "team")).filter(|t| !t.is_empty()),
        color: Some(palette(index)),
        aliases: aliases_of(code),
        ..Agent::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structural_merge_like_bmad() {
        let mut base: Table = "a = 1\n[t]\nx = 1\ny = [1]\n[[m]]\ncode = \"p\"\nv = 1\n[[m]]\ncode = \"q\"\nv = 1\n"
            .parse()
            .unwrap();
        let over: Table = "a = 2\n[t]\ny = [2]\n[[m]]\ncode = \"q\"\nv = 2\n[[m]]\ncode = \"r\"\nv = 3\n"
            .parse()
            .unwrap();
        merge(&mut base, over);
        assert_eq!(base["a"].as_integer(), Some(2));
        assert_eq!(base["t"]["x"].as_integer(), Some(1));
        assert_eq!(base["t"]["y"].as_array().unwrap().len(), 2, "plain arrays append");
        let m = base["m"].as_array().unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(m[1]["v"].as_integer(), Some(2), "keyed entries replace");
    }
}
