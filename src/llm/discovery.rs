//! Which model to use when none is named: the endpoint's own list
//! (`GET /v1/models`), read and chosen from by pure functions.

use crate::i18n::{Lang, Model, Say};

/// How many of the other listed models a message names before "and N more".
const NAMED: usize = 6;

/// The model ids a `/models` answer lists, in its order: OpenAI's shape
/// (`data[].id`, served by vLLM, llama.cpp, LM Studio, Ollama's `/v1`) or
/// Ollama's own (`models[].name`).
pub(crate) fn listed_models(v: &serde_json::Value) -> Vec<String> {
    let from = |list: &serde_json::Value, keys: &[&str]| -> Vec<String> {
        list.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|m| keys.iter().find_map(|k| m[*k].as_str()))
                    .map(|id| crate::text::sanitize(id).trim().to_string())
                    .filter(|id| !id.is_empty() && id.len() <= 200)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut ids = from(&v["data"], &["id", "name"]);
    if ids.is_empty() {
        ids = from(&v["models"], &["name", "model", "id"]);
    }
    let mut seen = std::collections::HashSet::new();
    ids.retain(|id| seen.insert(id.clone()));
    ids
}

/// The size of `model` in billions of parameters, where a `/models`
/// answer says it: llama.cpp's `meta.n_params`, Ollama's
/// `details.parameter_size` (`"1.5B"`, `"494.03M"`), or a plain
/// `parameter_size` / `num_parameters`. None where it says nothing: a
/// name's size is read elsewhere (`engine::cleanup::level::size_in_name`).
pub(crate) fn server_size(v: &serde_json::Value, model: &str) -> Option<f64> {
    let entries = v["data"].as_array().into_iter().chain(v["models"].as_array()).flatten();
    let mut listed = entries.filter(|m| {
        ["id", "name", "model"]
            .iter()
            .filter_map(|k| m[*k].as_str())
            .any(|id| same_model(id, model))
    });
    let m = listed.next()?;
    let count = |n: &serde_json::Value| n.as_f64().filter(|n| *n > 0.0).map(|n| n / 1e9);
    let text = |t: &serde_json::Value| {
        let t = t.as_str()?.trim().to_ascii_uppercase();
        let (num, unit) = match t.strip_suffix('B') {
            Some(n) => (n, 1.0),
            None => (t.strip_suffix('M')?, 0.001),
        };
        num.trim().parse::<f64>().ok().filter(|n| *n > 0.0).map(|n| n * unit)
    };
    count(&m["meta"]["n_params"])
        .or_else(|| count(&m["num_parameters"]))
        .or_else(|| text(&m["details"]["parameter_size"]))
        .or_else(|| text(&m["parameter_size"]))
}

/// Whether a listed model is one that writes replies, judged by its name:
/// servers list embedding, speech, image and moderation models beside the
/// chat ones.
pub(crate) fn writes_replies(id: &str) -> bool {
    const NOT_CHAT: [&str; 19] = [
        "embed",
        "bge-",
        "minilm",
        "e5-",
        "rerank",
        "whisper",
        "tts",
        "dall-e",
        "moderation",
        "transcribe",
        "davinci-002",
        "babbage-002",
        "image",
        "realtime",
        "audio",
        "guard",
        "ocr",
        "flux",
        "sora",
    ];
    let id = id.to_ascii_lowercase();
    !NOT_CHAT.iter().any(|w| id.contains(w))
}

/// An address's host in lower case (an IPv6 one without its brackets,
/// no `user:password@`) and its port where one is written.
pub(crate) fn host_and_port(url: &str) -> (String, Option<&str>) {
    let rest = url.trim().split_once("://").map_or(url.trim(), |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = match host_port.strip_prefix('[') {
        Some(v6) => {
            let (host, after) = v6.split_once(']').unwrap_or((v6, ""));
            (host, after.strip_prefix(':'))
        }
        None => match host_port.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        },
    };
    (host.to_ascii_lowercase(), port.filter(|p| !p.is_empty()))
}

/// Whether a host (`host_and_port`'s) names this machine.
pub(crate) fn is_loopback(host: &str) -> bool {
    ["localhost", "::1", "0.0.0.0", "0:0:0:0:0:0:0:1"].contains(&host) || host.starts_with("127.") || host.starts_with("::ffff:127.")
}

/// Whether an endpoint is on this machine or its network: loopback,
/// private networks, `.local` names and Ollama's port.
pub(crate) fn is_local(url: &str) -> bool {
    let (name, port) = host_and_port(url);
    is_loopback(&name)
        || name.starts_with("10.")
        || name.starts_with("192.168.")
        || (name.starts_with("172.")
            && name
                .split('.')
                .nth(1)
                .and_then(|x| x.parse::<u8>().ok())
                .is_some_and(|b| (16..32).contains(&b)))
        || name.ends_with(".local")
        || name == "host.docker.internal"
        || port == Some("11434")
}

/// The same model, as a server would take it: Ollama serves `llama3.2`
/// as `llama3.2:latest`.
pub(crate) fn same_model(a: &str, b: &str) -> bool {
    let bare = |s: &str| s.trim().strip_suffix(":latest").unwrap_or(s.trim()).to_string();
    a.trim() == b.trim() || bare(a) == bare(b)
}

/// The model to use when none is named: the default where the server
/// lists it; else, on a local server or one that has a single chat model,
/// the first chat model it lists (a local server lists the one it has
/// loaded first, Ollama its most recent). A hosted router's list of
/// hundreds is no choice to make for the user (the first may be costly):
/// None there, as when it lists no chat model.
pub(crate) fn choose(listed: &[String], default: &str, local: bool) -> Option<String> {
    let chat: Vec<&String> = listed.iter().filter(|m| writes_replies(m)).collect();
    if let Some(m) = chat.iter().find(|m| same_model(m, default)) {
        return Some(m.to_string());
    }
    (local || chat.len() == 1).then(|| chat.first().map(|m| m.to_string())).flatten()
}

