//! `bmad.parties`: standing casts by id — who is in each, the scene they
//! are given, whether they remember. A later config layer's party replaces
//! the one of the same id; the others are kept.

use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::i18n::Problem;

use super::check::Checker;

/// One standing cast as its file defines it.
#[derive(Debug, Clone, PartialEq)]
pub struct PartyDef {
    /// What `--party` names and the memory folder is called.
    pub id: String,
    pub name: String,
    /// A stage direction every member is given.
    pub scene: Option<String>,
    /// By id, alias or name; None: open-cast (the default room).
    pub members: Option<Vec<String>>,
    /// Whether the party keeps a memory between sessions.
    pub memory: bool,
    /// Where it was defined, for `--list-parties` and messages.
    pub source: String,
}

/// A name a party may have as its id (and its memory folder's name).
pub(crate) fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') && !id.starts_with(['-', '_'])
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPartyDef {
    name: Option<String>,
    members: Option<Vec<String>>,
    scene: Option<String>,
    memory: Option<bool>,
}

type RawParties = Option<Spanned<std::collections::BTreeMap<String, Spanned<RawPartyDef>>>>;

/// Checks the layer's parties into `into`, and that `default_party`, if
/// this layer sets one, is a known party or null.
pub(super) fn check(raw: &RawParties, into: &mut Vec<PartyDef>, default: &Option<Spanned<Option<String>>>, ck: &mut Checker) {
    if let Some(map) = raw {
        for (id, def) in &map.value {
            let key = format!("bmad.parties.{id}");
            if !valid_id(id) {
                ck.fail_at(&key, Some(def), Problem::PartyIdChars);
                continue;
            }
            let d = &def.value;
            let members: Option<Vec<String>> = d
                .members
                .as_ref()
                .map(|m| m.iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect());
            if members.as_ref().is_some_and(Vec::is_empty) {
                ck.fail_at(&format!("{key}.members"), Some(def), Problem::NamesNobody);
            }
            let party = PartyDef {
                id: id.clone(),
                name: d
                    .name
                    .as_deref()
                    .map(|n| crate::text::sanitize(n).trim().to_string())
                    .filter(|n| !n.is_empty())
                    .unwrap_or_else(|| id.clone()),
                scene: d
                    .scene
                    .as_deref()
                    .map(|s| crate::text::sanitize(s).trim().to_string())
                    .filter(|s| !s.is_empty()),
                members,
                memory: d.memory.unwrap_or(true),
                source: format!("{}:{} [{key}]", ck.file, def.referenced.line()),
            };
            match into.iter_mut().find(|p| p.id == party.id) {
                Some(old) => *old = party,
                None => into.push(party),
            }
        }
    }
    if let Some(Spanned { value: Some(d), .. }) = default {
        if d.trim().is_empty() {
            ck.fail_at("bmad.party_mode.default_party", default.as_ref(), Problem::EmptyUseNullRoom);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::valid_id;

    #[test]
    fn ids_are_folder_names() {
        assert!(valid_id("launch-review_2"));
        for bad in ["", "a b", "../x", "-x", "x/y", "été"] {
            assert!(!valid_id(bad), "{bad}");
        }
    }
}
