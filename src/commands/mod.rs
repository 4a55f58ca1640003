//! What the program does besides a party: `sessions`, `export`, `import`,
//! `init`, `completions`, `man`, `cast` (persona cards: `cards.rs`; drafted
//! casts: `cast.rs`). Each prints its result or a message naming the
//! file and the cause, and returns the exit code.

mod cards;
mod cast;

use std::process::ExitCode;

use clap::CommandFactory;

use crate::cli::{Cli, Sub};
use crate::export::{self, Format};
use crate::i18n::{Lang, Printed, Say};
use crate::session::CastMember;

/// Runs `sub`; its messages are in `lang`, the start-up language.
pub(crate) fn run(cli: &Cli, sub: &Sub, lang: Lang) -> ExitCode {
    match sub {
        Sub::Sessions => sessions(cli, lang),
        Sub::Export {
            card: Some(agent), out, ..
        } => cards::export(cli, agent, out.as_deref(), lang),
        Sub::Import { cards, to, party_name } => cards::import(cli, cards, (to.as_deref(), party_name.as_deref()), lang),
        Sub::Cast {
            topic,
            from,
            size,
            yes,
            into,
        } => cast::cast(cli, topic, from, (usize::from(*size), *yes, *into), lang),
        Sub::Export {
            session: Some(session),
            markdown,
            out,
            ..
        } => {
            let format = if *markdown { Format::Markdown } else { Format::Html };
            // Agents a file written before the cast was saved names only
            // by id are looked up in the room this command line would load.
            let roster = |lang| {
                crate::setup::load_room(cli)
                    .map(|room| room.agents.iter().map(|a| CastMember::of(&a.in_language(lang))).collect())
                    .unwrap_or_default()
            };
            match export::export(session, format, out.as_deref(), roster) {
                Ok(path) => {
                    println!("{}", path.display());
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e.say(lang)),
            }
        }
        Sub::Init { force } => match crate::config::user::init(*force) {
            Ok(path) => {
                let path = path.display().to_string();
                println!("{}", Printed::ConfigWritten { path: &path }.say(lang));
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e.say(lang)),
        },
        Sub::Completions { shell } => {
            use std::io::Write as _;
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "bmad-party", &mut script);
            let mut script = String::from_utf8_lossy(&script).into_owned();
            if *shell == clap_complete::Shell::Bash {
                // clap_complete's bash script spells a subcommand's state
                // `bmad__subcmd__party__subcmd__export` in its case arms but
                // `bmad__party__subcmd__export` in the loop that sets it (the
                // bin name's hyphen), so no subcommand's arguments completed.
                // tests/program/conventions.rs completes with bash itself.
                script = script.replace("bmad__subcmd__party__subcmd__", "bmad__party__subcmd__");
            }
            match std::io::stdout().write_all(script.as_bytes()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => fail(&e.to_string()),
                _ => ExitCode::SUCCESS,
            }
        }
        // clap asks for a session when no card is named.
        Sub::Export { session: None, .. } => fail("export: a session file or --card AGENT"),
        Sub::Man => match man_page(&mut std::io::stdout()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => fail(&e.to_string()),
        },
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("bmad-party: {message}");
    ExitCode::from(1)
}

/// `bmad-party sessions`: the output folder's sessions, newest first;
/// files there that are not sessions are named on stderr.
fn sessions(cli: &Cli, lang: Lang) -> ExitCode {
    let dir = crate::setup::output_folder(cli).join("party-mode");
    let (found, broken) = crate::session::list::list(&dir);
    for e in &broken {
        eprintln!("bmad-party: {}", e.say(lang));
    }
    if found.is_empty() {
        let dir = dir.display().to_string();
        println!("{}", Printed::NoSessions { dir: &dir }.say(lang));
    } else {
        print!("{}", crate::session::list::render(&found, lang));
    }
    ExitCode::SUCCESS
}

/// The man page: clap's sections for the command line, then ENVIRONMENT,
/// EXIT STATUS and FILES from the same table as `--help`'s.
fn man_page(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    use roff::{bold, roman, Roff};
    let man = clap_mangen::Man::new(Cli::command().after_long_help(None::<&str>));
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    man.render_subcommands_section(out)?;
    let mut roff = Roff::new();
    for section in crate::cli::HELP_SECTIONS {
        roff.control("SH", [section.man]);
        for (what, en, _) in section.rows {
            roff.control("TP", []).text([bold(*what)]).text([roman(*en)]);
        }
    }
    roff.to_writer(out)?;
    man.render_version_section(out)
}
