//! The card reader's tests: every version and carrier, located errors,
//! the round trip of our own cards, and a fuzz that it never panics.

use super::*;
use proptest::prelude::*;

const V2: &str = r#"{
  "spec": "chara_card_v2", "spec_version": "2.0",
  "data": {
    "name": "Ada Brightwater",
    "description": "{{char}} is a retired ferry captain who now runs the harbour café. She knows every regular by their order.",
    "personality": "Warm, blunt, tells stories that end in a lesson.",
    "scenario": "A windy morning at the harbour café; {{user}} has just come in.",
    "first_mes": "Morning! The usual?",
    "mes_example": "<START>\n{{user}}: Busy today?\n{{char}}: Busy as a Monday ferry.",
    "creator_notes": "For cosy chats.",
    "system_prompt": "",
    "post_history_instructions": "",
    "alternate_greetings": ["Ahoy."],
    "tags": ["café owner", "sailor"],
    "creator": "someone", "character_version": "1",
    "extensions": {}
  }
}"#;

/// A PNG with `chunks` as tEXt chunks after the image data, where
/// SillyTavern writes them.
pub(super) fn png_with(chunks: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, 2, 2);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&[200; 12]).unwrap();
        for (key, text) in chunks {
            let mut data = key.as_bytes().to_vec();
            data.push(0);
            data.extend_from_slice(text.as_bytes());
            w.write_chunk(png::chunk::ChunkType(*b"tEXt"), &data).unwrap();
        }
        w.finish().unwrap();
    }
    out
}

/// A PNG chunk's CRC-32 (ISO-HDLC), over its type and data.
fn crc(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 == 1 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
        }
    }
    !c
}

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

#[test]
fn a_v2_card_maps_its_persona_and_says_what_it_dropped() {
    let card = read(V2.as_bytes()).unwrap();
    assert_eq!((card.version, card.name.as_str()), (2, "Ada Brightwater"));
    let id = id_for(&card.name);
    assert_eq!(id, "ada-brightwater");
    let imported = to_agent(&card, &id);
    let file = crate::source::SourceFile {
        path: "ada-brightwater.md".into(),
        text: imported.text.clone(),
    };
    let agent = crate::roster::agents::parse_agent(&file).unwrap_or_else(|e| panic!("{e}\n{}", imported.text));
    assert_eq!(agent.title, "Café owner", "the first tag, for want of a title");
    assert_eq!(
        agent.role,
        "Ada Brightwater is a retired ferry captain who now runs the harbour café."
    );
    assert!(agent.identity.ends_with("by their order."));
    assert_eq!(agent.communication_style, "Warm, blunt, tells stories that end in a lesson.");
    assert!(
        agent
            .instructions
            .contains("the facilitator: Busy today?\nAda Brightwater: Busy as a Monday ferry."),
        "{}",
        agent.instructions
    );
    assert_eq!(
        imported.scene.as_deref(),
        Some("A windy morning at the harbour café; the facilitator has just come in.")
    );
    assert_eq!(imported.dropped, ["first_mes", "alternate_greetings", "creator_notes"]);
}

#[test]
fn v1_v3_and_png_carriers_are_read_and_v3_wins_in_a_png_with_both() {
    let v1 = r#"{"name": "Bo", "description": "A baker.", "personality": "Shy."}"#;
    assert_eq!(read(v1.as_bytes()).unwrap().version, 1);
    let v3 = V2.replace("chara_card_v2", "chara_card_v3").replace("Ada Brightwater", "Ada Three");
    let card = read(v3.as_bytes()).unwrap();
    assert_eq!((card.version, card.name.as_str()), (3, "Ada Three"));
    let png = png_with(&[("chara", &b64(V2)), ("ccv3", &b64(&v3))]);
    assert_eq!(read(&png).unwrap().name, "Ada Three");
    let png = png_with(&[("Comment", "hi"), ("chara", &b64(V2))]);
    assert_eq!(read(&png).unwrap().name, "Ada Brightwater");
    assert!(read(format!("\u{feff}{V2}").as_bytes()).is_ok(), "a byte-order mark is no problem");
}

