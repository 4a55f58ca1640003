//! Persona cards in and out: the Tavern character-card format that
//! SillyTavern and its community share personas in (V1 and V2 as JSON, V3
//! as JSON, and either inside a PNG's text chunk: `chara` holds a V2 card,
//! `ccv3` a V3 one, each as base64 JSON). A card becomes one of our agent
//! files; an agent becomes a V2 card. What maps and what is dropped is in
//! docs/configuration.md ("Persona cards").

use base64::Engine as _;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::roster::agents::Agent;

/// A card's text fields, whatever its version.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub(crate) struct Card {
    pub name: String,
    pub description: String,
    pub personality: String,
    pub scenario: String,
    pub first_mes: String,
    pub mes_example: String,
    pub creator_notes: String,
    pub system_prompt: String,
    pub post_history_instructions: String,
    pub alternate_greetings: Vec<String>,
    pub tags: Vec<String>,
    pub creator: String,
    pub character_version: String,
    pub nickname: String,
    pub character_book: Option<Value>,
    pub assets: Option<Value>,
    pub extensions: Option<Value>,
    /// Which version it was read as: 1, 2 or 3.
    #[serde(skip)]
    pub version: u8,
}

/// Why a card could not be read, and where.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CardError {
    /// Where in the file: `line 3, column 9`, `PNG text chunk "chara"`, a field.
    pub at: String,
    pub what: String,
}

impl std::fmt::Display for CardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.at.is_empty() {
            write!(f, "{}", self.what)
        } else {
            write!(f, "{}: {}", self.at, self.what)
        }
    }
}

fn error(at: impl Into<String>, what: impl Into<String>) -> CardError {
    CardError {
        at: at.into(),
        what: what.into(),
    }
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The most a card's picture may take in memory, decoded.
const LIMIT: usize = 64 << 20;

/// Reads a card from a file's bytes: a PNG carrying one, or its JSON.
pub(crate) fn read(bytes: &[u8]) -> Result<Card, CardError> {
    if bytes.starts_with(PNG_SIGNATURE) {
        let (chunk, json) = png_card(bytes)?;
        return from_json(&json).map_err(|e| error(format!("PNG text chunk \"{chunk}\", {}", e.at), e.what));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| error(format!("byte {}", e.valid_up_to()), "not UTF-8 text (nor a PNG)"))?;
    from_json(text.trim_start_matches('\u{feff}'))
}

/// The card a PNG carries: the V3 chunk (`ccv3`) when there is one, else
/// the V2 one (`chara`), decoded from base64.
fn png_card(bytes: &[u8]) -> Result<(&'static str, String), CardError> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    // A card's picture is small; a bigger one is refused before it is held.
    decoder.set_limits(png::Limits { bytes: LIMIT });
    let broken = |e: png::DecodingError| error("PNG", format!("the image is broken: {e}"));
    let mut reader = decoder.read_info().map_err(broken)?;
    // Text chunks after the image data are read only once it is.
    let size = reader
        .output_buffer_size()
        .filter(|&n| n <= LIMIT)
        .ok_or_else(|| error("PNG", "the image is too large for a card (over 64 MiB)"))?;
    let mut buf = vec![0; size];
    reader.next_frame(&mut buf).map_err(broken)?;
    reader.finish().map_err(broken)?;
    let info = reader.info();
    let texts: Vec<(String, String)> = info
        .uncompressed_latin1_text
        .iter()
        .map(|t| (t.keyword.clone(), t.text.clone()))
        .chain(info.utf8_text.iter().filter_map(|t| Some((t.keyword.clone(), t.get_text().ok()?))))
        .chain(
            info.compressed_latin1_text
                .iter()
                .filter_map(|t| Some((t.keyword.clone(), t.get_text().ok()?))),
        )
        .collect();
    for chunk in ["ccv3", "chara"] {
        if let Some((_, text)) = texts.iter().find(|(k, _)| k.eq_ignore_ascii_case(chunk)) {
            let raw = base64::engine::general_purpose::STANDARD
                .decode(text.trim())
                .map_err(|e| error(format!("PNG text chunk \"{chunk}\""), format!("not base64: {e}")))?;
            let json = String::from_utf8(raw).map_err(|_| error(format!("PNG text chunk \"{chunk}\""), "not UTF-8 JSON"))?;
            return Ok((chunk, json));
        }
    }
    let found: Vec<&str> = texts.iter().map(|(k, _)| k.as_str()).collect();
    Err(error(
        "PNG",
        if found.is_empty() {
            "no character card in it (no text chunk \"chara\" or \"ccv3\")".to_string()
        } else {
            format!(
                "no character card in it: its text chunks are {}, not \"chara\" or \"ccv3\"",
                found.join(", ")
            )
        },
    ))
}

/// A card's JSON: V2 and V3 keep the fields under `data`, V1 at the top.
fn from_json(text: &str) -> Result<Card, CardError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| error(format!("line {}, column {}", e.line(), e.column()), format!("not JSON: {e}")))?;
    let Value::Object(top) = &value else {
        return Err(error("", "a card is a JSON object"));
    };
    let spec = top.get("spec").and_then(Value::as_str).unwrap_or("");
    let (fields, version, path) = match spec {
        "chara_card_v3" => (top.get("data"), 3, "data"),
        "chara_card_v2" => (top.get("data"), 2, "data"),
        "" => (Some(&value), 1, ""),
        other => {
            return Err(error(
                "spec",
                format!("\"{other}\" is no card version this reads (chara_card_v2, chara_card_v3)"),
            ))
        }
    };
    let fields = fields.ok_or_else(|| error("data", "missing: a V2 or V3 card keeps its fields there"))?;
    let mut card: Card = serde_json::from_value(fields.clone()).map_err(|e| error(path, format!("{e}")))?;
    card.version = version;
    if card.name.trim().is_empty() {
        return Err(error(
            if path.is_empty() { "name" } else { "data.name" },
            "missing or empty: a persona needs a name",
        ));
    }
    Ok(card)
}

