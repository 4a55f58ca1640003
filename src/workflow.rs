//! The party-mode workflow files: the prompts and message templates the
//! engine really uses. Each step file holds sections headed
//! `## Template: name` (or `name.zh` for the Chinese form), optional prose,
//! then one fenced block; `{{var}}` placeholders are filled at run time. Editing a
//! template changes what the program says and asks.

use foldhash::{HashMap, HashMapExt};
use regex::Regex;

use crate::assets::{Lookup, WorkflowSource};
use crate::i18n::{Lang, Problem};
use crate::source::SourceError;
use crate::source::SourceFile;

pub(crate) const WORKFLOW_FILE: &str = "workflow.md";
pub(crate) const STEP_00: &str = "steps/step-00-check-termination.md";
pub(crate) const STEP_01: &str = "steps/step-01-agent-loading.md";
pub(crate) const STEP_02: &str = "steps/step-02-discussion-orchestration.md";
pub(crate) const STEP_03: &str = "steps/step-03-graceful-exit.md";

/// Every template the engine needs: file, name, placeholders it may use.
const REQUIRED: &[(&str, &str, &[&str])] = &[
    (WORKFLOW_FILE, "room_rules", &["user_name", "language", "agent_count", "roster"]),
    (STEP_00, "round_warning", &["round", "max_rounds", "rounds_left"]),
    (STEP_00, "time_warning", &["minutes", "max_minutes", "minutes_left"]),
    (STEP_00, "round_limit", &["max_rounds"]),
    (STEP_00, "time_limit", &["max_minutes"]),
    (STEP_00, "round_limit_question", &["max_rounds", "extend"]),
    (STEP_00, "time_limit_question", &["max_minutes", "extend"]),
    (STEP_00, "continued_rounds", &["extend", "max_rounds"]),
    (STEP_00, "continued_minutes", &["extend", "max_minutes"]),
    (STEP_00, "exiting", &[]),
    (STEP_00, "exit_requested", &["user_name"]),
    (STEP_00, "facilitator_left", &["user_name"]),
    (STEP_00, "end_accepted", &["name"]),
    (STEP_00, "unreachable", &["cause", "file"]),
    (STEP_00, "remaining", &["rounds_left", "minutes_left"]),
    (STEP_00, "consensus_proposal", &["score", "rounds"]),
    (STEP_00, "consensus_asked", &["question", "score", "rounds"]),
    (STEP_00, "agreement_proposal", &["question"]),
    (STEP_00, "agreement_unopposed", &["question"]),
    (STEP_00, "silence_proposal", &["rounds"]),
    (STEP_00, "dry_proposal", &["rounds"]),
    (STEP_00, "idle_warning", &["user_name", "minutes"]),
    (STEP_00, "idle_exit", &["user_name", "minutes"]),
    (STEP_00, "budget_question", &["count"]),
    (STEP_00, "pushes_paused", &["user_name"]),
    (STEP_00, "embedding_fallback", &["cause"]),
    (STEP_00, "reset_requested", &["message"]),
    (STEP_00, "reset_description", &["message"]),
    (STEP_00, "reset_confirmed", &["reason"]),
    (STEP_00, "reset_rejected", &["reason"]),
    (STEP_00, "reset_divider", &[]),
    (STEP_01, "welcome", &["user_name", "agent_count", "sample"]),
    (STEP_01, "welcome_party", &["user_name", "party", "scene", "agent_count", "sample"]),
    (STEP_01, "welcome_agent", &["icon", "name", "title", "role"]),
    (STEP_01, "resumed", &["topic", "round"]),
    (STEP_01, "cast_system", &[]),
    (STEP_01, "cast_request", &["topic", "size", "sources", "language"]),
    (STEP_01, "cast_sources", &["documents"]),
    (STEP_01, "cast_again", &["flaws"]),
    (
        STEP_01,
        "cast_one",
        &["topic", "others", "replaced", "sources", "language", "taken"],
    ),
    (
        STEP_02,
        "agent_system",
        &[
            "name",
            "title",
            "icon",
            "role",
            "identity",
            "communication_style",
            "principles",
            "capabilities",
            "instructions",
            "room_rules",
            "language",
            "user_name",
        ],
    ),
    (STEP_02, "room_system", &["room_rules", "user_name", "language"]),
    (STEP_02, "party_scene", &["party", "scene"]),
    (STEP_02, "memory_brief", &["user_name", "entries"]),
    (STEP_02, "documents", &["documents"]),
    (STEP_02, "document", &["name", "text"]),
    (STEP_02, "document_cut", &["percent"]),
    (STEP_02, "end_marker_instruction", &["end_marker"]),
    (STEP_02, "turn", &["name", "round", "user_name", "order", "remaining"]),
    (STEP_02, "speaks_first", &["user_name", "name", "title", "principle"]),
    (STEP_02, "history_omitted", &["rounds", "topic"]),
    (STEP_02, "ask_again", &["name"]),
    (STEP_02, "spoke_before", &["names", "name", "last", "title", "principle"]),
    (STEP_02, "principle", &["name", "principle"]),
    (STEP_02, "room_continues", &["user_name"]),
    (STEP_02, "continue_prompt", &["user_name"]),
    (STEP_02, "round_menu", &[]),
    (STEP_02, "end_proposal", &["name"]),
    (STEP_02, "ask_instruction", &["ask_marker", "user_name"]),
    (STEP_02, "read_message_system", &[]),
    (STEP_02, "read_message", &["earlier", "message"]),
    (STEP_02, "facts_question", &["user_name", "message", "earlier", "language"]),
    (STEP_02, "hear_answer_system", &[]),
    (STEP_02, "hear_answer", &["question", "name", "reply"]),
    (STEP_02, "host_close", &["user_name"]),
    (STEP_02, "host_close_caveat", &["user_name", "name", "point"]),
    (STEP_02, "self_check", &["name", "user_name"]),
    (STEP_02, "question", &["name", "question", "user_name"]),
    (STEP_02, "push_notice", &["text"]),
    (STEP_02, "moderator_prompt", &["user_name", "language"]),
    (STEP_02, "circling", &["summary"]),
    (STEP_03, "thanks", &["user_name"]),
    (STEP_03, "farewell_prompt", &["name", "user_name", "topic", "language"]),
    (
        STEP_03,
        "highlights_prompt",
        &["topic", "perspectives", "rounds", "reason", "language"],
    ),
    (
        STEP_03,
        "highlights",
        &["topic", "count", "perspectives", "rounds", "outcomes", "reason"],
    ),
    (STEP_03, "takeaways_prompt", &["topic", "language"]),
    (STEP_03, "memory_prompt", &["topic", "language", "names", "user_name"]),
    (STEP_03, "closing", &[]),
    (STEP_03, "reason_round_limit", &["max_rounds"]),
    (STEP_03, "reason_time_limit", &["max_minutes"]),
    (STEP_03, "reason_user_requested", &["user_name"]),
    (STEP_03, "reason_agent_proposed", &["name"]),
    (STEP_03, "reason_facilitator_left", &["user_name"]),
    (STEP_03, "reason_unreachable", &[]),
    (STEP_03, "reason_consensus", &[]),
    (STEP_03, "reason_silence", &[]),
];

