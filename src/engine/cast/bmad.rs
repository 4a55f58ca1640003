//! Saving a reviewed cast into a BMAD project, in its party mode's own
//! customization format: each persona a `[[workflow.party_members]]`
//! entry and the cast a `[[workflow.party_groups]]` entry, appended to
//! `_bmad/custom/bmad-party-mode.user.toml` (personal, BMAD's default) or
//! `bmad-party-mode.toml` (the team's). BMAD's `resolve_party.py` and this
//! program's loader (`roster::bmad::party_mode`) read them back. The file
//! is appended to, its own text and comments kept, and written only when
//! the whole of it still reads as TOML with the new group in it.

use std::path::{Path, PathBuf};

use super::save::{plan_names, Saved};
use super::{Draft, Persona};

/// Which of the project's party-mode files a cast goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layer {
    /// `bmad-party-mode.user.toml`: the facilitator's own.
    Personal,
    /// `bmad-party-mode.toml`: shared with the team.
    Team,
}

/// The file a layer is, in the project's `_bmad` folder.
pub(crate) fn file(bmad_dir: &Path, layer: Layer) -> PathBuf {
    let name = match layer {
        Layer::Personal => "bmad-party-mode.user.toml",
        Layer::Team => "bmad-party-mode.toml",
    };
    bmad_dir.join("custom").join(name)
}

fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A persona as BMAD's one `persona` paragraph: how they talk first (the
/// loader takes the first sentence as the style), then who they are,
/// their stake and what they hold to.
fn persona_text(p: &Persona) -> String {
    let sentence = |s: &str| {
        let s = s.trim();
        if s.ends_with(['.', '!', '?', '。', '！', '？']) {
            s.to_string()
        } else {
            format!("{s}.")
        }
    };
    let mut out = vec![sentence(&p.communication_style), sentence(&p.identity), sentence(&p.role)];
    if !p.principles.is_empty() {
        out.push(sentence(&p.principles.join("; ")));
    }
    out.join(" ")
}

/// The entries appended for a cast: its members, then its group.
fn entries(draft: &Draft, saved: &Saved, topic: &str) -> String {
    let mut out = format!("\n# Drafted by `bmad-party cast` for: {}\n", topic.replace('\n', " "));
    for (p, (id, name)) in draft.personas.iter().zip(&saved.agents) {
        out.push_str(&format!(
            "[[workflow.party_members]]\ncode = {}\nname = {}\nicon = {}\ntitle = {}\npersona = {}\n\n",
            quoted(id),
            quoted(name),
            quoted(&p.icon),
            quoted(&p.title),
            quoted(&persona_text(p)),
        ));
    }
    let members: Vec<String> = saved.agents.iter().map(|(id, _)| quoted(id)).collect();
    out.push_str(&format!(
        "[[workflow.party_groups]]\nid = {}\nname = {}\n",
        quoted(&saved.party.id),
        quoted(&saved.party.name)
    ));
    if let Some(scene) = &saved.party.scene {
        out.push_str(&format!("scene = {}\n", quoted(scene)));
    }
    out.push_str(&format!("members = [{}]\nmemory = true\n", members.join(", ")));
    out
}

/// Appends the cast to the project's `layer` file. Names and ids clash
/// with nothing the program has (`taken`); nothing is written when the
/// file would not read back.
pub(crate) fn save(draft: &Draft, topic: &str, bmad_dir: &Path, layer: Layer, taken: &super::save::Target) -> Result<Saved, String> {
    let path = file(bmad_dir, layer);
    let mut saved = plan_names(draft, taken);
    saved.party.source = path.display().to_string();
    saved.files = vec![path.clone()];
    let mut text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&entries(draft, &saved, topic));
    let parsed: toml::Table = toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.message()))?;
    let has_group = parsed
        .get("workflow")
        .and_then(|w| w.get("party_groups"))
        .and_then(toml::Value::as_array)
        .is_some_and(|g| g.iter().any(|g| g.get("id").and_then(toml::Value::as_str) == Some(&saved.party.id)));
    if !has_group {
        return Err(format!("{}: the appended group would not read back", path.display()));
    }
    let staged = path.with_file_name(format!(".{}.cast-tmp", path.file_name().unwrap_or_default().to_string_lossy()));
    path.parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&staged, &text))
        .and_then(|()| std::fs::rename(&staged, &path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&staged);
            format!("{}: {e}", path.display())
        })?;
    Ok(saved)
}

#[cfg(test)]
#[path = "bmad_tests.rs"]
mod tests;
