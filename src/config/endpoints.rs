//! `bmad.llm.endpoints`: named servers beside the default one (top-level
//! `bmad.llm`). An agent names one (`endpoint:`) to speak through it. A
//! later config layer's endpoint replaces the one of the same name whole.
//! The key itself never appears here: only the name of the environment
//! variable that holds it.

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::check::Checker;
use super::{valid_id, Endpoint};
use crate::i18n::Problem;
use crate::source::SourceError;

/// The name that always means the top-level `bmad.llm` endpoint: an agent
/// (or `--endpoint`) may name it to speak through the default server.
pub(crate) const DEFAULT_ENDPOINT: &str = "default";

type S<T> = Option<Spanned<T>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEndpoint {
    base_url: S<String>,
    model: S<Option<String>>,
    api_key_env: S<Option<String>>,
    context_tokens: S<Option<u32>>,
    reply_max_tokens: S<Option<u32>>,
    parallel_requests: S<Option<bool>>,
    prompt_layout: S<Option<super::PromptLayout>>,
    cleanup: S<Option<super::CleanupLevel>>,
}

/// The layer's `endpoints`: absent (the earlier layers' stay), null (none
/// from now on, as an explicit null resets any key), or a map.
pub(super) type RawEndpoints = Option<Spanned<Option<std::collections::BTreeMap<String, Spanned<RawEndpoint>>>>>;

/// A key that is present, null or not: serde's `Option` would read an
/// explicit null as absent, and null must reset (drop) the earlier layers'.
pub(super) fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// Checks the layer's endpoints into `into` (a name given again replaces
/// the earlier one; `endpoints: null` drops the earlier layers' ones).
pub(super) fn check(raw: &RawEndpoints, into: &mut Vec<Endpoint>, ck: &mut Checker) {
    let Some(Spanned { value: map, .. }) = raw else { return };
    let Some(map) = map else {
        into.clear();
        return;
    };
    for (name, def) in map {
        let key = format!("bmad.llm.endpoints.{name}");
        if !valid_id(name) || name.eq_ignore_ascii_case(DEFAULT_ENDPOINT) {
            ck.fail_at(&key, Some(def), Problem::EndpointName);
            continue;
        }
        if let Some(e) = endpoint(name, &key, &def.value, ck) {
            let e = Endpoint {
                line: Some(def.referenced.line()),
                ..e
            };
            match into.iter_mut().find(|x| x.name == e.name) {
                Some(old) => *old = e,
                None => into.push(e),
            }
        }
    }
}

