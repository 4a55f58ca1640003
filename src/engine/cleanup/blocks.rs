//! Code blocks, tables and quoted passages: kept whole, never cut inside.
//! A line that opens a fenced code block (```` ``` ````, `~~~`), a table's
//! row (`| … |`) or a quotation (`> …`) passes as it is written, at every
//! level: no sentence rule reads it, and a line repeated inside one is no
//! loop (its words are not remembered as the reply's own). A quoted line
//! that is another's label (`> Kofi: …`) is no quotation: the rules read
//! it as any line.

use super::{labels, Cleanup, Step};

/// The most lines a code block holds before the text after its fence is
/// read as prose: a fence a model never closes would otherwise pass the
/// rest of its reply unread. (The longest block in the replayed public
/// transcripts has 26 lines.)
pub(super) const FENCE_LINES: usize = 80;

/// An open fenced code block.
pub(super) struct Fence {
    /// Its marks (```` ``` ````, `~~~`): the line that starts with them closes it.
    marks: String,
    /// The lines it has held.
    lines: usize,
}

/// What the text at hand is.
pub(super) enum Block {
    /// A block's text passed: look again.
    Passed,
    /// Not known yet (a fence's first marks, a quotation's unfinished
    /// line): wait for more.
    Wait,
    /// Prose: the sentence rules judge it.
    Prose,
}

impl Cleanup {
    /// Passes the block text at the start of `cur`, if any. `ending`: the
    /// stream is over, so nothing more will decide.
    pub(super) fn take_block(&mut self, step: &mut Step, ending: bool) -> Block {
        if self.cur.is_empty() {
            return Block::Prose;
        }
        if self.block_line {
            // The rest of a block's line passes as it comes.
            let end = self.cur.find('\n').map_or(self.cur.len(), |n| n + 1);
            let text = self.cur[..end].to_string();
            self.cur.replace_range(..end, "");
            self.keep_block(&text, step);
            if text.ends_with('\n') {
                self.block_line = false;
                self.line_start = true;
                return Block::Passed;
            }
            return Block::Wait;
        }
        if !self.line_start || self.shown > 0 {
            return Block::Prose;
        }
        let whole_line = self.cur.contains('\n') || ending;
        let t = self.cur.trim_start_matches([' ', '\t']);
        if let Some(fence) = &mut self.fence {
            // Inside a fence every line is code; the closing fence ends it.
            let head = t.trim_end();
            if t.starts_with(fence.marks.as_str()) {
                self.fence = None;
            } else if !whole_line && (head.is_empty() || fence.marks.starts_with(head)) {
                return Block::Wait;
            } else if fence.lines >= FENCE_LINES {
                // A fence left open is no licence: the rest is read as prose.
                self.fence = None;
                return Block::Prose;
            } else {
                fence.lines += 1;
            }
            self.block_line = true;
            return Block::Passed;
        }
        let first = t.chars().next();
        match first {
            None => Block::Prose,
            Some(c @ ('`' | '~')) => {
                let run = t.chars().take_while(|&x| x == c).count();
                if run >= 3 {
                    self.fence = Some(Fence {
                        marks: c.to_string().repeat(run),
                        lines: 0,
                    });
                    self.block_line = true;
                    Block::Passed
                } else if run == t.trim_end().chars().count() && !whole_line {
                    Block::Wait
                } else {
                    Block::Prose
                }
            }
            Some('|') => {
                self.block_line = true;
                Block::Passed
            }
            Some('>') if !whole_line => Block::Wait,
            Some('>') => {
                let line = self.cur.split('\n').next().unwrap_or_default();
                if labels::label_at_start(line, &self.voices.others).is_some() {
                    Block::Prose
                } else {
                    self.block_line = true;
                    Block::Passed
                }
            }
            Some(_) => Block::Prose,
        }
    }

    /// Block text kept as it is: what a held heading or opening announced
    /// comes, so they show first.
    fn keep_block(&mut self, text: &str, step: &mut Step) {
        self.release_opener(step);
        self.release_heading(step);
        self.reply_start = false;
        self.after_copy = false;
        self.scanned = 0;
        step.show.push_str(text);
        self.kept.push_str(text);
    }
}

