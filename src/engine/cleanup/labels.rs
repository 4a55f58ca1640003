//! Who a sentence speaks as: speaker labels, prefaces ("Sure, here is
//! Maya's reply"), talk about the reply, addressing or quoting oneself.

use super::phrases::{out_of_character, JOB_INTRO, PHRASES};
use super::Voices;
use crate::engine::protocol::label::{label_tail, opened_round, starts_with_ci, undecorated};
use crate::engine::protocol::markers::Marker;
use crate::text::{found_inside_words, goes_on_word, is_cjk};

/// The name whose label (`Kofi:`, `**Kofi** (Developer):`, `🛠️ Kofi：`) starts `s`.
pub(super) fn label_at_start<'n>(s: &str, names: &'n [String]) -> Option<&'n str> {
    let t = undecorated(s);
    names.iter().find_map(|n| {
        let rest = starts_with_ci(t, n).then(|| past_label_words(past_more_names(&t[n.len()..], names)))?;
        (!rest.starts_with(|c: char| c.is_alphanumeric()) && label_tail(rest, false, opened_round(s, t)).is_some()).then_some(n.as_str())
    })
}

/// A stage direction for another: a line in brackets that opens with their
/// name and goes on as a narrator does ("（小林同意并补充了他的观点）",
/// "(Kofi nods.)"). A name then a comma is an aside to them ("(Sam, do you
/// have the numbers?)"), a name then a colon a label (`label_tail`); a
/// narrator never says "I" ("(Kofi and I tested it.)" is speech).
pub(super) fn stage_line<'n>(s: &str, names: &'n [String]) -> Option<&'n str> {
    let inner = s.trim().strip_prefix(['(', '（'])?.trim_start();
    // A question in brackets asks ("(Will this scale?)" where Will hosts).
    if inner.trim_end_matches([')', '）', ' ']).ends_with(['?', '？']) {
        return None;
    }
    let lower = inner.to_lowercase();
    let first_person = PHRASES.first_person.iter().any(|w| {
        if w.chars().any(found_inside_words) {
            lower.contains(w.as_str())
        } else {
            lower.split(|c: char| !c.is_alphanumeric()).any(|x| x == w)
        }
    });
    names.iter().map(String::as_str).find(|n| {
        !first_person && starts_with_ci(inner, n) && inner[n.len()..].chars().next().is_some_and(|c| c == ' ' || found_inside_words(c))
    })
}

/// `rest`, after a name, without more names joined to it (`, Maya`,
/// ` and Kofi`, `、小林`: data, `name_joiners`): a label of several
/// ("(Lena, Maya: disagree)") is theirs as one of one is. Unchanged if no
/// name follows.
fn past_more_names<'s>(rest: &'s str, names: &[String]) -> &'s str {
    let mut at = rest;
    loop {
        let t = at.trim_start();
        let Some(after) = PHRASES.name_joiners.iter().find_map(|j| strip_prefix_ci(t, j)) else {
            return at;
        };
        let after = after.trim_start();
        match names
            .iter()
            .find(|n| starts_with_ci(after, n) && !after[n.len()..].starts_with(char::is_alphanumeric))
        {
            Some(n) => at = &after[n.len()..],
            None => return at,
        }
    }
}

/// `rest`, after a name, without the words a label may put before its
/// colon (`'s response`, `的回应`: data, `label_words`).
fn past_label_words(rest: &str) -> &str {
    PHRASES.label_words.iter().find_map(|w| strip_prefix_ci(rest, w)).unwrap_or(rest)
}

/// The name of one of `names` opening `s` as a transcript line with its
/// colon lost: the name, a space, then a capitalised word of two letters
/// or more ("Tomás Excellent points!", "**Hiro** Great idea."). A name
/// before a lower-case word, a comma, an apostrophe or "I" is speech
/// ("Tomás and I", "Tomás, you", "Tomás's plan", "Tomás I agree"). The
/// name alone on its line is one too, the next turn's label before its
/// colon, unless the line is a list's item ("- Kofi"). Names match as
/// written, and not the `hosts`': a facilitator's name may be a word
/// ("Will Kofi's plan scale?").
pub(super) fn bare_label_at_start<'n>(s: &str, names: &'n [String], hosts: &[String]) -> Option<&'n str> {
    let t = undecorated(s);
    let item = super::lists::after_list_mark(s).is_some();
    names.iter().filter(|n| !hosts.contains(n)).find_map(|n| {
        let rest = t.strip_prefix(n.as_str())?.trim_start_matches(['*', '_']);
        let mut cs = rest.chars();
        let word = cs.next() == Some(' ') && cs.next().is_some_and(char::is_uppercase) && cs.next().is_some_and(char::is_alphabetic);
        (word || !item && rest.trim().is_empty()).then_some(n.as_str())
    })
}

