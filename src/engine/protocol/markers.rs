//! Markers inside replies (the end marker, the ask marker) are signals to the
//! runtime, never text for the facilitator. Replies stream in pieces, so a
//! marker may be split across tokens: the filter holds back any tail that
//! could still become a marker until the next piece decides.

use std::ops::Range;

/// The marks a marker may open with (`!?@human`, `！？@人`). Small models
/// drop, double or swap them ("Hi!@human", "Yes!@human", "@human Hey
/// Sam!"; docs/decisions/2026-11-27-a-stance-in-the-questions-words.md), so a marker
/// that opens with them is known by the rest of it after any run of them,
/// and, when that rest is a mention (`@human`), by the mention alone as a word.
const MARKS: [char; 4] = ['!', '?', '！', '？'];

/// The marks around the word of a marker written as an HTML comment.
const COMMENT_MARKS: [char; 3] = ['<', '!', '-'];

/// One marker and the ways a model may write it.
#[derive(Debug, Clone)]
pub(crate) struct Marker {
    written: String,
    /// What follows the opening marks, when the marker has them.
    core: Option<String>,
    /// Other mentions the marker is known by, only after its marks: the
    /// facilitator's name for `@human` (`!@Sam:`), as small models write
    /// it. Alone, such a mention is speech ("@Sam, one question").
    aliases: Vec<String>,
    /// The word of a marker written as an HTML comment (`END` of
    /// `<!-- END -->`). Small models drop the comment's ends ("-- END",
    /// "END -->", "END" alone on the last line): the word with nothing but
    /// comment marks around it on its line, dashed or alone, is the marker.
    word: Option<String>,
}

impl Marker {
    pub(crate) fn new(written: &str) -> Marker {
        let core = written.trim_start_matches(MARKS);
        let core = (core.len() < written.len() && !core.trim().is_empty()).then(|| core.to_string());
        let word = written
            .strip_prefix("<!--")
            .and_then(|w| w.strip_suffix("-->"))
            .map(str::trim)
            .filter(|w| !w.is_empty() && w.chars().all(char::is_alphanumeric))
            .map(str::to_string);
        Marker {
            written: written.to_string(),
            core,
            aliases: Vec::new(),
            word,
        }
    }

    /// The marker as the runtime writes it.
    pub(crate) fn written(&self) -> &str {
        &self.written
    }

    /// The marker is also `mention` after its marks (`!@Sam` for
    /// `!?@human`); a marker without marks takes none.
    pub(crate) fn or_after_marks(mut self, mention: &str) -> Marker {
        if self.core.is_some() && !mention.trim_start_matches('@').trim().is_empty() {
            self.aliases.push(mention.to_string());
        }
        self
    }

    /// Where the marker is first written in `text`, in any of its spellings,
    /// with a colon right after it: written as a label (`!?@human: Amara, …`),
    /// the colon is no word of the reply either (nor a comma after one that
    /// opens its line, `find_after`).
    pub(crate) fn find(&self, text: &str) -> Option<Range<usize>> {
        self.find_after(None, text)
    }

    /// `find` in text that follows `prev`, the character before it (None:
    /// nothing is before it).
    /// A marker opening its line takes a comma after it too (`!?@human,
    /// thank you…`): left behind, the comma would open the line.
    fn find_after(&self, prev: Option<char>, text: &str) -> Option<Range<usize>> {
        let at = self.find_spelling(prev, text)?;
        let before = &text[..at.start];
        let line_start = match before.rfind('\n') {
            Some(n) => before[n + 1..].trim().is_empty(),
            None => before.trim().is_empty() && prev.is_none_or(|c| c == '\n'),
        };
        let colon = text[at.end..]
            .chars()
            .next()
            .filter(|c| matches!(c, ':' | '：') || line_start && matches!(c, ',' | '，'))
            .map_or(0, char::len_utf8);
        Some(at.start..at.end + colon)
    }

    fn find_spelling(&self, prev: Option<char>, text: &str) -> Option<Range<usize>> {
        if self.written.is_empty() {
            return None;
        }
        let Some(core) = &self.core else {
            let exact = text.find(self.written.as_str()).map(|s| s..s + self.written.len());
            let mangled = || self.word.as_deref().and_then(|w| mangled(w, prev, text));
            return exact.or_else(mangled);
        };
        let own = self.core_at(
            core,
            |at| {
                let word_ends = !text[at + core.len()..].starts_with(char::is_alphanumeric);
                marks_before(&text[..at]) > 0 || self.mention_starts(prev, &text[..at]) && word_ends
            },
            text,
        );
        let aliases = self.aliases.iter().filter_map(|a| {
            self.core_at(
                a,
                |at| {
                    let word_ends = !text[at + a.len()..].starts_with(char::is_alphanumeric);
                    marks_before(&text[..at]) > 0 && word_ends
                },
                text,
            )
        });
        own.into_iter().chain(aliases).min_by_key(|r| r.start)
    }

