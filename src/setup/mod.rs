//! Turns the command line and the environment into an engine [`Setup`]:
//! which config, workflow, room, provider, language and output folder.

mod casting;
mod endpoints;
mod listing;
mod room;

pub(crate) use casting::casting;
pub(crate) use listing::{list_parties, speaks_through};
pub(crate) use room::load_room;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::assets::{Lookup, WorkflowSource};
use crate::cli::Cli;
use crate::config::{Config, Overrides};
use crate::engine::documents::Document;
use crate::engine::{Memory, Resume, Setup, TakeawaysTo};
use crate::error::StartError;
use crate::i18n::{Lang, Say, Start};
use crate::llm::{OpenAiProvider, OpenAiSettings, Provider, Rehearsal};
use crate::roster::bmad::ProjectConfig;
use crate::roster::parties::{choose, with_config, Chosen, Parties};
use crate::roster::Roster;
use crate::session::SessionLock;
use crate::workflow::Workflow;

pub(crate) const DEFAULT_OUTPUT: &str = "_bmad-output";
pub(crate) const DEFAULT_MODEL: &str = "gpt-4o-mini";
pub(crate) const OPENAI_BASE: &str = "https://api.openai.com/v1";
/// Rounds of a `--non-interactive` party without `--rounds`.
pub(crate) const NON_INTERACTIVE_ROUNDS: u32 = 3;

fn env_nonempty(key: &str) -> Option<String> {
    std::env::var(key).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

pub(crate) fn workflow_source(cli: &Cli) -> WorkflowSource {
    let dir = cli.workflow.clone().or_else(|| {
        let local = PathBuf::from("workflows/party-mode");
        local.is_dir().then_some(local)
    });
    WorkflowSource { dir }
}

pub(crate) fn load_config(cli: &Cli, source: &WorkflowSource) -> Result<Config, StartError> {
    let overrides = Overrides {
        // A party without a facilitator plays exactly the rounds asked.
        max_rounds: if cli.non_interactive {
            Some(cli.rounds.unwrap_or(NON_INTERACTIVE_ROUNDS))
        } else {
            cli.max_rounds
        },
        round_mode: cli.round_mode,
        max_minutes: cli.max_minutes,
        model: cli.model.clone(),
        base_url: cli.base_url.clone(),
    };
    if let Some(m) = cli.max_minutes {
        if !(m > 0.0 && m.is_finite()) {
            return Err(StartError::Invalid(Start::MaxMinutes { minutes: m.to_string() }));
        }
    }
    // Layers, each over the one before, key by key: the built-in defaults,
    // the user's config, the project's (or --config), the flags.
    let none = Overrides::default();
    let mut config = Config::default();
    let project = match &cli.config {
        Some(p) => Some(crate::source::SourceFile {
            path: p.display().to_string(),
            text: std::fs::read_to_string(p).map_err(|e| {
                crate::source::SourceError::new(
                    p.display().to_string(),
                    None,
                    "",
                    crate::i18n::Problem::CannotRead { error: e.to_string() },
                )
            })?,
        }),
        None => match source.read("config.yaml")? {
            // The built-in file is the defaults themselves (`Config::default`).
            Lookup::Found(f) if f.path.starts_with(crate::assets::BUILT_IN) => None,
            Lookup::Found(f) => Some(f),
            Lookup::Missing => None,
        },
    };
    if let Some(user) = crate::config::user::existing() {
        config = Config::load_onto(config, &user, &none)?;
    }
    let config = match project {
        Some(f) => Config::parse_onto(config, &f.text, &f.path, &overrides)?,
        None => Config::parse_onto(config, "", "config.yaml", &overrides)?,
    };
    Ok(config.merged()?)
}

pub(crate) fn provider(cli: &Cli, config: &Config) -> Result<Arc<dyn Provider>, StartError> {
    let base = config.llm.base_url.clone().or_else(|| env_nonempty("OPENAI_BASE_URL"));
    let key = env_nonempty("OPENAI_API_KEY");
    if cli.rehearsal || (base.is_none() && key.is_none()) {
        let mut r = Rehearsal::default();
        if let Some(ms) = env_nonempty("BMAD_PARTY_REHEARSAL_DELAY_MS").and_then(|v| v.parse::<u64>().ok()) {
            r.token_delay = Duration::from_millis(ms);
        }
        return Ok(Arc::new(r));
    }
    let base_url = base.unwrap_or_else(|| OPENAI_BASE.to_string());
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(StartError::Invalid(Start::BaseUrl { url: base_url }));
    }
    let named = config.llm.model.clone().or_else(|| env_nonempty("OPENAI_MODEL"));
    let settings = OpenAiSettings {
        base_url,
        api_key: key.unwrap_or_default(),
        model_named: named.is_some(),
        model: named.unwrap_or_else(|| DEFAULT_MODEL.to_string()),
        request_timeout: Duration::from_secs(config.llm.request_timeout_seconds),
        stall_timeout: Duration::from_secs(config.llm.stall_timeout_seconds),
        max_retries: config.llm.max_retries,
        retry_window: Duration::from_secs(config.llm.retry_window_seconds),
        min_backoff: min_backoff(),
    };
    OpenAiProvider::new(settings)
        .map(|p| Arc::new(p) as Arc<dyn Provider>)
        .map_err(StartError::Provider)
}

