//! Saving: the session file is replaced whole (temporary file, sync,
//! rename) after every change. A failing disk does not stop the party: it is
//! said once, and every later change tries again.

use super::party::Party;
use crate::engine::{Event, Saves};

impl Party {
    /// Writes the session file (see `crate::session::store_write`): after
    /// every change, before the change is announced.
    pub(super) async fn save(&mut self) {
        let active = self.active();
        let (session, store) = (&mut self.session, &mut self.store);
        session.fm.conversation_state.active_seconds = active;
        // After one good save the folder is there: later saves skip the
        // folder checks. A failure may mean it went away, so check again.
        let folder = if self.save_failing || !self.saved_once {
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
        let result = match self.room.saves {
            Saves::Inline => crate::session::store_write(&path, &rendered.parts(), folder),
            Saves::Background => {
                let (text, write_path) = (rendered.to_text(), path.clone());
                tokio::task::spawn_blocking(move || crate::session::store_write(&write_path, &[text.as_bytes()], folder))
                    .await
                    .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
            }
        };
        match result {
            Ok(()) => {
                self.saved_once = true;
                if self.save_failing {
                    tracing::info!("saving works again: {}", path.display());
                }
                self.save_failing = false;
            }
            Err(e) => {
                tracing::error!(path = %path.display(), error = %e, "saving the session failed");
                // Say it once per failure streak; every later change retries.
                if !self.save_failing {
                    self.emit(Event::SaveFailed {
                        path: path.display().to_string(),
                        error: e.to_string(),
                    });
                }
                self.save_failing = true;
            }
        }
    }
}
