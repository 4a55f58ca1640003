//! The front ends: the full-screen terminal (`tui`) and the line-oriented
//! driver for pipes and scripts (`headless`). Both drive the same engine
//! through `engine::Command`s and read its `engine::Event`s; neither touches
//! HTTP.

pub(crate) mod batch;
pub(crate) mod exit;
pub(crate) mod headless;
pub(crate) mod signals;
pub mod tui;

/// Colour unless `NO_COLOR` is set to anything but nothing (no-color.org).
/// Without colour both front ends keep bold, reverse and underline.
pub(crate) fn colors_allowed() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
