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
