//! Each endpoint's reply cleanup (`engine::cleanup::level`): chosen at
//! start from the config and what is known of its model, chosen again once
//! its server says which model it has and how large, raised to full for the
//! session when a reply at the light level slips (speaks as another, gives
//! back the runtime's note). Told to the front ends, recorded in the
//! session file; a raised level survives `--resume`.

use super::party::Party;
use super::Room;
use crate::engine::cleanup::{choose_level, Level, ModelFacts, Why};
use crate::engine::{EndpointCleanup, Event, NoticeKind};
use crate::i18n::{Lang, Room as Words, Say};
use crate::llm::{EndpointCheck, Provider};
use crate::session::CleanupRecord;

/// An endpoint's level and why it is so.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Chosen {
    pub(super) level: Level,
    pub(super) why: Why,
}

/// The level `setting` gives an endpoint on `provider`, by what is known
/// before its server answers (its model's name, its address).
pub(super) fn at_start(setting: crate::config::CleanupLevel, provider: &dyn Provider) -> Chosen {
    let info = provider.info();
    let facts = ModelFacts {
        model: &info.model,
        base_url: info.base_url.as_deref(),
        server_size: None,
        rehearsal: info.rehearsal,
    };
    let (level, why) = choose_level(setting, &facts);
    Chosen { level, why }
}

/// How `why` is said.
fn why_words(why: Why, lang: Lang) -> String {
    let b = |n: f64| {
        let s = format!("{n:.1}");
        s.trim_end_matches(".0").to_string()
    };
    match why {
        Why::Configured => Words::CleanupByConfig.say(lang),
        Why::ServerSize { billions } => Words::CleanupByServerSize { billions: &b(billions) }.say(lang),
        Why::NameSize { billions } => Words::CleanupByNameSize { billions: &b(billions) }.say(lang),
        Why::Local => Words::CleanupByLocal.say(lang),
        Why::Hosted => Words::CleanupByHosted.say(lang),
        Why::Rehearsal => Words::CleanupByRehearsal.say(lang),
        Why::Raised => Words::CleanupByRaised.say(lang),
    }
}

/// The session file's record of `chosen`.
fn record(chosen: Chosen, round: Option<u32>) -> CleanupRecord {
    let (by, billions) = match chosen.why {
        Why::Configured => ("configured", None),
        Why::ServerSize { billions } => ("server_size", Some(billions)),
        Why::NameSize { billions } => ("name_size", Some(billions)),
        Why::Local => ("local", None),
        Why::Hosted => ("hosted", None),
        Why::Rehearsal => ("rehearsal", None),
        Why::Raised => ("raised", None),
    };
    CleanupRecord {
        level: chosen.level.code().to_string(),
        by: by.to_string(),
        billions,
        raised_in_round: round.filter(|_| chosen.why == Why::Raised),
    }
}

impl Room {
    /// The cleanup level of `endpoint`'s replies (None: the default one).
    pub(super) fn cleanup_of(&self, endpoint: Option<&str>) -> Level {
        self.chosen_of(endpoint).level
    }

    fn chosen_of(&self, endpoint: Option<&str>) -> Chosen {
        self.server(endpoint).map_or(self.cleanup, |s| s.cleanup)
    }

    fn chosen_mut(&mut self, endpoint: Option<&str>) -> &mut Chosen {
        match endpoint.and_then(|n| self.servers.iter().position(|s| s.name == n)) {
            Some(i) => &mut self.servers[i].cleanup,
            None => &mut self.cleanup,
        }
    }

    /// `endpoint`'s server answered: under `auto`, its level is chosen
    /// again by the model it has and the size it gives. A raised level
    /// stays.
    pub(super) fn choose_cleanup(&mut self, endpoint: Option<&str>, check: &EndpointCheck) {
        let setting = self.cfg.llm.cleanup_of(endpoint);
        let (base_url, rehearsal) = {
            let info = self.provider_of(endpoint).info();
            (info.base_url.clone(), info.rehearsal)
        };
        let facts = ModelFacts {
            model: &check.model,
            base_url: base_url.as_deref(),
            server_size: check.billions,
            rehearsal,
        };
        let (level, why) = choose_level(setting, &facts);
        let chosen = self.chosen_mut(endpoint);
        if chosen.why != Why::Raised {
            *chosen = Chosen { level, why };
        }
    }

