//! The diligence push text (seed 002): what the runtime says to keep the
//! room going when the facilitator is quiet.
//!
//! Resolution: `diligence.<lang>.md`, then `diligence.md`, then the
//! built-in text. The first file that exists decides: if it is blank (after
//! removing YAML frontmatter, which is never part of the text), the push is
//! turned off.

use crate::agents::split_frontmatter;
use crate::config::ConfigError;
use crate::i18n::Lang;
use crate::workflow::Workflow;

#[derive(Debug, Clone, PartialEq)]
pub enum PushText {
    Text { text: String, source: String },
    Disabled { source: String },
}

pub fn builtin(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "(Automatic nudge from the runtime, not a new request from the facilitator: the facilitator is quiet for now. Keep the discussion moving on your own — pick the most important open question and dig into it. Do not reply to this note itself.)",
        Lang::Zh => "（系统自动推进，并非主持人的新请求：主持人暂时没有发言。请自行推动讨论——挑出最重要的未决问题深入探讨。不要回复这条提示本身。）",
    }
}

fn body(text: &str) -> &str {
    match split_frontmatter(text) {
        Some((_, body, _)) => body,
        None => text,
    }
}

pub fn resolve(workflow: &Workflow, lang: Lang) -> Result<PushText, ConfigError> {
    for rel in [format!("diligence.{}.md", lang.code()), "diligence.md".to_string()] {
        if let Some(f) = workflow.optional_file(&rel)? {
            let text = body(&f.text).trim();
            return Ok(if text.is_empty() {
                PushText::Disabled { source: f.path }
            } else {
                PushText::Text {
                    text: crate::text::sanitize(text),
                    source: f.path,
                }
            });
        }
    }
    Ok(PushText::Text {
        text: builtin(lang).to_string(),
        source: "(built-in)".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::WorkflowSource;

    fn workflow_with(files: &[(&str, &str)]) -> (Workflow, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        (
            Workflow::load(WorkflowSource {
                dir: Some(dir.path().to_path_buf()),
            })
            .unwrap(),
            dir,
        )
    }

    #[test]
    fn language_file_wins_and_frontmatter_is_ignored() {
        let (w, _d) = workflow_with(&[
            ("diligence.zh.md", "---\nnote: x\n---\n继续推进。\n"),
            ("diligence.md", "Keep going.\n"),
        ]);
        assert!(matches!(resolve(&w, Lang::Zh).unwrap(), PushText::Text { text, .. } if text == "继续推进。"));
        assert!(matches!(resolve(&w, Lang::En).unwrap(), PushText::Text { text, .. } if text == "Keep going."));
    }

    #[test]
    fn a_blank_file_disables_the_push() {
        let (w, _d) = workflow_with(&[("diligence.md", "---\ncomment: off\n---\n   \n")]);
        assert!(matches!(resolve(&w, Lang::En).unwrap(), PushText::Disabled { .. }));
        // The built-in workflow ships both files with text.
        let w = Workflow::load(WorkflowSource::default()).unwrap();
        assert!(
            matches!(resolve(&w, Lang::Zh).unwrap(), PushText::Text { text, source } if text.contains("自动推进") && source.ends_with("diligence.zh.md"))
        );
    }
}