/// Whether an unfinished line may still become a bare label
/// (`bare_label_at_start`): a name or its start, then at most a space and
/// a capital.
pub(super) fn could_be_bare_label(t: &str, names: &[String], hosts: &[String]) -> bool {
    let t = undecorated(t);
    t.is_empty()
        || bare_label_at_start(t, names, hosts).is_some()
        || names.iter().filter(|n| !hosts.contains(n)).any(|n| {
            if t.len() < n.len() {
                return n.starts_with(t);
            }
            let Some(rest) = t.strip_prefix(n.as_str()) else {
                return false;
            };
            let mut cs = rest.trim_start_matches(['*', '_']).chars();
            match (cs.next(), cs.next(), cs.next()) {
                (None, ..) | (Some(' '), None, _) => true,
                (Some(' '), Some(c), None) => c.is_uppercase(),
                _ => false,
            }
        })
}

/// Whether an unfinished line may still become a label of one of `names`.
pub(super) fn could_be_label(line: &str, names: &[String]) -> bool {
    let t = undecorated(line);
    if t.is_empty() {
        return true;
    }
    names.iter().any(|n| {
        if t.len() < n.len() {
            n.to_lowercase().starts_with(&t.to_lowercase())
        } else {
            starts_with_ci(t, n) && {
                let after = past_more_names(&t[n.len()..], names);
                let rest = past_label_words(after);
                // On its way to a label's words (`小林的回`), or past them.
                rest.len() == after.len() && !after.is_empty() && PHRASES.label_words.iter().any(|w| strip_prefix_ci(w, after).is_some())
                    || !rest.starts_with(|c: char| c.is_alphanumeric()) && label_tail(rest, true, opened_round(line, t)).is_some()
            }
        }
    })
}

/// Words before a colon at the very start that may be a preface naming the
/// speaker (`It is my turn, Maya:`): held until the colon or the tenth word.
pub(super) fn could_be_preface(t: &str) -> bool {
    !t.contains([':', '：']) && t.split_whitespace().count() < 10 && t.chars().count() < 60
}

/// `s` without an opening such as `It is my turn, Maya:` or `Maya here:`:
/// up to ten words that name the speaker, ending in a colon — up to 24
/// when they open with its name, narrating its own turn ("Maya finishes
/// with a note of appreciation, … on this point:").
pub(super) fn strip_preface<'s>(s: &'s str, own: &str) -> Option<&'s str> {
    let colon = s.find([':', '：'])?;
    let head = &s[..colon];
    let most = if strip_prefix_ci(head.trim_start(), own).is_some() {
        24
    } else {
        10
    };
    if head.split_whitespace().count() > most || head.contains('\n') || !mentions_any(head, std::slice::from_ref(&own.to_string())) {
        return None;
    }
    let after = &s[colon..];
    let skip = after.chars().next().map_or(0, char::len_utf8);
    Some(after[skip..].trim_start_matches([' ', '*']))
}

/// Whether `s` talks about writing the reply rather than saying it
/// ("Sure, here is Maya's reply:", "好的，以下是 Maya 的发言").
/// `introduces`: a colon ends `s`, so it announces what follows and may
/// run longer than a sentence about the reply that goes on.
pub(super) fn is_meta(s: &str, own: &str, introduces: bool) -> bool {
    let lower = s.to_lowercase();
    let writing = PHRASES.writing.iter().any(|w| lower.contains(w.as_str()));
    let words = s.split_whitespace().count();
    about_reply(s, own) && writing && (words <= 16 || introduces && words <= 32)
}

