//! `import CARD…` and `export --card AGENT`: Tavern character cards in
//! and out (`roster::cards` reads and writes them).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::fail;
use crate::cli::Cli;
use crate::i18n::{Lang, Printed, Say};
use crate::roster::cards;

/// Reads each card into an agent file in `to` (else the user's agents
/// folder), and with `party` a name, saves the imported ones as a party
/// of that name whose scene is their scenarios. A card that cannot be
/// read is named with its cause and the others are still imported; the
/// exit code is 2 if any was refused.
pub(super) fn import(cli: &Cli, files: &[PathBuf], (to, party): (Option<&Path>, Option<&str>), lang: Lang) -> ExitCode {
    let Some(dir) = to.map(Path::to_path_buf).or_else(crate::config::user::agents_dir) else {
        return fail(&crate::i18n::Start::NoConfigFolder.say(lang));
    };
    // Every id the program knows, and the files already there, are taken.
    let mut taken: Vec<String> = crate::setup::load_room(cli)
        .map(|room| room.pool().into_iter().map(|a| a.id.to_lowercase()).collect())
        .unwrap_or_default();
    let mut refused = false;
    let mut imported: Vec<(String, Option<String>)> = Vec::new();
    for file in files {
        let shown = file.display().to_string();
        let card = std::fs::read(file)
            .map_err(|e| e.to_string())
            .and_then(|bytes| cards::read(&bytes).map_err(|e| e.to_string()));
        let refuse = |cause: &str| eprintln!("{}", Printed::CardRefused { file: &shown, cause }.say(lang));
        let card = match card {
            Ok(card) => card,
            Err(cause) => {
                refuse(&cause);
                refused = true;
                continue;
            }
        };
        let id = cards::free_id(&cards::id_for(&card.name), |id| {
            !taken.contains(&id.to_lowercase()) && !dir.join(format!("{id}.md")).exists()
        });
        let made = cards::to_agent(&card, &id);
        let path = dir.join(format!("{id}.md"));
        if let Err(e) = write_new(&path, &made.text) {
            refuse(&format!("{}: {e}", path.display()));
            refused = true;
            continue;
        }
        taken.push(id.to_lowercase());
        imported.push((id.clone(), made.scene.clone()));
        let path = path.display().to_string();
        println!(
            "{}",
            Printed::CardImported {
                name: &made.name,
                id: &id,
                path: &path
            }
            .say(lang)
        );
        if !made.dropped.is_empty() {
            println!(
                "{}",
                Printed::CardDropped {
                    fields: &made.dropped.join(", ")
                }
                .say(lang)
            );
        }
        if let Some(scene) = &made.scene {
            println!(
                "{}",
                Printed::CardScene {
                    scene: &crate::text::ellipsize(scene, 200)
                }
                .say(lang)
            );
        }
    }
    match party {
        Some(name) if !imported.is_empty() => {
            if let Err(cause) = save_party(cli, name, &imported, lang) {
                refuse_party(&cause, lang);
                refused = true;
            }
        }
        _ if !imported.is_empty() => println!("{}", Printed::CardsUse.say(lang)),
        _ => {}
    }
    if refused {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

/// Writes the agent `name` names (id, alias or name, in the room or the
/// pool) as a V2 card: to `out`, else `<id>.card.json` here.
pub(super) fn export(cli: &Cli, name: &str, out: Option<&Path>, lang: Lang) -> ExitCode {
    let room = match crate::setup::load_room(cli) {
        Ok(room) => room,
        Err(e) => return fail(&e.say(lang)),
    };
    let pool = room.pool();
    let Some(agent) = pool.iter().find(|a| crate::roster::parties::answers_to(a, name)) else {
        let known: Vec<&str> = pool.iter().map(|a| a.id.as_str()).collect();
        return fail(
            &Printed::NoAgentCalled {
                name,
                known: &known.join(", "),
            }
            .say(lang),
        );
    };
    let path = out.map_or_else(|| PathBuf::from(format!("{}.card.json", agent.id)), Path::to_path_buf);
    let json = serde_json::to_string_pretty(&cards::to_card(agent)).unwrap_or_default();
    match std::fs::write(&path, json + "\n") {
        Ok(()) => {
            println!("{}", path.display());
            ExitCode::SUCCESS
        }
        Err(e) => fail(&format!("{}: {e}", path.display())),
    }
}

fn refuse_party(cause: &str, lang: Lang) {
    eprintln!("{}", crate::i18n::Cast::NotSaved { cause: cause.to_string() }.say(lang));
}

/// The imported cards as a party named `name` in the user's parties
/// folder: its members the cards' ids, its scene their scenarios (each
/// once). An existing file is never written over.
fn save_party(cli: &Cli, name: &str, imported: &[(String, Option<String>)], lang: Lang) -> Result<(), String> {
    let dir = crate::config::user::parties_dir().ok_or_else(|| crate::i18n::Start::NoConfigFolder.say(lang))?;
    let known: Vec<String> = crate::setup::load_room(cli)
        .map(|room| room.parties.defs.into_iter().map(|d| d.id).collect())
        .unwrap_or_default();
    let name = crate::text::sanitize(name).trim().to_string();
    let id = cards::free_id(&cards::id_with(&name, "party"), |id| {
        !known.iter().any(|k| k.eq_ignore_ascii_case(id)) && !dir.join(format!("{id}.yaml")).exists()
    });
    let mut scenes: Vec<&str> = Vec::new();
    for s in imported.iter().filter_map(|(_, s)| s.as_deref()) {
        if !scenes.contains(&s) {
            scenes.push(s);
        }
    }
    let path = dir.join(format!("{id}.yaml"));
    let def = crate::config::PartyDef {
        id: id.clone(),
        name: if name.is_empty() { id.clone() } else { name },
        scene: Some(scenes.join("\n\n")).filter(|s| !s.is_empty()),
        members: Some(imported.iter().map(|(id, _)| id.clone()).collect()),
        memory: true,
        source: path.display().to_string(),
        translations: Default::default(),
    };
    write_new(&path, &crate::config::party_file(&def)).map_err(|e| format!("{}: {e}", path.display()))?;
    let shown = path.display().to_string();
    println!(
        "{}",
        Printed::CardParty {
            name: &def.name,
            id: &id,
            path: &shown
        }
        .say(lang)
    );
    Ok(())
}

/// Writes `text` to a new file at `path`, making its folder; never over a
/// file (`create_new` refuses one that appeared since the name was chosen).
fn write_new(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?
        .write_all(text.as_bytes())
}
