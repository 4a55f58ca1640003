//! The voice bench's scorer (`benches/voice/score.rs`) is tested here, so CI
//! runs its tests although the bench itself needs a model server.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

#[path = "../../benches/voice/score.rs"]
mod score;
