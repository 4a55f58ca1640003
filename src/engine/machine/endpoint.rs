//! At start, before the first round: is the model's server there, and which
//! model does it have? Asked in the background while the facilitator types
//! the topic; what it answered is told at once (a server that cannot be
//! reached, named by its URL; the model chosen from its list; a named model
//! it does not list), and the party opens on the model it chose.

use std::time::Duration;

use super::party::Party;
use super::servers::Server;
use super::Room;
use crate::engine::{AgentModel, Event, NoticeKind};
use crate::i18n::{Lang, Room as Words, Say};
use crate::llm::discovery::{name_some, others, same_model};
use crate::llm::EndpointCheck;
use crate::roster::agents::Agent;

/// How long the opening of the party waits for an answer still under way:
/// the provider asks for a few seconds at most.
const CHECK_WAIT: Duration = Duration::from_secs(5);

/// What the facilitator is told about the endpoint, given the models in use
/// (the default one first, then each agent's own with the agents' names).
pub(super) fn notices(check: &EndpointCheck, in_use: &[(String, Vec<String>)], window_s: u64, lang: Lang) -> Vec<(NoticeKind, String)> {
    let url = &check.url;
    let mut out = Vec::new();
    if let Some(cause) = &check.unreachable {
        let cause = cause.say(lang);
        out.push((
            NoticeKind::Warning,
            Words::ServerUnreachable {
                url,
                cause: &cause,
                window_s,
            }
            .say(lang),
        ));
        return out;
    }
    if let Some(model) = &check.chosen {
        let also = others(&check.listed, model, lang);
        let text = if also.is_empty() {
            Words::UsingOnlyModel { model, url }.say(lang)
        } else {
            Words::UsingModelAlso { model, url, also: &also }.say(lang)
        };
        out.push((NoticeKind::Info, text));
    }
    if check.listed.is_empty() {
        return out;
    }
    for (model, agents) in in_use {
        if check.listed.iter().any(|m| same_model(m, model)) {
            continue;
        }
        let listed: Vec<&str> = check.listed.iter().map(String::as_str).collect();
        let has = name_some(&listed, lang);
        let whose = if agents.is_empty() {
            String::new()
        } else {
            Words::ForAgents { names: &agents.join(", ") }.say(lang)
        };
        let text = Words::ModelNotListed {
            url,
            model,
            whose: &whose,
            has: &has,
        };
        out.push((NoticeKind::Warning, text.say(lang)));
    }
    out
}

/// The models the agents speaking through `endpoint` (None: the default
/// one) use, each with their names: `model` (the endpoint's own) first,
/// with no names, unless every such agent names its own.
pub(super) fn models_in_use(agents: &[Agent], endpoint: Option<&str>, model: &str) -> Vec<(String, Vec<String>)> {
    let mut in_use: Vec<(String, Vec<String>)> = vec![(model.to_string(), Vec::new())];
    let on: Vec<&Agent> = agents.iter().filter(|a| a.endpoint.as_deref() == endpoint).collect();
    for a in &on {
        let Some(m) = a.model.as_ref().filter(|m| !m.trim().is_empty()) else {
            continue;
        };
        match in_use.iter_mut().find(|(x, _)| same_model(x, m)) {
            Some((_, names)) => names.push(a.name.clone()),
            None => in_use.push((m.clone(), vec![a.name.clone()])),
        }
    }
    // The endpoint's own model matters only if some agent uses it.
    if on.iter().all(|a| a.model.as_ref().is_some_and(|m| !m.trim().is_empty())) {
        in_use.remove(0);
    }
    in_use
}

impl Room {
    /// Starts asking the default endpoint and each named one; the answers
    /// are told when they come.
    pub(super) fn check_endpoint(&mut self) {
        self.endpoint_check = Some(tokio::spawn(self.provider.check()));
        for s in &mut self.servers {
            s.check = Some(tokio::spawn(s.provider.check()));
        }
    }

    /// Waits (briefly) for answers still under way, then tells them: the
    /// session is about to record which model it runs on.
    pub(super) async fn settle_endpoint(&mut self) {
        if let Some(check) = self.endpoint_answer().await {
            self.tell_endpoint(&check);
        }
        for i in 0..self.servers.len() {
            let Some(handle) = self.servers[i].check.take() else { continue };
            let check = tokio::time::timeout(CHECK_WAIT, handle).await.ok().and_then(Result::ok).flatten();
            self.tell_named(i, check);
        }
    }

