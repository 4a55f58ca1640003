//! The named endpoints beside the default one (`bmad.llm.endpoints`). An
//! agent that names one speaks through its provider (its own address,
//! model, key, retries, outage window and quirks), and its prompts are
//! fitted to that server's window with the token ratio learnt from that
//! server's counts. Everything that names no endpoint (the host, the
//! note-taker, the highlights, the memory) uses the default one:
//! `Room::provider` and `Room::budget`.

use std::sync::Arc;

use tokio::task::JoinHandle;

use super::Room;
use crate::config::{Endpoint, LlmConfig};
use crate::engine::budget::{default_window, Budget};
use crate::llm::{EndpointCheck, Provider};

pub(super) struct Server {
    pub(super) name: String,
    pub(super) provider: Arc<dyn Provider>,
    pub(super) budget: Budget,
    /// The server's answer about its window, while it is awaited.
    pub(super) window_probe: Option<JoinHandle<Option<u32>>>,
    /// Its answer about itself and its models, while it is awaited.
    pub(super) check: Option<JoinHandle<Option<EndpointCheck>>>,
    /// The round its server was last found gone (a call waited out the
    /// whole retry window) and has not answered since.
    pub(super) down_since: Option<u32>,
    /// Its replies' cleanup (`levels`).
    pub(super) cleanup: super::levels::Chosen,
}

/// A server found gone is asked again (by its first speaker) every this
/// many rounds; in the rounds between, its speakers are reported as not
/// asked at once, so neither they nor the room wait its retry window.
pub(super) const ASK_GONE_EVERY: u32 = 3;

/// Whether the speakers of a server last found gone in `down_since` are
/// asked in `round`: always when it was never found gone, else every
/// `ASK_GONE_EVERY` rounds after (one call tells whether it is back).
pub(super) fn asked_in(down_since: Option<u32>, round: u32) -> bool {
    down_since.is_none_or(|d| round > d && (round - d).is_multiple_of(ASK_GONE_EVERY))
}

/// The servers of the named endpoints the room speaks through, each
/// budget from its endpoint's settings (the default's reply cap where it
/// sets none; the window by its kind until the server says).
pub(super) fn servers(providers: Vec<(String, Arc<dyn Provider>)>, llm: &LlmConfig) -> Vec<Server> {
    providers
        .into_iter()
        .map(|(name, provider)| {
            let def = llm.endpoints.iter().find(|e| e.name == name);
            let window = def
                .and_then(|e| e.context_tokens)
                .unwrap_or_else(|| default_window(provider.info().base_url.as_deref()));
            let reply = def.and_then(|e| e.reply_max_tokens).unwrap_or(llm.reply_max_tokens);
            let cleanup = super::levels::at_start(llm.cleanup_of(Some(&name)), provider.as_ref());
            Server {
                cleanup,
                name,
                provider,
                budget: Budget::new(window, reply),
                window_probe: None,
                check: None,
                down_since: None,
            }
        })
        .collect()
}

/// Whether a server runs several requests at once: as its config says,
/// else a hosted API does and a server on this machine or the local
/// network does not (llama.cpp's Python server, Ollama with one slot).
pub(super) fn runs_together(setting: Option<bool>, base_url: Option<&str>) -> bool {
    setting.unwrap_or_else(|| !base_url.is_some_and(crate::llm::discovery::is_local))
}

impl Room {
    pub(super) fn server(&self, endpoint: Option<&str>) -> Option<&Server> {
        let name = endpoint?;
        self.servers.iter().find(|s| s.name == name)
    }

    /// The provider an agent's calls go to.
    pub(super) fn provider_of(&self, endpoint: Option<&str>) -> &Arc<dyn Provider> {
        self.server(endpoint).map_or(&self.provider, |s| &s.provider)
    }

    /// The budget an agent's prompts are fitted to.
    pub(super) fn budget_of(&self, endpoint: Option<&str>) -> &crate::engine::budget::Budget {
        self.server(endpoint).map_or(&self.budget, |s| &s.budget)
    }

    pub(super) fn budget_of_mut(&mut self, endpoint: Option<&str>) -> &mut crate::engine::budget::Budget {
        match endpoint.and_then(|n| self.servers.iter().position(|s| s.name == n)) {
            Some(i) => &mut self.servers[i].budget,
            None => &mut self.budget,
        }
    }

