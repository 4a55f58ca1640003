use super::*;

/// A finished session as its file says it: a cast of two (one of them from
/// the roster only), a question and its answer, an end proposal confirmed,
/// farewells, highlights — and a reply that tries to be markup.
const SESSION: &str = r##"---
workflowType: party-mode
topic: "Pricing <the> API"
user_name: Ada
date: "2026-11-24"
agents: [architect, pm, analyst]
cast:
- { id: architect, name: Ingrid, title: Architect, icon: "🏗️", color: "#112233" }
- { id: pm, name: John, title: Product Manager, icon: "📋", color: "javascript:alert(1)" }
stepsCompleted: [1, 2, 3]
agents_loaded: true
party_active: false
workflow_completed: true
conversation_state:
  current_round: 2
  started_at: "2026-11-24T10:00:00Z"
  last_activity_at: "2026-11-24T10:05:00Z"
  active_seconds: 300
  exit_reason: agent_proposed
  max_rounds: 10
  max_duration_minutes: 30.0
confirmations:
- { request_id: req-1, kind: end_proposal, status: confirmed, agent: architect, asked_at: "2026-11-24T10:04:00.5Z" }
lang: en
provider: { kind: openai, model: qwen2.5 }
---

# 🎉 Party Mode: Pricing

<!-- party:turn kind=facilitator round=1 at=2026-11-24T10:00:00Z -->
**Ada**: How should we price the API?

