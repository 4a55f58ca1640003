//! The context budget end to end on the loopback server: every prompt, with
//! room for the reply's cap, fits the window (set in the config or told by
//! the server); when the history outgrows it, older rounds leave several at
//! once behind a note that keeps the topic; between such cuts each agent's
//! prompt only grows at its end, so a server's prefix cache keeps hitting
//! (the fake server reports cached tokens as a prefix cache would).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;

use bmad_party::config::PromptLayout;

use std::sync::{Arc, Mutex};

use bmad_party::engine::budget::estimate_tokens;
use bmad_party::engine::Event;
use bmad_party::testing::{chunk, split_words, stream_events, stream_of, varied_reply, FakeOpenAi, Recorded, Reply};
use common::*;

const MESSAGES: [&str; 14] = [
    "We are choosing how to run our on-call rotation next year.",
    "What would you change first?",
    "How do we keep weekends quiet?",
    "Who should own the runbooks?",
    "What do we measure?",
    "How do we train new people?",
    "What about holidays?",
    "Which alerts can go?",
    "How do we hand over?",
    "What does a good week look like?",
    "Who decides on escalations?",
    "What tools do we need?",
    "What could go wrong?",
    "Summarise where we stand.",
];

/// A prompt as one text, roles marked, for prefix comparisons.
fn flat(r: &Recorded) -> String {
    r.body["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .map(|x| format!("<{}>{}", x["role"].as_str().unwrap_or(""), x["content"].as_str().unwrap_or("")))
                .collect()
        })
        .unwrap_or_default()
}

fn estimate(r: &Recorded) -> u32 {
    r.body["messages"]
        .as_array()
        .map(|m| m.iter().map(|x| estimate_tokens(x["content"].as_str().unwrap_or(""))).sum())
        .unwrap_or(0)
}

fn is_turn(r: &Recorded) -> bool {
    r.prompt_text()
        .contains("Note from the session, not part of the conversation: round")
}

const OMITTED: &str = "earlier round(s) are left out here to fit the model's context window";

/// A reply whose usage says what a prefix cache would have reused: the
/// longest prefix this prompt shares with any earlier one (four characters
/// a token).
fn cached_reply(seen: &Mutex<Vec<String>>, r: &Recorded, n: usize) -> Reply {
    let prompt = flat(r);
    let mut seen = seen.lock().unwrap();
    let shared = seen
        .iter()
        .map(|p| p.bytes().zip(prompt.bytes()).take_while(|(a, b)| a == b).count())
        .max()
        .unwrap_or(0);
    seen.push(prompt.clone());
    let text = if is_turn(r) {
        varied_reply(n)
    } else {
        "Thank you all, it was a good talk.".to_string()
    };
    let mut events: Vec<String> = split_words(&text).iter().map(|w| chunk(Some(w), None)).collect();
    events.push(chunk(None, Some("stop")));
    events.push(
        serde_json::json!({
            "id": "x", "object": "chat.completion.chunk", "created": 1, "model": "test-model", "choices": [],
            "usage": {"prompt_tokens": prompt.len() / 4, "completion_tokens": 40,
                      "prompt_tokens_details": {"cached_tokens": shared / 4}}
        })
        .to_string(),
    );
    stream_events(events)
}

#[tokio::test]
async fn a_long_party_fits_a_small_window_and_each_prompt_grows_by_appending_between_cuts() {
    long_party_in_a_small_window(PromptLayout::PersonaFirst).await;
}

#[tokio::test]
async fn with_the_room_first_every_speakers_prompt_extends_the_one_before() {
    long_party_in_a_small_window(PromptLayout::RoomFirst).await;
}

