//! The protocol of a reply: what the runtime hears in it, whatever cleanup
//! makes of it. Every piece a server streams is read here first, before any
//! cleanup (`engine::cleanup`) sees it:
//!
//! - escape sequences and control characters are taken out (`text::Sanitizer`),
//!   so none reaches a terminal, a log or a page;
//! - the end and ask markers are heard in the reply as written, in every
//!   spelling a model mangles them to (`markers.rs`): no cleanup rule can
//!   hide a proposal or a question;
//! - the speaker's own label at the reply's start (`Maya:`, `**Maya**:`) is
//!   taken off (`label.rs`), whatever the endpoint's cleanup level;
//! - markers never show: they are taken out of what cleanup kept.
//!
//! The step machine feeds a `Protocol` the raw pieces (`hear`), hands what it
//! returns to cleanup, and shows what cleanup keeps through `show`.

pub(crate) mod label;
pub mod markers;
mod question;

pub(crate) use question::question_after_marker;

use markers::{MarkerKind, RoomFilter, RoomMarkers};

use crate::text::Sanitizer;

/// Bytes of a reply's start held at most while they may still become the
/// speaker's own label (a title in brackets is under 48 characters).
const LABEL_HOLD: usize = 160;

/// One reply's protocol, from its first piece to its end.
pub(crate) struct Protocol {
    markers: RoomMarkers,
    /// The names a label at the reply's start is the speaker's by.
    own: Vec<String>,
    /// Its titles: a label too, but not opening a list's item ("- Business
    /// Analyst: gathers requirements" names a role).
    titles: Vec<String>,
    sanitizer: Sanitizer,
    /// The markers heard in the reply as written.
    heard: RoomFilter,
    /// The markers taken out of what cleanup kept.
    shown: RoomFilter,
    /// The reply as written, sanitised, markers in it.
    raw: String,
    /// The reply's start while it may still become the speaker's label.
    start: Option<String>,
    /// The label taken off the reply's start.
    label: Option<String>,
    /// The markers of the speaker's own part, where its reply ended before
    /// the stream did (another's line began: `end_voice_at`).
    voiced: Option<RoomFilter>,
}

impl Protocol {
    /// `own`, `titles`: the speaker's names and titles (none for a call of
    /// no speaker's, which has no label to take off).
    pub(crate) fn new(markers: RoomMarkers, own: Vec<String>, titles: Vec<String>) -> Protocol {
        let own: Vec<String> = own.into_iter().filter(|n| !n.trim().is_empty()).collect();
        let titles: Vec<String> = titles.into_iter().filter(|n| !n.trim().is_empty()).collect();
        Protocol {
            heard: markers.filter(),
            shown: markers.filter(),
            markers,
            start: (!own.is_empty() || !titles.is_empty()).then(String::new),
            own,
            titles,
            sanitizer: Sanitizer::new(),
            raw: String::new(),
            label: None,
            voiced: None,
        }
    }

    /// The same reply written afresh (the server's retry): nothing heard.
    pub(crate) fn restart(&mut self) {
        *self = Protocol::new(
            self.markers.clone(),
            std::mem::take(&mut self.own),
            std::mem::take(&mut self.titles),
        );
    }

    /// Reads a raw piece: the text cleanup gets of it (sanitised, the
    /// speaker's label at the start taken off, markers still in place for
    /// cleanup to judge the words around them).
    pub(crate) fn hear(&mut self, piece: &str) -> String {
        let text = self.sanitizer.push(piece);
        self.raw.push_str(&text);
        // Only the flags matter here: what shows is `show`'s.
        let _ = self.heard.push(&text);
        match self.start.as_mut() {
            None => text,
            Some(start) => {
                start.push_str(&text);
                self.settle_start(false)
            }
        }
    }

    /// The stream is over: what was held at its start.
    pub(crate) fn heard_all(&mut self) -> String {
        let _ = self.heard.finish();
        self.settle_start(true)
    }

