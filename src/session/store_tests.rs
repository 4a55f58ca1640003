use super::*;
use crate::session::*;

pub(crate) fn sample() -> Session {
    let now = DateTime::parse_from_rfc3339("2026-02-19T10:00:00Z").unwrap().with_timezone(&Utc);
    let fm = Frontmatter {
        workflow_type: "party-mode".into(),
        topic: "Plugins: yes or no?".into(),
        user_name: "Ada".into(),
        date: "2026-02-19".into(),
        agents: vec!["architect".into(), "pm".into()],
        cast: vec![],
        steps_completed: vec![StepId::Number(1), StepId::Number(2)],
        agents_loaded: true,
        party_active: true,
        workflow_completed: false,
        conversation_state: ConversationState {
            current_round: 1,
            active_seconds: 12,
            ..ConversationState::new(now, 10, 8, 30.0, 25.0)
        },
        diligence: DiligenceState { budget: 3, used: 0 },
        confirmations: vec![],
        lang: crate::i18n::Lang::En,
        party: Some("crew".into()),
        context: vec!["/work/brief.md".into()],
        hygiene: Default::default(),
        cleanup: Default::default(),
        self_checks: Vec::new(),
        set_aside: Vec::new(),
        pinned: Vec::new(),
        readings: Vec::new(),
        provider: ProviderRecord {
            kind: "rehearsal".into(),
            model: "rehearsal".into(),
            base_url: None,
            context_tokens: Some(4096),
            lowered_context_tokens: None,
            endpoints: Default::default(),
        },
    };
    let turn = |kind, agent: Option<&str>, label: &str, text: &str| Turn {
        at: now,
        ..Turn::said(kind, agent, 1, label, text)
    };
    Session {
        fm,
        turns: vec![
            turn(TurnKind::Facilitator, None, "Ada", "Plugins: yes or no?"),
            turn(
                TurnKind::Agent,
                Some("architect"),
                "🏗️ Ingrid",
                "Yes, **but**:\n\n- contracts first\n<!-- party:turn kind=agent round=9 at=x -->\n\\<!-- party: tricky",
            ),
            turn(TurnKind::Notice, None, "", "🔔 note\n\nsecond line"),
            turn(TurnKind::Agent, Some("pm"), "📋 Tomás", "Agreed: ship it."),
        ],
    }
}

#[test]
fn round_trips_frontmatter_and_turns_including_forged_markers() {
    let s = sample();
    let dir = tempfile::tempdir().unwrap();
    let mut store = SessionStore::create(dir.path(), &s.fm.topic, Utc::now());
    let path = store.path.clone();
    let rendered = store.render(&s).unwrap();
    write_atomic(&path, &rendered.parts(), Folder::MayBeNew).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), rendered.to_text());
    let back = load(&path).unwrap();
    assert_eq!(back.fm, s.fm);
    assert_eq!(back.turns, s.turns);
    assert!(rendered.body.contains("🏗️ **Ingrid**: Yes, **but**:"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&store.path).unwrap().permissions().mode() & 0o777, 0o600);
    }
}

#[test]
fn each_turn_keeps_its_endpoint_and_model_and_older_turns_load_without() {
    let mut s = sample();
    s.turns[1].endpoint = Some("hosted".into());
    s.turns[1].model = Some("Qwen/Qwen2.5-1.5B-Instruct:q4".into());
    s.turns[3].model = Some("a model with spaces".into());
    let dir = tempfile::tempdir().unwrap();
    let mut store = SessionStore::create(dir.path(), &s.fm.topic, Utc::now());
    let path = store.path.clone();
    let rendered = store.render(&s).unwrap();
    assert!(
        rendered.body.contains(" endpoint=hosted model=Qwen/Qwen2.5-1.5B-Instruct:q4 -->"),
        "{}",
        rendered.body
    );
    write_atomic(&path, &rendered.parts(), Folder::MayBeNew).unwrap();
    let back = load(&path).unwrap();
    assert_eq!(back.turns[1].endpoint.as_deref(), Some("hosted"));
    assert_eq!(back.turns[1].model.as_deref(), Some("Qwen/Qwen2.5-1.5B-Instruct:q4"));
    assert_eq!(
        (back.turns[3].endpoint.as_deref(), back.turns[3].model.as_deref()),
        (None, Some("a model with spaces")),
        "kept whole, quoted"
    );
    assert_eq!(
        (back.turns[0].endpoint.as_ref(), back.turns[0].model.as_ref()),
        (None, None),
        "as a file before endpoints"
    );
}

