//! The facilitator's hands on who is in the room and who speaks, typed in
//! the message box: `/invite NAME…` brings agents of the roster in (any
//! agent the program knows that is not in the room), `/dismiss NAME…`
//! sends speakers out (their earlier turns stay), `/party NAME` brings
//! another named party's cast in their place, `/mute NAME…` keeps
//! agents in the room but never picks them,
//! `/unmute [NAME…]` lets them (everyone, with no name) be picked again,
//! `/only NAME… [message]` gives the next round to those agents alone, in
//! that order (with no message, the next message's round; `/only` alone
//! takes a pending one back). This is the reading of a typed line against
//! the room's speakers; the party carries it out (`machine::hands`).

use crate::roster::agents::Agent;

/// A typed room command, agents by id.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Hand {
    /// Agents of the roster, not in the room, in the order named.
    Invite(Vec<String>),
    /// Speakers in the room.
    Dismiss(Vec<String>),
    /// Another named party's cast in place of the room's (`/party NAME`;
    /// empty: none named).
    Switch(String),
    Mute(Vec<String>),
    /// Empty: everyone muted.
    Unmute(Vec<String>),
    /// Empty `agents`: the pending `only` is taken back. Empty `message`:
    /// the round of the next message (or [C]) goes to them.
    Only {
        agents: Vec<String>,
        message: String,
    },
}

/// Why a typed room command cannot be carried out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum HandError {
    /// A word where a speaker's name was wanted.
    Unknown { word: String },
    /// `/invite` of a word that names no agent out of the room (`here`:
    /// the agent it names is in the room already).
    NotInvitable { word: String, here: bool },
    /// `/mute`, `/invite` or `/dismiss` with no name.
    NoName { command: &'static str },
}

const MUTE: &str = "/mute";
const UNMUTE: &str = "/unmute";
const ONLY: &str = "/only";
const INVITE: &str = "/invite";
const DISMISS: &str = "/dismiss";
const PARTY: &str = "/party";

/// The room command `text` types, if it is one: None for any other
/// message (`/muted` is a message). `agents`: the room; `pool`: every
/// agent the program knows (the room's among them).
pub(crate) fn read(text: &str, agents: &[Agent], pool: &[Agent]) -> Option<Result<Hand, HandError>> {
    let text = text.trim();
    let (command, rest) = [MUTE, UNMUTE, ONLY, INVITE, DISMISS, PARTY].into_iter().find_map(|c| {
        let rest = text.strip_prefix(c)?;
        (rest.is_empty() || rest.starts_with(char::is_whitespace)).then_some((c, rest.trim()))
    })?;
    if command == INVITE {
        return Some(invite(rest, agents, pool));
    }
    if command == PARTY {
        return Some(Ok(Hand::Switch(rest.to_string())));
    }
    let (named, message) = leading_names(rest, agents);
    Some(match command {
        ONLY if named.is_empty() && !message.is_empty() => Err(unknown(message)),
        ONLY => Ok(Hand::Only {
            agents: named,
            message: message.trim_start_matches([':', '：', '-', '—', ',', '，']).trim().to_string(),
        }),
        _ if !message.is_empty() => Err(unknown(message)),
        MUTE | DISMISS if named.is_empty() => Err(HandError::NoName { command }),
        MUTE => Ok(Hand::Mute(named)),
        DISMISS => Ok(Hand::Dismiss(named)),
        _ => Ok(Hand::Unmute(named)),
    })
}

/// `/invite`'s names: agents of `pool` not in the room, each once.
fn invite(rest: &str, agents: &[Agent], pool: &[Agent]) -> Result<Hand, HandError> {
    let out: Vec<Agent> = pool.iter().filter(|p| !agents.iter().any(|a| a.id == p.id)).cloned().collect();
    let (named, left) = leading_names(rest, &out);
    if let Some(word) = left.split_whitespace().next() {
        let here = agent_named(word, agents).is_some();
        return Err(HandError::NotInvitable {
            word: word.to_string(),
            here,
        });
    }
    if named.is_empty() {
        return Err(HandError::NoName { command: INVITE });
    }
    Ok(Hand::Invite(named))
}

fn unknown(rest: &str) -> HandError {
    HandError::Unknown {
        word: rest.split_whitespace().next().unwrap_or_default().to_string(),
    }
}

/// The speakers named at the start of `text` (ids, each once, in order)
/// and what follows them.
fn leading_names<'a>(text: &'a str, agents: &[Agent]) -> (Vec<String>, &'a str) {
    let mut named: Vec<String> = Vec::new();
    let mut rest = text;
    loop {
        let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, ',' | '，' | '、'));
        let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
        let word = &trimmed[..end];
        match agent_named(word, agents) {
            Some(a) => {
                if !named.contains(&a.id) {
                    named.push(a.id.clone());
                }
                rest = &trimmed[end..];
            }
            None => return (named, trimmed),
        }
    }
}

