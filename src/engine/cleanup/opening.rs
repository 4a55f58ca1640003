//! How a reply opens. A small model often answers the turn note before it
//! speaks — "Certainly! Here's Priya's response as she would speak:", a bare
//! ": Amara, …" — and none of that is a word of the meeting (the rows of
//! `rules.rs` at the reply's start strip it). A lone interjection first
//! ("Certainly!") waits, unshown, for the sentence after it: dropped with a
//! meta sentence, shown with anything else. So does a sentence that only
//! thanks or agrees ("Thank you, Maya.") or only announces what follows
//! ("Here's what I would do:"); a reply of nothing else is a stub and no
//! turn.

use super::labels::strip_prefix_ci;
use super::phrases::PHRASES;
use super::{Cleanup, CutKind, Step, Voices};
use crate::text::is_cjk;

impl Cleanup {
    /// Whether `sentence`, at the reply's start, waits as its opening: an
    /// interjection while none waits, or thanks or a yes.
    pub(super) fn opens_with(&self, sentence: &str) -> bool {
        let sentence = self.before_trailing_ask(sentence);
        (self.opener.is_none() && is_interjection(sentence)) || self.acknowledges(sentence) || self.introduces(sentence)
    }

    /// `s` without the ask marker that ends it ("Yes!?@human"): the words
    /// before it, judged as they would be alone. Held, the marker waits
    /// with them for a question on the next line.
    pub(super) fn before_trailing_ask<'a>(&self, s: &'a str) -> &'a str {
        self.voices
            .markers
            .as_ref()
            .and_then(|m| m.ask.find(s))
            .filter(|r| !s[..r.start].trim().is_empty() && s[r.end..].trim().is_empty())
            .map_or(s, |r| &s[..r.start])
    }

    /// A line that only announces what follows ("Here's what I would do:"):
    /// shown with it, and alone a stub like thanks (a speaker's turn only).
    fn introduces(&self, sentence: &str) -> bool {
        !self.voices.own.is_empty() && is_introduction(sentence)
    }

    /// Only a speaker's turn can be a stub (a host's "Yes" is its answer);
    /// a stock line said before is an echo first, dropped by that rule.
    fn acknowledges(&self, sentence: &str) -> bool {
        !self.voices.own.is_empty() && is_acknowledgement(sentence, &self.voices) && self.copied(&self.voices.tokens(sentence)).is_none()
    }

    /// Holds `sentence` with the reply's opening (`opens_with`) until the
    /// next sentence shows what it opened.
    pub(super) fn hold_opener(&mut self, sentence: &str) {
        let words = self.before_trailing_ask(sentence);
        let acknowledges = self.acknowledges(words) || self.introduces(words);
        self.opener.get_or_insert_with(String::new).push_str(sentence);
        self.opener_acknowledges |= acknowledges;
    }

    /// A reply that only thanked or agreed is over: a stub, no turn.
    pub(super) fn drop_stub_opener(&mut self) {
        if self.opener_acknowledges && self.kept_words().trim().is_empty() {
            if let Some(opener) = self.opener.take() {
                self.cut(CutKind::Stub, opener.trim());
            }
        }
    }

    /// The held interjection was the speaker's own: shown, ahead of `step`'s text.
    pub(super) fn release_opener(&mut self, step: &mut Step) {
        if let Some(opener) = self.opener.take() {
            step.show.push_str(&opener);
            self.kept.push_str(&opener);
            self.opener_acknowledges = false;
        }
    }
}

/// A stock interjection alone, as an assistant opens an answer
/// ("Certainly!", "Of course.", "好的！"); a reply's own first words
/// ("Research first.") are not (a "Yes." waits as an acknowledgement).
fn is_interjection(sentence: &str) -> bool {
    let t = sentence.trim();
    let body = t.trim_end_matches(['!', '.', '！', '。']);
    body.len() < t.len() && PHRASES.interjections.contains(&body.to_lowercase())
}

/// A short sentence ending in a colon (a sentence ends so only at a line
/// break or the reply's end): it introduces what comes next ("Here's what
/// I would do:", "**My take:**", "我的建议如下：").
fn is_introduction(sentence: &str) -> bool {
    let t = sentence.trim().trim_matches(['*', '_']).trim();
    t.ends_with([':', '：']) && super::sentences::rough_words(t) <= 12
}

