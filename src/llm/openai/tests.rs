use super::errors::error_message;
use super::wire::Body;
use super::*;
use crate::llm::{ChatMessage, Role};

#[test]
fn error_bodies_of_every_shape() {
    assert_eq!(error_message(r#"{"error":{"message":"bad model","type":"x"}}"#), "bad model");
    assert_eq!(error_message(r#"{"object":"error","message":"flat"}"#), "flat");
    assert_eq!(error_message(r#"{"error":"plain"}"#), "plain");
    assert_eq!(error_message("Too Many Requests"), "Too Many Requests");
}

#[test]
fn servers_tell_their_window_in_their_own_shapes() {
    let vllm = serde_json::json!({"object": "list", "data": [
        {"id": "other", "max_model_len": 8192},
        {"id": "qwen", "object": "model", "max_model_len": 32768}]});
    assert_eq!(window_in_models(&vllm, "qwen"), Some(32768));
    assert_eq!(
        window_in_models(&vllm, "unknown"),
        Some(8192),
        "the first one when the model is not listed"
    );
    // OpenAI's and llama-cpp-python's lists say nothing about windows.
    let openai = serde_json::json!({"object": "list", "data": [{"id": "gpt-4o", "object": "model", "owned_by": "system"}]});
    assert_eq!(window_in_models(&openai, "gpt-4o"), None);
    let llama = serde_json::json!({"default_generation_settings": {"n_ctx": 4096, "temperature": 0.8}, "total_slots": 1});
    assert_eq!(window_in_props(&llama), Some(4096));
    assert_eq!(window_in_props(&serde_json::json!({"n_ctx": 2048})), Some(2048));
    assert_eq!(window_in_props(&serde_json::json!({"detail": "Not Found"})), None);
    assert_eq!(window_in_props(&serde_json::json!({"n_ctx": 0})), None, "nonsense is ignored");
}

#[test]
fn echoed_keys_are_redacted() {
    assert_eq!(redact("bad key sk-abcdef123 here", "sk-abcdef123"), "bad key [redacted key] here");
    assert_eq!(redact("short keys are not hunted", "k"), "short keys are not hunted");
}

#[test]
fn wire_cache_reuses_equal_messages_and_remakes_changed_ones() {
    let cache = WireCache::default();
    let m = ChatMessage::new;
    let first = cache.messages(Some("a"), &[m(Role::System, "sys"), m(Role::User, "hi \"room\"\n")]);
    let second = cache.messages(
        Some("a"),
        &[m(Role::System, "sys"), m(Role::Assistant, "hi \"room\"\n"), m(Role::User, "next")],
    );
    assert!(Arc::ptr_eq(&first[0], &second[0]), "an equal message is sent as it was");
    assert_eq!(second[1].get(), r#"{"role":"assistant","content":"hi \"room\"\n"}"#);
    assert_eq!(second[2].get(), r#"{"role":"user","content":"next"}"#);
    let shorter = cache.messages(Some("a"), &[m(Role::System, "sys 2")]);
    assert_eq!(shorter.len(), 1);
    assert_eq!(shorter[0].get(), r#"{"role":"system","content":"sys 2"}"#);
    let other = cache.messages(Some("b"), &[m(Role::System, "sys")]);
    assert!(!Arc::ptr_eq(&other[0], &first[0]), "each agent has its own");
    let body = Body {
        model: "m",
        messages: &second,
        temperature: 0.5,
        stream: true,
        stream_options: None,
        max_tokens: Some(99),
        max_completion_tokens: None,
        stop: &["\nKofi:".to_string()],
        response_format: None,
        seed: None,
    };
    assert_eq!(
        serde_json::to_value(&body).unwrap(),
        serde_json::json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "assistant", "content": "hi \"room\"\n"},
                {"role": "user", "content": "next"},
            ],
            "temperature": 0.5,
            "stream": true,
            "max_tokens": 99,
            "stop": ["\nKofi:"],
        })
    );
}

#[test]
fn retry_after_seconds_and_dates() {
    assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
    assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"), Some(Duration::ZERO));
    assert_eq!(parse_retry_after("soon"), None);
}

/// Context-length refusals as servers word them (bodies as they send them).
const TOO_LONG: [(&str, &str, Option<u32>, Option<u32>); 8] = [
    (
        "OpenAI",
        r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, you requested 8334 tokens (338 in the messages, 7996 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
        Some(8192),
        Some(338),
    ),
    (
        "OpenAI, newer",
        r#"{"error":{"message":"This model's maximum context length is 4097 tokens. However, your messages resulted in 4231 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
        Some(4097),
        Some(4231),
    ),
    (
        "vLLM",
        r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 4600 tokens (4250 in the messages, 350 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#,
        Some(4096),
        Some(4250),
    ),
    (
        "vLLM, newer",
        r#"{"object":"error","message":"'max_tokens' or 'max_completion_tokens' is too large: 350. This model's maximum context length is 4096 tokens and your request has 3900 input tokens (350 > 4096 - 3900).","type":"BadRequestError","param":null,"code":400}"#,
        Some(4096),
        Some(3900),
    ),
    (
        "llama.cpp",
        r#"{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4476,"n_ctx":4096}}"#,
        Some(4096),
        Some(4476),
    ),
    (
        "llama.cpp, older",
        r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing the context size or enable context shift","type":"invalid_request_error"}}"#,
        None,
        None,
    ),
    (
        "llama-cpp-python",
        r#"{"error":{"message":"Requested tokens (5120) exceed context window of 4096","type":"internal_server_error","param":null,"code":null}}"#,
        Some(4096),
        Some(5120),
    ),
    (
        "Ollama",
        r#"{"error":{"message":"the input length exceeds the context length","type":"api_error","param":null,"code":null}}"#,
        None,
        None,
    ),
];

#[test]
fn context_length_refusals_are_read_in_every_servers_words() {
    for (server, body, window, prompt) in TOO_LONG {
        let t = errors::too_long(body).unwrap_or_else(|| panic!("{server}: not recognised"));
        assert_eq!((t.window, t.prompt), (window, prompt), "{server}");
        // As a 400 or (Ollama, llama-cpp-python) a 500: never a retry of the
        // same prompt, never mistaken for a refused request field.
        for status in [400, 500] {
            let e = classify(OpenAIError::Boxed(Box::new(HttpStatus {
                status,
                retry_after: None,
                body: body.to_string(),
            })));
            assert!(e.too_long.is_some() && !e.retryable && e.refused.is_none(), "{server} {status}");
        }
    }
    for other in [
        r#"{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","code":"unsupported_parameter"}}"#,
        r#"{"error":{"message":"rate limited","type":"rate_limit_error"}}"#,
        "<html>502 Bad Gateway</html>",
    ] {
        assert_eq!(errors::too_long(other), None, "{other}");
    }
}
