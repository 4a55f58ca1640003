//! The keepsake page: one HTML file with its style inline and nothing
//! fetched (a Content-Security-Policy forbids every request), readable in
//! light and dark, printable.
//!
//! Model text is untrusted. It is read as Markdown, but raw HTML in it is
//! turned into text, images into their description and links other than
//! http(s)/mailto into their words; everything else goes through
//! pulldown-cmark's escaping writer. Names, titles and notices are escaped
//! as text; colours reach the style sheet only when they are a known name
//! or a `#rrggbb`.

use std::fmt::Write as _;

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};
use pulldown_cmark_escape::escape_html;

use super::{Item, Keepsake, Persona, Section};
use crate::i18n::{Record, Say};
use crate::session::{Turn, TurnKind};

const STYLE: &str = include_str!("page.css");

/// Agents that name no colour take these, in cast order (light, dark).
const PALETTE: &[(&str, &str)] = &[
    ("#1565c0", "#90caf9"),
    ("#2e7d32", "#a5d6a7"),
    ("#ad1457", "#f48fb1"),
    ("#00838f", "#80deea"),
    ("#a66f00", "#ffe082"),
    ("#6a1b9a", "#ce93d8"),
    ("#c62828", "#ef9a9a"),
    ("#4e6a00", "#c5e1a5"),
];

/// A colour an agent file names, for light and dark backgrounds (names in
/// any case, `grey` too).
fn named(color: &str) -> Option<(String, String)> {
    use crate::roster::agents::AgentColor as A;
    let name = color.trim().to_ascii_lowercase();
    let pair = match A::parse(if name == "grey" { "gray" } else { &name })? {
        A::Red => ("#c62828", "#ef9a9a"),
        A::LightRed => ("#e53935", "#ffcdd2"),
        A::Green => ("#2e7d32", "#a5d6a7"),
        A::LightGreen => ("#43a047", "#c8e6c9"),
        A::Yellow => ("#a66f00", "#ffe082"),
        A::LightYellow => ("#b58900", "#fff59d"),
        A::Blue => ("#1565c0", "#90caf9"),
        A::LightBlue => ("#1e88e5", "#bbdefb"),
        A::Magenta => ("#ad1457", "#f48fb1"),
        A::LightMagenta => ("#d81b60", "#f8bbd0"),
        A::Cyan => ("#00838f", "#80deea"),
        A::LightCyan => ("#0097a7", "#b2ebf2"),
        A::Gray => ("#616161", "#bdbdbd"),
        A::White => ("#424242", "#eeeeee"),
        A::Rgb(r, g, b) => {
            let hex = format!("#{r:02x}{g:02x}{b:02x}");
            return Some((hex.clone(), hex));
        }
    };
    Some((pair.0.to_string(), pair.1.to_string()))
}

fn esc(out: &mut String, text: &str) {
    let _ = escape_html(&mut *out, &crate::text::sanitize(text));
}

fn escaped(text: &str) -> String {
    let mut s = String::new();
    esc(&mut s, text);
    s
}

/// The whole page.
pub(crate) fn page(k: &Keepsake) -> String {
    let lang = k.lang();
    let fm = &k.session.fm;
    let mut o = String::with_capacity(16 * 1024 + k.session.turns.iter().map(|t| t.text.len() * 2).sum::<usize>());
    let html_lang = match lang {
        crate::i18n::Lang::En => "en",
        crate::i18n::Lang::Zh => "zh",
    };
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"{html_lang}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"generator\" content=\"bmad-party {}\">\n<title>",
        env!("CARGO_PKG_VERSION")
    );
    o.push_str(&Record::TitlePrefix.say(lang));
    esc(&mut o, &fm.topic);
    o.push_str("</title>\n<style>\n");
    o.push_str(STYLE);
    o.push_str(&agent_styles(k));
    o.push_str("</style>\n</head>\n<body>\n<div class=\"page\">\n<header>\n<p class=\"kicker\">🎉 ");
    o.push_str(&Record::PartyMode.say(lang));
    o.push_str("</p>\n<h1>");
    esc(&mut o, &fm.topic);
    o.push_str("</h1>\n<ul class=\"facts\">\n");
    facts(&mut o, k);
    o.push_str("</ul>\n</header>\n<ul class=\"cast\">\n");
    for p in k.cast.iter().filter(|p| p.turns > 0) {
        cast_card(&mut o, k, p);
    }
    o.push_str("</ul>\n");
    also_in_the_room(&mut o, k);
    o.push_str("<main>\n");
    for s in &k.sections {
        section(&mut o, k, s);
    }
    o.push_str("</main>\n<footer>");
    o.push_str(&Record::ExportedFrom.say(lang));
    esc(&mut o, &fm.date);
    o.push_str(".</footer>\n</div>\n</body>\n</html>\n");
    o
}