/// A sentence that only thanks, agrees or cheers ("Thank you, Maya.", "I
/// totally agree with you!"): once the room's names, the room's words
/// between them and the fillers are taken out, what is left is one of the
/// language files' acknowledgements. Only the others' names go: its own
/// name makes it self-address.
pub(super) fn is_acknowledgement(sentence: &str, voices: &Voices) -> bool {
    bare_is_one_of(sentence, voices, &PHRASES.acknowledgements)
}

/// A sentence that only says yes ("Agreed!", "同意！"), read as
/// `is_acknowledgement` reads: thanks are no nod.
pub(super) fn is_nod(sentence: &str, voices: &Voices) -> bool {
    bare_is_one_of(sentence, voices, &PHRASES.nods)
}

/// A closing word alone (`That's it!`, data: `closers`), as an answer ends.
pub(super) fn is_closer(sentence: &str, voices: &Voices) -> bool {
    bare_is_one_of(sentence, voices, &PHRASES.closers)
}

/// Whether `sentence`, its names, the room's words and fillers taken out,
/// is one of `list`.
fn bare_is_one_of(sentence: &str, voices: &Voices, list: &[String]) -> bool {
    let mut t = sentence.trim().to_lowercase();
    if t.chars().count() > 80 {
        return false;
    }
    for name in voices.others.iter().filter(|n| !n.is_empty()) {
        let name = name.to_lowercase();
        for form in [format!("{name}'s"), format!("{name}’s"), name] {
            t = t.replace(&form, " ");
        }
    }
    // Fillers in Chinese script are parts of a word, in others whole words.
    for f in PHRASES
        .acknowledgement_fillers
        .iter()
        .filter(|f| f.chars().any(crate::text::is_cjk))
    {
        t = t.replace(f.as_str(), "");
    }
    let words: Vec<&str> = t
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| !w.is_empty())
        .collect();
    let bare = |skip: &[String]| {
        words
            .iter()
            .filter(|w| !skip.iter().any(|s| s == *w))
            .copied()
            .collect::<Vec<_>>()
            .join(" ")
    };
    [
        bare(&[]),
        bare(&PHRASES.salutation_room),
        bare(&[PHRASES.salutation_room.as_slice(), PHRASES.acknowledgement_fillers.as_slice()].concat()),
    ]
    .iter()
    .any(|b| !b.is_empty() && list.contains(b))
}

/// The marks that open a chat's mention (`@Tomás`): a meeting calls on
/// people by name. Syntax, not words of a language.
const MENTION_MARKS: [char; 2] = ['@', '＠'];

/// Where a line opens by calling on one of the room as a chat or a letter
/// does, not a meeting: a mention (`@Tomás I think…`, `@Priya Great point!`
/// by Priya), the mark and the name to strip (only the mark where the
/// sentence goes on from the name: `@Sam, …` is `Sam, …`); or a letter's honorific before
/// a name (`尊敬的Tomás和Priya，…`, `Dear Sam, I think…`: data,
/// `honorifics`), the honorific to strip and the name kept. `names`: the
/// speaker's and everyone else's.
pub(super) fn chat_address<'n>(s: &str, mut names: impl Iterator<Item = &'n str> + Clone) -> Option<std::ops::Range<usize>> {
    let start = s.len() - s.trim_start().len();
    let t = &s[start..];
    if let Some(mark) = t.chars().next().filter(|c| MENTION_MARKS.contains(c)) {
        let after = &t[mark.len_utf8()..];
        let rest = names.clone().filter_map(|n| name_then(after, n)).min_by_key(|r| r.len())?;
        // The name goes only where words follow it apart; one the sentence
        // goes on from (`@Sam, …`, `@Kofi's estimate`, `@小林的方案`) stays.
        if !rest.starts_with([' ', '\t', ':', '：', '!', '！', '—', '–']) {
            return Some(start..start + mark.len_utf8());
        }
        let words = rest.trim_start_matches([' ', '\t', ':', '：', '!', '！', '—', '–', '-']);
        return Some(start..s.len() - words.len());
    }
    let rest = PHRASES.honorifics.iter().find_map(|h| strip_prefix_ci(t, h))?;
    let name = rest.trim_start_matches(' ');
    names.any(|n| name_then(name, n).is_some()).then(|| start..s.len() - name.len())
}

