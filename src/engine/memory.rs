//! What a party remembers between sessions (pure parts; the file is
//! `crate::memlog`, when it is written is `machine::remember`): the brief a
//! room reads on entry, the lines a note-taker writes at the end, and the
//! lines the transcript gives when the model cannot be asked.

use crate::engine::budget::estimate_tokens;
use crate::engine::takeaways::Notes;
use crate::memlog::{one_line, Entry, KINDS};
use crate::roster::agents::Agent;
use crate::roster::parties::answers_to;

/// At most this many lines a session adds: a memory, not minutes.
pub(crate) const MAX_LINES: usize = 6;
/// The longest line kept.
const MAX_LINE_CHARS: usize = 240;

/// The brief's lines: the newest entries that fit `tokens`, oldest first,
/// each with who it is about when that is a member of the room.
pub(crate) fn brief(entries: &[Entry], tokens: u32, agents: &[Agent]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut used = 0;
    for e in entries.iter().rev() {
        let who =
            e.by.as_deref()
                .and_then(|b| agents.iter().find(|a| answers_to(a, b)))
                .map(|a| format!(" ({})", a.name))
                .unwrap_or_default();
        let line = format!("- {}{who}", crate::text::ellipsize(&e.text, MAX_LINE_CHARS));
        let cost = estimate_tokens(&line) + 1;
        if used + cost > tokens {
            break;
        }
        used += cost;
        lines.push(line);
    }
    lines.reverse();
    lines
}

/// The entries in a note-taker's reply: lines like `- (outcome) …` or
/// `- (dynamic by Mary) …`. A line with no known kind is taken as a
/// moment; `by` is kept when it names an agent of the room (as its id); a
/// line the note-taker's own instructions (`asked`) hold is an echo of the
/// form, not a memory.
pub(crate) fn parse_reply(reply: &str, agents: &[Agent], asked: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    for line in reply.lines() {
        let t = line.trim();
        let Some(rest) = t.strip_prefix(['-', '*', '•']).map(str::trim) else {
            continue;
        };
        let parsed = crate::memlog::parse(&format!("- {rest}"));
        let Some(mut e) = parsed.into_iter().next() else { continue };
        let kind = e.kind.as_deref().map(str::to_lowercase).filter(|k| KINDS.contains(&k.as_str()));
        e.kind = Some(kind.unwrap_or_else(|| "moment".into()));
        // A line that opens with a member's name is about that member,
        // whoever the tag names (small note-takers mix the two up).
        let opens_with = agents.iter().find(|a| {
            e.text
                .strip_prefix(a.name.as_str())
                .is_some_and(|rest| rest.starts_with([' ', '\'', '’', ',', ':']))
        });
        e.by = opens_with
            .or_else(|| e.by.as_deref().and_then(|b| agents.iter().find(|a| answers_to(a, b))))
            .map(|a| a.id.clone());
        let bare = e.text.trim_matches(['*', ' ']);
        // Quotes go only when they wrap the whole line.
        let bare = match bare.strip_prefix('"').and_then(|b| b.strip_suffix('"')) {
            Some(inner) if !inner.contains('"') => inner,
            _ => bare,
        };
        // One short sentence a line was asked for; what follows it is minutes.
        let first = crate::engine::cleanup::first_sentences(bare, 1).trim();
        e.text = crate::text::ellipsize(&one_line(first), MAX_LINE_CHARS);
        let none = matches!(e.text.to_lowercase().trim_end_matches('.'), "none" | "n/a" | "无" | "暂无");
        let echo = asked.contains(e.text.trim_end_matches('.'));
        if e.text.chars().count() >= 8 && !none && !echo && !out.iter().any(|o: &Entry| same(&o.text, &e.text)) {
            out.push(e);
        }
        if out.len() == MAX_LINES {
            break;
        }
    }
    out
}

/// Lines checked against what was said (`said`: each agent turn as
/// (agent id, text)): a line that is a sentence of the transcript copied
/// whole (six words or more) is minutes, not a memory, and goes; a line
/// that quotes someone (`"…"` of four words or more) is about whoever said
/// it, and a quote nobody said is invented — that line goes.
pub(crate) fn check_against_transcript(entries: Vec<Entry>, said: &[(String, String)]) -> Vec<Entry> {
    let norm = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    let said: Vec<(&str, String)> = said.iter().map(|(id, t)| (id.as_str(), norm(t))).collect();
    entries
        .into_iter()
        .filter_map(|mut e| {
            let whole = norm(e.text.trim_end_matches(['.', '!', '。']));
            let long = whole.split_whitespace().count() >= 6 || whole.chars().filter(|&c| crate::text::is_cjk(c)).count() >= 12;
            if long && said.iter().any(|(_, t)| t.contains(&whole)) {
                return None;
            }
            let Some(quote) = quoted(&e.text).filter(|q| q.split_whitespace().count() >= 4) else {
                return Some(e);
            };
            let q = norm(quote.trim_end_matches(['.', '…', ',']));
            let who = said.iter().find(|(_, t)| t.contains(&q))?;
            e.by = Some(who.0.to_string());
            Some(e)
        })
        .collect()
}

/// The text between the first pair of double quotes (straight or curly).
fn quoted(text: &str) -> Option<&str> {
    let start = text.find(['"', '“'])?;
    let open = text[start..].chars().next()?.len_utf8();
    let rest = &text[start + open..];
    let end = rest.find(['"', '”'])?;
    Some(&rest[..end])
}

/// The same line, whatever its closing punctuation.
fn same(a: &str, b: &str) -> bool {
    let end = ['.', '!', '。', '！'];
    a.trim_end_matches(end).eq_ignore_ascii_case(b.trim_end_matches(end))
}

