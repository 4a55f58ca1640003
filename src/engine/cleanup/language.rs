//! The language a party speaks, as cleanup needs it: the scripts its
//! replies are written in, and whether its words are written apart. Every
//! language is data (`languages.toml`); what a reply in the wrong one is,
//! and how words are counted, is code that reads it.

use std::sync::LazyLock;

use serde::Deserialize;
use unicode_script::{Script, UnicodeScript};

/// One language of `languages.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Language {
    /// Its code (`ko`): the file's name for it, and the tests'.
    #[cfg_attr(not(test), allow(dead_code))]
    pub code: String,
    names: Vec<String>,
    #[serde(deserialize_with = "scripts")]
    scripts: Vec<Script>,
    #[serde(default = "yes")]
    pub spaced: bool,
}

fn yes() -> bool {
    true
}

fn scripts<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Script>, D::Error> {
    let names = Vec::<String>::deserialize(d)?;
    names
        .iter()
        .map(|n| Script::from_full_name(n).ok_or_else(|| serde::de::Error::custom(format!("no script is named {n:?}"))))
        .collect()
}

#[derive(Deserialize)]
struct Languages {
    language: Vec<Language>,
}

/// The built-in list, read once. A file that does not parse is a build's
/// mistake, caught by the test below, never a user's.
#[allow(clippy::panic, reason = "the built-in languages file: a test reads it")]
static LANGUAGES: LazyLock<Vec<Language>> = LazyLock::new(|| match toml::from_str::<Languages>(include_str!("languages.toml")) {
    Ok(l) => l.language,
    Err(e) => panic!("src/engine/cleanup/languages.toml: {e}"),
});

/// The language `name` (a `communication_language`: "Korean", "한국어",
/// "zh-CN", "Chinese (Simplified)") is, if it is one of the list.
pub(crate) fn of(name: &str) -> Option<&'static Language> {
    let lower = name.trim().to_lowercase();
    let first = lower.split(['(', ',', '/']).next().unwrap_or("").trim();
    let base = first.split(['-', '_']).next().unwrap_or("").trim();
    // A word of a longer name ("UK English", "Brazilian Portuguese") is
    // matched by names only: its short words are no codes ("uk" is not
    // Ukrainian there).
    let words = first.split_whitespace().filter(|w| w.chars().count() > 3);
    let languages: &'static [Language] = &LANGUAGES;
    for n in [lower.as_str(), first, base].into_iter().chain(words) {
        if let Some(l) = languages.iter().find(|l| !n.is_empty() && l.names.iter().any(|x| x == n)) {
            return Some(l);
        }
    }
    None
}

/// How much a letter weighs as text: a character of a script written
/// without spaces, or a Hangul syllable, says about what two Latin letters do.
fn weight(s: Script) -> usize {
    match s {
        Script::Han | Script::Hiragana | Script::Katakana | Script::Hangul => 2,
        _ => 1,
    }
}

impl Language {
    /// Whether `shown` is, some length of it, in another language: the
    /// letters of other scripts outweigh its own, and weigh 40 Latin
    /// letters (20 Chinese characters) or more. A name or a term in another
    /// script is speech ("我们先做 CI/CD，Kofi 负责。", "Call it 罗盘."), and
    /// code is no language: code blocks and spans, links and identifiers
    /// (`createMutation`, `user_id`, `API`) are not counted. Two languages
    /// of one script are not told apart (English in a German party).
    pub(crate) fn is_other_than(&self, shown: &str) -> bool {
        let (mut own, mut other) = (0, 0);
        for word in words_of(shown) {
            for c in word.chars().filter(|c| c.is_alphabetic()) {
                let s = c.script();
                if matches!(s, Script::Common | Script::Inherited | Script::Unknown) {
                    continue;
                }
                if self.scripts.contains(&s) {
                    own += weight(s);
                } else {
                    other += weight(s);
                }
            }
        }
        other >= 40 && own < other
    }
}

