//! The host's reading of the facilitator's message, after the round it
//! opened: what the message asks of the room. One small call, neutral (no
//! persona, no room rules), answered with one letter — a small model sorts a
//! message among four worked examples far better than it judges the room in
//! character or answers yes/no questions about it
//! (docs/decisions/2026-11-24-what-the-1-5b-can-judge.md).
//!
//! The reading is the explicit signal; the round's replies only hold it
//! back (a word of disagreement stops an end proposal), and the facilitator
//! still decides every proposal in the modal.

use serde_json::Value;

mod asked;
mod fit;
mod invitations;
mod words;
pub(crate) use asked::{agreement_question, asked, last_question, Asked};
pub(crate) use fit::{unfit, Discussion, Unfit};
pub(crate) use invitations::invited;

use crate::engine::cleanup::first_sentences;
use crate::engine::stated::disagreement;
use crate::verdict::{Reading, Stance};

/// Reads an answer: the letter it opens with ("C", " D.", "-> B", "A: the
/// matter is settled"), or `{"answer": "A"}` from a server that answers in
/// JSON. None for anything else, a sentence that opens with the article "A"
/// included: nothing is read from an unclear answer.
pub(crate) fn parse(answer: &str) -> Option<Reading> {
    if let Some(open) = answer.find('{') {
        let close = answer[open..].find('}').map_or(answer.len(), |c| open + c + 1);
        if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&answer[open..close]) {
            return map.get("answer").and_then(Value::as_str).and_then(opening_letter);
        }
    }
    opening_letter(answer)
}

/// The letter A–D an answer opens with, standing alone.
fn opening_letter(text: &str) -> Option<Reading> {
    let t = text.trim_start_matches(|c: char| c.is_whitespace() || "\"'`*->(:".contains(c));
    let mut chars = t.chars();
    let letter = chars.next().filter(char::is_ascii_uppercase)?;
    let rest = chars.as_str();
    let mut after = rest.chars();
    match after.next() {
        None => {}
        Some(c) if c.is_alphanumeric() => return None,
        // "A plan…": the article, not the answer.
        Some(' ') if after.next().is_some_and(char::is_lowercase) => return None,
        Some(_) => {}
    }
    Reading::from_letter(letter)
}

/// The question in a model's answer for the missing facts: its first
/// line, without a label or quotes, up to its last question mark. None
/// when it asks nothing (no question mark): nothing is asked then.
pub(crate) fn question_in(answer: &str) -> Option<String> {
    let line = answer.lines().map(str::trim).find(|l| !l.is_empty())?;
    // A short label before a colon ("Question:", "小林：", "**Host:**") is
    // the model naming the line, not part of the question.
    let line = line
        .char_indices()
        .take(16)
        .find(|(_, c)| matches!(c, ':' | '：'))
        .filter(|(i, _)| !line[..*i].contains(['?', '？', '。', '.']))
        .map_or(line, |(i, c)| line[i + c.len_utf8()..].trim_start());
    let line = line.trim_matches(['"', '“', '”', '「', '」', '*', ' ']);
    let end = line.rfind(['?', '？'])?;
    let q = line[..end + line[end..].chars().next().map_or(0, char::len_utf8)].trim();
    (q.chars().count() > 3).then(|| q.to_string())
}

/// The host's hearing of one reply (`hear_answer`): Some(true) for a yes,
/// Some(false) for a no, None for anything else. Only the answer's first
/// word counts ("Yes.", "no", "**Yes**", "是的"); "Yesterday…" is not a yes.
pub(crate) fn heard_yes(answer: &str) -> Option<bool> {
    let t = answer.trim_start_matches(|c: char| c.is_whitespace() || "\"'`*->(:«“‘「".contains(c));
    let word = t
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    // A Chinese answer runs on without a space: its first character.
    if word == "yes" || (t.starts_with('是') && !t.starts_with("是否")) {
        Some(true)
    } else if word == "no" || t.starts_with(['不', '否']) {
        Some(false)
    } else {
        None
    }
}

