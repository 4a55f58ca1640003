//! Who speaks this round: named agents always; the rest by relevance of
//! their persona to the message, with rotation so that the same voices do
//! not dominate. Deterministic, so parties and tests are reproducible.

use foldhash::{HashMap, HashMapExt, HashSet};

use crate::roster::agents::Agent;
use crate::text::terms;

/// Agents the facilitator addresses: `@id`, the id, or the display name as
/// a whole word (case-insensitive), in the order they are mentioned.
pub fn named(agents: &[Agent], message: &str) -> Vec<usize> {
    let lower = message.to_lowercase();
    let mut found: Vec<(usize, usize)> = Vec::new();
    for (i, a) in agents.iter().enumerate() {
        let mut best: Option<usize> = None;
        let mut needles = vec![format!("@{}", a.id.to_lowercase()), a.id.to_lowercase(), a.name.to_lowercase()];
        for alias in &a.aliases {
            needles.push(format!("@{}", alias.to_lowercase()));
            needles.push(alias.to_lowercase());
        }
        for needle in needles {
            if needle.is_empty() {
                continue;
            }
            if let Some(pos) = find_word(&lower, &needle) {
                best = Some(best.map_or(pos, |b: usize| b.min(pos)));
            }
        }
        if let Some(pos) = best {
            found.push((pos, i));
        }
    }
    found.sort();
    found.into_iter().map(|(_, i)| i).collect()
}

/// Position of `needle` in `hay` with no letter or digit glued to either
/// side (names written in CJK have no word boundaries, so any match counts).
fn find_word(hay: &str, needle: &str) -> Option<usize> {
    let cjk = needle.chars().any(crate::text::found_inside_words);
    let mut start = 0;
    while let Some(off) = hay[start..].find(needle) {
        let pos = start + off;
        let before = hay[..pos].chars().next_back();
        let after = hay[pos + needle.len()..].chars().next();
        // A Korean particle after a Latin name (`Kofi가`) leaves it a word.
        let glued_after = after.is_some_and(|c| c == '_' || c == '-' || crate::text::goes_on_word(c));
        let glued = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
        if cjk || (!glued(before) && !glued_after && before != Some('@') || needle.starts_with('@') && !glued_after) {
            return Some(pos);
        }
        start = pos + needle.len();
    }
    None
}

/// The words that describe what an agent knows, weighted by how telling
/// each persona field is (the best weight per term).
fn profile(a: &Agent) -> HashMap<String, f64> {
    let mut out: HashMap<String, f64> = HashMap::new();
    let mut add = |text: &str, w: f64| {
        for t in terms(text) {
            let e = out.entry(t).or_insert(0.0);
            *e = e.max(w);
        }
    };
    add(&a.title, 3.0);
    add(&a.role, 2.5);
    if let Some(c) = &a.capabilities {
        add(c, 2.0);
    }
    add(&a.identity, 1.0);
    for p in &a.principles {
        add(p, 1.0);
    }
    out
}

/// Every agent's persona terms, computed once per room rather than every round.
#[derive(Debug, Clone, Default)]
pub(crate) struct Profiles(Vec<HashMap<String, f64>>);

impl Profiles {
    pub(crate) fn new(agents: &[Agent]) -> Profiles {
        Profiles(agents.iter().map(profile).collect())
    }
}

fn score(profile: &HashMap<String, f64>, wanted: &HashSet<String>) -> f64 {
    wanted.iter().filter_map(|t| profile.get(t)).sum()
}

/// Chooses the speakers of a round.
///
/// How many of the latest rounds the choice looks at.
pub(crate) const RECENT_ROUNDS: usize = 4;

/// Who had the floor lately: the speakers of the latest rounds (at least
/// [`RECENT_ROUNDS`] of them when there are), oldest first, out of all the
/// rounds played.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Floor<'a> {
    pub recent: &'a [Vec<String>],
    pub played: usize,
}

