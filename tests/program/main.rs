//! The real binary as a process: the command line, headless parties, BMAD projects,
//! sessions and keepsakes, crashes and full disks.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

#[path = "../common/mod.rs"]
mod common;
#[path = "../process/mod.rs"]
mod process;
#[path = "../screen/mod.rs"]
mod screen;

mod bmad;
mod cards;
mod cast;
mod cli;
mod conventions;
mod crash;
mod endpoints_cli;
mod exit_status;
mod first_run;
mod full_disk;
mod keepsakes;
mod non_interactive;
mod parties;
mod sessions;
