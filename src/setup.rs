//! Turns the command line and the environment into an engine [`Setup`]:
//! which config, workflow, room, provider, language and output folder.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::agents::{load_roster, Agent};
use crate::assets::{agents_from_dir, embedded_agents, Lookup, WorkflowSource};
use crate::cli::Cli;
use crate::config::{Config, ConfigError, Overrides};
use crate::engine::Setup;
use crate::i18n::{t, Lang, Msg};
use crate::llm::{OpenAiProvider, OpenAiSettings, Provider, Rehearsal};
use crate::workflow::Workflow;

/// A problem that stops the program before the party, with its exit code
/// (2: bad configuration or input files; 1: anything else).
#[derive(Debug)]
pub struct SetupError {
    pub message: String,
    pub code: i32,
}

impl SetupError {
    fn config(problems: Vec<ConfigError>) -> SetupError {
        SetupError {
            message: problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"),
            code: 2,
        }
    }
}

pub const DEFAULT_OUTPUT: &str = "_bmad-output";
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";
pub const OPENAI_BASE: &str = "https://api.openai.com/v1";

fn env_nonempty(key: &str) -> Option<String> {
    std::env::var(key).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

pub fn workflow_source(cli: &Cli) -> WorkflowSource {
    let dir = cli.workflow.clone().or_else(|| {
        let local = PathBuf::from("workflows/party-mode");
        local.is_dir().then_some(local)
    });
    WorkflowSource { dir }
}

pub fn load_config(cli: &Cli, source: &WorkflowSource) -> Result<Config, SetupError> {
    let overrides = Overrides {
        max_rounds: cli.max_rounds,
        max_minutes: cli.max_minutes,
        model: cli.model.clone(),
        base_url: cli.base_url.clone(),
    };
    if let Some(m) = cli.max_minutes {
        if !(m > 0.0 && m.is_finite()) {
            return Err(SetupError {
                message: crate::tr!(
                    "--max-minutes: `{m}` must be a positive number of minutes",
                    "--max-minutes：`{m}` 必须是正数（分钟）"
                ),
                code: 2,
            });
        }
    }
    let result = match &cli.config {
        Some(p) => Config::load(p, &overrides),
        None => match source.read("config.yaml").map_err(|e| SetupError::config(vec![e]))? {
            Lookup::Found(f) => Config::parse(&f.text, &f.path, &overrides),
            Lookup::Missing => Config::parse("", "config.yaml", &overrides),
        },
    };
    result.map_err(|e| SetupError::config(vec![e]))
}

/// The room and where it came from, plus what a BMAD project says about
/// the facilitator and the languages.
pub struct Room {
    pub agents: Vec<Agent>,
    pub source: String,
    pub problems: Vec<ConfigError>,
    pub project: Option<crate::bmad::ProjectConfig>,
    /// A notice for the facilitator (e.g. a BMAD project with no roster).
    pub notice: Option<String>,
}

fn own_room(cli: &Cli) -> Result<(Vec<Agent>, String), SetupError> {
    let dir = cli.agents.clone().or_else(|| {
        let local = PathBuf::from("agents");
        let has_md = std::fs::read_dir(&local)
            .map(|mut d| d.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "md"))))
            .unwrap_or(false);
        has_md.then_some(local)
    });
    let (files, source) = match dir {
        Some(d) => (agents_from_dir(&d).map_err(SetupError::config)?, d.display().to_string()),
        None => (embedded_agents(), "(built-in) agents/".to_string()),
    };
    let agents = load_roster(&files).map_err(|e| SetupError::config(e.problems))?;
    Ok((agents, source))
}

