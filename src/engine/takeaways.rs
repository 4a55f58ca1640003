//! Takeaways: what a party leaves for the workflow that ran it — decisions,
//! open questions, disagreements, and each agent's position in a line. The
//! three lists come from the model's notes when it wrote them under the
//! asked headings, else from the transcript itself (deterministic); the
//! positions always come from each agent's own last words.

use crate::i18n::{Lang, Room, Say};
use crate::session::{ConfirmKind, ConfirmStatus, ConfirmationRecord, Turn, TurnKind};

/// The three lists a note-taker writes.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Notes {
    pub decisions: Vec<String>,
    pub questions: Vec<String>,
    pub disagreements: Vec<String>,
}

/// The headings the note-taker is asked to use, in both languages.
const DECISIONS: &[&str] = &["decision", "决定", "决策", "结论"];
const QUESTIONS: &[&str] = &["open question", "question", "未决", "待解决", "问题"];
const DISAGREEMENTS: &[&str] = &["disagreement", "分歧", "异议"];

/// At most this many items a list: takeaways, not minutes.
const MAX_ITEMS: usize = 6;

/// The model's notes, read under their headings (`## Decisions`,
/// `**Open questions:**`, `决定：`); None when no heading was found, so the
/// transcript's own lists are used.
pub(crate) fn parse_notes(reply: &str) -> Option<Notes> {
    let mut notes = Notes::default();
    let mut current: Option<usize> = None;
    let mut headings = 0;
    for line in reply.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let item = t.strip_prefix(['-', '*', '•']).map(str::trim).or_else(|| numbered(t));
        if item.is_none() || t.starts_with("**") {
            let head = t
                .trim_start_matches('#')
                .trim()
                .trim_matches('*')
                .trim()
                .trim_end_matches([':', '：'])
                .to_lowercase();
            let which = [DECISIONS, QUESTIONS, DISAGREEMENTS]
                .iter()
                .position(|words| words.iter().any(|w| head.contains(w)) && head.chars().count() <= 24);
            if which.is_some() {
                current = which;
                headings += 1;
                continue;
            }
        }
        let (Some(i), Some(text)) = (current, item) else { continue };
        let text = text.trim_matches('*').trim();
        let none = matches!(text.to_lowercase().trim_end_matches('.'), "none" | "n/a" | "无" | "暂无" | "没有");
        let list = match i {
            0 => &mut notes.decisions,
            1 => &mut notes.questions,
            _ => &mut notes.disagreements,
        };
        if !text.is_empty() && !none && list.len() < MAX_ITEMS {
            list.push(text.to_string());
        }
    }
    (headings > 0).then_some(notes)
}

/// `1. text` / `2) text`.
fn numbered(t: &str) -> Option<&str> {
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    (digits > 0).then(|| t[digits..].strip_prefix(['.', ')'])).flatten().map(str::trim)
}

/// The lists from the transcript alone: answered decisions and agreement,
/// the agents' questions, and sentences that disagree.
pub(crate) fn from_transcript(turns: &[Turn], confirmations: &[ConfirmationRecord], disagreement_words: &[String], lang: Lang) -> Notes {
    let mut notes = Notes::default();
    for c in confirmations.iter().filter(|c| c.status == ConfirmStatus::Confirmed) {
        let what = match c.kind {
            ConfirmKind::EndProposal => Room::RanItsCourse.say(lang),
            ConfirmKind::Consensus => Room::ReachedConsensus.say(lang),
            _ => continue,
        };
        notes.decisions.push(what.to_string());
    }
    let said = turns.iter().filter(|t| t.kind == TurnKind::Agent);
    for t in turns.iter().filter(|t| t.kind == TurnKind::Question) {
        push_unique(&mut notes.questions, format!("{}: {}", name_of(&t.label), t.text.trim()));
    }
    let words: Vec<String> = disagreement_words.iter().map(|w| w.to_lowercase()).collect();
    for t in said {
        for s in sentences(&t.text) {
            let lower = s.to_lowercase();
            if s.ends_with(['?', '？']) {
                push_unique(&mut notes.questions, format!("{}: {s}", name_of(&t.label)));
            } else if words.iter().any(|w| contains_word(&lower, w)) {
                push_unique(&mut notes.disagreements, format!("{}: {s}", name_of(&t.label)));
            } else if ["we should", "let's", "we agree", "i recommend", "我们应该", "建议"]
                .iter()
                .any(|w| lower.contains(w))
            {
                push_unique(&mut notes.decisions, format!("{}: {s}", name_of(&t.label)));
            }
        }
    }
    // The latest of each: what the room came to, not where it began.
    for list in [&mut notes.decisions, &mut notes.questions, &mut notes.disagreements] {
        let extra = list.len().saturating_sub(MAX_ITEMS);
        list.drain(..extra);
    }
    notes
}

fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

fn contains_word(text: &str, word: &str) -> bool {
    if word.chars().any(crate::text::found_inside_words) {
        return text.contains(word);
    }
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// `🏗️ Ingrid` → `Ingrid`.
fn name_of(label: &str) -> &str {
    match label.split_once(' ') {
        Some((first, rest)) if !first.chars().any(char::is_alphanumeric) => rest,
        _ => label,
    }
}

/// The sentences of a reply, each on one line.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let s = crate::engine::cleanup::first_sentences(rest, 1);
        let s = if s.is_empty() { rest } else { s };
        let one = s.split_whitespace().collect::<Vec<_>>().join(" ");
        if !one.is_empty() {
            out.push(one);
        }
        rest = rest[s.len()..].trim_start();
    }
    out
}

/// Each agent's position: the first two sentences of its last reply (the
/// room's latest word), in the order the agents first spoke.
pub(crate) fn positions(turns: &[Turn]) -> Vec<(String, String)> {
    let mut order: Vec<&str> = Vec::new();
    for t in turns.iter().filter(|t| t.kind == TurnKind::Agent) {
        let id = t.agent.as_deref().unwrap_or("");
        if !order.contains(&id) {
            order.push(id);
        }
    }
    order
        .into_iter()
        .filter_map(|id| {
            let last = turns
                .iter()
                .rev()
                .find(|t| t.kind == TurnKind::Agent && t.agent.as_deref() == Some(id))?;
            let all = sentences(&last.text);
            let substance: Vec<&String> = all.iter().filter(|s| !is_pleasantry(s)).collect();
            let said: Vec<String> = if substance.is_empty() {
                all.iter().collect::<Vec<_>>()
            } else {
                substance
            }
            .into_iter()
            .take(2)
            .map(|s| s.trim_matches(['"', '“', '”']).to_string())
            .collect();
            Some((last.label.clone(), crate::text::ellipsize(&said.join(" "), 280)))
        })
        .collect()
}

/// A short courtesy (`Thank you for asking, Lin.`, `Your insights have
/// been very helpful!`): no position.
fn is_pleasantry(sentence: &str) -> bool {
    let t = sentence.trim_start_matches(['"', '“']).to_lowercase();
    const OPENINGS: &[&str] = &[
        "thank",
        "great point",
        "good point",
        "great question",
        "your insights",
        "i agree",
        "yes,",
        "absolutely",
        "indeed,",
        "谢谢",
        "感谢",
    ];
    t.split_whitespace().count() <= 12 && OPENINGS.iter().any(|o| t.starts_with(o))
}

/// What the document says around the lists.
pub(crate) struct Heading<'a> {
    pub topic: &'a str,
    pub date: &'a str,
    pub rounds: u32,
    pub session_file: &'a str,
    pub lang: Lang,
}

