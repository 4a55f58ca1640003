//! The shape of the code (modules, walls, surface), the docs holding together, and
//! the voice bench's scorer.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

mod docs;
mod layout;
mod voice_score;
