//! Whether a question the host wrote for the facilitator (the facts a job
//! needs, or the question they invited) fits this discussion. A small
//! model asks its template's example ("How many people will be attending
//! the meeting?", "你有多少人？") whatever the discussion, asks it again,
//! and asks for a figure the facilitator gave in the same message. A
//! question is put to the facilitator only when it names something of the
//! discussion's own (a word of the topic, the facilitator's messages or
//! the room's turns) or a fact of its own choosing (a word that is not one
//! of the templates' example facts), was not asked before, and does not
//! ask for a count the facilitator already gave beside the thing counted. The words are data (`words/`); a
//! language without a file still gets the rules that need none.

use super::words::{plain, WORDS};
use crate::engine::similarity::lexical;
use crate::text::{is_cjk, is_stopword, stem, Run};

/// Why the host's question is not put to the facilitator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unfit {
    /// Nearly the same question was put to them before in this party.
    AskedBefore,
    /// It asks for a count the facilitator gave beside the thing counted.
    Given,
    /// It names nothing of this discussion: a template's example.
    NotAboutThis,
}

impl Unfit {
    /// As the session file records what the reading did.
    pub(crate) fn act(self) -> &'static str {
        match self {
            Unfit::AskedBefore => "nothing: the question was asked before",
            Unfit::Given => "nothing: the message gave what the question asks",
            Unfit::NotAboutThis => "nothing: the question names nothing of the discussion",
        }
    }
}

/// What the question is weighed against.
#[derive(Debug, Default)]
pub(crate) struct Discussion<'a> {
    /// What the facilitator said: the topic and their messages so far,
    /// this one included.
    pub said: &'a [String],
    /// The room's turns so far.
    pub turns: &'a [String],
    /// The questions already put to the facilitator in this party.
    pub asked: &'a [String],
    /// The question is for a job's facts (`facts_question`), not one the
    /// facilitator invited about the topic (`invited_question`).
    pub job: bool,
}

/// From this lexical similarity on, a question asks one asked before.
const ASKED_BEFORE: f64 = 0.6;
/// How near a number stands to the thing it counts: words, or characters
/// in a script written without spaces.
const NEAR: usize = 3;

/// Why `question` does not fit the discussion, if it does not.
pub(crate) fn unfit(question: &str, d: &Discussion) -> Option<Unfit> {
    // What a question asks for: its terms the facilitator has not said.
    let asks_for = |q: &str| {
        let mut t: Vec<String> = terms(q)
            .into_iter()
            .filter(|t| !d.said.iter().any(|s| terms(s).contains(t)))
            .map(|t| t.text)
            .collect();
        t.sort();
        t.dedup();
        t
    };
    let wanted = asks_for(question);
    if d.asked
        .iter()
        .any(|q| lexical(q, question) >= ASKED_BEFORE || (!wanted.is_empty() && asks_for(q) == wanted))
    {
        return Some(Unfit::AskedBefore);
    }
    if counted_thing(question).is_some_and(|t| d.said.iter().any(|s| counted(s, &t))) {
        return Some(Unfit::Given);
    }
    let naming: Vec<Term> = terms(question).into_iter().filter(|t| t.names).collect();
    let known: Vec<Term> = d.said.iter().chain(d.turns).flat_map(|s| terms(s)).collect();
    let is_known = |t: &Term| known.iter().any(|k| k.text == t.text);
    if naming.iter().any(is_known) {
        return None;
    }
    let about_this = if d.job {
        // A job lacks the very facts the template names (how many people,
        // the budget): a question of those fits it; one that names a thing
        // the discussion does not have ("…attending the meeting?" for an
        // app's launch) is another job's.
        naming.iter().all(Term::template)
    } else {
        // A question under discussion names it, or a fact of its own
        // choosing ("How many customers pay monthly?"); one made only of
        // the template's example facts asks the template's question.
        !naming.iter().all(Term::template)
    };
    (!about_this).then_some(Unfit::NotAboutThis)
}

/// A term of a text: a word's stem, or a run of characters of a script
/// written without spaces (two, or one alone between function characters).
#[derive(Debug, Clone, PartialEq)]
struct Term {
    text: String,
    /// Whether the term can name something: a word, or two characters.
    names: bool,
}

impl Term {
    /// Whether the term is one of the templates' example facts: a word's
    /// stem, or characters that all come from them (a pair read across two
    /// words, "多少人参加" giving "人参", is made of the examples too).
    fn template(&self) -> bool {
        if self.text.chars().any(is_cjk) {
            return self.text.chars().all(|c| WORDS.template_facts.iter().any(|f| f.contains(c)));
        }
        WORDS.template_facts.iter().any(|f| stem(f) == self.text)
    }
}

