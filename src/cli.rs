//! Command-line interface.

use std::path::PathBuf;

use clap::Parser;

use crate::i18n::Lang;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum EventFormat {
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
#[command(name = "bmad-party", version, disable_help_subcommand = true, after_long_help = after_help(Lang::En))]
pub(crate) struct Cli {
    /// Configuration file, over your own ~/.config/bmad-party/config.yaml key by key (default: the workflow's config.yaml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Folder with the party-mode workflow files (default: ./workflows/party-mode if present, else built in).
    #[arg(long, value_name = "DIR")]
    pub workflow: Option<PathBuf>,
    /// Folder of agent files *.md (default: ./agents if present, else the built-in room).
    #[arg(long, value_name = "DIR")]
    pub agents: Option<PathBuf>,
    /// Sessions are written to DIR/party-mode/ (default: ./_bmad-output).
    #[arg(long, value_name = "DIR", global = true)]
    pub output: Option<PathBuf>,
    /// Round limit (overrides the config).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_rounds: Option<u32>,
    /// Who streams at once in a round (overrides the config's round_mode).
    #[arg(long, value_enum, value_name = "MODE")]
    pub round_mode: Option<crate::config::RoundMode>,
    /// Active-time limit in minutes (overrides the config; fractions allowed).
    #[arg(long, value_name = "MIN", value_parser = positive_minutes, allow_negative_numbers = true)]
    pub max_minutes: Option<f64>,
    /// Model name (else the config, OPENAI_MODEL, the one the endpoint lists; an agent's own wins).
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (else OPENAI_BASE_URL or the config).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Which endpoint an agent speaks through: AGENT=NAME, NAME one of bmad.llm.endpoints or `default`; repeatable.
    #[arg(long = "endpoint", value_name = "AGENT=NAME")]
    pub endpoint: Vec<String>,
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
    /// Hold the party with a standing cast (bmad.parties in the config, or a BMAD project's groups).
    #[arg(long, value_name = "NAME", visible_alias = "group")]
    pub party: Option<String>,
    /// Print the parties (who is in each, whether it remembers), then exit.
    #[arg(long, visible_alias = "list-groups")]
    pub list_parties: bool,
    /// Neither read nor write the party's memory this time.
    #[arg(long)]
    pub no_memory: bool,
    /// Put a document (Markdown or text) in front of the room; repeatable.
    #[arg(long = "context", value_name = "FILE")]
    pub context: Vec<PathBuf>,
    /// Continue a saved session; with no FILE, the newest unfinished one in the output folder.
    #[arg(long, value_name = "FILE", num_args = 0..=1)]
    pub resume: Option<Option<PathBuf>>,
    /// Read facilitator messages from stdin, write the transcript or events to stdout.
    #[arg(long)]
    pub headless: bool,
    /// Output of --headless.
    #[arg(long, value_enum, default_value = "text")]
    pub events: EventFormat,
    /// Run the party as a step of another workflow: no facilitator, N rounds (--rounds), then takeaways; needs a TOPIC.
    #[arg(long, requires = "topic", conflicts_with_all = ["resume", "headless"])]
    pub non_interactive: bool,
    /// With --non-interactive: how many rounds the room talks (default 3).
    #[arg(long, value_name = "N", requires = "non_interactive", value_parser = clap::value_parser!(u32).range(1..=50))]
    pub rounds: Option<u32>,
    /// Write takeaways (decisions, open questions, disagreements, positions) as Markdown to FILE at the end.
    #[arg(long, value_name = "FILE")]
    pub takeaways: Option<PathBuf>,
    /// Write the log to FILE (default: <output>/party-mode/bmad-party.log).
    #[arg(long, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// The topic: the party opens with it, as with a first message.
    #[arg(value_name = "TOPIC")]
    pub topic: Option<String>,
    #[command(subcommand)]
    pub command: Option<Sub>,
}

/// A flag's minutes: a positive, finite number. Checked here so that the
/// error names the flag, not the config key it overrides. In English, as
/// clap's own words around it are: the arguments are read before any
/// language is known.
fn positive_minutes(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(m) if m > 0.0 && m.is_finite() => Ok(m),
        _ => Err(crate::i18n::Problem::PositiveMinutes.to_string()),
    }
}