/// The shortest wait between attempts (tests shorten it).
fn min_backoff() -> Duration {
    env_nonempty("BMAD_PARTY_MIN_BACKOFF_MS")
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_millis(500))
}

/// The named endpoints the room speaks through, by name: each agent's
/// settled (`endpoints::assign`; then, resumed, the session's kept where
/// nothing names one now, `endpoints::keep_recorded`), the key of each
/// found, two endpoints at
/// one address with different keys told in a notice. The rehearsal sends
/// nothing: it needs no key and no provider.
fn endpoints_of(
    cli: &Cli,
    config: &Config,
    (default, resume): (&crate::llm::ProviderInfo, Option<&Resume>),
    chosen: &mut Chosen,
    lang: Lang,
    notices: &mut Vec<String>,
) -> Result<endpoints::Providers, StartError> {
    // A rehearsed session recorded no endpoint: nothing of it to keep.
    let last = resume
        .filter(|r| r.session.fm.provider.kind != "rehearsal")
        .map(|r| endpoints::last_recorded(&r.session.turns))
        .unwrap_or_default();
    let named = endpoints::Named {
        assigned: &chosen.assigned,
        flags: &cli.endpoint,
    };
    let named_now = endpoints::assign(&mut chosen.agents, &named, &config.llm.endpoints).map_err(StartError::Files)?;
    let moves = endpoints::keep_recorded(&mut chosen.agents, &last, &named_now, &config.llm.endpoints);
    // The rehearsal (asked for, or no default server) speaks for the whole
    // room: half a room on real servers would be neither a rehearsal nor a
    // party (the host scripted, the round mode the rehearsal's).
    if default.rehearsal {
        let given = endpoints::rehearsed(&mut chosen.agents);
        if !given.is_empty() {
            let endpoints = given.join(", ");
            notices.push(Start::RehearsalForAll { endpoints }.say(lang));
        }
        return Ok(Vec::new());
    }
    notices.extend(moves.iter().map(|c| c.say(lang)));
    let used = endpoints::in_use(&chosen.agents, &config.llm.endpoints);
    let unset = endpoints::unset_keys(&used, env_nonempty);
    if !unset.is_empty() {
        return Err(StartError::Files(unset));
    }
    let key_of = |var: &str| env_nonempty(var);
    let mut keyed: Vec<endpoints::Keyed> = Vec::new();
    if let Some(url) = default.base_url.clone() {
        keyed.push(endpoints::Keyed {
            name: crate::config::DEFAULT_ENDPOINT.to_string(),
            url,
            key: key_of("OPENAI_API_KEY"),
        });
    }
    keyed.extend(used.iter().map(|e| endpoints::Keyed {
        name: e.name.clone(),
        url: e.base_url.clone(),
        key: e.api_key_env.as_deref().and_then(key_of),
    }));
    notices.extend(endpoints::shared_urls(&keyed).iter().map(|w| w.say(lang)));
    endpoints::providers(&used, config, env_nonempty, min_backoff())
}

pub(crate) fn output_dir(cli: &Cli) -> PathBuf {
    cli.output.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_OUTPUT))
}