/// Whether `s` names the reply being written (`Maya's reply`, `my response`).
pub(super) fn about_reply(s: &str, own: &str) -> bool {
    // "in Tomás's own voice" names it as "Tomás's voice" does.
    let mut lower = s.to_lowercase();
    for (from, to) in &PHRASES.about_reply_same {
        lower = lower.replace(from.as_str(), to);
    }
    let own = own.to_lowercase();
    PHRASES.about_reply.iter().any(|p| lower.contains(&p.replace("{n}", &own)))
}

/// `s` without an opening that addresses the speaker by its own name
/// (`Hey Maya,` by Maya: the model took the turn for someone else's).
pub(super) fn strip_self_address<'s>(s: &'s str, own: &str) -> Option<&'s str> {
    if own.is_empty() {
        return None;
    }
    let t = s.trim_start();
    // A greeting, or one word and a comma ("Sure, Maya."): the model took
    // the turn note for someone's request to it.
    let opener = PHRASES.greetings.iter().find_map(|g| strip_prefix_ci(t, g)).or_else(|| {
        let (word, rest) = t.split_once([',', '，'])?;
        (word.chars().count() <= 12 && word.chars().all(char::is_alphabetic)).then_some(rest)
    });
    let rest = opener
        .and_then(|o| strip_prefix_ci(o.trim_start(), own))
        .or_else(|| strip_prefix_ci(t, own))?;
    let mark = rest.chars().next()?;
    if ![',', '!', '，', '！', '、', '.', '。'].contains(&mark) {
        return None;
    }
    Some(rest[mark.len_utf8()..].trim_start())
}

/// Where a sentence closes by calling the speaker by its own name (`Thank
/// you for that, Ingrid!` by Ingrid: the model answered as the agent it was
/// answering): the comma and the name, to drop; the sentence's end stays.
pub(super) fn closing_self_address(s: &str, own: &str) -> Option<std::ops::Range<usize>> {
    if own.is_empty() {
        return None;
    }
    let body = s.trim_end().trim_end_matches(['!', '.', '?', '。', '！', '？']);
    let before = strip_suffix_ci(body, own)?;
    let spaced = before.trim_end_matches(' ');
    let comma = spaced.strip_suffix([',', '，'])?;
    (!comma.trim().is_empty()).then_some(comma.len()..body.len())
}

/// `t` before `suffix`, compared without case.
fn strip_suffix_ci<'t>(t: &'t str, suffix: &str) -> Option<&'t str> {
    let mut chars = t.chars();
    for p in suffix.chars().rev() {
        if !chars.next_back()?.to_lowercase().eq(p.to_lowercase()) {
            return None;
        }
    }
    Some(chars.as_str())
}

/// `t` after `prefix`, compared without case.
pub(super) fn strip_prefix_ci<'t>(t: &'t str, prefix: &str) -> Option<&'t str> {
    let mut chars = t.chars();
    for p in prefix.chars() {
        if !chars.next()?.to_lowercase().eq(p.to_lowercase()) {
            return None;
        }
    }
    Some(chars.as_str())
}

/// `s` without an opening clause that quotes the speaker as if someone else
/// (`As Maya said, …`, `正如Maya所说，…`).
pub(super) fn strip_self_attribution<'s>(s: &'s str, own: &str) -> Option<&'s str> {
    if own.is_empty() {
        return None;
    }
    let t = s.trim_start();
    let opens = PHRASES
        .self_attribution
        .iter()
        .any(|p| strip_prefix_ci(t, p).is_some_and(|r| strip_prefix_ci(r.trim_start(), own).is_some()));
    if !opens {
        return None;
    }
    let comma = t.find([',', '，', ':', '：'])?;
    if t[..comma].split_whitespace().count() > 8 {
        return None;
    }
    let skip = t[comma..].chars().next().map_or(0, char::len_utf8);
    Some(t[comma + skip..].trim_start())
}

pub(super) fn capitalise_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Whether `s` names one of `names` as a whole word.
pub(super) fn mentions_any(s: &str, names: &[String]) -> bool {
    let lower = s.to_lowercase();
    names.iter().filter(|n| !n.is_empty()).any(|n| {
        let n = n.to_lowercase();
        lower.match_indices(&n).any(|(i, _)| {
            let before = lower[..i].chars().next_back();
            let after = lower[i + n.len()..].chars().next();
            !before.is_some_and(goes_on_word) && !after.is_some_and(goes_on_word)
        })
    })
}