/// The header's facts: date, facilitator, rounds, time, model, how it ended.
fn facts(o: &mut String, k: &Keepsake) {
    let (lang, fm) = (k.lang(), &k.session.fm);
    let rounds = k.rounds().to_string();
    let mut facts = vec![
        (Record::FactDate.say(lang), fm.date.clone()),
        (Record::FactFacilitator.say(lang), fm.user_name.clone()),
        (Record::FactRounds.say(lang), rounds),
        (Record::FactTime.say(lang), k.duration()),
    ];
    let voices = k.voice_figures();
    if !voices.is_empty() {
        let each: Vec<String> = voices.iter().map(|(label, figures)| super::voice_line(label, figures)).collect();
        facts.push((Record::FactModels.say(lang), each.join("; ")));
    } else if !fm.provider.model.is_empty() {
        facts.push((Record::FactModel.say(lang), fm.provider.model.clone()));
    }
    if let Some(end) = k.ending() {
        facts.push((Record::FactEndedBy.say(lang), end));
    } else if !fm.workflow_completed {
        facts.push((Record::FactStatus.say(lang), Record::CanBeResumed.say(lang)));
    }
    for (label, value) in facts {
        let _ = writeln!(o, "<li>{label}: <b>{}</b></li>", escaped(&value));
    }
}

/// The members who did not speak, in one line.
fn also_in_the_room(o: &mut String, k: &Keepsake) {
    let silent: Vec<String> = k
        .cast
        .iter()
        .filter(|p| p.turns == 0)
        .map(|p| escaped(format!("{} {}", p.who.icon, p.who.name).trim()))
        .collect();
    if !silent.is_empty() {
        let _ = writeln!(
            o,
            "<p class=\"also\">{} {}</p>",
            Record::AlsoInTheRoom.say(k.lang()),
            silent.join(", ")
        );
    }
}

/// A round (or the ending) with its turns and decisions.
fn section(o: &mut String, k: &Keepsake, s: &Section<'_>) {
    let lang = k.lang();
    match s.round {
        Some(r) => {
            let title = super::round_title(lang, r);
            let _ = writeln!(o, "<section id=\"round-{r}\">\n<h2>{title}</h2>");
        }
        None => {
            let _ = writeln!(o, "<section id=\"ending\">\n<h2>{}</h2>", super::ending_title(lang));
        }
    }
    for item in &s.items {
        match item {
            Item::Turn(t) => turn(o, k, t),
            Item::Decision(c) => {
                let _ = writeln!(o, "<p class=\"decision\">{}</p>", escaped(&k.decision(c)));
            }
        }
    }
    o.push_str("</section>\n");
}

/// One rule per agent: its colour in light, and in dark.
fn agent_styles(k: &Keepsake) -> String {
    let mut light = String::new();
    let mut dark = String::new();
    for (i, p) in k.cast.iter().enumerate() {
        let (l, d) = p.who.color.as_deref().and_then(named).unwrap_or_else(|| {
            let (l, d) = PALETTE[i % PALETTE.len()];
            (l.to_string(), d.to_string())
        });
        let _ = writeln!(light, ".a{i} {{ --c: {l}; }}");
        let _ = writeln!(dark, "  .a{i} {{ --c: {d}; }}");
    }
    format!("{light}@media screen and (prefers-color-scheme: dark) {{\n{dark}}}\n")
}

fn cast_card(o: &mut String, k: &Keepsake, p: &Persona) {
    let lang = k.lang();
    let _ = write!(o, "<li class=\"a{}\">", k.slot(&p.who.id));
    if !p.who.icon.is_empty() {
        let _ = write!(o, "<span class=\"icon\">{}</span>", escaped(&p.who.icon));
    }
    let _ = write!(o, "<span><span class=\"name\">{}</span>", escaped(&p.who.name));
    if !p.who.title.is_empty() {
        let _ = write!(o, "<span class=\"title\">{}</span>", escaped(&p.who.title));
    }
    if let Some(voice) = &p.voice {
        let _ = write!(o, "<span class=\"model\">{}</span>", escaped(voice));
    }
    let n = p.turns;
    let count = Record::Turns { n }.say(lang);
    let _ = writeln!(o, "<span class=\"count\">{count}</span></span></li>");
}