    /// The first `core` in `text` that `counts` at its byte offset, with the
    /// marks before it.
    fn core_at(&self, core: &str, counts: impl Fn(usize) -> bool, text: &str) -> Option<Range<usize>> {
        let mut from = 0;
        while let Some(i) = text[from..].find(core) {
            let at = from + i;
            if counts(at) {
                return Some(at - marks_before(&text[..at])..at + core.len());
            }
            from = at + core.chars().next().map_or(1, char::len_utf8);
        }
        None
    }

    /// Whether a mention core (`@human`) after `before` would start a word.
    fn mention_starts(&self, prev: Option<char>, before: &str) -> bool {
        let last = before.chars().next_back().or(prev);
        self.core.as_ref().is_some_and(|c| c.starts_with('@')) && last.is_none_or(char::is_whitespace)
    }

    /// How many bytes at the end of `text` could still become the marker.
    fn open_tail(&self, prev: Option<char>, text: &str) -> usize {
        let Some(core) = &self.core else {
            let exact = longest_suffix_prefix(text, &self.written);
            let mangled = self.word.as_deref().map_or(0, |w| mangled_tail(w, prev, text));
            return exact.max(mangled);
        };
        // Marks, then a proper prefix of the rest (perhaps none of it yet);
        // or the start of a mention; an alias only after marks.
        let tail = |core: &str, bare: bool, upto: usize| {
            (0..upto)
                .rev()
                .filter(|&n| core.is_char_boundary(n) && text.ends_with(&core[..n]))
                .find_map(|n| {
                    let before = &text[..text.len() - n];
                    let marks = marks_before(before);
                    (marks > 0 || bare && n > 0 && self.mention_starts(prev, before)).then_some(marks + n)
                })
                .unwrap_or(0)
        };
        let aliases = self.aliases.iter().map(|a| tail(a, false, a.len()));
        aliases.fold(tail(core, true, core.len()), usize::max)
    }
}

/// Where `word` is first written as a comment marker with its ends
/// dropped: on its line, nothing after it but comment marks and blanks, and
/// before it a dashed opening (`--`, `<!--`) or nothing. `prev`: the
/// character before `text` (None: its start is a line's start).
fn mangled(word: &str, prev: Option<char>, text: &str) -> Option<Range<usize>> {
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let at = from + i;
        let end = at + word.len();
        from = end;
        if text[end..].starts_with(char::is_alphanumeric) {
            continue;
        }
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        let marks = text[line_start..at].trim_end_matches([' ', '\t']);
        let opening = marks.len() - marks.trim_end_matches(COMMENT_MARKS).len();
        let start = line_start + marks.len() - opening;
        let line_end = text[end..].find('\n').map_or(text.len(), |n| end + n);
        let after = &text[end..line_end];
        let closing = after.len() - after.trim_start_matches([' ', '\t', '-', '>']).len();
        let alone = text[line_start..start].trim().is_empty() && (line_start > 0 || prev.is_none_or(|c| c == '\n'));
        let dashed = text[start..at].contains("--") || after[..closing].contains("--");
        let word_starts = !text[..start].ends_with(char::is_alphanumeric);
        if after[closing..].trim().is_empty() && (alone || dashed) && word_starts {
            return Some(start..end + closing);
        }
    }
    None
}

/// How many bytes at the end of `text` could still become `word` written
/// as a mangled comment marker (`mangled`): comment marks, blanks and the
/// start of the word, where they open a line or a dashed opening.
fn mangled_tail(word: &str, prev: Option<char>, text: &str) -> usize {
    let line_start = text.rfind('\n').map_or(0, |n| n + 1);
    let line = &text[line_start..];
    let at_line_start = line_start > 0 || prev.is_none_or(|c| c == '\n');
    line.char_indices()
        .map(|(i, _)| i)
        .find(|&p| {
            let tail = &line[p..];
            let marks = tail.len() - tail.trim_start_matches(COMMENT_MARKS).len();
            let rest = tail[marks..].trim_start_matches([' ', '\t']);
            let could = word.starts_with(rest) && (marks > 0 || !rest.is_empty());
            let opens = (at_line_start && line[..p].trim().is_empty()) || tail.starts_with(['-', '<']);
            could && opens && !line[..p].ends_with(char::is_alphanumeric)
        })
        .map_or(0, |p| line.len() - p)
}

