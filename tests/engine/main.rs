//! The engine end to end: a real engine, channels in and events out, against the
//! loopback OpenAI server (and the pure pieces fuzzed).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

#[path = "../common/mod.rs"]
mod common;

mod asked;
mod cast;
mod cleanup;
mod context_budget;
mod endpoints;
mod engine;
mod faults;
mod fuzz;
mod hands;
mod hearing;
mod hostile;
mod judgement;
mod on_demand;
mod read_ahead;
mod reading;
mod redo;
mod room;
mod round_modes;
mod slow_models;