/// Templates added after workflow folders were first copied out of the
/// program: a folder without them uses the built-in text.
const ADDED: &[(&str, &str)] = &[
    (STEP_03, "takeaways_prompt"),
    (STEP_02, "room_system"),
    (STEP_01, "welcome_party"),
    (STEP_02, "party_scene"),
    (STEP_02, "memory_brief"),
    (STEP_02, "documents"),
    (STEP_02, "document"),
    (STEP_02, "document_cut"),
    (STEP_03, "memory_prompt"),
    (STEP_02, "principle"),
    (STEP_01, "cast_system"),
    (STEP_01, "cast_request"),
    (STEP_01, "cast_sources"),
    (STEP_01, "cast_again"),
    (STEP_01, "cast_one"),
];

#[derive(Debug, Clone)]
pub(crate) struct Template {
    pub text: String,
    /// `text` split at its placeholders once, so rendering (several times
    /// per agent turn) is concatenation rather than a regex pass.
    parts: Vec<Part>,
}

#[derive(Debug, Clone)]
enum Part {
    Text(String),
    Var(String),
}

impl Template {
    fn new(text: String) -> Template {
        let mut parts = Vec::new();
        let mut last = 0;
        for c in placeholder_re().captures_iter(&text) {
            let Some(whole) = c.get(0) else { continue };
            if whole.start() > last {
                parts.push(Part::Text(text[last..whole.start()].to_string()));
            }
            parts.push(Part::Var(c[1].to_string()));
            last = whole.end();
        }
        if last < text.len() {
            parts.push(Part::Text(text[last..].to_string()));
        }
        Template { text, parts }
    }

