//! The roster: who is in the room. The program's own agent files
//! (`agents`), a BMAD project's install of any generation (`bmad`), the
//! standing casts (`parties`). Which of them a run uses is start-up's
//! choice (`setup::room`).

pub mod agents;
pub mod bmad;
pub(crate) mod cards;
pub mod parties;

pub use agents::Agent;

use crate::i18n::{Lang, Printed, Say, Start};
use crate::source::SourceError;

/// The room and where it came from, plus what a BMAD project says about
/// the facilitator and the languages.
pub(crate) struct Roster {
    pub agents: Vec<Agent>,
    pub source: String,
    pub problems: Vec<SourceError>,
    pub project: Option<bmad::ProjectConfig>,
    /// A notice for the facilitator (e.g. a BMAD project with no roster).
    pub notice: Option<Start>,
    /// What a BMAD project's party mode defines: its groups, its default
    /// party, its memory settings.
    pub parties: parties::Parties,
    /// Members that join parties only, not the default room (a BMAD
    /// project's new custom members).
    pub extra: Vec<Agent>,
}

impl Roster {
    /// Every agent a party may name: the room, then the party-only members.
    pub(crate) fn pool(&self) -> Vec<Agent> {
        self.agents.iter().chain(&self.extra).cloned().collect()
    }

    /// Every agent as a party in `lang` sees it (`Agent::in_language`).
    pub(crate) fn in_language(&mut self, lang: Lang) {
        for a in self.agents.iter_mut().chain(self.extra.iter_mut()) {
            *a = a.in_language(lang);
        }
    }
}

/// `--list-agents`: the roster, where each agent came from, and problems.
/// `via`: what to say after each agent (the endpoint it speaks through), by
/// its place in `room.agents`; empty for nothing.
pub(crate) fn list_agents(room: &Roster, lang: Lang, via: &[String]) -> String {
    use unicode_width::UnicodeWidthStr;
    let (n, source) = (room.agents.len(), &room.source);
    let mut out = format!("{}\n", Printed::AgentsFrom { n, source }.say(lang));
    let name_w = room.agents.iter().map(|a| a.name.width()).max().unwrap_or(4).min(24);
    let title_w = room.agents.iter().map(|a| a.title.width()).max().unwrap_or(5).min(32);
    for (i, a) in room.agents.iter().enumerate() {
        let icon = if a.icon.is_empty() { "  ".to_string() } else { a.icon.clone() };
        let pad = |s: &str, w: usize| format!("{s}{}", " ".repeat(w.saturating_sub(s.width())));
        let aliases = if a.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also {})", a.aliases.join(", "))
        };
        out.push_str(&format!(
            "  {} {}  {}  @{}{}{}  — {}\n",
            pad(&icon, 2),
            pad(&a.name, name_w),
            pad(&a.title, title_w),
            a.id,
            aliases,
            via.get(i).map_or("", String::as_str),
            a.source
        ));
    }
    if !room.extra.is_empty() {
        let n = room.extra.len();
        out.push_str(&format!("{}\n", Printed::AlsoInPool { n }.say(lang)));
        for a in &room.extra {
            out.push_str(&format!("  {} {}  {}  @{}  — {}\n", a.icon, a.name, a.title, a.id, a.source));
        }
    }
    if let Some(n) = &room.notice {
        out.push_str(&format!("\n{}\n", n.say(lang)));
    }
    if !room.problems.is_empty() {
        let n = room.problems.len();
        out.push_str(&format!("\n{}\n", Printed::ProblemCount { n }.say(lang)));
        for p in &room.problems {
            out.push_str(&format!("  {}\n", p.say(lang)));
        }
    }
    out
}
