//! The phrases reply hygiene matches, as data: one file per language in
//! `phrases/` (`en.toml`, `zh.toml`), each list adding to the same list of
//! the other languages. The rules in this module say what a kind of phrase
//! does; which words make one is only ever written in those files.

use std::sync::{LazyLock, Mutex};

use regex_automata::nfa::thompson::{
    self,
    pikevm::{self, PikeVM},
};

use include_dir::{include_dir, Dir};
use serde::Deserialize;

static FILES: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/src/engine/cleanup/phrases");

/// Every language's phrases together (see `phrases/en.toml` for what each
/// list is). Matching ignores case: the lists are kept lowercase.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct Phrases {
    pub interjections: Vec<String>,
    pub acknowledgements: Vec<String>,
    pub nods: Vec<String>,
    pub closers: Vec<String>,
    pub acknowledgement_fillers: Vec<String>,
    pub runtime_note_openings: Vec<String>,
    pub writing: Vec<String>,
    pub about_reply: Vec<String>,
    pub about_reply_same: Vec<(String, String)>,
    pub greetings: Vec<String>,
    pub label_words: Vec<String>,
    pub first_person: Vec<String>,
    pub name_joiners: Vec<String>,
    pub self_attribution: Vec<String>,
    pub attribution: Vec<String>,
    pub sign_offs: Vec<String>,
    pub sign_offs_with_comma: Vec<String>,
    pub salutations: Vec<String>,
    pub salutation_room: Vec<String>,
    pub honorifics: Vec<String>,
    pub host_greetings: Vec<String>,
    pub quotes: Vec<String>,
    pub lead_ins: Vec<String>,
    pub out_of_character: Vec<String>,
    pub out_of_character_openings: Vec<String>,
    pub job_intro: Vec<String>,
    pub job_intro_openings: Vec<String>,
    pub leaning_openings: Vec<String>,
    pub room_question_openings: Vec<String>,
    pub room_question_words: Vec<String>,
    pub facts_question_words: Vec<String>,
    pub self_narration: Vec<String>,
    pub abbreviations: Vec<String>,
    pub list_asks: Vec<String>,
    pub count_words: Vec<String>,
}

impl Phrases {
    fn extend(&mut self, other: Phrases) {
        let Phrases {
            interjections,
            acknowledgements,
            nods,
            closers,
            acknowledgement_fillers,
            runtime_note_openings,
            writing,
            about_reply,
            about_reply_same,
            greetings,
            label_words,
            first_person,
            name_joiners,
            self_attribution,
            attribution,
            sign_offs,
            sign_offs_with_comma,
            salutations,
            salutation_room,
            honorifics,
            host_greetings,
            quotes,
            lead_ins,
            out_of_character,
            out_of_character_openings,
            job_intro,
            job_intro_openings,
            leaning_openings,
            room_question_openings,
            room_question_words,
            facts_question_words,
            self_narration,
            abbreviations,
            list_asks,
            count_words,
        } = other;
        self.interjections.extend(interjections);
        self.acknowledgements.extend(acknowledgements);
        self.nods.extend(nods);
        self.closers.extend(closers);
        self.acknowledgement_fillers.extend(acknowledgement_fillers);
        self.runtime_note_openings.extend(runtime_note_openings);
        self.writing.extend(writing);
        self.about_reply.extend(about_reply);
        self.about_reply_same.extend(about_reply_same);
        self.greetings.extend(greetings);
        self.label_words.extend(label_words);
        self.first_person.extend(first_person);
        self.name_joiners.extend(name_joiners);
        self.self_attribution.extend(self_attribution);
        self.attribution.extend(attribution);
        self.sign_offs.extend(sign_offs);
        self.sign_offs_with_comma.extend(sign_offs_with_comma);
        self.salutations.extend(salutations);
        self.salutation_room.extend(salutation_room);
        self.honorifics.extend(honorifics);
        self.host_greetings.extend(host_greetings);
        self.quotes.extend(quotes);
        self.lead_ins.extend(lead_ins);
        self.out_of_character.extend(out_of_character);
        self.out_of_character_openings.extend(out_of_character_openings);
        self.job_intro.extend(job_intro);
        self.job_intro_openings.extend(job_intro_openings);
        self.leaning_openings.extend(leaning_openings);
        self.room_question_openings.extend(room_question_openings);
        self.room_question_words.extend(room_question_words);
        self.facts_question_words.extend(facts_question_words);
        self.self_narration.extend(self_narration);
        self.abbreviations.extend(abbreviations);
        self.list_asks.extend(list_asks);
        self.count_words.extend(count_words);
    }

