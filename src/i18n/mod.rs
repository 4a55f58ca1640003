//! The program's own words in English and Chinese. Prompts and notices that
//! shape the party live in the workflow's step files instead, so a
//! facilitator can edit them; this module holds what the program says about
//! itself (labels, notices, hints).
//!
//! Everything it says is a typed key (`keys`: one enum per area, its values
//! as fields) said by `Say::say` in a language the caller passes; the words
//! are in `en/` and `zh/`, one exhaustive `match` per area, so adding a key
//! or a language does not compile until every language has its words.
//! There is no global language: the start-up language (`program`) says
//! start-up errors, listings and subcommands; the party's says everything
//! in a party. Errors outlive the place they are made, so their areas are
//! owned (`Problem`, `Start`) or said from a typed failure (`Model`, from
//! `llm::Failure`): an error carries its key and is said where it is shown.

use serde::{Deserialize, Serialize};

mod en;
mod keys;
mod zh;

pub(crate) use keys::{Cast, KeyHint, KeyWords, Model, Printed, Problem, Record, Room, Screen, Start, ValueKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum, Default)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    pub(crate) fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// Reads a locale or language setting ("zh_CN.UTF-8", "Chinese", "中文",
    /// "English"); None when it names a language the program has no text for.
    pub(crate) fn from_setting(s: &str) -> Option<Lang> {
        let l = s.trim().to_lowercase();
        if l.starts_with("zh") || l.starts_with("chinese") || l.contains("中文") || l.contains("汉语") {
            Some(Lang::Zh)
        } else if l.starts_with("en") || l == "c" || l == "posix" || l.starts_with("c.") {
            Some(Lang::En)
        } else {
            None
        }
    }

    /// A translation's key (in an agent or party file) as the program
    /// looks it up: a language it speaks ("zh", "zh-CN", "Chinese" are all
    /// `zh`), else the key in lower case (kept, unused).
    pub(crate) fn translation_key(key: &str) -> String {
        Lang::from_setting(key).map_or_else(|| key.trim().to_lowercase(), |l| l.code().to_string())
    }

    /// The language agents are asked to speak when nothing else says.
    pub fn speech_name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Zh => "Chinese (简体中文)",
        }
    }

    pub(crate) fn from_env() -> Option<Lang> {
        ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .filter_map(|k| std::env::var(k).ok())
            .find(|v| !v.is_empty())
            .and_then(|v| Lang::from_setting(&v))
    }
}

/// Something the program says, in either language.
pub(crate) trait Say {
    fn say(&self, lang: Lang) -> String;
}

/// One `impl Say` per area: its words from the language's function. A new
/// language is one more arm in each.
macro_rules! say_by_area {
    ($($area:ident => $words:ident),* $(,)?) => {
        $(
            impl Say for $area<'_> {
                fn say(&self, lang: Lang) -> String {
                    match lang {
                        Lang::En => en::$words(self),
                        Lang::Zh => zh::$words(self),
                    }
                }
            }
        )*
    };
}

say_by_area!(Screen => screen, Printed => printed, Record => record, Room => room, Model => model);

/// The owned areas, made where the language may not be known yet and said
/// where they are shown. Their `Display` is English, for logs and tests;
/// what the user reads goes through `say` in the real language.
macro_rules! say_owned {
    ($($area:ident => $words:ident),* $(,)?) => {
        $(
            impl Say for $area {
                fn say(&self, lang: Lang) -> String {
                    match lang {
                        Lang::En => en::$words(self),
                        Lang::Zh => zh::$words(self),
                    }
                }
            }

            impl std::fmt::Display for $area {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str(&self.say(Lang::En))
                }
            }
        )*
    };
}

say_owned!(Problem => problem, Start => start, Cast => cast);

impl Say for KeyWords {
    fn say(&self, lang: Lang) -> String {
        match lang {
            Lang::En => en::key_words(self),
            Lang::Zh => zh::key_words(self),
        }
    }
}

/// One of `items`, the same for the same `seed` (the rehearsal varies its
/// wording by it).
fn one_of<'s>(items: &[&'s str], seed: u64) -> &'s str {
    items[(seed % items.len() as u64) as usize]
}