fn turn(o: &mut String, k: &Keepsake, t: &Turn) {
    let lang = k.lang();
    match t.kind {
        TurnKind::Agent | TurnKind::Farewell | TurnKind::Question => {
            let id = t.agent.as_deref().unwrap_or("");
            let class = match t.kind {
                TurnKind::Farewell => "farewell",
                TurnKind::Question => "question",
                _ => "agent",
            };
            let _ = write!(o, "<article class=\"turn {class} a{}\">\n<div class=\"who\">", k.slot(id));
            match k.persona(id) {
                Some(p) => {
                    if !p.who.icon.is_empty() {
                        let _ = write!(o, "<span class=\"icon\">{}</span>", escaped(&p.who.icon));
                    }
                    let _ = write!(o, "<span class=\"name\">{}</span>", escaped(&p.who.name));
                    if !p.who.title.is_empty() {
                        let _ = write!(o, "<span class=\"title\">{}</span>", escaped(&p.who.title));
                    }
                }
                None => {
                    let _ = write!(o, "<span class=\"name\">{}</span>", escaped(&t.label));
                }
            }
            if let Some(voice) = k.voice(t) {
                let _ = write!(o, "<span class=\"model\">{}</span>", escaped(voice));
            }
            if t.kind == TurnKind::Question {
                let _ = write!(o, "<span class=\"tag\">{}</span>", Record::AsksYouTag.say(lang));
            } else if let Some(l) = &t.latency {
                let what = Record::TimingsExplained.say(lang);
                let _ = write!(o, "<span class=\"tag\" title=\"{what}\">{}</span>", l.summary());
            }
            o.push_str("</div>\n<div class=\"text\">");
            markdown(o, &t.text);
            if t.interrupted {
                let _ = write!(o, "<p class=\"interrupted\">{}</p>", Record::InterruptedNote.say(lang));
            }
            o.push_str("</div>\n</article>\n");
        }
        TurnKind::Facilitator => {
            let _ = write!(
                o,
                "<article class=\"turn you\">\n<div class=\"who\"><span class=\"name\">{}</span><span class=\"title\">{}</span></div>\n<div class=\"text\">",
                escaped(&t.label),
                Record::FacilitatorSpeaker.say(lang)
            );
            markdown(o, &t.text);
            o.push_str("</div>\n</article>\n");
        }
        TurnKind::Highlights | TurnKind::Closing => {
            let class = if t.kind == TurnKind::Highlights { "highlights" } else { "closing" };
            let _ = write!(o, "<article class=\"turn {class}\">\n<div class=\"text\">");
            markdown(o, &t.text);
            o.push_str("</div>\n</article>\n");
        }
        TurnKind::Reset => {
            let _ = writeln!(o, "<p class=\"reset\">{}</p>", escaped(t.text.lines().next().unwrap_or("")));
        }
        TurnKind::Notice | TurnKind::Failed | TurnKind::Continue | TurnKind::Push => {
            if t.text.trim().is_empty() {
                return;
            }
            let class = if t.kind == TurnKind::Failed { "notice failed" } else { "notice" };
            let _ = writeln!(o, "<p class=\"{class}\">{}</p>", escaped(t.text.trim()));
        }
    }
}

/// Model text as HTML: Markdown's structure, never its raw HTML, images
/// or script links.
pub(crate) fn markdown(o: &mut String, text: &str) {
    let text = crate::text::sanitize(text);
    // Whether each open link was kept, to drop the matching end with it.
    let mut links: Vec<bool> = Vec::new();
    let events = Parser::new_ext(&text, Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES).filter_map(|ev| match ev {
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::HtmlBlock) | Event::End(TagEnd::HtmlBlock) => None,
        Event::Start(Tag::Link { ref dest_url, .. }) => {
            let keep = safe_link(dest_url);
            links.push(keep);
            keep.then_some(ev)
        }
        Event::End(TagEnd::Link) => links.pop().unwrap_or(false).then_some(ev),
        // The description stays (its text events pass); the picture is never fetched.
        Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => None,
        Event::Start(Tag::Heading { level, .. }) => Some(Event::Start(Tag::Heading {
            level,
            id: None,
            classes: Vec::new(),
            attrs: Vec::new(),
        })),
        Event::Start(Tag::CodeBlock(pulldown_cmark::CodeBlockKind::Fenced(_))) => Some(Event::Start(Tag::CodeBlock(
            pulldown_cmark::CodeBlockKind::Fenced(CowStr::Borrowed("")),
        ))),
        other => Some(other),
    });
    pulldown_cmark::html::push_html(o, events);
}

fn safe_link(url: &str) -> bool {
    let u = url.trim().to_ascii_lowercase();
    u.starts_with("https://") || u.starts_with("http://") || u.starts_with("mailto:")
}
