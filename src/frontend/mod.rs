//! The front ends: the full-screen terminal (`tui`) and the line-oriented
//! driver for pipes and scripts (`headless`). Both drive the same engine
//! through `engine::Command`s and read its `engine::Event`s; neither touches
//! HTTP.

pub mod headless;
pub mod signals;
pub mod tui;
