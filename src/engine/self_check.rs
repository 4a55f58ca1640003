//! A speaker's own judgement of the room, given right after its reply: the
//! same prompt and the reply, then a short question whose answer is a small
//! JSON object — its stance towards what the room said, a question for the
//! facilitator (or none), and whether the facilitator invited the room to
//! close. It is the explicit signal the end and ask markers are, in a form a
//! small model gives more reliably: the runtime never guesses from prose,
//! and the facilitator still decides.
//!
//! Servers that constrain output to a JSON schema are asked to
//! (`response_format`); any other answer is read by [`parse`], which takes
//! the object out of prose, code fences, single quotes and a reply cut off
//! mid-object.

use serde_json::Value;

use crate::verdict::{SelfCheck, Stance};

/// The object's keys, in the order a model writes them: the stance first
/// (it reads the room), the question next, the proposal to end last (it
/// weighs the two before it).
pub(crate) const KEYS: [&str; 3] = ["stance", "ask", "end"];

/// The JSON schema of the answer, for servers that constrain output.
pub(crate) fn schema() -> Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "stance": { "type": "string", "enum": ["agree", "disagree", "new"] },
            "ask": { "type": "string", "maxLength": 200 },
            "end": { "type": "boolean" }
        },
        "required": KEYS,
        "additionalProperties": false
    })
}

/// What an answer could not be read as.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ParseError {
    #[error("no JSON object in the answer")]
    NoObject,
    #[error("none of the keys {KEYS:?} in the answer")]
    NoKeys,
}

/// Reads a model's answer: the JSON object in it, however wrapped, or cut
/// off; else its keys one by one. Only what the answer says counts: a
/// missing `end` is no proposal, a missing `ask` no question.
pub(crate) fn parse(answer: &str) -> Result<SelfCheck, ParseError> {
    let Some(open) = answer.find('{') else {
        return keys_one_by_one(answer).ok_or(ParseError::NoObject);
    };
    let object = closed(&answer[open..]);
    let value = serde_json::from_str::<Value>(&object).or_else(|_| serde_json::from_str::<Value>(&relaxed(&object)));
    match value {
        Ok(Value::Object(map)) if KEYS.iter().any(|k| map.contains_key(*k)) => Ok(from_map(&map)),
        _ => keys_one_by_one(&object).ok_or(ParseError::NoKeys),
    }
}

/// The JSON value in a model's answer, however wrapped: a list, or an
/// object in prose or a code fence, in single quotes, cut off inside it.
/// None when there is none.
pub(crate) fn object_in(answer: &str) -> Option<Value> {
    let start = answer.find(['{', '['])?;
    if answer[start..].starts_with('[') {
        let list = answer
            .rfind(']')
            .and_then(|end| serde_json::from_str::<Value>(answer.get(start..=end)?).ok());
        if list.is_some() {
            return list;
        }
    }
    let open = answer.find('{')?;
    let object = closed(&answer[open..]);
    serde_json::from_str::<Value>(&object)
        .or_else(|_| serde_json::from_str::<Value>(&relaxed(&object)))
        .ok()
}

fn from_map(map: &serde_json::Map<String, Value>) -> SelfCheck {
    SelfCheck {
        stance: map.get("stance").and_then(Value::as_str).and_then(Stance::from_word),
        ask: map.get("ask").and_then(Value::as_str).and_then(question),
        end: map.get("end").is_some_and(truthy),
    }
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => matches!(s.trim().to_lowercase().as_str(), "true" | "yes" | "y" | "是"),
        Value::Number(n) => n.as_f64().is_some_and(|x| x > 0.0),
        _ => false,
    }
}

/// Words a model writes for "no question".
const NO_QUESTION: &[&str] = &["none", "null", "n/a", "na", "no", "nothing", "no question", "无", "没有", "不需要"];