/// The terms of `text` that say something: words that are neither
/// function words nor numbers, by their stems; in a script without spaces,
/// the pairs of characters in each run between function characters, and a
/// lone character as a term that names nothing by itself.
fn terms(text: &str) -> Vec<Term> {
    let lower = plain(text);
    let function = |w: &str| WORDS.function_words.iter().any(|f| f == w) || WORDS.number_words.iter().any(|f| f == w);
    let mut out = Vec::new();
    for run in crate::text::runs(&lower, true) {
        match run {
            Run::Word(w) => {
                // A possessive is its noun: "team's" is "team".
                let w = w.strip_suffix("'s").unwrap_or(w);
                if w.chars().count() >= 3 && !function(w) && !is_stopword(w) && !w.chars().any(|c| c.is_ascii_digit()) {
                    out.push(Term {
                        text: stem(w),
                        names: true,
                    });
                }
            }
            Run::Cjk(r) => {
                let chars: Vec<char> = r.chars().collect();
                for part in chars.split(|c| function(&c.to_string())) {
                    match part.len() {
                        0 => {}
                        1 => out.push(Term {
                            text: part[0].to_string(),
                            names: false,
                        }),
                        _ => out.extend(part.windows(2).map(|w| Term {
                            text: w.iter().collect(),
                            names: true,
                        })),
                    }
                }
            }
        }
    }
    out
}

/// What `question` counts, when it asks for a count: the term after its
/// quantity words ("how many PEOPLE", "多少人"), else the one before them
/// ("预算多少", "what BUDGET" holding its own).
fn counted_thing(question: &str) -> Option<Term> {
    let lower = plain(question);
    let (at, q) = WORDS
        .quantity_asked
        .iter()
        .find_map(|q| crate::engine::stated::word_at(&lower, q).next().map(|i| (i, q)))?;
    let own = terms(q);
    let function = |c: char| WORDS.function_words.iter().any(|f| f.chars().eq([c]));
    // In a script without spaces: the first character after the quantity
    // words past a measure word ("多少位嘉宾" gives 嘉), else the two before
    // them ("预算多少" gives 预算).
    let han = |text: &str, from_end: bool| -> Option<Term> {
        let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        let chars: Vec<char> = if from_end { chars.into_iter().rev().collect() } else { chars };
        let run: Vec<char> = chars
            .into_iter()
            .take_while(|c| is_cjk(*c))
            .skip_while(|c| function(*c))
            .take_while(|c| !function(*c))
            .take(if from_end { 2 } else { 1 })
            .collect();
        let run: String = if from_end {
            run.into_iter().rev().collect()
        } else {
            run.into_iter().collect()
        };
        (!run.is_empty()).then(|| Term {
            names: run.chars().count() > 1,
            text: run,
        })
    };
    let after = &lower[at + q.len()..];
    let before = &lower[..at];
    own.last()
        .filter(|t| t.names)
        .cloned()
        .or_else(|| han(after, false))
        .or_else(|| terms(after).into_iter().next())
        .or_else(|| han(before, true))
        .or_else(|| terms(before).pop())
}

