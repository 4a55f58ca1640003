//! The loopback OpenAI-compatible server of the tests, as a program, for
//! manual runs and profiling: prints its base URL, then serves 60-token
//! streamed replies until killed. `--delay-ms N` paces the tokens.
//!
//! cargo run --release --example fake_openai -- --delay-ms 20

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use std::time::Duration;

use bmad_party::testing::{FakeOpenAi, Reply};

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let delay = args
        .windows(2)
        .find(|w| w[0] == "--delay-ms")
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(0u64);
    let server = FakeOpenAi::start(move |_, n| {
        let text: Vec<String> = (0..60).map(|i| format!("w{}x{}", (n * 31 + i * 7) % 997, i)).collect();
        Reply::Stream {
            events: bmad_party::testing::events_of(&text.join(" ")),
            done: true,
            delay: Duration::from_millis(delay),
            cut_after: None,
            stall_after: None,
        }
    })
    .await;
    println!("{}", server.base_url());
    std::future::pending::<()>().await;
}
