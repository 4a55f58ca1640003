//! Keepsakes of a session: one self-contained HTML page laid out by
//! persona (`html`), or a clean Markdown transcript (`markdown`). Both are
//! made from the session file alone — the cast it saved, its turns and its
//! decisions — so a session exports the same wherever it is read.

pub(crate) mod html;
pub(crate) mod markdown;

use std::path::{Path, PathBuf};

use crate::i18n::{Lang, Record, Say, Start};
use crate::session::{CastMember, ConfirmKind, ConfirmStatus, ConfirmationRecord, Session, SessionFileError, Turn, TurnKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Html,
    Markdown,
}

impl Format {
    /// Where a keepsake of `session` goes unless told: beside it, same stem
    /// (`…/2026-11-24-plugins.md` → `….html`, `….transcript.md`).
    pub(crate) fn default_path(self, session: &Path) -> PathBuf {
        let suffix = match self {
            Format::Html => "html",
            Format::Markdown => "transcript.md",
        };
        crate::session::beside(session, suffix)
    }
}

/// Reads the session at `session`, writes its keepsake to `out` (default:
/// beside it) and returns where. `roster` is asked only when the file names
/// an agent its saved cast lacks, for its agents in the session's language.
/// Messages name the file and the cause.
pub fn export(
    session: &Path,
    format: Format,
    out: Option<&Path>,
    roster: impl FnOnce(Lang) -> Vec<CastMember>,
) -> Result<PathBuf, ExportError> {
    let s = crate::session::load(session)?;
    let named =
        s.fm.agents
            .iter()
            .map(String::as_str)
            .chain(s.turns.iter().filter_map(|t| t.agent.as_deref()));
    let lacking = named.into_iter().any(|id| !s.fm.cast.iter().any(|c| c.id == id));
    let roster = if lacking { roster(s.fm.lang) } else { Vec::new() };
    let k = Keepsake::new(&s, &roster);
    let text = match format {
        Format::Html => html::page(&k),
        Format::Markdown => markdown::transcript(&k),
    };
    let path = out.map(Path::to_path_buf).unwrap_or_else(|| format.default_path(session));
    if path == session {
        return Err(ExportError::OverSession { path });
    }
    if let Err(source) = crate::session::store_write(&path, &[text.as_bytes()], crate::session::Folder::MayBeNew) {
        return Err(ExportError::Write { path, source });
    }
    Ok(path)
}

/// Why no keepsake was written; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Session(#[from] SessionFileError),
    /// `-o` names the session file itself.
    #[error("{}", over_session(.path).say(Lang::En))]
    OverSession { path: PathBuf },
    #[error("{}: {source}", .path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

fn over_session(path: &Path) -> Start {
    Start::KeepsakeOverSession {
        path: path.display().to_string(),
    }
}

impl Say for ExportError {
    fn say(&self, lang: Lang) -> String {
        match self {
            ExportError::Session(e) => e.say(lang),
            ExportError::OverSession { path } => over_session(path).say(lang),
            ExportError::Write { .. } => self.to_string(),
        }
    }
}

/// A voice and its figures as the facts show them:
/// `qwen2.5 (6 replies · 1.2 s · 40 tok/s · 3.1k tok)`.
fn voice_line(label: &str, figures: &str) -> String {
    if figures.is_empty() {
        label.to_string()
    } else {
        format!("{label} ({figures})")
    }
}

/// A persona of the keepsake: who they were and how often they spoke.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Persona {
    pub who: CastMember,
    pub turns: usize,
    /// The model(s) it spoke with, in a session of more than one
    /// (`Keepsake::voice`); several when it was moved between them.
    pub voice: Option<String>,
}

/// One part of the page: a round, or the ending (farewells, highlights).
#[derive(Debug, PartialEq)]
pub(crate) struct Section<'a> {
    /// None for the ending.
    pub round: Option<u32>,
    pub items: Vec<Item<'a>>,
}