/// The output folder sessions go to: `--output`, else the BMAD project's
/// `output_folder` (the project named by `--bmad`, or found here or above),
/// else the default.
pub(crate) fn output_folder(cli: &Cli) -> PathBuf {
    if cli.output.is_some() {
        return output_dir(cli);
    }
    cli.bmad
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .and_then(|d| crate::roster::bmad::detect(&d))
        .and_then(|p| crate::roster::bmad::project_config(&p).output_folder)
        .unwrap_or_else(|| output_dir(cli))
}

/// The session `--resume` names, or with no file the newest unfinished one
/// in the output folder.
fn resume_path(cli: &Cli) -> Result<Option<PathBuf>, StartError> {
    match &cli.resume {
        None => Ok(None),
        Some(Some(file)) => Ok(Some(file.clone())),
        Some(None) => {
            let dir = output_folder(cli).join("party-mode");
            crate::session::list::newest_unfinished(&dir).map(Some).ok_or_else(|| {
                StartError::Refused(Start::NothingToResume {
                    dir: dir.display().to_string(),
                })
            })
        }
    }
}

/// The facilitator's name when nothing names them: the login name.
fn login_name() -> String {
    env_nonempty("USER")
        .or_else(|| env_nonempty("USERNAME"))
        .unwrap_or_else(|| "Facilitator".into())
}

/// Everything for a party, or the reason there can be none.
pub(crate) fn build(cli: &Cli) -> Result<Setup, StartError> {
    if let (Some(_), Some(topic)) = (&cli.resume, &cli.topic) {
        return Err(StartError::Invalid(Start::TopicAndResume { topic: topic.clone() }));
    }
    let source = workflow_source(cli);
    let mut config = load_config(cli, &source)?;
    if cli.non_interactive {
        // Nobody to push, nobody to wait for: the driver answers at once.
        config.party.diligence.push_max = 0;
        config.party.auto_exit_enabled = false;
    }
    let workflow = Workflow::load(source)?;
    let mut room = load_room(cli)?;
    let provider = provider(cli, &config)?;
    let project = room.project.clone().unwrap_or_default();
    let (resume, newer) = resume_found(cli)?;
    let lang = program_lang(cli, resume.as_ref(), &project, &config);
    room.in_language(lang);
    let user_name = facilitator_name(cli, resume.as_ref(), &project, &config);
    // Agents speak the project's language whatever it is.
    let speech_language = project
        .communication_language
        .clone()
        .unwrap_or_else(|| lang.speech_name().to_string());
    // The notices are read in the party: in its language.
    let mut notices: Vec<String> = room.notice.iter().map(|n| n.say(lang)).collect();
    if let Some((file, copy)) = newer {
        let (file, copy) = (file.display().to_string(), copy.display().to_string());
        notices.push(Start::NewerCopy { copy, file }.say(lang));
    }
    let parties = parties_of(&room, &config, lang);
    let mut chosen = cast(cli, &room, &parties, resume.as_ref(), lang, &mut notices)?;
    let pool = room.pool();
    let endpoints = endpoints_of(cli, &config, (&provider.info(), resume.as_ref()), &mut chosen, lang, &mut notices)?;
    roster_notices(&room, &chosen, lang, &mut notices);
    // A resumed session stays in the folder it was written to.
    let output = match &resume {
        Some(r) if cli.output.is_none() => r
            .path
            .parent()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_else(|| output_dir(cli)),
        _ => output_folder(cli),
    };
    // The rehearsal's lines are no memory of anything: a party rehearsed
    // neither reads nor writes one (a BMAD memlog is shared with BMAD's own
    // party mode).
    let remembers = chosen.memory && !cli.no_memory && !provider.info().rehearsal;
    let memory = remembers.then(|| memory_of(&parties, &output, &chosen, lang, &mut notices));
    let keeps_memory = !cli.no_memory && !provider.info().rehearsal;
    let standing = standing_parties(&parties, &room, &output, keeps_memory, lang, &mut notices);
    let documents = documents_of(cli, resume.as_ref(), lang, &mut notices)?;
    let casts = casts_to(&parties, &output, keeps_memory);
    Ok(Setup {
        casts,
        speech_language,
        document_language: project.document_output_language,
        notices,
        config,
        workflow,
        party: chosen.named(),
        memory,
        documents,
        parties: standing,
        agents: chosen.agents,
        pool,
        provider,
        endpoints,
        lang,
        user_name,
        output,
        resume,
        saves: Default::default(),
        takeaways: match (&cli.takeaways, cli.non_interactive) {
            (Some(file), _) => TakeawaysTo::File(file.clone()),
            (None, true) => TakeawaysTo::BesideSession,
            (None, false) => TakeawaysTo::Nowhere,
        },
    })
}

