//! The voice bench's scorer (`benches/voice/score.rs`) is tested here, so CI
//! runs its tests although the bench itself needs a model server.

#[path = "../benches/voice/score.rs"]
mod score;
