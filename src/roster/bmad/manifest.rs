//! `agent-manifest.csv`, every generation: 5, 10, 11 or 12 columns, read by
//! header name with the `csv` crate (RFC 4180 quoting, `""` escapes, commas
//! and dashes inside fields). Compiled-era files carry XML entities, which
//! are unescaped. Rows are kept even when odd (empty cells, a `path` that
//! points nowhere, a shared display name); each oddity is reported.

use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::{aliases_of, code_to_id, palette, rel};
use crate::i18n::Problem;
use crate::roster::agents::{Agent, Principles};
use crate::source::SourceError;
use crate::text::sanitize;

/// `&apos; &quot; &amp; &lt; &gt;` and numeric references; a raw `&`
/// that starts no entity (a title like "R&D") stays as it is.
pub(crate) fn unescape_xml(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    #[allow(clippy::expect_used, reason = "a pattern written in the source: a test compiles it")]
    static ENTITY: std::sync::LazyLock<Regex> =
        std::sync::LazyLock::new(|| Regex::new(r"&(apos|quot|amp|lt|gt|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});").expect("static regex"));
    ENTITY
        .replace_all(s, |c: &regex::Captures| match &c[1] {
            "apos" => "'".to_string(),
            "quot" => "\"".to_string(),
            "amp" => "&".to_string(),
            "lt" => "<".to_string(),
            "gt" => ">".to_string(),
            n if n.starts_with("#x") => u32::from_str_radix(&n[2..], 16)
                .ok()
                .and_then(char::from_u32)
                .map(String::from)
                .unwrap_or_default(),
            n => n[1..]
                .parse::<u32>()
                .ok()
                .and_then(char::from_u32)
                .map(String::from)
                .unwrap_or_default(),
        })
        .into_owned()
}

/// Persona fields of a compiled agent file (`<agent … title="" icon="">`
/// with `<persona><role>…`), used to fill what a thin manifest lacks.
fn compiled_fields(text: &str) -> HashMap<&'static str, String> {
    /// (key, pattern): the agent's attributes, then its persona's elements.
    #[allow(clippy::expect_used, reason = "a pattern written in the source: a test compiles it")]
    static FIELDS: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
        let attr = ["title", "icon"].map(|name| (name, format!(r#"<agent\b[^>]*\b{name}="([^"]*)""#)));
        let tags = [
            ("role", "role"),
            ("identity", "identity"),
            ("communicationStyle", "communication_style"),
            ("principles", "principles"),
        ]
        .map(|(key, tag)| (key, format!(r"(?s)<{tag}>(.*?)</{tag}>")));
        attr.into_iter()
            .chain(tags)
            .map(|(key, re)| (key, Regex::new(&re).expect("static regex")))
            .collect()
    });
    let mut out = HashMap::new();
    for (key, re) in FIELDS.iter() {
        if let Some(c) = re.captures(text) {
            out.insert(*key, unescape_xml(c[1].trim()));
        }
    }
    out
}

/// "bmad-agent-tech-writer" → "Tech Writer", for manifests without titles.
fn title_from_code(code: &str) -> String {
    let short = aliases_of(code).into_iter().next().unwrap_or_else(|| code.to_string());
    let words: Vec<String> = short
        .split(['-', '_'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
        })
        .collect();
    if words.is_empty() {
        "Agent".into()
    } else {
        words.join(" ")
    }
}

pub(crate) fn load(path: &Path, root: &Path) -> (Vec<Agent>, Vec<SourceError>) {
    let file = rel(root, path);
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            return (
                vec![],
                vec![SourceError::new(&file, None, "", Problem::CannotRead { error: e.to_string() })],
            )
        }
    };
    parse(&String::from_utf8_lossy(&bytes), &file, root)
}

/// The cells of a manifest row an agent is made of.
const FIELDS: [&str; 11] = [
    "title",
    "icon",
    "capabilities",
    "role",
    "identity",
    "communicationStyle",
    "principles",
    "module",
    "path",
    "description",
    "canonicalId",
];

/// Where a row is: the manifest, its line, the project root its `path`
/// cells are resolved from.
struct Row<'a> {
    file: &'a str,
    row: u64,
    root: &'a Path,
}

