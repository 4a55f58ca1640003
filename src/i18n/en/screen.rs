//! English: Screen.

use crate::i18n::keys::Screen;

pub(in crate::i18n) fn screen(k: &Screen<'_>) -> String {
    match k {
        // The main screen: its title, the panes, the input box.
        Screen::TerminalTooSmall => "Terminal too small:".into(),
        Screen::RehearsalBadge => "OFFLINE REHEARSAL".into(),
        Screen::CleanupBadge { level } => match *level {
            "off" => "no cleanup".into(),
            level => format!("{level} cleanup"),
        },
        Screen::NewParty => "new party".into(),
        Screen::PaneQueued => "queued".into(),
        Screen::PaneReading => "reading the prompt…".into(),
        Screen::PaneReadingFor { secs } => format!("reading the prompt… {secs} s"),
        Screen::PaneStreaming => "streaming…".into(),
        Screen::FirstToken { secs } => format!(" · first token {secs:.1} s"),
        Screen::PaneRetrying => "retrying".into(),
        Screen::PaneWaitingForFacilitator => "waiting for facilitator".into(),
        Screen::PaneDone => "done".into(),
        Screen::PaneFailed => "failed".into(),
        Screen::PaneInterrupted => "interrupted".into(),
        Screen::PaneSkipped => "skipped this round".into(),
        Screen::WaitingForHostShort { host, secs } => format!("waiting for {host} ({secs} s)"),
        Screen::WaitingForHost { host, secs } => format!("waiting for the server at {host} ({secs} s)"),
        Screen::WaitingForServer { secs } => format!("waiting for the server ({secs} s)"),
        Screen::InputTitleTopic => " Your topic ".into(),
        Screen::InputTitleQueued => " Message (queued until the round ends) ".into(),
        Screen::InputTitleMessage => " Message ".into(),

        // The transcript.
        Screen::SittingBegins => "this sitting begins here".into(),
        Screen::NewMessages => "new messages".into(),
        Screen::AgentAsks { name } => format!("❓ {name} asks:"),
        Screen::AwaitingAnswerMark => "[awaiting your answer…]".into(),
        Screen::AutomaticPush { text } => format!("🤖 Automatic push: {text}"),
        Screen::AgentFailed { name, cause } => format!("⚠ {name} could not answer: {cause}"),
        Screen::Interrupted => "(interrupted)".into(),
        Screen::TakeawaysAt { path } => format!("📝 Takeaways: {path}"),

        // The status bar.
        Screen::RoundOf { n, max } => format!("Round {n}/{max}"),
        Screen::ConsensusLabel => "consensus".into(),
        Screen::PushLabel => "push".into(),
        Screen::AgentAsksYou { name } => format!("❓ {name} asks you"),
        Screen::AwaitingYourAnswer => "⏳ your answer".into(),
        Screen::StoppedPressAgain => "Stopped the replies. Press Ctrl+C again to quit now (state is saved).".into(),

        // The modals.
        Screen::ExitTitle => " End the party? ".into(),
        Screen::ExitExplained => "The room will say goodbye, sum up the highlights and save the session.".into(),
        Screen::ProposalConsensusTitle => "The room agrees".into(),
        Screen::ProposalSilenceTitle => "The room is going in circles".into(),
        Screen::ProposalSuggestsEnding => "suggests ending the party".into(),
        Screen::ProposalAsk => "Press Enter to end the party, or type a message to keep going:".into(),
        Screen::LimitTitle => "Limit reached".into(),
        Screen::LimitEndNow => "End now".into(),
        Screen::LimitContinue => "Continue".into(),
        Screen::LimitUnitMinutes => "minutes".into(),
        Screen::LimitUnitRounds => "rounds".into(),
        Screen::ResetTitle => "Start a new conversation?".into(),
        Screen::ResetReasonLabel => "Reason (optional): ".into(),
        Screen::ResetConfirm => "Confirm reset".into(),
        Screen::ResetReject => "Reject".into(),
        Screen::BudgetTitle => "Question for you".into(),
        Screen::MoreWaiting { n } => format!("(+{n} more waiting)"),

        // The help overlay.
        Screen::HelpTitle => " Keys ".into(),
        Screen::HelpScrollOrClose => " ↑↓ scroll · any other key closes ".into(),
        Screen::HelpAnyKeyCloses => " any key closes ".into(),
        Screen::ExitWords => "*exit, goodbye, /exit".into(),
        Screen::ExitWordsDo => "  typed as a whole message: end the party".into(),
        Screen::ContextCommand => "/context PATH".into(),
        Screen::ContextCommandDoes => "  put a document (Markdown or text) in front of the room".into(),
        Screen::MuteCommand => "/mute NAME · /unmute [NAME]".into(),
        Screen::MuteCommandDoes => "  keep a speaker quiet (still in the room) · let them (everyone) speak again".into(),
        Screen::InviteCommand => "/invite NAME… · /dismiss NAME…".into(),
        Screen::InviteCommandDoes => "  bring agents of the roster into the room · send speakers out (their turns stay)".into(),
        Screen::RosterTitle => "Who is in the room".into(),
        Screen::RosterIn => "In the room".into(),
        Screen::RosterOut => "Out of the room (the roster)".into(),
        Screen::RosterNobodyOut => "every agent the program knows is in the room".into(),
        Screen::RosterMuted => "🔇 muted".into(),
        Screen::RosterNext => "👉 next round".into(),
        Screen::OnlyCommand => "/only NAME… [message]".into(),
        Screen::OnlyCommandDoes => "  the next round goes to these speakers alone, in that order (/only alone takes it back)".into(),
        Screen::MutedNow { names } => format!("🔇 {names}"),
        Screen::OnlyNext { names } => format!("👉 only {names}"),

        // The final screen.
        Screen::SessionSavedTo => "Session saved to".into(),
        Screen::PartyOver => "Party over.".into(),
        Screen::EndedKeys => "H: keep it as a web page · M: as Markdown · any other key quits.".into(),
        Screen::PressAnyKeyToQuit => "Press any key to quit.".into(),
        Screen::WebPageAt => "Web page:".into(),
        Screen::TranscriptAt => "Transcript:".into(),
    }
}
