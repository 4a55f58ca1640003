//! The endpoint's `GET /models`, asked once and shared: it tells whether
//! the server can be reached at all, which models it has (the model used
//! when none is named, the names a "model not found" lists) and, on vLLM,
//! the context window.

use std::sync::Arc;

use tokio::sync::OnceCell;

use super::window::PROBE_TIMEOUT;
use crate::llm::{discovery, Failure};

/// What `/models` answered.
#[derive(Debug, Clone, Default)]
pub(super) struct Listed {
    /// The answer's JSON (`Null` when the server answered without a list:
    /// a 404, a page that is not JSON).
    pub(super) json: Arc<serde_json::Value>,
    /// The model ids it lists, in its order.
    pub(super) models: Vec<String>,
}

/// Asks once per session; the answer of a server that could be reached is
/// kept, an unreachable one is asked again next time.
#[derive(Clone)]
pub(super) struct Listing {
    http: reqwest::Client,
    base: String,
    key: String,
    cell: Arc<OnceCell<Listed>>,
}

impl Listing {
    pub(super) fn new(http: reqwest::Client, base: &str, key: &str) -> Listing {
        Listing {
            http,
            base: base.trim_end_matches('/').to_string(),
            key: key.to_string(),
            cell: Arc::new(OnceCell::new()),
        }
    }

    /// The kept answer, if the server has answered.
    pub(super) fn known(&self) -> Option<&Listed> {
        self.cell.get()
    }

    /// The answer, asked now if it has not come yet. `Err` is why the
    /// server could not be reached (refused, no answer in a few seconds).
    pub(super) async fn get(&self) -> Result<Listed, Failure> {
        self.cell.get_or_try_init(|| self.ask()).await.cloned()
    }

    async fn ask(&self) -> Result<Listed, Failure> {
        let req = self
            .http
            .get(format!("{}/models", self.base))
            .bearer_auth(&self.key)
            .timeout(PROBE_TIMEOUT);
        let response = req.send().await.map_err(|e| {
            if e.is_timeout() {
                Failure::NoAnswerWithin(PROBE_TIMEOUT.as_secs())
            } else {
                super::errors::describe_reqwest(&e)
            }
        })?;
        // Any answer means the server is there; only a list names models.
        if !response.status().is_success() {
            return Ok(Listed::default());
        }
        let json = response.json::<serde_json::Value>().await.unwrap_or_default();
        let models = discovery::listed_models(&json);
        Ok(Listed {
            json: Arc::new(json),
            models,
        })
    }
}
