//! One reply read as it streams: every piece heard by the protocol first
//! (`protocol`: escapes out, markers heard, the speaker's own label off),
//! then cleaned at its endpoint's level (`cleanup`), its markers taken out
//! of what shows. The step machine's `Take` reads a server's reply through
//! it; the replay bench reads recorded replies through the same.

use crate::engine::cleanup::{Cleanup, CutKind, Level, Voices};
use crate::engine::protocol::markers::RoomMarkers;
use crate::engine::protocol::Protocol;

/// Pieces still read, unshown, after a cleanup rule ended what shows: a
/// marker the speaker writes after a point a rule cut (the list's end, a
/// loop) is still heard. Past them the request is dropped: a looping small
/// model would otherwise write to its cap (on the local 1.5B, 64 pieces are
/// about five seconds). After another's line nothing more is read: the
/// server is asked to stop there (`stop`), and what follows is not the
/// speaker's.
pub(crate) const HEARD_AFTER_STOP: u32 = 64;

pub(crate) struct ReplyReader {
    pub(crate) protocol: Protocol,
    pub(crate) cleanup: Cleanup,
    /// Pieces read since a cleanup rule ended what shows (None: none did).
    after_stop: Option<u32>,
    /// Where, in the reply as written, the text a rule ended the reply at
    /// begins (found once, when it stopped).
    cut_at: Option<usize>,
}

/// What one piece gave: the text that may show now, and whether the reply
/// is over (the request may be dropped).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Read {
    pub show: String,
    pub over: bool,
}

impl ReplyReader {
    /// `speaker`: whether the reply is a speaker's (its label is taken off
    /// at its start), not an internal call's.
    pub(crate) fn new(markers: RoomMarkers, voices: &Voices, speaker: bool, cap: Option<u32>, level: Level) -> ReplyReader {
        let (names, titles) = if speaker {
            (voices.own_names().map(String::from).collect(), voices.titles.clone())
        } else {
            (Vec::new(), Vec::new())
        };
        ReplyReader {
            protocol: Protocol::new(markers, names, titles),
            cleanup: Cleanup::new(voices, cap, level),
            after_stop: None,
            cut_at: None,
        }
    }

    /// The same reply written afresh (the server's retry).
    pub(crate) fn restart(&mut self) {
        self.protocol.restart();
        self.cleanup.restart();
        self.after_stop = None;
        self.cut_at = None;
    }

    /// A piece as the server wrote it.
    pub(crate) fn piece(&mut self, raw: &str) -> Read {
        let text = self.protocol.hear(raw);
        if let Some(n) = self.after_stop.as_mut() {
            *n += 1;
            return Read {
                show: String::new(),
                over: *n >= HEARD_AFTER_STOP,
            };
        }
        let step = self.cleanup.push(&text);
        let show = self.protocol.show(&step.show);
        Read {
            show,
            over: step.stop && self.stopped(),
        }
    }

    /// Cleanup ended what shows: another's line ends the reply at once (its
    /// start ends what the speaker wrote); any other rule leaves the stream
    /// heard a little longer for the speaker's markers. Whether it is over.
    fn stopped(&mut self) -> bool {
        if self.mark_cut() {
            return true;
        }
        self.after_stop = Some(0);
        false
    }

    /// Cleanup has ended the reply: where its cut begins in the reply as
    /// written (the last place its text stands so far: the one just read),
    /// and, after another's line, the speaker's reply ends there. Whether
    /// it was another's line.
    fn mark_cut(&mut self) -> bool {
        let Some(cut) = self.cleanup.stopped_by() else {
            return false;
        };
        let raw = self.protocol.raw();
        let at = raw.rfind(cut.text.trim()).unwrap_or(raw.len());
        self.cut_at = Some(at);
        let another = cut.kind == CutKind::SpeaksAsOther;
        if another {
            self.protocol.end_voice_at(at);
        }
        another
    }

