//! The context budget: every prompt, with room for the reply's cap, fits
//! the model's window. Many local servers run a 4,096-token window, and
//! some (Ollama) silently drop the *front* of a longer prompt: the persona.
//!
//! When the history would not fit, the oldest rounds leave it, several at
//! once: the cut point then stays put for a while, so each agent's prompt
//! grows by appending only and servers' prefix caches keep hitting. The
//! persona, the topic and the latest round always stay.

use crate::llm::discovery::is_local;

/// Tokens kept free beyond the reply's cap: chat-template tokens per
/// message and the estimate's error.
const MARGIN: u32 = 96;

/// After a cut, the history takes at most this share of what is free.
const REFILL: f64 = 0.6;

/// The window when neither the config nor the server says: a local server
/// is assumed to run Ollama's and llama.cpp's common 4,096; a hosted API
/// far more.
pub(crate) fn default_window(base_url: Option<&str>) -> u32 {
    match base_url {
        Some(u) if is_local(u) => 4096,
        _ => 32_768,
    }
}

/// A deliberately high estimate of a text's tokens without the model's
/// tokenizer: about 3.5 bytes of ASCII per token, a CJK character or any
/// other character a token each. [`Budget::learn`] corrects it from the
/// server's own counts.
pub fn estimate_tokens(text: &str) -> u32 {
    let (mut ascii, mut other) = (0u32, 0u32);
    for c in text.chars() {
        if c.is_ascii() {
            ascii += 1;
        } else {
            other += 1;
        }
    }
    (ascii as f64 / 3.5).ceil() as u32 + other
}

#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    /// The model's window, tokens.
    pub window: u32,
    /// The reply's cap, tokens.
    pub reply: u32,
    /// Real tokens per estimated token, learnt from the server's counts
    /// (never below 1: the estimate may only grow).
    pub ratio: f64,
}

impl Budget {
    pub(crate) fn new(window: u32, reply: u32) -> Budget {
        Budget { window, reply, ratio: 1.0 }
    }

    /// Tokens a prompt may take.
    pub(crate) fn prompt_limit(&self) -> u32 {
        self.window.saturating_sub(self.reply + MARGIN).max(256)
    }

    /// A text's cost in this budget, as a message of its own.
    pub(crate) fn cost(&self, text: &str) -> u32 {
        self.scale(estimate_tokens(text)) + 4
    }

    /// An estimate in this budget's tokens.
    pub(crate) fn scale(&self, estimate: u32) -> u32 {
        (estimate as f64 * self.ratio).ceil() as u32
    }

    /// Tokens of this budget as an estimate (the inverse of `scale`).
    pub(crate) fn unscale(&self, tokens: u32) -> u32 {
        (f64::from(tokens) / self.ratio).floor() as u32
    }

    /// The window to fit prompts to after the server refused a prompt
    /// estimated at `sent` as longer than its window: the window the server
    /// names, or else a quarter under what the refused prompt and its reply
    /// took; narrowed further by how far our estimate fell short of the
    /// server's count. Always below the current window, so the prompt
    /// built next is shorter.
    pub(crate) fn lowered_window(&self, sent: u32, told: Option<u32>, counted: Option<u32>) -> u32 {
        let floor = self.reply + MARGIN + 256;
        let sent = self.scale(sent);
        let mut window = match told.filter(|&w| w >= floor) {
            Some(w) => self.window.min(w),
            None => self.window.min((sent + self.reply + MARGIN) / 4 * 3),
        };
        if let Some(c) = counted.filter(|&c| c > sent) {
            window = (f64::from(window) * f64::from(sent) / f64::from(c)) as u32;
        }
        if window >= self.window {
            window = self.window / 4 * 3;
        }
        window.max(floor).min(self.window)
    }

    /// The server counted `actual` prompt tokens where `estimated` were
    /// expected: later estimates follow, upwards only.
    pub(crate) fn learn(&mut self, estimated: u32, actual: u64) {
        if estimated > 200 && actual > 0 {
            let seen = actual as f64 / estimated as f64 * self.ratio;
            self.ratio = self.ratio.max(seen.min(4.0));
        }
    }
}