/// Whether `v` can name an environment variable (`[A-Za-z_][A-Za-z0-9_]*`).
/// Anything else in `api_key_env` is most likely the key itself, pasted in
/// the wrong place: it is refused and never repeated.
fn variable_name(v: &str) -> bool {
    let mut chars = v.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The model an agent speaks with: its own, else (on a named endpoint,
/// `named` is Some) that endpoint's, else the default endpoint's. None: the
/// one its server lists (a named endpoint without `model`, or nothing named).
pub(crate) fn model_of(own: Option<&str>, named: Option<Option<&str>>, default: Option<&str>) -> Option<String> {
    own.or(named.unwrap_or(default)).map(str::to_string)
}

/// The longest model name a pane title or a keepsake shows; longer ones
/// are cut with an ellipsis.
const MODEL_LABEL_CHARS: usize = 28;

/// A model's name as a title shows it: the last part of a path or a
/// repository name (`Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf`
/// → `qwen2.5-1.5b-instruct-q4_k_m`), no `.gguf`, no control characters,
/// at most `MODEL_LABEL_CHARS` characters.
pub(crate) fn compact_model(model: &str) -> String {
    crate::text::ellipsize(&model_tail(model, 1), MODEL_LABEL_CHARS)
}

/// The last `parts` parts of a model's path, cleaned: no control
/// characters (a label is one line of a title: no line breaks or tabs
/// either), no `.gguf`.
fn model_tail(model: &str, parts: usize) -> String {
    let clean: String = crate::text::sanitize(model).chars().filter(|c| !c.is_control()).collect();
    let path = clean.trim().trim_end_matches('/');
    let from = path.rmatch_indices('/').nth(parts - 1).map_or(0, |(i, _)| i + 1);
    let tail = &path[from..];
    match tail.len().checked_sub(5) {
        Some(at) if tail.is_char_boundary(at) && tail[at..].eq_ignore_ascii_case(".gguf") => tail[..at].to_string(),
        _ => tail.to_string(),
    }
}

/// Each model's label (`compact_model`), one model one label, two
/// different names two (unless a server lists a name that is another's
/// numbered label, `x #2`): where names shorten alike
/// (`Meta-Llama-3.1-8B-Instruct-Q4_K_M` and `…-Q8_0` cut at the same
/// place, `bartowski/x.gguf` and `lmstudio/x.gguf`), those names are cut
/// in the middle instead, else keep one more part of their path, else are
/// numbered (` #2`, in the order given).
pub(crate) fn model_labels(models: &[&str]) -> Vec<String> {
    let mut names: Vec<&str> = Vec::new();
    for m in models {
        if !names.contains(m) {
            names.push(m);
        }
    }
    let mut labels: Vec<String> = names.iter().map(|m| compact_model(m)).collect();
    for i in 0..names.len() {
        let group: Vec<usize> = (0..names.len()).filter(|&j| labels[j] == labels[i]).collect();
        if group.len() < 2 {
            continue;
        }
        for way in 0..LABEL_WAYS {
            let tried: Vec<String> = group.iter().enumerate().map(|(k, &j)| told_apart(way, names[j], k)).collect();
            let apart = tried
                .iter()
                .enumerate()
                .all(|(k, t)| !tried[..k].contains(t) && !labels.iter().enumerate().any(|(j, l)| !group.contains(&j) && l == t));
            if apart {
                for (&j, t) in group.iter().zip(tried) {
                    labels[j] = t;
                }
                break;
            }
        }
    }
    models
        .iter()
        .map(|m| labels[names.iter().position(|n| n == m).unwrap_or(0)].clone())
        .collect()
}

/// How many ways `told_apart` has.
const LABEL_WAYS: usize = 3;

/// The label of `model`, the `k`th of names that shorten alike, the
/// `way`th way: cut in the middle; the last two parts of its path, so
/// cut; numbered after the first.
fn told_apart(way: usize, model: &str, k: usize) -> String {
    match way {
        0 => crate::text::ellipsize_middle(&model_tail(model, 1), MODEL_LABEL_CHARS),
        1 => crate::text::ellipsize_middle(&model_tail(model, 2), MODEL_LABEL_CHARS),
        _ if k == 0 => compact_model(model),
        _ => {
            let number = format!(" #{}", k + 1);
            let room = MODEL_LABEL_CHARS.saturating_sub(number.chars().count());
            format!("{}{number}", crate::text::ellipsize(&model_tail(model, 1), room))
        }
    }
}

/// What tells the room's voices apart, for each (endpoint, model) given
/// (endpoint None: the default one): None for every one when they are all
/// one voice (one endpoint, one model: nothing to tell), else the model's
/// label (`model_labels`: two models never share one), with `@endpoint`
/// where one model is spoken through more than one endpoint (two
/// machines serving `llama3.2`).
pub(crate) fn voice_labels(voices: &[(Option<&str>, &str)]) -> Vec<Option<String>> {
    let first = voices.first();
    if voices.iter().all(|v| Some(v) == first) {
        return vec![None; voices.len()];
    }
    let models: Vec<&str> = voices.iter().map(|(_, m)| *m).collect();
    let labels = model_labels(&models);
    let endpoint = |e: Option<&str>| e.unwrap_or(DEFAULT_ENDPOINT).to_string();
    voices
        .iter()
        .zip(&labels)
        .map(|((e, _), m)| {
            let shared = voices.iter().zip(&labels).any(|((o, _), n)| n == m && o != e);
            Some(if shared { format!("{m}@{}", endpoint(*e)) } else { m.clone() })
        })
        .collect()
}

/// Each endpoint's window against its reply cap (its own, else the
/// default endpoint's), once every layer is merged: a later layer may
/// change either. Located at the endpoint's definition.
pub(crate) fn check_windows(llm: &super::LlmConfig) -> Result<(), SourceError> {
    for e in &llm.endpoints {
        let Some(n) = e.context_tokens else { continue };
        if n < 1024 || n <= e.reply_max_tokens.unwrap_or(llm.reply_max_tokens) * 2 {
            let key = format!("bmad.llm.endpoints.{}.context_tokens", e.name);
            return Err(SourceError::new(e.file.clone(), e.line, &key, Problem::ContextTokens));
        }
    }
    Ok(())
}

/// One endpoint's values checked, each problem at its own line.
fn endpoint(name: &str, key: &str, d: &RawEndpoint, ck: &mut Checker) -> Option<Endpoint> {
    let Some(url) = &d.base_url else {
        ck.fail_at(&format!("{key}.base_url"), None::<&Spanned<()>>, Problem::EndpointNeedsUrl);
        return None;
    };
    let base_url = url.value.trim().to_string();
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        ck.fail_at(&format!("{key}.base_url"), Some(url), Problem::NotHttpUrl { url: base_url.clone() });
    }
    let named = |slot: &S<Option<String>>, field: &str, ck: &mut Checker| match slot {
        Some(s @ Spanned { value: Some(v), .. }) if v.trim().is_empty() => {
            ck.fail_at(&format!("{key}.{field}"), Some(s), Problem::EmptyUseNull);
            None
        }
        Some(Spanned { value: Some(v), .. }) => Some(v.trim().to_string()),
        _ => None,
    };
    let model = named(&d.model, "model", ck);
    let api_key_env = named(&d.api_key_env, "api_key_env", ck);
    if api_key_env.as_deref().is_some_and(|v| !variable_name(v)) {
        ck.fail_at(&format!("{key}.api_key_env"), d.api_key_env.as_ref(), Problem::KeyVarName);
    }
    let reply_max_tokens = d.reply_max_tokens.as_ref().and_then(|s| s.value);
    if let Some(cap) = reply_max_tokens {
        ck.at_least(&format!("{key}.reply_max_tokens"), d.reply_max_tokens.as_ref(), cap, 32);
    }
    let context_tokens = d.context_tokens.as_ref().and_then(|s| s.value);
    Some(Endpoint {
        name: name.to_string(),
        base_url,
        model,
        api_key_env,
        context_tokens,
        reply_max_tokens,
        parallel_requests: d.parallel_requests.as_ref().and_then(|s| s.value),
        prompt_layout: d.prompt_layout.as_ref().and_then(|s| s.value),
        cleanup: d.cleanup.as_ref().and_then(|s| s.value),
        file: ck.file.to_string(),
        line: None,
        key_line: d.api_key_env.as_ref().map(|s| s.referenced.line()),
    })
}

#[cfg(test)]
mod tests {
    use crate::config::{Config, Overrides, PromptLayout};

    fn parse(s: &str) -> Result<Config, crate::source::SourceError> {
        Config::parse(s, "config.yaml", &Overrides::default())
    }

    const TWO: &str = "bmad:
  llm:
    base_url: http://localhost:11434/v1
    endpoints:
      hosted: { base_url: https://api.openai.com/v1, model: gpt-4o-mini, api_key_env: OPENAI_API_KEY }
      box:
        base_url: http://192.168.1.9:8080/v1
        context_tokens: 4096
        reply_max_tokens: 200
        parallel_requests: true
        prompt_layout: room_first
";

    #[test]
    fn named_endpoints_are_read_beside_the_default_one() {
        let c = parse(TWO).unwrap();
        assert_eq!(c.llm.base_url.as_deref(), Some("http://localhost:11434/v1"));
        let names: Vec<_> = c.llm.endpoints.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["box", "hosted"]);
        let hosted = &c.llm.endpoints[1];
        assert_eq!(
            (hosted.model.as_deref(), hosted.api_key_env.as_deref(), hosted.line),
            (Some("gpt-4o-mini"), Some("OPENAI_API_KEY"), Some(5))
        );
        assert_eq!(hosted.key_line, Some(5));
        let lan = &c.llm.endpoints[0];
        assert_eq!(
            (lan.context_tokens, lan.reply_max_tokens, lan.parallel_requests),
            (Some(4096), Some(200), Some(true))
        );
        assert_eq!((lan.model.as_ref(), lan.api_key_env.as_ref()), (None, None));
        assert_eq!((lan.prompt_layout, hosted.prompt_layout), (Some(PromptLayout::RoomFirst), None));
    }

    #[test]
    fn a_speakers_prompt_layout_is_its_endpoints_else_the_defaults() {
        let mut c = parse(TWO).unwrap();
        let of = |c: &Config, e: Option<&str>| c.llm.prompt_layout_of(e);
        assert_eq!(of(&c, Some("box")), PromptLayout::RoomFirst);
        assert_eq!(of(&c, Some("hosted")), PromptLayout::PersonaFirst, "unset: the default's");
        assert_eq!(of(&c, None), PromptLayout::PersonaFirst);
        c.llm.prompt_layout = PromptLayout::RoomFirst;
        c.llm.endpoints[0].prompt_layout = Some(PromptLayout::PersonaFirst);
        assert_eq!(
            (of(&c, Some("box")), of(&c, Some("hosted")), of(&c, Some("gone"))),
            (PromptLayout::PersonaFirst, PromptLayout::RoomFirst, PromptLayout::RoomFirst)
        );
        let e =
            parse("bmad:\n  llm:\n    endpoints:\n      a:\n        base_url: http://a/v1\n        prompt_layout: sideways\n").unwrap_err();
        assert_eq!((e.key.as_str(), e.line), ("bmad.llm.endpoints.a.prompt_layout", Some(6)), "{e}");
        assert!(e.to_string().contains("sideways"), "{e}");
        let c = parse("bmad:\n  llm:\n    endpoints:\n      a: { base_url: http://a/v1, prompt_layout: null }\n").unwrap();
        assert_eq!(c.llm.endpoints[0].prompt_layout, None, "null: the default's");
    }

    #[test]
    fn a_later_layer_replaces_an_endpoint_of_the_same_name_and_keeps_the_others() {
        let base = parse(TWO).unwrap();
        let over = "bmad:\n  llm:\n    endpoints:\n      hosted: { base_url: https://api.deepseek.com/v1 }\n";
        let c = Config::parse_onto(base, over, "project.yaml", &Overrides::default()).unwrap();
        let hosted = c.llm.endpoints.iter().find(|e| e.name == "hosted").unwrap();
        assert_eq!(
            (hosted.base_url.as_str(), hosted.model.as_ref()),
            ("https://api.deepseek.com/v1", None)
        );
        assert_eq!(hosted.file, "project.yaml");
        assert_eq!(c.llm.endpoints.len(), 2);
    }

    #[test]
    fn bad_endpoints_are_located_by_field() {
        let e = parse("bmad:\n  llm:\n    endpoints:\n      hosted:\n        base_url: https://x/v1\n        api_key: sk-1\n").unwrap_err();
        assert_eq!((e.key.as_str(), e.line), ("bmad.llm.endpoints.hosted.api_key", Some(6)), "{e}");
        assert!(e.to_string().contains("unknown key `api_key`"), "{e}");
        let e = parse("bmad:\n  llm:\n    endpoints:\n      hosted:\n        base_url: localhost:8080\n").unwrap_err();
        assert_eq!((e.key.as_str(), e.line), ("bmad.llm.endpoints.hosted.base_url", Some(5)), "{e}");
        let e = parse("bmad:\n  llm:\n    endpoints:\n      hosted:\n        model: x\n").unwrap_err();
        assert_eq!(e.key, "bmad.llm.endpoints.hosted.base_url", "{e}");
        assert!(e.to_string().contains("base_url"), "{e}");
        let e = parse("bmad:\n  llm:\n    endpoints:\n      default: { base_url: http://a/v1 }\n").unwrap_err();
        assert_eq!((e.key.as_str(), e.line), ("bmad.llm.endpoints.default", Some(4)), "{e}");
        let e = parse("bmad:\n  llm:\n    endpoints:\n      a: { base_url: http://a/v1, context_tokens: 600 }\n").unwrap_err();
        assert_eq!(e.key, "bmad.llm.endpoints.a.context_tokens", "{e}");
        let e = parse("bmad:\n  llm:\n    endpoints:\n      a: { base_url: http://a/v1, api_key_env: \" \" }\n").unwrap_err();
        assert_eq!(e.key, "bmad.llm.endpoints.a.api_key_env", "{e}");
    }

    #[test]
    fn a_key_written_into_the_config_is_located_but_never_shown() {
        use crate::i18n::{Lang, Say};
        let cases = [
            (
                "bmad:\n  llm:\n    endpoints:\n      hosted:\n        base_url: https://x/v1\n        api_key: sk-live-XYZ\n",
                6,
                "bmad.llm.endpoints.hosted.api_key",
            ),
            (
                "bmad:\n  llm:\n    endpoints:\n      hosted: { base_url: https://x/v1, api_key: sk-live-XYZ }\n",
                4,
                "bmad.llm.endpoints.hosted",
            ),
            ("bmad:\n  llm:\n    model: m\n    api_key: sk-live-XYZ\n", 4, "bmad.llm.api_key"),
            (
                "bmad:\n  llm:\n    endpoints:\n      hosted:\n        base_url: https://x/v1\n        api_key_env: sk-live-XYZ\n",
                6,
                "bmad.llm.endpoints.hosted.api_key_env",
            ),
            (
                "bmad:\n  llm:\n    endpoints:\n      hosted: { base_url: https://x/v1, api_key_env: sk-live-XYZ }\n",
                4,
                "bmad.llm.endpoints.hosted.api_key_env",
            ),
            (
                "bmad:\n  llm:\n    endpoints:\n      hosted:\n        base_url: https://x/v1\n        api_key_env: [sk-live-XYZ]\n",
                6,
                "bmad.llm.endpoints.hosted.api_key_env",
            ),
        ];
        for (text, line, key) in cases {
            let e = parse(text).unwrap_err();
            let shown = format!("{e}\n{}", e.say(Lang::Zh));
            assert!(!shown.contains("XYZ"), "{shown}");
            assert_eq!(
                (e.file.as_str(), e.line, e.key.as_str()),
                ("config.yaml", Some(line), key),
                "{shown}"
            );
        }
        // Other problems under `bmad.llm` keep their lines, a count of
        // tokens is not a token.
        let e = parse("bmad:\n  llm:\n    context_tokens: 600\n").unwrap_err();
        assert!(e.snippet.is_some_and(|s| s.contains("context_tokens: 600")));
    }

    #[test]
    fn endpoints_null_in_a_later_layer_drops_the_earlier_ones() {
        let base = parse(TWO).unwrap();
        let over = "bmad:\n  llm:\n    endpoints: null\n";
        let c = Config::parse_onto(base.clone(), over, "project.yaml", &Overrides::default()).unwrap();
        assert!(c.llm.endpoints.is_empty());
        let absent = "bmad:\n  llm:\n    model: m\n";
        let c = Config::parse_onto(base, absent, "project.yaml", &Overrides::default()).unwrap();
        assert_eq!(c.llm.endpoints.len(), 2, "a layer that says nothing keeps them");
    }

    #[test]
    fn an_endpoints_window_is_checked_against_the_merged_reply_cap() {
        // Fine in its own layer (the default cap 400), too small once a
        // later layer raises the cap it falls back to.
        let base = parse("bmad:\n  llm:\n    endpoints:\n      a: { base_url: http://a/v1, context_tokens: 2048 }\n").unwrap();
        let over = "bmad:\n  llm:\n    reply_max_tokens: 1500\n";
        let c = Config::parse_onto(base, over, "project.yaml", &Overrides::default()).unwrap();
        let e = super::check_windows(&c.llm).unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.line, e.key.as_str()),
            ("config.yaml", Some(4), "bmad.llm.endpoints.a.context_tokens")
        );
        // Too small in its own layer, fine once a later one lowers the cap.
        let base = parse("bmad:\n  llm:\n    reply_max_tokens: 800\n").unwrap();
        let mid = "bmad:\n  llm:\n    endpoints:\n      a: { base_url: http://a/v1, context_tokens: 1500 }\n";
        let c = Config::parse_onto(base, mid, "user.yaml", &Overrides::default()).unwrap();
        assert!(super::check_windows(&c.llm).is_err());
        let c = Config::parse_onto(
            c,
            "bmad:\n  llm:\n    reply_max_tokens: 300\n",
            "project.yaml",
            &Overrides::default(),
        )
        .unwrap();
        assert!(super::check_windows(&c.llm).is_ok());
    }

    #[test]
    fn an_agents_model_is_its_own_else_its_endpoints_else_the_defaults() {
        use super::model_of;
        assert_eq!(model_of(Some("a"), Some(Some("e")), Some("d")).as_deref(), Some("a"));
        assert_eq!(model_of(None, Some(Some("e")), Some("d")).as_deref(), Some("e"));
        assert_eq!(
            model_of(None, Some(None), Some("d")),
            None,
            "a named endpoint's server lists its own"
        );
        assert_eq!(model_of(None, None, Some("d")).as_deref(), Some("d"));
        assert_eq!(model_of(None, None, None), None);
    }

    #[test]
    fn voices_are_told_apart_by_model_only_in_a_room_of_several() {
        use super::{compact_model, voice_labels};
        assert_eq!(compact_model("gpt-4o-mini"), "gpt-4o-mini");
        assert_eq!(
            compact_model("Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.GGUF"),
            "qwen2.5-1.5b-instruct-q4_k_m"
        );
        assert!(!compact_model("models/\u{1b}[31mred").contains('\u{1b}'), "no control characters");
        assert_eq!(compact_model("m\n🏗️ Ingrid: yes\tno"), "m🏗️ Ingrid: yesno", "one line of a title");
        assert_eq!(compact_model(&"m".repeat(40)).chars().count(), 28);
        assert_eq!(compact_model("modèles/café.gguf"), "café", "by characters");
        let one = [(None, "llama3.2"), (None, "llama3.2")];
        assert_eq!(voice_labels(&one), [None, None], "one voice: nothing to tell");
        assert!(voice_labels(&[]).is_empty());
        let two = [(None, "llama3.2"), (Some("hosted"), "gpt-4o-mini"), (None, "llama3.2")];
        let labels = voice_labels(&two);
        assert_eq!(labels[0].as_deref(), Some("llama3.2"));
        assert_eq!(labels[1].as_deref(), Some("gpt-4o-mini"));
        // One model on two machines: the endpoint tells them apart.
        let twins = [(None, "llama3.2"), (Some("lan"), "llama3.2")];
        assert_eq!(
            voice_labels(&twins),
            [Some("llama3.2@default".to_string()), Some("llama3.2@lan".to_string())]
        );
        // One endpoint, an agent with a model of its own.
        let own = [(None, "llama3.2"), (None, "qwen2.5")];
        assert_eq!(voice_labels(&own)[1].as_deref(), Some("qwen2.5"));
        // Two models that shorten alike, one of them on two endpoints.
        let alike = [(None, "a/x.gguf"), (Some("lan"), "b/x.gguf"), (Some("lan"), "a/x.gguf")];
        assert_eq!(
            voice_labels(&alike),
            [
                Some("a/x@default".to_string()),
                Some("b/x".to_string()),
                Some("a/x@lan".to_string())
            ]
        );
    }

    #[test]
    fn two_models_that_shorten_alike_are_told_apart_and_one_model_keeps_one_label() {
        use super::model_labels;
        let repo = "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF/Meta-Llama-3.1-8B-Instruct";
        let (q4, q8) = (format!("{repo}-Q4_K_M.gguf"), format!("{repo}-Q8_0.gguf"));
        let labels = model_labels(&[&q4, "llama3.2", &q8, &q4]);
        assert_eq!(
            labels,
            [
                "Meta-Llama-3.…nstruct-Q4_K_M",
                "llama3.2",
                "Meta-Llama-3.…-Instruct-Q8_0",
                "Meta-Llama-3.…nstruct-Q4_K_M"
            ],
            "cut in the middle: the quantisation shows"
        );
        assert!(labels.iter().all(|l| l.chars().count() <= 28), "{labels:?}");
        assert_eq!(
            model_labels(&["bartowski/qwen2.5.gguf", "lmstudio-community/qwen2.5.gguf", "qwen2.5"]),
            ["bartowski/qwen2.5", "lmstudio-community/qwen2.5", "qwen2.5"],
            "one more part of the path"
        );
        assert_eq!(
            model_labels(&["qwen2.5", "qwen2.5\u{7}", "phi3"]),
            ["qwen2.5", "qwen2.5 #2", "phi3"],
            "names a label cannot tell apart are numbered"
        );
        let long = "an-extremely-long-model-name-of-forty-chars";
        let numbered = model_labels(&[long, &format!("{long}\u{7}")]);
        assert_ne!(numbered[0], numbered[1]);
        assert!(
            numbered[1].ends_with(" #2") && numbered.iter().all(|l| l.chars().count() <= 28),
            "{numbered:?}"
        );
        assert_eq!(model_labels(&["gpt-4o-mini", "gpt-4o"]), ["gpt-4o-mini", "gpt-4o"], "as they were");
        assert!(model_labels(&[]).is_empty());
    }

    #[test]
    fn api_key_env_is_a_variable_name() {
        for good in ["OPENAI_API_KEY", "_K", "k2"] {
            assert!(super::variable_name(good), "{good}");
        }
        for bad in ["sk-live-1", "2KEY", "A B", "KEY\n", "", "ключ"] {
            assert!(!super::variable_name(bad), "{bad:?}");
        }
    }
}
