//! One writer per session file. Two processes saving the same session
//! would each replace the file with their own copy and lose the other's
//! turns, so a process holds an OS advisory lock for as long as it may
//! write. The lock is on a small file beside the session (`.<name>.lock`):
//! the session file itself is replaced on every save, and a lock on a
//! replaced file protects nothing. The lock file holds the holder's process
//! id, to say who has it; the OS releases the lock when that process ends,
//! however it ends, so a killed party never blocks the next one.
//!
//! Lock files stay after use: removing one while another process opens it
//! would let two processes hold locks on two different files.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use crate::i18n::{Lang, Say, Start};

/// Held until dropped.
#[derive(Debug)]
pub struct SessionLock {
    _file: File,
    pub path: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process has the session; its id when it wrote one.
    #[error("{}", held(.session, .pid))]
    Held { session: PathBuf, pid: Option<u32> },
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: std::io::Error },
}

fn held(session: &Path, pid: &Option<u32>) -> Start {
    Start::SessionHeld {
        file: session.display().to_string(),
        pid: *pid,
    }
}

impl Say for LockError {
    fn say(&self, lang: Lang) -> String {
        match self {
            LockError::Held { session, pid } => held(session, pid).say(lang),
            LockError::Io { .. } => self.to_string(),
        }
    }
}

/// The lock file of `session`.
pub fn lock_path(session: &Path) -> PathBuf {
    let name = session.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    session.with_file_name(format!(".{name}.lock"))
}

impl SessionLock {
    /// Takes the lock of `session` without waiting.
    pub fn acquire(session: &Path) -> Result<SessionLock, LockError> {
        let path = lock_path(session);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&path).map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                return Err(LockError::Held {
                    session: session.to_path_buf(),
                    pid: text.trim().parse().ok(),
                });
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        write!(file, "{}", std::process::id()).map_err(io)?;
        Ok(SessionLock { _file: file, path })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_told_who_has_it_and_a_released_lock_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s.md");
        let first = SessionLock::acquire(&session).unwrap();
        assert_eq!(first.path, dir.path().join(".s.md.lock"));
        // A second open file description conflicts even within one process.
        match SessionLock::acquire(&session) {
            Err(LockError::Held { pid, .. }) => assert_eq!(pid, Some(std::process::id())),
            other => panic!("{other:?}"),
        }
        drop(first);
        let again = SessionLock::acquire(&session).unwrap();
        drop(again);
        assert!(lock_path(&session).exists(), "lock files stay");
    }
}
