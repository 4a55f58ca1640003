use super::*;
use crate::engine::cast::Persona;

fn persona(name: &str, title: &str) -> Persona {
    Persona {
        name: name.into(),
        title: title.into(),
        icon: "🥐".into(),
        role: format!("{name} has a stake."),
        identity: format!("{name} is someone."),
        communication_style: "Direct.".into(),
        principles: vec!["Fresh beats cheap".into()],
        lines: vec![],
    }
}

fn target(dir: &Path) -> Target {
    Target {
        agents_dir: dir.join("agents"),
        parties_dir: dir.join("parties"),
        ids: vec!["analyst".into(), "ana".into()],
        names: vec!["Mary".into(), "Ana".into()],
        parties: vec!["bakery".into()],
    }
}

fn draft() -> Draft {
    Draft {
        name: "Bakery".into(),
        scene: "Saturday, 6 a.m.".into(),
        personas: vec![persona("Ana", "Baker"), persona("Bo", "Regular"), persona("Cy", "Owner")],
    }
}

#[test]
fn a_saved_cast_loads_as_agents_and_a_party_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = draft();
    d.personas[0].lines = vec![2];
    let sources = Sources::new(&[("notes.md".into(), "first\nAna: we bake at four".into())]);
    let saved = save(&d, &sources, &target(dir.path())).unwrap();
    assert_eq!(saved.party.id, "bakery-2", "the party id `bakery` is taken");
    assert_eq!(
        saved.agents,
        [
            ("ana-baker".into(), "Ana (Baker)".into()),
            ("bo".into(), "Bo".into()),
            ("cy".into(), "Cy".into())
        ],
        "Ana is someone already: her title tells her apart"
    );
    assert_eq!(saved.renamed, [("Ana".to_string(), "Ana (Baker)".to_string())]);
    let files = crate::assets::agents_from_dir(&dir.path().join("agents")).unwrap();
    let agents = crate::roster::agents::load_roster(&files).unwrap();
    assert_eq!(agents.len(), 3);
    assert!(
        agents[0].instructions.contains("notes.md:2: “Ana: we bake at four”"),
        "{}",
        agents[0].instructions
    );
    let path = dir.path().join("parties/bakery-2.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let party = crate::config::read_party_file(&crate::source::SourceFile {
        path: path.display().to_string(),
        text,
    })
    .unwrap();
    assert_eq!(party.members, Some(vec!["ana-baker".into(), "bo".into(), "cy".into()]));
    assert_eq!((party.name.as_str(), party.scene.as_deref()), ("Bakery", Some("Saturday, 6 a.m.")));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("agents"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "no staged file stays");
}

#[test]
fn saving_again_never_writes_over_the_first_cast() {
    let dir = tempfile::tempdir().unwrap();
    let first = save(&draft(), &Sources::default(), &target(dir.path())).unwrap();
    let second = save(&draft(), &Sources::default(), &target(dir.path())).unwrap();
    assert_eq!(second.party.id, "bakery-3");
    assert_eq!(second.agents[1].0, "bo-2", "the file bo.md is there");
    assert_ne!(first.files, second.files);
}

#[test]
fn a_failure_leaves_nothing_half_saved() {
    let dir = tempfile::tempdir().unwrap();
    let mut to = target(dir.path());
    // The parties folder cannot be made: a file stands where it would be.
    std::fs::write(dir.path().join("parties"), "not a folder").unwrap();
    to.parties_dir = dir.path().join("parties").join("inner");
    let err = save(&draft(), &Sources::default(), &to).unwrap_err();
    assert!(err.contains("parties"), "{err}");
    let left: Vec<_> = std::fs::read_dir(dir.path().join("agents"))
        .map(|d| d.filter_map(|e| e.ok()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "no agent file stays: {left:?}");
}
