//! English: Room.

use crate::i18n::keys::Room;
use crate::i18n::one_of;

pub(in crate::i18n) fn room(k: &Room<'_>) -> String {
    match k {
        // Notices in the transcript, and the nudge to the agents.
        Room::AgentFailed { agent, cause } => format!("⚠️ {agent} could not answer: {cause}"),
        Room::AgentPassed { agent } => format!("🤐 {agent} has nothing new to add this round"),
        Room::NotInRoomAnyMore { gone } => format!("⚠️ not in the room any more: {gone}"),
        Room::DocumentInFront { name, words } => format!("📎 {name} is in front of the room ({words} words; a long one is cut to fit the model's context)"),
        Room::StopsReadingMessages => "The model read your opening message as a closing one, so it cannot tell your messages apart: the host stops reading them for this session. Agents can still propose the end and ask you questions; read_messages: false says so for good.".into(),
        Room::EndpointGone { endpoint, since, again } => format!("not asked: the server of endpoint `{endpoint}` has not answered since round {since}; it is asked again in round {again}"),
        Room::PromptsShrunkOn { endpoint, window, before } => format!("⚠️ The server of endpoint `{endpoint}` refused a prompt as too long for its context window: its prompts now fit {window} tokens (were {before}); earlier rounds leave them sooner."),
        Room::PromptsShrunk { window, before } => format!("⚠️ The model's server refused a prompt as too long for its context window: prompts now fit {window} tokens (were {before}); earlier rounds leave them sooner."),
        Room::ServerUnreachable { url, cause, window_s } => format!("The model server at {url} cannot be reached ({cause}). The party can start: each reply waits up to {window_s} s for the server."),
        Room::UsingOnlyModel { model, url } => format!("Using the model `{model}`, the one the server at {url} has (no model was named)."),
        Room::UsingModelAlso { model, url, also } => format!("Using the model `{model}` of the server at {url} (no model was named); it also has {also}. Name one with --model NAME."),
        Room::ForAgents { names } => format!(" (for {names})"),
        Room::ModelNotListed { url, model, whose, has } => format!("The server at {url} does not list the model `{model}`{whose}; it has {has}. Name one with --model NAME, or `model:` in the agent's file."),
        Room::NowUsingModel { now } => format!("Now using the model `{now}`, the one the server lists (no model was named)."),
        Room::SavingWorksAgain { file, old } => format!("Saving to {file} works again (the copy in {old} is removed)."),
        Room::SavedElsewhereUntil { file, there } => format!("Until {file} can be written, the whole session is saved to {there} (`bmad-party --resume {there}` continues it)."),
        Room::FallbackUnwritable { there } => format!("{there} cannot be written any more either; it keeps the session up to its last good save."),
        Room::ContextNeedsFile => "/context needs a file: /context PATH (Markdown or text)".into(),
        Room::Invited { names } => format!("🚪 {names} joined the room; they see the conversation so far"),
        Room::Dismissed { names } => format!("👋 {names} left the room; their earlier turns stay in the conversation"),
        Room::Switched { party, names, scene } => format!("🎪 the room is {party} now: {names}; they see the conversation so far. {scene}"),
        Room::PartyNeedsName { known } => format!("/party needs a name: /party NAME (the parties: {known})"),
        Room::NoParties => "no named party is defined to switch to (`bmad.parties` in the config, or a BMAD project's party groups)".into(),
        Room::NoSuchParty { name, known } => format!("no party is called “{name}” (the parties: {known})"),
        Room::PartyAlready { name } => format!("the room is {name} already"),
        Room::Muted { names } => format!("🔇 muted: {names}; in the room, not picked until /unmute"),
        Room::Unmuted { names } => format!("🔊 {names} can be picked again"),
        Room::UnmutedEveryone => "🔊 nobody is muted now".into(),
        Room::OnlyNextRound { names } => format!("👉 the next round goes to {names} only"),
        Room::OnlyTakenBack => "👉 the room picks the next speakers again".into(),
        Room::NoSuchSpeaker { word, room } => format!("no speaker here is called “{word}” (the room: {room})"),
        Room::NeedsName { command, room } => format!("{command} needs a name: {command} NAME (the room: {room})"),
        Room::NotInvitable { word, out } => format!("no agent out of the room is called “{word}” (out of the room: {out})"),
        Room::InviteNeedsName { out } => format!("/invite needs a name: /invite NAME (out of the room: {out})"),
        Room::NobodyOut => "every agent the program knows is in the room already".into(),
        Room::InTheRoomAlready { name } => format!("{name} is in the room already"),
        Room::OneStaysUnmuted => "one speaker at least stays unmuted".into(),
        Room::OnlyMutedSpeaker { name, id } => format!("{name} is muted: /unmute {id} first"),
        Room::AskedAgain { names, round, take } => format!("↩ set aside as take {take} (/takes lists them, /take {take} brings it back); asking {names} again in round {round}"),
        Room::RoundTakenBack { round, take } => format!("↩ round {round} taken back, set aside as take {take} (/take {take} brings it back)"),
        Room::MessageEdited { round, take } => format!("✏️ round {round} is played again from your edited message; as it was, it is take {take}"),
        Room::TakeLine { take, by, turns, said } => format!("take {take} (/{by}, {turns} turns): {said}"),
        Room::TakeBack { take, now } => format!("↪ take {take} is back; what stood there is take {now} now"),
        Room::RoundBack { take, round } => format!("↪ take {take} is back: round {round} stands again"),
        Room::WhereWeAre { round } => format!("📍 Where we are after round {round}"),
        Room::Pinned { line } => format!("📌 pinned as a decision: {line}"),
        Room::Unpinned { n } => format!("📌 {n} pin(s) taken back"),
        Room::NotSpokenYet { name } => format!("{name} has not spoken yet: nothing of theirs to pin"),
        Room::NothingToPin => "no reply to pin yet (/pin NAME pins NAME's last)".into(),
        Room::PinnedDecisions { list } => format!("Pinned as decided: {list}."),
        Room::NothingToSumUp => "nothing to sum up yet: no agent has spoken".into(),
        Room::TakeawaysWritten { path } => format!("📝 takeaways written to {path}; the party goes on"),
        Room::NothingToTakeBack => "nothing to take back: no round was played since the start or the last reset".into(),
        Room::DidNotSpeak { name, round } => format!("{name} did not speak in round {round}"),
        Room::NoReplyToAskAgain { round } => format!("no reply in round {round} to ask again"),
        Room::NobodyToAskAgain => "nobody who spoke there is in the room and unmuted: name one (/redo NAME)".into(),
        Room::NoMessageToEdit { round } => format!("round {round} was not opened by your message: nothing to edit (/undo takes it back)"),
        Room::NoTakes => "nothing of this round is set aside".into(),
        Room::NoSuchTake { n, have } => format!("there is no take {n}: this round's are {have} (/takes lists them)"),
        Room::TakeOfAnotherRound { n, round } => format!("take {n} (round {round}) cannot come back now: /takes lists the ones that can"),
        Room::EditNeedsMessage => "/edit needs the message as it should have been: /edit MESSAGE".into(),
        Room::TakeNeedsNumber => "/take needs a take's number: /take N (/takes lists them)".into(),
        Room::TakesNothingAfter { command } => format!("{command} takes nothing after it"),
        Room::NothingToContinue => "nothing to continue yet: send a message first".into(),
        Room::NoOpenRequest { request_id } => format!("no open request `{request_id}`"),
        Room::ReplyEmpty => "the reply was empty".into(),
        Room::WordlessProposal => "(proposes to end the party, without a word of why)".into(),
        Room::NothingLeftAfterCleaning { what } => format!("nothing left after cleaning the reply ({what})"),
        Room::CleanupByConfig => "as the config sets it".into(),
        Room::CleanupByServerSize { billions } => format!("a model of {billions} billion parameters, as its server says"),
        Room::CleanupByNameSize { billions } => format!("a model of {billions} billion parameters, by its name"),
        Room::CleanupByLocal => "a server on this machine or the local network, its model's size unknown".into(),
        Room::CleanupByHosted => "a hosted model".into(),
        Room::CleanupByRehearsal => "the rehearsal".into(),
        Room::CleanupByRaised => "raised: a reply spoke as another or gave back the runtime's note".into(),
        Room::CleanupRaised { who, agent } => format!(
            "🧹 {agent}'s reply spoke as someone else or gave back the runtime's note: replies from {who} get full reply cleanup from now on"
        ),
        Room::MemoryLine { date, user, topic, names } => format!("{date}: {user} brought “{topic}” to {names}"),
        Room::AutomaticNudge => "(Automatic nudge from the runtime, not a new request from the facilitator: the facilitator is quiet for now. Keep the discussion moving on your own — pick the most important open question and dig into it. Do not reply to this note itself.)".into(),

        // The takeaways file.
        Room::TakeawaysTitle { topic } => format!("# Takeaways: {topic}\n\n"),
        Room::RoundsHeld { rounds } => format!("{rounds} round(s)"),
        Room::Decisions => "Decisions".into(),
        Room::OpenQuestions => "Open questions".into(),
        Room::Disagreements => "Disagreements".into(),
        Room::Positions => "Positions".into(),
        Room::NoneListed => "- none".into(),
        Room::RanItsCourse => "The room agreed the discussion had run its course.".into(),
        Room::ReachedConsensus => "The room reached consensus.".into(),

        // The offline rehearsal's lines.
        Room::RehearsalTurn { title, subject, cap, rule, cross, seed } => {
            let open = one_of(
                &[
                    "From where I sit as {title}, on “{subject}”",
                    "Speaking as the {title}: on “{subject}”",
                    "Let me put my {title} hat on. On “{subject}”",
                ],
                *seed,
            )
            .replace("{title}", title)
            .replace("{subject}", subject);
            let mut s = format!("{open} I'd start with **{cap}**. My rule of thumb: {}.", lower_first(rule));
            match cross {
                Some(name) => s.push_str(&one_of(&[
                    "\n\n{name} makes a good point, and I'd build on it: run the smallest experiment that tests the riskiest assumption first.",
                    "\n\nI see it differently than {name}, though: before we build anything, let's be clear about who actually benefits.",
                    "\n\nAs {name} said, scope is the real risk here; I'd add that we should write down what we will *not* do.",
                ], seed >> 24).replace("{name}", name)),
                None => s.push_str("\n\nMy suggestion: agree on what success looks like before we pick the first step."),
            }
            s
        },
        Room::RehearsalFarewell { user, rule } => format!("Thanks, {user}! What I take away: {}. See you next time!", lower_first(rule)),
        Room::RehearsalHighlights { rounds, topic } => format!("Over {rounds} round(s) the room agreed to start small: test the riskiest assumption first, define success up front, and grow from there; the details of “{topic}” remain open for next time."),
        Room::RehearsalQuestion => "What matters more to you here: speed or safety?".into(),
        Room::RehearsalWrapUp => "\n\nI think we've covered the main points; we could wrap up here.".into(),
        Room::RehearsalTakeaways { topic } => format!(
            "## Decisions\n- Start with the smallest experiment that tests the riskiest assumption of “{topic}”.\n## Open questions\n- Who decides what success looks like?\n## Disagreements\n- Whether to research first or prototype first.\n"
        ),
        Room::RehearsalMemory { topic, first, second } => format!(
            "- (outcome) On “{topic}”: start with the smallest experiment that tests the riskiest assumption.\n- (dynamic by {first}) {first} and {second} split over researching first or prototyping first.\n"
        ),
    }
}

/// `s` with its first letter in lower case and no final full stop, to
/// stand inside an English sentence.
fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect::<String>().trim_end_matches('.').to_string(),
        None => String::new(),
    }
}