    fn placeholders(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var(name) => Some(name.as_str()),
            Part::Text(_) => None,
        })
    }
}

#[derive(Debug, Clone)]
pub struct Workflow {
    templates: HashMap<String, Template>,
    pub source: WorkflowSource,
}

// Compiled once: templates are rendered many times per round.
#[allow(clippy::expect_used, reason = "a pattern written in the source: a test compiles it")]
static SECTION_RE: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(r"(?m)^##\s+Template:\s*([A-Za-z0-9_.]+)[ \t]*\r?\n(?:(?:[^#`~\r\n][^\r\n]*)?\r?\n)*?[ \t]*(`{3,}|~{3,})[^\n]*\n")
        .expect("static regex")
});
#[allow(clippy::expect_used, reason = "a pattern written in the source: a test compiles it")]
static PLACEHOLDER_RE: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r"\{\{\s*([A-Za-z0-9_]+)\s*\}\}").expect("static regex"));

fn section_re() -> &'static Regex {
    &SECTION_RE
}

fn placeholder_re() -> &'static Regex {
    &PLACEHOLDER_RE
}

/// Each template by name, where it starts (file, line), and the files
/// that could not be read.
type ReadTemplates = (HashMap<String, Template>, HashMap<String, (String, u64)>, Vec<SourceError>);

/// The templates of every file the workflow needs.
fn read_templates(source: &WorkflowSource) -> ReadTemplates {
    let mut templates = HashMap::new();
    let mut problems = Vec::new();
    let mut files: Vec<&str> = REQUIRED.iter().map(|r| r.0).collect();
    files.dedup();
    let mut lines: HashMap<String, (String, u64)> = HashMap::new();
    for rel in files {
        match source.read(rel) {
            Ok(Lookup::Found(f)) => match parse_sections(&f) {
                Ok(sections) => {
                    for (name, text, line) in sections {
                        lines.insert(name.clone(), (f.path.clone(), line));
                        templates.insert(name, Template::new(text));
                    }
                }
                Err(e) => problems.push(e),
            },
            Ok(Lookup::Missing) => problems.push(SourceError::new(rel, None, "", Problem::WorkflowMissing)),
            Err(e) => problems.push(e),
        }
    }
    (templates, lines, problems)
}

/// The built-in copies of templates added since a workflow folder was
/// written (`ADDED`), where the folder lacks them.
fn add_built_in(templates: &mut HashMap<String, Template>) {
    for (file, name) in ADDED {
        if templates.contains_key(*name) {
            continue;
        }
        if let Ok(Lookup::Found(f)) = WorkflowSource::default().read(file) {
            for (n, text, _) in parse_sections(&f).unwrap_or_default() {
                if n == *name || n == format!("{name}.zh") {
                    templates.insert(n, Template::new(text));
                }
            }
        }
    }
}

