//! What the facilitator's own words invite, read before any model reads
//! the message: the close ("propose to end", "可以提议结束") or the room's
//! questions ("anything you need to ask me", "有什么需要问我的"). A small
//! model reads the same invitation as agreement in one language and never
//! as a question (docs/decisions/2026-11-27-judgement-rest-of-the-scenarios.md),
//! where the words leave no doubt.
//! Which words invite is only ever written in `words/` (one file per
//! language); a message they do not settle is read by the model as before.

use super::words::{plain, Phrase, WORDS};
use crate::engine::similarity::negated_before;
use crate::engine::stated::word_at;
use crate::verdict::Reading;

/// What `message` invites in so many words: the close (`Reading::Close`)
/// or the room's questions (`Reading::QuestionsInvited`), with the phrase
/// that says so. Only the message's last clause is read, as an invitation
/// ends a message ("…, feel free to wrap up."; "Before we call it a day,
/// who owns the rollout?" ends elsewhere); not a close in a clause with a
/// blocker in it ("before", "之前": not now), nor a phrase negated before
/// it in its sentence ("Let's not, for now, wrap things up", "先别提议结束").
/// A courtesy after it ("…, thanks all!") is passed over. A last clause
/// that invites both, or neither, is the model's to read.
pub(crate) fn invited(message: &str) -> Option<(Reading, String)> {
    let lower = plain(message);
    // A courtesy after the invitation ("Let's wrap up here. Thanks, everyone!")
    // is not the last clause that counts.
    let courtesy = |c: &&str| WORDS.courtesies.iter().any(|w| w == c);
    let sentence = lower
        .split(['.', '!', '?', '\n', '。', '！', '？'])
        .map(str::trim)
        .rfind(|s| !clauses(s).iter().all(courtesy))?;
    let clause = clauses(sentence).into_iter().rfind(|c| !courtesy(c))?;
    // Negation is read in the whole sentence before the clause too: "Let's
    // not, for now, wrap things up." (`clause` is a slice of `sentence`.)
    let earlier = &sentence[..clause.as_ptr() as usize - sentence.as_ptr() as usize];
    let blocked = WORDS.close_blockers.iter().any(|b| word_at(clause, b).next().is_some());
    let close = found(clause, earlier, &WORDS.close).filter(|_| !blocked);
    let ask = found(clause, earlier, &WORDS.ask);
    match (close, ask) {
        (Some(p), None) => Some((Reading::Close, p)),
        (None, Some(p)) => Some((Reading::QuestionsInvited, p)),
        _ => None,
    }
}