    /// The named endpoints whose speakers are not asked in `round`: their
    /// server was found gone and this is not a round to ask it again.
    pub(super) fn gone_in(&self, round: u32) -> Vec<Option<String>> {
        let gone = self.servers.iter().filter(|s| !asked_in(s.down_since, round));
        gone.map(|s| Some(s.name.clone())).collect()
    }

    /// What a call through `endpoint` in `round` told of its server: gone
    /// (the whole retry window without an answer), or there (any answer).
    pub(super) fn heard_from(&mut self, endpoint: Option<&str>, round: u32, gone: bool) {
        let Some(s) = self.servers.iter_mut().find(|s| Some(s.name.as_str()) == endpoint) else {
            return;
        };
        s.down_since = gone.then_some(round);
    }

    /// The round a named endpoint's server was last found gone.
    pub(super) fn down_since(&self, endpoint: Option<&str>) -> Option<u32> {
        self.server(endpoint).and_then(|s| s.down_since)
    }

    /// The model an agent speaks with: its own, else its endpoint's (the
    /// providers know theirs, named or listed), else the default one's.
    pub(super) fn model_of(&self, agent: &crate::roster::agents::Agent) -> String {
        let named = self.server(agent.endpoint.as_deref()).map(|s| s.provider.info().model);
        let default = self.provider.info().model;
        crate::config::model_of(agent.model.as_deref(), named.as_deref().map(Some), Some(&default)).unwrap_or(default)
    }

    /// What tells each agent's voice apart, in the agents' order: its
    /// model, in a room of more than one endpoint or model
    /// (`config::voice_labels`); None for all in a room of one. An agent
    /// on an endpoint (named or the default) whose model is still to come
    /// from its server's list has none yet: the name its provider holds
    /// meanwhile is a stand-in, no model of the room (`follow_labels` tells
    /// the label once the server has said).
    pub(super) fn voice_labels(&self) -> Vec<Option<String>> {
        let known = |a: &crate::roster::agents::Agent| a.model.is_some() || self.provider_of(a.endpoint.as_deref()).info().model_settled;
        let models: Vec<Option<String>> = self.agents.iter().map(|a| known(a).then(|| self.model_of(a))).collect();
        let voices: Vec<(Option<&str>, &str)> = self
            .agents
            .iter()
            .zip(&models)
            .filter_map(|(a, m)| Some((self.server(a.endpoint.as_deref()).map(|s| s.name.as_str()), m.as_deref()?)))
            .collect();
        let mut labels = crate::config::voice_labels(&voices).into_iter();
        models.iter().map(|m| m.as_ref().and_then(|_| labels.next().flatten())).collect()
    }

    /// The named endpoint's definition in the config.
    pub(super) fn endpoint_def(&self, endpoint: Option<&str>) -> Option<&Endpoint> {
        let name = endpoint?;
        self.cfg.llm.endpoints.iter().find(|e| e.name == name)
    }
}

impl super::party::Party {
    /// A speaker whose server was found gone is not asked (it would wait
    /// out the retry window again, and the room behind it): the facilitator
    /// sees it fail at once, with the endpoint and the round it is asked
    /// again. Not counted as a failed call: nothing was sent.
    pub(super) async fn report_not_asked(&mut self, round: u32, agent: &crate::roster::agents::Agent) {
        let endpoint = agent.endpoint.as_deref().unwrap_or(crate::config::DEFAULT_ENDPOINT);
        let since = self.room.down_since(agent.endpoint.as_deref()).unwrap_or(round);
        let again = since + ASK_GONE_EVERY;
        let cause = crate::i18n::Say::say(&crate::i18n::Room::EndpointGone { endpoint, since, again }, self.room.lang);
        tracing::info!(agent = %agent.id, endpoint, since, "its server is gone: not asked this round");
        self.record_failure(round, agent, cause).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_runs_requests_together_when_it_says_so_or_is_hosted() {
        assert!(runs_together(None, Some("https://api.openai.com/v1")));
        assert!(!runs_together(None, Some("http://127.0.0.1:8080/v1")));
        assert!(
            runs_together(Some(true), Some("http://127.0.0.1:8080/v1")),
            "llama-server --parallel 3"
        );
        assert!(!runs_together(Some(false), Some("https://api.openai.com/v1")));
        assert!(runs_together(None, None), "the rehearsal");
    }

    #[test]
    fn a_gone_server_is_asked_again_every_third_round_only() {
        assert!(asked_in(None, 1) && asked_in(None, 9));
        let asked: Vec<u32> = (5..=12).filter(|&r| asked_in(Some(5), r)).collect();
        assert_eq!(asked, [8, 11]);
    }
}