/// Every required template present (its Chinese form is optional), each
/// using only the placeholders it is given.
fn check_required(
    source: &WorkflowSource,
    templates: &HashMap<String, Template>,
    lines: &HashMap<String, (String, u64)>,
    problems: &mut Vec<SourceError>,
) {
    for (file, name, allowed) in REQUIRED {
        for variant in [name.to_string(), format!("{name}.zh")] {
            let Some(t) = templates.get(&variant) else {
                if variant == *name && problems.iter().all(|p: &SourceError| !p.file.ends_with(file)) {
                    let path = match source.read(file) {
                        Ok(Lookup::Found(f)) => f.path,
                        _ => file.to_string(),
                    };
                    problems.push(SourceError::new(path, None, name, Problem::TemplateMissing));
                }
                continue;
            };
            for ph in t.placeholders() {
                if !allowed.contains(&ph) {
                    let (path, line) = lines.get(&variant).cloned().unwrap_or_default();
                    let known = if allowed.is_empty() {
                        "none".to_string()
                    } else {
                        allowed.iter().map(|a| format!("{{{{{a}}}}}")).collect::<Vec<_>>().join(", ")
                    };
                    problems.push(SourceError::new(
                        &path,
                        Some(line),
                        &variant,
                        Problem::UnknownPlaceholder {
                            placeholder: ph.to_string(),
                            known: known.clone(),
                        },
                    ));
                }
            }
        }
    }
}

fn line_of(text: &str, byte: usize) -> u64 {
    text[..byte].matches('\n').count() as u64 + 1
}

/// Extracts `name -> (text, line)` from one file.
fn parse_sections(file: &SourceFile) -> Result<Vec<(String, String, u64)>, SourceError> {
    let mut out = Vec::new();
    let re = section_re();
    for caps in re.captures_iter(&file.text) {
        let Some(whole) = caps.get(0) else { continue };
        let name = caps[1].to_string();
        let fence = &caps[2];
        let body_start = whole.end();
        let rest = &file.text[body_start..];
        let close = rest
            .split_inclusive('\n')
            .scan(0usize, |off, l| {
                let at = *off;
                *off += l.len();
                Some((at, l))
            })
            .find(|(_, l)| l.trim_end() == fence)
            .map(|(at, _)| at);
        let line = line_of(&file.text, whole.start());
        let Some(close) = close else {
            return Err(SourceError::new(
                &file.path,
                Some(line),
                &name,
                Problem::TemplateNotClosed { fence: fence.to_string() },
            ));
        };
        // Templates reach the screen: a control sequence in an edited file
        // must not drive the facilitator's terminal.
        let body = crate::text::sanitize(rest[..close].trim_end_matches(['\n', '\r']));
        out.push((name, body, line));
    }
    // A heading the pattern passed over: its block never came, or a line
    // before it opens with `#`, a backtick or `~` (taken for the fence).
    let mut at = 0;
    for l in file.text.split_inclusive('\n') {
        let start = at;
        at += l.len();
        let Some(name) = l.strip_prefix("## Template:").map(str::trim) else {
            continue;
        };
        if !re.find_iter(&file.text).any(|m| m.start() == start) {
            return Err(SourceError::new(
                &file.path,
                Some(line_of(&file.text, start)),
                name,
                Problem::NoFencedBlock,
            ));
        }
    }
    Ok(out)
}

impl Workflow {
    pub fn load(source: WorkflowSource) -> Result<Workflow, Vec<SourceError>> {
        let (mut templates, lines, mut problems) = read_templates(&source);
        // A workflow folder written before a template existed gets the
        // built-in one instead of an error.
        if source.dir.is_some() {
            add_built_in(&mut templates);
        }
        check_required(&source, &templates, &lines, &mut problems);
        if problems.is_empty() {
            Ok(Workflow { templates, source })
        } else {
            Err(problems)
        }
    }

