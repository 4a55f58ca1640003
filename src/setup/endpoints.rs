//! Which endpoint each agent speaks through, settled before anything is
//! sent: an agent's file (or its BMAD member entry) names one, a party's
//! member entry (`architect@hosted`) over it, `--endpoint AGENT=NAME` over
//! both. Each name must be one of `bmad.llm.endpoints` (or `default`, the
//! top-level `bmad.llm`), each endpoint in use must find its key, and two
//! endpoints at one address with different keys are pointed out. Keys are
//! read from the environment here and go nowhere but the providers.

use std::sync::Arc;
use std::time::Duration;

use crate::config::{Config, Endpoint, DEFAULT_ENDPOINT};
use crate::error::StartError;
use crate::i18n::{Problem, Start};
use crate::llm::{Failure, OpenAiProvider, OpenAiSettings, Provider};
use crate::roster::agents::Agent;
use crate::roster::parties::answers_to;
use crate::session::{Turn, TurnKind};
use crate::source::SourceError;

/// The named endpoints' providers, by name (`engine::Setup::endpoints`).
pub(crate) type Providers = Vec<(String, Arc<dyn Provider>)>;

/// Where the room's endpoints were named, for messages.
pub(crate) struct Named<'a> {
    /// Agents whose party member entry named theirs, with the party's source.
    pub assigned: &'a [(String, String)],
    /// `--endpoint AGENT=NAME`, as given.
    pub flags: &'a [String],
}

/// Puts each `--endpoint AGENT=NAME` in place; the ids it set, or what is
/// wrong with the flags (a malformed one, an agent not in the room).
fn apply_flags(agents: &mut [Agent], flags: &[String]) -> Result<Vec<String>, Vec<SourceError>> {
    let mut set = Vec::new();
    let mut problems = Vec::new();
    for given in flags {
        let Some((who, name)) = given.split_once('=').filter(|(w, n)| !w.trim().is_empty() && !n.trim().is_empty()) else {
            problems.push(SourceError::new(
                "--endpoint",
                None,
                "",
                Problem::EndpointFlag { given: given.clone() },
            ));
            continue;
        };
        match agents.iter_mut().find(|a| answers_to(a, who)) {
            Some(a) => {
                a.endpoint = Some(name.trim().to_string());
                set.push(a.id.clone());
            }
            None => problems.push(SourceError::new(
                "--endpoint",
                None,
                "",
                Problem::EndpointAgent {
                    agent: who.trim().to_string(),
                },
            )),
        }
    }
    if problems.is_empty() {
        Ok(set)
    } else {
        Err(problems)
    }
}

/// Settles every agent's endpoint: the flags put in place, each name
/// checked against the config (`default` becomes None, the top-level
/// endpoint), each problem located where the name was given. The ids of
/// the agents something names one for now (its file, a party's entry, a
/// flag; `default` too): what a resumed session does not overrule
/// (`keep_recorded`).
pub(crate) fn assign(agents: &mut [Agent], named: &Named, endpoints: &[Endpoint]) -> Result<Vec<String>, Vec<SourceError>> {
    let flagged = apply_flags(agents, named.flags)?;
    let named_now: Vec<String> = agents.iter().filter(|a| a.endpoint.is_some()).map(|a| a.id.clone()).collect();
    let known = endpoints.iter().map(|e| format!("`{}`", e.name)).collect::<Vec<_>>().join(", ");
    let mut problems = Vec::new();
    for a in agents.iter_mut() {
        let Some(name) = a.endpoint.clone() else { continue };
        if name.eq_ignore_ascii_case(DEFAULT_ENDPOINT) {
            a.endpoint = None;
            continue;
        }
        if endpoints.iter().any(|e| e.name == name) {
            continue;
        }
        let why = Problem::UnknownEndpoint {
            name,
            known: known.clone(),
        };
        problems.push(if flagged.contains(&a.id) {
            SourceError::new("--endpoint", None, "", why)
        } else if let Some((_, party)) = named.assigned.iter().find(|(id, _)| *id == a.id) {
            SourceError::new(party.clone(), None, "members", why)
        } else {
            let from = a.endpoint_from.clone().unwrap_or_else(|| a.source.clone());
            SourceError::new(from, None, "endpoint", why)
        });
    }
    if problems.is_empty() {
        Ok(named_now)
    } else {
        Err(problems)
    }
}

