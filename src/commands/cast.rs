//! `cast TOPIC [--from FILE]… [--size N] [--yes]`: a cast drafted by the
//! model (`crate::engine::cast`), shown as JSON on stdout, reviewed line by line
//! from stdin (`keep`, `drop N`, `again N`, `edit N FIELD TEXT`, `name`,
//! `scene`, `quit`; its hints on stderr), then saved as agent files and a
//! named party in the user's config folders.

use std::io::{BufRead as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use super::fail;
use crate::cli::{CastInto, Cli};
use crate::engine::cast::ask::{said, Asker, Drafted, OneDrafted};
use crate::engine::cast::bmad::Layer;
use crate::engine::cast::review::{self, Applied};
use crate::engine::cast::save::{save, Saved};
use crate::engine::cast::{Brief, Draft, Sources};
use crate::i18n::{Cast, Lang, Say};

/// The exit code when the draft was refused, or stdin ended with no decision.
const NOTHING_SAVED: u8 = 1;

/// `how`: the cast's size, whether to keep it unreviewed, where it goes.
pub(super) fn cast(cli: &Cli, topic: &str, from: &[PathBuf], how: (usize, bool, CastInto), lang: Lang) -> ExitCode {
    let (size, yes, into) = how;
    let setup = match crate::setup::casting(cli) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("bmad-party: {}", e.say(lang));
            return ExitCode::from(e.exit_code());
        }
    };
    let lang = setup.lang;
    let layer = match (into, &setup.bmad_dir) {
        (CastInto::Config, _) => None,
        (CastInto::Bmad | CastInto::BmadTeam, None) => return fail(&Cast::NoBmadProject.say(lang)),
        (CastInto::Bmad, Some(dir)) => Some((dir.clone(), Layer::Personal)),
        (CastInto::BmadTeam, Some(dir)) => Some((dir.clone(), Layer::Team)),
    };
    let mut documents = Vec::new();
    for path in from {
        match crate::engine::documents::read(path) {
            Ok(d) => documents.push((d.name, d.text)),
            Err(e) => {
                eprintln!("bmad-party: {}", e.say(lang));
                return ExitCode::from(2);
            }
        }
    }
    let sources = Sources::new(&documents);
    if sources.left_out > 0 {
        eprintln!("{}", Cast::LeftOut { lines: sources.left_out }.say(lang));
    }
    let brief = Brief {
        topic: crate::text::sanitize(topic).trim().to_string(),
        size,
        language: setup.speech_language.clone(),
        lang,
        taken: setup.target.names.clone(),
        sources,
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => return fail(&e.to_string()),
    };
    let asker = Asker {
        provider: setup.provider.as_ref(),
        workflow: &setup.workflow,
    };
    // An endpoint asked first settles the model it serves. One that does
    // not answer now is said, and asked anyway: a local server busy with
    // another request lists its models only after it (the call waits and
    // retries as a party's does, and says the cause if it gives up).
    if let Some(check) = runtime.block_on(setup.provider.check()) {
        if let Some(cause) = check.unreachable {
            eprintln!("{}", Cast::NotAnswering { cause: cause.say(lang) }.say(lang));
        }
    }
    let model = setup.provider.info().model;
    eprintln!(
        "{}",
        Cast::Drafting {
            topic: crate::text::ellipsize(&brief.topic, 80),
            model,
            size
        }
        .say(lang)
    );
    let started = std::time::Instant::now();
    let drafted = runtime.block_on(asker.draft(&brief, &mut |note| eprintln!("{}", note.say(lang))));
    tracing::info!(ms = started.elapsed().as_millis() as u64, "a cast was drafted");
    let mut draft = match drafted {
        Drafted::Ready { draft, left_out, .. } => {
            if !left_out.is_empty() {
                eprintln!(
                    "{}",
                    Cast::Salvaged {
                        dropped: left_out.join(", ")
                    }
                    .say(lang)
                );
            }
            draft
        }
        Drafted::Refused { attempts, flaws } => {
            eprintln!(
                "bmad-party: {}",
                Cast::Refused {
                    attempts,
                    flaws: said(&flaws, &brief)
                }
                .say(lang)
            );
            return ExitCode::from(NOTHING_SAVED);
        }
        Drafted::Failed(cause) => return fail(&Cast::ModelFailed { cause: cause.say(lang) }.say(lang)),
    };
    show(&draft, &brief.sources);
    if !yes && !reviewed(&mut draft, &brief, &asker, &runtime) {
        return ExitCode::from(NOTHING_SAVED);
    }
    let saved = match &layer {
        None => save(&draft, &brief.sources, &setup.target),
        Some((dir, layer)) => crate::engine::cast::bmad::save(&draft, &brief.topic, dir, *layer, &setup.target),
    };
    match saved {
        Ok(saved) => {
            report(&saved, lang);
            ExitCode::SUCCESS
        }
        Err(cause) => fail(&Cast::NotSaved { cause }.say(lang)),
    }
}

