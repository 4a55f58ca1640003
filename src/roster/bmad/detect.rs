//! Where the BMAD project is: `--bmad DIR`, or a `_bmad/` (older: `.bmad/`
//! or `bmad/`) in the working directory or one of its parents.

use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    /// `{project-root}`.
    pub root: PathBuf,
    /// The `_bmad` (or `.bmad`, `bmad`) folder.
    pub dir: PathBuf,
}

impl Project {
    pub(crate) fn manifest_candidates(&self) -> Vec<PathBuf> {
        vec![
            self.dir.join("_config").join("agent-manifest.csv"),
            self.dir.join("_cfg").join("agent-manifest.csv"),
        ]
    }
}

/// A `bmad/` folder is common enough in unrelated projects that it only
/// counts when it looks like an install.
fn bmad_dir_in(root: &Path) -> Option<PathBuf> {
    for name in ["_bmad", ".bmad"] {
        let d = root.join(name);
        if d.is_dir() {
            return Some(d);
        }
    }
    let d = root.join("bmad");
    let looks_installed = d.join("_cfg").is_dir()
        || d.join("_config").is_dir()
        || d.join("core").join("config.yaml").is_file()
        || d.join("config.toml").is_file();
    (d.is_dir() && looks_installed).then_some(d)
}

/// Finds a project at `start` or above it; `start` may also be the
/// `_bmad` folder itself.
pub fn detect(start: &Path) -> Option<Project> {
    let start = start.canonicalize().unwrap_or_else(|_| start.to_path_buf());
    if let Some(name) = start.file_name().and_then(|n| n.to_str()) {
        if matches!(name, "_bmad" | ".bmad" | "bmad") {
            if let Some(root) = start.parent() {
                if bmad_dir_in(root).as_deref() == Some(start.as_path()) {
                    return Some(Project {
                        root: root.to_path_buf(),
                        dir: start.clone(),
                    });
                }
            }
        }
    }
    let mut cur = Some(start.as_path());
    while let Some(root) = cur {
        if let Some(dir) = bmad_dir_in(root) {
            return Some(Project {
                root: root.to_path_buf(),
                dir,
            });
        }
        cur = root.parent();
    }
    None
}
