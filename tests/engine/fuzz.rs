//! Property-based fuzzing of every parser of untrusted input: session-file
//! frontmatter, config, agent files, BMAD manifests, stream chunks, and the
//! streaming text filters. Invariants: no panic, no hang (each case is
//! timed), and streaming filters give the same result however the text is
//! split into tokens. CI runs proptest's default 256 cases per property;
//! `PROPTEST_CASES=20000 cargo test --release --test fuzz` is the long run
//! whose figures are in the README.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use std::path::Path;
use std::time::{Duration, Instant};

use bmad_party::config::{Config, Overrides};
use bmad_party::engine::protocol::markers::MarkerFilter;
use bmad_party::source::SourceFile;
use bmad_party::text::Sanitizer;
use proptest::prelude::*;

const LIMIT: Duration = Duration::from_secs(2);

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    assert!(t.elapsed() < LIMIT, "{what} took {:?}", t.elapsed());
    r
}

/// Lines that look like the real formats, so mutations reach deep paths.
fn yamlish() -> impl Strategy<Value = String> {
    let atoms = prop_oneof![
        Just("---".to_string()),
        Just("bmad:".to_string()),
        Just("  party_mode:".to_string()),
        Just("  llm:".to_string()),
        Just("    max_rounds: 10".to_string()),
        Just("    warn_at_rounds: 12".to_string()),
        Just("    consensus: { threshold: 2, lookback: 0 }".to_string()),
        Just("    exit_triggers: [\"*exit\", \"\"]".to_string()),
        Just("id: a".to_string()),
        Just("name: \"N\"".to_string()),
        Just("principles: [a, b]".to_string()),
        Just("conversation_state:".to_string()),
        Just("  current_round: 3".to_string()),
        Just("  started_at: \"2026-01-01T00:00:00Z\"".to_string()),
        Just("workflowType: party-mode".to_string()),
        Just("<!-- party:turn kind=agent round=1 at=2026-01-01T00:00:00Z agent=a -->".to_string()),
        Just("&anchor".to_string()),
        Just("*anchor".to_string()),
        Just("<<: *anchor".to_string()),
        "[ -~]{0,20}",
        "\\PC{0,12}",
    ];
    prop::collection::vec(atoms, 0..24).prop_map(|v| v.join("\n"))
}

fn valid_session() -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.md");
    std::fs::write(
        &p,
        "---\nworkflowType: party-mode\ntopic: T\nuser_name: U\ndate: \"2026-01-01\"\nagents: [a]\nstepsCompleted: [1, 2]\nagents_loaded: true\nparty_active: true\nworkflow_completed: false\nconversation_state:\n  current_round: 1\n  started_at: \"2026-01-01T00:00:00Z\"\n  last_activity_at: \"2026-01-01T00:00:00Z\"\n  active_seconds: 3\n  max_rounds: 10\n  max_duration_minutes: 30.0\n---\n\n# T\n\n<!-- party:turn kind=facilitator round=1 at=2026-01-01T00:00:00Z -->\n**U**: hi\n\n<!-- party:turn kind=agent round=1 at=2026-01-01T00:00:00Z agent=a -->\n🏗️ **A**: hello\n",
    )
    .unwrap();
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(bmad_party::session::parse(&text, "s.md").is_ok());
    text
}

/// A valid text with a slice cut out and some text put in.
fn mutated(base: String) -> impl Strategy<Value = String> {
    let n = base.chars().count();
    (0..=n, 0..=n, "\\PC{0,8}").prop_map(move |(a, b, ins)| {
        let chars: Vec<char> = base.chars().collect();
        let (lo, hi) = (a.min(b), a.max(b));
        let mut s: String = chars[..lo].iter().collect();
        s.push_str(&ins);
        s.extend(&chars[hi..]);
        s
    })
}

