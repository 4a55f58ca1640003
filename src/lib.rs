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
//! - `setup`, `cli`, `error`: start-up.

pub mod assets;
pub mod cli;
pub mod commands;
pub mod config;
pub mod engine;
pub mod error;
pub mod export;
pub mod frontend;
pub mod i18n;
pub mod llm;
pub mod logging;
pub mod memlog;
pub mod roster;
pub mod session;
pub mod setup;
pub mod source;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;
pub mod verdict;
pub mod workflow;
