//! `/cast` typed in the message box: a cast drafted for a topic, as
//! `bmad-party cast` drafts one, reviewed in the room and, kept, the room
//! switches to it (`machine::cast` carries it out). `/cast TOPIC` drafts
//! for that topic, `/cast` alone for the session's; `/cast --from [TOPIC]`
//! distils the cast from the documents in front of the room (`--context`,
//! `/context`), as `cast --from FILE` does.

const CAST: &str = "/cast";
const FROM: &str = "--from";

/// What `/cast` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ask {
    /// Empty: the session's topic.
    pub topic: String,
    /// Drawn from the documents in front of the room.
    pub from_documents: bool,
}

/// The `/cast` command `text` types, if it is one (`/casting` is a message).
pub(crate) fn read(text: &str) -> Option<Ask> {
    let rest = text.trim().strip_prefix(CAST)?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    let rest = rest.trim();
    let (from_documents, topic) = match rest.strip_prefix(FROM) {
        Some(after) if after.is_empty() || after.starts_with(char::is_whitespace) => (true, after.trim()),
        _ => (false, rest),
    };
    Some(Ask {
        topic: topic.to_string(),
        from_documents,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(topic: &str, from_documents: bool) -> Option<Ask> {
        Some(Ask {
            topic: topic.into(),
            from_documents,
        })
    }

    #[test]
    fn cast_takes_a_topic_or_none_and_from_the_documents_on_asking() {
        assert_eq!(read("/cast"), ask("", false));
        assert_eq!(
            read("  /cast  A night bus for the suburbs "),
            ask("A night bus for the suburbs", false)
        );
        assert_eq!(read("/cast --from"), ask("", true));
        assert_eq!(read("/cast --from who rides the night bus?"), ask("who rides the night bus?", true));
        assert_eq!(read("/cast --fromage"), ask("--fromage", false));
        assert_eq!(read("/casting call"), None);
        assert_eq!(read("cast a room"), None);
    }
}
