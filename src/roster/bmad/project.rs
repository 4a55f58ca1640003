//! The project's own settings: who the facilitator is, which language the
//! room speaks, where documents go. From `_bmad/core/config.yaml` (older
//! installs) and `[core]` of the merged `config.toml` layers (newer; the
//! per-user `communication_language` is often only in the user file or the
//! YAML). `{project-root}` placeholders are resolved.

use std::path::PathBuf;

use serde::Deserialize;

use super::{install, rel, resolve_path, Project};
use crate::source::SourceError;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectConfig {
    pub user_name: Option<String>,
    pub communication_language: Option<String>,
    pub document_output_language: Option<String>,
    pub output_folder: Option<PathBuf>,
    pub problems: Vec<SourceError>,
}

#[derive(Deserialize, Default)]
struct CoreYaml {
    user_name: Option<String>,
    communication_language: Option<String>,
    document_output_language: Option<String>,
    output_folder: Option<String>,
}

fn clean(v: Option<String>) -> Option<String> {
    v.map(|s| crate::text::sanitize(&s).trim().to_string()).filter(|s| !s.is_empty())
}

pub(crate) fn load(project: &Project) -> ProjectConfig {
    let mut cfg = ProjectConfig::default();
    let mut output: Option<String> = None;
    let yaml_path = project.dir.join("core").join("config.yaml");
    if let Ok(text) = std::fs::read_to_string(&yaml_path) {
        match serde_saphyr::from_str::<CoreYaml>(&text) {
            Ok(y) => {
                cfg.user_name = clean(y.user_name);
                cfg.communication_language = clean(y.communication_language);
                cfg.document_output_language = clean(y.document_output_language);
                output = clean(y.output_folder);
            }
            Err(e) => {
                let err = crate::source::yaml_error(&e, &rel(&project.root, &yaml_path), &text, 0);
                cfg.problems.push(SourceError::new(
                    err.file,
                    err.line,
                    &err.key,
                    crate::i18n::Problem::Ignored(err.message),
                ));
            }
        }
    }
    let mut problems = Vec::new();
    if let Some(merged) = install::merged_config(project, &mut problems) {
        if let Some(core) = merged.get("core").and_then(toml::Value::as_table) {
            let s = |k: &str| clean(core.get(k).and_then(toml::Value::as_str).map(String::from));
            // The newer layered config wins where it says something.
            cfg.user_name = s("user_name").or(cfg.user_name.take());
            cfg.communication_language = s("communication_language").or(cfg.communication_language.take());
            cfg.document_output_language = s("document_output_language").or(cfg.document_output_language.take());
            output = s("output_folder").or(output);
        }
    }
    cfg.problems.extend(problems);
    cfg.output_folder = output.map(|o| resolve_path(&project.root, &o));
    cfg
}
