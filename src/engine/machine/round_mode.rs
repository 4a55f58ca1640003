//! Who streams at once in a round, by the configuration and the endpoint.

use crate::config::RoundMode;

/// The round mode: the config's, else by the endpoint. A local server
/// (loopback, private network, Ollama's port) mostly answers one request at
/// a time (llama.cpp's Python server, Ollama with one slot): replies sent
/// at once wait in its queue, so a round takes as long as in sequence and
/// the later speakers lose the replies before them — sequential. A hosted
/// API (and the rehearsal) answers them together: hybrid, two replies'
/// time for three speakers, each answering the first.
/// With several endpoints, `together` says whether every server the
/// speakers use runs requests together (`servers::runs_together`): one
/// that does not makes the round sequential.
pub(super) fn round_mode(configured: Option<RoundMode>, together: bool, rehearsal: bool) -> RoundMode {
    match configured {
        Some(m) => m,
        None if !rehearsal && !together => RoundMode::Sequential,
        None => RoundMode::Hybrid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::engine::machine::servers::runs_together;

    #[test]
    fn a_local_server_gets_replies_in_turn_a_hosted_one_at_once_unless_the_config_says() {
        let local = runs_together(None, Some("http://127.0.0.1:8080/v1"));
        let hosted = runs_together(None, Some("https://api.openai.com/v1"));
        assert_eq!(round_mode(None, local, false), RoundMode::Sequential);
        let ollama = runs_together(None, Some("http://localhost:11434/v1"));
        assert_eq!(round_mode(None, ollama, false), RoundMode::Sequential);
        assert_eq!(round_mode(None, hosted, false), RoundMode::Hybrid);
        assert_eq!(round_mode(None, true, true), RoundMode::Hybrid, "the rehearsal");
        assert_eq!(round_mode(Some(RoundMode::Parallel), local, false), RoundMode::Parallel);
        assert_eq!(round_mode(Some(RoundMode::Sequential), hosted, false), RoundMode::Sequential);
        // Several servers: `servers::all_run_together` decides `together`.
    }
}
