//! A heading held back until a word under it is kept: what it headed may
//! all be cut (`rules.rs`, `Does::HoldHeading`), and a heading over nothing
//! is no turn's.

use super::{lists, Cleanup, CutKind, Step};

/// A heading held back until a word under it is kept (`Cleanup::heading`).
#[derive(Debug)]
pub(super) struct HeldHeading {
    /// The heading, the lesser headings under it and the line breaks after.
    pub(super) text: String,
    /// Points of its list were dropped: words after them that are no point
    /// of it (the paragraph after the list) are not what it announced.
    pub(super) points_lost: bool,
}

impl Cleanup {
    /// Holds `heading`: under one held already when it is a lesser heading
    /// (`### Step 1` under `## Plan`, `build:` under `jobs:`); else the one
    /// held had nothing under it and goes.
    pub(super) fn hold_heading(&mut self, heading: String) {
        match self.heading.as_mut() {
            // A heading whose points were cut heads nothing that follows.
            Some(held) if !held.points_lost && lists::heads(&held.text, &heading) => held.text.push_str(&heading),
            _ => {
                self.drop_heading();
                self.heading = Some(HeldHeading {
                    text: heading,
                    points_lost: false,
                });
            }
        }
    }

    /// Words after the held heading are kept (`point`: they open a point
    /// of a list): it heads them and is shown, unless points of its list
    /// were cut and these words are no point of it; then what it
    /// announced is gone, and so is it.
    pub(super) fn settle_heading(&mut self, point: bool, step: &mut Step) {
        if self.heading.as_ref().is_some_and(|h| h.points_lost) && !point {
            self.drop_heading();
        } else {
            self.release_heading(step);
        }
    }

    /// The held heading has a word under it: shown, ahead of `step`'s text.
    pub(super) fn release_heading(&mut self, step: &mut Step) {
        if let Some(HeldHeading { text: heading, .. }) = self.heading.take() {
            let breaks = self.kept.len() - self.kept.trim_end_matches('\n').len();
            let heading = if breaks >= 2 {
                heading.trim_start_matches('\n').to_string()
            } else {
                heading
            };
            step.show.push_str(&heading);
            self.kept.push_str(&heading);
        }
    }

    /// The held heading had nothing under it: it goes.
    pub(super) fn drop_heading(&mut self) {
        if let Some(held) = self.heading.take() {
            self.cut(CutKind::EmptyHeading, held.text.trim());
        }
    }
}
