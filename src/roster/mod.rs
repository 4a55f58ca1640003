//! The roster: who is in the room. The program's own agent files
//! (`agents`), a BMAD project's install of any generation (`bmad`), and the
//! choice between them (`load`).

pub mod agents;
pub mod bmad;
pub mod parties;

use std::path::PathBuf;

use agents::load_roster;
pub use agents::Agent;

use crate::assets::{agents_from_dir, embedded_agents};
use crate::cli::Cli;
use crate::config::ConfigError;
use crate::error::StartError;

/// The room and where it came from, plus what a BMAD project says about
/// the facilitator and the languages.
pub struct Roster {
    pub agents: Vec<Agent>,
    pub source: String,
    pub problems: Vec<ConfigError>,
    pub project: Option<bmad::ProjectConfig>,
    /// A notice for the facilitator (e.g. a BMAD project with no roster).
    pub notice: Option<String>,
    /// What a BMAD project's party mode defines: its groups, its default
    /// party, its memory settings.
    pub parties: parties::Parties,
    /// Members that join parties only, not the default room (a BMAD
    /// project's new custom members).
    pub extra: Vec<Agent>,
}

impl Roster {
    /// Every agent a party may name: the room, then the party-only members.
    pub fn pool(&self) -> Vec<Agent> {
        self.agents.iter().chain(&self.extra).cloned().collect()
    }
}

fn own_room(cli: &Cli) -> Result<(Vec<Agent>, String), StartError> {
    let dir = cli.agents.clone().or_else(|| {
        let local = PathBuf::from("agents");
        let has_md = std::fs::read_dir(&local)
            .map(|mut d| d.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "md"))))
            .unwrap_or(false);
        has_md.then_some(local)
    });
    let (files, source) = match dir {
        Some(d) => (agents_from_dir(&d)?, d.display().to_string()),
        None => (embedded_agents(), "(built-in) agents/".to_string()),
    };
    let agents = load_roster(&files).map_err(|e| StartError::Files(e.problems))?;
    Ok((agents, source))
}

/// Chooses the room: `--agents DIR` when given; else a BMAD project's roster
/// (`--bmad DIR`, or a `_bmad/` found here or above); else `./agents` or the
/// built-in room. A project named with `--bmad` that has no roster is an
/// error; one merely found nearby falls back to the built-in room, saying so.
pub fn load(cli: &Cli) -> Result<Roster, StartError> {
    let project = match &cli.bmad {
        Some(d) => Some(bmad::detect(d).ok_or_else(|| {
            let d = d.display();
            StartError::Invalid(crate::tr!(
                "--bmad {d}: no BMAD install there (looked for _bmad/, .bmad/ or bmad/ with a config)",
                "--bmad {d}：这里没有 BMAD 安装（查找了 _bmad/、.bmad/ 或带配置的 bmad/）"
            ))
        })?),
        None => std::env::current_dir().ok().and_then(|cwd| bmad::detect(&cwd)),
    };
    let loaded = project.as_ref().map(bmad::load);
    if cli.agents.is_some() || loaded.is_none() {
        let (agents, source) = own_room(cli)?;
        return Ok(Roster {
            agents,
            source,
            problems: vec![],
            project: loaded.map(|l| l.config),
            notice: None,
            parties: parties::Parties {
                default_memory: true,
                ..Default::default()
            },
            extra: vec![],
        });
    }
    let loaded = loaded.expect("checked above");
    let project = project.expect("loaded implies a project");
    if loaded.agents.is_empty() {
        let dir = project.dir.display();
        let what = crate::tr!(
            "{dir}: no agents found (looked for config.toml [agents.*], _config/agent-manifest.csv, _cfg/agent-manifest.csv)",
            "{dir}：没有找到智能体（查找了 config.toml [agents.*]、_config/agent-manifest.csv、_cfg/agent-manifest.csv）"
        );
        if cli.bmad.is_some() {
            let mut message = what;
            for p in &loaded.problems {
                message.push_str(&format!("\n{p}"));
            }
            return Err(StartError::Invalid(message));
        }
        let (agents, source) = own_room(cli)?;
        return Ok(Roster {
            agents,
            source,
            problems: loaded.problems,
            project: Some(loaded.config),
            notice: Some(crate::tr!("{what}; using the built-in room", "{what}；改用内置房间")),
            parties: parties::Parties {
                default_memory: true,
                ..Default::default()
            },
            extra: vec![],
        });
    }
    let source = format!("{} ({})", project.root.display(), loaded.source.clone().unwrap_or_default());
    let (mut agents, mut problems) = (loaded.agents, loaded.problems);
    let output = cli.output.clone().or_else(|| loaded.config.output_folder.clone());
    let party_mode = bmad::party_mode::load(&project, &mut agents, output.as_deref(), &mut problems);
    Ok(Roster {
        agents,
        source,
        problems,
        project: Some(loaded.config),
        notice: None,
        parties: party_mode.parties,
        extra: party_mode.extra,
    })
}

/// `--list-agents`: the roster, where each agent came from, and problems.
pub fn list_agents(room: &Roster) -> String {
    use unicode_width::UnicodeWidthStr;
    let (n, source) = (room.agents.len(), &room.source);
    let mut out = format!("{}\n", crate::tr!("{n} agent(s) from {source}", "{n} 位智能体，来自 {source}"));
    let name_w = room.agents.iter().map(|a| a.name.width()).max().unwrap_or(4).min(24);
    let title_w = room.agents.iter().map(|a| a.title.width()).max().unwrap_or(5).min(32);
    for a in &room.agents {
        let icon = if a.icon.is_empty() { "  ".to_string() } else { a.icon.clone() };
        let pad = |s: &str, w: usize| format!("{s}{}", " ".repeat(w.saturating_sub(s.width())));
        let aliases = if a.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also {})", a.aliases.join(", "))
        };
        out.push_str(&format!(
            "  {} {}  {}  @{}{}  — {}\n",
            pad(&icon, 2),
            pad(&a.name, name_w),
            pad(&a.title, title_w),
            a.id,
            aliases,
            a.source
        ));
    }
    if let Some(n) = &room.notice {
        out.push_str(&format!("\n{n}\n"));
    }
    if !room.problems.is_empty() {
        let n = room.problems.len();
        out.push_str(&format!("\n{}\n", crate::tr!("{n} problem(s):", "{n} 个问题：")));
        for p in &room.problems {
            out.push_str(&format!("  {p}\n"));
        }
    }
    out
}