/// The question, if the text is one: not empty, not a word for "none".
fn question(text: &str) -> Option<String> {
    let t = text.trim().trim_matches(['"', '\'']).trim();
    let bare = t.trim_end_matches(['.', '。', '!', '！']).to_lowercase();
    if bare.is_empty() || NO_QUESTION.contains(&bare.as_str()) || !t.chars().any(char::is_alphanumeric) {
        return None;
    }
    Some(t.to_string())
}

/// The object from its `{` to the matching `}`; a text cut off inside it is
/// closed (an open string, then the open braces).
fn closed(text: &str) -> String {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut quote = '"';
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                c if c == quote => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' | '\'' => {
                in_string = true;
                quote = c;
            }
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return text[..=i].to_string();
                }
            }
            _ => {}
        }
    }
    let mut out = text.trim_end().trim_end_matches(',').to_string();
    if in_string {
        out.push(quote);
    }
    out.push_str(&"}".repeat(depth.max(1)));
    out
}

/// Python's and JavaScript's spellings made JSON: single quotes, bare
/// `True`/`False`/`None`, trailing commas.
fn relaxed(object: &str) -> String {
    let mut out = String::with_capacity(object.len());
    let mut in_string: Option<char> = None;
    let mut chars = object.chars().peekable();
    while let Some(c) = chars.next() {
        match in_string {
            Some(q) => {
                if c == '\\' {
                    out.push(c);
                    out.extend(chars.next());
                } else if c == q {
                    in_string = None;
                    out.push('"');
                } else if c == '"' {
                    out.push_str("\\\"");
                } else {
                    out.push(c);
                }
            }
            None => match c {
                '"' | '\'' => {
                    in_string = Some(c);
                    out.push('"');
                }
                ',' => {
                    let rest: String = chars.clone().collect();
                    if !rest.trim_start().starts_with(['}', ']']) {
                        out.push(',');
                    }
                }
                _ => out.push(c),
            },
        }
    }
    out.replace("True", "true").replace("False", "false").replace("None", "null")
}

