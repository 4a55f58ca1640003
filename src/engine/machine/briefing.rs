//! What the room is given beside its rules, at the front of every
//! speaker's system prompt (before the rules: a small model keeps to the
//! form it read last): a named party's scene, the brief of what the party
//! remembers, and the documents put in front of it — each bounded by the
//! context budget, fitted again only when the budget or the documents
//! change (so the system prompt stays the same, cached front of every
//! call). And `/context PATH`, which puts one more document there.

use super::party::Party;
use super::Room;
use crate::engine::documents::{self, fitted, shares};
use crate::engine::memory::brief;
use crate::engine::{Event, NoticeKind};
use crate::i18n::Say;

/// The most of a prompt the memory brief takes: an eighth, at most this.
const MEMORY_TOKENS: u32 = 350;
/// The share of a prompt the documents may take, in percent.
const DOCUMENTS_PERCENT: u32 = 35;

impl Party {
    /// The scene, the memory brief and the documents as they go before the
    /// room's rules ("" when there are none).
    /// Fitted to the budget of `endpoint`'s server.
    pub(super) fn briefing(&mut self, endpoint: Option<&str>) -> String {
        let budget = self.room.budget_of(endpoint);
        let key = (budget.window, budget.ratio.to_bits());
        let name = endpoint.unwrap_or_default();
        if let Some((k, text)) = self.context.briefing.get(name) {
            if *k == key {
                return text.clone();
            }
        }
        let text = self.room.fit_briefing(endpoint);
        self.context.briefing.insert(name.to_string(), (key, text.clone()));
        text
    }

    /// The briefing's own words — the scene, the memory's and the
    /// documents' framing, the cut note — for reply hygiene: a sentence
    /// that reads them back (narrates the scene, repeats "never mention
    /// notes") is no answer. What the memory and the documents hold may be
    /// quoted.
    pub(super) fn briefing_frames(&self) -> Vec<String> {
        let mut out: Vec<String> = self.room.scene().into_iter().collect();
        if self.room.memory.as_ref().is_some_and(|m| !m.entries.is_empty()) {
            out.push(self.render("memory_brief", &[("user_name", &self.room.user_name), ("entries", "")]));
        }
        if !self.room.documents.is_empty() {
            out.push(self.render("documents", &[("documents", "")]));
            out.push(self.render("document_cut", &[("percent", "")]));
        }
        out
    }

    /// `/context PATH`: the document joins the room from the next call on,
    /// and the session file names it for a resume.
    pub(super) async fn attach(&mut self, path: &str) {
        let Some(text) = self.room.attach(path) else { return };
        for d in &self.room.documents {
            let shown = d.path.display().to_string();
            if !self.session.fm.context.contains(&shown) {
                self.session.fm.context.push(shown);
            }
        }
        self.context.briefing.clear();
        self.notice(NoticeKind::Info, text).await;
    }
}

impl Room {
    /// A named party's scene, as every member is given it.
    pub(super) fn scene(&self) -> Option<String> {
        let p = self.party.as_ref()?;
        let scene = p.scene.as_ref()?;
        Some(self.render("party_scene", &[("party", &p.name), ("scene", scene)]))
    }

    /// The briefing fitted to the budget of `endpoint`'s server: the same
    /// text for the same budget and documents (`Party::briefing` keeps it).
    pub(super) fn fit_briefing(&self, endpoint: Option<&str>) -> String {
        let budget = self.budget_of(endpoint);
        let limit = budget.prompt_limit();
        let mut parts: Vec<String> = self.scene().into_iter().collect();
        if let Some(m) = self.memory.as_ref() {
            let lines = brief(&m.entries, MEMORY_TOKENS.min(limit / 8), &self.agents);
            if !lines.is_empty() {
                let entries = lines.join("\n");
                parts.push(self.render("memory_brief", &[("user_name", &self.user_name), ("entries", &entries)]));
            }
        }
        let docs = &self.documents;
        if !docs.is_empty() {
            // Each document's frame (its name twice) comes out of its share.
            let frame = |d: &documents::Document| budget.cost(&self.render("document", &[("name", &d.name), ("text", "")]));
            let needs: Vec<u32> = docs.iter().map(|d| budget.cost(&d.text) + frame(d)).collect();
            let total = limit * DOCUMENTS_PERCENT / 100;
            let shares = shares(&needs, total);
            let rendered: Vec<String> = docs
                .iter()
                .zip(shares)
                .map(|(d, share)| {
                    // The budget's scale turns estimates into the server's
                    // counts; the cut works in estimates.
                    let room = budget.unscale(share.saturating_sub(frame(d)));
                    let text = fitted(d, room, |percent| self.render("document_cut", &[("percent", &percent.to_string())]));
                    self.render("document", &[("name", &d.name), ("text", &text)])
                })
                .collect();
            parts.push(self.render("documents", &[("documents", &rendered.join("\n\n"))]));
        }
        parts.join("\n\n")
    }

    /// Reads the document `/context` names into the room: the notice that
    /// says so, or None when it was refused (the front ends were told why).
    pub(super) fn attach(&mut self, path: &str) -> Option<String> {
        let path = path.trim().trim_matches(['"', '\'']);
        if path.is_empty() {
            self.emit(Event::Rejected {
                message: crate::i18n::Room::ContextNeedsFile.say(self.lang),
            });
            return None;
        }
        let doc = match documents::read(std::path::Path::new(path)) {
            Ok(d) => d,
            Err(e) => {
                self.emit(Event::Rejected { message: e.say(self.lang) });
                return None;
            }
        };
        self.documents.retain(|d| d.path != doc.path);
        let (name, words) = (doc.name.clone(), doc.text.split_whitespace().count());
        self.documents.push(doc);
        Some(crate::i18n::Room::DocumentInFront { name: &name, words }.say(self.lang))
    }
}

/// The path of a `/context PATH` message.
pub(super) fn context_command(text: &str) -> Option<&str> {
    text.strip_prefix("/context")
        .filter(|r| r.is_empty() || r.starts_with(char::is_whitespace))
}
