//! The reading's word files (`words/*.toml`, one a language), read once:
//! what the facilitator's own words invite (`invitations.rs`) and what
//! their question asks of the room (`asked.rs`), and the words that tell
//! whether a question the host wrote fits the discussion (`fit.rs`). Every
//! language's lists are merged: a message is read the same whatever the
//! party's language. A file that does not parse is a build's mistake,
//! caught by the tests, never a user's.

use std::sync::LazyLock;

use include_dir::{include_dir, Dir};
use serde::Deserialize;

static FILES: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/src/engine/reading/words");

/// One language file (see `words/en.toml` for what each list is).
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct File {
    close: Vec<String>,
    ask: Vec<String>,
    close_blockers: Vec<String>,
    courtesies: Vec<String>,
    disagreement_asked: Vec<String>,
    objection_calls: Vec<String>,
    choice_asked: Vec<String>,
    still_yes_or_no: Vec<String>,
    quantity_asked: Vec<String>,
    number_words: Vec<String>,
    function_words: Vec<String>,
    template_facts: Vec<String>,
}

/// A phrase of the files, its marks read once: `^` before it, it must open
/// its clause; `$` after it, it must end it.
#[derive(Debug)]
pub(super) struct Phrase {
    pub(super) words: String,
    pub(super) opens: bool,
    pub(super) ends: bool,
}

impl Phrase {
    fn read(written: &str) -> Phrase {
        let (opens, rest) = written.strip_prefix('^').map_or((false, written), |w| (true, w));
        let (ends, words) = rest.strip_suffix('$').map_or((false, rest), |w| (true, w));
        Phrase {
            words: plain(words.trim()),
            opens,
            ends,
        }
    }
}

/// Every language's lists together.
#[derive(Debug, Default)]
pub(super) struct Words {
    pub(super) close: Vec<Phrase>,
    pub(super) ask: Vec<Phrase>,
    pub(super) close_blockers: Vec<String>,
    pub(super) courtesies: Vec<String>,
    pub(super) disagreement_asked: Vec<String>,
    pub(super) objection_calls: Vec<String>,
    pub(super) choice_asked: Vec<String>,
    pub(super) still_yes_or_no: Vec<String>,
    pub(super) quantity_asked: Vec<String>,
    pub(super) number_words: Vec<String>,
    pub(super) function_words: Vec<String>,
    pub(super) template_facts: Vec<String>,
}

/// As a message is compared: lowercased, its apostrophes straight.
pub(super) fn plain(text: &str) -> String {
    text.to_lowercase().replace('’', "'")
}

/// The built-in languages, read once.
pub(super) static WORDS: LazyLock<Words> = LazyLock::new(|| {
    let mut all = Words::default();
    let mut files: Vec<_> = FILES
        .files()
        .filter_map(|f| Some((f.path().to_str()?, f.contents_utf8()?)))
        .collect();
    files.sort();
    let plains = |list: &[String]| list.iter().map(|p| plain(p)).collect::<Vec<_>>();
    for (name, text) in files {
        match toml::from_str::<File>(text) {
            Ok(f) => {
                all.close.extend(f.close.iter().map(|p| Phrase::read(p)));
                all.ask.extend(f.ask.iter().map(|p| Phrase::read(p)));
                all.close_blockers.extend(plains(&f.close_blockers));
                all.courtesies.extend(plains(&f.courtesies));
                all.disagreement_asked.extend(plains(&f.disagreement_asked));
                all.objection_calls.extend(plains(&f.objection_calls));
                all.choice_asked.extend(plains(&f.choice_asked));
                all.still_yes_or_no.extend(plains(&f.still_yes_or_no));
                all.quantity_asked.extend(plains(&f.quantity_asked));
                all.number_words.extend(plains(&f.number_words));
                all.function_words.extend(plains(&f.function_words));
                all.template_facts.extend(plains(&f.template_facts));
            }
            Err(e) => panic!("src/engine/reading/words/{name}: {e}"),
        }
    }
    all
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_file_parses_and_fills_every_list() {
        let w = &*WORDS;
        assert!(w.close.len() > 10 && w.ask.len() > 10, "{w:?}");
        assert!(w.close.iter().chain(&w.ask).all(|p| !p.words.is_empty()));
        assert!(
            w.ask.iter().any(|p| p.opens) && w.close.iter().any(|p| p.ends),
            "the marks are read"
        );
        for (name, list) in [
            ("disagreement_asked", &w.disagreement_asked),
            ("objection_calls", &w.objection_calls),
            ("choice_asked", &w.choice_asked),
            ("still_yes_or_no", &w.still_yes_or_no),
            ("quantity_asked", &w.quantity_asked),
            ("number_words", &w.number_words),
            ("function_words", &w.function_words),
            ("template_facts", &w.template_facts),
        ] {
            assert!(list.len() >= 2 && list.iter().all(|p| !p.trim().is_empty()), "{name}: {list:?}");
        }
    }
}