/// Where the history should start so that the prompt fits.
///
/// `costs[i]` is the cost of turn `i`, `starts[i]` whether a round begins
/// there; the history now starts at `from`, and the latest round at
/// `latest` (it always stays); `fixed` is what the prompt costs besides the
/// history. Returns `from` while everything fits; otherwise the earliest
/// round start from which the history takes at most [`REFILL`] of what is
/// free (or the latest round, if even less must do).
pub(crate) fn horizon(costs: &[u32], starts: &[bool], from: usize, latest: usize, fixed: u32, limit: u32) -> usize {
    let latest = latest.min(costs.len());
    let from = from.min(latest);
    let free = limit.saturating_sub(fixed);
    let total: u32 = costs[from..].iter().sum();
    if total <= free {
        return from;
    }
    let target = (free as f64 * REFILL) as u32;
    let mut rest = total;
    for i in from..latest {
        if i > from && starts[i] && rest <= target {
            return i;
        }
        rest -= costs[i];
    }
    latest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_endpoints_get_a_small_window_and_hosted_ones_a_large_one() {
        for u in [
            "http://localhost:11434/v1",
            "http://127.0.0.1:8080/v1",
            "http://192.168.1.20:8000/v1",
            "http://172.20.0.3/v1",
            "http://gpu-box.local:1234/v1",
            "http://[::1]:8080/v1",
            "http://myserver:11434/v1",
        ] {
            assert_eq!(default_window(Some(u)), 4096, "{u}");
        }
        for u in ["https://api.openai.com/v1", "https://api.deepseek.com", "http://172.40.0.1/v1"] {
            assert_eq!(default_window(Some(u)), 32_768, "{u}");
        }
        assert_eq!(default_window(None), 32_768);
    }

    #[test]
    fn estimates_err_high_and_learn_from_the_server() {
        assert_eq!(estimate_tokens("four words of text"), 6);
        assert_eq!(estimate_tokens("我们先做调研"), 6);
        let mut b = Budget::new(4096, 350);
        assert_eq!(b.prompt_limit(), 4096 - 350 - MARGIN);
        b.learn(1000, 1500);
        assert!((b.ratio - 1.5).abs() < 1e-9);
        b.learn(1000, 800);
        assert!((b.ratio - 1.5).abs() < 1e-9, "never lowered");
        b.learn(10, 1000);
        assert!((b.ratio - 1.5).abs() < 1e-9, "tiny prompts teach nothing");
    }

    #[test]
    fn a_refused_prompt_lowers_the_window_below_what_was_sent() {
        let b = Budget::new(32_768, 350);
        // The server names its window and its count: our estimate was low
        // by a tenth, so the window shrinks by as much.
        assert_eq!(b.lowered_window(4500, Some(4096), Some(5000)), 3686);
        // A window named but no count, and the prompt was over it anyway:
        // the named window.
        assert_eq!(b.lowered_window(5000, Some(4096), None), 4096);
        // Nothing named (Ollama's wording): a quarter under what the refused
        // prompt and its reply took.
        let small = Budget::new(4096, 350);
        assert_eq!(small.lowered_window(3000, None, None), 2583);
        // Named window as large as ours, the prompt over our own limit (the
        // latest round alone did not fit): still lower, never the same.
        assert_eq!(small.lowered_window(3900, Some(8192), Some(3800)), 3072);
        // Never below what one reply and a short prompt need.
        assert_eq!(Budget::new(800, 350).lowered_window(500, Some(100), Some(5000)), 702);
        // What the server's counts taught already scales the prompt sent.
        let mut learnt = Budget::new(4096, 350);
        learnt.ratio = 1.25;
        assert_eq!(learnt.lowered_window(2000, None, Some(3000)), 1840);
    }

    #[test]
    fn the_history_is_cut_at_a_round_start_several_rounds_at_once_and_only_when_needed() {
        // Ten rounds of four turns, 100 tokens each; the latest round starts at 36.
        let costs = vec![100u32; 40];
        let starts: Vec<bool> = (0..40).map(|i| i % 4 == 0).collect();
        // Everything fits: no cut.
        assert_eq!(horizon(&costs, &starts, 0, 36, 500, 4500), 0);
        // 4,000 of history, 3,000 free: cut to what takes at most 1,800.
        let h = horizon(&costs, &starts, 0, 36, 500, 3500);
        assert!(starts[h], "at a round start: {h}");
        let kept: u32 = costs[h..].iter().sum();
        assert!(kept <= 1800 && kept > 1400, "kept {kept} from {h}");
        // Growing by one round afterwards fits again: the cut stays put.
        assert_eq!(horizon(&costs, &starts, h, 36, 500, 3500), h);
        // Nothing but the latest round fits: it stays all the same.
        assert_eq!(horizon(&costs, &starts, 0, 36, 500, 700), 36);
    }
}
