//! The question a reply puts to the facilitator: what follows the ask
//! marker, read from the reply as written or as cleanup kept it.

use super::markers::Marker;

/// The question after the ask marker: the rest of its line, or the next
/// non-empty line if nothing follows it there — a question only if it has
/// a question mark. A marker that ends the reply asks the last question
/// before it: on the line above when it opens its own line, as instructed,
/// or just before it ("Which budget?!@human"). Without a question mark it
/// asks nothing: small models also write the marker as a flourish
/// ("Yes!@human", "@human Hey Sam! …", "!?@human" after or before a plain
/// statement).
pub(crate) fn question_after_marker(raw: &str, marker: &Marker) -> Option<String> {
    let asks = |t: &str| t.contains(['?', '？']);
    let mut lines = raw.lines().map(str::trim);
    let mut above = "";
    while let Some(line) = lines.next() {
        let Some(at) = marker.find(line) else {
            if !line.is_empty() {
                above = line;
            }
            continue;
        };
        // The marker written as a name ends its sentence ("Yes, !?@human. What…"):
        // the stop after it is no part of the question.
        let rest = line[at.end..]
            .trim()
            .trim_start_matches(['.', '!', ',', '。', '！', '，'])
            .trim_start();
        let after = if rest.is_empty() {
            lines.find(|l| !l.is_empty())
        } else {
            Some(rest)
        };
        return match after {
            Some(q) => asks(q).then(|| q.to_string()),
            None if at.start == 0 => last_question(above),
            None => {
                // The marker's own marks may end the question ("…?!@human").
                let mut before = line[..at.start].trim_end().to_string();
                before.extend(line[at.start..].chars().next().filter(|c| ['?', '？'].contains(c)));
                last_question(&before)
            }
        };
    }
    None
}

/// The last sentence of `text` that ends with a question mark.
fn last_question(text: &str) -> Option<String> {
    let end = text.rfind(['?', '？'])?;
    let end = end + text[end..].chars().next().map_or(1, char::len_utf8);
    let start = text[..end]
        .trim_end_matches(['?', '？'])
        .rfind(['.', '!', '?', '。', '！', '？'])
        .map_or(0, |i| i + text[i..].chars().next().map_or(1, char::len_utf8));
    Some(text[start..end].trim().to_string()).filter(|q| q.chars().count() > 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_is_what_follows_the_ask_marker() {
        let m = Marker::new("!?@human");
        let q = |raw: &str| question_after_marker(raw, &m);
        assert_eq!(
            q("Research first.\n!?@human Which users matter most?").as_deref(),
            Some("Which users matter most?")
        );
        assert_eq!(q("Research first.\n!?@human\n\nWhich users?").as_deref(), Some("Which users?"));
        // A statement after it asks nothing (the 1.5B put the marker before its whole reply).
        assert_eq!(q("!?@human\nIt's clear that a formal orientation helps."), None);
        // Only the marker, as the last line: the question on the line above.
        assert_eq!(
            q("Research first. Which users matter most?\n!?@human").as_deref(),
            Some("Which users matter most?")
        );
        // After a plain statement it asks nothing (a lone marker after one habit, from the 1.5B).
        assert_eq!(q("One habit helps: a fixed agenda.\n!?@human"), None);
        // A spelling with a mark dropped opens a line as well.
        assert_eq!(q("!@human What is the budget?").as_deref(), Some("What is the budget?"));
        assert_eq!(q("No marker here?"), None);
    }

    #[test]
    fn a_marker_written_mid_line_asks_only_when_a_question_follows() {
        let m = Marker::new("!?@human");
        let q = |raw: &str| question_after_marker(raw, &m);
        // The local 1.5B's flourishes: no question for the facilitator.
        assert_eq!(q("Yes!@human"), None);
        assert_eq!(q("Hi!@human Ingrid has just made a valid point."), None);
        assert_eq!(q("Goodbye!@human Thank you all."), None);
        assert_eq!(q("@human Hey Sam! I thought about this."), None);
        assert_eq!(q("Which budget do we have?!@human").as_deref(), Some("Which budget do we have?"));
        assert_eq!(q("Good point. 预算是多少？!?@human").as_deref(), Some("预算是多少？"));
        assert_eq!(
            q("Hiro!@human Could you share last month's sales?").as_deref(),
            Some("Could you share last month's sales?")
        );
        // The judgement bench, s7-final: the marker as a name, a stop after it.
        assert_eq!(
            q("Yes, !?@human. What about Team Goal Tracker?").as_deref(),
            Some("What about Team Goal Tracker?")
        );
    }
}
