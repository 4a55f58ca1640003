//! Command-line interface.

use std::path::PathBuf;

use clap::Parser;

use crate::i18n::Lang;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EventFormat {
    /// A readable transcript.
    Text,
    /// One JSON event per line.
    Json,
}

/// A room of AI personas discusses your topic: bounded, saved as it goes, resumable.
///
/// With no API key and no endpoint, the built-in offline rehearsal provider
/// runs (no network). Set OPENAI_API_KEY and/or OPENAI_BASE_URL (or --base-url)
/// to use any OpenAI-compatible endpoint.
#[derive(Debug, Parser)]
#[command(name = "bmad-party", version)]
pub struct Cli {
    /// Configuration file (default: the workflow's config.yaml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Folder with the party-mode workflow files (default: ./workflows/party-mode if present, else built in).
    #[arg(long, value_name = "DIR")]
    pub workflow: Option<PathBuf>,
    /// Folder of agent files *.md (default: ./agents if present, else the built-in room).
    #[arg(long, value_name = "DIR")]
    pub agents: Option<PathBuf>,
    /// Sessions are written to DIR/party-mode/ (default: ./_bmad-output).
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Round limit (overrides the config).
    #[arg(long, value_name = "N")]
    pub max_rounds: Option<u32>,
    /// Active-time limit in minutes (overrides the config; fractions allowed).
    #[arg(long, value_name = "MIN")]
    pub max_minutes: Option<f64>,
    /// Model name (else OPENAI_MODEL, the config, or per agent).
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (else OPENAI_BASE_URL or the config).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Language of the program's own text.
    #[arg(long, value_enum)]
    pub lang: Option<Lang>,
    /// The facilitator's name (default: $USER).
    #[arg(long, value_name = "NAME")]
    pub user_name: Option<String>,
    /// Use the offline rehearsal provider even if an endpoint is configured.
    #[arg(long)]
    pub rehearsal: bool,
    /// A BMAD project (its folder or its `_bmad/`); default: a `_bmad/` found here or above.
    #[arg(long, value_name = "DIR")]
    pub bmad: Option<PathBuf>,
    /// Print the roster that would be used (and any problems with it), then exit.
    #[arg(long)]
    pub list_agents: bool,
    /// Continue a saved session.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// Read facilitator messages from stdin, write the transcript or events to stdout.
    #[arg(long)]
    pub headless: bool,
    /// Output of --headless.
    #[arg(long, value_enum, default_value = "text")]
    pub events: EventFormat,
    /// Write the log to FILE (default: <output>/party-mode/bmad-party.log).
    #[arg(long, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
}
