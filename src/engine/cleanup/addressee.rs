//! Whom an agent's question to the facilitator is for. One that calls on
//! an agent, or that proposes an idea or asks for an opinion on the topic
//! ("Could we start with a pilot?", "What do you think about this?"), is the
//! room's: the round goes on and the question stays in its reply's words.
//! One that asks for a fact (how many, when, where, the budget:
//! `facts_question_words`) is the facilitator's however it is put ("How
//! many people should we plan for?"). The rest stop the round and wait, as
//! before. The words are data (`phrases/*.toml`: `room_question_openings`,
//! `room_question_words`, `facts_question_words`).

use super::phrases::PHRASES;
use crate::engine::stated::find_word;
use crate::text::is_cjk;

/// Whether `question` is for the room rather than the facilitator; `names`
/// are the agents' (the speaker's among them).
pub(crate) fn for_the_room<'a>(question: &str, names: impl IntoIterator<Item = &'a str>) -> bool {
    for_an_agent(question, names) || asks_the_room(question)
}

/// A question that proposes or asks for an opinion: it opens with a
/// `room_question_openings` phrase or holds a `room_question_words` one in
/// its first sentence, and asks for no fact (`facts_question_words`).
fn asks_the_room(question: &str) -> bool {
    let q = question.trim_start_matches([':', '：', ' ', '*']).to_lowercase().replace('’', "'");
    let first = q.find(['?', '？', '.', '。', '!', '！']).map_or(q.as_str(), |i| &q[..i]);
    let opens = PHRASES.room_question_openings.iter().any(|o| {
        q.strip_prefix(o.as_str())
            .is_some_and(|rest| o.chars().any(is_cjk) || !rest.starts_with(char::is_alphanumeric))
    });
    let opinion = find_word(first, &PHRASES.room_question_words).is_some();
    (opens || opinion) && find_word(first, &PHRASES.facts_question_words).is_none()
}

/// A question that calls on an agent, opening with its name ("Amara,
/// should we…") or naming it after a comma in its first sentence ("How
/// about you, Maya?"): for the room, which goes on, not for the
/// facilitator. The speaker among the names: asking itself is no question
/// for the facilitator either.
fn for_an_agent<'a>(question: &str, names: impl IntoIterator<Item = &'a str>) -> bool {
    let q = question.trim_start_matches([':', '：', ' ', '*']).to_lowercase();
    let q = ["hey ", "hi "].iter().find_map(|g| q.strip_prefix(g)).unwrap_or(&q);
    // The first sentence: where a question says whom it asks.
    let first = q.find(['?', '？', '.', '。', '!', '！']).map_or(q, |i| &q[..i]);
    names.into_iter().map(str::to_lowercase).any(|name| {
        let opens = q
            .strip_prefix(name.as_str())
            .is_some_and(|rest| rest.starts_with([',', '，', '、']) || rest.starts_with(" and "));
        // `…, Maya` closing the sentence, or `…, Maya, …` within it.
        let called = [", ", "，"].iter().any(|comma| {
            let called = format!("{comma}{name}");
            first.match_indices(called.as_str()).any(|(i, _)| {
                let rest = &first[i + called.len()..];
                rest.is_empty() || rest.starts_with([',', '，'])
            })
        });
        opens || called
    })
}

#[cfg(test)]
mod tests {
    use super::{for_an_agent, for_the_room};

    #[test]
    fn a_question_calling_on_an_agent_is_for_the_room() {
        // The speaker among them: asking itself is no question for the facilitator either.
        let names = ["Amara", "Kofi", "Priya"];
        for q in [
            ": Amara, should we discuss the risks first?",
            "Kofi, what would the platform cost?",
            "Hey kofi, any numbers?",
            "Amara and Kofi, who takes the website?",
            "阿玛拉，你怎么看？",
            "Priya, should our city library lend tools as well as books?",
            "How about you, Priya? Have you ever noticed how people feel more connected in a room?",
            "What do you think, Kofi, should we wait?",
            "你觉得呢，阿玛拉？",
        ] {
            assert!(for_an_agent(q, names.iter().copied().chain(["阿玛拉"])), "{q}");
        }
        for q in [
            "What budget do we have?",
            "Facilitator, which shop opens first?",
            "Amara's plan needs a budget: how much can we spend?",
            "Kofimart or Shopify, which do you use?",
            "We asked Kofi. How many people will come, Sam?",
            "Should we go with Amara's plan, or wait?",
            "How about the budget, Kofimart included?",
        ] {
            assert!(!for_an_agent(q, names), "{q}");
        }
    }

    #[test]
    fn a_proposal_or_a_call_for_opinions_is_for_the_room_a_question_for_facts_is_not() {
        let names = ["Amara"];
        for q in [
            "Could we consider Rust's performance benefits for our backend?",
            "What do you think about that idea?",
            "What about using \"Team Plan Keeper\"? Is this more fitting?",
            "小林，你觉得我们如何命名这个工具？",
            "我们是不是应该先做一个预热视频？",
            // Seen on the 1.5B (s20-asks-final): a proposal, and the facilitator's view asked for.
            "Can we agree to establish such guidelines for laptop usage during meetings?",
            "你有没有具体的需求和建议？",
        ] {
            assert!(for_the_room(q, names), "{q}");
        }
        for q in [
            "How many people will be attending the offsite?",
            "What salary range can we offer, and is the role remote?",
            "Could you tell us the budget?",
            "具体是哪一天？",
            // Put as a proposal or an opinion, still a question for a fact.
            "How many people should we plan for?",
            "When should we launch?",
            "Could we get the budget?",
            "你觉得大概多少人参加？",
            "我们是否有预算上限？",
            "外包的预算你有什么建议上限吗？",
            // A phrase is a whole word: "could we" is not "could weather".
            "Could weather delay the move, in your experience?",
        ] {
            assert!(!for_the_room(q, names), "{q}");
        }
    }

    /// The labelled questions of the judgement bench (`benches/judgement/questions.json`:
    /// questions the bench's parties asked, and questions written for other topics):
    /// no question for facts is taken from the facilitator, and most of the others are.
    #[test]
    fn the_benchs_labelled_questions_keep_every_question_for_facts() {
        #[derive(serde::Deserialize)]
        struct Row {
            question: String,
            asks: String,
        }
        let rows: Vec<Row> =
            serde_json::from_str(include_str!("../../../benches/judgement/questions.json")).expect("questions.json parses");
        let names = ["Maya", "Kofi", "Priya", "Lena", "Tomás", "Hiro", "Ingrid"];
        let lost: Vec<&str> = rows
            .iter()
            .filter(|r| r.asks == "F" && for_the_room(&r.question, names))
            .map(|r| r.question.as_str())
            .collect();
        assert!(lost.is_empty(), "questions for facts taken for the room's: {lost:?}");
        let room: Vec<&Row> = rows.iter().filter(|r| r.asks == "R").collect();
        let caught = room.iter().filter(|r| for_the_room(&r.question, names)).count();
        assert!(
            caught * 100 >= room.len() * 80,
            "{caught} of {} questions for the room caught",
            room.len()
        );
    }
}