/// A card made into an agent file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Imported {
    pub id: String,
    pub name: String,
    /// The agent file: YAML frontmatter and the persona's body.
    pub text: String,
    /// The card's scenario: a party's scene, not the persona's.
    pub scene: Option<String>,
    /// The card's fields this does not carry over, by name.
    pub dropped: Vec<&'static str>,
}

/// Our own fields, kept in an exported card's `extensions.bmad_party`, so
/// a card of ours comes back as it left.
#[derive(Debug, Default, serde::Serialize, Deserialize)]
#[serde(default)]
struct Ours {
    id: String,
    title: String,
    icon: String,
    role: String,
    identity: String,
    communication_style: String,
    principles: Vec<String>,
    capabilities: Option<String>,
}

/// An id from a name: its letters and digits spelt in ASCII by `deunicode`
/// (`Tomás` → `tomas`, `小林` → `xiao-lin`), lower case, joined by `-`; a
/// name with none (an emoji alone) gets `persona-` and a stable hash.
pub(crate) fn id_for(name: &str) -> String {
    id_with(name, "persona")
}

/// An id made of `name`'s letters and digits spelt in ASCII, else
/// `prefix` and a hash of it.
pub(crate) fn id_with(name: &str, prefix: &str) -> String {
    let mut id = String::new();
    for c in deunicode::deunicode(name).chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            id.push(c);
        } else if !id.is_empty() && !id.ends_with('-') {
            id.push('-');
        }
    }
    let id: String = id.chars().take(40).collect();
    let id = id.trim_end_matches('-');
    if id.is_empty() {
        let hash = name
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
        format!("{prefix}-{:08x}", hash as u32)
    } else {
        id.to_string()
    }
}

/// `base`, else `base-2`, `base-3`… the first one `free` allows: an id
/// no agent, party or file has.
pub(crate) fn free_id(base: &str, free: impl Fn(&str) -> bool) -> String {
    std::iter::once(base.to_string())
        .chain((2..).map(|n| format!("{base}-{n}")))
        .find(|id| free(id))
        .unwrap_or_else(|| base.to_string())
}

/// The card's macros in our words: `{{char}}` is the persona, `{{user}}`
/// the facilitator; control characters go.
fn text(s: &str, name: &str) -> String {
    let s = s.replace("{{char}}", name).replace("{{Char}}", name).replace("<BOT>", name);
    let s = s
        .replace("{{user}}", "the facilitator")
        .replace("{{User}}", "the facilitator")
        .replace("<USER>", "the facilitator");
    crate::text::sanitize(&s).trim().to_string()
}

/// The first sentence of `s` (at most 160 characters): an agent's role.
fn first_sentence(s: &str) -> String {
    let line = s.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let end = line
        .char_indices()
        .find(|&(i, c)| {
            matches!(c, '.' | '!' | '?' | '。' | '！' | '？') && line[i + c.len_utf8()..].chars().next().is_none_or(char::is_whitespace)
        })
        .map_or(line.len(), |(i, c)| i + c.len_utf8());
    crate::text::ellipsize(&line[..end], 160)
}