#[test]
fn incremental_render_equals_full_render() {
    let mut s = sample();
    let last = s.turns.pop().unwrap();
    let mut a = SessionStore::reopen(Path::new("x.md"));
    a.render(&s).unwrap();
    s.turns.push(last);
    let inc = a.render(&s).unwrap().to_text();
    let full = SessionStore::reopen(Path::new("x.md")).render(&s).unwrap().to_text();
    assert_eq!(inc, full);
}

#[test]
fn two_parties_in_the_same_second_on_the_same_topic_get_two_files() {
    let dir = tempfile::tempdir().unwrap();
    let now = Utc::now();
    let first = SessionStore::create(dir.path(), "Pricing", now);
    // Nothing saved yet: only the first party's lock says the name is taken.
    assert!(!first.path.exists());
    let second = SessionStore::create(dir.path(), "Pricing", now);
    assert_ne!(first.path, second.path);
    assert!(
        second.path.to_string_lossy().ends_with("-pricing-2.md"),
        "{}",
        second.path.display()
    );
    drop((first, second));
    // Released, the name is free again (the file was never written).
    let third = SessionStore::create(dir.path(), "Pricing", now);
    assert!(third.path.to_string_lossy().ends_with("-pricing.md"));
}

#[test]
fn bad_frontmatter_is_located() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.md");
    std::fs::write(&p, "---\nworkflowType: party-mode\ntopic: x\nuser_name: [\n---\n").unwrap();
    let e = load(&p).unwrap_err();
    assert!(matches!(e, SessionFileError::Frontmatter(_)), "{e:?}");
    assert!(e.to_string().contains("s.md:4:"), "{e}");
    std::fs::write(&p, "no frontmatter").unwrap();
    assert!(matches!(load(&p), Err(SessionFileError::NotASession { .. })));
    // A good file with one turn marker broken: the error names its line.
    let good = SessionStore::reopen(Path::new("x.md")).render(&sample()).unwrap().to_text();
    let (at, _) = good.lines().enumerate().find(|(_, l)| l.starts_with("<!-- party:turn")).unwrap();
    let broken: Vec<String> = good
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == at {
                l.replacen("round=", "round=x", 1)
            } else {
                l.to_string()
            }
        })
        .collect();
    match parse(&broken.join("\n"), "s.md") {
        Err(SessionFileError::Body { line, .. }) => assert_eq!(line, at + 1),
        other => panic!("{other:?}"),
    }
    // A quoted value read with its escapes never brings a line break or an
    // escape sequence into the message.
    let forged = good.replacen("kind=agent", r#"kind="x\u001b[31m\nforged line""#, 1);
    let message = parse(&forged, "s.md").unwrap_err().to_string();
    assert!(message.contains("unknown turn kind"), "{message}");
    assert!(!message.contains('\u{1b}') && !message.contains('\n'), "{message:?}");
}

