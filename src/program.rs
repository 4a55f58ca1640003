//! The program from its command line to its exit status: `main.rs` only
//! calls `main` here, so the library's surface is what tests and benches
//! need.

use std::io::IsTerminal;
use std::process::ExitCode;

use crate::cli::Cli;
use crate::engine::Setup;
use crate::error::ExitStatus;
use crate::frontend::{headless, tui};
use crate::i18n::{Lang, Printed, Say};
use crate::{logging, roster, setup};

/// The program: a subcommand, a listing, or a party in its front end;
/// the exit status (`frontend::exit`).
pub fn main() -> ExitCode {
    let cli = Cli::parse_localized();
    let lang = startup_lang(&cli);
    if let Some(sub) = &cli.command {
        return crate::commands::run(&cli, sub, lang);
    }
    if let Some(code) = listing(&cli, lang) {
        return code;
    }
    let party = match setup::build(&cli) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("bmad-party: {}", e.say(lang));
            return ExitCode::from(e.exit_code());
        }
    };
    let log_path = cli
        .log_file
        .clone()
        .unwrap_or_else(|| party.output.join("party-mode").join("bmad-party.log"));
    let _log = logging::init(&log_path);
    run_party(cli, party)
}

/// The language of messages before the party (errors, problems): --lang,
/// the BMAD project's, or the locale.
fn startup_lang(cli: &Cli) -> Lang {
    let project_lang = cli
        .bmad
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .and_then(|d| crate::roster::bmad::detect(&d))
        .and_then(|p| crate::roster::bmad::project_config(&p).communication_language)
        .map(|l| Lang::from_setting(&l).unwrap_or(Lang::En));
    cli.lang.or(project_lang).or_else(Lang::from_env).unwrap_or_default()
}

/// `--list-agents` and `--list-parties`: printed in a new party's
/// language, and the exit code; None for a party. Their errors are said in
/// `lang`, the start-up language.
fn listing(cli: &Cli, lang: Lang) -> Option<ExitCode> {
    let listed = if cli.list_agents {
        setup::load_room(cli).and_then(|mut room| {
            let lang = setup::listing_lang(cli, &room);
            room.in_language(lang);
            let via = setup::speaks_through(cli, &mut room, lang)?;
            print!("{}", roster::list_agents(&room, lang, &via));
            Ok(ExitCode::from(
                if room.agents.is_empty() {
                    ExitStatus::Usage
                } else {
                    ExitStatus::Ended
                }
                .code(),
            ))
        })
    } else if cli.list_parties {
        setup::list_parties(cli).map(|text| {
            print!("{text}");
            ExitCode::SUCCESS
        })
    } else {
        return None;
    };
    Some(listed.unwrap_or_else(|e| {
        eprintln!("bmad-party: {}", e.say(lang));
        ExitCode::from(e.exit_code())
    }))
}

/// Runs the party on one thread: the work per token is small, and a
/// single-threaded runtime spares a cross-thread wake-up for every token
/// (saves still run on the blocking pool, off the UI's path).
fn run_party(cli: Cli, party: Setup) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            let error = e.to_string();
            eprintln!("bmad-party: {}", Printed::CannotStartRuntime { error: &error }.say(party.lang));
            return ExitCode::from(ExitStatus::Failed.code());
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
        .then(|| cli.rounds.unwrap_or(crate::setup::NON_INTERACTIVE_ROUNDS));
    let driver = async move {
        if let (Some(rounds), Some(topic)) = (non_interactive, topic.clone()) {
            crate::frontend::batch::run(party, rounds, topic).await
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
