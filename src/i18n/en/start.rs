//! English: Start.

use super::problem;
use crate::i18n::keys::Start;

pub(in crate::i18n) fn start(k: &Start) -> String {
    match k {
        // Arguments and settings that cannot work.
        Start::MaxMinutes { minutes } => format!("--max-minutes: `{minutes}` must be a positive number of minutes"),
        Start::BaseUrl { url } => format!("OPENAI_BASE_URL: `{url}` is not an http:// or https:// URL"),
        Start::TopicAndResume { topic } => {
            format!("“{topic}” would open a new party, and --resume continues one: give one of the two")
        }
        Start::NothingToResume { dir } => {
            format!("no session to resume in {dir}: every one there has ended (`bmad-party sessions` lists them)")
        }
        Start::NoBmadInstall { dir } => {
            format!("--bmad {dir}: no BMAD install there (looked for _bmad/, .bmad/ or bmad/ with a config)")
        }
        Start::NoAgentsFound { dir } => {
            format!("{dir}: no agents found (looked for config.toml [agents.*], _config/agent-manifest.csv, _cfg/agent-manifest.csv)")
        }
        Start::NoAgentsBuiltIn { dir } => {
            format!("{}; using the built-in room", start(&Start::NoAgentsFound { dir: dir.clone() }))
        }

        // The party named.
        Start::NoPartyDefined { requested } => format!(
            "no party named `{requested}`: none is defined (bmad.parties in the config, or a BMAD project's [[workflow.party_groups]])"
        ),
        Start::NoParty { requested, known } => {
            format!("no party named `{requested}`; the parties: {known} (`--list-parties` shows them)")
        }
        Start::PartyEmpty { party, named } => {
            format!("party `{party}`: none of its members ({named}) is in the room (`--list-agents` shows who is)")
        }

        // The session to resume.
        Start::SessionUnreadable { file, error } => format!("{file}: cannot read the session file: {error}"),
        Start::NotASession { file } => {
            format!("{file}: not a party session file: it does not start with a `---` YAML frontmatter block")
        }
        Start::WrongWorkflow { file, found } => format!("{file}: `workflowType` is `{found}`, not `party-mode`"),
        Start::SessionHeld { file, pid: Some(pid) } => {
            format!("{file}: this session is open in another bmad-party (process {pid}); close that one first")
        }
        Start::SessionHeld { file, pid: None } => {
            format!("{file}: this session is open in another bmad-party; close that one first")
        }

        // Notices for the facilitator as the party opens.
        Start::NewerCopy { copy, file } => {
            format!("Resuming the newer copy {copy}: it went on there while {file} could not be written.")
        }
        Start::MemoryUnreadable { shown, error } => {
            format!("⚠️ {shown}: the party's memory cannot be read ({error}); the room starts without it")
        }
        Start::NotInRoom { party, missing } => {
            format!("⚠️ {party}: not in the room: {missing} (`--list-parties` shows who is)")
        }
        Start::RehearsalForAll { endpoints } => {
            format!("The rehearsal speaks for every agent: the endpoints given to agents ({endpoints}) are not used.")
        }
        Start::EndpointChanged { agent, now, was } => format!("{agent} now speaks through {now}, was {was}."),
        Start::EndpointKept { agent, id, endpoint } => {
            format!("{agent} still speaks through {endpoint}, as in this session so far (`--endpoint {id}=default` moves them).")
        }
        Start::SameUrlOtherKeys { url, first, second } => {
            format!(
                "⚠️ endpoints `{first}` and `{second}` are both {url} but send different keys: is one of them meant for another server?"
            )
        }
        Start::RosterProblems { n, source } => {
            format!("⚠️ {n} problem(s) in the roster ({source}); the usable agents are in the room:")
        }
        Start::DocumentLeftOut { why } => format!("⚠️ {}; the room goes on without it", problem(why)),

        // Subcommands.
        Start::NoConfigFolder => "this system names no config folder (set XDG_CONFIG_HOME or HOME)".into(),
        Start::ConfigThere { shown } => format!(
            "{shown} is already there; edit it, or replace it with `bmad-party init --force` (the old one is kept as config.yaml.bak)"
        ),
        Start::KeepsakeOverSession { path } => {
            format!("{path}: the keepsake would overwrite its own session file; give another -o FILE")
        }
    }
}
