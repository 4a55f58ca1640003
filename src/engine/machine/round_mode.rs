//! Who streams at once in a round, by the configuration and the endpoint.

use crate::config::RoundMode;

/// The round mode: the config's, else by the endpoint. A local server
/// (loopback, private network, Ollama's port) mostly answers one request at
/// a time (llama.cpp's Python server, Ollama with one slot): replies sent
/// at once wait in its queue, so a round takes as long as in sequence and
/// the later speakers lose the replies before them — sequential. A hosted
/// API (and the rehearsal) answers them together: hybrid, two replies'
/// time for three speakers, each answering the first.
pub(super) fn round_mode(configured: Option<RoundMode>, base_url: Option<&str>, rehearsal: bool) -> RoundMode {
    match (configured, base_url) {
        (Some(m), _) => m,
        (None, Some(url)) if !rehearsal && crate::llm::discovery::is_local(url) => RoundMode::Sequential,
        (None, _) => RoundMode::Hybrid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_server_gets_replies_in_turn_a_hosted_one_at_once_unless_the_config_says() {
        let local = Some("http://127.0.0.1:8080/v1");
        let hosted = Some("https://api.openai.com/v1");
        assert_eq!(round_mode(None, local, false), RoundMode::Sequential);
        assert_eq!(round_mode(None, Some("http://localhost:11434/v1"), false), RoundMode::Sequential);
        assert_eq!(round_mode(None, hosted, false), RoundMode::Hybrid);
        assert_eq!(round_mode(None, None, true), RoundMode::Hybrid, "the rehearsal");
        assert_eq!(round_mode(Some(RoundMode::Parallel), local, false), RoundMode::Parallel);
        assert_eq!(round_mode(Some(RoundMode::Sequential), hosted, false), RoundMode::Sequential);
    }
}