async fn long_party_in_a_small_window(layout: PromptLayout) {
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let s2 = seen.clone();
    let server = FakeOpenAi::start(move |r, n| cached_reply(&s2, r, n)).await;
    let mut party = Party::new(&server);
    party.config.llm.prompt_layout = layout;
    party.config.llm.context_tokens = Some(2048);
    party.config.llm.reply_max_tokens = 200;
    party.config.party.max_rounds = 30;
    party.config.party.warn_at_rounds = 28;
    let events = party.run(MESSAGES.iter().map(|m| Step::Say(m)).collect()).await;
    assert!(rounds(&events).len() >= 12, "{} rounds", rounds(&events).len());

    let reqs = server.received();
    let turns: Vec<&Recorded> = reqs.iter().filter(|r| is_turn(r)).collect();
    // Every call fits: the prompt and the reply's cap within the window.
    for r in &reqs {
        let cap = r.body["max_tokens"].as_u64().unwrap_or(0) as u32;
        assert!(estimate(r) + cap <= 2048, "{} + {cap} tokens: {}", estimate(r), flat(r));
    }
    // The history was cut, with the persona, the topic and the latest message kept.
    let cut: Vec<&&Recorded> = turns.iter().filter(|r| r.prompt_text().contains(OMITTED)).collect();
    assert!(!cut.is_empty(), "no prompt was cut");
    for r in &cut {
        assert!(r.speaker().is_some(), "the persona stays");
        assert!(
            r.prompt_text()
                .contains("The topic: We are choosing how to run our on-call rotation"),
            "the topic stays"
        );
        assert!(
            !r.prompt_text().contains("Ada: We are choosing"),
            "the opening round itself has gone"
        );
    }
    let last = turns.last().expect("turns");
    assert!(
        last.prompt_text().contains("Ada: Summarise where we stand."),
        "the latest round stays"
    );

    // Between cuts a prompt extends an earlier one: all of it up to the
    // closing part comes back unchanged. persona_first: an agent's next
    // prompt extends its own previous one (up to the turn's note);
    // room_first: every prompt extends the one before it, whoever spoke (up
    // to the persona: the room, the conversation). A cut moves the start
    // forward, to a round's opening, and never back.
    let omitted = |r: &Recorded| -> usize {
        let t = r.prompt_text();
        t.find(OMITTED)
            .map_or(0, |i| t[..i].rsplit(": ").next().unwrap().trim().parse().unwrap())
    };
    let (mut extended, mut recut) = (0, 0);
    let mut speakers = std::collections::HashSet::new();
    let mut by_agent: std::collections::HashMap<String, &Recorded> = Default::default();
    let mut before: Option<&Recorded> = None;
    for r in &turns {
        speakers.insert(speaker(r));
        let earlier = match layout {
            PromptLayout::PersonaFirst => by_agent.insert(speaker(r), r),
            PromptLayout::RoomFirst => before.replace(r),
        };
        if let Some(prev) = earlier {
            let flat_prev = flat(prev);
            let end = match layout {
                // (The note joined the last message after a blank line.)
                PromptLayout::PersonaFirst => flat_prev.rfind("(Note from the session, not part of the conversation: round"),
                PromptLayout::RoomFirst => flat_prev.rfind("\n\nYou are "),
            };
            let kept = flat_prev[..end.unwrap()].trim_end();
            if flat(r).starts_with(kept) {
                extended += 1;
            } else {
                assert!(
                    omitted(r) > omitted(prev),
                    "{layout:?}: only a cut further on changes a prompt's front:\n{kept}\n---\n{}",
                    flat(r)
                );
                recut += 1;
            }
        }
        if omitted(r) > 0 {
            let history = &r.body["messages"][1]["content"].as_str().unwrap();
            let opening = history.split_once(")\n\n").expect("the note, then the history").1;
            assert!(opening.starts_with("Ada: "), "the history resumes at a round's opening: {opening}");
        }
    }
    assert!(speakers.len() >= 3, "{speakers:?}");
    assert!(extended >= 5 && recut >= 1, "{layout:?}: {extended} extended, {recut} cut");

    // The session file: the window the prompts were fitted to, and what the
    // server's cache reused.
    let s = load(&session_file(&events));
    assert_eq!(s.fm.provider.context_tokens, Some(2048));
    let t = &s.fm.conversation_state.tokens;
    eprintln!("{layout:?}: cached {} of {} prompt tokens", t.cached, t.prompt);
    assert!(t.cached * 2 > t.prompt, "cached {} of {} prompt tokens", t.cached, t.prompt);
}

