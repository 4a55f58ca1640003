//! The runtime's markers as cleanup meets them in a reply: a line of a
//! marker alone is a signal, no words; a line that opens with one is read
//! from the words after it (`rules.rs`, `past_marker`). The protocol hears
//! them (`engine::protocol`); cleanup only places the words around them.

use super::Cleanup;
use crate::engine::protocol::markers::{Marker, MarkerKind};

impl Cleanup {
    /// Whether `text` is one of the runtime's markers and nothing else.
    pub(super) fn is_marker_line(&self, text: &str) -> bool {
        // Compared without spaces ("<!--END-->" is the marker too), nothing
        // allocated: every kept piece of a reply passes here. Another
        // spelling (`!@Sam:`) opens with marks, and only then is looked for.
        fn bare(s: &str) -> impl Iterator<Item = char> + '_ {
            s.chars().filter(|c| !c.is_whitespace())
        }
        let t = text.trim();
        !t.is_empty()
            && (self.markers().any(|m| bare(m.written()).eq(bare(t)))
                || t.starts_with(['!', '?', '！', '？'])
                    && self.markers().any(|m| m.find(t).is_some_and(|r| r.start == 0 && r.end == t.len())))
    }

    /// Where the words of a line that opens with a marker begin (`!?@human
    /// Priya: …`): past the marker and the blanks after it, or 0 when the
    /// line opens with none. A rule at a line's start reads from there.
    pub(super) fn marker_lead(&self, line: &str) -> usize {
        self.leading_marker(line).map_or(0, |(_, lead)| lead)
    }

    /// The marker a line opens with and `marker_lead`; None when it opens
    /// with none.
    pub(super) fn leading_marker(&self, line: &str) -> Option<(MarkerKind, usize)> {
        let blanks = line.len() - line.trim_start().len();
        self.voices.markers.iter().flat_map(|m| m.iter()).find_map(|(kind, m)| {
            let at = m.find(&line[blanks..]).filter(|at| at.start == 0)?;
            let rest = &line[blanks + at.end..];
            Some((kind, blanks + at.end + rest.len() - rest.trim_start().len()))
        })
    }

    /// The markers as the marker filter knows them, aliases included.
    pub(super) fn markers(&self) -> impl Iterator<Item = &Marker> + '_ {
        self.voices.markers.iter().flat_map(|m| m.iter().map(|(_, m)| m))
    }
}