#[derive(Debug, PartialEq)]
pub(crate) enum Item<'a> {
    Turn(&'a Turn),
    /// A question put to the facilitator and its answer (an end proposal, a limit).
    Decision(&'a ConfirmationRecord),
}

/// What an export shows of a session, in the order it happened.
pub(crate) struct Keepsake<'a> {
    pub session: &'a Session,
    /// Everyone who spoke, in the order they first did, then the silent.
    pub cast: Vec<Persona>,
    pub sections: Vec<Section<'a>>,
    /// What tells the voices apart: each (endpoint, model) the replies
    /// recorded and its label; empty in a session of one.
    voices: Vec<(Option<&'a str>, &'a str, String)>,
}

/// Each (endpoint, model) the session's turns record, in the order they
/// first do, with its label (`config::voice_labels`); empty when they are
/// one (or a file written before turns recorded them).
fn voices(session: &Session) -> Vec<(Option<&str>, &str, String)> {
    let mut seen: Vec<(Option<&str>, &str)> = Vec::new();
    for t in &session.turns {
        if let Some(model) = t.model.as_deref() {
            let pair = (t.endpoint.as_deref(), model);
            if !seen.contains(&pair) {
                seen.push(pair);
            }
        }
    }
    let labels = crate::config::voice_labels(&seen);
    seen.into_iter().zip(labels).filter_map(|((e, m), l)| Some((e, m, l?))).collect()
}