/// Bytes of the run of marks that `text` ends with.
fn marks_before(text: &str) -> usize {
    text.len() - text.trim_end_matches(MARKS).len()
}

/// Which of the room's markers: the end marker proposes the end, the ask
/// marker asks the facilitator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MarkerKind {
    End,
    Ask,
}

/// The room's two markers by name, so no reader depends on an order: the
/// marker filter and hygiene both know them from here, aliases included.
#[derive(Debug, Clone)]
pub(crate) struct RoomMarkers {
    pub end: Marker,
    pub ask: Marker,
}

impl RoomMarkers {
    pub(crate) fn iter(&self) -> impl Iterator<Item = (MarkerKind, &Marker)> {
        [(MarkerKind::End, &self.end), (MarkerKind::Ask, &self.ask)].into_iter()
    }

    /// A filter that takes both out of a reply; `found` tells which it met.
    pub(crate) fn filter(&self) -> RoomFilter {
        let (kinds, markers) = self.iter().map(|(k, m)| (k, m.clone())).unzip();
        RoomFilter {
            kinds,
            filter: MarkerFilter::of(markers),
        }
    }
}

/// The marker filter of the room's markers, asked by kind what it found.
#[derive(Debug, Clone)]
pub(crate) struct RoomFilter {
    /// The kind of each of the filter's markers, in its order.
    kinds: Vec<MarkerKind>,
    filter: MarkerFilter,
}

impl RoomFilter {
    pub(crate) fn push(&mut self, piece: &str) -> String {
        self.filter.push(piece)
    }

    pub(crate) fn finish(&mut self) -> String {
        self.filter.finish()
    }

    pub(crate) fn found(&self, kind: MarkerKind) -> bool {
        self.kinds.iter().position(|k| *k == kind).is_some_and(|i| self.filter.found(i))
    }
}

#[derive(Debug, Clone)]
pub struct MarkerFilter {
    markers: Vec<Marker>,
    pending: String,
    /// The last character let through (a line break while only blanks
    /// followed it): whether a mention starts a word, a marker its line.
    prev: Option<char>,
    found: Vec<bool>,
}

impl MarkerFilter {
    pub fn new(markers: Vec<String>) -> Self {
        MarkerFilter::of(markers.iter().map(|m| Marker::new(m)).collect())
    }

    /// A filter of markers already made (with their aliases).
    pub(crate) fn of(markers: Vec<Marker>) -> Self {
        MarkerFilter {
            found: vec![false; markers.len()],
            markers,
            pending: String::new(),
            prev: None,
        }
    }

    /// Feeds a piece; returns the text that is safe to show now.
    pub fn push(&mut self, piece: &str) -> String {
        self.pending.push_str(piece);
        self.take_markers(false);
        // A marker at the very end may still take a colon or a comma; anything else
        // there may still become a marker.
        let hold = self
            .markers
            .iter()
            .map(|m| match m.find_after(self.prev, &self.pending) {
                Some(at) if at.end == self.pending.len() => self.pending.len() - at.start,
                _ => m.open_tail(self.prev, &self.pending),
            })
            .max()
            .unwrap_or(0);
        let cut = self.pending.len() - hold;
        let out = self.pending[..cut].to_string();
        self.pending.replace_range(..cut, "");
        // Blanks let through at a line's start leave it the line's start:
        // a marker after them opens its line (and takes a comma).
        let line_tail = &out[out.rfind('\n').map_or(0, |n| n + 1)..];
        let at_line_start = line_tail.trim().is_empty() && (out.contains('\n') || self.prev.is_none_or(|c| c == '\n'));
        self.prev = if at_line_start && !out.is_empty() {
            Some('\n')
        } else {
            out.chars().next_back().or(self.prev)
        };
        out
    }

    /// The end of the reply: whatever was held back was not a marker.
    pub fn finish(&mut self) -> String {
        self.take_markers(true);
        std::mem::take(&mut self.pending)
    }

    /// Takes the markers out of the pending text; until the `last` piece is
    /// in, not one that ends it without a colon or a comma (one may follow).
    fn take_markers(&mut self, last: bool) {
        for (i, m) in self.markers.iter().enumerate() {
            while let Some(at) = m.find_after(self.prev, &self.pending) {
                let open = at.end == self.pending.len() && !self.pending[..at.end].ends_with([':', '：', ',', '，']);
                if open && !last {
                    break;
                }
                self.found[i] = true;
                self.pending.replace_range(at, "");
            }
        }
    }