proptest! {
    #[test]
    fn config_never_panics(text in prop_oneof![yamlish(), any::<String>()]) {
        timed("config", || { let _ = Config::parse(&text, "c.yaml", &Overrides::default()); });
    }

    #[test]
    fn agent_files_never_panic(body in prop_oneof![yamlish(), any::<String>()]) {
        let f = SourceFile { path: "agents/x.md".into(), text: format!("---\n{body}\n---\nbody") };
        timed("agent", || { let _ = bmad_party::roster::agents::parse_agent(&f); });
        let raw = SourceFile { path: "agents/y.md".into(), text: body };
        timed("agent", || { let _ = bmad_party::roster::agents::parse_agent(&raw); });
    }

    #[test]
    fn session_files_never_panic(text in prop_oneof![mutated(valid_session()), yamlish(), any::<String>()]) {
        timed("session", || { let _ = bmad_party::session::parse(&text, "s.md"); });
    }

    #[test]
    fn manifests_never_panic(rows in prop::collection::vec(prop::collection::vec(prop_oneof!["[ -~]{0,10}", "\\PC{0,6}", Just("\"".to_string()), Just("\"\"".to_string()), Just("&apos;".to_string()), Just("&#x1F600;".to_string()), Just("&#99999999;".to_string())], 0..14), 0..8)) {
        let mut text = String::from("name,displayName,title,icon,capabilities,role,identity,communicationStyle,principles,module,path,canonicalId\n");
        for r in rows {
            text.push_str(&r.join(","));
            text.push('\n');
        }
        timed("manifest", || { let _ = bmad_party::roster::bmad::manifest::parse(&text, "m.csv", Path::new("/nonexistent")); });
    }

    #[test]
    fn stream_chunks_never_panic(data in prop_oneof![
        any::<String>(),
        "\\{\"choices\":\\[\\{\"delta\":\\{\"content\":\"[ -~]{0,8}\"\\},\"finish_reason\":(null|\"\"|\"stop\"|1)\\}\\],\"usage\":(\\{\\}|null|\\{\"prompt_tokens\":-1\\})\\}",
    ]) {
        timed("chunk", || { let _ = bmad_party::llm::read_chunk(&data); });
    }

    #[test]
    fn sanitizer_is_split_invariant_and_leaves_no_controls(text in "(\\PC|\u{1b}|\u{9b}|\u{7}|\\[|\\]|;|[0-9])*", cuts in prop::collection::vec(0usize..64, 0..6)) {
        let whole = Sanitizer::new().push(&text);
        let chars: Vec<char> = text.chars().collect();
        let mut points: Vec<usize> = cuts.into_iter().map(|c| c % (chars.len() + 1)).collect();
        points.sort();
        let mut s = Sanitizer::new();
        let mut pieced = String::new();
        let mut last = 0;
        for p in points.into_iter().chain([chars.len()]) {
            pieced += &s.push(&chars[last..p].iter().collect::<String>());
            last = p;
        }
        prop_assert_eq!(&pieced, &whole);
        let has_control = whole.chars().any(|c| (c.is_control() && c != '\n' && c != '\t') || ('\u{80}'..='\u{9f}').contains(&c));
        prop_assert!(!has_control, "control characters left in {:?}", whole);
    }

    #[test]
    fn markers_never_show_however_the_reply_is_split(before in "[a-z <!-]{0,20}", after in "[a-z <!-]{0,20}", cuts in prop::collection::vec(0usize..64, 0..6)) {
        let marker = "<!-- END -->";
        let text = format!("{before}{marker}{after}");
        let chars: Vec<char> = text.chars().collect();
        let mut points: Vec<usize> = cuts.into_iter().map(|c| c % (chars.len() + 1)).collect();
        points.sort();
        let mut f = MarkerFilter::new(vec![marker.into()]);
        let mut shown = String::new();
        let mut last = 0;
        for p in points.into_iter().chain([chars.len()]) {
            shown += &f.push(&chars[last..p].iter().collect::<String>());
            last = p;
        }
        shown += &f.finish();
        prop_assert!(f.found(0));
        prop_assert!(!shown.contains(marker));
    }

    #[test]
    fn markdown_wraps_within_any_width(text in "(\\PC|\n|\\*|`|#|-|>|\\[|\\]){0,200}", width in 1u16..120) {
        let lines = timed("markdown", || bmad_party::frontend::tui::markdown::wrap(&bmad_party::frontend::tui::markdown::parse(&text), width));
        // A grapheme cannot be split: one wider than the area stands alone
        // (the screen clips it); everything else fits the width.
        // Measured on the output: rendering can join characters into one
        // cluster (a soft break becomes a space before a spacing mark).
        let widest = lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>())
            .flat_map(|t| unicode_segmentation::UnicodeSegmentation::graphemes(t.as_str(), true).map(unicode_width::UnicodeWidthStr::width).collect::<Vec<_>>())
            .max()
            .unwrap_or(1);
        for l in &lines {
            let w: usize = l.spans.iter().map(|s| unicode_width::UnicodeWidthStr::width(s.content.as_ref())).sum();
            prop_assert!(w <= usize::from(width).max(widest), "{} > {}", w, width);
        }
    }
}
