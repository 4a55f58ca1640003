//! bmad-party: BMAD-style party mode in the terminal.
//!
//! - `engine`: the step machine (no terminal code); `Command` in, `Event` out.
//! - `frontend`: the full-screen terminal and the headless driver.
//! - `llm`: model providers (OpenAI-compatible HTTP, offline rehearsal).
//! - `session`: the Markdown + YAML session file; `memlog`: a party's
//!   memory between sessions (BMAD's format).
//! - `roster`: who is in the room (own agent files, BMAD installs).
//! - `config`, `workflow`, `assets`: the rest of what a party is made of;
//!   `source`: the files they are read from and the problems found in them.
//! - `program` (what `main` runs), `setup`, `cli`, `error`: start-up.

pub mod assets;
pub(crate) mod cli;
pub(crate) mod commands;
pub mod config;
pub mod engine;
pub(crate) mod error;
pub mod export;
pub mod frontend;
pub mod i18n;
pub mod llm;
pub(crate) mod logging;
pub(crate) mod memlog;
pub mod program;
pub mod roster;
pub mod session;
pub(crate) mod setup;
pub mod source;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;
pub mod verdict;
pub mod workflow;
