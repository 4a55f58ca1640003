//! Asking a server for its context window (`/models`, llama.cpp's `/props`).

use std::time::Duration;

/// How long each question about the window may take: it is asked once,
/// before the first round, and the default serves when it goes unanswered.
pub(super) const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// vLLM's `GET /v1/models`: `data[].max_model_len`, the configured model's
/// entry first.
pub(super) fn window_in_models(v: &serde_json::Value, model: &str) -> Option<u32> {
    let data = v["data"].as_array()?;
    let n = |m: &serde_json::Value| m["max_model_len"].as_u64();
    data.iter()
        .find(|m| m["id"].as_str() == Some(model))
        .and_then(n)
        .or_else(|| data.iter().find_map(n))
        .and_then(|n| u32::try_from(n).ok())
        .filter(|&n| n >= 512)
}

/// llama.cpp's `GET /props`: `default_generation_settings.n_ctx` (older and
/// newer builds also give it at the top level). The per-slot window is
/// what a request may use.
pub(super) fn window_in_props(v: &serde_json::Value) -> Option<u32> {
    v["default_generation_settings"]["n_ctx"]
        .as_u64()
        .or_else(|| v["n_ctx"].as_u64())
        .and_then(|n| u32::try_from(n).ok())
        .filter(|&n| n >= 512)
}