    /// Tells the front ends what the named endpoint `servers[i]` answered
    /// (None: no answer came), and the labels its model changed.
    pub(super) fn tell_named(&mut self, i: usize, check: Option<EndpointCheck>) {
        self.servers[i].check = None;
        if let Some(check) = check {
            let name = self.servers[i].name.clone();
            tracing::info!(endpoint = %name, url = %check.url, unreachable = ?check.unreachable, model = %check.model, "endpoint checked");
            self.choose_cleanup(Some(&name), &check);
            let in_use = models_in_use(&self.agents, Some(&name), &check.model);
            for (kind, text) in notices(&check, &in_use, self.cfg.llm.retry_window_seconds, self.lang) {
                self.emit(Event::Notice { kind, text });
            }
        }
        self.follow_labels();
    }

    /// The front ends follow the agents' model labels: told again, every
    /// agent's, whenever one changed since they were last told (a named
    /// endpoint's model learnt from its server's list, at start or once a
    /// server down at start answered). Before the room is announced there
    /// is nothing to follow.
    pub(super) fn follow_labels(&mut self) {
        let labels = self.voice_labels();
        if self.told_labels.len() != self.agents.len() || labels == self.told_labels {
            return;
        }
        tracing::info!(?labels, "the agents' model labels changed");
        let agents = self.agents.iter().zip(&labels);
        let agents = agents.map(|(a, model)| AgentModel {
            id: a.id.clone(),
            model: model.clone(),
        });
        self.emit(Event::AgentModels { agents: agents.collect() });
        self.told_labels = labels;
    }

    /// The answer, waited for (briefly) if it has not come.
    pub(super) async fn endpoint_answer(&mut self) -> Option<EndpointCheck> {
        let handle = self.endpoint_check.take()?;
        match tokio::time::timeout(CHECK_WAIT, handle).await {
            Ok(Ok(check)) => check,
            Ok(Err(_)) => None,
            Err(_) => {
                tracing::warn!("the endpoint did not answer in time; the party opens on the default model");
                None
            }
        }
    }

    /// Tells the front ends what the endpoint answered.
    pub(super) fn tell_endpoint(&mut self, check: &EndpointCheck) {
        tracing::info!(url = %check.url, unreachable = ?check.unreachable, listed = check.listed.len(), model = %check.model, "endpoint checked");
        self.choose_cleanup(None, check);
        if let Some(model) = &check.chosen {
            self.told_model = model.clone();
            self.emit(Event::ModelChosen { model: model.clone() });
        }
        let in_use = models_in_use(&self.agents, None, &check.model);
        for (kind, text) in notices(check, &in_use, self.cfg.llm.retry_window_seconds, self.lang) {
            self.emit(Event::Notice { kind, text });
        }
        self.follow_labels();
    }
}

/// The next answer of a named endpoint still being asked, when it comes:
/// the server's place and its answer (None: the asking failed). Never
/// comes while none is asked.
pub(super) async fn next_named_answer(servers: &mut [Server]) -> (usize, Option<EndpointCheck>) {
    let asked: Vec<_> = servers
        .iter_mut()
        .enumerate()
        .filter_map(|(i, s)| s.check.as_mut().map(|h| Box::pin(async move { (i, h.await.ok().flatten()) })))
        .collect();
    if asked.is_empty() {
        return std::future::pending().await;
    }
    futures::future::select_all(asked).await.0
}