/// A session file and the newer copy of it in a fallback folder.
type Newer = (PathBuf, PathBuf);

/// The session `--resume` names, and, when it went on in a fallback folder
/// while its own could not be written, (its file, the newer copy): that
/// copy has more and is the one resumed.
fn resume_found(cli: &Cli) -> Result<(Option<Resume>, Option<Newer>), StartError> {
    let Some(p) = resume_path(cli)? else {
        return Ok((None, None));
    };
    match crate::session::fallback::newer_copy(&p) {
        Some(copy) => Ok((Some(resume_session(&copy, cli.lang)?), Some((p, copy)))),
        None => Ok((Some(resume_session(&p, cli.lang)?), None)),
    }
}

/// The program's language: --lang, the session being resumed, the
/// project's language (Chinese or English; others fall back to English),
/// the config, the locale.
fn program_lang(cli: &Cli, resume: Option<&Resume>, project: &ProjectConfig, config: &Config) -> Lang {
    cli.lang
        .or_else(|| resume.map(|r| r.session.fm.lang))
        .or_else(|| {
            project
                .communication_language
                .as_deref()
                .map(|l| Lang::from_setting(l).unwrap_or(Lang::En))
        })
        .or(config.party.lang)
        .or_else(Lang::from_env)
        .unwrap_or_default()
}

/// The language of `--list-agents` and `--list-parties`: a new party's
/// here (--lang, the project's, the config's, the locale). A config that
/// cannot be read leaves its `lang:` out; the listing says its problems.
pub(crate) fn listing_lang(cli: &Cli, room: &Roster) -> Lang {
    let config = load_config(cli, &workflow_source(cli)).unwrap_or_default();
    program_lang(cli, None, &room.project.clone().unwrap_or_default(), &config)
}

/// The facilitator's name, without control characters (it is shown on
/// screen): --user-name, the session, the project, the config, the login.
fn facilitator_name(cli: &Cli, resume: Option<&Resume>, project: &ProjectConfig, config: &Config) -> String {
    crate::text::sanitize(
        &cli.user_name
            .clone()
            .or_else(|| resume.map(|r| r.session.fm.user_name.clone()).filter(|n| !n.is_empty()))
            .or_else(|| project.user_name.clone())
            .or_else(|| config.party.user_name.clone())
            .unwrap_or_else(login_name),
    )
}

/// Who is in the room: `--party`, else the party the resumed session was
/// held by. A resumed session's party that is no longer defined leaves the
/// session's own cast, with a notice.
fn cast(
    cli: &Cli,
    room: &Roster,
    parties: &Parties,
    resume: Option<&Resume>,
    lang: Lang,
    notices: &mut Vec<String>,
) -> Result<Chosen, StartError> {
    let recorded = resume.and_then(|r| r.session.fm.party.clone());
    match choose(parties, &room.agents, &room.pool(), cli.party.as_deref().or(recorded.as_deref())) {
        Ok(c) => Ok(c),
        Err(e) => match resume.filter(|_| cli.party.is_none() && recorded.is_some()) {
            Some(r) => {
                let ids = &r.session.fm.agents;
                notices.push(format!("⚠️ {}", e.say(lang)));
                Ok(Chosen {
                    agents: room.pool().into_iter().filter(|a| ids.contains(&a.id)).collect(),
                    ..Chosen::default()
                })
            }
            None => Err(StartError::Party(e)),
        },
    }
}

/// The named parties a switch (`/party NAME`) can bring in: each cast
/// resolved from the roster's pool, with its memory when it keeps one and
/// this run keeps memories. One that resolves to nobody is left out (its
/// `--party` start says why).
fn standing_parties(
    parties: &Parties,
    room: &Roster,
    output: &Path,
    keeps_memory: bool,
    lang: Lang,
    notices: &mut Vec<String>,
) -> Vec<crate::engine::Standing> {
    parties
        .defs
        .iter()
        .filter_map(|def| {
            let chosen = choose(parties, &room.agents, &room.pool(), Some(&def.id)).ok()?;
            let memory = (keeps_memory && chosen.memory).then(|| memory_of(parties, output, &chosen, lang, notices));
            Some(crate::engine::Standing {
                party: chosen.named()?,
                agents: chosen.agents,
                memory,
            })
        })
        .collect()
}