    pub fn found(&self, index: usize) -> bool {
        self.found.get(index).copied().unwrap_or(false)
    }
}

/// Length in bytes of the longest suffix of `text` that is a proper prefix
/// of `marker`, cut at character boundaries.
fn longest_suffix_prefix(text: &str, marker: &str) -> usize {
    let max = marker.len().saturating_sub(1).min(text.len());
    (1..=max)
        .rev()
        .find(|&n| text.is_char_boundary(text.len() - n) && marker.is_char_boundary(n) && text.ends_with(&marker[..n]))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_room_filter_tells_each_marker_by_its_kind() {
        let room = RoomMarkers {
            end: Marker::new("<!-- END -->"),
            ask: Marker::new("!?@human").or_after_marks("@Sam"),
        };
        let mut f = room.filter();
        let shown = [f.push("Ship it. !@Sam: what budget?"), f.finish()].concat();
        assert!(f.found(MarkerKind::Ask) && !f.found(MarkerKind::End), "{shown:?}");
        let mut f = room.filter();
        let shown = [f.push("Done here. <!-- END -->"), f.finish()].concat();
        assert!(f.found(MarkerKind::End) && !f.found(MarkerKind::Ask), "{shown:?}");
        assert_eq!(shown.trim(), "Done here.");
    }

    #[test]
    fn marker_split_across_pieces_is_never_shown() {
        let mut f = MarkerFilter::new(vec!["<!-- END -->".into()]);
        let mut shown = String::new();
        for p in ["We agree. <", "!-- E", "ND -", "-> ", "bye"] {
            shown += &f.push(p);
        }
        shown += &f.finish();
        assert_eq!(shown, "We agree.  bye");
        assert!(f.found(0));
    }

    #[test]
    fn lookalike_is_released() {
        let mut f = MarkerFilter::new(vec!["<!-- END -->".into()]);
        let mut shown = f.push("a <!-- ");
        assert_eq!(shown, "a ");
        shown += &f.push("note -->");
        shown += &f.finish();
        assert_eq!(shown, "a <!-- note -->");
        assert!(!f.found(0));
    }

    #[test]
    fn an_end_marker_with_its_comment_ends_dropped_is_still_the_marker() {
        // What the local 1.5B wrote for `<!-- END -->`, split at every point.
        for (reply, shown, found) in [
            (
                "Okay, let's wrap up.\n\nThank you!\n\n-- END",
                "Okay, let's wrap up.\n\nThank you!\n\n",
                true,
            ),
            ("Thanks, all! -- END", "Thanks, all! ", true),
            ("Done.\nEND -->", "Done.\n", true),
            ("Done.\n<!-- END", "Done.\n", true),
            ("Done.\nEND\n", "Done.\n\n", true),
            ("好的，就这样。\n-- END --", "好的，就这样。\n", true),
            // The word in a sentence, or undashed after words: not the marker.
            ("The END of the beta is near.", "The END of the beta is near.", false),
            ("We reach the END soon.", "We reach the END soon.", false),
            ("Ship it -- ENDLESS tests first.", "Ship it -- ENDLESS tests first.", false),
            ("See the -- END -- of section two.", "See the -- END -- of section two.", false),
            ("A list:\n- Every team\n- Each one", "A list:\n- Every team\n- Each one", false),
        ] {
            for cut in (0..=reply.len()).filter(|&c| reply.is_char_boundary(c)) {
                let mut f = MarkerFilter::new(vec!["<!-- END -->".into(), "!?@human".into()]);
                let out = f.push(&reply[..cut]) + &f.push(&reply[cut..]) + &f.finish();
                assert_eq!(out, shown, "{reply:?} cut at {cut}");
                assert_eq!(f.found(0), found, "{reply:?} cut at {cut}");
            }
        }
        // Released text before it: "END" after words is not alone on its line.
        let mut f = MarkerFilter::new(vec!["<!-- END -->".into()]);
        let out = f.push("We are at the ") + &f.push("END") + &f.finish();
        assert_eq!(out, "We are at the END");
        assert!(!f.found(0));
    }

    #[test]
    fn multibyte_text_is_cut_safely() {
        let mut f = MarkerFilter::new(vec!["！？@人".into()]);
        let out = f.push("好的！") + &f.finish();
        assert_eq!(out, "好的！");
    }

    #[test]
    fn an_ask_marker_with_its_marks_dropped_or_swapped_is_still_the_marker() {
        // What the local 1.5B wrote for `!?@human`, split at every point.
        for (reply, shown) in [
            ("Hi!@human Ingrid has a point.", "Hi Ingrid has a point."),
            ("Yes!@human", "Yes"),
            ("Next step?!?@human", "Next step"),
            ("!?@human Which shop first?", " Which shop first?"),
            ("!?@human: Amara, which shop?", " Amara, which shop?"),
            // Opening its line, the marker takes a comma after it too (v14-byname).
            ("!?@human, thank you. Which shop?", " thank you. Which shop?"),
            ("Done.\n!?@human, which shop?", "Done.\n which shop?"),
            // Blanks before it, let through in an earlier piece, keep it the line's opening.
            ("Done.\n  !?@human, which shop?", "Done.\n   which shop?"),
            ("  !?@human, which shop?", "   which shop?"),
            ("Yes!@human, I think so.", "Yes, I think so."),
        ] {
            for cut in 0..=reply.len() {
                let mut f = MarkerFilter::new(vec!["<!-- END -->".into(), "!?@human".into()]);
                let out = f.push(&reply[..cut]) + &f.push(&reply[cut..]) + &f.finish();
                assert_eq!(out, shown, "{reply:?} cut at {cut}");
                assert!(f.found(1) && !f.found(0), "{reply:?}");
            }
        }
    }

    #[test]
    fn the_ask_marker_written_with_the_facilitators_name_is_still_the_marker() {
        // The local 1.5B wrote `!@Sam:` for `!?@human`, asking Sam a question;
        // split at every point. The name without marks, or as part of a
        // longer word, is speech.
        for (reply, shown, found) in [
            ("!@Sam: Could you say more?", " Could you say more?", true),
            ("Which shop first??@Sam", "Which shop first", true),
            ("!?@Sam Which shop first?", " Which shop first?", true),
            ("@Sam, which shop first?", "@Sam, which shop first?", false),
            ("Ask!@Samantha first.", "Ask!@Samantha first.", false),
        ] {
            for cut in 0..=reply.len() {
                let mut f = MarkerFilter::of(vec![Marker::new("<!-- END -->"), Marker::new("!?@human").or_after_marks("@Sam")]);
                let out = f.push(&reply[..cut]) + &f.push(&reply[cut..]) + &f.finish();
                assert_eq!(out, shown, "{reply:?} cut at {cut}");
                assert_eq!(f.found(1), found, "{reply:?}");
                assert!(!f.found(0), "{reply:?}");
            }
        }
        // The end marker takes no alias: it has no marks.
        assert!(Marker::new("<!-- END -->").or_after_marks("@Sam").aliases.is_empty());
    }

    #[test]
    fn the_mention_alone_is_the_marker_as_a_word_only() {
        for (reply, shown, found) in [
            ("@human Hey Sam! Pairing helps.", " Hey Sam! Pairing helps.", true),
            ("Agreed.\n@human", "Agreed.\n", true),
            (
                "Ask bob@human.example or @humans. Great!",
                "Ask bob@human.example or @humans. Great!",
                false,
            ),
        ] {
            for cut in (0..=reply.len()).filter(|&c| reply.is_char_boundary(c)) {
                let mut f = MarkerFilter::new(vec!["!?@human".into()]);
                let out = f.push(&reply[..cut]) + &f.push(&reply[cut..]) + &f.finish();
                assert_eq!(out, shown, "{reply:?} cut at {cut}");
                assert_eq!(f.found(0), found, "{reply:?}");
            }
        }
        // A mark at a piece's end may open the marker: held, then released.
        let mut f = MarkerFilter::new(vec!["!?@human".into()]);
        assert_eq!(f.push("Great!"), "Great");
        assert_eq!(f.push(" Really?") + &f.finish(), "! Really?");
        // The end marker is no mention.
        assert_eq!(Marker::new("<!-- END -->").find("@human END"), None);
    }

    #[test]
    fn a_full_width_marker_is_known_in_ascii_marks_too() {
        let mut f = MarkerFilter::new(vec!["！？@人".into()]);
        let out = f.push("好的!@人") + &f.push("请问预算？") + &f.finish();
        assert_eq!(out, "好的请问预算？");
        assert!(f.found(0));
        assert_eq!(Marker::new("！？@人").find("问！@人"), Some(3..10));
    }

    #[test]
    fn an_empty_marker_never_matches_and_keeps_the_others_places() {
        let mut f = MarkerFilter::new(vec![String::new(), "!?@human".into()]);
        let out = f.push("Ok.\n!?@human Why?") + &f.finish();
        assert_eq!(out, "Ok.\n Why?");
        assert!(!f.found(0) && f.found(1));
    }
}
