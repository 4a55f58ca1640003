//! How much cleanup an endpoint's replies get. Cleanup is a help for small
//! models, never a law for every model: a small local model gets every rule
//! (`Full`); a large or hosted one only what keeps a reply one voice
//! (`Light`); `Off` leaves nothing but the protocol. `auto` chooses by what
//! the server says of its model, and a model given `Light` whose replies
//! show a small model's failures is moved to `Full` for the session.

use crate::config::CleanupLevel;

/// The cleanup a reply gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Nothing but the protocol (markers, escapes, the speaker's own label).
    Off,
    /// The reply is one voice: another's label line ends it, the runtime's
    /// notes never show, a reply saying itself again ends.
    Light,
    /// Every rule of the table (`rules.rs`).
    Full,
}

impl Level {
    pub(crate) fn code(self) -> &'static str {
        match self {
            Level::Off => "off",
            Level::Light => "light",
            Level::Full => "full",
        }
    }
}

/// Models below this many billion parameters get `Full` under `auto`.
pub(crate) const SMALL_BELOW_B: f64 = 20.0;

/// Why `auto` chose a level (recorded in the session, said in the notice).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub(crate) enum Why {
    /// The config names the level.
    Configured,
    /// The server gave the model's size (billions of parameters).
    ServerSize { billions: f64 },
    /// The model's name gives its size (`qwen2.5-1.5b`, `llama3.1:8b`).
    NameSize { billions: f64 },
    /// Size unknown; a server on this machine or the local network runs
    /// small models more often than not.
    Local,
    /// Size unknown; a hosted API.
    Hosted,
    /// The rehearsal's replies are written by the program itself.
    Rehearsal,
    /// Its replies showed a small model's failure at `Light`.
    Raised,
}

/// What is known of an endpoint's model when its level is chosen.
#[derive(Debug, Clone, Default)]
pub(crate) struct ModelFacts<'a> {
    pub model: &'a str,
    pub base_url: Option<&'a str>,
    /// Billions of parameters, as the server says (llama.cpp's
    /// `meta.n_params`, Ollama's `parameter_size`).
    pub server_size: Option<f64>,
    pub rehearsal: bool,
}

/// The level an endpoint's replies get, and why.
pub(crate) fn choose(setting: CleanupLevel, facts: &ModelFacts) -> (Level, Why) {
    let by_size = |b: f64| if b < SMALL_BELOW_B { Level::Full } else { Level::Light };
    match setting {
        CleanupLevel::Full => (Level::Full, Why::Configured),
        CleanupLevel::Light => (Level::Light, Why::Configured),
        CleanupLevel::Off => (Level::Off, Why::Configured),
        CleanupLevel::Auto if facts.rehearsal => (Level::Full, Why::Rehearsal),
        CleanupLevel::Auto => {
            if let Some(b) = facts.server_size {
                (by_size(b), Why::ServerSize { billions: b })
            } else if let Some(b) = size_in_name(facts.model) {
                (by_size(b), Why::NameSize { billions: b })
            } else if facts.base_url.is_some_and(crate::llm::discovery::is_local) {
                (Level::Full, Why::Local)
            } else {
                (Level::Light, Why::Hosted)
            }
        }
    }
}

/// The size a model's name gives, in billions of parameters: `1.5b`,
/// `7B`, `:8b`, `70b`, `8x7b` (experts times their size), `500m`; None
/// when it names none (`gpt-4o`, `claude-sonnet`, `deepseek-chat`). A
/// size is a number, then `b` or `m`, then a break (not `b1` of a hash).
pub(crate) fn size_in_name(model: &str) -> Option<f64> {
    let m = model.to_ascii_lowercase();
    let bytes = m.as_bytes();
    let mut best: Option<f64> = None;
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric() && bytes[i - 1] != b'.');
        if !starts {
            i += 1;
            continue;
        }
        let (n, mut j) = number_at(bytes, i);
        // Experts: `8x7b`.
        let mut factor = 1.0;
        let mut size = n;
        if bytes.get(j) == Some(&b'x') && bytes.get(j + 1).is_some_and(u8::is_ascii_digit) {
            let (m2, k) = number_at(bytes, j + 1);
            factor = n;
            size = m2;
            j = k;
        }
        let unit = match bytes.get(j) {
            Some(b'b') => 1.0,
            Some(b'm') => 0.001,
            _ => {
                i = j.max(i + 1);
                continue;
            }
        };
        let ends = bytes.get(j + 1).is_none_or(|c| !c.is_ascii_alphanumeric());
        if ends {
            let b = factor * size * unit;
            best = Some(best.map_or(b, |x: f64| x.max(b)));
        }
        i = j + 1;
    }
    best
}

