//! The facilitator's own defaults: `config.yaml` in the platform's config
//! folder (`$XDG_CONFIG_HOME/bmad-party/` or `~/.config/bmad-party/` on
//! Linux, found by the `dirs` crate). It sits between the built-in defaults
//! and a project's config: a project's file (or `--config`) overrides it
//! key by key.

use std::path::{Path, PathBuf};

use crate::i18n::{Lang, Say, Start};

/// The commented starter `bmad-party init` writes: every line a comment,
/// so it changes nothing until one is uncommented. Never a key.
pub(crate) const STARTER: &str = include_str!("starter.yaml");

/// Where the user's config lives, if the platform has a config folder.
pub(crate) fn path() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("bmad-party").join("config.yaml"))
}

/// The folder of the user's own agents beside the config (`agents/`):
/// imported cards land there; its agents join the pool (`/invite`, a
/// party's members), not the default room.
pub(crate) fn agents_dir() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("bmad-party").join("agents"))
}

/// The folder of the user's own parties beside the config (`parties/`):
/// one `ID.yaml` per party, what `cast` saves; they join the config's.
pub(crate) fn parties_dir() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("bmad-party").join("parties"))
}

/// The user's config file when there is one.
pub(crate) fn existing() -> Option<PathBuf> {
    path().filter(|p| p.is_file())
}

/// Writes the starter to [`path`]. A file already there is kept unless
/// `force`, and then moved to `config.yaml.bak` first.
pub(crate) fn init(force: bool) -> Result<PathBuf, InitError> {
    let path = path().ok_or(InitError::Refused(Start::NoConfigFolder))?;
    let io = |at: &Path| {
        let path = at.to_path_buf();
        move |source: std::io::Error| InitError::Io { path, source }
    };
    if path.exists() {
        if !force {
            return Err(InitError::Refused(Start::ConfigThere {
                shown: path.display().to_string(),
            }));
        }
        std::fs::rename(&path, path.with_extension("yaml.bak")).map_err(io(&path))?;
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    std::fs::write(&path, STARTER).map_err(io(&path))?;
    Ok(path)
}

/// Why `init` wrote no starter.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InitError {
    /// No place for it, or a config already there.
    #[error("{0}")]
    Refused(Start),
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: std::io::Error },
}

impl Say for InitError {
    fn say(&self, lang: Lang) -> String {
        match self {
            InitError::Refused(k) => k.say(lang),
            InitError::Io { .. } => self.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{Config, Overrides};

    #[test]
    fn the_starter_changes_nothing_until_a_line_is_uncommented() {
        let c = Config::parse(super::STARTER, "config.yaml", &Overrides::default()).unwrap();
        assert_eq!(c, Config::default());
        assert!(!super::STARTER.to_ascii_lowercase().contains("sk-"), "never a key");
    }

    #[test]
    fn every_starter_line_parses_when_uncommented() {
        // Uncommenting the whole starter gives a valid file: what it
        // suggests is spelled as the program reads it.
        let open: String = super::STARTER
            .lines()
            .filter(|l| !l.trim_start().starts_with("##"))
            .map(|l| l.replacen("# ", "", 1))
            .collect::<Vec<_>>()
            .join("\n");
        let c = Config::parse(&open, "config.yaml", &Overrides::default()).unwrap_or_else(|e| panic!("{e}\n{open}"));
        assert_eq!(c.party.user_name.as_deref(), Some("Ada"));
        assert_eq!(c.llm.base_url.as_deref(), Some("http://localhost:11434/v1"));
    }
}
