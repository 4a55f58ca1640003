//! Where a session goes while its own folder cannot be written: the user's
//! state folder, else a folder of the user's own in the temp folder. The
//! engine writes there (`engine::machine::save`); `--resume` looks there
//! for a copy newer than the file it was given.

use std::path::{Path, PathBuf};

/// The fallback folders, best first: the user's state folder
/// (`$XDG_STATE_HOME`, `~/.local/state`; on Linux only), then a folder of
/// the user's own in the temp folder.
pub(crate) fn folders() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = dirs::state_dir()
        .map(|d| d.join("bmad-party").join("sessions"))
        .into_iter()
        .collect();
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "user".into());
    let user: String = user.chars().filter(|c| c.is_alphanumeric() || "-_.".contains(*c)).collect();
    v.push(std::env::temp_dir().join(format!("bmad-party-sessions-{user}")));
    v
}

/// Creates a fallback folder readable by its owner alone: session topics
/// are in the file names.
pub(crate) fn private_folder(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}

/// A copy of `session` in a fallback folder written after it: the session
/// went on there while its own file could not be written.
pub(crate) fn newer_copy(session: &Path) -> Option<PathBuf> {
    let name = session.file_name()?;
    let own = std::fs::metadata(session).and_then(|m| m.modified()).ok()?;
    folders()
        .into_iter()
        .map(|d| d.join(name))
        .filter(|p| p != session)
        .filter_map(|p| Some((std::fs::metadata(&p).and_then(|m| m.modified()).ok()?, p)))
        .filter(|(t, _)| *t > own)
        .max_by_key(|(t, _)| *t)
        .map(|(_, p)| p)
}