    fn lowercase(&mut self) {
        for list in [
            &mut self.interjections,
            &mut self.acknowledgements,
            &mut self.nods,
            &mut self.closers,
            &mut self.acknowledgement_fillers,
            &mut self.runtime_note_openings,
            &mut self.writing,
            &mut self.about_reply,
            &mut self.greetings,
            &mut self.label_words,
            &mut self.first_person,
            &mut self.name_joiners,
            &mut self.self_attribution,
            &mut self.attribution,
            &mut self.sign_offs,
            &mut self.sign_offs_with_comma,
            &mut self.salutations,
            &mut self.salutation_room,
            &mut self.honorifics,
            &mut self.host_greetings,
            &mut self.lead_ins,
            &mut self.out_of_character_openings,
            &mut self.job_intro_openings,
            &mut self.leaning_openings,
            &mut self.room_question_openings,
            &mut self.room_question_words,
            &mut self.facts_question_words,
            &mut self.self_narration,
            &mut self.abbreviations,
            &mut self.list_asks,
            &mut self.count_words,
        ] {
            for p in list.iter_mut() {
                *p = p.to_lowercase();
            }
        }
        // The openings are compared with a sentence's start as typed or curly.
        for o in &mut self.out_of_character_openings {
            *o = o.replace('’', "'");
        }
    }
}

/// The built-in languages, read once. A file that does not parse is a
/// build's mistake, caught by the test below, never a user's.
pub(super) static PHRASES: LazyLock<Phrases> = LazyLock::new(|| {
    let mut all = Phrases::default();
    for (name, text) in files() {
        match toml::from_str::<Phrases>(text) {
            Ok(p) => all.extend(p),
            Err(e) => panic!("src/engine/cleanup/phrases/{name}: {e}"),
        }
    }
    all.lowercase();
    all
});

/// The language files, by name, in name order.
fn files() -> Vec<(&'static str, &'static str)> {
    let mut files: Vec<_> = FILES
        .files()
        .filter(|f| f.path().extension().is_some_and(|e| e == "toml"))
        .filter_map(|f| Some((f.path().to_str()?, f.contents_utf8()?)))
        .collect();
    files.sort();
    files
}

/// The abbreviations a full stop closes without ending a sentence, lower
/// case, each whole (`z. b.` is one: a lone `b.` is a letter's stop).
static ABBREVIATIONS: LazyLock<Vec<String>> = LazyLock::new(|| PHRASES.abbreviations.iter().map(|a| a.to_lowercase()).collect());

/// Whether the full stop that ends `head` closes an abbreviation: one
/// ending there (`e.g.`, `z. B.`), or the first part of one written with
/// spaces that `word_on` (the text from that word's start) goes on with
/// (the `z.` of `z. B.`). None while `word_on` could still become one.
pub(super) fn closes_abbreviation(head: &str, word_on: &str) -> Option<bool> {
    let head = head.to_lowercase();
    let word_on = word_on.to_lowercase();
    let mut open = false;
    for a in ABBREVIATIONS.iter() {
        let whole = head
            .strip_suffix(a.as_str())
            .is_some_and(|before| !before.chars().next_back().is_some_and(char::is_alphanumeric));
        if whole || a.contains(' ') && word_on.starts_with(a.as_str()) {
            return Some(true);
        }
        open |= a.contains(' ') && a.starts_with(word_on.as_str());
    }
    (!open).then_some(false)
}

/// Each of `patterns` as its own expression (verbose, case-insensitive).
#[allow(clippy::panic, reason = "the built-in phrase files' patterns: a test compiles them")]
fn compiled(patterns: &[String], list: &str) -> Vec<regex::Regex> {
    patterns
        .iter()
        .map(|p| regex::Regex::new(&format!("(?ix){p}")).unwrap_or_else(|e| panic!("a {list} pattern: {e}")))
        .collect()
}

