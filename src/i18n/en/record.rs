//! English: Record.

use crate::i18n::keys::Record;

pub(in crate::i18n) fn record(k: &Record<'_>) -> String {
    match k {
        // The session file.
        Record::SessionTitle { topic } => format!("# 🎉 Party Mode: {topic}\n"),

        // The page's and the transcript's head: title, facts, cast.
        Record::TitlePrefix => "Party Mode: ".into(),
        Record::PartyMode => "Party Mode".into(),
        Record::FactDate => "Date".into(),
        Record::FactFacilitator => "Facilitator".into(),
        Record::FactRounds => "Rounds".into(),
        Record::FactTime => "Time".into(),
        Record::FactModel => "Model".into(),
        Record::FactModels => "Models".into(),
        Record::FactEndedBy => "Ended by".into(),
        Record::FactStatus => "Status".into(),
        Record::CanBeResumed => "can be resumed".into(),
        Record::LineFacilitator => "facilitator".into(),
        Record::LineModel => "model".into(),
        Record::LineModels => "models".into(),
        Record::LineEndedBy => "ended by".into(),
        Record::Rounds { n: 1 } => "1 round".into(),
        Record::Rounds { n } => format!("{n} rounds"),
        Record::TheRoom => "The room".into(),
        Record::AlsoInTheRoom => "Also in the room:".into(),
        Record::Turns { n: 1 } => "1 turn".into(),
        Record::Turns { n } => format!("{n} turns"),
        Record::Replies { n: 1 } => "1 reply".into(),
        Record::Replies { n } => format!("{n} replies"),
        Record::ExportedFrom => "Exported by bmad-party from the session of ".into(),

        // The turns.
        Record::RoundTitle { round } => format!("Round {round}"),
        Record::AsksYouTag => "asks you".into(),
        Record::AsksYouSuffix => " (asks you)".into(),
        Record::TimingsExplained => "first token · writing speed".into(),
        Record::InterruptedNote => "(interrupted)".into(),
        Record::InterruptedSuffix => " *(interrupted)*".into(),
        Record::FacilitatorSpeaker => "facilitator".into(),
        Record::WrappingUp => "Wrapping up".into(),

        // What ended the party.
        Record::EndedByFacilitator => "the facilitator".into(),
        Record::EndedByRoundLimit => "the round limit".into(),
        Record::EndedByTimeLimit => "the time limit".into(),
        Record::EndedByProposal => "an agent's proposal, confirmed".into(),
        Record::EndedByLeaving => "the facilitator leaving".into(),
        Record::EndedByUnreachable => "a model that could not be reached".into(),
        Record::EndedByConsensus => "consensus".into(),
        Record::EndedBySilence => "silence".into(),

        // What the facilitator was asked, and the answer.
        Record::AskedProposal { name } => format!("🏁 {name} proposed ending the party"),
        Record::AskedRoundLimit => "⏱️ The round limit was reached".into(),
        Record::AskedTimeLimit => "⏱️ The time limit was reached".into(),
        Record::AskedConsensus => "🤝 The room seemed to agree".into(),
        Record::AskedSilence => "🤫 The room fell quiet".into(),
        Record::AskedFreshStart => "🔄 A fresh start was asked for".into(),
        Record::AskedBudgetSpent => "⏩ The automatic pushes were used up".into(),
        Record::AnswerEnded => "the facilitator ended the party".into(),
        Record::AnswerKeptGoing => "the facilitator kept it going".into(),
        Record::AnswerStartedAfresh => "the conversation started afresh".into(),
        Record::AnswerWentOn => "the conversation went on".into(),
        Record::AnswerPushedOn => "the room pushed on".into(),
        Record::AnswerPushesPaused => "the pushes paused".into(),
        Record::AnswerPending => "no answer yet".into(),
        Record::AnswerExpired => "left unanswered".into(),
    }
}