/// The sections after the options, in English and Chinese: `--help`
/// shows them as text, the man page as its own sections (`man_sections`).
pub(crate) struct HelpSection {
    /// The man page's section title.
    pub man: &'static str,
    pub title: (&'static str, &'static str),
    /// (what, English, Chinese).
    pub rows: &'static [(&'static str, &'static str, &'static str)],
}

pub(crate) const HELP_SECTIONS: &[HelpSection] = &[
    HelpSection {
        man: "ENVIRONMENT",
        title: ("Environment:", "环境变量："),
        rows: &[
            (
                "OPENAI_API_KEY",
                "the key of a hosted endpoint (never written to a file or the log)",
                "托管服务的密钥（从不写入文件或日志）",
            ),
            (
                "OPENAI_BASE_URL",
                "an OpenAI-compatible endpoint, e.g. http://localhost:11434/v1",
                "OpenAI 兼容的服务地址，例如 http://localhost:11434/v1",
            ),
            (
                "OPENAI_MODEL",
                "the model, unless the config or --model names one; with none named, the one the endpoint lists",
                "模型（配置或 --model 未指定时）；都未指定时用服务端列出的模型",
            ),
            (
                "NO_COLOR",
                "any value: no colours on screen or in --headless text",
                "任意值：屏幕和 --headless 文本都不用颜色",
            ),
            ("BMAD_PARTY_LOG", "the log's level, e.g. debug", "日志级别，例如 debug"),
        ],
    },
    HelpSection {
        man: "EXIT STATUS",
        title: ("Exit status:", "退出码："),
        rows: &[
            (
                "0",
                "the party ended (you, a limit or the room ended it, or you left it to resume) and is saved",
                "派对结束（由您、限制或房间结束，或留待继续）且已保存",
            ),
            ("1", "the program stopped for another reason", "程序因其他原因停止"),
            (
                "2",
                "bad usage, or a config, agent or session file that needs fixing",
                "用法错误，或配置、角色、会话文件需要修改",
            ),
            (
                "3",
                "the model could not be reached or answered nothing; saved, and it can be resumed",
                "无法连接模型或模型没有回答；已保存，可以继续",
            ),
            (
                "4",
                "the session's end could not be saved (the file holds what was saved before)",
                "会话的结尾未能保存（文件中只有之前保存的内容）",
            ),
            (
                "130",
                "stopped by a signal (SIGINT, SIGTERM, SIGHUP); saved, and it can be resumed",
                "被信号中止（SIGINT、SIGTERM、SIGHUP）；已保存，可以继续",
            ),
        ],
    },
    HelpSection {
        man: "FILES",
        title: ("Files:", "文件："),
        rows: &[
            (
                "~/.config/bmad-party/config.yaml",
                "your defaults (`bmad-party init` writes one)",
                "您的默认设置（`bmad-party init` 可生成）",
            ),
            (
                "workflows/party-mode/config.yaml",
                "a project's config: overrides yours key by key",
                "项目的配置：逐项覆盖您的设置",
            ),
            (
                "<output>/party-mode/*.md",
                "the sessions (`bmad-party sessions` lists them)",
                "会话文件（`bmad-party sessions` 可列出）",
            ),
        ],
    },
];

