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
            Server {
                name,
                provider,
                budget: Budget::new(window, reply),
                window_probe: None,
                check: None,
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

    /// The named endpoint's definition in the config.
    pub(super) fn endpoint_def(&self, endpoint: Option<&str>) -> Option<&Endpoint> {
        let name = endpoint?;
        self.cfg.llm.endpoints.iter().find(|e| e.name == name)
    }

    /// Whether each server the room's speakers use runs requests together
    /// (the default one only when some speaker names no endpoint).
    pub(super) fn speakers_run_together(&self) -> bool {
        let default = self.provider.info();
        let on_default = self.agents.iter().any(|a| self.server(a.endpoint.as_deref()).is_none());
        let named = self.servers.iter().all(|s| {
            let setting = self.endpoint_def(Some(&s.name)).and_then(|e| e.parallel_requests);
            runs_together(setting, s.provider.info().base_url.as_deref())
        });
        named && (!on_default || runs_together(self.cfg.llm.parallel_requests, default.base_url.as_deref()))
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
}
