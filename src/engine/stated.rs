//! A reply's stance in its own words: the configured agreement and
//! disagreement words, read where a speaker states a stance (its opening,
//! or a last sentence of a word or two), never from a question.

use crate::text::is_cjk;
use crate::verdict::Stance;

/// The configured words that signal disagreement, found in `text`.
pub(crate) fn disagreement(text: &str, words: &[String]) -> Option<String> {
    find_word(text, words)
}

/// The first of `words` in `text`, as a whole word (any place in Chinese).
pub(crate) fn find_word(text: &str, words: &[String]) -> Option<String> {
    let lower = text.to_lowercase();
    words.iter().find(|w| word_at(&lower, &w.to_lowercase()).next().is_some()).cloned()
}

/// Where `word` (lowercase) stands in `lower` (lowercased text) as a whole
/// word, every place: any place it occurs when it holds Chinese, which
/// runs on without spaces. An empty word stands nowhere.
pub(crate) fn word_at<'a>(lower: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let cjk = word.chars().any(crate::text::found_inside_words);
    let empty = word.is_empty();
    lower.match_indices(word).map(|(i, _)| i).filter(move |&i| {
        let before = lower[..i].chars().next_back();
        let after = lower[i + word.len()..].chars().next();
        !empty && (cjk || !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric))
    })
}

/// A reply's stance by its own words, read from its opening (`opening`)
/// first: a word of disagreement there disagrees; else an agreement word
/// there agrees, whatever caveat follows ("I agree. … However, the rollout
/// needs care" is a yes with a point), not in a question ("大家同意吗？");
/// else a word of disagreement anywhere
/// disagrees (outright or not: `disagrees_outright`); else a last sentence of a word or two that agrees does (a
/// reply that states its reasons, then "同意" on a line of its own; not
/// "…something we all agree on."); else a point of its own.
pub(crate) fn stated_stance(text: &str, agreement_words: &[String], disagreement_words: &[String]) -> Stance {
    let opening = opening(text);
    let ends_asking = text.trim_end().ends_with(['?', '？']);
    if disagreement(opening, disagreement_words).is_some() {
        Stance::Disagree
    } else if stated_in(opening, agreement_words) {
        Stance::Agree
    } else if disagreement(text, disagreement_words).is_some() {
        Stance::Disagree
    } else if !ends_asking && interjection(closing(text)) && find_word(closing(text), agreement_words).is_some() {
        Stance::Agree
    } else {
        Stance::New
    }
}

/// Whether a reply that holds a word of disagreement objects outright: the
/// word is in its opening ("I disagree: …", "不同意，…"), where a speaker
/// states its stance, or no sentence of it states agreement ("Thanks for
/// asking, Sam. I disagree: …"). A later word beside a stated agreement
/// ("Let's weigh it. However, the cost matters. I'm in favour of it.") may
/// be a caveat on a yes: only a hearing can tell.
pub(crate) fn disagrees_outright(text: &str, agreement_words: &[String], disagreement_words: &[String]) -> bool {
    disagreement(opening(text), disagreement_words).is_some() || !states_agreement(text, agreement_words, disagreement_words)
}

/// Whether a sentence of `text` states agreement: an agreement word in a
/// sentence that is no question and holds no word of disagreement ("I
/// don't agree" states none).
pub(crate) fn states_agreement(text: &str, agreement_words: &[String], disagreement_words: &[String]) -> bool {
    statements(text).any(|s| find_word(s, agreement_words).is_some() && disagreement(s, disagreement_words).is_none())
}

/// Whether a sentence of `text` that is not a question holds an agreement
/// word: "大家同意吗？" asks the room again, "Agreed! Shall I send it?" agrees.
fn stated_in(text: &str, words: &[String]) -> bool {
    statements(text).any(|s| find_word(s, words).is_some())
}

/// The sentences of `text` that are no questions: a sentence ends at an end
/// mark or a line break, and one that ends in a question mark asks.
fn statements(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    text.char_indices().filter_map(move |(i, c)| {
        let end = i + c.len_utf8();
        if !matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '\n') && end != text.len() {
            return None;
        }
        let sentence = &text[start..end];
        start = end;
        (!matches!(c, '?' | '？')).then_some(sentence)
    })
}