    /// Renders template `name` in `lang` (falling back to the base form).
    pub(crate) fn render(&self, name: &str, lang: Lang, vars: &[(&str, &str)]) -> String {
        let t = match lang {
            Lang::Zh => self.templates.get(&format!("{name}.zh")).or_else(|| self.templates.get(name)),
            Lang::En => self.templates.get(name),
        };
        let Some(t) = t else {
            // Only reachable for a name outside REQUIRED: a programming error,
            // but a visible one rather than a crash mid-party.
            return format!("[missing template {name}]");
        };
        let mut out = String::with_capacity(t.text.len() + vars.iter().map(|(_, v)| v.len()).sum::<usize>());
        for part in &t.parts {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Var(name) => out.push_str(vars.iter().find(|(k, _)| k == name).map_or("", |(_, v)| v)),
            }
        }
        out
    }

    /// The text of a whole workflow file, for optional files such as the
    /// diligence push text: `Ok(None)` when it does not exist.
    pub(crate) fn optional_file(&self, rel: &str) -> Result<Option<SourceFile>, SourceError> {
        Ok(match self.source.read_one_source(rel)? {
            Lookup::Found(f) => Some(f),
            Lookup::Missing => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_workflow_loads_and_renders_both_languages() {
        let w = Workflow::load(WorkflowSource::default()).unwrap_or_else(|e| panic!("{e:?}"));
        let zh = w.render(
            "round_warning",
            Lang::Zh,
            &[("round", "8"), ("max_rounds", "10"), ("rounds_left", "2")],
        );
        assert!(zh.contains("🔔 提示：对话已进行 8 轮（上限 10 轮）"), "{zh}");
        assert!(zh.contains("💡 您可以选择继续或输入 [E] 退出"), "{zh}");
        let en = w.render("round_limit", Lang::En, &[("max_rounds", "10")]);
        assert!(en.contains("10"), "{en}");
    }

    #[test]
    fn disk_override_with_unknown_placeholder_is_located() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("steps")).unwrap();
        std::fs::write(
            dir.path().join(STEP_00),
            "# x\n\n## Template: exiting\n\n```text\nBye {{nobody}}\n```\n",
        )
        .unwrap();
        let errs = Workflow::load(WorkflowSource {
            dir: Some(dir.path().to_path_buf()),
        })
        .unwrap_err();
        let text: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
        assert!(
            text.iter()
                .any(|t| t.contains("step-00-check-termination.md:3: `exiting`: unknown placeholder {{nobody}}")),
            "{text:?}"
        );
        let bad = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(bad.path().join(STEP_00).parent().unwrap()).unwrap();
        std::fs::write(
            bad.path().join(STEP_00),
            "# x\n\n## Template: exiting\n\n`note` about it\n\n```text\nBye\n```\n",
        )
        .unwrap();
        let errs = Workflow::load(WorkflowSource {
            dir: Some(bad.path().to_path_buf()),
        })
        .unwrap_err();
        assert!(
            errs.iter().any(|e| e
                .to_string()
                .contains("step-00-check-termination.md:3: `exiting`: no fenced block follows")),
            "{errs:?}"
        );
        assert!(
            text.iter().any(|t| t.contains("`round_warning`: required template is missing")),
            "{text:?}"
        );
    }

    #[test]
    fn a_folder_copied_before_a_template_existed_gets_the_built_in_one() {
        let dir = tempfile::tempdir().unwrap();
        let built_in = WorkflowSource::default();
        for rel in [WORKFLOW_FILE, STEP_00, STEP_01, STEP_02, STEP_03] {
            let Ok(Lookup::Found(f)) = built_in.read(rel) else {
                panic!("{rel} is built in")
            };
            let mut text = f.text;
            if rel == STEP_03 {
                // The takeaways prompt cut out, as in a copy made before it.
                let start = text.find("## Template: takeaways_prompt").expect("in the built-in copy");
                let end = start + text[start..].find("## Template: highlights").unwrap();
                text.replace_range(start..end, "");
            }
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let w = Workflow::load(WorkflowSource {
            dir: Some(dir.path().to_path_buf()),
        })
        .expect("loads");
        let prompt = w.render("takeaways_prompt", Lang::En, &[("topic", "X"), ("language", "English")]);
        assert!(prompt.contains("## Decisions"), "{prompt}");
    }
}
