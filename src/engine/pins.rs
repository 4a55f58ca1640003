//! Pinned decisions: `/pin [NAME]` marks the last reply (NAME's) as the
//! sentence that was the decision, `/unpin` takes the pins back. A pin
//! goes first into the highlights, the takeaways' decisions and the
//! party's memory. This is the reading of the typed line and the pure
//! parts; the party carries it out (`machine::pins`).

use crate::roster::agents::Agent;
use crate::session::Pin;

/// A typed pin command, the agent by id.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PinCommand {
    /// The last reply (None), or NAME's last.
    Pin(Option<String>),
    /// Every pin taken back.
    Unpin,
}

/// The pin command `text` types, if it is one; Err: the word that names
/// no speaker.
pub(crate) fn read(text: &str, agents: &[Agent]) -> Option<Result<PinCommand, String>> {
    let text = text.trim();
    let word = |c: &str| {
        let rest = text.strip_prefix(c)?;
        (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim())
    };
    if let Some(rest) = word("/unpin") {
        return rest.is_empty().then_some(Ok(PinCommand::Unpin));
    }
    let rest = word("/pin")?;
    if rest.is_empty() {
        return Some(Ok(PinCommand::Pin(None)));
    }
    Some(match crate::engine::hands::agent_named(rest, agents) {
        Some(a) => Ok(PinCommand::Pin(Some(a.id.clone()))),
        None => Err(rest.to_string()),
    })
}

/// The decisions with the pinned ones first (`label: text`, each once).
pub(crate) fn decisions_first(pins: &[Pin], decisions: &[String]) -> Vec<String> {
    let mut out: Vec<String> = pins.iter().map(Pin::line).collect();
    out.extend(
        decisions
            .iter()
            .filter(|d| !pins.iter().any(|p| p.text.contains(d.as_str())))
            .cloned(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::embedded_agents;

    #[test]
    fn pin_takes_a_name_or_none_and_unpin_nothing() {
        let room = crate::roster::agents::load_roster(&embedded_agents()).unwrap();
        assert_eq!(read("/pin", &room), Some(Ok(PinCommand::Pin(None))));
        assert_eq!(read("/pin @Ingrid", &room), Some(Ok(PinCommand::Pin(Some("architect".into())))));
        assert_eq!(read("/pin bob", &room), Some(Err("bob".into())));
        assert_eq!(read("/unpin", &room), Some(Ok(PinCommand::Unpin)));
        for text in ["/pinned", "/unpin it", "pin it", "/pins"] {
            assert_eq!(read(text, &room), None, "{text}");
        }
    }

    #[test]
    fn pinned_decisions_come_first_and_once() {
        let pins = [Pin {
            round: 2,
            agent: "architect".into(),
            label: "🏗️ Ingrid".into(),
            text: "Ship the annual plan first.".into(),
        }];
        let decisions = vec!["Ship the annual plan first.".to_string(), "Price by seat.".to_string()];
        assert_eq!(
            decisions_first(&pins, &decisions),
            ["🏗️ Ingrid: Ship the annual plan first.", "Price by seat."]
        );
    }
}
