//! The rule table against its docs (`docs/cleanup.md`): each row, and the
//! level table, as the code has them.

use super::*;

/// How `docs/cleanup.md` names a place.
fn place_words(place: Place) -> &'static str {
    match place {
        Place::Sentence => "any sentence",
        Place::OwnLine => "a line of its own",
        Place::ReplyStart => "the reply's start",
    }
}

/// How `docs/cleanup.md` names what a rule does.
fn does_words(does: Does) -> &'static str {
    match does {
        Does::Drop => "drops the sentence",
        Does::Stop => "ends the reply",
        Does::Strip { .. } => "strips the part",
        Does::Hold => "holds it back",
        Does::HoldHeading => "holds it back until a word under it",
    }
}

#[test]
fn every_rule_has_a_name_of_its_own_and_every_cut_kind_a_rule() {
    let mut names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), RULES.len(), "two rules share a name");
    // Capped is the stream's end, not a sentence's: no row.
    for kind in CutKind::ALL.iter().filter(|k| **k != CutKind::Capped) {
        assert!(RULES.iter().any(|r| r.kind == *kind), "{kind:?} has no rule");
    }
}

#[test]
fn the_docs_level_table_is_the_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cleanup.md");
    let docs = std::fs::read_to_string(path).expect("docs/cleanup.md");
    let row = |level: Level| -> String {
        let start = format!("| {} |", level.code());
        let line = docs
            .lines()
            .find(|l| l.starts_with(&start))
            .unwrap_or_else(|| panic!("a row for {level:?}"));
        line.trim_matches('|').split(" | ").nth(2).unwrap_or_default().trim().to_string()
    };
    assert_eq!(row(Level::Full), "every rule of the table below");
    assert_eq!(row(Level::Off), "nothing but the protocol");
    let light = row(Level::Light);
    let listed: Vec<&str> = light
        .strip_prefix("the reply is one voice: ")
        .unwrap_or_default()
        .split("; ")
        .collect();
    let rules: Vec<&str> = RULES.iter().filter(|r| r.light).map(|r| r.name).collect();
    assert_eq!(listed, rules, "docs/cleanup.md's light row, in the table's order");
}

#[test]
fn the_docs_table_is_the_rule_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cleanup.md");
    let docs = std::fs::read_to_string(path).expect("docs/cleanup.md");
    let table: Vec<Vec<String>> = docs
        .lines()
        .skip_while(|l| !l.starts_with("| rule | where | does | levels | counter |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split(" | ").take(5).map(|c| c.trim().to_string()).collect())
        .collect();
    let rules: Vec<Vec<String>> = RULES
        .iter()
        .map(|r| {
            vec![
                r.name.to_string(),
                place_words(r.place).to_string(),
                does_words(r.does).to_string(),
                if r.light { "light, full" } else { "full" }.to_string(),
                format!("`{}`", r.kind.code()),
            ]
        })
        .collect();
    assert_eq!(table, rules, "docs/cleanup.md's table of rules, row by row, against RULES");
}
