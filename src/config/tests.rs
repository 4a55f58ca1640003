use super::*;

fn parse(s: &str) -> Result<Config, SourceError> {
    Config::parse(s, "config.yaml", &Overrides::default())
}

#[test]
fn empty_file_gives_defaults() {
    assert_eq!(parse("").unwrap(), Config::default());
    assert_eq!(parse("# nothing\n").unwrap(), Config::default());
}

#[test]
fn unknown_key_is_located() {
    let e = parse("bmad:\n  party_mode:\n    max_roundz: 3\n").unwrap_err();
    assert_eq!((e.line, e.column), (Some(3), Some(5)));
    assert_eq!(e.key, "bmad.party_mode.max_roundz");
    assert!(
        e.to_string()
            .starts_with("config.yaml:3:5: `bmad.party_mode.max_roundz`: unknown key `max_roundz`; did you mean `max_rounds`?"),
        "{e}"
    );
}

#[test]
fn wrong_type_is_located() {
    let e = parse("bmad:\n  party_mode:\n    max_rounds: ten\n").unwrap_err();
    assert_eq!((e.line, e.column), (Some(3), Some(17)));
}

#[test]
fn warn_not_below_max_names_the_key() {
    let e = parse("bmad:\n  party_mode:\n    max_rounds: 5\n    warn_at_rounds: 5\n").unwrap_err();
    assert_eq!(e.key, "bmad.party_mode.warn_at_rounds");
    assert_eq!(e.line, Some(4));
    assert!(e.to_string().contains("must be below max_rounds (5)"));
    assert!(e.snippet.unwrap().contains("4 |     warn_at_rounds: 5"));
}

#[test]
fn warn_at_alias_and_cli_override() {
    let c = parse("bmad:\n  party_mode:\n    warn_at: 6\n").unwrap();
    assert_eq!(c.party.warn_at_rounds, 6);
    let o = Overrides {
        max_rounds: Some(3),
        ..Default::default()
    };
    let c = Config::parse("", "x", &o).unwrap();
    assert_eq!((c.party.max_rounds, c.party.warn_at_rounds), (3, 2));
    let c = Config::parse("bmad:\n  party_mode:\n    warn_at_rounds: 8\n", "x", &o).unwrap();
    assert_eq!(c.party.warn_at_rounds, 2);
    let c = Config::parse("bmad:\n  party_mode:\n    warn_at_rounds: 1\n", "x", &o).unwrap();
    assert_eq!(c.party.warn_at_rounds, 1);
}

#[test]
fn bad_regex_and_url() {
    let e = parse("bmad:\n  party_mode:\n    consensus: { convergence_indicator: \"(\" }\n").unwrap_err();
    assert_eq!(e.key, "bmad.party_mode.consensus.convergence_indicator");
    let e = parse("bmad:\n  llm:\n    base_url: localhost:11434\n").unwrap_err();
    assert_eq!(e.key, "bmad.llm.base_url");
    assert_eq!(e.line, Some(3));
}

#[test]
fn the_retry_window_is_read_and_bounded() {
    let c = parse("bmad:\n  llm:\n    retry_window_seconds: 120\n").unwrap();
    assert_eq!(c.llm.retry_window_seconds, 120);
    assert_eq!(Config::default().llm.retry_window_seconds, 60);
    let e = parse("bmad:\n  llm:\n    retry_window_seconds: 7200\n").unwrap_err();
    assert_eq!((e.key.as_str(), e.line), ("bmad.llm.retry_window_seconds", Some(3)));
    assert!(e.to_string().contains("3600 or less"), "{e}");
}

#[test]
fn round_modes_group_the_speakers_that_stream_together() {
    assert_eq!(RoundMode::Sequential.groups(3), [0..1, 1..2, 2..3]);
    assert_eq!(RoundMode::Hybrid.groups(3), [0..1, 1..3]);
    assert_eq!(RoundMode::Hybrid.groups(1), vec![std::ops::Range { start: 0, end: 1 }]);
    assert_eq!(RoundMode::Parallel.groups(3), vec![std::ops::Range { start: 0, end: 3 }]);
    assert!(RoundMode::Parallel.groups(0).is_empty());
}

#[test]
fn round_mode_is_read_and_a_flag_overrides_it() {
    let c = Config::parse("bmad:\n  party_mode:\n    round_mode: parallel\n", "c.yaml", &Overrides::default()).unwrap();
    assert_eq!(c.party.round_mode, Some(RoundMode::Parallel));
    let o = Overrides {
        round_mode: Some(RoundMode::Sequential),
        ..Default::default()
    };
    let c = Config::parse("bmad:\n  party_mode:\n    round_mode: parallel\n", "c.yaml", &o).unwrap();
    assert_eq!(c.party.round_mode, Some(RoundMode::Sequential));
    let c = Config::parse("bmad:\n  party_mode:\n    round_mode: null\n", "c.yaml", &Overrides::default()).unwrap();
    assert_eq!(c.party.round_mode, None, "null: by the endpoint");
    let e = Config::parse("bmad:\n  party_mode:\n    round_mode: sideways\n", "c.yaml", &Overrides::default()).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("c.yaml") && text.contains(":3") && text.contains("sideways"),
        "{text}"
    );
}