/// The takeaways as Markdown.
pub(crate) fn render(h: &Heading, notes: &Notes, positions: &[(String, String)]) -> String {
    let lang = h.lang;
    let topic = h.topic.replace('\n', " ");
    let mut out = Room::TakeawaysTitle { topic: &topic }.say(lang);
    let rounds = h.rounds;
    let meta = Room::RoundsHeld { rounds }.say(lang);
    out.push_str(&format!("*{} · {meta} · {}*\n\n", h.date, h.session_file));
    let none = Room::NoneListed.say(lang);
    for (title, items) in [
        (Room::Decisions.say(lang), &notes.decisions),
        (Room::OpenQuestions.say(lang), &notes.questions),
        (Room::Disagreements.say(lang), &notes.disagreements),
    ] {
        out.push_str(&format!("## {title}\n\n"));
        if items.is_empty() {
            out.push_str(&none);
            out.push('\n');
        }
        for i in items {
            out.push_str(&format!("- {}\n", i.replace('\n', " ")));
        }
        out.push('\n');
    }
    out.push_str(&format!("## {}\n\n", Room::Positions.say(lang)));
    if positions.is_empty() {
        out.push_str(&none);
        out.push('\n');
    }
    for (label, said) in positions {
        out.push_str(&format!("- **{label}**: {said}\n"));
    }
    crate::text::sanitize(&out)
}

/// Where the room stands (`/summary`), for the transcript: the same
/// lists and positions as the takeaways, without the document around them.
pub(crate) fn summary(round: u32, notes: &Notes, positions: &[(String, String)], lang: Lang) -> String {
    let mut out = Room::WhereWeAre { round }.say(lang);
    for (title, items) in [
        (Room::Decisions.say(lang), &notes.decisions),
        (Room::OpenQuestions.say(lang), &notes.questions),
        (Room::Disagreements.say(lang), &notes.disagreements),
    ] {
        if !items.is_empty() {
            out.push_str(&format!("\n**{title}**\n"));
            for i in items {
                out.push_str(&format!("- {}\n", i.replace('\n', " ")));
            }
        }
    }
    if !positions.is_empty() {
        out.push_str(&format!("\n**{}**\n", Room::Positions.say(lang)));
        for (label, said) in positions {
            out.push_str(&format!("- {label}: {said}\n"));
        }
    }
    crate::text::sanitize(out.trim_end())
}

/// A typed ask for the notes while the party goes on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OnDemand {
    /// `/summary`: where the room stands, into the transcript.
    Summary,
    /// `/takeaways [PATH]`: the takeaways file, now (None: where the party
    /// writes it, else beside the session).
    Takeaways(Option<std::path::PathBuf>),
}

