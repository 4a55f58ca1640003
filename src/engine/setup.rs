//! What a front end hands the engine at start: the room, its providers,
//! where the session is written, and what a resumed session already holds.

use std::path::PathBuf;
use std::sync::Arc;

use crate::config::Config;
use crate::i18n::Lang;
use crate::llm::Provider;
use crate::roster::agents::Agent;
use crate::session::{Session, SessionLock};
use crate::workflow::Workflow;

use super::documents;

/// Everything the engine needs, resolved by the caller.
pub struct Setup {
    pub config: Config,
    pub workflow: Workflow,
    pub agents: Vec<Agent>,
    /// Every agent the program knows (the roster, a BMAD project's
    /// party-only members), the room's among them: who can be invited.
    pub pool: Vec<Agent>,
    /// The default endpoint's provider: the moderator's, the note-taker's,
    /// the host's, and every agent's that names no endpoint.
    pub provider: Arc<dyn Provider>,
    /// The providers of the named endpoints (`bmad.llm.endpoints`) the
    /// room's agents speak through, by name.
    pub endpoints: Vec<(String, Arc<dyn Provider>)>,
    pub lang: Lang,
    /// How agents are told to speak (`communication_language`).
    pub speech_language: String,
    pub user_name: String,
    /// Sessions are written to `<output>/party-mode/`.
    pub output: PathBuf,
    pub resume: Option<Resume>,
    /// The language documents are written in (highlights); None: as spoken.
    pub document_language: Option<String>,
    /// Shown once at the start (e.g. problems found in a BMAD roster).
    pub notices: Vec<String>,
    pub saves: Saves,
    /// Whether the graceful exit writes takeaways, and where.
    pub takeaways: TakeawaysTo,
    /// The named party the session is held by (None: the default room).
    pub party: Option<crate::roster::parties::NamedParty>,
    /// The party's memory; None: the room keeps none (`--no-memory`, or
    /// a party that does not remember).
    pub memory: Option<Memory>,
    /// Documents in front of the room (`--context`, a resumed session's).
    pub documents: Vec<documents::Document>,
    /// The named parties `/party NAME` can switch to: each one's cast
    /// (from `pool`) and memory, resolved at start.
    pub parties: Vec<Standing>,
    /// Where a cast drafted in the room (`/cast`) is saved; None: `/cast`
    /// says why it cannot be (no config folder).
    pub casts: Option<CastsTo>,
}

/// Where `/cast` saves a kept cast: agent files and a party file in the
/// user's config folders, as `bmad-party cast` does.
#[derive(Debug, Clone, PartialEq)]
pub struct CastsTo {
    pub agents_dir: PathBuf,
    pub parties_dir: PathBuf,
    /// The party ids the program has (the config's, a project's, the
    /// files', the ready-made rooms'), switchable or not: none is reused.
    pub parties: Vec<String>,
    /// Where the new party keeps its memory (None: this run keeps none).
    pub memory_dir: Option<PathBuf>,
}

/// A named party as a switch brings it in.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub party: crate::roster::parties::NamedParty,
    pub agents: Vec<Agent>,
    /// None: it keeps no memory (or this run keeps none).
    pub memory: Option<Memory>,
}

/// A party's memory: where it is kept and what it held when the party
/// started.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Memory {
    pub path: PathBuf,
    pub(crate) entries: Vec<crate::memlog::Entry>,
}

/// Where the takeaways of a party go, if anywhere.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TakeawaysTo {
    #[default]
    Nowhere,
    /// Beside the session file: `<session>.takeaways.md`.
    BesideSession,
    File(PathBuf),
}

/// A session to continue: its file, what the file holds, and this
/// process's lock on it (taken at start-up, so a session in use is refused
/// before anything is written).
pub struct Resume {
    pub path: PathBuf,
    pub session: Session,
    pub lock: Option<SessionLock>,
}

/// Which thread writes the session file. The engine waits for each save
/// either way, so the order of saves and events is the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Saves {
    /// The blocking pool: the screen shares the engine's thread and keeps
    /// drawing while the disk syncs.
    #[default]
    Background,
    /// The engine's own thread, when nothing there waits on it (headless):
    /// a hand-over to another thread and back costs more than the write.
    Inline,
}
