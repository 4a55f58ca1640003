//! The text printer's tests: what each event prints.

use super::*;

#[test]
fn a_server_outage_is_told_when_it_starts_and_every_ten_seconds() {
    let mut p = Printer::new(EventFormat::Text, Lang::En, false, false);
    let mut lines = |waits: &[u64]| {
        for &w in waits {
            p.print(&Event::ServerWaiting {
                agent: String::new(),
                waited_ms: w,
                window_ms: 60_000,
                cause: "cannot connect".into(),
            });
        }
        let text = String::from_utf8(std::mem::take(&mut p.buf)).unwrap();
        text.lines().map(|l| l.trim().to_string()).collect::<Vec<_>>()
    };
    assert_eq!(
        lines(&[30, 400, 1500, 4000, 9000, 12_500, 16_000, 21_000]),
        [
            "⏳ waiting for the server (0 s of 60 s): cannot connect",
            "⏳ waiting for the server (12 s of 60 s): cannot connect",
            "⏳ waiting for the server (21 s of 60 s): cannot connect",
        ]
    );
    // A short outage, then another: each is told when it starts.
    let told = ["⏳ waiting for the server (0 s of 60 s): cannot connect"];
    assert_eq!(lines(&[20, 300, 2500]), told);
    assert_eq!(lines(&[40, 900]), told);
}

#[test]
fn names_are_inked_only_when_asked() {
    let agent = crate::engine::AgentInfo {
        id: "architect".into(),
        name: "Ingrid".into(),
        title: "Architect".into(),
        icon: "🏗️".into(),
        color: Some("red".into()),
        model: None,
        moderator: false,
    };
    let printed = |ink: bool| {
        let mut p = Printer::new(EventFormat::Text, Lang::En, false, ink);
        p.agents = [("architect".to_string(), agent.clone())].into_iter().collect();
        p.print(&Event::AgentStarted {
            agent: "architect".into(),
            round: 1,
        });
        String::from_utf8(std::mem::take(&mut p.buf)).unwrap()
    };
    assert_eq!(printed(true), "\n\u{1b}[1;31m🏗️ Ingrid\u{1b}[0m: ");
    assert_eq!(printed(false), "\n🏗️ Ingrid: ");
}

#[test]
fn a_model_label_learnt_later_names_the_speaker_from_then_on() {
    let agent = crate::engine::AgentInfo {
        id: "architect".into(),
        name: "Ingrid".into(),
        title: "Architect".into(),
        icon: "🏗️".into(),
        color: None,
        model: None,
        moderator: false,
    };
    let mut p = Printer::new(EventFormat::Text, Lang::En, false, false);
    p.agents = [("architect".to_string(), agent)].into_iter().collect();
    p.print(&Event::AgentModels {
        agents: vec![crate::engine::AgentModel {
            id: "architect".into(),
            model: Some("listed-model".into()),
        }],
    });
    assert!(p.buf.is_empty(), "nothing printed of its own");
    p.print(&Event::AgentStarted {
        agent: "architect".into(),
        round: 1,
    });
    assert_eq!(
        String::from_utf8(std::mem::take(&mut p.buf)).unwrap(),
        "\n🏗️ Ingrid [listed-model]: "
    );
}

#[test]
fn a_retry_is_told_whole_in_the_party_language() {
    let printed = |lang: Lang| {
        let mut p = Printer::new(EventFormat::Text, lang, false, false);
        p.print(&Event::AgentRetrying {
            agent: "architect".into(),
            attempt: 2,
            delay_ms: 1500,
            cause: "503".into(),
        });
        String::from_utf8(std::mem::take(&mut p.buf)).unwrap()
    };
    assert!(
        printed(Lang::En).starts_with("  ↻ retrying #2 in 1.5 s: 503\n"),
        "{}",
        printed(Lang::En)
    );
    let zh = printed(Lang::Zh);
    assert!(zh.starts_with("  ↻ 1.5 秒后第 2 次重试: 503\n"), "{zh}");
    assert!(!zh.contains(" in "), "no English word in a Chinese line: {zh}");
}

#[test]
fn a_reply_that_streamed_nothing_prints_what_the_room_heard() {
    let mut p = Printer::new(EventFormat::Text, Lang::En, false, false);
    let message = |text: &str| Event::AgentMessage {
        agent: "critic".into(),
        name: "Critic".into(),
        icon: String::new(),
        round: 3,
        text: text.into(),
        interrupted: false,
        latency: None,
    };
    let started = Event::AgentStarted {
        agent: "critic".into(),
        round: 3,
    };
    p.print(&started);
    p.print(&message("(proposes to end the party, without a word of why)"));
    let text = String::from_utf8(std::mem::take(&mut p.buf)).unwrap();
    assert_eq!(text, "\ncritic: (proposes to end the party, without a word of why)\n");
    // A streamed reply is not printed twice.
    p.print(&started);
    p.print(&Event::AgentToken {
        agent: "critic".into(),
        text: "A point.".into(),
    });
    p.print(&message("A point."));
    let text = String::from_utf8(std::mem::take(&mut p.buf)).unwrap();
    assert_eq!(text, "\ncritic: A point.\n");
}

#[test]
fn a_message_with_no_line_of_its_own_prints_nothing_unlabelled() {
    // A take brought back (`/take N`) sends its messages with no
    // `agent_started`: no text without a speaker's name.
    let mut p = Printer::new(EventFormat::Text, Lang::En, false, false);
    p.print(&Event::AgentMessage {
        agent: "critic".into(),
        name: "Critic".into(),
        icon: String::new(),
        round: 2,
        text: "Brought back.".into(),
        interrupted: false,
        latency: None,
    });
    let text = String::from_utf8(std::mem::take(&mut p.buf)).unwrap();
    assert!(!text.contains("Brought back."), "{text:?}");
}
