//! How a reply opens. A small model often answers the turn note before it
//! speaks — "Certainly! Here's Priya's response as she would speak:", a bare
//! ": Amara, …" — and none of that is a word of the meeting. A lone
//! interjection first ("Certainly!") waits for the sentence after it:
//! dropped with a meta sentence, shown with anything else. So does a
//! sentence that only thanks or agrees ("Thank you, Maya."); a reply of
//! nothing else is a stub and no turn.

use super::labels::{is_meta, strip_preface};
use super::phrases::PHRASES;
use super::{CutKind, Hygiene, Step, Voices};

impl Hygiene {
    /// `s`, a sentence while nothing of the reply is kept yet, without what
    /// opens a reply but says nothing to the room. None: nothing is left.
    pub(super) fn strip_opening(&mut self, s: String) -> Option<String> {
        let before = self.cuts.len();
        let rest = self.strip_opening_of(s);
        // What opened the reply answered the turn note: so did an
        // interjection before it ("Certainly! Here's Maya's reply:").
        if self.cuts.len() > before {
            if let Some(opener) = self.opener.take() {
                self.cut(CutKind::OwnLabel, opener.trim());
            }
        }
        rest
    }

    fn strip_opening_of(&mut self, mut s: String) -> Option<String> {
        // A colon with no name before it (": Amara, …"): a label's end
        // alone, which the next speakers then copy as "Maya: : …". (A
        // smiley, ":)", is no label.)
        let t = s.trim_start();
        let bare = t
            .strip_prefix('：')
            .or_else(|| t.strip_prefix(':').filter(|r| r.starts_with(char::is_whitespace)))
            .map(str::trim_start);
        if let Some(bare) = bare {
            self.cut(CutKind::OwnLabel, &s[..s.len() - bare.len()]);
            s = bare.to_string();
        }
        if let Some(rest) = strip_preface(&s, &self.voices.own) {
            self.cut(CutKind::OwnLabel, &s[..s.len() - rest.len()]);
            s = rest.to_string();
        }
        // "Sure, I'll write Maya's reply without a name label.": an
        // answer to the turn note, not a word of the meeting.
        let head = s.find([':', '：']).map_or(s.as_str(), |c| &s[..c]);
        if is_meta(head, &self.voices.own) {
            let rest = s[head.len()..].trim_start_matches([':', '：', ' ', '*']).to_string();
            self.cut(CutKind::OwnLabel, &s[..s.len() - rest.len()]);
            if rest.trim().is_empty() {
                return None;
            }
            s = rest;
        }
        Some(s)
    }

    /// Holds interjections and acknowledgements that open the reply until
    /// the next sentence shows what they opened. False: `sentence` is
    /// neither, or something of the reply's own came before it.
    pub(super) fn hold_opener(&mut self, sentence: &str) -> bool {
        if !self.reply_start {
            return false;
        }
        // Only a speaker's turn can be a stub (a host's "Yes" is its
        // answer); a stock line said before is an echo first, dropped by
        // that rule.
        let acknowledges = !self.voices.own.is_empty()
            && is_acknowledgement(sentence, &self.voices)
            && self.copied(&self.voices.tokens(sentence)).is_none();
        if !acknowledges && (self.opener.is_some() || !is_interjection(sentence)) {
            return false;
        }
        self.opener.get_or_insert_with(String::new).push_str(sentence);
        self.opener_acknowledges |= acknowledges;
        true
    }

    /// A reply that only thanked or agreed is over: a stub, no turn.
    pub(super) fn drop_stub_opener(&mut self) {
        if self.opener_acknowledges && self.kept.trim().is_empty() {
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
        }
    }
}

/// A stock interjection alone, as an assistant opens an answer
/// ("Certainly!", "Of course.", "好的！"); a reply's own first words
/// ("Research first.", "Yes.") are not held.
fn is_interjection(sentence: &str) -> bool {
    let t = sentence.trim();
    let body = t.trim_end_matches(['!', '.', '！', '。']);
    body.len() < t.len() && PHRASES.interjections.contains(&body.to_lowercase())
}

/// A sentence that only thanks or agrees ("Thank you, Maya.", "I
/// completely agree!"): what is left once the room's names and the
/// punctuation are taken out is one of the language files' acknowledgements.
/// Only the others' names go: its own name makes it self-address.
fn is_acknowledgement(sentence: &str, voices: &Voices) -> bool {
    let mut t = sentence.trim().to_lowercase();
    if t.len() > 80 {
        return false;
    }
    // Thanking oneself is no acknowledgement: the self-address rules take it.
    for name in voices.others.iter().filter(|n| !n.is_empty()) {
        t = t.replace(&name.to_lowercase(), " ");
    }
    let words: Vec<&str> = t
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| !w.is_empty())
        .collect();
    // "Thank you, Sam and Kofi": the room's words between the names go too.
    let unnamed: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !PHRASES.salutation_room.iter().any(|r| r == w))
        .collect();
    [words, unnamed]
        .iter()
        .map(|w| w.join(" "))
        .any(|bare| !bare.is_empty() && PHRASES.acknowledgements.contains(&bare))
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
