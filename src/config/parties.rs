//! `bmad.parties`: standing casts by id — who is in each, the scene they
//! are given, whether they remember. A later config layer's party replaces
//! the one of the same id; the others are kept. A party can also be a file
//! of its own (`<config>/bmad-party/parties/ID.yaml`, what `cast` saves):
//! the same fields, its file's name its id.

use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;

use crate::i18n::Problem;
use crate::source::{SourceError, SourceFile};

use super::check::Checker;

/// One standing cast as its file defines it.
#[derive(Debug, Clone, Default, PartialEq)]
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
    /// Its name and scene in other languages, by language code
    /// (`translations` in its file): `in_language` puts one in place.
    pub translations: std::collections::BTreeMap<String, PartyWords>,
}

/// A party's name and scene in one language; each given replaces its own.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartyWords {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub scene: Option<String>,
}

impl PartyDef {
    /// The party as a room speaking `lang` sees it.
    pub(crate) fn in_language(&self, lang: crate::i18n::Lang) -> PartyDef {
        let mut out = self.clone();
        if let Some(t) = self.translations.get(lang.code()) {
            let clean = |s: &Option<String>| {
                s.as_deref()
                    .map(|s| crate::text::sanitize(s).trim().to_string())
                    .filter(|s| !s.is_empty())
            };
            if let Some(name) = clean(&t.name) {
                out.name = name;
            }
            if let Some(scene) = clean(&t.scene) {
                out.scene = Some(scene);
            }
        }
        out
    }
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
    #[serde(default)]
    translations: std::collections::BTreeMap<String, PartyWords>,
}

/// A party file's fields as `cast` writes them: `members` by id.
#[derive(Serialize)]
struct PartyFile<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    scene: Option<&'a str>,
    members: &'a [String],
    memory: bool,
}

/// The text of a party file for `def` (its id is the file's name).
pub(crate) fn to_file(def: &PartyDef) -> String {
    let fields = PartyFile {
        name: &def.name,
        scene: def.scene.as_deref(),
        members: def.members.as_deref().unwrap_or_default(),
        memory: def.memory,
    };
    serde_saphyr::to_string(&fields).unwrap_or_default()
}

/// Reads a party file: its id is the file's name without `.yaml`.
pub(crate) fn read_file(file: &SourceFile) -> Result<PartyDef, SourceError> {
    let path = std::path::Path::new(&file.path);
    let id = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    read_as(file, &id)
}

/// Reads a party file whose id is `id` (a ready-made room's: its folder's name).
pub(crate) fn read_as(file: &SourceFile, id: &str) -> Result<PartyDef, SourceError> {
    let id = id.to_string();
    if !valid_id(&id) {
        return Err(SourceError::new(&file.path, None, "", Problem::PartyIdChars));
    }
    let raw: RawPartyDef = serde_saphyr::from_str(&file.text).map_err(|e| crate::source::yaml_error(&e, &file.path, &file.text, 0))?;
    let def = def_of(&id, &raw, file.path.clone());
    if def.members.as_ref().is_some_and(Vec::is_empty) {
        return Err(SourceError::new(&file.path, None, "members", Problem::NamesNobody));
    }
    Ok(def)
}

/// One party from its fields, cleaned: a name (else its id), a scene, the
/// members named (None: open-cast).
fn def_of(id: &str, d: &RawPartyDef, source: String) -> PartyDef {
    PartyDef {
        id: id.to_string(),
        name: d
            .name
            .as_deref()
            .map(|n| crate::text::sanitize(n).trim().to_string())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| id.to_string()),
        scene: d
            .scene
            .as_deref()
            .map(|s| crate::text::sanitize(s).trim().to_string())
            .filter(|s| !s.is_empty()),
        members: d
            .members
            .as_ref()
            .map(|m| m.iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()),
        memory: d.memory.unwrap_or(true),
        source,
        translations: d
            .translations
            .iter()
            .map(|(k, v)| (crate::i18n::Lang::translation_key(k), v.clone()))
            .collect(),
    }
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
            let party = def_of(id, &def.value, format!("{}:{} [{key}]", ck.file, def.referenced.line()));
            if party.members.as_ref().is_some_and(Vec::is_empty) {
                ck.fail_at(&format!("{key}.members"), Some(def), Problem::NamesNobody);
            }
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
    use super::{read_as, read_file, to_file, valid_id};
    use crate::source::SourceFile;

    #[test]
    fn ids_are_folder_names() {
        assert!(valid_id("launch-review_2"));
        for bad in ["", "a b", "../x", "-x", "x/y", "été"] {
            assert!(!valid_id(bad), "{bad}");
        }
    }

    fn file(name: &str, text: &str) -> SourceFile {
        SourceFile {
            path: format!("/cfg/parties/{name}"),
            text: text.into(),
        }
    }

    #[test]
    fn a_party_file_written_reads_back_the_same() {
        let def = super::PartyDef {
            id: "bakery-customers".into(),
            name: "Bakery customers: \"early\" birds".into(),
            scene: Some("A Saturday morning queue.\nEveryone is hungry.".into()),
            members: Some(vec!["ana".into(), "bo-2".into()]),
            memory: false,
            source: "/cfg/parties/bakery-customers.yaml".into(),
            translations: Default::default(),
        };
        let back = read_file(&file("bakery-customers.yaml", &to_file(&def))).unwrap();
        assert_eq!(back, def);
    }

    #[test]
    fn a_broken_party_file_names_its_line_and_field() {
        let e = read_file(&file("launch.yaml", "name: Launch\nmembers: [a]\nmembrs: [b]\n")).unwrap_err();
        assert!(e.line == Some(3) && e.to_string().contains("membrs"), "{e}");
        let e = read_file(&file("launch.yaml", "members: []\n")).unwrap_err();
        assert_eq!(e.key, "members");
        let e = read_file(&file("a b.yaml", "name: x\n")).unwrap_err();
        assert!(e.to_string().contains("letters, digits"), "{e}");
    }

    #[test]
    fn a_partys_translation_names_it_and_sets_its_scene_in_that_language() {
        let text = "name: Hard decision\nscene: Find the flaws.\nmembers: [a]\ntranslations:\n  Chinese:\n    name: 艰难决定\n    scene: 找出缺陷。\n";
        let def = read_as(&file("party.yaml", text), "hard-decision").unwrap();
        assert_eq!(def.id, "hard-decision");
        let zh = def.in_language(crate::i18n::Lang::Zh);
        assert_eq!((zh.name.as_str(), zh.scene.as_deref()), ("艰难决定", Some("找出缺陷。")));
        assert_eq!(def.in_language(crate::i18n::Lang::En), def);
        let e = read_as(&file("party.yaml", "translations:\n  zh:\n    title: x\n"), "x").unwrap_err();
        assert!(e.to_string().contains("title"), "{e}");
    }
}
