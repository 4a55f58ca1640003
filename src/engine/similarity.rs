//! How alike replies are: for consensus (agents agreeing) and for silence
//! (the room repeating itself). Lexical by default — term vectors of word
//! stems, or character bigrams for Chinese — with negation marked, because
//! plain similarity confuses "X is safe" with "X is not safe". Embedding
//! vectors from the endpoint replace the lexical ones when configured.

use foldhash::{HashMap, HashMapExt};
use regex::Regex;

use crate::engine::stated::disagreement;
use crate::text::is_cjk;
use crate::verdict::Stance;

const NEGATORS: &[&str] = &[
    "not",
    "no",
    "never",
    "cannot",
    "can't",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "don't",
    "doesn't",
    "didn't",
    "won't",
    "wouldn't",
    "shouldn't",
    "couldn't",
    "without",
    "neither",
    "nor",
    "nothing",
    "none",
];
const CJK_NEGATORS: &[char] = &['不', '没', '非', '无', '未', '别', '勿'];

/// Whether the words before a phrase negate it: a negating word anywhere
/// in its sentence before it (`earlier`: the sentence's clauses before the
/// phrase's; `before`: its own clause up to it — "Let's not, for now, wrap
/// things up"), or a Chinese negator anywhere in its own clause before it
/// ("我们还不能现在就提议结束"; "没问题，…" is another clause). Read wide on
/// purpose: a phrase wrongly taken as negated is only left to the model.
pub(crate) fn negated_before(earlier: &str, before: &str) -> bool {
    if before.chars().any(|c| CJK_NEGATORS.contains(&c)) {
        return true;
    }
    let lower = format!("{earlier} {before}").to_lowercase().replace('’', "'");
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .any(|w| NEGATORS.contains(&w) || w.ends_with("n't"))
}

/// Terms of `text`, a term after a negation marked with `¬`.
pub(crate) fn marked_terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut negate_next = 0usize;
    let lower = text.to_lowercase();
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let flush_word = |word: &mut String, out: &mut Vec<String>, negate_next: &mut usize| {
        if word.is_empty() {
            return;
        }
        if NEGATORS.contains(&word.as_str()) {
            *negate_next = 3;
        } else if word.chars().count() >= 3 {
            if !crate::text::is_stopword(word) {
                let t = crate::text::stem(word);
                out.push(if *negate_next > 0 { format!("¬{t}") } else { t });
            }
            *negate_next = negate_next.saturating_sub(1);
        }
        word.clear();
    };
    let flush_cjk = |run: &mut Vec<char>, out: &mut Vec<String>| {
        let mut negated_until = 0usize;
        for i in 0..run.len() {
            if CJK_NEGATORS.contains(&run[i]) {
                negated_until = i + 3;
                continue;
            }
            if i + 1 < run.len() && !CJK_NEGATORS.contains(&run[i + 1]) {
                let bigram: String = run[i..i + 2].iter().collect();
                out.push(if i < negated_until { format!("¬{bigram}") } else { bigram });
            } else if run.len() == 1 {
                out.push(run[i].to_string());
            }
        }
        run.clear();
    };
    for c in lower.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut out, &mut negate_next);
            cjk.push(c);
        } else if c.is_alphanumeric() || c == '\'' {
            flush_cjk(&mut cjk, &mut out);
            word.push(c);
        } else {
            flush_word(&mut word, &mut out, &mut negate_next);
            flush_cjk(&mut cjk, &mut out);
            if matches!(c, '.' | '!' | '?' | ';' | '\n') {
                negate_next = 0;
            }
        }
    }
    flush_word(&mut word, &mut out, &mut negate_next);
    flush_cjk(&mut cjk, &mut out);
    out
}

pub(crate) type Vector = HashMap<String, f64>;

pub(crate) fn vector(text: &str) -> Vector {
    let mut v = Vector::new();
    for t in marked_terms(text) {
        *v.entry(t).or_insert(0.0) += 1.0;
    }
    v
}