/// Whether the room answered "does everyone agree?" with yes: nobody
/// disagrees, at least two say yes or pass (having nothing to add to a
/// yes/no question is no objection, as at an invited close), and most of
/// those who spoke say yes. A reply that says neither may still argue for
/// something else (another name, another plan), so one "agreed" among
/// silent replies is not the room's yes. A yes the host heard completes a
/// consensus but cannot start one: some reply must state agreement in its
/// own words (`stated`), since a small model hears "Thank you for your
/// input" or a counter-proposal opening "好的" as yes; a round where every
/// speaker passed is unopposed.
pub(crate) fn agreed(stances: &[Stance], passed: usize, stated: bool) -> bool {
    let yes = stances.iter().filter(|s| **s == Stance::Agree).count();
    let most = stances.is_empty() || yes * 2 > stances.len();
    (stated || stances.is_empty()) && yes + passed >= 2 && most && !stances.contains(&Stance::Disagree)
}

/// Whether a reply the round counts as a yes (`stances`, in the order of
/// `replies`: agent id, text) states agreement in a sentence of its own
/// (`stated::states_agreement`): what lets a consensus start.
pub(crate) fn yes_in_words(
    replies: &[(String, String)],
    stances: &[Stance],
    agreement_words: &[String],
    disagreement_words: &[String],
) -> bool {
    replies
        .iter()
        .zip(stances)
        .any(|((_, text), s)| *s == Stance::Agree && crate::engine::stated::states_agreement(text, agreement_words, disagreement_words))
}

/// The first sentence of the round's replies (agent id, text) that uses a
/// word of disagreement: (agent id, the sentence). An invited close is
/// proposed with it named ("Amara raised one more point: …").
pub(crate) fn caveat(replies: &[(String, String)], words: &[String]) -> Option<(String, String)> {
    replies.iter().find_map(|(who, text)| {
        let mut rest = text.as_str();
        while !rest.trim().is_empty() {
            let sentence = first_sentences(rest, 1);
            if disagreement(sentence, words).is_some() {
                return Some((who.clone(), sentence.trim().to_string()));
            }
            rest = &rest[sentence.len()..];
        }
        None
    })
}

/// Whether the reading shows a model that cannot sort the facilitator's
/// messages: the party's opening message starts the discussion and is never
/// a close, so a model that reads it as one cannot tell the messages apart
/// and is not asked again this session; the agents' own markers stay.
pub(crate) fn cannot_read(reading: Option<Reading>, first_round: bool) -> bool {
    first_round && reading == Some(Reading::Close)
}

/// Whether an agent's question to the facilitator is held back rather than
/// put to them (it stays in its reply's words): after an invited close or a
/// call for agreement, which the room answers — a question then ("Can we
/// wrap up?", "Can we go on to the next part?") only stalls it — and in the
/// round that opened with the facilitator's answer to the room's question,
/// where the room works with the answer (unless it invites more
/// questions: then they are asked). Only what `act` acts on holds
/// it: not in the opening round, and agreement only when `asks`
/// (`Asked::may_ask_agreement`). `reading` None: nothing was read, and the agent's
/// own judgement stands.
pub(crate) fn holds_question(reading: Option<Reading>, just_answered: bool, first_round: bool, asks: bool) -> bool {
    (reading != Some(Reading::QuestionsInvited) && just_answered)
        || !first_round
            && match reading {
                Some(Reading::Close) => true,
                Some(Reading::Agreement) => asks,
                _ => false,
            }
}

/// What the round the message opened came to, as the reading's decision
/// needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct RoundFacts {
    /// Agents who replied.
    pub replies: usize,
    /// Agents who passed: asked twice, nothing of their own to add.
    pub passed: usize,
    /// The room asked the facilitator something in the round before (a
    /// message answering it is not asked again).
    pub just_answered: bool,
    /// What the message asks of the room (`asked`): only a yes/no question
    /// to the room asks whether everyone agrees, and only a statement or a
    /// request gives a job, however a small model sorts the message.
    pub asked: Asked,
    /// The party's first round: the opening message starts the discussion,
    /// so it can neither invite its close nor ask whether the room agrees,
    /// however a small model sorts it.
    pub first_round: bool,
}