    /// What the front ends are told of each endpoint's cleanup: the
    /// default's, then each named one's.
    fn cleanup_levels(&self) -> Vec<EndpointCleanup> {
        let one = |endpoint: Option<String>, chosen: Chosen| EndpointCleanup {
            endpoint,
            level: chosen.level,
            why: why_words(chosen.why, self.lang),
        };
        std::iter::once(one(None, self.cleanup))
            .chain(self.servers.iter().map(|s| one(Some(s.name.clone()), s.cleanup)))
            .collect()
    }

    /// Tells the front ends every endpoint's level (and the log).
    pub(super) fn tell_cleanup(&self) {
        let levels = self.cleanup_levels();
        for l in &levels {
            tracing::info!(endpoint = ?l.endpoint, level = l.level.code(), why = %l.why, "reply cleanup");
        }
        self.emit(Event::CleanupLevels { levels });
    }

    /// Who an endpoint is, in messages: its model, and its name if named.
    fn endpoint_words(&self, endpoint: Option<&str>) -> String {
        let model = self.provider_of(endpoint).info().model;
        match endpoint {
            Some(name) => format!("{model} ({name})"),
            None => model,
        }
    }
}

impl Party {
    /// Records every endpoint's level in the session file.
    pub(super) fn record_cleanup(&mut self) {
        let round = self.state().current_round;
        let mut records = std::collections::BTreeMap::new();
        records.insert(crate::config::DEFAULT_ENDPOINT.to_string(), record(self.room.cleanup, Some(round)));
        for s in &self.room.servers {
            records.insert(s.name.clone(), record(s.cleanup, Some(round)));
        }
        // A level raised before keeps the round it was raised in.
        for (name, r) in &mut records {
            if let Some(old) = self.session.fm.cleanup.get(name).filter(|o| o.by == "raised" && r.by == "raised") {
                r.raised_in_round = old.raised_in_round;
            }
        }
        self.session.fm.cleanup = records;
    }

    /// A resumed session keeps a level raised before (the model slipped)
    /// where the light level would apply again; a level set to `off` or
    /// `full` since stays as set.
    pub(super) fn restore_cleanup(&mut self) {
        let raised: Vec<String> = self
            .session
            .fm
            .cleanup
            .iter()
            .filter(|(_, r)| r.by == "raised")
            .map(|(n, _)| n.clone())
            .collect();
        for name in raised {
            let endpoint = (name != crate::config::DEFAULT_ENDPOINT).then_some(name.as_str());
            if endpoint.is_some() && self.room.server(endpoint).is_none() || self.room.cleanup_of(endpoint) != Level::Light {
                continue;
            }
            *self.room.chosen_mut(endpoint) = Chosen {
                level: Level::Full,
                why: Why::Raised,
            };
        }
    }

    /// A reply by `agent` at the light level spoke as another or gave back
    /// the runtime's note: its endpoint gets every rule from now on, said
    /// in the transcript and recorded.
    pub(super) async fn raise_cleanup(&mut self, endpoint: Option<&str>, agent: &str) {
        if self.room.cleanup_of(endpoint) != Level::Light {
            return;
        }
        *self.room.chosen_mut(endpoint) = Chosen {
            level: Level::Full,
            why: Why::Raised,
        };
        let who = self.room.endpoint_words(endpoint);
        let text = Words::CleanupRaised { who: &who, agent }.say(self.room.lang);
        self.notice(NoticeKind::Info, text).await;
        self.record_cleanup();
        self.room.tell_cleanup();
    }
}
