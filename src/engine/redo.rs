//! The facilitator's second thoughts on the last round, typed in the
//! message box: `/redo [NAME]` asks an agent's reply in it again (the
//! round's last reply when no name is given), `/undo` takes the whole
//! round back, `/edit MESSAGE` sends the facilitator's last message again
//! as MESSAGE (its round is played again), `/takes` lists what was set
//! aside of the round and `/take N` brings take N back in place of what
//! stands. This is the reading of a typed line; the party carries it out
//! (`machine::redo`).

use crate::roster::agents::Agent;

/// A typed second thought, agents by id.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Redo {
    /// Ask again from this agent's reply in the last round (None: the
    /// round's last reply).
    Again(Option<String>),
    Undo,
    Edit(String),
    Takes,
    Take(usize),
}

/// Why a typed second thought cannot be read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RedoError {
    /// `/redo` of a word that names no speaker.
    Unknown { word: String },
    /// `/edit` with no message.
    EditWithoutMessage,
    /// `/take` without a take's number (1 and up).
    TakeWithoutNumber,
    /// `/undo` and `/takes` take nothing after them.
    Trailing { command: &'static str },
}

const REDO: &str = "/redo";
const UNDO: &str = "/undo";
const EDIT: &str = "/edit";
const TAKES: &str = "/takes";
const TAKE: &str = "/take";

/// The second thought `text` types, if it is one: None for any other
/// message (`/redone` is a message).
pub(crate) fn read(text: &str, agents: &[Agent]) -> Option<Result<Redo, RedoError>> {
    let text = text.trim();
    let (command, rest) = [REDO, UNDO, EDIT, TAKES, TAKE].into_iter().find_map(|c| {
        let rest = text.strip_prefix(c)?;
        (rest.is_empty() || rest.starts_with(char::is_whitespace)).then_some((c, rest.trim()))
    })?;
    Some(match command {
        REDO if rest.is_empty() => Ok(Redo::Again(None)),
        REDO => match crate::engine::hands::agent_named(rest, agents) {
            Some(a) => Ok(Redo::Again(Some(a.id.clone()))),
            None => Err(RedoError::Unknown { word: rest.to_string() }),
        },
        EDIT if rest.is_empty() => Err(RedoError::EditWithoutMessage),
        EDIT => Ok(Redo::Edit(rest.to_string())),
        TAKE => rest
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .map(Redo::Take)
            .ok_or(RedoError::TakeWithoutNumber),
        _ if !rest.is_empty() => Err(RedoError::Trailing { command }),
        UNDO => Ok(Redo::Undo),
        _ => Ok(Redo::Takes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::embedded_agents;

    fn room() -> Vec<Agent> {
        crate::roster::agents::load_roster(&embedded_agents()).unwrap()
    }

    #[test]
    fn each_second_thought_reads_its_argument() {
        let room = room();
        assert_eq!(read("/redo", &room), Some(Ok(Redo::Again(None))));
        assert_eq!(read("/redo @Kofi", &room), Some(Ok(Redo::Again(Some("developer".into())))));
        assert_eq!(read("/redo bob", &room), Some(Err(RedoError::Unknown { word: "bob".into() })));
        assert_eq!(read(" /undo ", &room), Some(Ok(Redo::Undo)));
        assert_eq!(read("/undo that", &room), Some(Err(RedoError::Trailing { command: "/undo" })));
        assert_eq!(
            read("/edit What would you cut first?", &room),
            Some(Ok(Redo::Edit("What would you cut first?".into())))
        );
        assert_eq!(read("/edit", &room), Some(Err(RedoError::EditWithoutMessage)));
        assert_eq!(read("/takes", &room), Some(Ok(Redo::Takes)));
        assert_eq!(read("/take 2", &room), Some(Ok(Redo::Take(2))));
        assert_eq!(read("/take 0", &room), Some(Err(RedoError::TakeWithoutNumber)));
        assert_eq!(read("/take two", &room), Some(Err(RedoError::TakeWithoutNumber)));
    }

    #[test]
    fn other_messages_are_no_second_thought() {
        let room = room();
        for text in ["/redone", "redo it", "/undoing", "/editor", "/taken", "Kofi, /redo that"] {
            assert_eq!(read(text, &room), None, "{text}");
        }
    }
}
