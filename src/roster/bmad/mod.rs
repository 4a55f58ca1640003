//! Real BMAD projects: find the project, load its roster (whichever
//! generation installed it), its user, languages and output folder.
//!
//! Real installs are messy, so loading never fails over one odd row or
//! file: each problem is reported (file, row, field) and the usable agents
//! are kept.

mod detect;
mod install;
pub mod manifest;
pub(crate) mod party_mode;
mod project;

use std::path::{Path, PathBuf};

pub use detect::{detect, Project};
pub use project::ProjectConfig;

/// The project's own settings alone (no roster), e.g. for its language.
pub(crate) fn project_config(project: &Project) -> ProjectConfig {
    project::load(project)
}

use crate::roster::agents::Agent;
use crate::source::SourceError;

/// A loaded BMAD roster and everything said about it.
#[derive(Debug)]
pub struct Loaded {
    pub agents: Vec<Agent>,
    pub problems: Vec<SourceError>,
    /// What the roster came from (a file), for `--list-agents` and notices.
    pub source: Option<String>,
    pub config: ProjectConfig,
}

/// Loads a project's roster in BMAD's order of precedence: `config.toml`
/// with `[agents.*]` (newest installs), else `_bmad/_config/agent-manifest.csv`,
/// else the older `{.bmad,bmad}/_cfg/agent-manifest.csv`. A stale CSV beside a
/// `config.toml` roster is ignored.
pub fn load(project: &Project) -> Loaded {
    let config = project::load(project);
    let mut problems = config.problems.clone();
    if let Some(toml) = install::roster(project, &mut problems) {
        return finish(toml.0, problems, Some(toml.1), config);
    }
    for csv in project.manifest_candidates() {
        if csv.is_file() {
            let (agents, mut p) = manifest::load(&csv, &project.root);
            problems.append(&mut p);
            return finish(agents, problems, Some(rel(&project.root, &csv)), config);
        }
    }
    finish(Vec::new(), problems, None, config)
}

fn finish(mut agents: Vec<Agent>, problems: Vec<SourceError>, source: Option<String>, config: ProjectConfig) -> Loaded {
    unique_ids(&mut agents);
    Loaded {
        agents,
        problems,
        source,
        config,
    }
}

/// Codes become ids; two agents must not share one (the same code can
/// appear in two modules), so later ones get the module or a number added.
fn unique_ids(agents: &mut [Agent]) {
    let mut seen: Vec<String> = Vec::new();
    for a in agents.iter_mut() {
        let mut id = a.id.clone();
        let mut n = 2;
        while seen.iter().any(|s| s.eq_ignore_ascii_case(&id)) {
            id = format!("{}-{n}", a.id);
            n += 1;
        }
        a.id = id.clone();
        seen.push(id);
    }
}

/// A BMAD code as an id we can type after `@`.
pub(crate) fn code_to_id(code: &str) -> String {
    let id: String = code
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let id = id.trim_matches('-').to_string();
    if id.is_empty() {
        "agent".into()
    } else {
        id
    }
}

/// The short names BMAD itself resolves (`bmad-agent-architect` → `architect`).
pub(crate) fn aliases_of(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for prefix in ["bmad-agent-", "bmad-"] {
        if let Some(short) = code.strip_prefix(prefix) {
            if !short.is_empty() {
                out.push(short.to_string());
                break;
            }
        }
    }
    out
}

/// Colours for agents that name none, so panes stay distinguishable.
pub(crate) fn palette(i: usize) -> String {
    const P: &[&str] = &[
        "cyan",
        "yellow",
        "magenta",
        "green",
        "blue",
        "lightred",
        "lightcyan",
        "lightyellow",
        "lightmagenta",
        "lightgreen",
        "lightblue",
    ];
    P[i % P.len()].to_string()
}

pub(crate) fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

/// Replaces `{project-root}` in a configured path and makes it absolute.
pub(crate) fn resolve_path(root: &Path, value: &str) -> PathBuf {
    let v = value.replace("{project-root}", &root.display().to_string());
    let p = PathBuf::from(v.trim());
    if p.is_absolute() {
        p
    } else {
        root.join(p)
    }
}
