//! What the facilitator asked for, read from their message: it wins over
//! the style rules. A list asked for ("list your top five risks", "the
//! steps, please", "列出三个风险") is not cut to a turn's two points.

use super::phrases::PHRASES;
use crate::text::found_inside_words;

/// Whether `message` asks for a list: a word that asks for one
/// (`list_asks`), or a number of things (`count_words`, or a number from 3
/// to 20 written in digits).
pub(crate) fn asks_for_list(message: &str) -> bool {
    let lower = message.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    let has = |phrase: &str| {
        if phrase.chars().any(found_inside_words) {
            return lower.contains(phrase);
        }
        let parts: Vec<&str> = phrase.split_whitespace().collect();
        !parts.is_empty() && words.windows(parts.len()).any(|w| w == parts.as_slice())
    };
    // "5", "top5" (not "2.5", "2027", "5%"): a number between blanks.
    let counted = lower.split_whitespace().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '%');
        let digits = w.trim_start_matches(char::is_alphabetic);
        !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) && digits.parse::<u32>().is_ok_and(|n| (3..=20).contains(&n))
    });
    PHRASES.list_asks.iter().any(|p| has(p)) || PHRASES.count_words.iter().any(|p| has(p)) || counted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_asked_for_is_heard_in_its_many_wordings() {
        for m in [
            "Each of you: list your top five risks for the billing migration, as a numbered list.",
            "What are the steps to roll this out?",
            "Give me three options, please.",
            "Top 5 concerns?",
            "Walk me through it step by step.",
            "请列出三个风险。",
            "每人说说你的前三个顾虑。",
            "上线的步骤是什么？",
            "마이그레이션 위험을 목록으로 정리해 주세요.",
            "移行のリスクを五つ挙げてください。",
            "Nennt eure fünf größten Risiken.",
        ] {
            assert!(asks_for_list(m), "{m}");
        }
    }

    #[test]
    fn a_question_that_asks_for_no_list_is_not_one() {
        for m in [
            "Should we rewrite the billing service in Rust this quarter?",
            "Priya, you disagree with Kofi on this — why?",
            "We ship in 2027; is that realistic?",
            "Is 2.5 engineers enough?",
            "我们要不要把所有日志都保存三年？",
            "Ingrid, what would it cost us in operations?",
        ] {
            assert!(!asks_for_list(m), "{m}");
        }
    }
}