/// What the host does after reading the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Act {
    /// Propose the end: the facilitator invited it and nobody objected.
    ProposeEnd,
    /// Read the replies' stances: the facilitator asked for agreement.
    CheckAgreement,
    /// Ask the facilitator for the facts the job needs.
    AskFacts,
    /// Ask the facilitator the question the room most needs answered: they
    /// invited it.
    AskInvited,
    Nothing,
}

/// The decision, pure. An end is proposed only when invited, and neither
/// it nor agreement is read in the opening round (a point a reply still raised is named in the proposal:
/// the facilitator asked, and decides with it in view); the facts are
/// asked for once, not again right after an answer. Invited to ask, the
/// host asks even when every speaker passed — a room with nothing to say
/// still lacks what the facilitator knows — and right after an answer
/// that invites more.
pub(crate) fn act(reading: Reading, round: RoundFacts) -> Act {
    match reading {
        Reading::QuestionsInvited if round.replies + round.passed > 0 => Act::AskInvited,
        // Asked whether the room is done, speakers with nothing to add
        // answer too.
        Reading::Close if !round.first_round && round.replies + round.passed > 0 => Act::ProposeEnd,
        // Asked whether everyone agrees, so do speakers with nothing to add.
        // The opening round has discussed nothing yet: a "should we…?" that
        // the room says yes to is an opinion, not a room that has converged.
        Reading::Agreement if round.asked.may_ask_agreement() && !round.first_round && round.replies + round.passed > 0 => {
            Act::CheckAgreement
        }
        _ if round.replies == 0 => Act::Nothing,
        Reading::Close | Reading::Agreement => Act::Nothing,
        Reading::MissingFacts if !round.just_answered && round.asked.may_lack_facts() => Act::AskFacts,
        Reading::MissingFacts | Reading::Other | Reading::QuestionsInvited => Act::Nothing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_read_from_the_letter_it_opens_with() {
        assert_eq!(parse("B"), Some(Reading::Agreement));
        assert_eq!(parse(" C"), Some(Reading::MissingFacts));
        assert_eq!(parse("-> D."), Some(Reading::Other));
        assert_eq!(parse("\"A\""), Some(Reading::Close));
        assert_eq!(parse("A: the leader says it is settled"), Some(Reading::Close));
        assert_eq!(parse("C\n\nThe leader gives a job"), Some(Reading::MissingFacts));
        assert_eq!(parse(r#"{"answer": "A"}"#), Some(Reading::Close));
        assert_eq!(parse("```json\n{\"answer\":\"C\"}\n```"), Some(Reading::MissingFacts));
        // The article, a word, a lower-case or another letter: no answer.
        assert_eq!(parse("A plan needs a budget."), None);
        assert_eq!(parse("Because it is settled: A"), None);
        assert_eq!(parse("a"), None);
        assert_eq!(parse("E"), None);
        assert_eq!(parse(""), None);
        assert_eq!(parse(r#"{"letter": "A"}"#), None);
    }

    #[test]
    fn the_hosts_question_is_the_answers_first_line_up_to_its_question_mark() {
        assert_eq!(
            question_in("How many people, and what budget?").as_deref(),
            Some("How many people, and what budget?")
        );
        assert_eq!(question_in("Question: \"When is it?\" Thanks.").as_deref(), Some("When is it?"));
        assert_eq!(
            question_in("\n问题：一共多少人？预算是多少？\n").as_deref(),
            Some("一共多少人？预算是多少？")
        );
        // No question mark, no question.
        assert_eq!(question_in("小林：大概多少人参加？").as_deref(), Some("大概多少人参加？"));
        assert_eq!(question_in("**Host:** When is it?").as_deref(), Some("When is it?"));
        assert_eq!(
            question_in("What matters most: the date or the budget?").as_deref(),
            Some("What matters most: the date or the budget?"),
            "a colon inside the question, after its first words, stays"
        );
        assert_eq!(question_in("Please tell us the budget."), None);
        assert_eq!(question_in("?"), None);
        assert_eq!(question_in(""), None);
    }

    #[test]
    fn agreement_asked_for_is_given_when_someone_says_so_and_nobody_objects() {
        use Stance::*;
        assert!(agreed(&[Agree, Agree, New], 0, true));
        assert!(agreed(&[Agree, Agree], 0, true));
        assert!(!agreed(&[Agree, New, New], 0, true), "one yes among replies that say neither");
        assert!(!agreed(&[Agree, New], 0, true), "half is not most");
        assert!(!agreed(&[Agree, Disagree, Agree], 0, true));
        assert!(!agreed(&[New, New], 0, true));
        assert!(!agreed(&[Agree], 0, true), "one voice is not the room");
        assert!(agreed(&[Agree], 1, true), "a yes, and nothing to add");
        assert!(agreed(&[], 2, false), "nobody had anything to add: no objection");
        assert!(!agreed(&[], 1, false), "one silence is not the room");
        assert!(!agreed(&[New], 1, true), "neither said yes");
        assert!(!agreed(&[Disagree], 2, true), "an objection stands");
    }

    #[test]
    fn heard_yeses_complete_a_consensus_only_beside_a_yes_in_words() {
        use Stance::*;
        assert!(agreed(&[Agree, Agree], 0, true), "one stated yes, one heard");
        assert!(!agreed(&[Agree, Agree, Agree], 0, false), "three heard, none stated");
        assert!(!agreed(&[Agree], 1, false), "one heard yes and a pass");
    }

    #[test]
    fn only_a_reply_counted_as_yes_can_start_a_consensus_with_its_words() {
        use Stance::*;
        let yes = crate::config::Config::default().party.consensus.agreement_words;
        let no = crate::config::Config::default().party.consensus.disagreement_words;
        let replies = |texts: &[&str]| texts.iter().map(|t| (String::new(), t.to_string())).collect::<Vec<_>>();
        let room = replies(&[
            "Then I will call them today.",
            "I'll draft the invite.",
            "We should pick a hall we all agree on.",
        ]);
        assert!(
            !yes_in_words(&room, &[Agree, Agree, New], &yes, &no),
            "the words are in a reply heard as no"
        );
        assert!(yes_in_words(&room, &[Agree, Agree, Agree], &yes, &no));
        let room = replies(&["Agreed, the Harbour Hall it is.", "I'll draft the invite."]);
        assert!(yes_in_words(&room, &[Agree, Agree], &yes, &no));
        assert!(!yes_in_words(&room, &[Disagree, Agree], &yes, &no));
    }

    /// Rounds the 1.5B answered on the judgement bench, each reply as the
    /// host heard it: whether one states agreement in its own words.
    #[test]
    fn bench_rounds_heard_as_yes_state_agreement_only_where_someone_said_so() {
        let yes = crate::config::Config::default().party.consensus.agreement_words;
        let no = crate::config::Config::default().party.consensus.disagreement_words;
        let stated = |replies: &[&str]| replies.iter().any(|r| crate::engine::stated::states_agreement(r, &yes, &no));
        // Thanks and "I understand", both heard as yes: no room's yes.
        assert!(!stated(&[
            "Okay, I understand. Thank you for confirming that the round is moving forward as planned.\n\nHi Tomás!",
            "Thank you for your input. I appreciate it very much.",
        ]));
        assert!(!stated(&[
            "I understand that you want to move the round forward by agreeing with Kofi's approach."
        ]));
        // Another name, opening "好的", heard as yes beside a speaker who passed.
        assert!(!stated(&[
            "好的，我们可以再考虑一下这个话题。我认为名字可以更具体一点，比如“团队目标追踪系统”或“任务管理平台”。所以，我们将再次进行投票，以确定最终的名字。"
        ]));
        // A yes after the thanks, in a later sentence.
        assert!(stated(&[
            "Okay, let's continue this conversation.",
            "Thank you for your input, Lena and Ingrid. I appreciate everyone's agreement that \"Goal Tracker\" sounds good. Compass indeed gets my vote too.",
        ]));
        assert!(stated(&["是的，我们完全同意。", "好的，那么在入职第一天，我们会配好设备。"]));
        assert!(!stated(&["大家同意吗？"]), "a question states nothing");
    }

    #[test]
    fn a_heard_answer_is_its_first_word_yes_or_no() {
        for yes in [
            "yes",
            "Yes.",
            " Yes",
            "**Yes**",
            "YES, they agree",
            "“Yes”",
            "是",
            "是的",
            "是。",
            "「是」",
        ] {
            assert_eq!(heard_yes(yes), Some(true), "{yes:?}");
        }
        for no in ["no", "No.", "No, they ask a question", "不", "不是", "否"] {
            assert_eq!(heard_yes(no), Some(false), "{no:?}");
        }
        for neither in ["", "Yesterday they said", "None of them", "Maybe", "是否同意", "A"] {
            assert_eq!(heard_yes(neither), None, "{neither:?}");
        }
    }

    #[test]
    fn a_model_that_reads_the_opening_as_a_close_cannot_read() {
        assert!(cannot_read(Some(Reading::Close), true));
        assert!(!cannot_read(Some(Reading::Close), false), "a close later is a close");
        assert!(!cannot_read(Some(Reading::Agreement), true));
        assert!(!cannot_read(None, true), "an unreadable answer is one miss, not the model");
    }

    #[test]
    fn only_a_yes_or_no_question_asks_whether_the_room_agrees() {
        let open = crate::config::Config::default().party.consensus.open_question_words;
        let yes = crate::config::Config::default().party.consensus.agreement_words;
        let asks = |m: &str| asked(m, &["Maya", "Kofi"], &open, &yes).may_ask_agreement();
        assert!(asks("So flat pricing with a seat cap. Are we all on board with that?"));
        assert!(asks("Compass gets my vote too. Does everyone agree we go with Compass?"));
        assert!(asks("那就先做深色模式，下个版本上线。大家都同意吗？"));
        assert!(asks("What do you say, do we all agree on Compass?"), "it names agreement");
        assert!(!asks("What should the first hour cover?"));
        assert!(!asks("Good. Which talks would you put on the first morning?"));
        assert!(!asks("第一个小时应该讲什么？"));
        assert!(!asks(
            "Maya, you lean one way. Argue it out: who is right, and why is the other wrong?"
        ));
        assert!(!asks("Kofi, you disagree with Maya on this — why?"));
        assert!(!asks("Maya, do you agree?"), "one member's view");
        assert!(!asks("Maya wants Compass, Kofi Atlas. Thoughts?"), "an open question");
        assert!(asks("Alright, so Compass. Everyone on board?"));
        assert!(!asks("So we go with Compass."), "no question at all");
    }

    #[test]
    fn an_invited_close_is_proposed_after_the_opening_round() {
        let quiet = RoundFacts {
            replies: 3,
            ..RoundFacts::default()
        };
        assert_eq!(act(Reading::Close, quiet), Act::ProposeEnd);
        let opening = RoundFacts {
            first_round: true,
            ..quiet
        };
        assert_eq!(act(Reading::Close, opening), Act::Nothing);
        let asks_first = RoundFacts {
            asked: Asked::YesOrNo,
            ..opening
        };
        assert_eq!(
            act(Reading::Agreement, asks_first),
            Act::Nothing,
            "the opening round agrees on nothing yet"
        );
        assert_eq!(
            act(
                Reading::Agreement,
                RoundFacts {
                    asked: Asked::YesOrNo,
                    ..quiet
                }
            ),
            Act::CheckAgreement
        );
        assert_eq!(act(Reading::Close, RoundFacts::default()), Act::Nothing);
        let all_passed = RoundFacts {
            passed: 2,
            ..RoundFacts::default()
        };
        assert_eq!(act(Reading::Close, all_passed), Act::ProposeEnd, "nothing more to add");
        assert_eq!(
            act(
                Reading::Agreement,
                RoundFacts {
                    asked: Asked::YesOrNo,
                    ..all_passed
                }
            ),
            Act::CheckAgreement,
            "nothing to add to a yes/no question"
        );
        assert_eq!(act(Reading::MissingFacts, all_passed), Act::Nothing);
    }

    #[test]
    fn a_point_still_raised_at_an_invited_close_is_its_first_sentence_of_disagreement() {
        let words = crate::config::Config::default().party.consensus.disagreement_words;
        let replies = |r: &[(&str, &str)]| r.iter().map(|(a, t)| (a.to_string(), t.to_string())).collect::<Vec<_>>();
        let round = replies(&[
            ("pm", "I agree, flat pricing it is. Thanks all!"),
            (
                "architect",
                "Agreed on the plan. However, it may need changes in support. Legal should look at it.",
            ),
            ("qa", "But I still doubt the cap."),
        ]);
        assert_eq!(
            caveat(&round, &words),
            Some(("architect".into(), "However, it may need changes in support.".into()))
        );
        let zh = replies(&[("pm", "好的，就这么定。但是预算还要再确认一下。")]);
        assert_eq!(caveat(&zh, &words), Some(("pm".into(), "但是预算还要再确认一下。".into())));
        assert_eq!(caveat(&replies(&[("pm", "Yes, we are done. Thank you!")]), &words), None);
        assert_eq!(caveat(&[], &words), None);
    }

    #[test]
    fn facts_are_asked_for_once_not_again_after_the_answer() {
        let round = RoundFacts {
            replies: 2,
            ..RoundFacts::default()
        };
        assert_eq!(act(Reading::MissingFacts, round), Act::AskFacts);
        let answered = RoundFacts {
            just_answered: true,
            ..round
        };
        assert_eq!(act(Reading::MissingFacts, answered), Act::Nothing);
        assert_eq!(act(Reading::Other, round), Act::Nothing);
    }

    #[test]
    fn questions_invited_are_asked_even_when_every_speaker_passed() {
        let all_passed = RoundFacts {
            passed: 3,
            ..RoundFacts::default()
        };
        assert_eq!(act(Reading::QuestionsInvited, all_passed), Act::AskInvited);
        let spoke = RoundFacts {
            replies: 2,
            first_round: true,
            ..RoundFacts::default()
        };
        assert_eq!(act(Reading::QuestionsInvited, spoke), Act::AskInvited);
        let answered = RoundFacts {
            just_answered: true,
            ..spoke
        };
        assert_eq!(
            act(Reading::QuestionsInvited, answered),
            Act::AskInvited,
            "an answer that invites more"
        );
        assert_eq!(
            act(Reading::QuestionsInvited, RoundFacts::default()),
            Act::Nothing,
            "nobody took a turn"
        );
    }

    #[test]
    fn a_close_a_call_for_agreement_or_an_answer_holds_an_agents_question_back() {
        assert!(holds_question(Some(Reading::Close), false, false, false));
        assert!(holds_question(Some(Reading::Agreement), false, false, true));
        assert!(
            !holds_question(Some(Reading::Agreement), false, false, false),
            "an open question is not acted on"
        );
        assert!(!holds_question(Some(Reading::Close), false, true, true), "nor is the opening round");
        assert!(!holds_question(Some(Reading::MissingFacts), false, false, true));
        assert!(!holds_question(Some(Reading::Other), false, false, true));
        assert!(
            !holds_question(None, false, false, true),
            "nothing read: the agent's judgement stands"
        );
        for r in [None, Some(Reading::Other), Some(Reading::MissingFacts)] {
            assert!(holds_question(r, true, false, false), "right after the answer: {r:?}");
        }
        assert!(
            !holds_question(Some(Reading::QuestionsInvited), true, false, false),
            "questions invited, also in an answer"
        );
        assert!(!holds_question(Some(Reading::QuestionsInvited), false, false, true));
    }

    #[test]
    fn agreement_is_checked_only_when_the_message_asks() {
        let round = RoundFacts {
            replies: 2,
            ..RoundFacts::default()
        };
        assert_eq!(act(Reading::Agreement, round), Act::Nothing);
        let asks = RoundFacts {
            asked: Asked::YesOrNo,
            ..round
        };
        assert_eq!(act(Reading::Agreement, asks), Act::CheckAgreement);
    }
}