/// Chooses the room: `--agents DIR` when given; else a BMAD project's roster
/// (`--bmad DIR`, or a `_bmad/` found here or above); else `./agents` or the
/// built-in room. A project named with `--bmad` that has no roster is an
/// error; one merely found nearby falls back to the built-in room, saying so.
pub fn load_room(cli: &Cli) -> Result<Room, SetupError> {
    let project = match &cli.bmad {
        Some(d) => Some(crate::bmad::detect(d).ok_or_else(|| SetupError {
            message: {
                let d = d.display();
                crate::tr!(
                    "--bmad {d}: no BMAD install there (looked for _bmad/, .bmad/ or bmad/ with a config)",
                    "--bmad {d}：这里没有 BMAD 安装（查找了 _bmad/、.bmad/ 或带配置的 bmad/）"
                )
            },
            code: 2,
        })?),
        None => std::env::current_dir().ok().and_then(|cwd| crate::bmad::detect(&cwd)),
    };
    let loaded = project.as_ref().map(crate::bmad::load);
    if cli.agents.is_some() || loaded.is_none() {
        let (agents, source) = own_room(cli)?;
        return Ok(Room {
            agents,
            source,
            problems: vec![],
            project: loaded.map(|l| l.config),
            notice: None,
        });
    }
    let loaded = loaded.expect("checked above");
    let project = project.expect("loaded implies a project");
    if loaded.agents.is_empty() {
        let dir = project.dir.display();
        let what = crate::tr!(
            "{dir}: no agents found (looked for config.toml [agents.*], _config/agent-manifest.csv, _cfg/agent-manifest.csv)",
            "{dir}：没有找到智能体（查找了 config.toml [agents.*]、_config/agent-manifest.csv、_cfg/agent-manifest.csv）"
        );
        if cli.bmad.is_some() {
            let mut message = what;
            for p in &loaded.problems {
                message.push_str(&format!("\n{p}"));
            }
            return Err(SetupError { message, code: 2 });
        }
        let (agents, source) = own_room(cli)?;
        return Ok(Room {
            agents,
            source,
            problems: loaded.problems,
            project: Some(loaded.config),
            notice: Some(crate::tr!("{what}; using the built-in room", "{what}；改用内置房间")),
        });
    }
    let source = format!("{} ({})", project.root.display(), loaded.source.clone().unwrap_or_default());
    Ok(Room {
        agents: loaded.agents,
        source,
        problems: loaded.problems,
        project: Some(loaded.config),
        notice: None,
    })
}

/// `--list-agents`: the roster, where each agent came from, and problems.
pub fn list_agents(room: &Room) -> String {
    use unicode_width::UnicodeWidthStr;
    let (n, source) = (room.agents.len(), &room.source);
    let mut out = format!("{}\n", crate::tr!("{n} agent(s) from {source}", "{n} 位智能体，来自 {source}"));
    let name_w = room.agents.iter().map(|a| a.name.width()).max().unwrap_or(4).min(24);
    let title_w = room.agents.iter().map(|a| a.title.width()).max().unwrap_or(5).min(32);
    for a in &room.agents {
        let icon = if a.icon.is_empty() { "  ".to_string() } else { a.icon.clone() };
        let pad = |s: &str, w: usize| format!("{s}{}", " ".repeat(w.saturating_sub(s.width())));
        let aliases = if a.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also {})", a.aliases.join(", "))
        };
        out.push_str(&format!(
            "  {} {}  {}  @{}{}  — {}\n",
            pad(&icon, 2),
            pad(&a.name, name_w),
            pad(&a.title, title_w),
            a.id,
            aliases,
            a.source
        ));
    }
    if let Some(n) = &room.notice {
        out.push_str(&format!("\n{n}\n"));
    }
    if !room.problems.is_empty() {
        let n = room.problems.len();
        out.push_str(&format!("\n{}\n", crate::tr!("{n} problem(s):", "{n} 个问题：")));
        for p in &room.problems {
            out.push_str(&format!("  {p}\n"));
        }
    }
    out
}

pub fn provider(cli: &Cli, config: &Config) -> Result<Arc<dyn Provider>, SetupError> {
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
        return Err(SetupError {
            message: crate::tr!(
                "OPENAI_BASE_URL: `{base_url}` is not an http:// or https:// URL",
                "OPENAI_BASE_URL：`{base_url}` 不是 http:// 或 https:// 地址"
            ),
            code: 2,
        });
    }
    let model = config
        .llm
        .model
        .clone()
        .or_else(|| env_nonempty("OPENAI_MODEL"))
        .unwrap_or_else(|| DEFAULT_MODEL.to_string());
    let min_backoff = env_nonempty("BMAD_PARTY_MIN_BACKOFF_MS")
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_millis(500));
    let settings = OpenAiSettings {
        base_url,
        api_key: key.unwrap_or_default(),
        model,
        request_timeout: Duration::from_secs(config.llm.request_timeout_seconds),
        stall_timeout: Duration::from_secs(config.llm.stall_timeout_seconds),
        max_retries: config.llm.max_retries,
        min_backoff,
    };
    OpenAiProvider::new(settings)
        .map(|p| Arc::new(p) as Arc<dyn Provider>)
        .map_err(|m| SetupError { message: m, code: 2 })
}