/// The rehearsal speaks for every agent, whatever endpoint it was given:
/// each agent's endpoint is cleared, so that no turn records a server
/// nothing was sent to and the room runs as one rehearsal. The names that
/// were given, once each in the room's order, for the notice.
pub(crate) fn rehearsed(agents: &mut [Agent]) -> Vec<String> {
    let mut given: Vec<String> = Vec::new();
    for a in agents.iter_mut() {
        if let Some(name) = a.endpoint.take() {
            if !given.contains(&name) {
                given.push(name);
            }
        }
    }
    given
}

/// Each agent's endpoint in its last recorded reply, by id (None: the
/// default one): what a resumed session keeps. An agent that never spoke
/// has no entry.
pub(crate) fn last_recorded(turns: &[Turn]) -> Vec<(String, Option<String>)> {
    let mut last: Vec<(String, Option<String>)> = Vec::new();
    for t in turns.iter().filter(|t| t.kind == TurnKind::Agent) {
        let Some(id) = &t.agent else { continue };
        match last.iter_mut().find(|(a, _)| a == id) {
            Some(slot) => slot.1 = t.endpoint.clone(),
            None => last.push((id.clone(), t.endpoint.clone())),
        }
    }
    last
}

/// A resumed room and the endpoints it was held with, after `assign`. An
/// endpoint named now (`named_now`: an agent file's, a party entry's, a
/// flag's) wins over the recorded one: whatever the facilitator changed
/// since, the room follows. An agent nothing names one for keeps the
/// endpoint of its last recorded reply, not the default a new session
/// would give it, unless the config no longer defines that one. Every
/// agent whose endpoint is not the recorded one, and every one that keeps
/// a recorded one a new session would not give it, is told (a move
/// nobody is told of is one the facilitator cannot undo).
pub(crate) fn keep_recorded(
    agents: &mut [Agent],
    last: &[(String, Option<String>)],
    named_now: &[String],
    known: &[Endpoint],
) -> Vec<Start> {
    let shown = |e: &Option<String>| e.clone().unwrap_or_else(|| DEFAULT_ENDPOINT.to_string());
    let mut told = Vec::new();
    for a in agents.iter_mut() {
        let Some((_, was)) = last.iter().find(|(id, _)| *id == a.id) else {
            continue;
        };
        let kept = match was {
            Some(w) if !named_now.contains(&a.id) && known.iter().any(|e| &e.name == w) => Some(w),
            _ => None,
        };
        if let Some(w) = kept {
            a.endpoint = Some(w.clone());
            told.push(Start::EndpointKept {
                agent: a.name.clone(),
                id: a.id.clone(),
                endpoint: w.clone(),
            });
        } else if was != &a.endpoint {
            told.push(Start::EndpointChanged {
                agent: a.name.clone(),
                now: shown(&a.endpoint),
                was: shown(was),
            });
        }
    }
    told
}

/// The endpoints some agent speaks through, in the config's order.
pub(crate) fn in_use<'a>(agents: &[Agent], endpoints: &'a [Endpoint]) -> Vec<&'a Endpoint> {
    endpoints
        .iter()
        .filter(|e| agents.iter().any(|a| a.endpoint.as_deref() == Some(e.name.as_str())))
        .collect()
}

/// Each endpoint in use whose key variable is not set, located at its
/// definition: its requests would be refused, so none is sent.
pub(crate) fn unset_keys(used: &[&Endpoint], env: impl Fn(&str) -> Option<String>) -> Vec<SourceError> {
    used.iter()
        .filter_map(|e| {
            let var = e.api_key_env.as_ref()?;
            env(var).is_none().then(|| {
                let key = format!("bmad.llm.endpoints.{}.api_key_env", e.name);
                SourceError::new(
                    e.file.clone(),
                    e.key_line.or(e.line),
                    &key,
                    Problem::KeyVarUnset { var: var.clone() },
                )
            })
        })
        .collect()
}

