//! bmad-party: BMAD-style party mode in the terminal.
//!
//! - `engine`: the step machine (no terminal code); `Command` in, `Event` out.
//! - `llm`: model providers (OpenAI-compatible HTTP, offline rehearsal).
//! - `session`: the Markdown + YAML session file.
//! - `config`, `agents`, `workflow`, `assets`: what a party is made of.
//! - `headless`: the stdin/stdout front end; `setup`, `cli`: start-up.

// Configuration errors carry a location and a source snippet; they occur once,
// at start-up, so their size does not matter and boxing them would only add noise.
#![allow(clippy::result_large_err)]

pub mod agents;
pub mod assets;
pub mod bmad;
pub mod cli;
pub mod config;
pub mod engine;
pub mod headless;
pub mod i18n;
pub mod llm;
pub mod logging;
pub mod session;
pub mod setup;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;
pub mod tui;
pub mod workflow;