/// What the transcript alone gives: the decisions as outcomes, the
/// disagreements as dynamics, the open questions as callbacks — a few of
/// each — and the session itself as a moment when there is nothing else.
pub(crate) fn fallback(notes: &Notes, session_line: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let lists: [(&str, &Vec<String>, usize); 3] = [
        ("outcome", &notes.decisions, 3),
        ("dynamic", &notes.disagreements, 2),
        ("callback", &notes.questions, 1),
    ];
    for (kind, list, n) in lists {
        for item in list.iter().take(n) {
            out.push(Entry::new(kind, None, &crate::text::ellipsize(item, MAX_LINE_CHARS)));
        }
    }
    if out.is_empty() {
        out.push(Entry::new("moment", None, session_line));
    }
    out.truncate(MAX_LINES);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn room() -> Vec<Agent> {
        crate::roster::agents::load_roster(&crate::assets::embedded_agents()).unwrap()
    }

    #[test]
    fn the_brief_keeps_the_newest_lines_that_fit_in_their_order() {
        let entries: Vec<Entry> = (0..50)
            .map(|i| Entry::new("outcome", None, &format!("decision number {i} about the pricing page")))
            .collect();
        let b = brief(&entries, 60, &[]);
        assert!(b.len() >= 3 && b.len() < 10, "{b:?}");
        assert!(b.last().unwrap().contains("49"), "the newest is in: {b:?}");
        assert!(b[0] < b[1] || b[0].contains("4"), "oldest first: {b:?}");
        let cost: u32 = b.iter().map(|l| estimate_tokens(l) + 1).sum();
        assert!(cost <= 60, "{cost}");
        let agents = room();
        let mary = &agents[0];
        let e = [Entry::new("callback", Some(&mary.id), "the running joke about spreadsheets")];
        assert_eq!(
            brief(&e, 100, &agents),
            [format!("- the running joke about spreadsheets ({})", mary.name)]
        );
    }

    #[test]
    fn a_note_takers_lines_become_entries_and_nothing_else_does() {
        let agents = room();
        let name = &agents[1].name;
        let other = &agents[2].name;
        let reply = format!(
            "Here are the memories:\n- (outcome) Decided to launch in one region first. Then we argued for an hour about it.\n- (dynamic by {other}) {name} kept pushing back on scope creep\n* (quirk) The room joked about the legacy billing system\n- (callback) Kofi said \"ship it Friday\"\n- \"A whole line in quotes here\"\n- none\n- (moment) ok\n1. numbered lines are not entries\n- (outcome) Decided to launch in one region first"
        );
        let asked = "Write lines in this form:\n- (outcome) what the room decided or concluded\n";
        let reply = format!("{reply}\n- (outcome) what the room decided or concluded");
        let e = parse_reply(&reply, &agents, asked);
        assert_eq!(e.len(), 5, "the form's own example is no memory: {e:?}");
        assert_eq!(e[3].text, "Kofi said \"ship it Friday\"", "a quote inside is kept whole");
        assert_eq!(e[4].text, "A whole line in quotes here");
        assert_eq!(e[0].kind.as_deref(), Some("outcome"));
        assert_eq!(e[0].text, "Decided to launch in one region first.", "one sentence a line");
        assert_eq!(
            e[1].by.as_deref(),
            Some(agents[1].id.as_str()),
            "the member the line opens with, as its id"
        );
        assert_eq!(e[2].kind.as_deref(), Some("moment"), "an unknown kind is a moment");
        assert!(parse_reply("I cannot help with that.", &agents, asked).is_empty());
    }

    #[test]
    fn a_quote_is_credited_to_who_said_it_and_an_invented_one_goes() {
        let said = [
            ("pm".to_string(), "Ship it   Friday, and not one day later.".to_string()),
            (
                "ux".to_string(),
                "我同意。这比口头会议更加客观和透明，也更便于团队成员进行协作。".to_string(),
            ),
            ("dev".to_string(), "I need a week.".to_string()),
        ];
        let e = vec![
            Entry::new("callback", Some("dev"), "Kofi said \"ship it Friday, and not\" twice"),
            Entry::new("callback", Some("pm"), "Tomás said “we will never use Kubernetes here”"),
            Entry::new("outcome", None, "Launch on Friday"),
            Entry::new("moment", None, "The room laughed at \"a week\""),
            Entry::new("callback", Some("pm"), "Ship it Friday, and not one day later."),
            Entry::new("dynamic", None, "这比口头会议更加客观和透明，也更便于团队成员进行协作"),
        ];
        let out = check_against_transcript(e, &said);
        assert_eq!(out.len(), 3, "a copied sentence is minutes, not a memory: {out:?}");
        assert_eq!(out[0].by.as_deref(), Some("pm"), "credited to who said it");
        assert_eq!(out[1].text, "Launch on Friday");
        assert_eq!(out[2].by, None, "a short quote is not checked");
    }

    #[test]
    fn without_the_model_the_transcript_gives_a_few_lines() {
        let notes = Notes {
            decisions: vec!["Ship in March".into()],
            questions: vec!["Who owns billing?".into(), "What about EU?".into()],
            disagreements: vec!["Mary doubts the date".into()],
        };
        let e = fallback(&notes, "A session on pricing");
        let kinds: Vec<_> = e.iter().map(|e| e.kind.as_deref().unwrap()).collect();
        assert_eq!(kinds, ["outcome", "dynamic", "callback"]);
        let e = fallback(&Notes::default(), "A session on pricing");
        assert_eq!(e, vec![Entry::new("moment", None, "A session on pricing")]);
    }
}