<!-- party:turn kind=agent round=1 at=2026-11-24T10:01:00Z agent=architect -->
🏗️ **Ingrid**: Per call. <script>alert("x")</script> and [a trap](javascript:alert(1)) and ![tracker](https://example.com/t.png) and [docs](https://example.com/docs)

<!-- party:turn kind=agent round=1 at=2026-11-24T10:01:30Z agent=pm -->
📋 **John**: **Tiers**, with a free one.

<!-- party:turn kind=failed round=1 at=2026-11-24T10:01:40Z agent=dev -->
> ⚠️ 💻 Kofi failed: timeout

<!-- party:turn kind=question round=1 at=2026-11-24T10:02:00Z agent=pm -->
Who pays today?

<!-- party:turn kind=facilitator round=2 at=2026-11-24T10:03:00Z -->
**Ada**: Startups.

<!-- party:turn kind=agent round=2 at=2026-11-24T10:04:00Z agent=architect first_token_ms=1250 total_ms=6250 tokens=101 -->
🏗️ **Ingrid**: Then per call it is.

<!-- party:turn kind=notice round=2 at=2026-11-24T10:04:10Z -->
> ✅ Ingrid's proposal accepted.

<!-- party:turn kind=farewell round=2 at=2026-11-24T10:04:20Z agent=pm -->
📋 **John**: Thanks, Ada!

<!-- party:turn kind=farewell round=2 at=2026-11-24T10:04:30Z agent=analyst -->
📊 **Mary**: Goodbye!

<!-- party:turn kind=highlights round=2 at=2026-11-24T10:04:40Z -->
**Session Highlights:** per-call pricing.

<!-- party:turn kind=closing round=2 at=2026-11-24T10:04:50Z -->
🎊 **Party Mode Session Complete!** 🎊
"##;

fn session() -> Session {
    crate::session::parse(SESSION, "s.md").expect("the sample parses")
}

#[test]
fn sections_follow_rounds_with_the_ending_apart_and_decisions_in_place() {
    let s = session();
    let k = Keepsake::new(&s, &[]);
    let rounds: Vec<Option<u32>> = k.sections.iter().map(|s| s.round).collect();
    assert_eq!(rounds, vec![Some(1), Some(2), None]);
    let round2 = &k.sections[1].items;
    // The proposal was asked after Ingrid's reply and before the notice.
    assert!(matches!(round2[1], Item::Turn(t) if t.text.contains("per call it is")));
    assert!(matches!(round2[2], Item::Decision(_)));
    assert_eq!(k.sections[2].items.len(), 4, "two farewells, highlights, closing");
    let every: usize = k.sections.iter().map(|s| s.items.len()).sum();
    assert_eq!(every, s.turns.len() + 1);
}

#[test]
fn the_cast_comes_from_the_file_then_the_roster_then_the_label() {
    let s = session();
    let roster = [CastMember {
        id: "analyst".into(),
        name: "Mary".into(),
        title: "Business Analyst".into(),
        icon: "📊".into(),
        color: None,
    }];
    let k = Keepsake::new(&s, &roster);
    let names: Vec<(&str, &str, usize)> = k
        .cast
        .iter()
        .map(|p| (p.who.name.as_str(), p.who.title.as_str(), p.turns))
        .collect();
    assert_eq!(
        names,
        vec![
            ("Ingrid", "Architect", 2),
            ("John", "Product Manager", 3),
            ("Mary", "Business Analyst", 1)
        ]
    );
    assert!(k.persona("dev").is_none(), "a failed turn is no word of Kofi's");
    let bare = Keepsake::new(&s, &[]);
    let mary = bare.persona("analyst").expect("from the label");
    assert_eq!((mary.who.icon.as_str(), mary.who.name.as_str()), ("📊", "Mary"));
}

#[test]
fn the_page_escapes_model_text_and_fetches_nothing() {
    let s = session();
    let page = html::page(&Keepsake::new(&s, &[]));
    assert!(
        page.contains("&lt;script&gt;alert(\"x\")&lt;/script&gt;"),
        "the script is shown as text"
    );
    assert_eq!(page.matches("<script").count(), 0);
    assert!(!page.contains("javascript:"), "neither the trap link nor the bad colour survive");
    assert!(page.contains("a trap"), "the trap link keeps its words");
    assert!(page.contains("<a href=\"https://example.com/docs\">docs</a>"));
    for external in ["<img", "<link", "src=", "url(", "@import", "<iframe"] {
        assert!(!page.contains(external), "{external} in the page");
    }
    assert!(page.contains("default-src 'none'"));
    assert!(page.contains("Pricing &lt;the&gt; API"));
    assert!(page.contains(".a0 { --c: #112233; }"), "a hex colour is used as is");
    assert!(page.contains("<strong>Tiers</strong>"), "Markdown is rendered");
}

#[test]
fn the_page_holds_every_turn_persona_and_decision() {
    let s = session();
    let page = html::page(&Keepsake::new(&s, &[]));
    for needle in [
        "How should we price the API?",
        "Who pays today?",
        "asks you",
        "Startups.",
        "Then per call it is.",
        "proposal accepted",
        "🏁 Ingrid proposed ending the party — the facilitator ended the party",
        "Thanks, Ada!",
        "Goodbye!",
        "Session Highlights:",
        "Party Mode Session Complete!",
        "Product Manager",
        "Round 1",
        "Round 2",
        "Wrapping up",
        "an agent&#39;s proposal, confirmed",
    ] {
        assert!(page.contains(needle), "missing {needle}");
    }
    assert!(page.contains(">1.2 s · 20 tok/s</span>"), "a reply's timing");
    assert!(page.contains("@media print"));
    assert!(page.contains("prefers-color-scheme: dark"));
}

#[test]
fn the_transcript_is_clean_markdown() {
    let s = session();
    let md = markdown::transcript(&Keepsake::new(&s, &[]));
    assert!(md.starts_with("# 🎉 Party Mode: Pricing <the> API\n"));
    assert!(!md.contains("<!-- party:"), "no turn markers");
    assert!(!md.contains("workflowType"), "no frontmatter");
    assert!(md.contains("**The room**: 🏗️ **Ingrid** (Architect), 📋 **John** (Product Manager), 📊 **Mary**"));
    assert!(md.contains("## Round 2\n"));
    assert!(md.contains("📋 **John** (asks you): Who pays today?"));
    assert!(md.contains("> 🏁 Ingrid proposed ending the party"));
    assert!(md.contains("**Ada**: Startups."));
    assert!(md.contains("## Wrapping up\n"));
}

#[test]
fn a_chinese_session_exports_in_chinese() {
    let s = crate::session::parse(&SESSION.replace("lang: en", "lang: zh"), "s.md").unwrap();
    let k = Keepsake::new(&s, &[]);
    let page = html::page(&k);
    assert!(page.contains("<html lang=\"zh\">") && page.contains("第 2 轮") && page.contains("收尾"));
    assert!(markdown::transcript(&k).contains("2 轮"));
}

#[test]
fn the_keepsake_goes_beside_the_session_unless_told() {
    let p = Path::new("/x/party-mode/2026-11-24-pricing.md");
    assert_eq!(Format::Html.default_path(p), Path::new("/x/party-mode/2026-11-24-pricing.html"));
    assert_eq!(
        Format::Markdown.default_path(p),
        Path::new("/x/party-mode/2026-11-24-pricing.transcript.md")
    );
}

#[test]
fn a_keepsake_never_overwrites_its_session() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.md");
    std::fs::write(&path, SESSION).unwrap();
    let err = export(&path, Format::Markdown, Some(&path), |_| Vec::new()).unwrap_err();
    assert!(err.to_string().contains("overwrite"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), SESSION);
    let out = export(&path, Format::Html, None, |_| Vec::new()).unwrap();
    assert!(std::fs::read_to_string(out).unwrap().contains("Then per call it is."));
}

