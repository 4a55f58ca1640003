//! What `cast` needs before it asks the model: the provider, the workflow
//! whose `cast_*` templates it reads, the languages, the names already
//! taken, and where a kept cast is saved. Start-up wiring, like a party's.

use std::sync::Arc;

use super::{load_config, load_room, parties_of, program_lang, provider, workflow_source};
use crate::cli::Cli;
use crate::engine::cast::save::Target;
use crate::error::StartError;
use crate::i18n::{Lang, Start};
use crate::llm::Provider;
use crate::workflow::Workflow;

pub(crate) struct Casting {
    pub provider: Arc<dyn Provider>,
    pub workflow: Workflow,
    pub lang: Lang,
    /// The language the personas are written in (`communication_language`).
    pub speech_language: String,
    pub target: Target,
    /// The BMAD project's `_bmad` folder, when there is one (`--bmad DIR`,
    /// or found here or above).
    pub bmad_dir: Option<std::path::PathBuf>,
}

pub(crate) fn casting(cli: &Cli) -> Result<Casting, StartError> {
    let source = workflow_source(cli);
    let config = load_config(cli, &source)?;
    let workflow = Workflow::load(source)?;
    let room = load_room(cli)?;
    let provider = provider(cli, &config)?;
    let project = room.project.clone().unwrap_or_default();
    let lang = program_lang(cli, None, &project, &config);
    let speech_language = project.communication_language.unwrap_or_else(|| lang.speech_name().to_string());
    let (Some(agents_dir), Some(parties_dir)) = (crate::config::user::agents_dir(), crate::config::user::parties_dir()) else {
        return Err(StartError::Invalid(Start::NoConfigFolder));
    };
    let pool = room.pool();
    let target = Target {
        agents_dir,
        parties_dir,
        ids: pool.iter().map(|a| a.id.clone()).collect(),
        names: pool.iter().map(|a| a.name.clone()).collect(),
        parties: parties_of(&room, &config, lang).defs.into_iter().map(|d| d.id).collect(),
    };
    let bmad_dir = match &cli.bmad {
        Some(d) => crate::roster::bmad::detect(d),
        None => std::env::current_dir().ok().and_then(|cwd| crate::roster::bmad::detect(&cwd)),
    }
    .map(|p| p.dir);
    Ok(Casting {
        bmad_dir,
        provider,
        workflow,
        lang,
        speech_language,
        target,
    })
}