#[test]
fn warm_up_is_read_even_as_yamls_bare_off_and_on() {
    assert_eq!(Config::default().llm.warm_up, WarmUp::Auto);
    for (text, want) in [
        ("off", WarmUp::Off),
        ("on", WarmUp::On),
        ("\"off\"", WarmUp::Off),
        ("auto", WarmUp::Auto),
    ] {
        let c = parse(&format!("bmad:\n  llm:\n    warm_up: {text}\n")).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(c.llm.warm_up, want, "{text}");
    }
    let text = parse("bmad:\n  llm:\n    warm_up: sometimes\n").unwrap_err().to_string();
    assert!(text.contains(":3") && text.contains("sometimes"), "{text}");
}

#[test]
fn prompt_layout_is_read_and_a_bad_one_is_located() {
    assert_eq!(Config::default().llm.prompt_layout, PromptLayout::PersonaFirst);
    let c = parse("bmad:\n  llm:\n    prompt_layout: room_first\n").unwrap();
    assert_eq!(c.llm.prompt_layout, PromptLayout::RoomFirst);
    let text = parse("bmad:\n  llm:\n    prompt_layout: sideways\n").unwrap_err().to_string();
    assert!(
        text.contains("config.yaml") && text.contains(":3") && text.contains("sideways"),
        "{text}"
    );
}

/// The field paths of `config`'s Debug form (`party.end_detection.auto_end`),
/// each a setting: nested structs are walked, anything else is a leaf.
fn field_paths(config: &Config) -> Vec<String> {
    let text = format!("{config:#?}");
    let (mut path, mut out) = (Vec::<String>::new(), Vec::new());
    for line in text.lines().skip(1) {
        let t = line.trim();
        let depth = (line.len() - line.trim_start().len()) / 4;
        if depth == 0 {
            continue;
        }
        path.truncate(depth - 1);
        let Some((name, value)) = t.split_once(": ") else { continue };
        if !name.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
            continue;
        }
        path.push(name.to_string());
        // A struct of the config opens its fields; a list, a tuple or a
        // value is a setting whole.
        if !(value.ends_with(" {") && value.starts_with(char::is_uppercase)) {
            out.push(path.join("."));
        }
    }
    out
}

/// Every key path of a YAML mapping (`bmad.party_mode.max_rounds`).
fn key_paths(v: &serde_json::Value, at: &str, out: &mut std::collections::BTreeSet<String>) {
    if let Some(map) = v.as_object() {
        for (k, v) in map {
            let path = if at.is_empty() { k.clone() } else { format!("{at}.{k}") };
            out.insert(path.clone());
            key_paths(v, &path, out);
        }
    }
}

#[test]
fn the_built_in_config_file_states_every_key_once_and_is_the_defaults() {
    let text = include_str!("../../workflows/party-mode/config.yaml");
    let yaml: serde_json::Value = serde_saphyr::from_str(text).expect("the built-in file is YAML");
    let mut keys = std::collections::BTreeSet::new();
    key_paths(&yaml, "", &mut keys);
    let fields = field_paths(&Config::default());
    assert!(fields.len() > 40, "{fields:?}");
    let missing: Vec<String> = fields
        .iter()
        .map(|f| format!("bmad.{}", f.replacen("party.", "party_mode.", 1)))
        .filter(|k| !keys.contains(k))
        .collect();
    assert!(
        missing.is_empty(),
        "keys the built-in config.yaml does not state (they would be blank): {missing:?}"
    );
    // Read over the defaults it changes nothing: it is them.
    let read = Config::parse_onto(Config::default(), text, "config.yaml", &Overrides::default()).expect("the built-in config loads");
    assert_eq!(read, Config::default());
    assert_eq!(Config::default().party.max_rounds, 10);
    assert_eq!(
        Config::default().party.consensus.convergence_indicator.regex().as_str(),
        "agreed|consensus|exactly"
    );
}

#[test]
fn an_explicit_null_resets_what_an_earlier_layer_set() {
    let earlier = "bmad:\n  party_mode:\n    lang: zh\n    user_name: Ada\n    round_mode: parallel\n  llm:\n    base_url: http://127.0.0.1:9/v1\n    model: big\n    context_tokens: 8192\n    parallel_requests: true\n";
    let base = Config::parse(earlier, "user.yaml", &Overrides::default()).unwrap();
    assert_eq!(base.llm.model.as_deref(), Some("big"));
    let later = "bmad:\n  party_mode:\n    lang: null\n    user_name: null\n    round_mode: null\n  llm:\n    base_url: null\n    model: null\n    context_tokens: null\n    parallel_requests: null\n";
    let c = Config::parse_onto(base.clone(), later, "project.yaml", &Overrides::default()).unwrap();
    assert_eq!((c.party.lang, c.party.user_name, c.party.round_mode), (None, None, None));
    assert_eq!(
        (c.llm.base_url, c.llm.model, c.llm.context_tokens, c.llm.parallel_requests),
        (None, None, None, None)
    );
    // Absent keys keep the earlier layer's values.
    let c = Config::parse_onto(base, "bmad:\n  llm:\n    temperature: 0.5\n", "project.yaml", &Overrides::default()).unwrap();
    assert_eq!((c.llm.model.as_deref(), c.party.user_name.as_deref()), (Some("big"), Some("Ada")));
}