    /// Whether the held start is the speaker's label, is not, or may still
    /// become it (`done`: nothing more comes). Returns the text released.
    fn settle_start(&mut self, done: bool) -> String {
        let Some(start) = self.start.as_ref() else {
            return String::new();
        };
        // A title opening a list's item names a role, not the speaker.
        let titles = if label::opens_list_item(start) { &[][..] } else { &self.titles[..] };
        let labels: Vec<&String> = self.own.iter().chain(titles).collect();
        if let Some(rest) = labels.iter().find_map(|n| label::strip_label(start, n)) {
            // A label is whole once words follow it, or the stream ended.
            if !rest.trim().is_empty() || done {
                let cut = start.len() - rest.len();
                self.label = Some(start[..cut].trim().to_string());
                let rest = rest.to_string();
                self.start = None;
                return rest;
            }
            return String::new();
        }
        let labels: Vec<String> = labels.into_iter().cloned().collect();
        if !done && start.len() < LABEL_HOLD && label::could_be_own_label(start, &labels) {
            return String::new();
        }
        self.start.take().unwrap_or_default()
    }

    /// Text cleanup kept: what may show of it (markers taken out, the tail
    /// that may still become one held back).
    pub(crate) fn show(&mut self, kept: &str) -> String {
        self.shown.push(kept)
    }

    /// The reply's end: what was held back as a possible marker.
    pub(crate) fn shown_all(&mut self) -> String {
        self.shown.finish()
    }

    /// The speaker's reply ended at byte `at` of the reply as written
    /// (`raw`): another's line began there. What follows is not the
    /// speaker's, and no marker in it is theirs.
    pub(crate) fn end_voice_at(&mut self, at: usize) {
        let at = crate::text::floor_char_boundary(&self.raw, at);
        self.raw.truncate(at);
        let mut own = self.markers.filter();
        let _ = own.push(&self.raw);
        let _ = own.finish();
        self.voiced = Some(own);
    }

    /// Whether the speaker's reply as written holds the marker of `kind`.
    pub(crate) fn found(&self, kind: MarkerKind) -> bool {
        self.voiced.as_ref().unwrap_or(&self.heard).found(kind)
    }

    /// The question the reply asks the facilitator, if it wrote the ask
    /// marker: after the marker in what cleanup `kept`; else, where cleanup
    /// stopped the reply before the marker (`cut_at`: where the text it
    /// ended the reply at begins, in the reply as written), after that
    /// point. (A marker cleanup read and dropped with its sentence, a
    /// question handed back, asks nothing.)
    pub(crate) fn question(&self, kept: &str, cut_at: Option<usize>) -> Option<String> {
        if !self.found(MarkerKind::Ask) {
            return None;
        }
        if self.markers.ask.find(kept).is_some() {
            return question_after_marker(kept, &self.markers.ask);
        }
        let at = crate::text::floor_char_boundary(&self.raw, cut_at?);
        question_after_marker(&self.raw[at..], &self.markers.ask)
    }

    /// The speaker's label taken off the reply's start, if any.
    pub(crate) fn label(&self) -> Option<&str> {
        self.label.as_deref()
    }

    /// The reply as written (sanitised), up to now.
    pub(crate) fn raw(&self) -> &str {
        &self.raw
    }
}

#[cfg(test)]
mod tests {
    use super::markers::Marker;
    use super::*;

    /// A speaker's protocol: `own[0]` its name, the rest its titles.
    fn protocol(own: &[&str]) -> Protocol {
        let markers = RoomMarkers {
            end: Marker::new("<!-- END -->"),
            ask: Marker::new("!?@human").or_after_marks("@Sam"),
        };
        let names = own.iter().take(1).map(|s| s.to_string()).collect();
        let titles = own.iter().skip(1).map(|s| s.to_string()).collect();
        Protocol::new(markers, names, titles)
    }

    /// `reply` in pieces of `n` characters: what cleanup gets.
    fn heard(p: &mut Protocol, reply: &str, n: usize) -> String {
        let chars: Vec<char> = reply.chars().collect();
        let mut out = String::new();
        for piece in chars.chunks(n) {
            out += &p.hear(&piece.iter().collect::<String>());
        }
        out + &p.heard_all()
    }

