//! Why the program stops before a party, typed by what the caller does with
//! it: the exit code tells a script whether to fix a file (2) or not (1).

use crate::engine::documents::DocumentError;
use crate::i18n::{Lang, Printed, Say, Start};
use crate::roster::parties::PartyError;
use crate::session::{LockError, SessionFileError};
use crate::source::SourceError;

#[derive(Debug, thiserror::Error)]
pub(crate) enum StartError {
    /// Located problems in the config, agent or workflow files.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Files(Vec<SourceError>),
    /// A session file that cannot be resumed as written.
    #[error(transparent)]
    Session(#[from] SessionFileError),
    /// The session is open in another bmad-party.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A setting or argument that cannot work (a `--bmad` folder with no
    /// install, a base URL that is not one).
    #[error("{0}")]
    Invalid(Start),
    /// `--bmad` names a project without agents, and what is wrong there.
    #[error("{}", no_agents(.dir, .problems, Lang::En))]
    NoAgents { dir: String, problems: Vec<SourceError> },
    /// `--party` (or the default party) cannot be held.
    #[error(transparent)]
    Party(#[from] PartyError),
    /// A `--context` document that cannot be read.
    #[error("--context {0}")]
    Context(DocumentError),
    /// The model provider cannot be set up.
    #[error("{0}")]
    Provider(crate::llm::Failure),
    /// Understood and refused: nothing left to resume.
    #[error("{0}")]
    Refused(Start),
    /// Understood and refused: resuming a finished session, said in the
    /// session's own language unless `--lang` names one.
    #[error("{file}: {}", Printed::SessionFinished.say(Lang::En))]
    Finished { file: String, lang: Lang },
}

fn no_agents(dir: &str, problems: &[SourceError], lang: Lang) -> String {
    let mut message = Start::NoAgentsFound { dir: dir.to_string() }.say(lang);
    for p in problems {
        message.push_str(&format!("\n{}", p.say(lang)));
    }
    message
}

impl Say for StartError {
    fn say(&self, lang: Lang) -> String {
        match self {
            StartError::Files(e) => e.iter().map(|e| e.say(lang)).collect::<Vec<_>>().join("\n"),
            StartError::Session(e) => e.say(lang),
            StartError::Lock(e) => e.say(lang),
            StartError::Invalid(k) | StartError::Refused(k) => k.say(lang),
            StartError::NoAgents { dir, problems } => no_agents(dir, problems, lang),
            StartError::Party(e) => e.say(lang),
            StartError::Context(e) => format!("--context {}", e.say(lang)),
            StartError::Provider(e) => e.say(lang),
            StartError::Finished { file, lang } => format!("{file}: {}", Printed::SessionFinished.say(*lang)),
        }
    }
}

/// What the process's exit status says, the same in every front end
/// (`frontend::exit` tells which), so a script can tell a party that ended
/// well from one that lost the model or its file. Documented in `--help`,
/// the man page (EXIT STATUS) and the README.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitStatus {
    /// The facilitator, a limit or the room ended the party (or it was left
    /// to resume later) and everything is saved.
    Ended,
    /// Something else stopped the program (the engine gave no last word,
    /// the terminal could not be set up, no takeaways were written).
    Failed,
    /// Bad usage, config, agent or session file: fix the input (clap's own
    /// code for bad arguments, and `StartError`'s).
    Usage,
    /// Stopped because no agent could reach the model; the session is kept
    /// open, to be resumed.
    Unreachable,
    /// The session's end is not on disk: the last save failed.
    NotSaved,
    /// A signal (Ctrl-C, SIGTERM) stopped the party; what was said is saved
    /// and the session can be resumed.
    Interrupted,
}

impl ExitStatus {
    pub(crate) fn code(self) -> u8 {
        match self {
            ExitStatus::Ended => 0,
            ExitStatus::Failed => 1,
            ExitStatus::Usage => 2,
            ExitStatus::Unreachable => 3,
            ExitStatus::NotSaved => 4,
            ExitStatus::Interrupted => 130,
        }
    }
}

impl StartError {
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            StartError::Refused(_) | StartError::Finished { .. } => ExitStatus::Failed.code(),
            StartError::Files(_)
            | StartError::Session(_)
            | StartError::Lock(_)
            | StartError::Invalid(_)
            | StartError::NoAgents { .. }
            | StartError::Party(_)
            | StartError::Context(_)
            | StartError::Provider(_) => ExitStatus::Usage.code(),
        }
    }
}

impl From<SourceError> for StartError {
    fn from(e: SourceError) -> StartError {
        StartError::Files(vec![e])
    }
}

impl From<Vec<SourceError>> for StartError {
    fn from(e: Vec<SourceError>) -> StartError {
        StartError::Files(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_exits_1_and_a_bad_file_2() {
        let dir = "d".to_string();
        assert_eq!(StartError::Refused(Start::NothingToResume { dir: dir.clone() }).exit_code(), 1);
        assert_eq!(StartError::Invalid(Start::NoBmadInstall { dir }).exit_code(), 2);
        let e = SourceError {
            file: "c.yaml".into(),
            line: Some(3),
            column: Some(1),
            key: "max_rounds".into(),
            message: "not a number".into(),
            snippet: None,
        };
        let shown = StartError::from(vec![e.clone(), e]).to_string();
        assert_eq!(shown.lines().count(), 2, "{shown}");
        assert!(shown.starts_with("c.yaml:3:1"), "{shown}");
    }

    #[test]
    fn the_codes_are_distinct_and_usage_is_2() {
        let all = [
            ExitStatus::Ended,
            ExitStatus::Failed,
            ExitStatus::Usage,
            ExitStatus::Unreachable,
            ExitStatus::NotSaved,
            ExitStatus::Interrupted,
        ];
        let codes: std::collections::BTreeSet<u8> = all.iter().map(|s| s.code()).collect();
        assert_eq!(codes.len(), all.len());
        assert_eq!(ExitStatus::Usage.code(), 2);
        assert_eq!(ExitStatus::Ended.code(), 0);
    }
}