/// `floor` says who spoke lately;
/// `eligible` filters agents out (e.g. pushed rounds); `per_round` is
/// (min, max); `profiles` are the agents' persona terms, in the same order.
pub(crate) fn select(
    agents: &[Agent],
    profiles: &Profiles,
    message: &str,
    context: &str,
    floor: Floor<'_>,
    per_round: (usize, usize),
    eligible: impl Fn(&Agent) -> bool,
) -> Vec<usize> {
    let (min, max) = per_round;
    let mut chosen: Vec<usize> = named(agents, message).into_iter().filter(|&i| eligible(&agents[i])).collect();
    if chosen.len() >= max {
        return chosen;
    }
    let wanted: HashSet<String> = terms(message).into_iter().collect();
    let context_terms: HashSet<String> = terms(context).into_iter().collect();
    let fallback;
    let profiles = if profiles.0.len() == agents.len() {
        profiles
    } else {
        fallback = Profiles::new(agents);
        &fallback
    };
    let (history, round_no) = (floor.recent, floor.played);
    let n = agents.len().max(1);
    let mut scored: Vec<(f64, f64, usize, f64)> = agents
        .iter()
        .enumerate()
        .filter(|(i, a)| !chosen.contains(i) && eligible(a) && !a.moderator)
        .map(|(i, a)| {
            let rel = score(&profiles.0[i], &wanted);
            let ctx = score(&profiles.0[i], &context_terms);
            let recent = history.iter().rev().take(3).filter(|r| r.contains(&a.id)).count() as f64;
            let since = history.iter().rev().position(|r| r.contains(&a.id)).unwrap_or(round_no + 2) as f64;
            let s = rel + 0.5 * ctx - 4.0 * recent + since.min(RECENT_ROUNDS as f64);
            // Ties rotate with the round number instead of always favouring
            // the first file in the folder.
            let tie = ((i + n - round_no % n) % n) as f64;
            (s, -tie, i, rel)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.total_cmp(&a.1)));
    // A third voice joins when the message is substantial or a third
    // persona clearly has something to say about it.
    let third_relevant = scored.get(2 - chosen.len().min(2)).is_some_and(|(_, _, _, rel)| *rel >= 2.0);
    let long = message.split_whitespace().count() >= 12 || message.chars().filter(|c| crate::text::is_cjk(*c)).count() >= 20;
    let want = if third_relevant || long {
        max
    } else {
        min.max(chosen.len()).min(max)
    };
    for (_, _, i, _) in scored {
        if chosen.len() >= want {
            break;
        }
        chosen.push(i);
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::embedded_agents;

    #[test]
    fn a_name_is_found_with_a_korean_particle_on_it_and_not_inside_another_word() {
        assert_eq!(find_word("지민이 먼저 말해 주세요", "지민"), Some(0));
        assert_eq!(find_word("kofi가 먼저", "kofi"), Some(0));
        assert_eq!(find_word("小林先说", "小林"), Some(0));
        assert_eq!(find_word("kofiann, first", "kofi"), None);
    }

    fn room() -> Vec<Agent> {
        crate::roster::agents::load_roster(&embedded_agents()).unwrap()
    }

    #[test]
    fn names_ids_and_at_ids_are_found_in_order() {
        let r = room();
        let ids = |v: Vec<usize>| v.into_iter().map(|i| r[i].id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(named(&r, "What does @pm think, and Ingrid?")), vec!["pm", "architect"]);
        assert_eq!(ids(named(&r, "KOFI, over to you")), vec!["developer"]);
        assert!(named(&r, "Kofinator and ingridient").is_empty());
    }

    #[test]
    fn named_agent_always_speaks_and_count_is_bounded() {
        let r = room();
        let picked = select(
            &r,
            &Profiles::new(&r),
            "Amara, what do you think?",
            "",
            Floor { recent: &[], played: 0 },
            (2, 3),
            |_| true,
        );
        assert_eq!(r[picked[0]].id, "tech-writer");
        assert!((2..=3).contains(&picked.len()));
    }

    #[test]
    fn relevance_prefers_the_expert() {
        let r = room();
        let picked = select(
            &r,
            &Profiles::new(&r),
            "How should we design the plugin architecture and its APIs?",
            "",
            Floor { recent: &[], played: 0 },
            (2, 3),
            |_| true,
        );
        assert!(
            picked.iter().any(|&i| r[i].id == "architect"),
            "{:?}",
            picked.iter().map(|&i| &r[i].id).collect::<Vec<_>>()
        );
    }

    #[test]
    fn rotation_spreads_the_floor() {
        let r = room();
        let mut history: Vec<Vec<String>> = Vec::new();
        for _ in 0..10 {
            let p = select(
                &r,
                &Profiles::new(&r),
                "What next?",
                "",
                Floor {
                    recent: &history,
                    played: history.len(),
                },
                (2, 3),
                |_| true,
            );
            history.push(p.iter().map(|&i| r[i].id.clone()).collect());
        }
        let spoke: HashSet<&String> = history.iter().flatten().collect();
        assert!(spoke.len() >= 6, "only {} agents spoke: {history:?}", spoke.len());
    }
}