pub(crate) fn cosine(a: &Vector, b: &Vector) -> f64 {
    let dot: f64 = a.iter().filter_map(|(k, x)| b.get(k).map(|y| x * y)).sum();
    let na: f64 = a.values().map(|x| x * x).sum::<f64>().sqrt();
    let nb: f64 = b.values().map(|x| x * x).sum::<f64>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        (dot / (na * nb)).clamp(0.0, 1.0)
    }
}

pub(crate) fn cosine_dense(a: &[f32], b: &[f32]) -> f64 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
    let na: f64 = a.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        (dot / (na * nb)).clamp(-1.0, 1.0)
    }
}

pub(crate) fn lexical(a: &str, b: &str) -> f64 {
    cosine(&vector(a), &vector(b))
}

/// A term one text affirms and the other negates.
pub(crate) fn contradiction(a: &str, b: &str) -> Option<String> {
    let (ta, tb) = (marked_terms(a), marked_terms(b));
    for t in &ta {
        if let Some(base) = t.strip_prefix('¬') {
            if tb.iter().any(|x| x == base) {
                return Some(base.to_string());
            }
        } else if tb.iter().any(|x| x.strip_prefix('¬') == Some(t.as_str())) {
            return Some(t.clone());
        }
    }
    None
}

/// Mean of `sim` over every pair; None with fewer than two items.
pub(crate) fn mean_pairwise(n: usize, sim: impl Fn(usize, usize) -> f64) -> Option<f64> {
    if n < 2 {
        return None;
    }
    let mut sum = 0.0;
    let mut pairs = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            sum += sim(i, j);
            pairs += 1.0;
        }
    }
    Some(sum / pairs)
}

/// A round's agreement by its speakers' own stances: the share of replies
/// that agree, 0 when any disagrees; None when a reply's stance is unknown
/// (no self-check, or an unreadable one) or fewer than two replied.
pub(crate) fn stance_share(stances: &[Option<Stance>]) -> Option<f64> {
    if stances.len() < 2 || stances.iter().any(Option::is_none) {
        return None;
    }
    if stances.contains(&Some(Stance::Disagree)) {
        return Some(0.0);
    }
    let agree = stances.iter().filter(|s| **s == Some(Stance::Agree)).count();
    Some(agree as f64 / stances.len() as f64)
}

/// Whether a round's stances agree: at least two agree, at most one only
/// adds a point of its own, nobody disagrees.
fn stances_agree(stances: &[Option<Stance>]) -> bool {
    let agree = stances.iter().filter(|s| **s == Some(Stance::Agree)).count();
    !stances.contains(&Some(Stance::Disagree)) && agree >= 2 && agree + 1 >= stances.len()
}

/// The consensus rule over the last rounds. A round the speakers' stances
/// measured counts when they agree (`stances_agree`); one measured by
/// similarity when its score is at or above the threshold and the
/// convergence words are in it, with no contradiction anywhere in the
/// window. Either way, no disagreement words.
pub(crate) struct ConsensusRule<'a> {
    pub threshold: f64,
    pub lookback: usize,
    pub convergence: &'a Regex,
    pub disagreement_words: &'a [String],
}

/// One round as the rule sees it: the agents' replies, their stances from
/// their self-checks (None where unknown), and the round's score.
pub(crate) struct RoundView {
    pub replies: Vec<String>,
    pub stances: Vec<Option<Stance>>,
    pub score: Option<f64>,
}

impl RoundView {
    fn by_stance(&self) -> bool {
        stance_share(&self.stances).is_some()
    }
}

#[derive(Debug, PartialEq)]
pub(crate) enum Verdict {
    Reached,
    /// Why not, for the log and tests.
    NotYet(String),
}

