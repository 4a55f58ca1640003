//! The checks a config file's values pass, each problem located (file,
//! line, column, key): shared by every section's reader (`load.rs`,
//! `endpoints.rs`, `parties.rs`), so none of them reaches into another.

use serde_saphyr::Spanned;

use crate::i18n::Problem;
use crate::source::SourceError;

pub(super) struct Checker<'a> {
    pub(super) file: &'a str,
    errors: Vec<SourceError>,
}

impl Checker<'_> {
    pub(super) fn fail_at<T>(&mut self, key: &str, at: Option<&Spanned<T>>, message: Problem) {
        self.errors.push(SourceError {
            file: self.file.to_string(),
            line: at.map(|s| s.referenced.line()),
            column: at.map(|s| s.referenced.column()),
            key: key.to_string(),
            message: Box::new(message),
            snippet: None,
        });
    }
}

impl<'a> Checker<'a> {
    pub(super) fn new(file: &'a str) -> Checker<'a> {
        Checker { file, errors: Vec::new() }
    }

    /// The first problem found, if any: the one reported.
    pub(super) fn first(self) -> Option<SourceError> {
        self.errors.into_iter().next()
    }
}

impl Checker<'_> {
    pub(super) fn at_least<T: PartialOrd + std::fmt::Display, U>(&mut self, key: &str, at: Option<&Spanned<U>>, value: T, min: T) {
        if value < min {
            self.fail_at(key, at, Problem::AtLeast { min: min.to_string() });
        }
    }

    pub(super) fn between_0_and_1<U>(&mut self, key: &str, at: Option<&Spanned<U>>, value: f64) {
        if !(0.0..=1.0).contains(&value) {
            self.fail_at(key, at, Problem::Between0And1);
        }
    }

    pub(super) fn not_empty<U>(&mut self, key: &str, at: Option<&Spanned<U>>, value: &str) {
        if value.trim().is_empty() {
            self.fail_at(key, at, Problem::NotEmpty);
        }
    }
}