/// Whether `s` attributes a view to one of `names` (`I agree with Priya`,
/// `as Priya said`). Addressing them (`Priya, what do you think?`) is not.
pub(super) fn attributes(s: &str, names: &[String]) -> bool {
    if !mentions_any(s, names) {
        return false;
    }
    // `Lena (Scrum Master) suggests…`: the title between name and verb.
    #[allow(clippy::expect_used, reason = "a pattern written in the source: a test compiles it")]
    static TITLE: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\s*[(（][^()（）]{1,40}[)）]").expect("a valid pattern"));
    let lower = format!("{} ", without_cjk_gaps(&TITLE.replace_all(&s.to_lowercase(), "")));
    names.iter().filter(|n| !n.is_empty()).any(|n| {
        let n = n.to_lowercase();
        PHRASES
            .attribution
            .iter()
            .any(|p| lower.contains(&without_cjk_gaps(&p.replace("{n}", &n))))
    })
}

/// `s` without the blanks beside Chinese characters: a Latin name in
/// Chinese text is written with a space either side or none ("同意 Tomás
/// 的观点", "同意Tomás的观点"); a sentence and a phrase are compared so.
fn without_cjk_gaps(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in chars.iter().enumerate() {
        let beside_cjk =
            i.checked_sub(1).and_then(|p| chars.get(p)).is_some_and(|&p| is_cjk(p)) || chars.get(i + 1).is_some_and(|&n| is_cjk(n));
        if !(c.is_whitespace() && c != '\n' && beside_cjk) {
            out.push(c);
        }
    }
    out
}

/// A letter's signature: the speaker's own name alone on a line (`Kofi`,
/// `— Kofi`). A room's talk has none; a small model signs its replies.
pub(super) fn is_signature(line: &str, own: &str) -> bool {
    let name = line.trim().trim_start_matches(['-', '—', '–', '~']).trim();
    (!own.is_empty() && name.to_lowercase() == own.to_lowercase()) || is_sign_off(name)
}

/// A letter's closing line (`Best regards,`, `Cheers,`, `此致`): with the
/// comma that waits for a name, or one of the phrases only letters use.
fn is_sign_off(line: &str) -> bool {
    let lower = line.to_lowercase();
    let (body, comma) = match lower.strip_suffix([',', '，']) {
        Some(b) => (b.trim(), true),
        None => (lower.trim_end_matches(['.', '!', '。', '！']).trim(), false),
    };
    let is = |list: &[String]| list.iter().any(|p| p == body);
    is(&PHRASES.sign_offs) || (comma && is(&PHRASES.sign_offs_with_comma))
}

/// A letter's greeting as a sentence of its own (`Hi Lena,` on its line,
/// `Hi Sam! Moreover…`, `Dear team,`, `您好，小林。`): a meeting has no
/// salutations. `Hi Lena, I think…` is one sentence, and stays. `names`:
/// the room's, who may be greeted in a script without capitals.
pub(super) fn is_salutation(line: &str, names: &[String]) -> bool {
    let t = line.trim();
    let Some(body) = t.strip_suffix([',', '!', '.', '，', '！', '。']).or((!t.is_empty()).then_some(t)) else {
        return false;
    };
    let words: Vec<&str> = body.split([' ', ',', '，', '、']).filter(|w| !w.is_empty()).collect();
    // The longest opening first: "good morning" before a "good".
    let lowered: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let Some(opener) = PHRASES
        .salutations
        .iter()
        .map(|p| p.split_whitespace().collect::<Vec<_>>())
        .filter(|p| p.len() <= lowered.len() && p.iter().zip(&lowered).all(|(a, b)| a == b))
        .map(|p| p.len())
        .max()
    else {
        return false;
    };
    // Who is greeted: names (capitalised, in a Latin script: "MVP应该先上线"
    // is a sentence), the room's names, or the room as a whole.
    let addressee = |w: &str| {
        (w.chars().next().is_some_and(char::is_uppercase) && !w.chars().any(is_cjk))
            || PHRASES.salutation_room.contains(&w.to_lowercase())
            || names.iter().any(|n| n.eq_ignore_ascii_case(w))
    };
    // Names joined by a Chinese word of the room's ("Lena和Ingrid"), written
    // without spaces: each side an addressee.
    let joined = |w: &&str| {
        addressee(w)
            || PHRASES
                .salutation_room
                .iter()
                .filter(|j| j.chars().any(is_cjk))
                .any(|j| w.contains(j.as_str()) && w.split(j.as_str()).all(|part| part.is_empty() || addressee(part)))
    };
    words.len() <= opener + 4 && words[opener..].iter().all(joined) && !body.contains(['.', '?', ':', '？', '：', '；'])
}

