use std::io::IsTerminal;
use std::process::ExitCode;

use bmad_party::cli::Cli;
use bmad_party::frontend::{headless, tui};
use bmad_party::i18n::{self, Lang};
use bmad_party::{logging, roster, setup};

fn main() -> ExitCode {
    let cli = Cli::parse_localized();
    // Messages before the party (errors, problems) already speak the
    // facilitator's language: --lang, the BMAD project's, or the locale.
    let project_lang = cli
        .bmad
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .and_then(|d| bmad_party::roster::bmad::detect(&d))
        .and_then(|p| bmad_party::roster::bmad::project_config(&p).communication_language)
        .map(|l| Lang::from_setting(&l).unwrap_or(Lang::En));
    i18n::set_ui_lang(cli.lang.or(project_lang).or_else(Lang::from_env).unwrap_or_default());
    if let Some(sub) = &cli.command {
        return bmad_party::commands::run(&cli, sub);
    }
    if cli.list_agents {
        return match setup::load_room(&cli) {
            Ok(room) => {
                print!("{}", roster::list_agents(&room));
                ExitCode::from(if room.agents.is_empty() { 2 } else { 0 })
            }
            Err(e) => {
                eprintln!("bmad-party: {e}");
                ExitCode::from(e.exit_code())
            }
        };
    }
    if cli.list_parties {
        return match setup::list_parties(&cli) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("bmad-party: {e}");
                ExitCode::from(e.exit_code())
            }
        };
    }
    let party = match setup::build(&cli) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("bmad-party: {e}");
            return ExitCode::from(e.exit_code());
        }
    };
    i18n::set_ui_lang(party.lang);
    let log_path = cli
        .log_file
        .clone()
        .unwrap_or_else(|| party.output.join("party-mode").join("bmad-party.log"));
    let _log = logging::init(&log_path);
    // One thread runs the party: the work per token is small, and a
    // single-threaded runtime spares a cross-thread wake-up for every token.
    // (Saves still run on the blocking pool, off the UI's path.)
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "bmad-party: {}",
                bmad_party::tr!("cannot start the async runtime: {e}", "无法启动异步运行时：{e}")
            );
            return ExitCode::from(1);
        }
    };
    // The full screen needs a terminal on both ends; anything else (a pipe,
    // a file, --headless) gets the line-oriented driver on the same engine.
    let full_screen = !cli.headless && !cli.non_interactive && std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    // The driver runs as a task beside the engine, not as block_on's own
    // future: waking block_on's future goes through the I/O driver (an
    // eventfd write per wake-up, i.e. per streamed token), while waking a
    // task on the same thread is a push onto the local run queue.
    let topic = cli.topic.clone();
    let non_interactive = cli
        .non_interactive
        .then(|| cli.rounds.unwrap_or(bmad_party::setup::NON_INTERACTIVE_ROUNDS));
    let driver = async move {
        if let (Some(rounds), Some(topic)) = (non_interactive, topic.clone()) {
            bmad_party::frontend::batch::run(party, rounds, topic).await
        } else if full_screen {
            tui::run(party, topic).await
        } else {
            headless::run(party, cli.events, topic).await
        }
    };
    let code = runtime.block_on(async {
        match tokio::spawn(driver).await {
            Ok(code) => code,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => 1,
        }
    });
    if !full_screen {
        // Tokio reads stdin on a blocking thread, and dropping the runtime
        // waits for it: a driver that keeps its pipe open after the party
        // ended would keep the process alive. The headless engine saves
        // inline, so nothing else is left on that pool.
        runtime.shutdown_background();
    }
    ExitCode::from(code as u8)
}
