//! Default agents and workflow files are compiled into the binary so it runs
//! from any directory; files on disk override them.

use std::path::{Path, PathBuf};

use include_dir::{include_dir, Dir};

use crate::i18n::Problem;
use crate::source::{SourceError, SourceFile};

static AGENTS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/agents");
static WORKFLOW: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/workflows/party-mode");

/// How the built-in copies are named in messages (`(built-in) agents/pm.md`).
pub(crate) const BUILT_IN: &str = "(built-in) ";

pub fn embedded_agents() -> Vec<SourceFile> {
    let mut files: Vec<SourceFile> = AGENTS
        .files()
        .filter(|f| f.path().extension().is_some_and(|e| e == "md"))
        .map(|f| SourceFile {
            path: format!("{BUILT_IN}agents/{}", f.path().display()),
            text: f.contents_utf8().unwrap_or_default().to_string(),
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// The ready-made rooms (`agents/rooms/<id>/`): each room's id, its
/// `party.yaml` and its agent files, sorted by id.
pub(crate) fn embedded_rooms() -> Vec<(String, SourceFile, Vec<SourceFile>)> {
    let Some(rooms) = AGENTS.get_dir("rooms") else {
        return vec![];
    };
    let file = |f: &include_dir::File<'_>| SourceFile {
        path: format!("{BUILT_IN}agents/{}", f.path().display()),
        text: f.contents_utf8().unwrap_or_default().to_string(),
    };
    let mut out: Vec<(String, SourceFile, Vec<SourceFile>)> = rooms
        .dirs()
        .filter_map(|d| {
            let id = d.path().file_name()?.to_string_lossy().into_owned();
            let party = d.files().find(|f| f.path().file_name().is_some_and(|n| n == "party.yaml"))?;
            let mut agents: Vec<SourceFile> = d
                .files()
                .filter(|f| f.path().extension().is_some_and(|e| e == "md"))
                .map(file)
                .collect();
            agents.sort_by(|a, b| a.path.cmp(&b.path));
            Some((id, file(party), agents))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Every `*.md` in `dir` (not recursive), sorted by name; all the files
/// that cannot be read when there are any.
pub(crate) fn agents_from_dir(dir: &Path) -> Result<Vec<SourceFile>, Vec<SourceError>> {
    let (files, problems) = files_in(dir, &["md"]).map_err(|e| {
        vec![SourceError::new(
            dir.display().to_string(),
            None,
            "",
            Problem::CannotReadAgentsFolder { error: e.to_string() },
        )]
    })?;
    if problems.is_empty() {
        Ok(files)
    } else {
        Err(problems)
    }
}

/// Every file in `dir` (not recursive) whose extension is one of
/// `extensions`, sorted by name and read as text, and a problem for each
/// one that cannot be; Err only when the folder itself cannot be read.
pub(crate) fn files_in(dir: &Path, extensions: &[&str]) -> std::io::Result<(Vec<SourceFile>, Vec<SourceError>)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| extensions.iter().any(|x| e == *x)) && p.is_file())
        .collect();
    paths.sort();
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for p in paths {
        let shown = p.display().to_string();
        match std::fs::read(&p) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => files.push(SourceFile { path: shown, text }),
                Err(e) => problems.push(SourceError::new(
                    shown,
                    None,
                    "",
                    Problem::NotUtf8At {
                        at: e.utf8_error().valid_up_to(),
                    },
                )),
            },
            Err(e) => problems.push(SourceError::new(shown, None, "", Problem::CannotRead { error: e.to_string() })),
        }
    }
    Ok((files, problems))
}

/// The workflow folder: a directory on disk whose files win, over the
/// built-in copy.
#[derive(Debug, Clone, Default)]
pub struct WorkflowSource {
    pub dir: Option<PathBuf>,
}

/// What a lookup found: a file, or a file that exists on disk but could not be read.
pub(crate) enum Lookup {
    Found(SourceFile),
    Missing,
}

impl WorkflowSource {
    /// Reads `rel` from the folder on disk when there is one, else from the
    /// built-in copy; never mixes the two (for files whose absence matters).
    pub(crate) fn read_one_source(&self, rel: &str) -> Result<Lookup, SourceError> {
        match &self.dir {
            Some(dir) => {
                let p = dir.join(rel);
                if !p.exists() {
                    return Ok(Lookup::Missing);
                }
                let text = std::fs::read_to_string(&p)
                    .map_err(|e| SourceError::new(p.display().to_string(), None, "", Problem::CannotRead { error: e.to_string() }))?;
                Ok(Lookup::Found(SourceFile {
                    path: p.display().to_string(),
                    text,
                }))
            }
            None => self.read(rel),
        }
    }

    /// Reads `rel` (e.g. `steps/step-02-discussion-orchestration.md`).
    pub(crate) fn read(&self, rel: &str) -> Result<Lookup, SourceError> {
        if let Some(dir) = &self.dir {
            let p = dir.join(rel);
            if p.exists() {
                let text = std::fs::read_to_string(&p)
                    .map_err(|e| SourceError::new(p.display().to_string(), None, "", Problem::CannotRead { error: e.to_string() }))?;
                return Ok(Lookup::Found(SourceFile {
                    path: p.display().to_string(),
                    text,
                }));
            }
        }
        Ok(match WORKFLOW.get_file(rel) {
            Some(f) => Lookup::Found(SourceFile {
                path: format!("{BUILT_IN}workflows/party-mode/{rel}"),
                text: f.contents_utf8().unwrap_or_default().to_string(),
            }),
            None => Lookup::Missing,
        })
    }
}