/// Where `/cast` saves a kept cast (the user's config folders), and where
/// its party remembers when this run keeps memories.
fn casts_to(parties: &Parties, output: &Path, keeps_memory: bool) -> Option<crate::engine::CastsTo> {
    Some(crate::engine::CastsTo {
        agents_dir: crate::config::user::agents_dir()?,
        parties_dir: crate::config::user::parties_dir()?,
        parties: parties.defs.iter().map(|d| d.id.clone()).collect(),
        memory_dir: keeps_memory.then(|| memories_dir(parties, output)),
    })
}

/// Where parties' memories are kept: BMAD's `memory_dir`, else under the
/// output folder.
fn memories_dir(parties: &Parties, output: &Path) -> std::path::PathBuf {
    parties
        .memory_dir
        .clone()
        .unwrap_or_else(|| output.join("party-mode").join("memories"))
}

/// The party's memory file and what it holds; one that cannot be read
/// leaves the room without it, with a notice.
fn memory_of(parties: &Parties, output: &Path, chosen: &Chosen, lang: Lang, notices: &mut Vec<String>) -> Memory {
    let path = crate::memlog::path(&memories_dir(parties, output), chosen.memory_name());
    let entries = crate::memlog::read(&path).unwrap_or_else(|e| {
        let (shown, error) = (path.display().to_string(), e.to_string());
        notices.push(Start::MemoryUnreadable { shown, error }.say(lang));
        vec![]
    });
    Memory { path, entries }
}

/// What the facilitator is told about the room: party members not found,
/// problems in the roster's files (the usable agents came in).
fn roster_notices(room: &Roster, chosen: &Chosen, lang: Lang, notices: &mut Vec<String>) {
    if !chosen.unresolved.is_empty() {
        let (party, missing) = (chosen.name.clone().unwrap_or_default(), chosen.unresolved.join(", "));
        notices.push(Start::NotInRoom { party, missing }.say(lang));
    }
    if !room.problems.is_empty() {
        let (n, source) = (room.problems.len(), room.source.clone());
        let mut text = Start::RosterProblems { n, source }.say(lang);
        for p in room.problems.iter().take(8) {
            text.push_str(&format!("\n- {}", p.say(lang).lines().next().unwrap_or("")));
        }
        notices.push(text);
    }
}

/// The parties the config and the room define (its BMAD project's, the
/// user's files, the ready-made rooms), as a room speaking `lang` sees them.
fn parties_of(room: &Roster, config: &Config, lang: Lang) -> Parties {
    let mut parties = with_config(
        &room.parties,
        &config.parties,
        config.party.default_party.as_deref(),
        config.party.memory,
    );
    for d in &mut parties.defs {
        *d = d.in_language(lang);
    }
    parties
}

/// The documents in front of the room: a resumed session's (one that
/// cannot be read again is left out, saying so), then `--context`'s (one
/// that cannot be read stops the start, naming it).
fn documents_of(cli: &Cli, resume: Option<&Resume>, lang: Lang, notices: &mut Vec<String>) -> Result<Vec<Document>, StartError> {
    let mut docs: Vec<Document> = Vec::new();
    for p in resume.map(|r| r.session.fm.context.clone()).unwrap_or_default() {
        match crate::engine::documents::read(Path::new(&p)) {
            Ok(d) => docs.push(d),
            Err(e) => notices.push(Start::DocumentLeftOut { why: e.0 }.say(lang)),
        }
    }
    for p in &cli.context {
        let d = crate::engine::documents::read(p).map_err(StartError::Context)?;
        docs.retain(|x| x.path != d.path);
        docs.push(d);
    }
    Ok(docs)
}

/// The session to continue, claimed for this process before anything is
/// written: a session another bmad-party has open is refused.
fn resume_session(path: &Path, lang: Option<Lang>) -> Result<Resume, StartError> {
    let s = crate::session::load(path)?;
    if s.fm.workflow_completed || !s.fm.party_active {
        return Err(StartError::Finished {
            file: path.display().to_string(),
            lang: lang.unwrap_or(s.fm.lang),
        });
    }
    let lock = SessionLock::acquire(path)?;
    Ok(Resume {
        path: path.to_path_buf(),
        session: s,
        lock: Some(lock),
    })
}
