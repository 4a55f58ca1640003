//! Why the program stops before a party, typed by what the caller does with
//! it: the exit code tells a script whether to fix a file (2) or not (1).

use crate::session::{LockError, SessionFileError};
use crate::source::SourceError;

#[derive(Debug, thiserror::Error)]
pub enum StartError {
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
    Invalid(String),
    /// Understood and refused: resuming a finished session.
    #[error("{0}")]
    Refused(String),
}

impl StartError {
    pub fn exit_code(&self) -> u8 {
        match self {
            StartError::Refused(_) => 1,
            StartError::Files(_) | StartError::Session(_) | StartError::Lock(_) | StartError::Invalid(_) => 2,
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
        assert_eq!(StartError::Refused("finished".into()).exit_code(), 1);
        assert_eq!(StartError::Invalid("no".into()).exit_code(), 2);
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
}
