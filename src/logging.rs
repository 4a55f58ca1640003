//! Logging goes to a file (owner-only), never to the terminal the party is
//! drawn on, and never carries the API key (it is not in any logged value).

use std::path::Path;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;

/// Starts logging to `path`; None (and no logging) if the file cannot be made.
pub(crate) fn init(path: &Path) -> Option<WorkerGuard> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).ok()?;
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let file = opts.open(path).ok()?;
    let (writer, guard) = tracing_appender::non_blocking(file);
    // async-openai logs whole payloads at error level; model text in a
    // log is acceptable, but keep its chatter at warn.
    let filter =
        EnvFilter::try_from_env("BMAD_PARTY_LOG").unwrap_or_else(|_| EnvFilter::new("info,async_openai=warn,reqwest=warn,hyper=warn"));
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .ok()?;
    Some(guard)
}