/// The lines of `text` outside fenced code blocks (the fences too are
/// code): what a rule that reads a reply's words or points reads.
pub(super) fn prose_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut in_block = false;
    text.lines().filter(move |l| {
        let fence = l.trim_start().starts_with("```") || l.trim_start().starts_with("~~~");
        in_block ^= fence;
        !fence && !in_block
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::room_markers;
    use super::super::*;
    use crate::engine::protocol::markers::Marker;

    /// `reply` through a speaker's turn's cleanup at `level`, in pieces of `n`.
    fn cleaned(reply: &str, n: usize, level: Level) -> (String, Vec<&'static str>) {
        let mut v = Voices::new("Maya", vec!["Kofi".into(), "Sam".into()], vec![], language::of("English"))
            .earlier("We should ship the smallest thing that could work and measure it in production.");
        v.markers = Some(room_markers(Marker::new("!?@human")));
        v.points = Some(2);
        let mut h = Cleanup::new(&v, None, level);
        let chars: Vec<char> = reply.chars().collect();
        let mut shown = String::new();
        for piece in chars.chunks(n) {
            let step = h.push(&piece.iter().collect::<String>());
            shown.push_str(&step.show);
            if step.stop {
                break;
            }
        }
        shown.push_str(&h.finish(false));
        (shown, h.cuts().iter().map(|c| c.kind.code()).collect())
    }

    #[test]
    fn code_tables_and_quotations_pass_whole_at_every_level() {
        for reply in [
            // Repeated lines in code are no loop, its list marks no points.
            "Try this:\n```yaml\n- name: build\n- name: build\n- name: build\n- name: test\n```\nThat covers it.",
            "Try this:\n~~~\nretry();\nretry();\nretry();\n~~~",
            // A table's rows, however alike.
            "| risk | owner |\n|---|---|\n| data loss | Kofi |\n| data loss | Kofi |\n| downtime | Maya |",
            // A quotation of what was said before is no echo.
            "Kofi put it well:\n> We should ship the smallest thing that could work and measure it in production.\nI agree, with one change.",
        ] {
            for level in [Level::Full, Level::Light] {
                for n in [1, 3, 100] {
                    let (shown, cuts) = cleaned(reply, n, level);
                    assert_eq!(shown, reply, "{level:?} in pieces of {n}");
                    assert!(cuts.is_empty(), "{cuts:?}");
                }
            }
        }
    }

    #[test]
    fn a_code_blocks_list_marks_are_no_points_of_the_turn() {
        // `points` is 2: the turn's own two points come after the code.
        let reply = "Like this:\n```yaml\n- name: build\n- name: test\n```\n- Pilot with one team first.\n- Measure the weekly drop-off.";
        let (shown, cuts) = cleaned(reply, 5, Level::Full);
        assert_eq!(shown, reply);
        assert!(cuts.is_empty(), "{cuts:?}");
    }

    #[test]
    fn a_fence_never_closed_is_read_as_prose_after_its_most_lines() {
        let code: String = (0..super::super::blocks::FENCE_LINES).map(|i| format!("step_{i}();\n")).collect();
        let reply = format!("Try this:\n```\n{code}Kofi: And I agree with myself.\nMore.");
        let (shown, cuts) = cleaned(&reply, 7, Level::Full);
        assert!(shown.starts_with(&format!("Try this:\n```\n{code}")), "{shown:?}");
        assert!(!shown.contains("Kofi:"), "{shown:?}");
        assert_eq!(cuts, ["speaks_as_other"]);
    }

    #[test]
    fn a_quoted_line_that_is_anothers_label_is_read_as_prose() {
        let (shown, cuts) = cleaned("I like it.\n> Kofi: And I agree with myself.", 3, Level::Full);
        assert_eq!(shown.trim(), "I like it.");
        assert_eq!(cuts, ["speaks_as_other"]);
    }
}