/// Where a line opens with a chat's greeting before the facilitator's name
/// (`Hey Sam, I think…`, `你好，Sam，…`: data, `host_greetings`): the
/// greeting to strip, the name kept. `hosts`: the facilitator's labels.
pub(super) fn host_greeting(s: &str, hosts: &[String]) -> Option<std::ops::Range<usize>> {
    let start = s.len() - s.trim_start().len();
    let t = &s[start..];
    PHRASES.host_greetings.iter().find_map(|g| {
        let name = strip_prefix_ci(t, g)?.trim_start_matches(' ');
        hosts
            .iter()
            .any(|n| name_then(name, n).is_some())
            .then(|| start..s.len() - name.len())
    })
}

/// Whether an unfinished line may still turn out to be `host_greeting`.
pub(super) fn could_be_host_greeting(t: &str, hosts: &[String]) -> bool {
    PHRASES.host_greetings.iter().any(|g| {
        strip_prefix_ci(g, t).is_some()
            || strip_prefix_ci(t, g).is_some_and(|rest| {
                let rest = rest.trim_start_matches(' ');
                hosts
                    .iter()
                    .any(|n| name_then(rest, n).is_some() || strip_prefix_ci(n, rest).is_some())
            })
    })
}

/// Whether an unfinished line may still turn out to be `chat_address`.
pub(super) fn could_be_chat_address<'n>(t: &str, names: impl Iterator<Item = &'n str> + Clone) -> bool {
    let could_name = |rest: &str| {
        let rest = rest.trim_start_matches(' ');
        names
            .clone()
            .any(|n| name_then(rest, n).is_some() || strip_prefix_ci(n, rest).is_some())
    };
    if let Some(mark) = t.chars().next().filter(|c| MENTION_MARKS.contains(c)) {
        return could_name(&t[mark.len_utf8()..]);
    }
    PHRASES
        .honorifics
        .iter()
        .any(|h| strip_prefix_ci(h, t).is_some() || strip_prefix_ci(t, h).is_some_and(could_name))
}

/// Whether a sentence narrates its speaker in the third person: one of
/// its own `names` as the subject of a verb of narration (data,
/// `self_narration`), after an interjection at most ("Sure, Kofi agrees
/// with Amara." by Kofi; "Maya认为……" by Maya). Nobody in a meeting says
/// their own name so; another's name so is speech.
pub(super) fn narrates_itself<'n>(sentence: &str, mut names: impl Iterator<Item = &'n str>) -> bool {
    let t = past_interjection(sentence.trim_start());
    names.any(|n| {
        let Some(rest) = name_then(t, n) else {
            return false;
        };
        let rest = rest.trim_start().to_lowercase();
        PHRASES.self_narration.iter().any(|v| {
            rest.strip_prefix(v.as_str())
                .is_some_and(|after| v.chars().all(is_cjk) || !after.starts_with(|c: char| c.is_alphanumeric()))
        })
    })
}

/// `s` after a stock interjection and the mark after it ("Sure, ", "好的，").
fn past_interjection(s: &str) -> &str {
    PHRASES
        .interjections
        .iter()
        .find_map(|i| {
            let rest = strip_prefix_ci(s, i)?;
            rest.starts_with([',', '!', '.', '，', '！', '。'])
                .then(|| rest.trim_start_matches([',', '!', '.', '，', '！', '。', ' ']))
        })
        .unwrap_or(s)
}

/// `s` after `name` at its start, where the name ends a word (any next
/// letter after a Chinese name: `小林我觉得`; Chinese after a Latin one).
fn name_then<'s>(s: &'s str, name: &str) -> Option<&'s str> {
    let rest = strip_prefix_ci(s, name)?;
    // A Latin name ends before Chinese text written without a space (`Tomás和小林`).
    let ends_word = name
        .chars()
        .last()
        .is_some_and(|l| is_cjk(l) || !rest.chars().next().is_some_and(crate::text::goes_on_word));
    (!name.is_empty() && ends_word).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::is_interjection;

    #[test]
    fn interjections_are_an_assistants_stock_openings() {
        for yes in ["Certainly!", "Of course.", " Sure! ", "好的！", "Absolutely!\n", "OK."] {
            assert!(is_interjection(yes), "{yes:?}");
        }
        for no in [
            "Certainly",
            "Research first.",
            "Yes.",
            "Ship it now.",
            "Sure?",
            "我们应该先做用户调研。",
        ] {
            assert!(!is_interjection(no), "{no:?}");
        }
    }
}