/// The listed models other than `model`, for a message: at most a few,
/// then how many more.
pub(crate) fn others(listed: &[String], model: &str, lang: Lang) -> String {
    let rest: Vec<&str> = listed
        .iter()
        .filter(|m| !same_model(m, model) && writes_replies(m))
        .map(String::as_str)
        .collect();
    name_some(&rest, lang)
}

/// `a, b, c` or `a, b, c … and 4 more`.
pub(crate) fn name_some(ids: &[&str], lang: Lang) -> String {
    let shown = ids.iter().take(NAMED).copied().collect::<Vec<_>>().join(", ");
    match ids.len().saturating_sub(NAMED) {
        0 => shown,
        more => Model::AndMore { shown: &shown, more }.say(lang),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_models_size_is_read_where_the_server_gives_it() {
        let llama = serde_json::json!({"data": [{"id": "local", "meta": {"n_params": 1_543_714_304u64, "n_ctx_train": 32768}}]});
        assert_eq!(server_size(&llama, "local").map(|b| (b * 100.0).round()), Some(154.0));
        let ollama = serde_json::json!({"models": [
            {"name": "qwen2.5:0.5b", "details": {"parameter_size": "494.03M"}},
            {"name": "llama3.1:70b", "details": {"parameter_size": "70.6B"}}
        ]});
        assert_eq!(server_size(&ollama, "llama3.1:70b"), Some(70.6));
        assert_eq!(server_size(&ollama, "qwen2.5:0.5b").map(|b| (b * 1000.0).round()), Some(494.0));
        let openai = serde_json::json!({"data": [{"id": "gpt-4o", "owned_by": "system"}]});
        assert_eq!(server_size(&openai, "gpt-4o"), None);
        assert_eq!(server_size(&serde_json::Value::Null, "gpt-4o"), None);
        assert_eq!(server_size(&llama, "another"), None, "another model's size is not this one's");
    }

    #[test]
    fn the_list_is_read_in_openais_shape_and_ollamas() {
        let openai = json!({"object": "list", "data": [{"id": "llama3.2:latest"}, {"id": "qwen2.5"}, {"id": "llama3.2:latest"}]});
        assert_eq!(listed_models(&openai), ids(&["llama3.2:latest", "qwen2.5"]));
        let ollama = json!({"models": [{"name": "mistral:7b", "model": "mistral:7b"}]});
        assert_eq!(listed_models(&ollama), ids(&["mistral:7b"]));
        assert!(listed_models(&json!({"error": "no"})).is_empty());
        assert!(listed_models(&json!({"data": [{"id": ""}, {"object": "model"}]})).is_empty());
        // A name is shown to the facilitator: no escape sequence passes.
        assert_eq!(listed_models(&json!({"data": [{"id": "evil\u{1b}[2Jmodel"}]})), ids(&["evilmodel"]));
    }

    #[test]
    fn one_chat_model_is_chosen_the_default_first_and_never_an_embedding_model() {
        let pick = |listed: &[&str], local: bool| choose(&ids(listed), "gpt-4o-mini", local);
        assert_eq!(pick(&["llama3.2:latest"], true).as_deref(), Some("llama3.2:latest"));
        assert_eq!(
            pick(&["nomic-embed-text", "qwen2.5:1.5b", "llama3.2"], true).as_deref(),
            Some("qwen2.5:1.5b")
        );
        assert_eq!(
            pick(&["gpt-4o", "text-embedding-3-small", "gpt-4o-mini"], false).as_deref(),
            Some("gpt-4o-mini")
        );
        assert_eq!(pick(&["text-embedding-3-small", "whisper-1"], true), None);
        assert_eq!(pick(&[], true), None);
    }

    #[test]
    fn a_hosted_routers_long_list_is_not_chosen_from_but_a_single_model_is() {
        let router = ["anthropic/claude-opus", "openai/gpt-4o", "meta/llama-3-70b"];
        let pick = |listed: &[&str], local: bool| choose(&ids(listed), "gpt-4o-mini", local);
        assert_eq!(pick(&router, false), None);
        assert_eq!(pick(&router, true).as_deref(), Some("anthropic/claude-opus"));
        assert_eq!(
            pick(&["my-deployment", "text-embedding-3-small"], false).as_deref(),
            Some("my-deployment")
        );
        assert_eq!(pick(&["gpt-image-1", "gpt-4o-realtime", "llama-guard-3"], true), None);
    }

    #[test]
    fn ollamas_latest_tag_is_the_bare_name() {
        assert!(same_model("llama3.2", "llama3.2:latest"));
        assert!(same_model("llama3.2:latest", "llama3.2"));
        assert!(!same_model("llama3.2:1b", "llama3.2"));
        assert!(!same_model("gpt-4o", "gpt-4o-mini"));
    }

    #[test]
    fn the_others_are_named_up_to_a_few() {
        let listed = ids(&["a", "b", "nomic-embed-text", "c"]);
        assert_eq!(others(&listed, "b", Lang::En), "a, c");
        let many: Vec<String> = (0..10).map(|i| format!("m{i}")).collect();
        assert_eq!(others(&many, "m0", Lang::En), "m1, m2, m3, m4, m5, m6 and 3 more");
        assert_eq!(others(&ids(&["only"]), "only", Lang::En), "");
    }
}