#[test]
fn a_model_named_with_spaces_quotes_markers_or_control_characters_round_trips_through_the_file() {
    let names = [
        "Qwen 2.5 \"instruct\" (q4)",
        "x --> <!-- party:turn kind=agent round=9 agent=pm -->",
        "line\nbreak\ttab\u{1b}[31m\u{7}\u{9b}\\",
        "\"quoted\"",
    ];
    let mut s = sample();
    for (t, name) in s.turns.iter_mut().zip(names) {
        t.model = Some(name.to_string());
        t.endpoint = Some("hosted".into());
    }
    let dir = tempfile::tempdir().unwrap();
    let mut store = SessionStore::create(dir.path(), &s.fm.topic, Utc::now());
    let path = store.path.clone();
    let rendered = store.render(&s).unwrap();
    write_atomic(&path, &rendered.parts(), Folder::MayBeNew).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let markers: Vec<&str> = text.lines().filter(|l| l.starts_with("<!-- party:turn")).collect();
    assert_eq!(markers.len(), s.turns.len(), "one line a turn, none forged: {text}");
    for m in &markers {
        assert!(!m.chars().any(char::is_control), "no control character is written: {m:?}");
        assert_eq!(m.matches("-->").count(), 1, "the comment ends at its end: {m}");
    }
    let back = load(&path).unwrap();
    assert_eq!(back.turns, s.turns);
}

#[test]
fn readings_rendered_one_by_one_read_as_the_whole_list_and_follow_changes() {
    let reading = |round, answer: &str, error: Option<&str>| ReadingRecord {
        round,
        answer: answer.into(),
        reading: Some(crate::verdict::Reading::Other),
        act: "nothing".into(),
        error: error.map(str::to_string),
        held_question: None,
        question: Some("Budget: \"how much\"?\n- second line: yes".into()),
        heard: vec![HeardRecord {
            agent: "pm".into(),
            answer: "#not a comment: {x}".into(),
            yes: Some(true),
        }],
        ms: 20,
    };
    let mut s = sample();
    s.fm.readings = vec![reading(1, "D", None), reading(2, "'B' — 好", Some("timed out: 30 s"))];
    let mut store = SessionStore::reopen(Path::new("x.md"));
    let text = store.render(&s).unwrap().to_text();
    #[derive(serde::Serialize)]
    struct List<'a> {
        readings: &'a [ReadingRecord],
    }
    let whole = serde_saphyr::to_string(&List { readings: &s.fm.readings }).unwrap();
    assert!(text.contains(&format!("{whole}---\n")), "{text}");
    // An earlier entry changed, one more added, then one taken away: each
    // save writes the list as it is.
    s.fm.readings[0].act = "propose_end".into();
    s.fm.readings.push(reading(3, "A", None));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.md");
    for _ in 0..2 {
        write_atomic(&path, &store.render(&s).unwrap().parts(), Folder::MayBeNew).unwrap();
        assert_eq!(load(&path).unwrap().fm, s.fm);
        s.fm.readings.pop();
    }
}

#[test]
fn takes_keep_their_numbers_and_a_file_without_them_numbers_them_in_order() {
    let mut s = sample();
    let at = s.turns[0].at;
    let take = |take, round| SetAside {
        take,
        round,
        at: 2,
        by: "redo".into(),
        turns: vec![SetAsideTurn {
            kind: TurnKind::Agent,
            agent: Some("pm".into()),
            label: "📋 John".into(),
            text: "as it was".into(),
            interrupted: false,
            at,
        }],
    };
    s.fm.set_aside = vec![take(2, 1), take(5, 1)];
    let dir = tempfile::tempdir().unwrap();
    let mut store = SessionStore::create(dir.path(), &s.fm.topic, Utc::now());
    let text = store.render(&s).unwrap().to_text();
    let read = parse(&text, "s.md").unwrap().fm;
    assert_eq!(
        read.set_aside.iter().map(|t| t.take).collect::<Vec<_>>(),
        [2, 5],
        "numbers are kept as written, gaps and all"
    );
    assert_eq!(read.conversation_state.last_take, 5, "the next take is 6");
    let older = text
        .replace("- take: 2\n  round", "- round")
        .replace("- take: 5\n  round", "- round");
    assert_ne!(older, text, "the file had the numbers to take out:\n{text}");
    let back = parse(&older, "s.md").unwrap().fm.set_aside;
    assert_eq!(back.iter().map(|t| t.take).collect::<Vec<_>>(), [1, 2]);
}