/// A reply's last sentence (or line), without its end mark.
fn closing(text: &str) -> &str {
    let ends = |c: char| matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '\n');
    let body = text.trim_end_matches(|c: char| ends(c) || c.is_whitespace());
    body.rfind(ends)
        .map_or(body, |i| &body[i + body[i..].chars().next().map_or(1, char::len_utf8)..])
        .trim_start()
}

/// A reply's opening: its first sentence, and the next ones while they are
/// only interjections ("Certainly!", "好的！"), which small models put
/// before saying whether they agree.
fn opening(text: &str) -> &str {
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '\n') {
            let end = i + c.len_utf8();
            if !interjection(&text[start..end]) {
                return &text[..end];
            }
            start = end;
        }
    }
    text
}

/// A sentence of at most two words (four characters in Chinese).
fn interjection(sentence: &str) -> bool {
    let s = sentence.trim();
    let wide = s.chars().filter(|c| is_cjk(*c)).count();
    if wide > 0 {
        wide <= 4
    } else {
        s.split_whitespace().count() <= 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agreement_word_negated_states_no_agreement() {
        let yes = crate::config::Config::default().party.consensus.agreement_words;
        let no = crate::config::Config::default().party.consensus.disagreement_words;
        for text in [
            "I can't agree with that yet.",
            "We haven't agreed on the budget.",
            "我不太同意这个方案。",
            "我不赞成。",
            "我们还没有达成一致。",
        ] {
            assert!(!states_agreement(text, &yes, &no), "{text}");
            assert_eq!(stated_stance(text, &yes, &no), Stance::Disagree, "{text}");
        }
    }

    #[test]
    fn a_disagreement_is_outright_in_the_opening_or_without_a_stated_agreement() {
        let yes = crate::config::Config::default().party.consensus.agreement_words;
        let no = crate::config::Config::default().party.consensus.disagreement_words;
        assert!(disagrees_outright("I disagree: the hall has no step-free entrance.", &yes, &no));
        assert!(disagrees_outright("Agreed, but I worry the domain costs too much.", &yes, &no));
        assert!(disagrees_outright(
            "Thanks for asking, Sam. I disagree: the hall is too far.",
            &yes,
            &no
        ));
        assert!(disagrees_outright(
            "Thanks for asking, Sam. I don't agree with the hall.",
            &yes,
            &no
        ));
        assert!(!disagrees_outright(
            "Let's weigh it. However, the cost matters. I'm in favour of moving forward.",
            &yes,
            &no
        ));
    }

    #[test]
    fn a_stated_stance_is_read_from_the_first_sentence_in_any_script() {
        let yes = crate::config::Config::default().party.consensus.agreement_words;
        let no = crate::config::Config::default().party.consensus.disagreement_words;
        assert_eq!(stated_stance("Agreed! Compass is short.", &yes, &no), Stance::Agree);
        assert_eq!(stated_stance("Compass is short. I agree.", &yes, &no), Stance::Agree);
        assert_eq!(
            stated_stance("Agreed, but I worry the domain costs too much.", &yes, &no),
            Stance::Disagree
        );
        // A sentence that ends in a wide character ends at its last byte.
        assert_eq!(stated_stance("当然可以！短视频在预算中占一定比例。", &yes, &no), Stance::Agree);
        assert_eq!(stated_stance("短视频在预算中占一定比例。", &yes, &no), Stance::New);
        assert_eq!(stated_stance("我同意！就叫「罗盘」。", &yes, &no), Stance::Agree);
        assert_eq!(stated_stance("好的，没问题。", &yes, &no), Stance::Agree);
        // Support said as the speaker's own is a yes, refused a no; a feature is neither.
        assert_eq!(stated_stance("因此，我支持“罗盘”。", &yes, &no), Stance::Agree);
        assert_eq!(stated_stance("我不支持这个名字。", &yes, &no), Stance::Disagree);
        assert_eq!(stated_stance("离线模式需要支持多设备同步。", &yes, &no), Stance::New);
        assert_eq!(stated_stance("", &yes, &no), Stance::New);
        assert_eq!(stated_stance("大家同意吗？", &yes, &no), Stance::New, "a question states nothing");
        assert_eq!(stated_stance("Do we all agree? I think so.", &yes, &no), Stance::New);
        assert_eq!(stated_stance("Agreed! Shall I send the invite today?", &yes, &no), Stance::Agree);
        assert_eq!(stated_stance("同意！要我今天就订吗？", &yes, &no), Stance::Agree);
        assert_eq!(
            stated_stance("Let's book it. 同意吗？", &yes, &no),
            Stance::New,
            "a closing question"
        );
        assert_eq!(
            stated_stance("I object: our documents do not fit a relational schema.", &yes, &no),
            Stance::Disagree
        );
        // An interjection first: the agreement is in the sentence after it.
        assert_eq!(
            stated_stance("Certainly!  I agree that Compass is strong.", &yes, &no),
            Stance::Agree
        );
        assert_eq!(stated_stance("好的！我同意，就叫罗盘。", &yes, &no), Stance::Agree);
        assert_eq!(
            stated_stance("你提到的「罗盘」是一个不错的选择。我想再加一些功能。", &yes, &no),
            Stance::Agree
        );
        // "Of course." is a yes; "Sure" says too little ("I'm not sure why…").
        assert_eq!(stated_stance("Of course.", &yes, &no), Stance::Agree);
        assert_eq!(
            stated_stance("Compass is a fine name! I'm not sure why nobody said it before.", &yes, &no),
            Stance::New
        );
        // Its reasons first, then the yes.
        assert_eq!(stated_stance("Dashboards would help. I agree.", &yes, &no), Stance::Agree);
        assert_eq!(
            stated_stance("我认为深色模式应该更加注重用户体验。\n\n同意", &yes, &no),
            Stance::Agree
        );
        assert_eq!(stated_stance("Beacon says more. Let us vote on it.", &yes, &no), Stance::New);
        assert_eq!(
            stated_stance("Compass is too generic. We should pick a name we all agree on.", &yes, &no),
            Stance::New
        );
        assert_eq!(stated_stance("我觉得更好的名字是灯塔。", &yes, &no), Stance::New);
        assert_eq!(closing("One. Two!\n"), "Two");
        assert_eq!(closing("只有一句"), "只有一句");
        assert_eq!(stated_stance("Sure! But I think Beacon says more.", &yes, &no), Stance::Disagree);
        // The answer in the question's own words.
        assert_eq!(
            stated_stance("I'm okay with that. Let's start with the take-home task.", &yes, &no),
            Stance::Agree
        );
        assert_eq!(stated_stance("Fine by me: pairing beats a whiteboard.", &yes, &no), Stance::Agree);
        assert_eq!(stated_stance("我没意见，就这么定。", &yes, &no), Stance::Agree);
        assert_eq!(
            stated_stance("I'm not okay with that: the take-home task is too long.", &yes, &no),
            Stance::Disagree,
            "a word of disagreement wins"
        );
        // A yes first, then a caveat: still a yes (the 1.5B's "Agree! … However, there are also some challenges").
        assert_eq!(
            stated_stance("Agree! It simplifies billing.  However, there are also some challenges.", &yes, &no),
            Stance::Agree
        );
        assert_eq!(
            stated_stance("同意，这个安排很好。不过，推广时要注意节奏。", &yes, &no),
            Stance::Agree
        );
        assert_eq!(
            stated_stance("Agreed! However, I prefer Beacon.", &yes, &no),
            Stance::Disagree,
            "a bare yes, then a no in the same opening: a no"
        );
        assert_eq!(
            stated_stance("Compass is nice. However, I prefer Beacon.", &yes, &no),
            Stance::Disagree,
            "no yes first: the caveat is the stance"
        );
        assert_eq!(
            stated_stance("I think it's a good idea. It is a step forward.", &yes, &no),
            Stance::Agree
        );
        assert_eq!(
            stated_stance("I don't agree: Beacon says more.", &yes, &no),
            Stance::Disagree,
            "an agreement word negated"
        );
        assert_eq!(
            stated_stance("That's not a good idea for a small team.", &yes, &no),
            Stance::Disagree
        );
        assert_eq!(stated_stance("我觉得这是个好主意。", &yes, &no), Stance::Agree);
    }
}