impl<'a> Keepsake<'a> {
    /// `roster` names agents the session's own cast lacks (a file written
    /// before the cast was saved); an agent known to neither is shown by
    /// its label.
    pub(crate) fn new(session: &'a Session, roster: &[CastMember]) -> Keepsake<'a> {
        let mut cast: Vec<Persona> = Vec::new();
        // What an agent said counts; a failed turn of its is no word of its own.
        let said = |t: &&Turn| matches!(t.kind, TurnKind::Agent | TurnKind::Farewell | TurnKind::Question);
        let spoke = session
            .turns
            .iter()
            .filter(said)
            .filter_map(|t| t.agent.as_deref().map(|id| (id, t)));
        for (id, t) in spoke {
            match cast.iter_mut().find(|p| p.who.id == id) {
                Some(p) => p.turns += 1,
                None => cast.push(Persona {
                    who: member(session, roster, id, &t.label),
                    turns: 1,
                    voice: None,
                }),
            }
        }
        for id in &session.fm.agents {
            if !cast.iter().any(|p| &p.who.id == id) {
                cast.push(Persona {
                    who: member(session, roster, id, ""),
                    turns: 0,
                    voice: None,
                });
            }
        }
        let mut k = Keepsake {
            session,
            cast,
            sections: sections(session),
            voices: voices(session),
        };
        let spoken: Vec<Option<String>> = k.cast.iter().map(|p| k.voices_of(&p.who.id)).collect();
        for (p, voice) in k.cast.iter_mut().zip(spoken) {
            p.voice = voice;
        }
        k
    }

    /// The model a turn was spoken with, in a session of more than one.
    pub(crate) fn voice(&self, t: &Turn) -> Option<&str> {
        let (endpoint, model) = (t.endpoint.as_deref(), t.model.as_deref()?);
        let found = self.voices.iter().find(|(e, m, _)| *e == endpoint && *m == model);
        found.map(|(_, _, label)| label.as_str())
    }

    /// Every model an agent's turns were spoken with, in the order it first
    /// spoke with each; None in a session of one.
    fn voices_of(&self, id: &str) -> Option<String> {
        let mut labels: Vec<&str> = Vec::new();
        let theirs = self.session.turns.iter().filter(|t| t.agent.as_deref() == Some(id));
        for label in theirs.filter_map(|t| self.voice(t)) {
            if !labels.contains(&label) {
                labels.push(label);
            }
        }
        (!labels.is_empty()).then(|| labels.join(", "))
    }

    /// Each voice of a session of more than one with its figures — how many
    /// replies, the median first token, the writing speed, and its
    /// endpoint's tokens where the endpoint had that voice alone —, in the
    /// order they first spoke; empty in a session of one.
    pub(crate) fn voice_figures(&self) -> Vec<(String, String)> {
        let state = &self.session.fm.conversation_state;
        let one_voice = |e: Option<&str>| self.voices.iter().filter(|(v, _, _)| *v == e).count() == 1;
        let mut out = Vec::new();
        for (endpoint, model, label) in &self.voices {
            let theirs = self
                .session
                .turns
                .iter()
                .filter(|t| t.endpoint.as_deref() == *endpoint && t.model.as_deref() == Some(*model));
            let mut summary = Vec::new();
            if let Some(f) = crate::session::figures::figures(theirs.filter_map(|t| t.latency.as_ref())) {
                summary.push(Record::Replies { n: f.replies }.say(self.lang()));
                summary.push(f.summary());
            }
            let name = endpoint.unwrap_or(crate::config::DEFAULT_ENDPOINT);
            if let Some(t) = state.endpoint_tokens.get(name).filter(|_| one_voice(*endpoint)) {
                summary.push(format!("{} tok", crate::text::short_count(t.prompt + t.completion)));
            }
            out.push((label.clone(), summary.join(" · ")));
        }
        out
    }

    pub(crate) fn persona(&self, id: &str) -> Option<&Persona> {
        self.cast.iter().find(|p| p.who.id == id)
    }

    /// The colour slot of an agent: its place in the cast, for agents that
    /// name no colour of their own.
    pub(crate) fn slot(&self, id: &str) -> usize {
        self.cast.iter().position(|p| p.who.id == id).unwrap_or(0)
    }

    pub(crate) fn lang(&self) -> Lang {
        self.session.fm.lang
    }

    pub(crate) fn rounds(&self) -> u32 {
        self.session.fm.conversation_state.current_round
    }

    /// What ended the party ("the round limit", "an agent's proposal,
    /// confirmed"…) in the session's language; None while it can go on.
    pub(crate) fn ending(&self) -> Option<String> {
        let lang = self.lang();
        let reason = self.session.fm.conversation_state.exit_reason.as_deref()?;
        Some(match reason {
            "user_requested" => Record::EndedByFacilitator.say(lang),
            "round_limit" => Record::EndedByRoundLimit.say(lang),
            "time_limit" => Record::EndedByTimeLimit.say(lang),
            "agent_proposed" => Record::EndedByProposal.say(lang),
            "facilitator_left" => Record::EndedByLeaving.say(lang),
            "unreachable" => Record::EndedByUnreachable.say(lang),
            "consensus" => Record::EndedByConsensus.say(lang),
            "silence" => Record::EndedBySilence.say(lang),
            _ => return None,
        })
    }

    /// How long the party was open, e.g. "12 min".
    pub(crate) fn duration(&self) -> String {
        let s = self.session.fm.conversation_state.active_seconds;
        if s < 60 {
            format!("{s} s")
        } else {
            format!("{} min", (s + 30) / 60)
        }
    }

    /// A decision in a sentence: what was asked and how it was answered.
    pub(crate) fn decision(&self, c: &ConfirmationRecord) -> String {
        let lang = self.lang();
        let name = c
            .agent
            .as_deref()
            .map(|id| self.persona(id).map_or(id.to_string(), |p| p.who.name.clone()))
            .unwrap_or_default();
        let asked = match c.kind {
            ConfirmKind::EndProposal => Record::AskedProposal { name: &name }.say(lang),
            ConfirmKind::RoundLimit => Record::AskedRoundLimit.say(lang),
            ConfirmKind::TimeLimit => Record::AskedTimeLimit.say(lang),
            ConfirmKind::Consensus => Record::AskedConsensus.say(lang),
            ConfirmKind::Silence => Record::AskedSilence.say(lang),
            ConfirmKind::TurnReset => Record::AskedFreshStart.say(lang),
            ConfirmKind::BudgetExhausted => Record::AskedBudgetSpent.say(lang),
        };
        let ends = matches!(
            c.kind,
            ConfirmKind::EndProposal | ConfirmKind::RoundLimit | ConfirmKind::TimeLimit | ConfirmKind::Consensus | ConfirmKind::Silence
        );
        let answer = match (c.status, ends, c.kind) {
            (ConfirmStatus::Confirmed, true, _) => Record::AnswerEnded.say(lang),
            (ConfirmStatus::Rejected, true, _) => Record::AnswerKeptGoing.say(lang),
            (ConfirmStatus::Confirmed, false, ConfirmKind::TurnReset) => Record::AnswerStartedAfresh.say(lang),
            (ConfirmStatus::Rejected, false, ConfirmKind::TurnReset) => Record::AnswerWentOn.say(lang),
            (ConfirmStatus::Confirmed, false, _) => Record::AnswerPushedOn.say(lang),
            (ConfirmStatus::Rejected, false, _) => Record::AnswerPushesPaused.say(lang),
            (ConfirmStatus::Pending, ..) => Record::AnswerPending.say(lang),
            (ConfirmStatus::Expired, ..) => Record::AnswerExpired.say(lang),
        };
        let mut text = format!("{asked} — {answer}");
        if let Some(r) = c.reason.as_deref().filter(|r| !r.trim().is_empty()) {
            text.push_str(&format!(" (“{}”)", r.trim()));
        }
        text
    }
}

/// "Round 3" / "第 3 轮".
pub(crate) fn round_title(lang: Lang, round: u32) -> String {
    Record::RoundTitle { round }.say(lang)
}

/// The heading of the farewells and highlights.
pub(crate) fn ending_title(lang: Lang) -> String {
    Record::WrappingUp.say(lang)
}

/// The cast member `id`: as the session saved it, else as the roster knows
/// it, else made from the label the transcript shows (`🏗️ Ingrid`).
fn member(session: &Session, roster: &[CastMember], id: &str, label: &str) -> CastMember {
    if let Some(c) = session.fm.cast.iter().chain(roster).find(|c| c.id == id) {
        return c.clone();
    }
    let (icon, name) = match label.split_once(' ') {
        Some((first, rest)) if !first.chars().any(char::is_alphanumeric) => (first, rest),
        _ => ("", label),
    };
    CastMember {
        id: id.to_string(),
        name: if name.is_empty() { id.to_string() } else { name.to_string() },
        title: String::new(),
        icon: icon.to_string(),
        color: None,
    }
}

/// The turns by round, the ending apart, each decision placed after the
/// turns that came before it was asked.
fn sections(session: &Session) -> Vec<Section<'_>> {
    let mut decisions: Vec<&ConfirmationRecord> = session.fm.confirmations.iter().collect();
    decisions.sort_by_key(|c| c.asked_at);
    let mut decisions = decisions.into_iter().peekable();
    let mut out: Vec<Section> = Vec::new();
    let mut ending = false;
    for t in &session.turns {
        while let Some(c) = decisions.next_if(|c| c.asked_at < t.at) {
            let round = current(&out, t, ending);
            push(&mut out, round, Item::Decision(c));
        }
        ending |= matches!(t.kind, TurnKind::Farewell | TurnKind::Highlights | TurnKind::Closing);
        let round = if ending { None } else { Some(t.round) };
        push(&mut out, round, Item::Turn(t));
    }
    for c in decisions {
        let round = out.last().and_then(|s| s.round);
        push(&mut out, round, Item::Decision(c));
    }
    out
}

/// The section a decision asked before `next` belongs to: the one open.
fn current(out: &[Section], next: &Turn, ending: bool) -> Option<u32> {
    match out.last() {
        Some(s) => s.round,
        None if ending => None,
        None => Some(next.round),
    }
}

fn push<'a>(out: &mut Vec<Section<'a>>, round: Option<u32>, item: Item<'a>) {
    match out.last_mut() {
        Some(s) if s.round == round => s.items.push(item),
        _ => out.push(Section { round, items: vec![item] }),
    }
}

#[cfg(test)]
mod tests;
