//! The scorer's measures of a persona: blur (a reply that draws on nothing
//! of its own persona), taking up what a named speaker said, and a name
//! written without its accents.

use super::tests::judge;
use super::*;

/// A room whose personas have profiles: Maya counts, Kofi runs servers.
fn judge_with_profiles() -> Judge {
    let mut j = judge(false);
    let common = j.phrases.common.clone();
    let profiles = [
        "Business analyst: evidence, market research, spreadsheets, metrics; every claim needs a source or an experiment.",
        "Senior developer who builds it, runs it and gets paged at night; boring technology, rollbacks, monitoring.",
        "UX designer: interviews, prototypes, accessibility; the user's journey before the screens.",
    ];
    for (p, text) in j.roster.iter_mut().zip(profiles) {
        p.profile = content_terms(text, &common);
    }
    j
}

#[test]
fn a_reply_that_draws_on_nothing_of_its_own_persona_is_blur() {
    let j = judge_with_profiles();
    let before = [super::tests::said(
        None,
        "Should we offer an offline mode for the mobile application?",
    )];
    let blur = "An offline mode would give people more flexibility and convenience, and it would make the \
                product feel modern, reliable and complete for everybody who depends on it every single day.";
    assert!(j.judge("analyst", blur, &before).flaws.contains(&Flaw::PersonaBlur));
    // Her own words (a metric, an experiment) mark it as hers.
    let hers = "Before we build an offline mode, let's run an experiment: measure how many sessions drop for \
                lack of signal, and put that metric beside the market research we already have.";
    assert!(!j.judge("analyst", hers, &before).flaws.contains(&Flaw::PersonaBlur));
    // Words of the topic mark out nobody; a short reply is not judged.
    assert!(!j
        .judge("analyst", "Offline mode: no, not yet.", &before)
        .flaws
        .contains(&Flaw::PersonaBlur));
    // A persona whose profile is unknown is never blur.
    assert!(!judge(false).judge("analyst", blur, &before).flaws.contains(&Flaw::PersonaBlur));
}

#[test]
fn a_reply_answers_who_it_names_only_by_taking_up_what_they_said() {
    let j = judge(false);
    let before = [
        super::tests::said(None, "Should we offer an offline mode?"),
        super::tests::said(
            Some("developer"),
            "Offline sync means conflict resolution and a rollback plan for corrupted caches.",
        ),
    ];
    let v = j.judge(
        "analyst",
        "Kofi's conflict resolution worry is real: how often would caches diverge?",
        &before,
    );
    assert!(v.reacts && v.answers, "{v:?}");
    let v = j.judge(
        "analyst",
        "I agree with Kofi. An offline mode is a great idea for the product.",
        &before,
    );
    assert!(v.reacts && !v.answers, "{v:?}");
}

#[test]
fn a_name_written_without_its_accents_is_the_same_name() {
    let mut j = judge(false);
    j.roster.push(Person {
        id: "pm".into(),
        name: "Tomás".into(),
        title: "Product Manager".into(),
        profile: HashSet::new(),
        principles: vec![],
    });
    let before = [
        super::tests::said(None, "How do we onboard engineers?"),
        super::tests::said(Some("pm"), "A buddy for everyone."),
    ];
    let v = j.judge(
        "ux",
        "I agree with Tomas' buddy idea and would add a checklist for day one.",
        &before,
    );
    assert!(v.reacts, "{v:?}");
    let v = j.judge("pm", "Tomas: Hi Sam, a buddy for everyone and a checklist for day one.", &before);
    assert!(v.flaws.contains(&Flaw::SelfQuote), "{v:?}");
}