/// The ask `text` types, if it is one (`/summaryx` is a message).
pub(crate) fn on_demand(text: &str) -> Option<OnDemand> {
    let text = text.trim();
    let word = |c: &str| {
        let rest = text.strip_prefix(c)?;
        (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim())
    };
    if word("/summary").is_some_and(str::is_empty) {
        return Some(OnDemand::Summary);
    }
    let rest = word("/takeaways")?;
    Some(OnDemand::Takeaways((!rest.is_empty()).then(|| std::path::PathBuf::from(rest))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_and_takeaways_are_asked_for_by_typed_commands() {
        assert_eq!(on_demand(" /summary "), Some(OnDemand::Summary));
        assert_eq!(on_demand("/takeaways"), Some(OnDemand::Takeaways(None)));
        assert_eq!(
            on_demand("/takeaways notes/pricing.md"),
            Some(OnDemand::Takeaways(Some("notes/pricing.md".into())))
        );
        for text in ["/summary of it", "/summarize", "summary", "/takeawaysx"] {
            assert_eq!(on_demand(text), None, "{text}");
        }
    }

    #[test]
    fn the_summary_lists_what_it_has_and_who_stands_where() {
        let notes = Notes {
            decisions: vec!["Start with the annual plan.".into()],
            questions: vec![],
            disagreements: vec!["Whether to discount.".into()],
        };
        let positions = [("🏗️ Ingrid".to_string(), "Price by seat.".to_string())];
        let text = summary(3, &notes, &positions, Lang::En);
        assert!(text.starts_with("📍 Where we are after round 3"), "{text}");
        assert!(text.contains("**Decisions**\n- Start with the annual plan."));
        assert!(!text.contains("Open questions"), "an empty list is left out");
        assert!(text.contains("**Positions**\n- 🏗️ Ingrid: Price by seat."));
    }

    fn turn(kind: TurnKind, agent: &str, label: &str, text: &str) -> Turn {
        Turn::said(kind, (!agent.is_empty()).then_some(agent), 1, label, text)
    }

    #[test]
    fn the_models_notes_are_read_under_their_headings() {
        let reply = "Here are the notes.\n\n## Decisions\n- Run a pilot with two teams.\n- Keep Fridays for focus.\n\n**Open questions:**\n1. Who covers support on Fridays?\n\n### Disagreements\n- none\n";
        let n = parse_notes(reply).expect("headings found");
        assert_eq!(n.decisions, ["Run a pilot with two teams.", "Keep Fridays for focus."]);
        assert_eq!(n.questions, ["Who covers support on Fridays?"]);
        assert!(n.disagreements.is_empty(), "`none` is no item");
        let zh = parse_notes("决定：\n- 先做试点\n分歧：\n- 周五谁值班\n").unwrap();
        assert_eq!((zh.decisions.len(), zh.disagreements.len()), (1, 1));
        assert_eq!(
            parse_notes("We talked a lot about pilots."),
            None,
            "no heading: the transcript decides"
        );
    }

    #[test]
    fn the_transcript_gives_questions_disagreements_and_proposals() {
        let turns = [
            turn(TurnKind::Agent, "pm", "📋 Tomás", "We should run a pilot first. Who pays for it?"),
            turn(TurnKind::Agent, "dev", "💻 Kofi", "I disagree with a pilot. It costs a month."),
            turn(TurnKind::Question, "pm", "📋 Tomás", "What is the budget?"),
        ];
        let words = vec!["disagree".to_string(), "however".into()];
        let n = from_transcript(&turns, &[], &words, Lang::En);
        assert_eq!(n.decisions, ["Tomás: We should run a pilot first."]);
        assert_eq!(n.questions, ["Tomás: What is the budget?", "Tomás: Who pays for it?"]);
        assert_eq!(n.disagreements, ["Kofi: I disagree with a pilot."]);
    }

    #[test]
    fn a_position_is_an_agents_latest_word() {
        let turns = [
            turn(
                TurnKind::Agent,
                "ux",
                "🎨 Priya",
                "\"Thank you for asking, Lin. Interview ten users first.\"",
            ),
            turn(TurnKind::Agent, "pm", "📋 Tomás", "Old view."),
            turn(TurnKind::Agent, "dev", "💻 Kofi", "Ship it. Then measure. Then more."),
            turn(TurnKind::Agent, "pm", "📋 Tomás", "New view: pilot first."),
        ];
        assert_eq!(
            positions(&turns),
            [
                ("🎨 Priya".to_string(), "Interview ten users first.".to_string()),
                ("📋 Tomás".to_string(), "New view: pilot first.".to_string()),
                ("💻 Kofi".to_string(), "Ship it. Then measure.".to_string())
            ]
        );
    }

    #[test]
    fn the_document_has_every_section_even_when_empty() {
        let h = Heading {
            topic: "Four-day week",
            date: "2026-11-24",
            rounds: 3,
            session_file: "s.md",
            lang: Lang::En,
        };
        let notes = Notes {
            decisions: vec!["Pilot for a month.".into()],
            ..Default::default()
        };
        let doc = render(&h, &notes, &[("📋 Tomás".into(), "Pilot first.".into())]);
        for s in [
            "# Takeaways: Four-day week",
            "## Decisions\n\n- Pilot for a month.",
            "## Open questions\n\n- none",
            "## Disagreements",
            "- **📋 Tomás**: Pilot first.",
        ] {
            assert!(doc.contains(s), "{s} in {doc}");
        }
    }
}
