use super::*;
use crate::engine::cast::save::Target;
use crate::roster::bmad::party_mode;

fn draft() -> Draft {
    let p = |name: &str, title: &str, style: &str| Persona {
        name: name.into(),
        title: title.into(),
        icon: "🥐".into(),
        role: format!("{title} with a stake in the hours"),
        identity: format!("{name} has \"strong\" views; ask anyone."),
        communication_style: style.into(),
        principles: vec!["Fresh first".into(), "Say the cost".into()],
        lines: vec![],
    };
    Draft {
        name: "Bakery hours".into(),
        scene: "Saturday, six in the morning.".into(),
        personas: vec![
            p("Ana", "Baker", "Plain and short"),
            p("Bo", "Nurse", "Tired, dry humour."),
            p("Maya", "Owner", "Careful."),
        ],
    }
}

fn project() -> (tempfile::TempDir, crate::roster::bmad::Project) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    std::fs::create_dir_all(root.join("_bmad/custom")).unwrap();
    let project = crate::roster::bmad::Project {
        dir: root.join("_bmad"),
        root,
    };
    (dir, project)
}

fn target(project: &crate::roster::bmad::Project) -> Target {
    Target {
        agents_dir: project.root.join("cfg/agents"),
        parties_dir: project.root.join("cfg/parties"),
        ids: vec!["analyst".into()],
        names: vec!["Maya".into()],
        parties: vec![],
    }
}

#[test]
fn a_cast_saved_into_a_bmad_project_is_read_back_by_its_party_mode_loader() {
    let (_d, project) = project();
    let path = file(&project.dir, Layer::Personal);
    std::fs::write(&path, "# our own notes stay\n[workflow]\ndefault_party = \"\"\n").unwrap();
    let saved = save(&draft(), "Opening hours", &project.dir, Layer::Personal, &target(&project)).unwrap();
    assert_eq!(saved.renamed, [("Maya".to_string(), "Maya (Owner)".to_string())]);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# our own notes stay\n[workflow]\n"), "{text}");

    let mut room = vec![];
    let mut problems = vec![];
    let loaded = party_mode::load(&project, &mut room, None, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    let group = loaded.parties.defs.iter().find(|d| d.id == "bakery-hours").expect("the group");
    assert_eq!(
        group.members.as_deref(),
        Some(&["ana".to_string(), "bo".into(), "maya-owner".into()][..])
    );
    assert_eq!(group.scene.as_deref(), Some("Saturday, six in the morning."));
    let names: Vec<&str> = loaded.extra.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["Ana", "Bo", "Maya (Owner)"]);
    let bo = &loaded.extra[1];
    assert_eq!((bo.title.as_str(), bo.icon.as_str()), ("Nurse", "🥐"));
    assert_eq!(bo.communication_style, "Tired, dry humour.", "the persona opens with the style");
    assert!(bo.identity.contains("Bo has \"strong\" views; ask anyone.") && bo.identity.contains("Fresh first; Say the cost."));
    let chosen = crate::roster::parties::choose(&loaded.parties, &room, &loaded.extra, Some("bakery-hours")).unwrap();
    assert_eq!(chosen.agents.len(), 3, "the group resolves to its members");
}

#[test]
fn the_team_layer_is_its_own_file_and_a_second_cast_gets_ids_of_its_own() {
    let (_d, project) = project();
    let mut to = target(&project);
    let first = save(&draft(), "Hours", &project.dir, Layer::Team, &to).unwrap();
    assert_eq!(first.files, [project.dir.join("custom/bmad-party-mode.toml")]);
    to.ids.extend(first.agents.iter().map(|(id, _)| id.clone()));
    to.names.extend(first.agents.iter().map(|(_, n)| n.clone()));
    to.parties.push(first.party.id.clone());
    let second = save(&draft(), "Hours", &project.dir, Layer::Team, &to).unwrap();
    assert_eq!(second.party.id, "bakery-hours-2");
    let mut problems = vec![];
    let loaded = party_mode::load(&project, &mut [], None, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!((loaded.parties.defs.len(), loaded.extra.len()), (2, 6));
}

#[test]
fn a_file_that_would_not_read_back_is_left_as_it_was() {
    let (_d, project) = project();
    let path = file(&project.dir, Layer::Personal);
    let inline = "[workflow]\nparty_members = [{ code = \"x\" }]\n";
    std::fs::write(&path, inline).unwrap();
    let err = save(&draft(), "Hours", &project.dir, Layer::Personal, &target(&project)).unwrap_err();
    assert!(err.contains("bmad-party-mode.user.toml"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), inline);
}