/// A name of the room alone, a mark or two around it ("Maya!", "Tomas,"):
/// someone called on, and nothing said to them.
pub(super) fn is_bare_name(words: &str, voices: &Voices) -> bool {
    let t = words
        .trim()
        .trim_matches(|c: char| c.is_ascii_punctuation() || matches!(c, '，' | '！' | '。' | '、'))
        .trim();
    !t.is_empty()
        && [&voices.own, &voices.own_plain]
            .into_iter()
            .chain(&voices.others)
            .any(|n| !n.is_empty() && n.to_lowercase() == t.to_lowercase())
}

/// A model stepping out of its persona to say what it is (`As an AI
/// language model, I don't have opinions`, `I'm just an AI`) or refusing as
/// an assistant does (`I'm sorry, but I can't assist with that`): the
/// `out_of_character` patterns, after a lead-in (`But as an AI, …`).
pub(super) fn breaks_character(sentence: &str) -> bool {
    out_of_character(without_lead_in(sentence.trim_start()))
}

/// `s` after a word that may come before stepping out of character
/// (`However, as an AI…`), and the commas and spaces after it.
fn without_lead_in(s: &str) -> &str {
    PHRASES
        .lead_ins
        .iter()
        .find_map(|w| {
            let rest = strip_prefix_ci(s, w)?;
            // A lead-in still alone (`However`) may be the start of one.
            let gap = |c: char| c == ',' || c.is_whitespace();
            (rest.is_empty() || rest.starts_with(gap)).then(|| rest.trim_start_matches(gap))
        })
        .unwrap_or(s)
}

/// A sentence that may be becoming one that steps out of character: it is
/// held until its end (a delay of one sentence, nothing more).
pub(super) fn could_break_character(start: &str) -> bool {
    let t = lower_head(without_lead_in(start.trim_start())).replace('’', "'");
    on_the_way(&t, &PHRASES.out_of_character_openings)
}

/// Whether `t` (a sentence's start, lowercased) is still on the way to one
/// of `openings` (`As an A`) or past one (then its end decides).
fn on_the_way(t: &str, openings: &[String]) -> bool {
    openings.iter().any(|o| o.starts_with(t) || t.starts_with(o.as_str()))
}

/// Whether a sentence opens by leaning on the one before it ("This
/// ensures…", "此外…").
pub(super) fn leans_back(sentence: &str) -> bool {
    let t = lower_head(sentence.trim_start()).replace('’', "'");
    PHRASES.leaning_openings.iter().any(|o| t.starts_with(o.as_str()))
}

/// A sentence that may be becoming one that leans back: held until its end.
pub(super) fn could_lean_back(start: &str) -> bool {
    let t = lower_head(start.trim_start()).replace('’', "'");
    on_the_way(&t, &PHRASES.leaning_openings)
}

/// Where a sentence opens by introducing the speaker by its job, as an
/// assistant playing a role does ("As a business analyst, I believe…"):
/// the part to strip, up to what it says. Colleagues know each other's jobs.
pub(super) fn job_intro(sentence: &str) -> Option<std::ops::Range<usize>> {
    let lead = sentence.len() - sentence.trim_start().len();
    let intro = JOB_INTRO.iter().find_map(|r| r.captures(&sentence[lead..])?.name("intro"))?;
    Some(lead + intro.start()..lead + intro.end())
}

