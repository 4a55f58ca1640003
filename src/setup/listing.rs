//! The listings that name each agent's endpoint and model
//! (`--list-agents`, `--list-parties`): read from the config, nothing
//! asked of any server.

use super::{endpoints, env_nonempty, load_config, load_room, parties_of, program_lang, workflow_source};
use crate::cli::Cli;
use crate::config::Config;
use crate::error::StartError;
use crate::i18n::{Lang, Say};
use crate::roster::Roster;

/// `--list-agents`: after each agent, the endpoint it speaks through and
/// its model, once the config names endpoints or an agent its own model
/// (`--endpoint` applied, an unknown name said as at a party's start). A
/// config that cannot be read leaves this out; the listing says its problems.
pub(crate) fn speaks_through(cli: &Cli, room: &mut Roster, lang: Lang) -> Result<Vec<String>, StartError> {
    let Ok(config) = load_config(cli, &workflow_source(cli)) else {
        return Ok(Vec::new());
    };
    let named = endpoints::Named {
        assigned: &[],
        flags: &cli.endpoint,
    };
    endpoints::assign(&mut room.agents, &named, &config.llm.endpoints).map_err(StartError::Files)?;
    if config.llm.endpoints.is_empty() && room.agents.iter().all(|a| a.model.is_none()) {
        return Ok(Vec::new());
    }
    let names: Vec<Option<String>> = room.agents.iter().map(|a| model_name(a, &config)).collect();
    let shown = Shown::new(names.iter().flatten().map(String::as_str));
    Ok(room
        .agents
        .iter()
        .zip(&names)
        .map(|(a, name)| {
            let endpoint = a.endpoint.as_deref().unwrap_or(crate::config::DEFAULT_ENDPOINT);
            let model = shown.text(name.as_deref(), lang);
            crate::i18n::Printed::Through { endpoint, model: &model }.say(lang)
        })
        .collect())
}

/// The model an agent speaks with, by name: its own, its endpoint's or
/// the default's; None: the one its server lists.
fn model_name(a: &crate::roster::agents::Agent, config: &Config) -> Option<String> {
    let default_model = config.llm.model.clone().or_else(|| env_nonempty("OPENAI_MODEL"));
    let def = a.endpoint.as_ref().and_then(|n| config.llm.endpoints.iter().find(|e| &e.name == n));
    let named = def.map(|e| e.model.as_deref());
    crate::config::model_of(a.model.as_deref(), named, default_model.as_deref())
}

/// Models' names as a listing shows them: cleaned and shortened as a
/// pane's title shows them (a name from a file or the environment: no
/// escape sequence reaches the terminal), and two that shorten alike
/// told apart among `names` (`config::model_labels`).
struct Shown(Vec<(String, String)>);

impl Shown {
    fn new<'a>(names: impl Iterator<Item = &'a str>) -> Shown {
        let names: Vec<&str> = names.collect();
        let labels = crate::config::model_labels(&names);
        Shown(names.iter().map(|n| n.to_string()).zip(labels).collect())
    }

    /// `name`'s label; None: "the model its server lists".
    fn text(&self, name: Option<&str>, lang: Lang) -> String {
        match name {
            Some(n) => self
                .0
                .iter()
                .find(|(m, _)| m == n)
                .map_or_else(|| crate::config::compact_model(n), |(_, l)| l.clone()),
            None => crate::i18n::Printed::ServersModel.say(lang),
        }
    }
}

/// `--list-parties`: the parties, who is in each, whether it remembers.
pub(crate) fn list_parties(cli: &Cli) -> Result<String, StartError> {
    let config = load_config(cli, &workflow_source(cli))?;
    let room = load_room(cli)?;
    let lang = program_lang(cli, None, &room.project.clone().unwrap_or_default(), &config);
    // As `--list-agents`: the model beside each member once the config
    // names endpoints or an agent its own model. Labels are told apart
    // among every model a member could speak with (a party's entry moves
    // it to another endpoint): the default's, the endpoints', the agents'.
    let pool = room.pool();
    let shows = !config.llm.endpoints.is_empty() || pool.iter().any(|a| a.model.is_some());
    let default_model = config.llm.model.clone().or_else(|| env_nonempty("OPENAI_MODEL"));
    let every = default_model
        .iter()
        .chain(config.llm.endpoints.iter().filter_map(|e| e.model.as_ref()))
        .chain(pool.iter().filter_map(|a| a.model.as_ref()));
    let labels = Shown::new(every.map(String::as_str));
    let model = |a: &crate::roster::agents::Agent| shows.then(|| labels.text(model_name(a, &config).as_deref(), lang));
    Ok(crate::roster::parties::list(
        &parties_of(&room, &config, lang),
        &room.agents,
        &pool,
        lang,
        &model,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_tells_apart_two_models_that_shorten_alike() {
        let shown = Shown::new(["bartowski/qwen2.5.gguf", "lmstudio/qwen2.5.gguf", "phi3"].into_iter());
        assert_eq!(shown.text(Some("bartowski/qwen2.5.gguf"), Lang::En), "bartowski/qwen2.5");
        assert_eq!(shown.text(Some("lmstudio/qwen2.5.gguf"), Lang::En), "lmstudio/qwen2.5");
        assert_eq!(shown.text(Some("phi3"), Lang::En), "phi3");
        assert_eq!(shown.text(None, Lang::En), "the model its server lists");
        let alone = Shown::new(["bartowski/qwen2.5.gguf"].into_iter());
        assert_eq!(
            alone.text(Some("bartowski/qwen2.5.gguf"), Lang::En),
            "qwen2.5",
            "nothing to tell apart"
        );
    }
}
