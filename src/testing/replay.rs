//! Replaying a recorded turn through the reply reader (`engine::reply`): the
//! protocol, then cleanup at a level, in the room the turn was said in, as
//! the engine builds it for a speaker's call (the built-in workflow's runtime
//! texts, the facilitator's message, what the others said before, who has
//! not spoken). The replay bench (`benches/replay.rs`) plays a corpus of
//! real multi-persona turns through it.

use serde::Deserialize;

use crate::config::CleanupLevel;
use crate::engine::cleanup::{choose_level, language, Level, ModelFacts, Voices};
use crate::engine::protocol::markers::{Marker, RoomMarkers};
use crate::engine::reply::ReplyReader;
use crate::i18n::Lang;
use crate::roster::agents::Agent;

/// One turn of a corpus line (JSON): who said it, in which room, and what.
#[derive(Debug, Clone, Deserialize)]
pub struct Turn {
    pub speaker: String,
    #[serde(default)]
    pub title: String,
    /// The facilitator's last message before it.
    #[serde(default, alias = "user_message", alias = "message")]
    pub user: String,
    /// What the others said since that message, in order: `{speaker, text}`
    /// objects, or names alone.
    #[serde(default)]
    pub before: Vec<Said>,
    /// Earlier turns of the session, before that message.
    #[serde(default)]
    pub history: Vec<Said>,
    /// The room's other members.
    #[serde(default)]
    pub others: Vec<String>,
    pub text: String,
    /// The language, as a code or a name (`en`, `Korean`).
    #[serde(default, alias = "language")]
    pub lang: String,
    /// The model that wrote it, where known.
    #[serde(default)]
    pub model: String,
}

/// A turn said before: its speaker and words (the words may be unknown).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Said {
    Turn { speaker: String, text: String },
    Name(String),
}

impl Said {
    fn speaker(&self) -> &str {
        match self {
            Said::Turn { speaker, .. } | Said::Name(speaker) => speaker,
        }
    }

    fn text(&self) -> Option<&str> {
        match self {
            Said::Turn { text, .. } => Some(text),
            Said::Name(_) => None,
        }
    }
}

/// What the facilitator would have seen of a turn.
#[derive(Debug, Clone)]
pub struct Replayed {
    pub shown: String,
    /// The cuts, by their counter's code, with what they cut.
    pub cuts: Vec<(&'static str, String)>,
    /// The speaker's label the protocol took off, if any.
    pub label: Option<String>,
    /// Judged whole: `speech`, or why it would be asked again (`empty`,
    /// the cuts' codes, `wrong_language`).
    pub left: String,
}

/// The facilitator's name in a replayed room.
const HOST: &str = "Facilitator";

/// Whether the facilitator's `message` asks for a list (a list it asks
/// for is never cut to a turn's points).
pub fn asks_for_list(message: &str) -> bool {
    crate::engine::cleanup::asks_for_list(message)
}

/// The level `auto` chooses for `model` served at `base_url`.
pub fn auto_level(model: &str, base_url: &str) -> &'static str {
    let facts = ModelFacts {
        model,
        base_url: Some(base_url),
        server_size: None,
        rehearsal: false,
    };
    choose_level(CleanupLevel::Auto, &facts).0.code()
}

/// Plays `turn` through the reader at `level` (`full`, `light`, `off`), in
/// pieces of `piece` characters, as a server streams it.
pub fn replay(turn: &Turn, level: &str, piece: usize) -> Replayed {
    let level = match level {
        "off" => Level::Off,
        "light" => Level::Light,
        _ => Level::Full,
    };
    let voices = voices(turn);
    let markers = voices.markers.clone().unwrap_or_else(room_markers);
    let mut reader = ReplyReader::new(markers, &voices, true, None, level);
    let chars: Vec<char> = turn.text.chars().collect();
    let mut shown = String::new();
    for p in chars.chunks(piece.max(1)) {
        let read = reader.piece(&p.iter().collect::<String>());
        shown.push_str(&read.show);
        if read.over {
            break;
        }
    }
    shown.push_str(&reader.finish(false));
    let cleanup = &reader.cleanup;
    let left = match cleanup.left(&shown) {
        crate::engine::cleanup::Left::Speech => "speech".to_string(),
        crate::engine::cleanup::Left::Empty => "empty".to_string(),
        crate::engine::cleanup::Left::Nothing(what) => what.join(","),
    };
    Replayed {
        cuts: cleanup.cuts().iter().map(|c| (c.kind.code(), c.text.clone())).collect(),
        label: reader.protocol.label().map(String::from),
        shown,
        left,
    }
}

fn room_markers() -> RoomMarkers {
    RoomMarkers {
        end: Marker::new("<!-- END -->"),
        ask: Marker::new("!?@human").or_after_marks(&format!("@{HOST}")),
    }
}

/// A speaker's call's voices, as `Party::voices_for` and a round's turn
/// request build them.
fn voices(turn: &Turn) -> Voices {
    let spoke = |n: &str| turn.before.iter().chain(&turn.history).any(|s| s.speaker() == n);
    let mut others: Vec<String> = vec![HOST.to_string()];
    others.extend(turn.others.iter().filter(|n| **n != turn.speaker).cloned());
    for s in turn.before.iter().chain(&turn.history) {
        if s.speaker() != turn.speaker && !others.iter().any(|o| o == s.speaker()) {
            others.push(s.speaker().to_string());
        }
    }
    let unspoken: Vec<String> = others.iter().skip(1).filter(|n| !spoke(n)).cloned().collect();
    let mut v = Voices::new(&turn.speaker, others, unspoken, language::of(&turn.lang));
    v.titles = vec![turn.title.clone()].into_iter().filter(|t| !t.is_empty()).collect();
    v.markers = Some(room_markers());
    v.hosts = vec![HOST.into()];
    for text in runtime_texts(turn) {
        v = v.runtime(&text);
    }
    v = v.facilitator(HOST, &turn.user);
    for s in turn.history.iter().chain(&turn.before) {
        let Some(text) = s.text() else { continue };
        v = if s.speaker() == turn.speaker {
            v.earlier(text)
        } else {
            v.another(s.speaker(), text)
        };
    }
    v.points = (!asks_for_list(&turn.user)).then_some(crate::config::Config::default().party.turn_points);
    v
}

/// The runtime's texts of the speaker's call, from the built-in workflow.
fn runtime_texts(turn: &Turn) -> Vec<String> {
    static WORKFLOW: std::sync::LazyLock<Option<crate::workflow::Workflow>> =
        std::sync::LazyLock::new(|| crate::workflow::Workflow::load(crate::assets::WorkflowSource { dir: None }).ok());
    let Some(workflow) = WORKFLOW.as_ref() else {
        return Vec::new();
    };
    let agent = |name: &str| Agent {
        id: name.to_lowercase(),
        name: name.to_string(),
        ..Agent::default()
    };
    let mut agents: Vec<Agent> = vec![Agent {
        title: turn.title.clone(),
        ..agent(&turn.speaker)
    }];
    agents.extend(turn.others.iter().filter(|n| **n != turn.speaker).map(|n| agent(n)));
    let language = if turn.lang.is_empty() { "English" } else { &turn.lang };
    let env = crate::engine::prompts::PromptEnv {
        workflow,
        agents: &agents,
        user_name: HOST,
        speech_language: language,
        lang: Lang::En,
        document_language: language,
    };
    let earlier: Vec<String> = turn.before.iter().map(|s| s.speaker().to_string()).collect();
    env.runtime_texts(&agents[0], 2, &earlier, Some("<!-- END -->"), Some("!?@human"), None)
}