#[test]
fn bad_cards_are_located() {
    let say = |bytes: &[u8]| read(bytes).unwrap_err().to_string();
    assert_eq!(
        say(b"{\"name\": \"Bo\",\n  \"description\": }"),
        "line 2, column 18: not JSON: expected value at line 2 column 18"
    );
    assert_eq!(
        say(br#"{"spec": "chara_card_v2", "data": {"description": "x"}}"#),
        "data.name: missing or empty: a persona needs a name"
    );
    assert!(say(br#"{"spec": "chara_card_v9"}"#).starts_with("spec: \"chara_card_v9\" is no card version"));
    assert_eq!(
        say(br#"{"spec": "chara_card_v2"}"#),
        "data: missing: a V2 or V3 card keeps its fields there"
    );
    assert!(say(br#"{"spec": "chara_card_v2", "data": {"name": 7}}"#).starts_with("data: invalid type"));
    assert_eq!(say(b"[1, 2]"), "a card is a JSON object");
    assert!(say(&png_with(&[("Comment", "hi")])).contains("its text chunks are Comment, not \"chara\" or \"ccv3\""));
    assert!(say(&png_with(&[("chara", "%%%")])).starts_with("PNG text chunk \"chara\": not base64"));
    assert!(say(&png_with(&[("chara", &b64("{\"name\": }"))])).starts_with("PNG text chunk \"chara\", line 1, column 10: not JSON"));
    let png = png_with(&[("chara", &b64(V2))]);
    assert!(say(&png[..png.len() / 2]).starts_with("PNG: the image is broken"));
    assert!(say(&[0xff, 0xfe, 0x00]).starts_with("byte 0: not UTF-8 text"));
    // A header claiming a huge picture is refused before anything is held.
    let mut huge = png_with(&[("chara", &b64(V2))]);
    huge[16..24].copy_from_slice(&[0, 1, 0, 0, 0, 1, 0, 0]);
    let crc = crc(&huge[12..29]);
    huge[29..33].copy_from_slice(&crc.to_be_bytes());
    assert!(say(&huge).starts_with("PNG: "), "{}", say(&huge));
}

#[test]
fn ids_are_plain_and_a_name_without_latin_letters_gets_a_stable_one() {
    assert_eq!(id_for("  Dr. Ngozi O'Neil  "), "dr-ngozi-o-neil");
    assert_eq!(id_for("小林"), id_for("小林"));
    assert_eq!(
        (id_for("小林").as_str(), id_for("Tomás Ruiz").as_str(), id_for("김하늘").as_str()),
        ("xiao-lin", "tomas-ruiz", "gimhaneul")
    );
    assert!(id_for("").starts_with("persona-"));
    assert_ne!(id_for("小林"), id_for("王芳"));
}

#[test]
fn our_card_comes_back_as_it_left() {
    let agents = crate::roster::agents::load_roster(&crate::assets::embedded_agents()).unwrap();
    for agent in &agents {
        let card = to_card(agent);
        let json = serde_json::to_string_pretty(&card).unwrap();
        let back = read(json.as_bytes()).unwrap();
        let imported = to_agent(&back, &agent.id);
        let file = crate::source::SourceFile {
            path: format!("{}.md", agent.id),
            text: imported.text.clone(),
        };
        let again = crate::roster::agents::parse_agent(&file).unwrap_or_else(|e| panic!("{e}\n{}", imported.text));
        assert_eq!(
            (&again.name, &again.title, &again.icon, &again.role, &again.identity),
            (&agent.name, &agent.title, &agent.icon, &agent.role, &agent.identity)
        );
        assert_eq!(
            (&again.communication_style, &again.principles, &again.capabilities),
            (&agent.communication_style, &agent.principles, &agent.capabilities)
        );
        assert_eq!(again.instructions, agent.instructions, "{}", agent.id);
        // Any card reader sees the persona in the card's own fields.
        let data = &card["data"];
        assert!(data["description"].as_str().unwrap().starts_with(&agent.role));
        assert_eq!(data["personality"], agent.communication_style.as_str());
        // And in a PNG, as a V2 card is carried.
        let png = png_with(&[("chara", &b64(&json))]);
        assert_eq!(read(&png).unwrap(), back);
    }
}

#[test]
fn control_characters_in_a_card_never_reach_the_file() {
    let card = V2.replace("Warm, blunt", "Warm\\u001b[31m, blunt\\u0007");
    let imported = to_agent(&read(card.as_bytes()).unwrap(), "ada");
    assert!(!imported.text.chars().any(|c| c.is_control() && c != '\n'), "{:?}", imported.text);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_are_read_or_refused_never_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = read(&bytes);
    }

    #[test]
    fn a_damaged_card_is_read_or_refused_never_a_panic(at in 0usize..4000, byte in any::<u8>(), cut in 0usize..4000, png in any::<bool>()) {
        let mut bytes = if png { png_with(&[("chara", &b64(V2))]) } else { V2.as_bytes().to_vec() };
        let n = bytes.len();
        bytes[at % n] = byte;
        bytes.truncate(n - cut % n);
        if let Ok(card) = read(&bytes) {
            let _ = to_agent(&card, &id_for(&card.name));
        }
    }

    #[test]
    fn any_card_text_makes_a_file_that_loads(name in "\\PC{1,30}", description in "\\PC{0,200}", personality in "\\PC{0,80}") {
        prop_assume!(!name.trim().is_empty() && !name.replace('*', "").trim().is_empty());
        let card = Card { name: name.clone(), description, personality, version: 2, ..Card::default() };
        let imported = to_agent(&card, &id_for(&name));
        let file = crate::source::SourceFile { path: "x.md".into(), text: imported.text.clone() };
        prop_assert!(crate::roster::agents::parse_agent(&file).is_ok(), "{}", imported.text);
    }
}