#[tokio::test]
async fn the_window_is_what_the_server_says() {
    // vLLM: `max_model_len` in the model list; llama.cpp: `n_ctx` in /props.
    for (path, body) in [
        (
            "/v1/models",
            serde_json::json!({"object": "list", "data": [{"id": "test-model", "object": "model", "max_model_len": 1800}]}),
        ),
        (
            "/props",
            serde_json::json!({"default_generation_settings": {"n_ctx": 1800}, "total_slots": 1}),
        ),
    ] {
        let server = FakeOpenAi::start(|r, n| {
            if r.prompt_text().contains("Note from the session") {
                stream_of(&format!("{} {}", varied_reply(n), varied_reply(n + 40)))
            } else {
                stream_of("Thank you, goodbye.")
            }
        })
        .await;
        server.route(path, body);
        let mut party = Party::new(&server);
        party.config.llm.reply_max_tokens = 200;
        party.config.party.max_rounds = 30;
        let events = party.run(MESSAGES[..8].iter().map(|m| Step::Say(m)).collect()).await;
        assert!(server.gets().iter().any(|g| g == path), "{path} asked: {:?}", server.gets());
        let s = load(&session_file(&events));
        assert_eq!(s.fm.provider.context_tokens, Some(1800), "{path}");
        let reqs = server.received();
        for r in &reqs {
            let cap = r.body["max_tokens"].as_u64().unwrap_or(0) as u32;
            assert!(estimate(r) + cap <= 1800, "{path}: {} + {cap}", estimate(r));
        }
        assert!(
            reqs.iter().any(|r| r.prompt_text().contains(OMITTED)),
            "{path}: the small window was used"
        );
    }
}

#[tokio::test]
async fn a_server_that_says_nothing_gets_the_local_default() {
    let server = FakeOpenAi::varied().await;
    let party = Party::new(&server);
    let events = party.run(vec![Step::Say("Where do we start?")]).await;
    let s = load(&session_file(&events));
    // 127.0.0.1: a local server, assumed to run a 4,096-token window.
    assert_eq!(s.fm.provider.context_tokens, Some(4096));
}

/// A server whose window is `window` tokens (four characters a token) and
/// which refuses a longer prompt in one vendor's words, as real servers do
/// instead of cutting it.
fn refusing(window: usize, vendor: &'static str, refused: Arc<Mutex<usize>>) -> impl Fn(&Recorded, usize) -> Reply {
    move |r, n| {
        let prompt = flat(r).len() / 4;
        let cap = r.body["max_tokens"].as_u64().unwrap_or(0) as usize;
        // OpenAI and vLLM count the reply's cap in; llama.cpp, llama-cpp-python
        // and Ollama the prompt alone.
        let wanted = if matches!(vendor, "openai" | "vllm") {
            prompt + cap
        } else {
            prompt
        };
        if wanted <= window {
            return if is_turn(r) {
                stream_of(&varied_reply(n))
            } else {
                stream_of("Thank you all, it was a good talk.")
            };
        }
        let streamed = r.body["stream"].as_bool().unwrap_or(false);
        if vendor == "llama-cpp-python" && streamed {
            // Its stream ends at once, without a word: the refusal is only
            // said to a request that is not streamed.
            *refused.lock().unwrap() += 1;
            return Reply::RawStream {
                chunks: vec![],
                done: false,
            };
        }
        if streamed {
            *refused.lock().unwrap() += 1;
        }
        let (code, body) = match vendor {
            "openai" | "llama-cpp-python" => (
                400,
                serde_json::json!({"error": {
                "message": format!("This model's maximum context length is {window} tokens. However, you requested {wanted} tokens ({prompt} in the messages, {cap} in the completion). Please reduce the length of the messages or completion."),
                "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
            ),
            "vllm" => (
                400,
                serde_json::json!({"object": "error",
                "message": format!("This model's maximum context length is {window} tokens. However, you requested {wanted} tokens ({prompt} in the messages, {cap} in the completion). Please reduce the length of the messages or completion."),
                "type": "BadRequestError", "param": null, "code": 400}),
            ),
            "llama.cpp" => (
                400,
                serde_json::json!({"error": {"code": 400,
                "message": format!("request ({prompt} tokens) exceeds the available context size ({window} tokens), try increasing it"),
                "type": "exceed_context_size_error", "n_prompt_tokens": prompt, "n_ctx": window}}),
            ),
            _ => (
                500,
                serde_json::json!({"error": {"message": "the input length exceeds the context length",
                "type": "api_error", "param": null, "code": null}}),
            ),
        };
        Reply::Status {
            code,
            headers: vec![],
            body: body.to_string(),
        }
    }
}

#[tokio::test]
async fn a_server_that_refuses_long_prompts_lowers_the_budget_and_the_party_goes_on() {
    for vendor in ["openai", "vllm", "llama.cpp", "llama-cpp-python", "ollama"] {
        let refused = Arc::new(Mutex::new(0usize));
        // A window the part of a prompt that always stays (persona, topic,
        // latest round, turn note) fits with OpenAI's counted cap, the
        // history not: below it no budget could keep a turn from failing.
        let server = FakeOpenAi::start(refusing(1200, vendor, refused.clone())).await;
        let mut party = Party::new(&server);
        // The config claims a far larger window than the server has.
        party.config.llm.context_tokens = Some(32_768);
        party.config.llm.reply_max_tokens = 200;
        party.config.party.max_rounds = 30;
        party.config.party.warn_at_rounds = 28;
        let events = party.run(MESSAGES[..10].iter().map(|m| Step::Say(m)).collect()).await;
        let failed: Vec<&Event> = events.iter().filter(|e| matches!(e, Event::AgentFailed { .. })).collect();
        assert!(failed.is_empty(), "{vendor}: no turn fails: {failed:?}");
        assert!(rounds(&events).len() >= 10, "{vendor}: {} rounds", rounds(&events).len());
        let refusals = *refused.lock().unwrap();
        assert!(
            (1..=2).contains(&refusals),
            "{vendor}: refused {refusals} times; once lowered, the prompts fit"
        );
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::Notice { text, .. } if text.contains("refused a prompt as too long"))),
            "{vendor}: the facilitator is told"
        );
        // The lowered budget is the session's: saved, and what the prompts
        // were fitted to since.
        let s = load(&session_file(&events));
        let lowered = s.fm.provider.lowered_context_tokens.expect("saved");
        assert!(lowered < 32_768, "{vendor}: {lowered}");
        assert_eq!(s.fm.provider.context_tokens, Some(lowered), "{vendor}");
        assert!(
            s.fm.conversation_state.exit_reason.as_deref() != Some("unreachable"),
            "{vendor}: the party was never unreachable"
        );
    }
}