pub fn output_dir(cli: &Cli) -> PathBuf {
    cli.output.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_OUTPUT))
}

/// The facilitator's name when nothing names them: the login name.
fn login_name() -> String {
    env_nonempty("USER")
        .or_else(|| env_nonempty("USERNAME"))
        .unwrap_or_else(|| "Facilitator".into())
}

/// Everything for a party, or the reason there can be none.
pub fn build(cli: &Cli) -> Result<Setup, SetupError> {
    let source = workflow_source(cli);
    let config = load_config(cli, &source)?;
    let workflow = Workflow::load(source).map_err(SetupError::config)?;
    let room = load_room(cli)?;
    let provider = provider(cli, &config)?;
    let project = room.project.clone().unwrap_or_default();
    let resume = match &cli.resume {
        Some(p) => Some((p.clone(), resume_session(p, cli.lang)?)),
        None => None,
    };
    // Program text: --lang, the session being resumed, the project's
    // language (Chinese or English; others fall back to English), the
    // config, the locale.
    let lang = cli
        .lang
        .or_else(|| resume.as_ref().map(|(_, s)| s.fm.lang))
        .or_else(|| {
            project
                .communication_language
                .as_deref()
                .map(|l| Lang::from_setting(l).unwrap_or(Lang::En))
        })
        .or(config.party.lang)
        .or_else(Lang::from_env)
        .unwrap_or_default();
    // Whatever names the facilitator is shown on screen: no control characters.
    let user_name = crate::text::sanitize(
        &cli.user_name
            .clone()
            .or_else(|| resume.as_ref().map(|(_, s)| s.fm.user_name.clone()).filter(|n| !n.is_empty()))
            .or_else(|| project.user_name.clone())
            .unwrap_or_else(login_name),
    );
    // Agents speak the project's language whatever it is.
    let speech_language = project
        .communication_language
        .clone()
        .unwrap_or_else(|| lang.speech_name().to_string());
    let mut notices: Vec<String> = room.notice.iter().cloned().collect();
    if !room.problems.is_empty() {
        let (n, source) = (room.problems.len(), &room.source);
        let mut text = crate::tr!(
            "⚠️ {n} problem(s) in the roster ({source}); the usable agents are in the room:",
            "⚠️ 名单中有 {n} 个问题（{source}）；可用的智能体已入场："
        );
        for p in room.problems.iter().take(8) {
            text.push_str(&format!("\n- {}", p.to_string().lines().next().unwrap_or("")));
        }
        notices.push(text);
    }
    // A resumed session stays in the folder it was written to.
    let output = match &resume {
        Some((p, _)) if cli.output.is_none() => p
            .parent()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_else(|| output_dir(cli)),
        _ if cli.output.is_none() && project.output_folder.is_some() => project.output_folder.clone().expect("checked"),
        _ => output_dir(cli),
    };
    Ok(Setup {
        speech_language,
        document_language: project.document_output_language,
        notices,
        config,
        workflow,
        agents: room.agents,
        provider,
        lang,
        user_name,
        output,
        resume,
        saves: Default::default(),
    })
}

fn resume_session(path: &Path, lang: Option<Lang>) -> Result<crate::session::Session, SetupError> {
    let s = crate::session::load(path).map_err(|m| SetupError { message: m, code: 2 })?;
    if s.fm.workflow_completed || !s.fm.party_active {
        let lang = lang.unwrap_or(s.fm.lang);
        return Err(SetupError {
            message: format!("{}: {}", path.display(), t(lang, Msg::SessionFinished)),
            code: 1,
        });
    }
    Ok(s)
}