/// The sections after the options as `--help` shows them.
fn after_help(lang: Lang) -> String {
    HELP_SECTIONS
        .iter()
        .map(|s| {
            let width = s.rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
            let title = if lang == Lang::Zh { s.title.1 } else { s.title.0 };
            let rows = s.rows.iter().map(|(what, en, zh)| {
                let text = if lang == Lang::Zh { zh } else { en };
                format!("  {what:width$}  {text}")
            });
            std::iter::once(title.to_string()).chain(rows).collect::<Vec<_>>().join("\n")
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// What else the program does besides a party.
#[derive(Debug, Clone, clap::Subcommand)]
pub(crate) enum Sub {
    /// List the sessions in the output folder, newest first: date, rounds, status, topic, file.
    Sessions,
    /// Write a session as one self-contained HTML page (the default) or a clean Markdown transcript.
    Export {
        /// The session file (a .md under <output>/party-mode/).
        #[arg(value_name = "SESSION", required_unless_present = "card")]
        session: Option<PathBuf>,
        /// Write this agent (id or name) as a Tavern character card (V2 JSON) instead.
        #[arg(long, value_name = "AGENT", conflicts_with_all = ["session", "html", "markdown"])]
        card: Option<String>,
        /// A page laid out by persona, readable in light and dark, printable.
        #[arg(long)]
        html: bool,
        /// The conversation as Markdown: no frontmatter, no turn markers.
        #[arg(long, conflicts_with = "html")]
        markdown: bool,
        /// Where to write (default: beside the session, .html or .transcript.md).
        #[arg(short = 'o', long = "out", value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Read Tavern character cards (V2/V3 JSON, or a PNG carrying one) into agent files.
    Import {
        /// The card files.
        #[arg(value_name = "CARD", required = true)]
        cards: Vec<PathBuf>,
        /// Where the agent files go (default: the agents folder beside your config, whose
        /// agents anyone can /invite or name in a party).
        #[arg(long, value_name = "DIR")]
        to: Option<PathBuf>,
        /// Also save the imported cards as a party of this name, their scenario its scene.
        #[arg(long = "party", value_name = "NAME")]
        party_name: Option<String>,
    },
    /// Draft a cast for a question with the model, review it, and save it as agents and a named party.
    Cast {
        /// The question the room is for.
        #[arg(value_name = "TOPIC")]
        topic: String,
        /// Draw the personas from this document (interview notes, a table, minutes); repeatable.
        #[arg(long = "from", value_name = "FILE")]
        from: Vec<PathBuf>,
        /// How many personas (3 to 6).
        #[arg(long, value_name = "N", default_value_t = crate::engine::cast::DEFAULT_SIZE as u8, value_parser = clap::value_parser!(u8).range(3..=6))]
        size: u8,
        /// Keep the draft without reviewing it.
        #[arg(long)]
        yes: bool,
        /// Where a kept cast goes: your config folders, or the BMAD project's party mode
        /// (bmad: your own layer, bmad-team: the team's).
        #[arg(long, value_enum, default_value_t = CastInto::Config)]
        into: CastInto,
    },
    /// Write a commented starter config to your config folder (never a key), then say where.
    Init {
        /// Replace a config that is already there.
        #[arg(long)]
        force: bool,
    },
    /// Print a completion script for a shell.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        #[arg(value_enum, hide_possible_values = true)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `bmad-party man > bmad-party.1`.
    Man,
}

/// Where `cast` saves a kept cast.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum CastInto {
    /// Agent files and a party file beside your config.
    Config,
    /// The BMAD project's `_bmad/custom/bmad-party-mode.user.toml`.
    Bmad,
    /// The BMAD project's `_bmad/custom/bmad-party-mode.toml`.
    BmadTeam,
}

/// Each argument's help in Chinese, by the argument's id.
const HELP_ZH: &[(&str, &str)] = &[
    (
        "config",
        "配置文件，逐项覆盖您自己的 ~/.config/bmad-party/config.yaml（默认：工作流的 config.yaml）",
    ),
    (
        "workflow",
        "派对模式工作流文件夹（默认：若存在则用 ./workflows/party-mode，否则用内置）",
    ),
    ("agents", "智能体文件夹 *.md（默认：若存在则用 ./agents，否则用内置房间）"),
    (
        "output",
        "会话写入 DIR/party-mode/（默认：./_bmad-output 或 BMAD 项目的 output_folder）",
    ),
    ("max_rounds", "轮次上限（覆盖配置）"),
    ("round_mode", "一轮中谁同时发言（覆盖配置的 round_mode）：依次、先一后众、同时"),
    ("max_minutes", "活跃时间上限，单位分钟（覆盖配置；可用小数）"),
    (
        "model",
        "模型名称（否则用配置、OPENAI_MODEL、服务端列出的模型；智能体自己的设置优先）",
    ),
    (
        "base_url",
        "OpenAI 兼容的服务地址，例如 http://localhost:11434/v1（否则用 OPENAI_BASE_URL 或配置）",
    ),
    (
        "endpoint",
        "某个智能体通过哪个服务端点发言：AGENT=NAME，NAME 为 bmad.llm.endpoints 中的名字或 `default`；可重复",
    ),
    ("lang", "程序自身文字的语言"),
    ("user_name", "主持人的名字（默认：BMAD 项目的 user_name 或 $USER）"),
    ("rehearsal", "即使配置了服务，也使用离线排练"),
    ("bmad", "BMAD 项目（其文件夹或 _bmad/）；默认：在当前目录或上级目录中查找 _bmad/"),
    ("list_agents", "列出将要使用的智能体名单（及其中的问题）后退出"),
    ("party", "用一个固定阵容开派对（配置中的 bmad.parties，或 BMAD 项目的分组）"),
    ("list_parties", "列出各个派对（成员、是否有记忆）后退出"),
    ("no_memory", "本次既不读取也不写入派对的记忆"),
    ("context", "把一份文档（Markdown 或文本）放到房间面前；可重复"),
    ("resume", "继续一个已保存的会话；不给 FILE 时继续输出文件夹中最新的未结束会话"),
    ("headless", "从标准输入读取主持人消息，把对话记录或事件写到标准输出"),
    ("events", "--headless 的输出格式"),
    ("log_file", "日志文件（默认：<output>/party-mode/bmad-party.log）"),
    ("topic", "话题：派对以它开场，如同第一条消息"),
    (
        "non_interactive",
        "作为其他工作流的一步运行派对：无主持人，进行 N 轮（--rounds）后写出要点；需要 TOPIC",
    ),
    ("rounds", "与 --non-interactive 一起：讨论的轮数（默认 3）"),
    ("takeaways", "结束时把要点（决定、未决问题、分歧、各方立场）以 Markdown 写入 FILE"),
];

/// The same command line with Chinese help texts.
fn in_chinese(cmd: clap::Command) -> clap::Command {
    let mut cmd = cmd
        .about("一群 AI 角色围绕您的话题展开讨论：有边界、随时保存、可以继续。")
        .long_about(
            "一群 AI 角色围绕您的话题展开讨论：有边界、随时保存、可以继续。\n\n未设置 API 密钥和服务地址时，使用内置的离线排练（无需网络）。设置 OPENAI_API_KEY 和/或 OPENAI_BASE_URL（或 --base-url）即可使用任何 OpenAI 兼容的服务。",
        )
        .help_template(
            "{about-with-newline}\n用法：{usage}\n\n命令：\n{subcommands}\n\n参数：\n{positionals}\n\n选项：\n{options}{after-help}",
        )
        .after_long_help(after_help(Lang::Zh))
        .mut_subcommand("sessions", |s| s.about("列出输出文件夹中的会话，最新的在前：日期、轮次、状态、话题、文件"))
        .mut_subcommand("export", |s| {
            s.about("把会话导出为一个独立的 HTML 页面（默认）或干净的 Markdown 记录")
                .mut_arg("session", |a| a.help("会话文件（<output>/party-mode/ 下的 .md）"))
                .mut_arg("html", |a| a.help("按角色排版的页面，明暗主题皆可读，可打印"))
                .mut_arg("markdown", |a| a.help("Markdown 格式的对话：没有 frontmatter 和轮次标记"))
                .mut_arg("out", |a| a.help("写到哪里（默认：会话旁边，.html 或 .transcript.md）"))
                .mut_arg("card", |a| a.help("改为把这个智能体（id 或名字）写成 Tavern 角色卡（V2 JSON）"))
        })
        .mut_subcommand("cast", |s| {
            s.about("让模型为一个问题起草阵容，审阅后保存为智能体和一个具名派对")
                .mut_arg("topic", |a| a.help("这个房间要讨论的问题"))
                .mut_arg("from", |a| a.help("从这份文档（访谈记录、表格、会议纪要）中提炼角色；可重复"))
                .mut_arg("size", |a| a.help("角色数（3 到 6）"))
                .mut_arg("yes", |a| a.help("不审阅，直接保留草稿"))
                .mut_arg("into", |a| {
                    a.help("保留的阵容存到哪里：您的配置文件夹，或 BMAD 项目的派对模式（bmad：您个人的一层，bmad-team：团队的）")
                })
        })
        .mut_subcommand("import", |s| {
            s.about("把 Tavern 角色卡（V2/V3 JSON，或携带角色卡的 PNG）读成智能体文件")
                .mut_arg("cards", |a| a.help("角色卡文件"))
                .mut_arg("to", |a| a.help("智能体文件写到哪里（默认：配置旁边的 agents 文件夹，其中的智能体可以 /invite 或在派对中点名）"))
                .mut_arg("party_name", |a| a.help("同时把导入的角色卡存为一个以此命名的派对，卡中的场景作为派对场景"))
        })
        .mut_subcommand("init", |s| {
            s.about("在您的配置文件夹写入带注释的初始配置（从不写密钥），并告诉您位置")
                .mut_arg("force", |a| a.help("替换已有的配置"))
        })
        .mut_subcommand("completions", |s| {
            s.about("输出某个 shell 的补全脚本")
                .mut_arg("shell", |a| a.help("bash、zsh、fish、elvish 或 powershell"))
        })
        .mut_subcommand("man", |s| s.about("输出 man 手册页（roff），例如 `bmad-party man > bmad-party.1`"))
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(clap::Arg::new("help").short('h').long("help").action(clap::ArgAction::Help).help("显示帮助"))
        .arg(clap::Arg::new("version").short('V').long("version").action(clap::ArgAction::Version).help("显示版本"));
    for (id, help) in HELP_ZH {
        cmd = cmd.mut_arg(*id, |a| a.help(*help));
    }
    let subs: Vec<String> = cmd.get_subcommands().map(|s| s.get_name().to_string()).collect();
    for name in subs {
        cmd = cmd.mut_subcommand(name, chinese_frame);
    }
    cmd
}

/// A subcommand's help headings and help flag in Chinese.
fn chinese_frame(s: clap::Command) -> clap::Command {
    let template = if s.get_positionals().next().is_some() {
        "{about-with-newline}\n用法：{usage}\n\n参数：\n{positionals}\n\n选项：\n{options}{after-help}"
    } else {
        "{about-with-newline}\n用法：{usage}\n\n选项：\n{options}{after-help}"
    };
    s.help_template(template).disable_help_flag(true).arg(
        clap::Arg::new("help")
            .short('h')
            .long("help")
            .action(clap::ArgAction::Help)
            .help("显示帮助"),
    )
}

impl Cli {
    /// Parses the command line; help is in Chinese when `--lang zh` is given
    /// or the locale says Chinese.
    pub(crate) fn parse_localized() -> Cli {
        use clap::{CommandFactory, FromArgMatches};
        let args: Vec<String> = std::env::args().collect();
        let asked = args
            .windows(2)
            .find(|w| w[0] == "--lang")
            .map(|w| w[1].clone())
            .or_else(|| args.iter().find_map(|a| a.strip_prefix("--lang=").map(String::from)));
        let zh = match asked {
            Some(l) => l == "zh",
            None => Lang::from_env() == Some(Lang::Zh),
        };
        let cmd = if zh { in_chinese(Cli::command()) } else { Cli::command() };
        let matches = cmd.get_matches();
        Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    }
}