#[tokio::test]
async fn a_resumed_session_keeps_the_window_its_server_taught() {
    let refused = Arc::new(Mutex::new(0usize));
    let server = FakeOpenAi::start(refusing(1100, "llama.cpp", refused.clone())).await;
    let mut party = Party::new(&server);
    party.config.llm.context_tokens = Some(32_768);
    party.config.llm.reply_max_tokens = 200;
    party.config.party.max_rounds = 30;
    party.config.party.warn_at_rounds = 28;
    let mut script: Vec<Step> = MESSAGES[..6].iter().map(|m| Step::Say(m)).collect();
    script.push(Step::Cmd(bmad_party::engine::Command::Quit));
    let events = party.run(script).await;
    let first = *refused.lock().unwrap();
    assert!(first >= 1, "the first sitting met the window");
    let file = session_file(&events);
    let lowered = load(&file).fm.provider.lowered_context_tokens.expect("saved");

    let mut again = Party::new(&server);
    again.dir = party.dir;
    again.config = party.config.clone();
    again.resume = Some(file.clone());
    let more = again.run(MESSAGES[6..10].iter().map(|m| Step::Say(m)).collect()).await;
    assert_eq!(*refused.lock().unwrap(), first, "no prompt refused after the resume");
    assert!(rounds(&more).len() >= 4);
    assert_eq!(load(&file).fm.provider.context_tokens, Some(lowered));
}

