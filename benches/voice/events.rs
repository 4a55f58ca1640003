//! The headless driver's JSON-lines events as the real-model benches log
//! and read them.

use std::io::Write;
use std::time::Instant;

use serde_json::Value;

/// Writes `ev` to the bench's log with the time since `start` (`at_ms`);
/// tokens and status lines are left out (a party has thousands).
pub fn log(out: &mut impl Write, ev: &Value, start: Instant) {
    let kind = ev["type"].as_str().unwrap_or_default();
    if kind != "agent_token" && kind != "status" {
        let mut stamped = ev.clone();
        stamped["at_ms"] = Value::from(start.elapsed().as_millis() as u64);
        let _ = writeln!(out, "{stamped}");
    }
}

/// The room of a `session_started` event: (id, name) of each agent.
pub fn roster(ev: &Value) -> Vec<(String, String)> {
    ev["agents"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| {
            (
                a["id"].as_str().unwrap_or_default().to_string(),
                a["name"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}
