//! Saving: the session file is replaced whole (temporary file, sync,
//! rename) after every change. A failing disk does not stop the party: it is
//! said once, every later change tries again, and meanwhile the whole
//! session goes to a fallback place (the user's state folder, else the temp
//! folder), so a crash or the end of the party loses nothing.

use std::path::{Path, PathBuf};

use super::party::Party;
use crate::engine::{Event, ExitReason, NoticeKind, Saves};
use crate::i18n::{Room, Say};

/// How saving goes.
#[derive(Debug, Default)]
pub(crate) struct Saving {
    /// The last save to the session file failed.
    pub(super) failing: bool,
    /// A save to the session file has worked once: its folder is there.
    pub(super) once: bool,
    /// Where the whole session is while its file cannot be written.
    pub(super) elsewhere: Option<PathBuf>,
}

impl Party {
    /// Writes the session file (see `crate::session::store_write`): after
    /// every change, before the change is announced.
    pub(super) async fn save(&mut self) {
        let active = self.active();
        let (session, store) = (&mut self.session, &mut self.store);
        session.fm.conversation_state.active_seconds = active;
        // After one good save the folder is there: later saves skip the
        // folder checks. A failure may mean it went away, so check again.
        let folder = if self.saving.failing || !self.saving.once {
            crate::session::Folder::MayBeNew
        } else {
            crate::session::Folder::Known
        };
        let path = store.path.clone();
        let rendered = match store.render(session) {
            Ok(r) => r,
            Err(e) => {
                tracing::error!("{e}");
                return;
            }
        };
        let (result, text) = match self.room.saves {
            Saves::Inline => (crate::session::store_write(&path, &rendered.parts(), folder), None),
            Saves::Background => {
                let (text, write_path) = (rendered.to_text(), path.clone());
                let shared = std::sync::Arc::new(text);
                let for_write = shared.clone();
                let result = tokio::task::spawn_blocking(move || crate::session::store_write(&write_path, &[for_write.as_bytes()], folder))
                    .await
                    .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())));
                (result, Some(shared))
            }
        };
        match result {
            Ok(()) => {
                self.saving.once = true;
                if self.saving.failing {
                    tracing::info!("saving works again: {}", path.display());
                }
                self.saving.failing = false;
                if let Some(old) = self.saving.elsewhere.take().filter(|old| *old != path) {
                    // The session file has everything again.
                    let _ = std::fs::remove_file(&old);
                    let (file, old) = (path.display().to_string(), old.display().to_string());
                    self.emit(Event::Notice {
                        kind: NoticeKind::Info,
                        text: Room::SavingWorksAgain { file: &file, old: &old }.say(self.room.lang),
                    });
                }
            }
            Err(e) => {
                tracing::error!(path = %path.display(), error = %e, "saving the session failed");
                // Say it once per failure streak; every later change retries.
                if !self.saving.failing {
                    self.emit(Event::SaveFailed {
                        path: path.display().to_string(),
                        error: e.to_string(),
                    });
                }
                self.saving.failing = true;
                let text = match text {
                    Some(t) => t.to_string(),
                    None => self.store.render(&self.session).map(|r| r.to_text()).unwrap_or_default(),
                };
                self.save_elsewhere(&path, &text);
            }
        }
    }

    /// The whole session, to the first fallback place that takes it: the
    /// one used before, else each fallback folder in turn. When none does,
    /// no copy is claimed to be the whole session any more.
    fn save_elsewhere(&mut self, path: &Path, text: &str) {
        if text.is_empty() {
            return;
        }
        let name = path.file_name().map(|n| n.to_os_string()).unwrap_or_else(|| "session.md".into());
        let mut places: Vec<PathBuf> = self.saving.elsewhere.iter().cloned().collect();
        for d in crate::session::fallback::folders() {
            let place = d.join(&name);
            if !places.contains(&place) {
                places.push(place);
            }
        }
        // A session resumed from a fallback copy is its own file there.
        places.retain(|p| p != path);
        let before = self.saving.elsewhere.take();
        for place in places {
            let written = place
                .parent()
                .map_or(Ok(()), crate::session::fallback::private_folder)
                .and_then(|()| crate::session::store_write(&place, &[text.as_bytes()], crate::session::Folder::MayBeNew));
            match written {
                Ok(()) => {
                    if let Some(old) = before.as_ref().filter(|old| **old != place) {
                        let _ = std::fs::remove_file(old);
                    }
                    if before.as_ref() != Some(&place) {
                        let (file, there) = (path.display().to_string(), place.display().to_string());
                        self.emit(Event::Notice {
                            kind: NoticeKind::Warning,
                            text: Room::SavedElsewhereUntil {
                                file: &file,
                                there: &there,
                            }
                            .say(self.room.lang),
                        });
                    }
                    self.saving.elsewhere = Some(place);
                    return;
                }
                Err(e) => tracing::error!(path = %place.display(), error = %e, "the fallback save failed too"),
            }
        }
        if let Some(old) = before {
            // Kept (it may hold more than the file), but no longer claimed
            // to be the whole session.
            let there = old.display().to_string();
            self.emit(Event::Notice {
                kind: NoticeKind::Warning,
                text: Room::FallbackUnwritable { there: &there }.say(self.room.lang),
            });
        }
    }

    /// The last word to the front ends: whether the session is saved, and
    /// where it is if not in its file.
    pub(super) fn ended(&self, reason: Option<ExitReason>, completed: bool) -> Event {
        let saved = !self.saving.failing;
        Event::SessionEnded {
            file: Some(self.store.path.display().to_string()),
            reason,
            completed: completed && saved,
            saved,
            elsewhere: self.saving.elsewhere.as_ref().filter(|_| !saved).map(|p| p.display().to_string()),
        }
    }
}