/// The decimal number at `i` of `bytes` and the index after it.
fn number_at(bytes: &[u8], i: usize) -> (f64, usize) {
    let mut j = i;
    while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b'.' && bytes.get(j + 1).is_some_and(u8::is_ascii_digit)) {
        j += 1;
    }
    let n = std::str::from_utf8(&bytes[i..j]).ok().and_then(|s| s.parse().ok()).unwrap_or(0.0);
    (n, j)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_is_read_from_the_names_models_are_served_by() {
        for (name, size) in [
            ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", Some(1.5)),
            ("Qwen/Qwen2.5-72B-Instruct", Some(72.0)),
            ("llama3.1:8b", Some(8.0)),
            ("mixtral-8x7b-instruct", Some(56.0)),
            ("smollm2:360m", Some(0.36)),
            ("deepseek-r1:671b", Some(671.0)),
            ("gemma-3-27b-it", Some(27.0)),
            ("gpt-4o", None),
            ("gpt-4o-mini", None),
            ("claude-sonnet-4-5", None),
            ("deepseek-chat", None),
            ("o3-mini", None),
            ("local", None),
            ("fake-model", None),
            ("model-b1a2", None),
        ] {
            assert_eq!(size_in_name(name), size, "{name}");
        }
    }

    #[test]
    fn auto_chooses_full_for_a_small_or_local_model_and_light_for_a_large_or_hosted_one() {
        let facts = |model, base_url, server_size| ModelFacts {
            model,
            base_url: Some(base_url),
            server_size,
            rehearsal: false,
        };
        let auto = |f: ModelFacts| choose(CleanupLevel::Auto, &f);
        let local = "http://127.0.0.1:8080/v1";
        let hosted = "https://api.openai.com/v1";
        assert_eq!(
            auto(facts("local", local, Some(1.54))),
            (Level::Full, Why::ServerSize { billions: 1.54 })
        );
        assert_eq!(auto(facts("local", local, Some(70.6))).0, Level::Light);
        assert_eq!(auto(facts("qwen2.5:1.5b", local, None)).0, Level::Full);
        assert_eq!(auto(facts("Qwen/Qwen2.5-72B-Instruct", local, None)).0, Level::Light);
        assert_eq!(
            auto(facts("qwen2.5-7b-instruct", hosted, None)),
            (Level::Full, Why::NameSize { billions: 7.0 })
        );
        assert_eq!(auto(facts("model", local, None)), (Level::Full, Why::Local));
        assert_eq!(auto(facts("gpt-4o", hosted, None)), (Level::Light, Why::Hosted));
        assert_eq!(auto(facts("deepseek-chat", "https://api.deepseek.com", None)).0, Level::Light);
        let rehearsal = ModelFacts {
            rehearsal: true,
            ..ModelFacts::default()
        };
        assert_eq!(auto(rehearsal), (Level::Full, Why::Rehearsal));
        // Named, the level is the config's, whatever the model.
        assert_eq!(
            choose(CleanupLevel::Off, &facts("qwen2.5:1.5b", local, None)),
            (Level::Off, Why::Configured)
        );
        assert_eq!(choose(CleanupLevel::Full, &facts("gpt-4o", hosted, None)).0, Level::Full);
    }
}
