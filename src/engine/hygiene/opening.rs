//! How a reply opens. A small model often answers the turn note before it
//! speaks — "Certainly! Here's Priya's response as she would speak:", a bare
//! ": Amara, …" — and none of that is a word of the meeting. A lone
//! interjection first ("Certainly!") waits for the sentence after it:
//! dropped with a meta sentence, shown with anything else.

use super::labels::{is_meta, strip_preface};
use super::phrases::PHRASES;
use super::{CutKind, Hygiene, Step};

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

    /// Holds a lone interjection that opens the reply until the next
    /// sentence shows what it opened. False: `sentence` is no such opener.
    pub(super) fn hold_opener(&mut self, sentence: &str) -> bool {
        if !self.reply_start || self.opener.is_some() || !is_interjection(sentence) {
            return false;
        }
        self.opener = Some(sentence.to_string());
        true
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
