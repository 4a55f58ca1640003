//! Saving a reviewed cast: one agent file per persona and a party file
//! naming them, in the user's config folders (`agents/`, `parties/`), so
//! `--party ID` starts it and `--list-agents` / `--list-parties` show it.
//! Names and ids never clash with what the program has; every file is
//! written beside its place first and renamed into it only when all are
//! written, so a failure leaves nothing half-saved.

use std::path::{Path, PathBuf};

use super::{Draft, Sources};
use crate::config::PartyDef;
use crate::roster::agents::AgentFile;
use crate::roster::cards::{free_id, id_for, id_with};

/// Where a cast goes, and what is already there.
#[derive(Debug, Clone, Default)]
pub(crate) struct Target {
    pub agents_dir: PathBuf,
    pub parties_dir: PathBuf,
    /// Agent ids and names the program has (the room and the pool).
    pub ids: Vec<String>,
    pub names: Vec<String>,
    /// Party ids the program has.
    pub parties: Vec<String>,
}

/// What was saved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Saved {
    pub party: PartyDef,
    /// Each agent's id and name, in the cast's order.
    pub agents: Vec<(String, String)>,
    /// Names that were taken, and the name each was saved under.
    pub renamed: Vec<(String, String)>,
    pub files: Vec<PathBuf>,
}

/// The files of a cast: its agents, then its party.
struct Planned {
    saved: Saved,
    texts: Vec<(PathBuf, String)>,
}

/// A name no one has: the name, else with the title, else numbered.
fn free_name(name: &str, title: &str, taken: &[String]) -> String {
    let free = |n: &str| !taken.iter().any(|t| t.eq_ignore_ascii_case(n));
    if free(name) {
        return name.to_string();
    }
    let with_title = format!("{name} ({title})");
    if free(&with_title) {
        return with_title;
    }
    (2..).map(|n| format!("{name} {n}")).find(|n| free(n)).unwrap_or(with_title)
}

/// A persona's body: where it comes from in the documents, so it speaks
/// from them.
fn grounding(name: &str, lines: &[u32], sources: &Sources) -> String {
    let quoted: Vec<String> = lines
        .iter()
        .filter_map(|&n| sources.locate(n))
        .map(|(at, line)| format!("- {at}: “{}”", crate::text::ellipsize(line, 200)))
        .collect();
    if quoted.is_empty() {
        return String::new();
    }
    format!(
        "## Where {name} comes from\n\nSpeak from these lines of the documents the cast was drawn from:\n\n{}\n",
        quoted.join("\n")
    )
}

/// The names, ids and party id a cast is saved under: none clashes with
/// what `to` has, nor with files in its folders.
pub(crate) fn plan_names(draft: &Draft, to: &Target) -> Saved {
    let mut names = to.names.clone();
    let mut ids: Vec<String> = to.ids.iter().map(|i| i.to_lowercase()).collect();
    let mut saved = Saved {
        party: PartyDef {
            id: String::new(),
            name: draft.name.clone(),
            scene: Some(draft.scene.clone()).filter(|s| !s.trim().is_empty()),
            members: Some(vec![]),
            memory: true,
            source: String::new(),
            translations: Default::default(),
        },
        agents: vec![],
        renamed: vec![],
        files: vec![],
    };
    for p in &draft.personas {
        let name = free_name(&p.name, &p.title, &names);
        if name != p.name {
            saved.renamed.push((p.name.clone(), name.clone()));
        }
        let id = free_id(&id_for(&name), |id| {
            !ids.contains(&id.to_lowercase()) && !to.agents_dir.join(format!("{id}.md")).exists()
        });
        names.push(name.clone());
        ids.push(id.to_lowercase());
        saved.agents.push((id, name));
    }
    saved.party.id = free_id(&id_with(&draft.name, "party"), |id| {
        !to.parties.iter().any(|p| p.eq_ignore_ascii_case(id)) && !to.parties_dir.join(format!("{id}.yaml")).exists()
    });
    saved.party.members = Some(saved.agents.iter().map(|(id, _)| id.clone()).collect());
    saved
}

fn plan(draft: &Draft, sources: &Sources, to: &Target) -> Planned {
    let mut saved = plan_names(draft, to);
    let mut texts = Vec::new();
    for (p, (id, name)) in draft.personas.iter().zip(&saved.agents) {
        let file = AgentFile {
            id,
            name,
            title: &p.title,
            icon: &p.icon,
            role: &p.role,
            identity: &p.identity,
            communication_style: &p.communication_style,
            principles: &p.principles,
            capabilities: None,
        };
        texts.push((
            to.agents_dir.join(format!("{id}.md")),
            file.text(&grounding(name, &p.lines, sources)),
        ));
    }
    let path = to.parties_dir.join(format!("{}.yaml", saved.party.id));
    saved.party.source = path.display().to_string();
    texts.push((path, crate::config::party_file(&saved.party)));
    saved.files = texts.iter().map(|(p, _)| p.clone()).collect();
    Planned { saved, texts }
}

/// Saves the cast; on any failure nothing stays and the cause names the
/// file.
pub(crate) fn save(draft: &Draft, sources: &Sources, to: &Target) -> Result<Saved, String> {
    let planned = plan(draft, sources, to);
    write_all(&planned.texts)?;
    Ok(planned.saved)
}

/// Writes every file beside its place, then renames each into it; on a
/// failure removes what it wrote.
fn write_all(texts: &[(PathBuf, String)]) -> Result<(), String> {
    let staged = |p: &Path| p.with_file_name(format!(".{}.cast-tmp", p.file_name().unwrap_or_default().to_string_lossy()));
    let mut written: Vec<PathBuf> = Vec::new();
    let undo = |written: &[PathBuf]| {
        for p in written {
            let _ = std::fs::remove_file(p);
        }
    };
    for (path, text) in texts {
        let tmp = staged(path);
        let wrote = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&tmp, text));
        if let Err(e) = wrote {
            undo(&written);
            let _ = std::fs::remove_file(&tmp);
            return Err(format!("{}: {e}", tmp.display()));
        }
        written.push(tmp);
    }
    let mut placed: Vec<PathBuf> = Vec::new();
    for (path, _) in texts {
        let moved = if path.exists() {
            Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists))
        } else {
            std::fs::rename(staged(path), path)
        };
        if let Err(e) = moved {
            undo(&placed);
            undo(&written);
            return Err(format!("{}: {e}", path.display()));
        }
        placed.push(path.clone());
    }
    Ok(())
}

#[cfg(test)]
#[path = "save_tests.rs"]
mod tests;