/// `stance: agree`, `"end": yes`… read key by key, for an answer that is
/// no JSON at all.
fn keys_one_by_one(text: &str) -> Option<SelfCheck> {
    let value_of = |key: &str| -> Option<String> {
        let lower = text.to_lowercase();
        let at = lower.find(key)?;
        let rest = text[at + key.len()..].trim_start_matches(['"', '\'', ' ', '*']);
        let rest = rest.strip_prefix([':', '：', '='])?.trim_start();
        let value = match rest.strip_prefix(['"', '\'']) {
            Some(quoted) => quoted.split(['"', '\'']).next().unwrap_or_default(),
            None => rest.split([',', '\n', '}']).next().unwrap_or_default(),
        };
        Some(value.trim().to_string())
    };
    let (stance, ask, end) = (value_of("stance"), value_of("ask"), value_of("end"));
    if stance.is_none() && ask.is_none() && end.is_none() {
        return None;
    }
    Some(SelfCheck {
        stance: stance.as_deref().and_then(Stance::from_word),
        ask: ask.as_deref().and_then(question),
        end: end.is_some_and(|e| truthy(&Value::String(e))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(stance: Option<Stance>, ask: Option<&str>, end: bool) -> SelfCheck {
        SelfCheck {
            stance,
            ask: ask.map(String::from),
            end,
        }
    }

    #[test]
    fn a_well_formed_answer_is_read_whole() {
        let a = parse(r#"{"stance": "agree", "ask": "", "end": true}"#).unwrap();
        assert_eq!(a, check(Some(Stance::Agree), None, true));
        let a = parse(r#"{"stance":"new","ask":"How many people are coming, and what is the budget?","end":false}"#).unwrap();
        assert_eq!(
            a,
            check(
                Some(Stance::New),
                Some("How many people are coming, and what is the budget?"),
                false
            )
        );
        let a = parse(r#"{"stance":"disagree","ask":"预算是多少？","end":false}"#).unwrap();
        assert_eq!(a, check(Some(Stance::Disagree), Some("预算是多少？"), false));
    }

    #[test]
    fn an_answer_wrapped_in_prose_or_a_code_fence_is_found() {
        let a = parse("Sure! Here is the check:\n```json\n{\"stance\": \"agree\", \"ask\": \"\", \"end\": false}\n```\nHope it helps.")
            .unwrap();
        assert_eq!(a, check(Some(Stance::Agree), None, false));
    }

    #[test]
    fn python_spellings_and_trailing_commas_are_read() {
        let a = parse("{'stance': 'disagree', 'ask': None, 'end': False,}").unwrap();
        assert_eq!(a, check(Some(Stance::Disagree), None, false));
        let a = parse("{'stance': 'agree', 'ask': \"Sam's budget?\", 'end': True}").unwrap();
        assert_eq!(a, check(Some(Stance::Agree), Some("Sam's budget?"), true));
    }

    #[test]
    fn an_answer_cut_off_mid_object_keeps_what_it_said() {
        // Cut inside the question: the question as far as it came.
        let a = parse(r#"{"stance": "new", "ask": "What date and how many peop"#).unwrap();
        assert_eq!(a, check(Some(Stance::New), Some("What date and how many peop"), false));
        // Cut before `end`: no proposal.
        let a = parse(r#"{"stance": "agree", "ask": "", "#).unwrap();
        assert_eq!(a, check(Some(Stance::Agree), None, false));
    }

    #[test]
    fn no_question_is_no_question_in_any_spelling() {
        for none in ["", "none", "None.", "N/A", "null", "无", "没有。", "  ", "..."] {
            let a = parse(&serde_json::json!({"stance": "new", "ask": none, "end": false}).to_string()).unwrap();
            assert_eq!(a.ask, None, "{none:?}");
        }
        let a = parse(r#"{"stance":"new","ask":null,"end":false}"#).unwrap();
        assert_eq!(a.ask, None);
    }

    #[test]
    fn keys_without_json_are_read_one_by_one() {
        let a = parse("stance: agree\nask: none\nend: yes").unwrap();
        assert_eq!(a, check(Some(Stance::Agree), None, true));
        let a = parse("**Stance**: disagree, **End**: false").unwrap();
        assert_eq!(a, check(Some(Stance::Disagree), None, false));
    }

    #[test]
    fn an_answer_with_nothing_to_read_is_an_error_not_a_verdict() {
        assert_eq!(parse("I think we should keep going."), Err(ParseError::NoObject));
        assert_eq!(parse("{\"verdict\": 3}"), Err(ParseError::NoKeys));
        assert_eq!(parse(""), Err(ParseError::NoObject));
    }

    #[test]
    fn an_invited_close_is_proposed_unless_the_speaker_disagrees() {
        assert!(check(Some(Stance::Agree), None, true).proposes_end());
        assert!(check(Some(Stance::New), None, true).proposes_end());
        assert!(check(None, None, true).proposes_end());
        assert!(!check(Some(Stance::Disagree), None, true).proposes_end());
        assert!(!check(Some(Stance::Agree), None, false).proposes_end());
    }

    #[test]
    fn stance_words_map_with_disagree_before_agree() {
        assert_eq!(Stance::from_word("Disagree"), Some(Stance::Disagree));
        assert_eq!(Stance::from_word("agree."), Some(Stance::Agree));
        assert_eq!(Stance::from_word("builds on it"), Some(Stance::New));
        assert_eq!(Stance::from_word("maybe"), None);
    }

    #[test]
    fn the_schema_requires_every_key_the_parser_reads() {
        let s = schema();
        for k in KEYS {
            assert!(s["properties"][k].is_object(), "{k}");
            assert!(s["required"].as_array().unwrap().iter().any(|r| r == k), "{k}");
        }
    }
}