/// Whether `said` gives a number beside `term`: within `NEAR` words of it,
/// or `NEAR` characters in a script without spaces ("twelve people",
/// "a budget of 25,000", "十二个人").
fn counted(said: &str, term: &Term) -> bool {
    let lower = plain(said);
    let number = |w: &str| w.chars().any(|c| c.is_ascii_digit()) || WORDS.number_words.iter().any(|n| n == w);
    if term.text.chars().any(is_cjk) {
        let chars: Vec<char> = lower.chars().collect();
        let t: Vec<char> = term.text.chars().collect();
        return (0..chars.len().saturating_sub(t.len() - 1)).any(|i| {
            chars[i..i + t.len()] == t[..] && {
                let from = i.saturating_sub(NEAR);
                let to = (i + t.len() + NEAR).min(chars.len());
                chars[from..to].iter().any(|c| c.is_ascii_digit() || number(&c.to_string()))
            }
        });
    }
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == ',' || c == '.'))
        .map(|w| w.trim_matches([',', '.']))
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().enumerate().any(|(i, w)| {
        stem(w) == term.text && {
            let from = i.saturating_sub(NEAR);
            let to = (i + NEAR + 1).min(words.len());
            words[from..to].iter().any(|w| number(w))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn on(said: &[String], job: bool) -> Discussion<'_> {
        Discussion {
            said,
            turns: &[],
            asked: &[],
            job,
        }
    }

    #[test]
    fn a_templates_example_in_another_discussion_names_nothing_of_it() {
        let topic = said(&[
            "Should we split our monolith into microservices?",
            "Ingrid, what would it cost us in operations?",
        ]);
        let turns = said(&[
            "Ops cost would rise with every service we run.",
            "We would need on-call rotations per service.",
        ]);
        let invited = Discussion {
            turns: &turns,
            ..on(&topic, false)
        };
        assert_eq!(unfit("What is your team's current size?", &invited), Some(Unfit::NotAboutThis));
        assert_eq!(unfit("How many services does the monolith hold today?", &invited), None);
        assert_eq!(unfit("Who is on call for operations today?", &invited), None);
        assert_eq!(unfit("How many customers pay monthly today?", &invited), None, "a fact of its own");
        let zh = said(&["我们要不要把客服外包？"]);
        assert_eq!(unfit("你有多少人？", &on(&zh, false)), Some(Unfit::NotAboutThis));
        assert_eq!(unfit("你们团队现在有几个人？", &on(&zh, false)), Some(Unfit::NotAboutThis));
        assert_eq!(unfit("你们现在每个月的客服费用是多少？", &on(&zh, false)), None);
    }

    #[test]
    fn a_jobs_question_asks_its_facts_and_names_no_other_thing() {
        let job = said(&["Plan the launch of our new app."]);
        assert_eq!(
            unfit("How many people will be attending the meeting?", &on(&job, true)),
            Some(Unfit::NotAboutThis),
            "a meeting is another job's"
        );
        assert_eq!(unfit("How many people, and what budget?", &on(&job, true)), None);
        assert_eq!(unfit("How many people will come to the launch?", &on(&job, true)), None);
        let zh = said(&["帮我们组织一次新产品发布会。"]);
        assert_eq!(unfit("大概多少人参加？预算多少？定在哪天、在哪里？", &on(&zh, true)), None);
        assert_eq!(unfit("这次发布会大概邀请多少位嘉宾？", &on(&zh, true)), None);
        assert_eq!(unfit("新产品打算什么时候上市？", &on(&zh, true)), None);
    }

    #[test]
    fn a_question_asked_before_is_not_asked_again() {
        let topic = said(&["Plan our company party."]);
        let before = said(&["How many people will come to the party?"]);
        let d = Discussion {
            asked: &before,
            ..on(&topic, true)
        };
        assert_eq!(unfit("How many people are coming to the party?", &d), Some(Unfit::AskedBefore));
        assert_eq!(unfit("What budget does the party have?", &d), None);
        let before = said(&["你有多少人？"]);
        let d = Discussion {
            asked: &before,
            ..on(&topic, true)
        };
        assert_eq!(unfit("你们有多少人？", &d), Some(Unfit::AskedBefore));
    }

    #[test]
    fn a_count_the_facilitator_gave_beside_the_thing_counted_is_not_asked() {
        let topic = said(&["We are twelve people with a budget of 8,000 euros. Plan our offsite."]);
        let d = on(&topic, true);
        assert_eq!(unfit("How many people will join the offsite?", &d), Some(Unfit::Given));
        assert_eq!(unfit("How much budget does the offsite have?", &d), Some(Unfit::Given));
        assert_eq!(unfit("Where should the offsite take place?", &d), None, "the place was not given");
        let year = said(&["Plan our 2026 offsite."]);
        assert_eq!(
            unfit("How many people will join the offsite?", &on(&year, true)),
            None,
            "a year counts nothing"
        );
        let zh = said(&["我们十二个人，预算八万元。请帮我们策划一次团建。"]);
        assert_eq!(unfit("团建大概多少人参加？", &on(&zh, true)), Some(Unfit::Given));
        assert_eq!(unfit("团建的预算多少？", &on(&zh, true)), Some(Unfit::Given));
        assert_eq!(unfit("团建定在哪天？", &on(&zh, true)), None);
        let once = said(&["请帮我们策划一次团建。"]);
        assert_eq!(unfit("团建大概多少人参加？", &on(&once, true)), None, "一次 is no count");
    }
}

/// The host's question is a model's text: any question and any
/// discussion are weighed without a panic.
#[cfg(test)]
mod any_question {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_question_is_weighed_without_a_panic(
            question in prop_oneof![any::<String>(), "[a-zA-Z ,.?？'0-9一-龥]{0,60}"],
            said in prop_oneof![any::<String>(), "[a-zA-Z ,.'0-9一-龥]{0,80}"],
            job in any::<bool>(),
        ) {
            let said = vec![said];
            let asked = vec![question.clone()];
            let d = Discussion { said: &said, turns: &said, asked: &[], job };
            let _ = unfit(&question, &d);
            let again = Discussion { asked: &asked, ..d };
            if !terms(&question).is_empty() {
                prop_assert_eq!(unfit(&question, &again), Some(Unfit::AskedBefore));
            }
        }
    }
}