/// Patterns only asked whether they match: each compiled to one forward
/// automaton run by the PikeVM, without the reverse automaton and the
/// DFAs `regex::Regex` also builds. A sentence is matched in microseconds
/// either way; building those took half of the patterns' compile time,
/// which a party pays once, at its first reply (`docs/performance.md`).
pub(super) struct Matchers {
    vms: Vec<PikeVM>,
    caches: Mutex<Vec<pikevm::Cache>>,
}

impl Matchers {
    fn new(patterns: &[String], list: &str) -> Matchers {
        let nfa = thompson::Config::new().which_captures(thompson::WhichCaptures::None);
        let vms: Vec<PikeVM> = patterns
            .iter()
            .map(|p| {
                PikeVM::builder()
                    .thompson(nfa.clone())
                    .build(&format!("(?ix){p}"))
                    .unwrap_or_else(|e| panic!("a {list} pattern: {e}"))
            })
            .collect();
        let caches = Mutex::new(vms.iter().map(PikeVM::create_cache).collect());
        Matchers { vms, caches }
    }

    /// Whether any pattern matches `s`.
    pub(super) fn any(&self, s: &str) -> bool {
        let mut caches = self.caches.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        self.vms.iter().zip(caches.iter_mut()).any(|(vm, cache)| vm.is_match(cache, s))
    }
}

/// The out-of-character patterns of every language, each its own
/// expression: joined into one, they pass the regex crate's size limit.
pub(super) static OUT_OF_CHARACTER: LazyLock<Matchers> = LazyLock::new(|| Matchers::new(&PHRASES.out_of_character, "out_of_character"));

/// Whether `s` matches an out-of-character pattern.
pub(super) fn out_of_character(s: &str) -> bool {
    OUT_OF_CHARACTER.any(s)
}

/// The job introductions of every language, each with an `intro` group:
/// what goes. (One expression cannot name a group twice.)
pub(super) static JOB_INTRO: LazyLock<Vec<regex::Regex>> = LazyLock::new(|| compiled(&PHRASES.job_intro, "job_intro"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_file_parses_and_adds_its_phrases() {
        let files = files();
        assert!(files.len() >= 2, "{files:?}");
        for (name, text) in &files {
            // A language may hold only the lists it needs so far.
            let p: Phrases = toml::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            if ["en.toml", "zh.toml"].iter().any(|n| name.ends_with(n)) {
                assert!(!p.interjections.is_empty() && !p.attribution.is_empty(), "{name}");
            }
            for a in &p.abbreviations {
                assert!(
                    a.split_whitespace().all(|w| w.ends_with('.')),
                    "{name}: {a:?} ends each part with its stop"
                );
                // A letter's stop ends sentences too ("Plan B. We ship.").
                assert!(a.chars().filter(|c| c.is_alphabetic()).count() > 1, "{name}: {a:?} is one letter");
            }
        }
        assert!(PHRASES.interjections.iter().any(|p| p == "certainly"));
        assert!(PHRASES.interjections.iter().any(|p| p == "好的"));
        assert!(out_of_character("as an ai language model, i cannot"));
        for q in &PHRASES.quotes {
            assert_eq!(q.chars().count(), 2, "{q:?}: a quotation's opening mark and its closing one");
        }
        assert!(out_of_character("作为一个AI语言模型，我没有观点"));
        // `labels::lower_head` compares only a sentence's first 96 bytes.
        for o in PHRASES.out_of_character_openings.iter().chain(&PHRASES.runtime_note_openings) {
            assert!(o.len() < 96, "{o:?} is longer than the head compared");
        }
    }

    #[test]
    fn the_rules_code_holds_no_chinese_phrase() {
        // Words of a language live in `phrases/`; the rules' code (its test
        // files aside) may quote them in comments, as examples, never in
        // its strings.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/engine/cleanup");
        for entry in std::fs::read_dir(dir).expect("the module's folder") {
            let path = entry.expect("an entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            if path.extension().is_none_or(|e| e != "rs") || name.ends_with("tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a source file");
            let code = text.split("#[cfg(test)]\nmod tests {").next().unwrap_or_default();
            for (i, line) in code.lines().enumerate() {
                let line = line.trim_start();
                if line.starts_with("//") {
                    continue;
                }
                assert!(
                    !line.chars().any(crate::text::is_cjk),
                    "{name}:{}: a phrase in the code, not in phrases/*.toml: {line}",
                    i + 1
                );
            }
        }
    }
}
