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
        let own = if speaker {
            voices.own_labels(false).map(String::from).collect()
        } else {
            Vec::new()
        };
        ReplyReader {
            protocol: Protocol::new(markers, own),
            cleanup: Cleanup::new(voices, cap, level),
            after_stop: None,
        }
    }

    /// The same reply written afresh (the server's retry).
    pub(crate) fn restart(&mut self) {
        self.protocol.restart();
        self.cleanup.restart();
        self.after_stop = None;
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
        match self.cleanup.stopped_by() {
            Some(cut) if cut.kind == CutKind::SpeaksAsOther => {
                let raw = self.protocol.raw();
                let at = raw.rfind(cut.text.trim()).unwrap_or(raw.len());
                self.protocol.end_voice_at(at);
                true
            }
            _ => {
                self.after_stop = Some(0);
                false
            }
        }
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
}
