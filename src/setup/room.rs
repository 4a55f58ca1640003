//! Which room a run uses: `--agents DIR`, a BMAD project's roster, the
//! program's own `./agents`, or the built-in room; then what joins its
//! pool and its parties: the user's own agents and party files, and the
//! ready-made rooms. Start-up wiring: the roster module knows how to read
//! each; this file decides between them.

use std::path::PathBuf;

use crate::assets::{agents_from_dir, embedded_agents};
use crate::cli::Cli;
use crate::error::StartError;
use crate::i18n::{Problem, Start};
use crate::roster::agents::load_roster;
use crate::roster::bmad::ProjectConfig;
use crate::roster::parties::Parties;
use crate::roster::Roster;
use crate::source::SourceError;

/// The program's own room (`--agents DIR`, `./agents`, the built-in one),
/// with what a BMAD project beside it says: its config, its problems, a
/// notice for the facilitator.
fn own_room(cli: &Cli, project: Option<ProjectConfig>, problems: Vec<SourceError>, notice: Option<Start>) -> Result<Roster, StartError> {
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
    Ok(Roster {
        agents,
        source,
        problems,
        project,
        notice,
        parties: Parties {
            default_memory: true,
            ..Default::default()
        },
        extra: vec![],
    })
}

/// Chooses the room: `--agents DIR` when given; else a BMAD project's roster
/// (`--bmad DIR`, or a `_bmad/` found here or above); else `./agents` or the
/// built-in room. A project named with `--bmad` that has no roster is an
/// error; one merely found nearby falls back to the built-in room, saying so.
pub(crate) fn load_room(cli: &Cli) -> Result<Roster, StartError> {
    let mut room = choose_room(cli)?;
    if let Some(dir) = crate::config::user::agents_dir() {
        with_own_agents(&mut room, &dir);
    }
    if let Some(dir) = crate::config::user::parties_dir() {
        with_own_parties(&mut room, &dir);
    }
    with_ready_rooms(&mut room);
    Ok(room)
}

/// The ready-made rooms (`agents/rooms/`: a code-review crew, a room for
/// hard decisions): their agents join the pool and their parties the
/// list, each only where nothing of the room, the project or the user's
/// own has its id (theirs win, quietly).
fn with_ready_rooms(room: &mut Roster) {
    for (id, party, agents) in crate::assets::embedded_rooms() {
        for file in &agents {
            match crate::roster::agents::parse_agent(file) {
                Ok(a) if !room.pool().iter().any(|p| p.id.eq_ignore_ascii_case(&a.id)) => room.extra.push(a),
                Ok(_) => {}
                Err(e) => room.problems.push(e),
            }
        }
        match crate::config::read_party_as(&party, &id) {
            Ok(def) if !room.parties.defs.iter().any(|p| p.id.eq_ignore_ascii_case(&def.id)) => room.parties.defs.push(def),
            Ok(_) => {}
            Err(e) => room.problems.push(e),
        }
    }
}

/// The user's own parties (`<config>/bmad-party/parties/*.yaml`, drafted
/// casts among them) over a project's of the same id; the config's
/// `bmad.parties` go over both. A file that does not load is a problem
/// reported at start; the others still come.
fn with_own_parties(room: &mut Roster, dir: &std::path::Path) {
    let Ok((files, unread)) = crate::assets::files_in(dir, &["yaml", "yml"]) else {
        return;
    };
    room.problems.extend(unread);
    for file in &files {
        match crate::config::read_party_file(file) {
            Ok(def) => match room.parties.defs.iter_mut().find(|p| p.id.eq_ignore_ascii_case(&def.id)) {
                Some(p) => *p = def,
                None => room.parties.defs.push(def),
            },
            Err(e) => room.problems.push(e),
        }
    }
}

/// The user's own agents (`<config>/bmad-party/agents/*.md`, imported
/// cards among them) join the pool: anyone can `/invite` them or name them
/// in a party. A file that does not load, or an id the room has, is a
/// problem reported at start; the others still come.
fn with_own_agents(room: &mut Roster, dir: &std::path::Path) {
    let Ok((files, unread)) = crate::assets::files_in(dir, &["md"]) else {
        return;
    };
    room.problems.extend(unread);
    for file in &files {
        match crate::roster::agents::parse_agent(file) {
            Ok(a) => match room.pool().iter().find(|p| p.id.eq_ignore_ascii_case(&a.id)) {
                Some(first) => {
                    let (id, first) = (a.id.clone(), first.source.clone());
                    room.problems
                        .push(SourceError::new(&file.path, None, "id", Problem::DuplicateId { id, first }));
                }
                None => room.extra.push(a),
            },
            Err(e) => room.problems.push(e),
        }
    }
}

fn choose_room(cli: &Cli) -> Result<Roster, StartError> {
    let project = match &cli.bmad {
        Some(d) => Some(crate::roster::bmad::detect(d).ok_or_else(|| {
            StartError::Invalid(Start::NoBmadInstall {
                dir: d.display().to_string(),
            })
        })?),
        None => std::env::current_dir().ok().and_then(|cwd| crate::roster::bmad::detect(&cwd)),
    };
    let loaded = project.as_ref().map(crate::roster::bmad::load);
    let (project, loaded) = match (project, loaded) {
        (Some(project), Some(loaded)) if cli.agents.is_none() => (project, loaded),
        (_, loaded) => return own_room(cli, loaded.map(|l| l.config), vec![], None),
    };
    if loaded.agents.is_empty() {
        let dir = project.dir.display().to_string();
        if cli.bmad.is_some() {
            return Err(StartError::NoAgents {
                dir,
                problems: loaded.problems,
            });
        }
        let notice = Start::NoAgentsBuiltIn { dir };
        return own_room(cli, Some(loaded.config), loaded.problems, Some(notice));
    }
    let source = format!("{} ({})", project.root.display(), loaded.source.clone().unwrap_or_default());
    let (mut agents, mut problems) = (loaded.agents, loaded.problems);
    let output = cli.output.clone().or_else(|| loaded.config.output_folder.clone());
    let party_mode = crate::roster::bmad::party_mode::load(&project, &mut agents, output.as_deref(), &mut problems);
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
