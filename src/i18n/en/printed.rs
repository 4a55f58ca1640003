//! English: Printed.

use crate::i18n::keys::Printed;

pub(in crate::i18n) fn printed(k: &Printed<'_>) -> String {
    match k {
        // Headless: the party as it goes.
        Printed::RehearsalBadge => "offline rehearsal (no model)".into(),
        Printed::CleanupLevel { who, level, why } => format!("🧹 reply cleanup for {who}: {level} ({why})"),
        Printed::SessionFile { path } => format!("📄 Session file: {path}"),
        Printed::SittingBegins => "this sitting begins here".into(),
        Printed::RoundRule { n, max } => format!("── Round {n}/{max} ──"),
        Printed::Retrying { attempt, secs } => format!("retrying #{attempt} in {secs:.1} s"),
        Printed::Interrupted => "(interrupted)".into(),
        Printed::CouldNotAnswer { cause } => format!("⚠️ could not answer: {cause}"),
        Printed::AgentFailed { icon, name, cause } => format!("⚠️ {icon} {name} could not answer: {cause}"),
        Printed::WaitingForServerAt { url, secs, window, cause } => format!("waiting for the server at {url} ({secs} s of {window} s): {cause}"),
        Printed::WaitingForServer { secs, window, cause } => format!("waiting for the server ({secs} s of {window} s): {cause}"),
        Printed::AutomaticPush { used, budget, text } => format!("\n🤖 automatic push ({used}/{budget}): {text}"),
        Printed::TakeawaysAt { path } => format!("📝 Takeaways: {path}"),

        // Headless: what it waits for.
        Printed::AwaitingMessage => "Your message (or *exit to end):".into(),
        Printed::AwaitingAnswer => "Answer needed".into(),
        Printed::AwaitingReview => "Your review of the cast:".into(),
        Printed::EndAnswerHint => "Press Enter (empty line) to end the party, or type a message to continue with it.".into(),
        Printed::LimitAnswerHint => "Press Enter (empty line) to end now, or send {\"type\":\"answer\",\"request_id\":\"…\",\"confirmed\":false,\"extend\":N} to continue.".into(),
        Printed::ResetAnswerHint => "Empty line: confirm the reset; a message rejects it and goes on; or send {\"type\":\"turn_confirmation_response\",\"request_id\":\"…\",\"confirmed\":true,\"reason\":\"…\"}".into(),

        // Headless: saving.
        Printed::SaveFailed => "Could not save the session file".into(),
        Printed::SessionSavedTo { file } => format!("📄 Session saved to {file}"),
        Printed::SessionNotSaved { file } => {
            format!("⚠️ The session's end could not be saved (the file holds what was saved before): {file}")
        }

        // Why a run ended as it did (frontend::exit::explain).
        Printed::StoppedUnreachable { cause, file } => format!("the party stopped because the model could not be reached ({cause}); the session is kept open: `bmad-party --resume {file}` continues it"),
        Printed::SavedElsewhere { file, there } => format!("the session could not be saved to {file}; the whole session is in {there} (`bmad-party --resume {there}` continues it)"),
        Printed::EndNotSaved { file } => format!("the session's end could not be saved to {file}; the file holds what was saved before"),
        Printed::StoppedBySignal { file } => format!("stopped by a signal; the session is saved and can be resumed: {file}"),
        Printed::StoppedUnexpectedly => "the party stopped unexpectedly".into(),

        // The batch driver (--non-interactive).
        Printed::BatchSessionFile { path } => format!("session file {path}"),
        Printed::BatchRoundDone { round, rounds } => format!("round {round}/{rounds} done"),
        Printed::BatchAgentFailed { agent, cause } => format!("{agent} failed: {cause}"),
        Printed::BatchCannotWrite { path, error } => format!("cannot write {path}: {error}"),
        Printed::BatchUnreachable { cause, path } => format!("the model could not be reached ({cause}); takeaways from the transcript alone: {path}"),
        Printed::BatchInterrupted => "stopped before the end; the session can be resumed".into(),
        Printed::BatchNotSaved => "the session could not be saved (see above)".into(),
        Printed::BatchNoTakeaways => "the party ended without takeaways".into(),

        // Sessions: the list and resuming.
        Printed::ListFinished => "finished ".into(),
        Printed::ListResumable => "resumable".into(),
        Printed::ListRounds { n } => format!("{n:>3} rounds"),
        Printed::SessionFinished => "This session has already finished (workflow_completed: true); start a new party instead.".into(),
        Printed::NoSessions { dir } => format!("No sessions in {dir}."),

        // The listings (--list-agents, --list-parties).
        Printed::AgentsFrom { n, source } => format!("{n} agent(s) from {source}"),
        Printed::AlsoInPool { n } => format!("{n} more to /invite or name in a party:"),
        Printed::CardImported { name, id, path } => format!("✓ {name} (@{id}) → {path}"),
        Printed::CardDropped { fields } => format!("  not carried over: {fields}"),
        Printed::CardScene { scene } => format!("  its scenario, a party's scene with --party NAME: {scene}"),
        Printed::CardRefused { file, cause } => format!("✗ {file}: {cause}"),
        Printed::CardParty { name, id, path } => format!("✓ the party “{name}” → {path}\nStart it: bmad-party --party {id}"),
        Printed::CardsUse => "Bring them in with /invite NAME, or name them in a party's members (docs/configuration.md, \"Persona cards\").".into(),
        Printed::NoAgentCalled { name, known } => format!("no agent is called “{name}”; there are {known}"),
        Printed::ProblemCount { n } => format!("{n} problem(s):"),
        Printed::Remembers => " · remembers".into(),
        Printed::DefaultRoom => "(the default room)".into(),
        Printed::AgentsInRoom { n } => format!("{n} agent(s): `--list-agents` shows them"),
        Printed::Through { endpoint, model } => format!(" · {endpoint}: {model}"),
        Printed::ServersModel => "the model its server lists".into(),
        Printed::MembersNotFound { missing } => format!(" (not found: {missing})"),
        Printed::OpenCast => "open cast: the default room".into(),
        Printed::DefaultPartyNote => "\n* opens when --party names none; `bmad-party --party ID` picks another\n".into(),

        // `init`.
        Printed::ConfigWritten { path } => format!("Wrote {path}\nEvery line is a comment: remove the \"# \" before a setting to use it. A project's config overrides it key by key."),

        // The front ends' own troubles.
        Printed::CannotStartRuntime { error } => format!("cannot start the async runtime: {error}"),
        Printed::CannotSetUpTerminal { error } => format!("cannot set up the terminal: {error}"),
        Printed::StoppedAfterInternalError => "bmad-party stopped after an internal error. The session file holds everything up to the last completed change; continue it with --resume.".into(),
        Printed::EngineStopped { error } => format!("the engine stopped unexpectedly: {error}"),
        Printed::StdinUnreadable { n, error } => format!("stdin line {n}: {error}"),
        Printed::StdinNotCommand { n, why } => format!("stdin line {n}: not a command ({why}); skipped"),
        Printed::KeptInMemory => "(kept in memory; retried on every change)".into(),
    }
}