    /// Where a rule ended the reply, in the reply as written (None: none did).
    pub(crate) fn cut_at(&self) -> Option<usize> {
        self.cut_at
    }

    /// The stream is over (`capped`: at its token cap): the last text to show.
    pub(crate) fn finish(&mut self, capped: bool) -> String {
        let mut show = String::new();
        let held = self.protocol.heard_all();
        if !held.is_empty() && !self.cleanup.stopped() {
            let step = self.cleanup.push(&held);
            show.push_str(&self.protocol.show(&step.show));
        }
        let last = self.cleanup.finish(capped);
        // A rule may end the reply at its last sentence, judged only now.
        if self.cut_at.is_none() && self.cleanup.stopped() {
            self.mark_cut();
        }
        show.push_str(&self.protocol.show(&last));
        show.push_str(&self.protocol.shown_all());
        show
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::protocol::markers::{Marker, MarkerKind};

    fn reader(level: Level) -> ReplyReader {
        let markers = RoomMarkers {
            end: Marker::new("<!-- END -->"),
            ask: Marker::new("!?@human"),
        };
        let mut v = Voices::new("Maya", vec!["Kofi".into()], vec![], None);
        v.markers = Some(markers.clone());
        v.points = Some(2);
        ReplyReader::new(markers, &v, true, None, level)
    }

    fn read(r: &mut ReplyReader, reply: &str) -> (String, bool) {
        let mut shown = String::new();
        for word in reply.split_inclusive(' ') {
            let read = r.piece(word);
            shown += &read.show;
            if read.over {
                return (shown, true);
            }
        }
        (shown + &r.finish(false), false)
    }

    #[test]
    fn every_level_takes_the_speakers_label_and_the_markers_off() {
        for level in [Level::Off, Level::Light, Level::Full] {
            let mut r = reader(level);
            let (shown, _) = read(&mut r, "**Maya**: Ship it on Friday. <!-- END -->");
            assert_eq!(shown.trim(), "Ship it on Friday.", "{level:?}");
            assert!(r.protocol.found(MarkerKind::End), "{level:?}");
        }
    }

    #[test]
    fn a_marker_a_while_after_a_cut_is_heard_and_one_too_far_is_not() {
        let list = "Plan:\n1. One.\n2. Two.\n3. Three.\n";
        let mut r = reader(Level::Full);
        let (shown, _) = read(&mut r, &format!("{list}Done. <!-- END -->"));
        assert_eq!(shown, "Plan:\n1. One.\n2. Two.\n");
        assert!(r.protocol.found(MarkerKind::End));
        let far = "word ".repeat(HEARD_AFTER_STOP as usize);
        let mut r = reader(Level::Full);
        let (_, over) = read(&mut r, &format!("{list}{far}<!-- END -->"));
        assert!(over, "the request is dropped");
        assert!(!r.protocol.found(MarkerKind::End));
    }

    #[test]
    fn a_marker_in_anothers_line_that_ends_the_stream_is_not_the_speakers() {
        // No full stop after Kofi's line: cleanup meets it only at the end.
        let mut r = reader(Level::Full);
        let (shown, _) = read(
            &mut r,
            "Ship the pilot to one team first.\n**Kofi:** Agreed, let's wrap up <!-- END -->",
        );
        assert_eq!(shown.trim(), "Ship the pilot to one team first.");
        assert!(!r.protocol.found(MarkerKind::End));
    }

    #[test]
    fn a_question_after_a_loop_is_read_from_where_the_loop_began() {
        let s = "We should pilot this with one team for a whole month first.";
        let mut r = reader(Level::Full);
        let (shown, over) = read(&mut r, &format!("{s}\n{s}\n!?@human Which users matter most?\n{s}\n{s}"));
        assert!(!over);
        assert_eq!(shown.trim(), s);
        let kept = r.cleanup.kept().to_string();
        assert_eq!(r.protocol.question(&kept, r.cut_at()).as_deref(), Some("Which users matter most?"));
    }
}