    #[test]
    fn the_speakers_own_label_at_the_start_is_taken_off_in_any_pieces() {
        for (reply, text, label) in [
            ("Maya: Ship it.", "Ship it.", Some("Maya:")),
            (
                "📊 **Maya (Business Analyst):** Ship it.",
                "Ship it.",
                Some("📊 **Maya (Business Analyst):**"),
            ),
            ("Business Analyst: Ship it.", "Ship it.", Some("Business Analyst:")),
            ("Maya's plan works.", "Maya's plan works.", None),
            ("Ship it, Maya: now.", "Ship it, Maya: now.", None),
            ("Kofi: Ship it.", "Kofi: Ship it.", None),
            ("Maya", "Maya", None),
            // A title opening a list's item names a role, not the speaker.
            (
                "- Business Analyst: gathers requirements",
                "- Business Analyst: gathers requirements",
                None,
            ),
        ] {
            for n in [1, 2, 5, 100] {
                let mut p = protocol(&["Maya", "Business Analyst"]);
                assert_eq!(heard(&mut p, reply, n), text, "{reply:?} in pieces of {n}");
                assert_eq!(p.label(), label, "{reply:?} in pieces of {n}");
            }
        }
        // A call of no speaker's takes nothing off.
        let mut p = protocol(&[]);
        assert_eq!(heard(&mut p, "Maya: Ship it.", 3), "Maya: Ship it.");
    }

    #[test]
    fn markers_are_heard_in_the_reply_as_written_and_never_shown() {
        let mut p = protocol(&["Maya"]);
        let text = heard(&mut p, "Done here.\n-- END", 2);
        assert!(p.found(MarkerKind::End) && !p.found(MarkerKind::Ask));
        // Cleanup gets the marker in place; the screen never does.
        assert_eq!(text, "Done here.\n-- END");
        assert_eq!(p.show(&text) + &p.shown_all(), "Done here.\n");
    }

    #[test]
    fn a_question_after_a_marker_cleanup_did_not_keep_is_read_from_the_reply_as_written() {
        let mut p = protocol(&["Maya"]);
        let raw = "Research first.\n1. Users\n2. Budget\n3. Time\n!?@human Which users matter most?";
        let _ = heard(&mut p, raw, 4);
        // Cleanup ended the reply at the list's third point.
        let kept = "Research first.\n1. Users\n2. Budget\n";
        let cut_at = raw.find("3. Time");
        assert_eq!(p.question(kept, cut_at).as_deref(), Some("Which users matter most?"));
        // Where cleanup kept the marker, its question is the one kept.
        let kept = "Research first.\n!?@human Which users?";
        assert_eq!(p.question(kept, cut_at).as_deref(), Some("Which users?"));
        // Dropped with its sentence, not stopped before: it asks nothing.
        assert_eq!(p.question("Research first.\n", None), None);
        // No marker written: no question, whatever the text asks.
        let mut p = protocol(&["Maya"]);
        let _ = heard(&mut p, "Which users matter most?", 4);
        assert_eq!(p.question("Which users matter most?", Some(0)), None);
        // A marker cleanup read and dropped before the point it stopped at
        // (the facilitator's question handed back, then a loop) asks nothing.
        let mut p = protocol(&["Maya"]);
        let raw = "!?@human Should we rewrite it?\nShip small. Ship small.";
        let _ = heard(&mut p, raw, 4);
        assert_eq!(p.question("Ship small. ", raw.rfind("Ship small.")), None);
    }

    #[test]
    fn a_marker_after_anothers_line_is_not_the_speakers() {
        let mut p = protocol(&["Maya"]);
        let raw = "I agree.\nKofi: Me too, let us wrap up. <!-- END -->";
        let _ = heard(&mut p, raw, 5);
        assert!(p.found(MarkerKind::End));
        p.end_voice_at(raw.find("Kofi:").unwrap_or(0));
        assert!(!p.found(MarkerKind::End), "Kofi's proposal, written by the model for him");
        let mut p = protocol(&["Maya"]);
        let raw = "Let us wrap up. <!-- END -->\nKofi: Me too.";
        let _ = heard(&mut p, raw, 5);
        p.end_voice_at(raw.find("Kofi:").unwrap_or(0));
        assert!(p.found(MarkerKind::End), "Maya's own, before Kofi's line");
    }

    #[test]
    fn escapes_never_pass_the_protocol() {
        let mut p = protocol(&["Maya"]);
        let text = heard(&mut p, "Ship \u{1b}[31mit\u{1b}[0m now.", 3);
        assert_eq!(text, "Ship it now.");
        assert_eq!(p.raw(), "Ship it now.");
    }
}