/// One row as an agent; `index` picks its colour. A `path` cell naming a
/// compiled agent file fills the persona fields the row leaves empty.
fn row_agent(
    mut fields: HashMap<&'static str, String>,
    code: String,
    display: String,
    at: &Row<'_>,
    index: usize,
    problems: &mut Vec<SourceError>,
) -> Agent {
    let (file, row) = (at.file, at.row);
    fill_from_agent_file(&mut fields, at, problems);
    let name = if display.is_empty() { code.clone() } else { display };
    let description = fields["description"].clone();
    let title = if fields["title"].is_empty() {
        title_from_code(&code)
    } else {
        fields["title"].clone()
    };
    if ["role", "identity", "communicationStyle", "description"]
        .iter()
        .all(|k| fields[k].is_empty())
    {
        problems.push(SourceError::new(file, Some(row), "role", Problem::NoPersonaFields));
    }
    let role = [&fields["role"], &description, &title]
        .into_iter()
        .find(|v| !v.is_empty())
        .cloned()
        .unwrap_or_default();
    let identity = [&fields["identity"], &description]
        .into_iter()
        .find(|v| !v.is_empty())
        .cloned()
        .unwrap_or_default();
    let mut aliases = aliases_of(&code);
    let canonical = fields["canonicalId"].clone();
    if !canonical.is_empty() && canonical != code {
        aliases.push(code_to_id(&canonical));
    }
    Agent {
        id: code_to_id(if code.is_empty() { &name } else { &code }),
        name: name.replace('*', ""),
        title,
        icon: fields["icon"].clone(),
        role,
        identity,
        communication_style: fields["communicationStyle"].clone(),
        principles: Principles::One(fields["principles"].clone()).into_list(),
        capabilities: Some(fields["capabilities"].clone()).filter(|c| !c.is_empty()),
        color: Some(palette(index)),
        moderator: code == "bmad-master" || code.ends_with("-master"),
        source: format!("{file}:{row}"),
        aliases,
        ..Agent::default()
    }
}

/// The manifest wins (it is what the project's user edited); the agent
/// file its `path` names only fills gaps. A path that does not exist is a
/// problem; the row keeps the manifest's fields.
fn fill_from_agent_file(fields: &mut HashMap<&'static str, String>, at: &Row<'_>, problems: &mut Vec<SourceError>) {
    let agent_path = fields["path"].clone();
    if agent_path.is_empty() {
        return;
    }
    let resolved = super::resolve_path(at.root, &agent_path);
    if resolved.is_file() {
        if let Ok(t) = std::fs::read_to_string(&resolved) {
            for (k, v) in compiled_fields(&t) {
                if fields.get(k).is_some_and(|x| x.is_empty()) {
                    fields.insert(k, sanitize(&v));
                }
            }
        }
    } else if !resolved.exists() {
        problems.push(SourceError::new(
            at.file,
            Some(at.row),
            "path",
            Problem::AgentFileMissing { path: agent_path },
        ));
    }
}

/// Parses a manifest's text; `file` names it in problems, `root` resolves `path` cells.
pub fn parse(text: &str, file: &str, root: &Path) -> (Vec<Agent>, Vec<SourceError>) {
    let file = file.to_string();
    let mut problems = Vec::new();
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    let headers: Vec<String> = match reader.headers() {
        Ok(h) => h.iter().map(|s| s.trim().to_string()).collect(),
        Err(e) => {
            return (
                vec![],
                vec![SourceError::new(
                    &file,
                    Some(1),
                    "",
                    Problem::UnreadableHeader { error: e.to_string() },
                )],
            )
        }
    };
    let col = |name: &str| headers.iter().position(|h| h.eq_ignore_ascii_case(name));
    if col("name").is_none() && col("displayName").is_none() {
        problems.push(SourceError::new(&file, Some(1), "name", Problem::NotAManifest));
        return (vec![], problems);
    }
    let mut agents = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let row = i as u64 + 2;
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                problems.push(SourceError::new(
                    &file,
                    Some(row),
                    "",
                    Problem::UnreadableRow { error: e.to_string() },
                ));
                continue;
            }
        };
        let get = |name: &str| {
            col(name)
                .and_then(|c| record.get(c))
                .map(|v| sanitize(&unescape_xml(v)).trim().to_string())
                .unwrap_or_default()
        };
        let code = get("name");
        let display = get("displayName");
        if code.is_empty() && display.is_empty() {
            if record.iter().any(|c| !c.trim().is_empty()) {
                problems.push(SourceError::new(&file, Some(row), "name", Problem::RowWithoutName));
            }
            continue;
        }
        let fields = FIELDS.into_iter().map(|k| (k, get(k))).collect();
        let at = Row { file: &file, row, root };
        let index = agents.len();
        agents.push(row_agent(fields, code, display, &at, index, &mut problems));
    }
    (agents, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_are_unescaped_but_raw_ampersands_stay() {
        assert_eq!(
            unescape_xml("balancing &apos;could&apos; &amp; &quot;should&quot; &lt;x&gt; &#39;"),
            "balancing 'could' & \"should\" <x> '"
        );
        assert_eq!(unescape_xml("R&D lead & friends"), "R&D lead & friends");
    }
}