#[test]
fn the_roster_is_read_only_for_agents_the_saved_cast_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.md");
    std::fs::write(&path, SESSION).unwrap();
    let mut asked = None;
    export(&path, Format::Markdown, None, |lang| {
        asked = Some(lang);
        Vec::new()
    })
    .unwrap();
    assert_eq!(
        asked,
        Some(Lang::En),
        "Mary (analyst) is not in the saved cast: asked in the session's language"
    );
    // Every agent in the cast (and the failed dev turn's agent too): no roster.
    let whole = SESSION
        .replace("agents: [architect, pm, analyst]", "agents: [architect, pm, analyst, dev]")
        .replace(
            "stepsCompleted:",
            "- { id: analyst, name: Mary }\n- { id: dev, name: Kofi }\nstepsCompleted:",
        );
    std::fs::write(&path, whole).unwrap();
    export(&path, Format::Markdown, None, |_| panic!("the cast is whole")).unwrap();
}

/// The sample with each reply's endpoint and model recorded: Ingrid on a
/// hosted model whose name tries to be markup, John on the local one.
fn session_of_two_models() -> Session {
    let text = SESSION
        .replace("agent=architect -->", "agent=architect endpoint=hosted model=<b>gpt&co -->")
        .replace(
            "agent=architect first_token_ms=1250",
            "agent=architect endpoint=hosted model=<b>gpt&co first_token_ms=1250",
        )
        .replace("agent=pm -->", "agent=pm model=org/qwen2.5_q4*.gguf -->")
        .replace(
            "  max_duration_minutes: 30.0\n",
            "  max_duration_minutes: 30.0\n  endpoint_tokens: { hosted: { prompt: 3000, completion: 101 }, default: { prompt: 900, completion: 40 } }\n",
        );
    crate::session::parse(&text, "s.md").expect("the sample parses")
}

#[test]
fn a_session_of_several_models_names_each_agents_model_and_no_markup_of_it_reaches_the_page() {
    let s = session_of_two_models();
    let k = Keepsake::new(&s, &[]);
    let voice = |id: &str| k.persona(id).and_then(|p| p.voice.clone());
    assert_eq!(voice("architect").as_deref(), Some("<b>gpt&co"));
    assert_eq!(voice("pm").as_deref(), Some("qwen2.5_q4*"));
    assert_eq!(voice("analyst"), None, "its farewell recorded no model");
    let page = html::page(&k);
    assert!(!page.contains("<b>gpt"), "{page}");
    assert!(page.contains("<span class=\"model\">&lt;b&gt;gpt&amp;co</span>"), "{page}");
    assert!(
        page.contains("<span class=\"model\">qwen2.5_q4*</span>"),
        "compact: no path, no .gguf: {page}"
    );
    // The facts give each model its figures: replies, the median first
    // token, the writing speed (a reply with no latency recorded has none),
    // its endpoint's tokens.
    assert!(
        page.contains("<li>Models: <b>&lt;b&gt;gpt&amp;co (1 reply · 1.2 s · 20 tok/s · 3.1k tok); qwen2.5_q4* (940 tok)</b></li>"),
        "{page}"
    );
    let md = markdown::transcript(&k);
    assert!(
        md.contains("models: `<b>gpt&co` (1 reply · 1.2 s · 20 tok/s · 3.1k tok); `qwen2.5_q4*` (940 tok)"),
        "{md}"
    );
    assert!(md.contains("📋 **John** `qwen2.5_q4*`: **Tiers**, with a free one."), "{md}");
    assert!(md.contains("(Product Manager) `qwen2.5_q4*`"), "the room's line: {md}");
    // A session of one model (or a file from before) shows none.
    let one = session();
    assert!(!html::page(&Keepsake::new(&one, &[])).contains("class=\"model\""));
    assert!(!markdown::transcript(&Keepsake::new(&one, &[])).contains('`'));
}