/// One server as the same-address check sees it: its name, address, and
/// its key (compared, never shown).
pub(crate) struct Keyed {
    pub name: String,
    pub url: String,
    pub key: Option<String>,
}

/// Endpoints at one address that send different keys: most likely one of
/// them was meant for another server. A warning each pair, by name.
pub(crate) fn shared_urls(servers: &[Keyed]) -> Vec<Start> {
    let norm = |u: &str| u.trim().trim_end_matches('/').to_ascii_lowercase();
    let mut out = Vec::new();
    for (i, a) in servers.iter().enumerate() {
        for b in &servers[i + 1..] {
            if norm(&a.url) == norm(&b.url) && a.key != b.key {
                out.push(Start::SameUrlOtherKeys {
                    url: crate::text::shown_url(&a.url),
                    first: a.name.clone(),
                    second: b.name.clone(),
                });
            }
        }
    }
    out
}

/// The providers of the endpoints in use, each with its own address,
/// model and key, and the default's timeouts and retries. A key that
/// cannot be sent in a header is located at the endpoint's `api_key_env`
/// line, by endpoint and variable, never by its value.
pub(crate) fn providers(
    used: &[&Endpoint],
    config: &Config,
    env: impl Fn(&str) -> Option<String>,
    min_backoff: Duration,
) -> Result<Providers, StartError> {
    let llm = &config.llm;
    used.iter()
        .map(|e| {
            let settings = OpenAiSettings {
                base_url: e.base_url.clone(),
                api_key: e.api_key_env.as_deref().and_then(&env).unwrap_or_default(),
                model_named: e.model.is_some(),
                model: e.model.clone().unwrap_or_else(|| super::DEFAULT_MODEL.to_string()),
                request_timeout: Duration::from_secs(llm.request_timeout_seconds),
                stall_timeout: Duration::from_secs(llm.stall_timeout_seconds),
                max_retries: llm.max_retries,
                retry_window: Duration::from_secs(llm.retry_window_seconds),
                min_backoff,
            };
            let p = OpenAiProvider::new(settings).map_err(|f| match (f, &e.api_key_env) {
                (Failure::BadApiKey, Some(var)) => StartError::Files(vec![SourceError::new(
                    e.file.clone(),
                    e.key_line.or(e.line),
                    &format!("bmad.llm.endpoints.{}.api_key_env", e.name),
                    Problem::KeyVarValue { var: var.clone() },
                )]),
                (f, _) => StartError::Provider(f),
            })?;
            Ok((e.name.clone(), Arc::new(p) as Arc<dyn Provider>))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint(name: &str, url: &str, key_env: Option<&str>) -> Endpoint {
        Endpoint {
            name: name.into(),
            base_url: url.into(),
            model: None,
            api_key_env: key_env.map(String::from),
            context_tokens: None,
            reply_max_tokens: None,
            parallel_requests: None,
            prompt_layout: None,
            cleanup: None,
            file: "config.yaml".into(),
            line: Some(6),
            key_line: Some(7),
        }
    }

    fn agent(id: &str, endpoint: Option<&str>) -> Agent {
        Agent {
            id: id.into(),
            name: id.to_uppercase(),
            endpoint: endpoint.map(String::from),
            source: format!("agents/{id}.md"),
            ..Agent::default()
        }
    }

    #[test]
    fn the_flag_wins_and_default_means_the_top_level_endpoint() {
        let eps = [endpoint("hosted", "https://api.openai.com/v1", None)];
        let mut room = vec![agent("architect", Some("hosted")), agent("dev", None), agent("pm", Some("default"))];
        let flags = ["ARCHITECT=default".to_string(), "dev=hosted".to_string()];
        let named = Named {
            assigned: &[],
            flags: &flags,
        };
        assign(&mut room, &named, &eps).unwrap();
        let on: Vec<_> = room.iter().map(|a| a.endpoint.as_deref()).collect();
        assert_eq!(on, [None, Some("hosted"), None]);
    }

    #[test]
    fn an_unknown_endpoint_is_located_where_it_was_named() {
        let eps = [endpoint("hosted", "https://x/v1", None)];
        let mut room = vec![agent("architect", Some("hostd")), agent("dev", Some("box")), agent("pm", None)];
        let assigned = [("dev".to_string(), "config.yaml:12 [bmad.parties.crew]".to_string())];
        let flags = ["pm=gpu".to_string()];
        let named = Named {
            assigned: &assigned,
            flags: &flags,
        };
        let e = assign(&mut room, &named, &eps).unwrap_err();
        let shown: Vec<String> = e.iter().map(ToString::to_string).collect();
        assert_eq!(shown.len(), 3, "{shown:?}");
        assert!(
            shown[0].starts_with("agents/architect.md: `endpoint`: no endpoint named `hostd` (bmad.llm.endpoints has `hosted`"),
            "{shown:?}"
        );
        assert!(
            shown[1].starts_with("config.yaml:12 [bmad.parties.crew]: `members`: no endpoint named `box`"),
            "{shown:?}"
        );
        assert!(shown[2].starts_with("--endpoint: no endpoint named `gpu`"), "{shown:?}");
    }

    #[test]
    fn the_rehearsal_clears_every_endpoint_and_names_those_given_once() {
        let mut room = vec![
            agent("a", Some("hosted")),
            agent("b", None),
            agent("c", Some("box")),
            agent("d", Some("hosted")),
        ];
        assert_eq!(rehearsed(&mut room), ["hosted", "box"]);
        assert!(room.iter().all(|a| a.endpoint.is_none()));
        assert!(rehearsed(&mut room).is_empty(), "nothing given, nothing to tell");
    }

    fn reply(id: &str, endpoint: Option<&str>) -> Turn {
        Turn {
            endpoint: endpoint.map(String::from),
            ..Turn::said(TurnKind::Agent, Some(id), 1, id, "yes")
        }
    }

    #[test]
    fn a_resumed_room_follows_what_is_named_now_keeps_the_rest_and_tells_both() {
        let eps = [endpoint("hosted", "https://x/v1", None), endpoint("box", "http://b/v1", None)];
        let mut fm = reply("kofi", None);
        fm.kind = TurnKind::Facilitator;
        let turns = [
            reply("architect", None),
            reply("kofi", Some("hosted")),
            reply("architect", Some("hosted")),
            reply("pm", Some("gone")),
            reply("qa", Some("hosted")),
            reply("ux", Some("box")),
            reply("sm", None),
            fm,
        ];
        let last = last_recorded(&turns);
        assert_eq!(last.len(), 6, "{last:?}");
        let mut room = vec![
            // Its file edited since: `box` now.
            agent("architect", Some("box")),
            // Nothing names one now: the recorded `hosted` stays, told.
            agent("kofi", None),
            // Recorded on an endpoint the config no longer has.
            agent("pm", None),
            // A flag puts it back on the default one.
            agent("qa", None),
            // Its file says what was recorded: nothing to tell.
            agent("ux", Some("box")),
            agent("sm", Some("default")),
            // Never spoke.
            agent("new", Some("box")),
        ];
        let flags = ["qa=default".to_string()];
        let named = Named {
            assigned: &[],
            flags: &flags,
        };
        let named_now = assign(&mut room, &named, &eps).unwrap();
        assert_eq!(named_now, ["architect", "qa", "ux", "sm", "new"]);
        let told = keep_recorded(&mut room, &last, &named_now, &eps);
        let on: Vec<_> = room.iter().map(|a| a.endpoint.as_deref()).collect();
        assert_eq!(on, [Some("box"), Some("hosted"), None, None, Some("box"), None, Some("box")]);
        let told: Vec<String> = told.iter().map(ToString::to_string).collect();
        assert_eq!(
            told,
            [
                "ARCHITECT now speaks through box, was hosted.",
                "KOFI still speaks through hosted, as in this session so far (`--endpoint kofi=default` moves them).",
                "PM now speaks through default, was gone.",
                "QA now speaks through default, was hosted.",
            ]
        );
    }

    #[test]
    fn a_key_that_cannot_be_sent_is_located_at_its_variable_never_shown() {
        let eps = [endpoint("hosted", "https://x/v1", Some("HOSTED_KEY"))];
        let used: Vec<&Endpoint> = eps.iter().collect();
        let env = |_: &str| Some("sk-live-XYZ\nsecond".to_string());
        let Err(StartError::Files(e)) = providers(&used, &Config::default(), env, Duration::ZERO) else {
            panic!("a key with a newline must stop the start, located");
        };
        let shown = e[0].to_string();
        assert_eq!(
            shown,
            "config.yaml:7: `bmad.llm.endpoints.hosted.api_key_env`: the key in the environment variable `HOSTED_KEY` cannot be sent (it holds a newline or another control character)"
        );
        assert!(providers(&used, &Config::default(), |_: &str| Some("sk-1".into()), Duration::ZERO).is_ok());
    }

    #[test]
    fn a_malformed_flag_or_one_naming_nobody_stops_the_start() {
        let mut room = vec![agent("architect", None)];
        for (flag, says) in [
            ("architect", "is not AGENT=ENDPOINT"),
            ("=x", "is not AGENT=ENDPOINT"),
            ("nobody=x", "no agent in the room answers to `nobody`"),
        ] {
            let flags = [flag.to_string()];
            let named = Named {
                assigned: &[],
                flags: &flags,
            };
            let e = assign(&mut room, &named, &[]).unwrap_err();
            assert!(e[0].to_string().contains(says), "{flag}: {}", e[0]);
        }
    }

    #[test]
    fn only_endpoints_in_use_need_their_key_located_at_its_variable() {
        let eps = [
            endpoint("hosted", "https://x/v1", Some("HOSTED_KEY")),
            endpoint("spare", "https://y/v1", Some("SPARE_KEY")),
            endpoint("box", "http://10.0.0.2/v1", None),
        ];
        let room = [agent("a", Some("hosted")), agent("b", Some("box"))];
        let used = in_use(&room, &eps);
        assert_eq!(used.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["hosted", "box"]);
        let e = unset_keys(&used, |_| None);
        assert_eq!(e.len(), 1, "an unused endpoint's key is not asked for: {e:?}");
        assert_eq!(
            e[0].to_string(),
            "config.yaml:7: `bmad.llm.endpoints.hosted.api_key_env`: the environment variable `HOSTED_KEY` that holds this endpoint's key is not set"
        );
        assert!(unset_keys(&used, |_| Some("sk-secret".into())).is_empty());
    }

    #[test]
    fn one_address_with_two_keys_is_pointed_out_by_name_never_by_key() {
        let keyed = |name: &str, url: &str, key: Option<&str>| Keyed {
            name: name.into(),
            url: url.into(),
            key: key.map(String::from),
        };
        let w = shared_urls(&[
            keyed("default", "https://api.openai.com/v1", Some("sk-a")),
            keyed("hosted", "https://API.openai.com/v1/", Some("sk-b")),
            keyed("same", "https://api.openai.com/v1", Some("sk-a")),
            keyed("box", "http://10.0.0.2/v1", None),
        ]);
        let shown: Vec<String> = w.iter().map(ToString::to_string).collect();
        assert_eq!(shown.len(), 2, "{shown:?}");
        assert!(
            shown[0].contains("`default` and `hosted`") && shown[1].contains("`hosted` and `same`"),
            "{shown:?}"
        );
        assert!(shown.iter().all(|s| !s.contains("sk-")), "{shown:?}");
    }
}