/// A sentence that may be becoming a job introduction: held until its end
/// (a clause after the job, "As a designer who speaks for our users,", may
/// come before its comma: held while no comma is in its first 96 bytes).
pub(super) fn could_be_job_intro(start: &str) -> bool {
    let t = lower_head(start.trim_start());
    let words = t.split_whitespace().count();
    (words <= 8 || words <= 20 && !t.contains([',', '，'])) && on_the_way(&t, &PHRASES.job_intro_openings)
}

/// A line that is an HTML comment holding one capitalised word, as the end
/// marker does (`<!-- BEGIN -->`), and is none of the markers however
/// spelt (`<!--END-->` is the end marker; the marker filter reads it): a
/// marker the model made up, which no facilitator should read. A comment
/// in words (`<!-- Hero section -->`, in a code sample) is speech.
pub(super) fn is_made_up_marker<'a>(line: &str, mut markers: impl Iterator<Item = &'a Marker>) -> bool {
    let t = line.trim();
    let Some(inner) = t.strip_prefix("<!--").and_then(|r| r.strip_suffix("-->")) else {
        return false;
    };
    let word = inner.trim();
    let marker_like = word.chars().filter(char::is_ascii_uppercase).count() >= 2
        && word
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || matches!(c, '_' | '-'));
    marker_like && !markers.any(|m| m.find(t).is_some_and(|r| r.len() == t.len()))
}

/// A line that is a marker cut short at either end (`!-- END -->`,
/// `<!-- END`), not the marker whole (the marker filter takes that).
pub(super) fn is_marker_fragment(line: &str, marker: &str) -> bool {
    let t = line.trim();
    let m = marker.trim();
    t.chars().count() >= 4 && t != m && (m.ends_with(t) || m.starts_with(t)) && t.chars().any(|c| !c.is_alphanumeric() && c != ' ')
}

/// A line that opens as the runtime's notes in the prompt do
/// (`(Note from the session, …`): the note copied, never speech.
pub(super) fn opens_runtime_note(line: &str) -> bool {
    let t = lower_head(line.trim_start());
    PHRASES.runtime_note_openings.iter().any(|o| t.starts_with(o.as_str()))
}

/// A line still on its way to a runtime note's opening, or past one: it
/// waits for its end.
pub(super) fn could_open_runtime_note(start: &str) -> bool {
    let t = lower_head(start.trim_start());
    !t.is_empty() && on_the_way(&t, &PHRASES.runtime_note_openings)
}

/// Where a sentence calls the speaker by its own name between commas
/// (`What I would do differently, Maya, is…` by Maya): the first comma
/// through the second, to drop.
pub(super) fn inner_self_address(s: &str, own: &str) -> Option<std::ops::Range<usize>> {
    if own.is_empty() {
        return None;
    }
    s.char_indices().filter(|(_, c)| matches!(c, ',' | '，')).find_map(|(i, c)| {
        let rest = strip_prefix_ci(s[i + c.len_utf8()..].trim_start(), own)?.trim_start();
        let close = rest.chars().next().filter(|c| matches!(c, ',' | '，'))?;
        // "Kofi, Maya, and Sam": a list that names the speaker, not a call.
        let next = rest[close.len_utf8()..].split_whitespace().next().unwrap_or_default();
        let listed = ["and", "or", "&"].contains(&next.to_lowercase().as_str()) || next.chars().next().is_some_and(char::is_uppercase);
        (!listed).then(|| i..s.len() - rest.len() + close.len_utf8())
    })
}

/// The first bytes of `s`, lowercased: enough to compare with an opening
/// (every opening in the phrase files is far shorter), so an unfinished
/// sentence is not lowercased whole on every streamed piece.
fn lower_head(s: &str) -> String {
    s[..super::sentences::floor_char_boundary(s, 96.min(s.len()))].to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::mentions_any;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_name_with_a_korean_particle_is_mentioned() {
        assert!(mentions_any("지민이 말한 것처럼 목록이 먼저입니다", &names(&["지민"])));
        assert!(mentions_any("Kofi가 말한 대로 시범 운영이 먼저입니다", &names(&["Kofi"])));
        assert!(mentions_any("Ingrid's point stands", &names(&["Ingrid"])));
        assert!(!mentions_any("Ingridson's point stands", &names(&["Ingrid"])));
        assert!(!mentions_any("a samba class", &names(&["Sam"])));
    }
}