impl ConsensusRule<'_> {
    pub(crate) fn judge(&self, rounds: &[RoundView]) -> Verdict {
        if rounds.len() < self.lookback || self.lookback == 0 {
            return Verdict::NotYet(format!("{} of {} rounds", rounds.len(), self.lookback));
        }
        let window = &rounds[rounds.len() - self.lookback..];
        for r in window {
            for t in &r.replies {
                if let Some(w) = disagreement(t, self.disagreement_words) {
                    return Verdict::NotYet(format!("disagreement word `{w}`"));
                }
            }
            if r.by_stance() {
                if !stances_agree(&r.stances) {
                    return Verdict::NotYet(format!("stances {:?}", r.stances));
                }
                continue;
            }
            match r.score {
                Some(s) if s >= self.threshold => {}
                Some(s) => return Verdict::NotYet(format!("agreement {s:.2} below {:.2}", self.threshold)),
                None => return Verdict::NotYet("a round with fewer than two replies".into()),
            }
            if !r.replies.iter().any(|t| self.convergence.is_match(t)) {
                return Verdict::NotYet("no convergence words".into());
            }
        }
        // Similar wording can hide "is safe" against "is not safe"; a
        // speaker's own stance does not.
        let all: Vec<&String> = window.iter().filter(|r| !r.by_stance()).flat_map(|r| &r.replies).collect();
        for i in 0..all.len() {
            for j in i + 1..all.len() {
                if let Some(term) = contradiction(all[i], all[j]) {
                    return Verdict::NotYet(format!("contradiction on `{term}`"));
                }
            }
        }
        Verdict::Reached
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(re: &Regex, words: &[String]) -> ConsensusRule<'static> {
        // The tests keep the regex and words alive for the whole test.
        let re: &'static Regex = Box::leak(Box::new(re.clone()));
        let words: &'static [String] = Box::leak(words.to_vec().into_boxed_slice());
        ConsensusRule {
            threshold: 0.6,
            lookback: 2,
            convergence: re,
            disagreement_words: words,
        }
    }

    #[test]
    fn negation_separates_safe_from_not_safe() {
        let a = "Agreed, the plugin sandbox is safe for third parties.";
        let b = "Agreed, the plugin sandbox is not safe for third parties.";
        assert!(lexical(a, a) > 0.99);
        assert!(lexical(a, b) < lexical(a, a));
        assert_eq!(contradiction(a, b).as_deref(), Some("safe"));
        assert_eq!(contradiction(a, a), None);
    }

    #[test]
    fn chinese_uses_bigrams_and_negation() {
        let a = "我们同意先做插件沙箱，这样是安全的。";
        let b = "我们同意先做插件沙箱，这样是安全的方案。";
        let c = "天气很好，适合出去散步。";
        assert!(lexical(a, b) > 0.8, "{}", lexical(a, b));
        assert!(lexical(a, c) < 0.2, "{}", lexical(a, c));
        let d = "我们同意先做插件沙箱，这样是不安全的。";
        assert!(contradiction(a, d).is_some());
    }

    #[test]
    fn consensus_needs_all_three_conditions() {
        let re = Regex::new("(?i)agreed|consensus|exactly").unwrap();
        let words = crate::config::Config::default().party.consensus.disagreement_words;
        let r = rule(&re, &words);
        let round = |replies: &[&str]| {
            let replies: Vec<String> = replies.iter().map(|s| s.to_string()).collect();
            let score = mean_pairwise(replies.len(), |i, j| lexical(&replies[i], &replies[j]));
            RoundView {
                stances: vec![None; replies.len()],
                replies,
                score,
            }
        };
        let agree = round(&[
            "Agreed: ship the plugin API with a sandbox first.",
            "Exactly, ship the plugin API with a sandbox first.",
        ]);
        let agree2 = round(&[
            "Consensus: the plugin API ships with a sandbox first.",
            "Agreed, the plugin API ships with a sandbox first.",
        ]);
        assert_eq!(r.judge(&[agree, agree2]), Verdict::Reached);

        let no_words = round(&[
            "Ship the plugin API with a sandbox first.",
            "Ship the plugin API with a sandbox first.",
        ]);
        let agree = round(&[
            "Agreed: ship the plugin API with a sandbox first.",
            "Exactly, ship the plugin API with a sandbox first.",
        ]);
        assert!(matches!(r.judge(&[no_words, agree]), Verdict::NotYet(w) if w.contains("convergence")));

        let but = round(&[
            "Agreed, ship the plugin API with a sandbox first, however the sandbox is risky.",
            "Agreed, ship the plugin API with a sandbox first.",
        ]);
        let agree = round(&[
            "Agreed: ship the plugin API with a sandbox first.",
            "Exactly, ship the plugin API with a sandbox first.",
        ]);
        assert!(matches!(r.judge(&[agree, but]), Verdict::NotYet(w) if w.contains("disagreement")));

        let different = round(&["Agreed on pricing tiers.", "Exactly, the onboarding email needs work."]);
        let agree = round(&[
            "Agreed: ship the plugin API with a sandbox first.",
            "Exactly, ship the plugin API with a sandbox first.",
        ]);
        assert!(matches!(r.judge(&[agree, different]), Verdict::NotYet(w) if w.contains("below")));

        let safe = round(&["Agreed, the sandbox is safe.", "Agreed, the sandbox is safe."]);
        let unsafe_ = round(&["Agreed, the sandbox is safe.", "Agreed, the sandbox is not safe."]);
        assert!(matches!(r.judge(&[safe, unsafe_]), Verdict::NotYet(_)));
    }

    /// Agreement in the speakers' own words shares few of them: their
    /// stances measure it where similarity cannot.
    #[test]
    fn stances_decide_a_round_in_natural_words() {
        use Stance::{Agree, Disagree, New};
        let re = Regex::new("(?i)agreed|consensus|exactly").unwrap();
        let words = crate::config::Config::default().party.consensus.disagreement_words;
        let r = rule(&re, &words);
        let round = |replies: &[&str], stances: &[Stance]| RoundView {
            replies: replies.iter().map(|s| s.to_string()).collect(),
            stances: stances.iter().copied().map(Some).collect(),
            score: stance_share(&stances.iter().copied().map(Some).collect::<Vec<_>>()),
        };
        let compass = || {
            round(
                &[
                    "I like this plan, Compass is a good name for the tool.",
                    "Yes, Compass works for me too.",
                    "Compass it is, and the launch date holds.",
                ],
                &[Agree, Agree, New],
            )
        };
        assert!(
            lexical(
                "I like this plan, Compass is a good name for the tool.",
                "Yes, Compass works for me too."
            ) < 0.5
        );
        assert_eq!(r.judge(&[compass(), compass()]), Verdict::Reached);
        // One who disagrees, or a round where most only add points: not yet.
        let split = round(&["Compass is good.", "I'd rather call it Beacon."], &[Agree, Disagree]);
        assert!(matches!(r.judge(&[compass(), split]), Verdict::NotYet(w) if w.contains("stances")));
        let adding = round(
            &["Compass is good.", "We also need a logo.", "And a launch post."],
            &[Agree, New, New],
        );
        assert!(matches!(r.judge(&[compass(), adding]), Verdict::NotYet(_)));
        // Words of disagreement hold it back even when every stance agrees.
        let however = round(&["Agreed on Compass.", "Agreed, however the name is taken."], &[Agree, Agree]);
        assert!(matches!(r.judge(&[compass(), however]), Verdict::NotYet(w) if w.contains("disagreement")));
        // A round without every stance is measured by similarity instead.
        let unknown = RoundView {
            replies: vec!["Compass.".into(), "Compass too.".into()],
            stances: vec![Some(Agree), None],
            score: Some(0.2),
        };
        assert!(matches!(r.judge(&[compass(), unknown]), Verdict::NotYet(w) if w.contains("below")));
        assert_eq!(stance_share(&[Some(Agree), Some(Disagree)]), Some(0.0));
        assert_eq!(stance_share(&[Some(Agree)]), None, "one reply measures no agreement");
    }
}