impl Party {
    /// The model in use changed since the session recorded it: chosen from
    /// the endpoint's list only once the server could be asked (it was
    /// down at start). The session and the header follow it, and the
    /// agents' labels follow every endpoint's model.
    pub(super) fn follow_model(&mut self) {
        let now = self.room.provider.info().model;
        if self.room.told_model != now {
            tracing::info!(was = %self.room.told_model, now = %now, "the model in use changed");
            self.room.told_model = now.clone();
            self.session.fm.provider.model = now.clone();
            let text = Words::NowUsingModel { now: &now }.say(self.room.lang);
            self.emit(Event::ModelChosen { model: now });
            self.emit(Event::Notice {
                kind: NoticeKind::Info,
                text,
            });
        }
        self.room.follow_labels();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(listed: &[&str], chosen: Option<&str>, model: &str) -> EndpointCheck {
        EndpointCheck {
            url: "http://127.0.0.1:11434/v1".into(),
            unreachable: None,
            listed: listed.iter().map(|s| s.to_string()).collect(),
            chosen: chosen.map(str::to_string),
            model: model.into(),
            billions: None,
        }
    }

    fn in_use(model: &str) -> Vec<(String, Vec<String>)> {
        vec![(model.to_string(), Vec::new())]
    }

    #[test]
    fn each_endpoint_is_asked_about_the_models_of_its_own_agents() {
        let agent = |name: &str, model: Option<&str>, endpoint: Option<&str>| Agent {
            name: name.into(),
            model: model.map(String::from),
            endpoint: endpoint.map(String::from),
            ..Agent::default()
        };
        let room = [
            agent("Kofi", None, None),
            agent("Ingrid", Some("gpt-4o"), Some("hosted")),
            agent("Hiro", None, Some("hosted")),
            agent("Maya", Some("phi3"), None),
        ];
        let default = models_in_use(&room, None, "llama3.2");
        assert_eq!(
            default,
            [("llama3.2".to_string(), vec![]), ("phi3".to_string(), vec!["Maya".to_string()])]
        );
        let hosted = models_in_use(&room, Some("hosted"), "gpt-4o-mini");
        assert_eq!(
            hosted,
            [
                ("gpt-4o-mini".to_string(), vec![]),
                ("gpt-4o".to_string(), vec!["Ingrid".to_string()])
            ]
        );
        let only_own = models_in_use(&room[1..2], Some("hosted"), "gpt-4o-mini");
        assert_eq!(
            only_own,
            [("gpt-4o".to_string(), vec!["Ingrid".to_string()])],
            "its own model is used by nobody"
        );
    }

    #[test]
    fn an_unreachable_server_is_named_by_its_url_and_nothing_else_is_said() {
        let c = EndpointCheck {
            unreachable: Some("cannot connect: Connection refused".into()),
            ..check(&[], None, "gpt-4o-mini")
        };
        let n = notices(&c, &in_use("gpt-4o-mini"), 60, Lang::En);
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].0, NoticeKind::Warning);
        assert!(n[0].1.contains("http://127.0.0.1:11434/v1") && n[0].1.contains("Connection refused") && n[0].1.contains("60 s"));
    }

    #[test]
    fn a_chosen_model_is_said_with_the_others_and_the_flag() {
        let one = notices(
            &check(&["llama3.2:latest"], Some("llama3.2:latest"), "llama3.2:latest"),
            &in_use("llama3.2:latest"),
            60,
            Lang::En,
        );
        assert_eq!(one.len(), 1);
        assert!(one[0].1.contains("`llama3.2:latest`") && !one[0].1.contains("also"), "{one:?}");
        let two = notices(
            &check(&["qwen2.5", "mistral"], Some("qwen2.5"), "qwen2.5"),
            &in_use("qwen2.5"),
            60,
            Lang::En,
        );
        assert!(two[0].1.contains("also has mistral") && two[0].1.contains("--model"), "{two:?}");
    }

    #[test]
    fn a_named_model_the_server_does_not_list_is_warned_of_with_what_it_has() {
        let n = notices(
            &check(&["llama3.2:latest"], None, "gpt-4o-mini"),
            &in_use("gpt-4o-mini"),
            60,
            Lang::En,
        );
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].0, NoticeKind::Warning);
        assert!(
            n[0].1.contains("`gpt-4o-mini`") && n[0].1.contains("llama3.2:latest") && n[0].1.contains("--model"),
            "{n:?}"
        );
        // Ollama's bare name is its `:latest`; an agent's model names its agents.
        let agents = vec![("llama3.2".to_string(), Vec::new()), ("phi3".to_string(), vec!["Kofi".to_string()])];
        let n = notices(&check(&["llama3.2:latest"], None, "llama3.2"), &agents, 60, Lang::En);
        assert_eq!(n.len(), 1, "{n:?}");
        assert!(n[0].1.contains("`phi3` (for Kofi)"), "{n:?}");
        // A server that lists nothing is not second-guessed.
        assert!(notices(&check(&[], None, "gpt-4o-mini"), &in_use("gpt-4o-mini"), 60, Lang::En).is_empty());
    }
}