/// The agent file a card becomes, `id` its id (free in the room).
pub(crate) fn to_agent(card: &Card, id: &str) -> Imported {
    let name = text(&card.name, &card.name).replace('*', "");
    let t = |s: &str| text(s, &name);
    let ours: Option<Ours> = card
        .extensions
        .as_ref()
        .and_then(|e| e.get("bmad_party"))
        .and_then(|o| serde_json::from_value(o.clone()).ok());
    let description = t(&card.description);
    let personality = t(&card.personality);
    let tag = card.tags.iter().map(|s| t(s)).find(|s| !s.is_empty());
    let (title, icon, role, identity, style, principles, capabilities) = match ours {
        Some(o) => (
            o.title,
            o.icon,
            o.role,
            o.identity,
            o.communication_style,
            o.principles,
            o.capabilities,
        ),
        None => (
            tag.map_or_else(|| "Persona".to_string(), |s| capitalised(&s)),
            "🎭".to_string(),
            first_sentence(if description.is_empty() { &personality } else { &description }),
            if description.is_empty() { personality.clone() } else { description },
            personality,
            Vec::new(),
            None,
        ),
    };
    let role = if role.is_empty() {
        format!("{name}, from a character card")
    } else {
        role
    };
    let fields = crate::roster::agents::AgentFile {
        id,
        name: &name,
        title: if title.is_empty() { "Persona" } else { &title },
        icon: &icon,
        role: &role,
        identity: &identity,
        communication_style: &style,
        principles: &principles,
        capabilities: capabilities.as_deref(),
    };
    let mut body = String::new();
    let system = t(&card.system_prompt);
    if !system.is_empty() {
        body.push_str(&format!("{system}\n\n"));
    }
    let examples = t(&card.mes_example.replace("<START>", ""));
    if !examples.is_empty() {
        body.push_str(&format!("## How {name} speaks (the card's example messages)\n\n{examples}\n"));
    }
    let mut dropped = Vec::new();
    for (field, present) in [
        ("first_mes", !card.first_mes.trim().is_empty()),
        ("alternate_greetings", !card.alternate_greetings.is_empty()),
        ("post_history_instructions", !card.post_history_instructions.trim().is_empty()),
        ("character_book", card.character_book.as_ref().is_some_and(|b| !b.is_null())),
        ("creator_notes", !card.creator_notes.trim().is_empty()),
        (
            "assets",
            card.assets.as_ref().is_some_and(|a| a.as_array().is_some_and(|a| !a.is_empty())),
        ),
        ("nickname", !card.nickname.trim().is_empty()),
    ] {
        if present {
            dropped.push(field);
        }
    }
    let scene = Some(t(&card.scenario)).filter(|s| !s.is_empty());
    Imported {
        id: id.to_string(),
        name: name.clone(),
        text: fields.text(&body),
        scene,
        dropped,
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// An agent as a V2 card: the persona in the card's own fields, for any
/// tool that reads cards, and ours whole in `extensions.bmad_party`.
pub(crate) fn to_card(agent: &Agent) -> Value {
    let mut description = format!("{}\n\n{}", agent.role, agent.identity);
    if !agent.principles.is_empty() {
        description.push_str("\n\nPrinciples:");
        for p in &agent.principles {
            description.push_str(&format!("\n- {p}"));
        }
    }
    let ours = Ours {
        id: agent.id.clone(),
        title: agent.title.clone(),
        icon: agent.icon.clone(),
        role: agent.role.clone(),
        identity: agent.identity.clone(),
        communication_style: agent.communication_style.clone(),
        principles: agent.principles.clone(),
        capabilities: agent.capabilities.clone(),
    };
    json!({
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {
            "name": agent.name,
            "description": description,
            "personality": agent.communication_style,
            "scenario": "",
            "first_mes": "",
            "mes_example": "",
            "creator_notes": format!("{} ({}), exported by bmad-party", agent.name, agent.title),
            "system_prompt": agent.instructions,
            "post_history_instructions": "",
            "alternate_greetings": [],
            "tags": [agent.title],
            "creator": "",
            "character_version": "",
            "extensions": { "bmad_party": ours },
        }
    })
}

#[cfg(test)]
#[path = "cards_tests.rs"]
mod tests;