/// The speaker `word` names: its id, its name, its name's first word or
/// one of its aliases, in any case, with or without `@`, a comma or a
/// colon after it. A moderator is no speaker.
pub(crate) fn agent_named<'a>(word: &str, agents: &'a [Agent]) -> Option<&'a Agent> {
    let word = word
        .trim_start_matches(['@', '＠'])
        .trim_end_matches([',', '，', '、', ':', '：', ';', '；'])
        .to_lowercase();
    if word.is_empty() {
        return None;
    }
    agents.iter().filter(|a| !a.moderator).find(|a| {
        let name = a.name.to_lowercase();
        word == a.id.to_lowercase()
            || word == name
            || name.split_whitespace().next() == Some(word.as_str())
            || a.aliases.iter().any(|x| x.to_lowercase() == word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::embedded_agents;

    fn room() -> Vec<Agent> {
        crate::roster::agents::load_roster(&embedded_agents()).unwrap()
    }

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn mute_and_unmute_take_ids_names_and_mentions() {
        let room = room();
        assert_eq!(read("/mute kofi", &room, &room), Some(Ok(Hand::Mute(ids(&["developer"])))));
        assert_eq!(
            read("/mute @Maya, ingrid", &room, &room),
            Some(Ok(Hand::Mute(ids(&["analyst", "architect"]))))
        );
        assert_eq!(read("/unmute Architect", &room, &room), Some(Ok(Hand::Unmute(ids(&["architect"])))));
        assert_eq!(read("/unmute", &room, &room), Some(Ok(Hand::Unmute(vec![]))));
        assert_eq!(read("/mute", &room, &room), Some(Err(HandError::NoName { command: "/mute" })));
        assert_eq!(
            read("/mute kofi bob", &room, &room),
            Some(Err(HandError::Unknown { word: "bob".into() }))
        );
    }

    #[test]
    fn only_takes_the_names_it_opens_with_and_the_rest_is_the_message() {
        let room = room();
        let only = |a: &[&str], m: &str| {
            Some(Ok(Hand::Only {
                agents: ids(a),
                message: m.into(),
            }))
        };
        assert_eq!(
            read("/only kofi maya what would you two cut?", &room, &room),
            only(&["developer", "analyst"], "what would you two cut?")
        );
        assert_eq!(
            read("/only @Kofi, @Maya: cut what?", &room, &room),
            only(&["developer", "analyst"], "cut what?")
        );
        assert_eq!(read("/only kofi", &room, &room), only(&["developer"], ""));
        assert_eq!(read("/only", &room, &room), only(&[], ""));
        assert_eq!(
            read("/only everyone but kofi", &room, &room),
            Some(Err(HandError::Unknown { word: "everyone".into() }))
        );
        // A name later in the message is the message's.
        assert_eq!(read("/only maya ask kofi", &room, &room), only(&["analyst"], "ask kofi"));
    }

    #[test]
    fn invite_takes_agents_out_of_the_room_and_dismiss_those_in_it() {
        let pool = room();
        let (here, out): (Vec<Agent>, Vec<Agent>) = pool.iter().cloned().partition(|a| a.id != "developer" && a.id != "test-architect");
        assert_eq!(out.len(), 2);
        assert_eq!(
            read("/invite kofi @Hiro", &here, &pool),
            Some(Ok(Hand::Invite(ids(&["developer", "test-architect"]))))
        );
        assert_eq!(
            read("/invite maya", &here, &pool),
            Some(Err(HandError::NotInvitable {
                word: "maya".into(),
                here: true
            }))
        );
        assert_eq!(
            read("/invite kofi bob", &here, &pool),
            Some(Err(HandError::NotInvitable {
                word: "bob".into(),
                here: false
            }))
        );
        assert_eq!(read("/invite", &here, &pool), Some(Err(HandError::NoName { command: "/invite" })));
        assert_eq!(
            read("/dismiss maya, ingrid", &here, &pool),
            Some(Ok(Hand::Dismiss(ids(&["analyst", "architect"]))))
        );
        assert_eq!(
            read("/dismiss kofi", &here, &pool),
            Some(Err(HandError::Unknown { word: "kofi".into() })),
            "kofi is not in the room"
        );
        assert_eq!(read("/dismiss", &here, &pool), Some(Err(HandError::NoName { command: "/dismiss" })));
        assert_eq!(
            read("/party Launch crew", &here, &pool),
            Some(Ok(Hand::Switch("Launch crew".into())))
        );
        assert_eq!(read("/party", &here, &pool), Some(Ok(Hand::Switch(String::new()))));
        assert_eq!(read("/partying", &here, &pool), None);
    }

    #[test]
    fn other_messages_are_no_room_command() {
        let room = room();
        for text in [
            "/muted voices",
            "mute kofi",
            "/context notes.md",
            "Kofi, /mute that",
            "/onlyone",
            "/invited",
            "/dismissal",
        ] {
            assert_eq!(read(text, &room, &room), None, "{text}");
        }
    }
}