/// While the facilitator reads the replies, the next round's speakers'
/// prompts are read ahead (one-token calls, the local server's idle time):
/// when the room goes on by itself those are exactly the speakers, and each
/// one's call extends what was read, so a server that keeps the state reads
/// only the turn's note. A facilitator whose next line is already there
/// gets no read-ahead.
#[tokio::test]
async fn while_the_facilitator_reads_the_next_speakers_prompts_are_read_ahead() {
    let server = FakeOpenAi::varied().await;
    let party = Party::new(&server);
    let events = party
        .run(vec![
            Step::Say("How should we run on-call next year?"),
            Step::Wait(std::time::Duration::from_millis(3500)),
            Step::Cmd(bmad_party::engine::Command::Continue),
            Step::Say("And holidays?"),
        ])
        .await;
    let rounds = rounds(&events);
    assert_eq!(rounds.len(), 3);
    let aheads = server.read_aheads();
    for r in &aheads {
        assert_eq!(r.body["max_tokens"], 1);
        let text = r.prompt_text();
        assert!(text.contains("How should we run on-call") && !text.contains("And holidays"));
        assert!(!text.contains("Note from the session"), "no turn's note: {text}");
    }
    // Round 2's speakers, and only they, were read ahead, each once.
    let second: Vec<Recorded> = server
        .received()
        .into_iter()
        .filter(|r| is_turn(r) && r.prompt_text().contains("round 2."))
        .collect();
    let mut read: Vec<String> = aheads.iter().map(speaker).collect();
    let mut spoke: Vec<String> = second.iter().map(speaker).collect();
    read.sort();
    spoke.sort();
    assert!(spoke.len() >= 2);
    assert_eq!(read, spoke, "the speakers of the round that came, and none in the other pauses");
    // Each one's call opens with what was read ahead for it.
    for r in &second {
        let ahead = aheads.iter().find(|a| speaker(a) == speaker(r)).expect("read ahead");
        assert!(flat(r).starts_with(&flat(ahead)), "{} reads on from its read-ahead", speaker(r));
    }
}

#[tokio::test]
async fn nothing_is_read_ahead_when_warm_up_is_off() {
    let server = FakeOpenAi::varied().await;
    let mut party = Party::new(&server);
    party.config.llm.warm_up = bmad_party::config::WarmUp::Off;
    party
        .run(vec![
            Step::Say("How should we run on-call next year?"),
            Step::Wait(std::time::Duration::from_millis(2500)),
            Step::Say("What about weekends?"),
        ])
        .await;
    assert!(server.read_aheads().is_empty());
}

#[tokio::test]
async fn a_named_endpoints_lowered_window_is_its_own_kept_and_resumed() {
    let refused = Arc::new(Mutex::new(0usize));
    let named = FakeOpenAi::start(refusing(1100, "llama.cpp", refused.clone())).await;
    let default = FakeOpenAi::varied().await;
    let on_named = |party: &mut Party| {
        party.config.llm.context_tokens = Some(32_768);
        party.config.llm.reply_max_tokens = 200;
        party.config.party.max_rounds = 30;
        party.config.party.warn_at_rounds = 28;
        party.config.llm.endpoints = vec![bmad_party::config::Endpoint {
            // The config claims a far larger window than the server has.
            context_tokens: Some(32_768),
            ..endpoint("box", &named, "box-model")
        }];
        let settings = bmad_party::llm::OpenAiSettings {
            model: "box-model".into(),
            ..settings(&named)
        };
        party.endpoints = vec![("box".into(), provider_with(settings))];
        for a in &mut party.agents {
            a.endpoint = Some("box".into());
        }
    };
    let mut party = Party::new(&default);
    on_named(&mut party);
    let mut script: Vec<Step> = MESSAGES[..6].iter().map(|m| Step::Say(m)).collect();
    script.push(Step::Cmd(bmad_party::engine::Command::Quit));
    let events = party.run(script).await;
    let first = *refused.lock().unwrap();
    assert!(first >= 1, "the first sitting met the named server's window");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Notice { text, .. } if text.contains("The server of endpoint `box` refused a prompt"))),
        "the facilitator is told which server"
    );
    let file = session_file(&events);
    let p = load(&file).fm.provider;
    assert_eq!(p.lowered_context_tokens, None, "the default server taught nothing");
    let kept = &p.endpoints["box"];
    let lowered = kept.lowered_context_tokens.expect("saved for the endpoint");
    assert!(lowered < 32_768, "{lowered}");
    assert_eq!((kept.model.as_str(), kept.base_url.clone()), ("box-model", Some(named.base_url())));

    let mut again = Party::new(&default);
    on_named(&mut again);
    again.dir = party.dir;
    again.resume = Some(file.clone());
    let more = again.run(MESSAGES[6..10].iter().map(|m| Step::Say(m)).collect()).await;
    assert_eq!(*refused.lock().unwrap(), first, "no prompt refused after the resume");
    assert!(rounds(&more).len() >= 4);
    assert_eq!(load(&file).fm.provider.endpoints["box"].lowered_context_tokens, Some(lowered));
}