/// The review: true when the facilitator keeps the draft (as it now
/// stands), false when they quit or stdin ends first.
fn reviewed(draft: &mut Draft, brief: &Brief, asker: &Asker<'_>, runtime: &tokio::runtime::Runtime) -> bool {
    let lang = brief.lang;
    let prompt = || {
        eprint!("> ");
        let _ = std::io::stderr().flush();
    };
    eprintln!("{}", Cast::ReviewHelp.say(lang));
    prompt();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        match review::parse(&line, draft.personas.len()).and_then(|step| review::apply(draft, step)) {
            Ok(Applied::Keep) => match review::unsaveable(draft).as_slice() {
                [] => return true,
                flaws => eprintln!("{}", said(flaws, brief)),
            },
            Ok(Applied::Quit) => {
                eprintln!("{}", Cast::NothingSaved.say(lang));
                return false;
            }
            Ok(Applied::Shown { .. }) => show(draft, &brief.sources),
            Ok(Applied::Again(at)) => {
                let who = draft.personas[at].name.clone();
                eprintln!("{}", Cast::AskingOne { who: who.clone() }.say(lang));
                match runtime.block_on(asker.one(brief, draft, at)) {
                    OneDrafted::Ready(p) => {
                        draft.personas[at] = p;
                        show(draft, &brief.sources);
                    }
                    OneDrafted::Refused(flaws) => eprintln!(
                        "{}",
                        Cast::OneRefused {
                            who,
                            flaws: said(&flaws, brief)
                        }
                        .say(lang)
                    ),
                    OneDrafted::Failed(cause) => eprintln!("{}", Cast::ModelFailed { cause: cause.say(lang) }.say(lang)),
                }
            }
            Err(e) => eprintln!("{}", e.say(lang)),
        }
        prompt();
    }
    eprintln!("\n{}", Cast::NothingSaved.say(lang));
    false
}

/// The draft as JSON on stdout.
fn show(draft: &Draft, sources: &Sources) {
    println!("{}", serde_json::to_string_pretty(&draft.view(sources)).unwrap_or_default());
}

fn report(saved: &Saved, lang: Lang) {
    for (from, to) in &saved.renamed {
        println!(
            "{}",
            Cast::Renamed {
                from: from.clone(),
                to: to.clone()
            }
            .say(lang)
        );
    }
    // The config's folder holding `agents/` and `parties/`, or the
    // project's file.
    let dir = match saved.files.as_slice() {
        [one] => one.display().to_string(),
        files => files
            .last()
            .and_then(|p| p.parent()?.parent())
            .map(|d| d.display().to_string())
            .unwrap_or_default(),
    };
    println!(
        "{}",
        Cast::Saved {
            name: saved.party.name.clone(),
            id: saved.party.id.clone(),
            count: saved.agents.len(),
            dir
        }
        .say(lang)
    );
    println!(
        "{}",
        Cast::StartIt {
            id: saved.party.id.clone()
        }
        .say(lang)
    );
}