/// The words of `text` that are language: outside code blocks and spans,
/// not links, not identifiers.
fn words_of(text: &str) -> impl Iterator<Item = &str> {
    super::blocks::prose_lines(text)
        // Outside inline code: every other part between backticks.
        .flat_map(|l| l.split('`').step_by(2))
        .flat_map(str::split_whitespace)
        .filter(|w| !w.contains("://") && !w.starts_with("www."))
        .flat_map(|w| w.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')))
        .filter(|w| !is_identifier(w))
}

/// A name written for code, not a word of a language: `createMutation`,
/// `user_id`, `v2`, `x86-64`, an acronym (`API`, `CI`).
fn is_identifier(w: &str) -> bool {
    let latin: Vec<char> = w.chars().take_while(char::is_ascii).collect();
    let camel = latin.windows(2).any(|p| p[0].is_ascii_lowercase() && p[1].is_ascii_uppercase());
    let acronym = latin.len() >= 2 && latin.iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    camel || acronym || w.contains('_') || w.chars().any(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_is_found_by_its_names() {
        assert!(LANGUAGES.len() >= 20);
        for (name, code) in [
            ("Korean", "ko"),
            ("한국어", "ko"),
            ("Japanese", "ja"),
            ("日本語", "ja"),
            ("German", "de"),
            ("Deutsch", "de"),
            ("Hungarian", "hu"),
            ("magyar", "hu"),
            ("Chinese", "zh"),
            ("中文", "zh"),
            ("zh-CN", "zh"),
            ("Chinese (Simplified)", "zh"),
            ("Español", "es"),
            ("English", "en"),
            ("en-US", "en"),
            ("Русский", "ru"),
            ("UK English", "en"),
            ("Simplified Chinese", "zh"),
            ("Brazilian Portuguese", "pt"),
        ] {
            assert_eq!(of(name).map(|l| l.code.as_str()), Some(code), "{name}");
        }
        assert!(of("Klingon").is_none());
        assert!(of("").is_none());
        assert!(!of("Japanese").is_some_and(|l| l.spaced) && of("Korean").is_some_and(|l| l.spaced));
    }

    #[test]
    fn a_reply_in_the_partys_language_is_never_the_wrong_one_and_one_clearly_in_another_is() {
        let lang = |n: &str| of(n).unwrap_or_else(|| panic!("{n} is listed"));
        let korean = "그 방법도 좋지만, 먼저 고객 데이터를 옮기는 것이 더 안전하다고 생각합니다. 결제 인터페이스는 그다음에 점검하죠.";
        let japanese = "まず顧客データの移行から始めるべきだと思います。決済のインターフェースはその後で確認しましょう。";
        let chinese = "我们应该先做用户调研，再决定是否提供离线模式，这样风险最小。";
        let german =
            "Maya hat recht, dass wir mit der Migration der Kundendaten beginnen sollten. Ich würde zuerst die Schnittstellen prüfen.";
        let english = "As we're discussing the topic of reducing online accidents, I'd like to share my perspective.";
        for (party, own) in [
            ("Korean", korean),
            ("Japanese", japanese),
            ("Chinese", chinese),
            ("German", german),
            ("English", english),
        ] {
            assert!(!lang(party).is_other_than(own), "{party}");
        }
        assert!(lang("Korean").is_other_than(english), "English in a Korean party");
        assert!(lang("Japanese").is_other_than(english));
        assert!(lang("Chinese").is_other_than(english));
        assert!(lang("English").is_other_than(chinese));
        assert!(lang("German").is_other_than(korean));
        assert!(lang("Korean").is_other_than(japanese));
        // One script, two languages: not told apart.
        assert!(!lang("German").is_other_than(english));
        // A name or a term in another script is speech.
        assert!(!lang("Chinese").is_other_than("我们先做 CI/CD 和 code review，Kofi 负责。"));
        assert!(!lang("English").is_other_than("Call it 罗盘 (Compass), as Kofi said."));
        assert!(!lang("Korean").is_other_than("Ingrid 말처럼 API 게이트웨이부터 정리하고, Kubernetes 이전은 다음 분기에 하죠."));
        // Code is no language: a strong model's Korean with identifiers.
        assert!(!lang("Korean").is_other_than("비밀번호 모달 testid는 `users-password-modal`, `users-password-copy` 같은 것이 필요합니다."));
        assert!(!lang("Korean").is_other_than(
            "API 호출, mutation(createMutation의 initialPassword, resetPasswordMutation의 newPassword), Employee 타입, 페이지네이션 쿼리, debounce 로직 보호 명확."
        ));
        assert!(!lang("Chinese")
            .is_other_than("我建议这样写：\n```rust\nfn main() { println!(\"hello world from the service\"); }\n```\n就这样。"));
    }
}
