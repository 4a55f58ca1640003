//! Markers inside replies (the end marker, the ask marker) are signals to the
//! runtime, never text for the facilitator. Replies stream in pieces, so a
//! marker may be split across tokens: the filter holds back any tail that
//! could still become a marker until the next piece decides.

#[derive(Debug, Clone)]
pub struct MarkerFilter {
    markers: Vec<String>,
    pending: String,
    found: Vec<bool>,
}

impl MarkerFilter {
    pub fn new(markers: Vec<String>) -> Self {
        let found = vec![false; markers.len()];
        MarkerFilter {
            markers: markers.into_iter().filter(|m| !m.is_empty()).collect(),
            pending: String::new(),
            found,
        }
    }

    /// Feeds a piece; returns the text that is safe to show now.
    pub fn push(&mut self, piece: &str) -> String {
        self.pending.push_str(piece);
        for (i, m) in self.markers.iter().enumerate() {
            if self.pending.contains(m.as_str()) {
                self.found[i] = true;
                self.pending = self.pending.replace(m.as_str(), "");
            }
        }
        let hold = self
            .markers
            .iter()
            .map(|m| longest_suffix_prefix(&self.pending, m))
            .max()
            .unwrap_or(0);
        let cut = self.pending.len() - hold;
        let out = self.pending[..cut].to_string();
        self.pending.drain(..cut);
        out
    }

    /// The end of the reply: whatever was held back was not a marker.
    pub fn finish(&mut self) -> String {
        std::mem::take(&mut self.pending)
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
    fn multibyte_text_is_cut_safely() {
        let mut f = MarkerFilter::new(vec!["！？@人".into()]);
        let out = f.push("好的！") + &f.finish();
        assert_eq!(out, "好的！");
    }
}