/// The clauses of a sentence, trimmed, the empty ones left out.
fn clauses(sentence: &str) -> Vec<&str> {
    sentence
        .split([',', ';', ':', '，', '；', '：', '、', '—', '–'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

/// The first of `phrases` standing in `clause`, where its marks place it
/// (`Phrase`: "^ask me" opens the clause, as an imperative does — "…, ask
/// me." but not "customers ask me"; "are we done$" ends it — "…are we done
/// with pricing?" asks about a part), and not negated in its sentence
/// (`earlier`: the sentence up to the clause).
fn found(clause: &str, earlier: &str, phrases: &[Phrase]) -> Option<String> {
    phrases
        .iter()
        .find(|p| {
            word_at(clause, &p.words).any(|i| {
                let placed = (!p.opens || i == 0) && (!p.ends || clause[i + p.words.len()..].trim().is_empty());
                placed && !negated_before(earlier, &clause[..i])
            })
        })
        .map(|p| p.words.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_close_invited_in_so_many_words_is_read_as_one() {
        for m in [
            "I think we have covered the essentials. If the room agrees the discussion has run its course, propose to end it.",
            "Perfect, GitHub Actions it is. Let's wrap up here.",
            "Phones first, tablets in the autumn. I think that settles it; feel free to wrap up.",
            "Good, that is our plan. Unless someone has a last point, we can stop here.",
            "我觉得要点都讨论到了。如果大家认为讨论已经充分，可以提议结束。",
            "那就用 PostgreSQL。今天就到这里吧？",
            "好，就这么定了。如果没有别的要补充，我们就到这里吧。",
            "我觉得方案已经很清楚了，大家可以收个尾。",
        ] {
            assert_eq!(invited(m).map(|r| r.0), Some(Reading::Close), "{m}");
        }
    }

    #[test]
    fn questions_invited_in_so_many_words_are_read_as_such() {
        for m in [
            "Before you go further: is there anything you need to ask me to give a better recommendation?",
            "Do you need anything from me before you decide?",
            "What questions do you have for me about our current setup?",
            "在继续之前：为了给出更好的建议，你们有什么需要问我的吗？",
            "你们还需要我提供什么信息吗？",
            "关于我们现在的客服团队，你们有什么想先问我的？",
        ] {
            assert_eq!(invited(m).map(|r| r.0), Some(Reading::QuestionsInvited), "{m}");
        }
    }

    #[test]
    fn a_courtesy_after_the_invitation_leaves_it_last() {
        for m in [
            "Let's wrap up here. Thanks, everyone!",
            "Alright, I think we've landed the release plan. Let's finish here, thanks all!",
            "团建方案就这么定了，我们今天先这样，辛苦大家。",
            "今天就到这里吧，谢谢大家！",
        ] {
            assert_eq!(invited(m).map(|r| r.0), Some(Reading::Close), "{m}");
        }
        assert_eq!(invited("Thanks, everyone!"), None);
    }

    #[test]
    fn the_last_clause_decides() {
        assert_eq!(
            invited("Any questions for me, or shall we wrap it up?").map(|r| r.0),
            Some(Reading::Close)
        );
        assert_eq!(
            invited("Do you need anything from me before you decide?").map(|r| r.0),
            Some(Reading::QuestionsInvited),
            "\"before\" holds back a close, not an offer to answer"
        );
        assert_eq!(invited("Let's wrap it up. Actually, one more thing: who owns the rollout?"), None);
    }

    #[test]
    fn negated_or_other_words_leave_the_message_to_the_model() {
        for m in [
            "Don't wrap it up yet: who owns the rollout?",
            "Let's not end the discussion before we have a budget.",
            "There's no need to ask me, decide among yourselves.",
            "先别提议结束，预算还没定。",
            "我们还不能结束讨论。",
            "Before we wrap up, what about pricing?",
            "请问我们应该用哪种数据库？",
            "You asked me about the budget: it is 5,000 euros.",
            "Should we wrap our APIs in a gateway?",
            "Which CI system should we use?",
            "Ask me anything or let's wrap it up.",
            "",
        ] {
            assert_eq!(invited(m), None, "{m}");
        }
    }
}

/// Every labelled facilitator message of the judgement bench (its tuned
/// and held-out scenarios and message files, and `invitations-holdout.json`:
/// invitations and near misses written apart from the word files): the
/// words never read a message as an invitation it is not. What they
/// leave, the model reads.
#[cfg(test)]
mod bench_messages {
    use super::*;

    /// (file, label, text) of every message in the bench's files.
    fn labelled() -> Vec<(&'static str, String, String)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/judgement");
        let mut out = Vec::new();
        for name in [
            "messages.json",
            "messages-holdout.json",
            "invitations-holdout.json",
            "invitations-adversarial.json",
        ] {
            let text = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            let list: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            for m in list {
                out.push((
                    name,
                    m["expect"].as_str().unwrap_or_default().to_string(),
                    m["text"].as_str().unwrap_or_default().to_string(),
                ));
            }
        }
        for name in ["scenarios.toml", "holdout.toml"] {
            let text = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            let doc: toml::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let scenarios = doc.get("scenario").and_then(toml::Value::as_array).into_iter().flatten();
            for m in scenarios.filter_map(|sc| sc.get("messages")?.as_array()).flatten() {
                let field = |k: &str| m.get(k).and_then(toml::Value::as_str).unwrap_or_default().to_string();
                out.push((name, field("expect"), field("text")));
            }
        }
        out
    }

    #[test]
    fn the_words_read_no_bench_message_as_an_invitation_it_is_not() {
        let all = labelled();
        assert!(all.len() > 80, "{}", all.len());
        let mut read = std::collections::BTreeMap::<&str, (usize, usize)>::new();
        let mut by_file = std::collections::BTreeMap::<(&str, &str), (usize, usize)>::new();
        for (file, label, text) in &all {
            let entry = read.entry(label.as_str()).or_default();
            entry.1 += 1;
            let in_file = by_file.entry((file, label.as_str())).or_default();
            in_file.1 += 1;
            in_file.0 += usize::from(invited(text).is_some());
            match invited(text) {
                Some((Reading::Close, p)) => {
                    assert_eq!(label, "end", "{text:?} read as a close by {p:?}");
                    entry.0 += 1;
                }
                Some((Reading::QuestionsInvited, p)) => {
                    assert_eq!(label, "ask", "{text:?} read as questions invited by {p:?}");
                    entry.0 += 1;
                }
                _ => {}
            }
        }
        eprintln!("read from the words, by label (read, of): {read:?}\nby file: {by_file:?}");
        // What the words read of the invitations (28 of 34 closes, 20 of 35
        // asks: the rest are jobs without their facts, or wordings left to
        // the model), kept.
        assert!(read["end"].0 >= 28 && read["ask"].0 >= 20, "{read:?}");
    }
}
