//! The full-screen terminal: frames in ratatui's TestBackend, keys, the real binary
//! in tmux, and how soon the screen follows the engine.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

#[path = "../common/mod.rs"]
mod common;
#[path = "../screen/mod.rs"]
mod screen;

mod latency;
mod tmux_e2e;
mod tui;
mod tui_input;
