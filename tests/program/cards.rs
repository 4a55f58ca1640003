//! Persona cards through the real binary: `import` of cards in each
//! format into the user's agents folder, `--list-agents` loading them with
//! no problem, a bad card named with its cause, and `export --card`.

use std::path::Path;
use std::process::{Command, Output};

use base64::Engine as _;

const BIN: &str = env!("CARGO_BIN_EXE_bmad-party");

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .env("LANG", "C.UTF-8")
        .env_remove("LC_ALL")
        .env("XDG_CONFIG_HOME", dir.join("cfg"))
        .args(args)
        .output()
        .unwrap()
}

/// A 1×1 PNG carrying `json` in a tEXt chunk `key`, after the image data.
fn png_card(key: &str, json: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, 1, 1);
    enc.set_color(png::ColorType::Grayscale);
    let mut w = enc.write_header().unwrap();
    w.write_image_data(&[128]).unwrap();
    let mut data = format!("{key}\0").into_bytes();
    data.extend(base64::engine::general_purpose::STANDARD.encode(json).bytes());
    w.write_chunk(png::chunk::ChunkType(*b"tEXt"), &data).unwrap();
    w.finish().unwrap();
    out
}

#[test]
fn cards_in_every_format_import_list_and_export_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let v2 = r#"{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Ada Brightwater","description":"A retired ferry captain who runs the harbour café.","personality":"Warm and blunt.","scenario":"A windy morning at the café.","first_mes":"Morning!","tags":["café owner"]}}"#;
    let v3 = r#"{"spec":"chara_card_v3","spec_version":"3.0","data":{"name":"Bo Lindqvist","description":"A night-shift nurse who has seen every shortcut fail.","personality":"Dry humour.","character_book":{"entries":[]}}}"#;
    std::fs::write(d.join("ada.png"), png_card("chara", v2)).unwrap();
    std::fs::write(d.join("bo.json"), v3).unwrap();
    std::fs::write(
        d.join("v1.json"),
        r#"{"name":"Cy","description":"A ferry mechanic.","personality":"Quiet."}"#,
    )
    .unwrap();
    std::fs::write(d.join("broken.png"), &png_card("chara", v2)[..40]).unwrap();
    // A card named like a built-in agent gets an id of its own.
    std::fs::write(d.join("ingrid.json"), r#"{"name":"Architect","description":"Another architect."}"#).unwrap();

    let out = run(d, &["import", "ada.png", "bo.json", "v1.json", "broken.png", "ingrid.json"]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "one card was refused: {stdout}{stderr}");
    assert!(stderr.contains("✗ broken.png: PNG: the image is broken"), "{stderr}");
    let folder = d.join("cfg/bmad-party/agents");
    for (id, name) in [
        ("ada-brightwater", "Ada Brightwater"),
        ("bo-lindqvist", "Bo Lindqvist"),
        ("cy", "Cy"),
        ("architect-2", "Architect"),
    ] {
        assert!(
            stdout.contains(&format!("✓ {name} (@{id}) → {}", folder.join(format!("{id}.md")).display())),
            "{id}: {stdout}"
        );
    }
    assert!(stdout.contains("not carried over: first_mes"), "{stdout}");
    assert!(stdout.contains("not carried over: character_book"), "{stdout}");
    assert!(
        stdout.contains("its scenario, a party's scene with --party NAME: A windy morning at the café."),
        "{stdout}"
    );

    let listed = run(d, &["--list-agents"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.status.success(), "{}", String::from_utf8_lossy(&listed.stderr));
    // Theirs, and the ready-made rooms' eight.
    assert!(text.contains("12 more to /invite or name in a party:"), "{text}");
    assert!(text.contains("Ada Brightwater  Café owner  @ada-brightwater"), "{text}");
    assert!(!text.contains("problem"), "the imported files load cleanly: {text}");

    // Importing again never writes over a file: the next id is taken.
    let again = run(d, &["import", "v1.json"]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("(@cy-2)"));

    // Out as a V2 card, and back in the same.
    let exported = run(d, &["export", "--card", "ada brightwater", "-o", "ada.card.json"]);
    assert!(exported.status.success(), "{}", String::from_utf8_lossy(&exported.stderr));
    let card: serde_json::Value = serde_json::from_slice(&std::fs::read(d.join("ada.card.json")).unwrap()).unwrap();
    assert_eq!(card["spec"], "chara_card_v2");
    assert_eq!(card["data"]["name"], "Ada Brightwater");
    assert_eq!(card["data"]["extensions"]["bmad_party"]["title"], "Café owner");
    let back = run(d, &["import", "ada.card.json", "--to", "mine"]);
    assert!(back.status.success());
    let first = std::fs::read_to_string(folder.join("ada-brightwater.md")).unwrap();
    // Her id is taken by the first import: the card comes back beside it.
    let second = std::fs::read_to_string(d.join("mine/ada-brightwater-2.md")).unwrap();
    assert_eq!(
        first.replace("id: ada-brightwater\n", "id: ada-brightwater-2\n"),
        second,
        "the card came back as it left"
    );

    let unknown = run(d, &["export", "--card", "nobody"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no agent is called “nobody”; there are analyst,"));
}

#[test]
fn cards_imported_with_a_party_name_become_a_party_with_their_scenario_as_its_scene() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let card = |name: &str, scenario: &str| {
        format!(
            r#"{{"spec":"chara_card_v2","spec_version":"2.0","data":{{"name":"{name}","description":"Works at the harbour.","personality":"Dry.","scenario":"{scenario}"}}}}"#
        )
    };
    std::fs::write(d.join("ada.json"), card("Ada", "A windy morning at the café.")).unwrap();
    std::fs::write(d.join("bo.json"), card("Bo", "A windy morning at the café.")).unwrap();
    let out = run(d, &["import", "ada.json", "bo.json", "--party", "Harbour café"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("Start it: bmad-party --party harbour-cafe"), "{stdout}");
    let party = std::fs::read_to_string(d.join("cfg/bmad-party/parties/harbour-cafe.yaml")).unwrap();
    assert_eq!(party.matches("A windy morning").count(), 1, "one scene, said once: {party}");
    let listed = run(d, &["--list-parties"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains("“Harbour café”") && listed.contains("🎭 Ada, 🎭 Bo") && listed.contains("A windy morning at the café."),
        "{listed}"
    );
    let again = run(d, &["import", "ada.json", "--party", "Harbour café"]);
    assert!(
        String::from_utf8_lossy(&again.stdout).contains("--party harbour-cafe-2"),
        "never over the first"
    );
}

#[test]
fn a_file_of_yours_that_cannot_be_read_is_named_and_the_others_still_come() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("ada.json"), r#"{"name":"Ada","description":"Runs the harbour café."}"#).unwrap();
    assert!(run(d, &["import", "ada.json"]).status.success());
    std::fs::write(d.join("cfg/bmad-party/agents/broken.md"), [0xff, 0xfe, 0x00]).unwrap();
    std::fs::create_dir_all(d.join("cfg/bmad-party/parties")).unwrap();
    std::fs::write(d.join("cfg/bmad-party/parties/odd.yaml"), [0xff]).unwrap();
    std::fs::write(d.join("cfg/bmad-party/parties/harbour.yaml"), "name: Harbour\nmembers: [ada]\n").unwrap();
    let listed = run(d, &["--list-agents"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(text.contains("@ada"), "the readable agent still comes: {text}");
    assert!(
        text.contains("broken.md") && text.contains("odd.yaml"),
        "each unreadable file is named: {text}"
    );
    let parties = run(d, &["--list-parties"]);
    assert!(
        String::from_utf8_lossy(&parties.stdout).contains("harbour “Harbour”"),
        "the readable party still comes"
    );
}
