//! The signals that end a party from outside: either front end stops the
//! engine on them (it saves first), so the session stays resumable.

/// SIGINT, SIGTERM and SIGHUP all mean: stop now, with the state saved.
pub(crate) struct Signals {
    #[cfg(unix)]
    set: Vec<tokio::signal::unix::Signal>,
}

impl Default for Signals {
    fn default() -> Self {
        Signals::new()
    }
}

impl Signals {
    pub(crate) fn new() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let set = [SignalKind::interrupt(), SignalKind::terminate(), SignalKind::hangup()]
                .into_iter()
                .filter_map(|k| signal(k).ok())
                .collect();
            Signals { set }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    pub(crate) async fn next(&mut self) {
        #[cfg(unix)]
        {
            if self.set.is_empty() {
                return std::future::pending().await;
            }
            let futs = self.set.iter_mut().map(|s| Box::pin(s.recv()));
            futures::future::select_all(futs).await;
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
