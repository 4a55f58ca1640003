//! The fixture rows (`tests/fixtures/cleanup/cases.toml`): each reply a
//! model wrote, streamed in pieces of 1, 3 and 100 characters through the
//! fixtures' room, must show what its row says and cut what it names.

use super::tests::{room_markers, EARLIER};
use super::*;
use crate::engine::protocol::markers::Marker;

/// What the fixtures' room said before (`cases.toml`'s header), besides `EARLIER`.
const EARLIER_ZH: &str = "离线模式对于确保用户体验的连续性和稳定性至关重要。";
const EARLIER_DE: &str = "Wir sollten mit der Migration der Kundendaten beginnen und die Zahlungsschnittstellen danach prüfen.";
const EARLIER_KO: &str = "먼저 고객 데이터를 옮기고 결제 인터페이스는 그다음에 점검해야 한다고 생각합니다.";
const EARLIER_JA: &str = "まず顧客データの移行から始めて、決済のインターフェースはその後で確認するべきだと思います。";
/// The facilitator's questions to the room.
const ASKS: &str = "Should we rewrite the billing service in Rust this quarter?";
const ASKS_ZH: &str = "我们要不要把所有日志都保存三年？";
/// Kofi's turns before, each with a question in it.
const KOFIS: &str = "A wiki is not enough. How can we prioritize the most critical tasks for the first week?";
const KOFIS_ZH: &str = "周会太长了。周报要不要改成每两周一次？";

/// A row of `tests/fixtures/cleanup/cases.toml`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    seen: String,
    reply: String,
    shown: String,
    cuts: Vec<String>,
    /// The facilitator's message the reply answers, where it matters:
    /// a list it asks for is not cut to a turn's points.
    #[serde(default)]
    asked: Option<String>,
    /// The cleanup level, where not `full`.
    #[serde(default)]
    level: Option<String>,
}

#[derive(serde::Deserialize)]
struct Cases {
    case: Vec<Case>,
}

#[test]
fn every_fixture_row_shows_what_it_should_and_cuts_what_it_names() {
    let text = include_str!("../../../tests/fixtures/cleanup/cases.toml");
    let cases: Cases = toml::from_str(text).expect("cases.toml parses");
    assert!(cases.case.len() >= 30, "{} rows", cases.case.len());
    let mut v = Voices::new(
        "Maya",
        vec![
            "Kofi".into(),
            "Priya".into(),
            "Sam".into(),
            "小林".into(),
            "Tomás".into(),
            "Facilitator".into(),
        ],
        vec!["Priya".into()],
        language::of("English"),
    )
    .runtime("Reply now as Maya only: your own words, no name label, two to five sentences.")
    .another("Kofi", EARLIER)
    .another("Kofi", EARLIER_ZH)
    .another("Kofi", EARLIER_DE)
    .another("Kofi", EARLIER_KO)
    .another("Kofi", EARLIER_JA)
    .another("Kofi", KOFIS)
    .another("Kofi", KOFIS_ZH)
    .facilitator("Sam", ASKS)
    .facilitator("Sam", ASKS_ZH);
    v.titles = vec!["Business Analyst".into(), "业务分析师".into()];
    v.hosts = vec!["Sam".into(), "Facilitator".into(), "主持人".into()];
    v.markers = Some(room_markers(Marker::new("!?@human")));
    v.points = Some(crate::config::Config::default().party.turn_points);
    let mut failed = Vec::new();
    for c in &cases.case {
        let mut v = v.clone();
        if c.asked.as_deref().is_some_and(asks_for_list) {
            v.points = None;
        }
        let level = match c.level.as_deref() {
            None | Some("full") => Level::Full,
            Some("light") => Level::Light,
            Some("off") => Level::Off,
            Some(other) => panic!("{}: no level {other:?}", c.seen),
        };
        for n in [1, 3, 100] {
            let mut h = Cleanup::new(&v, None, level);
            let chars: Vec<char> = c.reply.chars().collect();
            let mut shown = String::new();
            for piece in chars.chunks(n) {
                let step = h.push(&piece.iter().collect::<String>());
                shown.push_str(&step.show);
                if step.stop {
                    break;
                }
            }
            shown.push_str(&h.finish(false));
            let cuts: Vec<&str> = h.cuts().iter().map(|c| c.kind.code()).collect();
            if shown.trim() != c.shown.trim() || h.kept().trim() != c.shown.trim() || cuts != c.cuts {
                failed.push(format!(
                    "{} ({}), pieces of {n}: shown {shown:?}, kept {:?}, cuts {cuts:?}",
                    c.reply,
                    c.seen,
                    h.kept()
                ));
                break;
            }
        }
    }
    assert!(failed.is_empty(), "{} rows fail:\n{}", failed.len(), failed.join("\n"));
}
