//! Chinese (simplified): Record.

use crate::i18n::keys::Record;

pub(in crate::i18n) fn record(k: &Record<'_>) -> String {
    match k {
        // The session file.
        Record::SessionTitle { topic } => format!("# 🎉 派对模式：{topic}\n"),

        // The page's and the transcript's head: title, facts, cast.
        Record::TitlePrefix => "派对模式：".into(),
        Record::PartyMode => "派对模式".into(),
        Record::FactDate => "日期".into(),
        Record::FactFacilitator => "主持人".into(),
        Record::FactRounds => "轮次".into(),
        Record::FactTime => "时长".into(),
        Record::FactModel => "模型".into(),
        Record::FactModels => "模型".into(),
        Record::FactEndedBy => "结束原因".into(),
        Record::FactStatus => "状态".into(),
        Record::CanBeResumed => "可继续".into(),
        Record::LineFacilitator => "主持人".into(),
        Record::LineModel => "模型".into(),
        Record::LineModels => "模型".into(),
        Record::LineEndedBy => "结束原因".into(),
        Record::Rounds { n } => format!("{n} 轮"),
        Record::TheRoom => "在场".into(),
        Record::AlsoInTheRoom => "也在场：".into(),
        Record::Turns { n } => format!("发言 {n} 次"),
        Record::Replies { n } => format!("{n} 条回复"),
        Record::ExportedFrom => "由 bmad-party 导出，会话日期 ".into(),

        // The turns.
        Record::RoundTitle { round } => format!("第 {round} 轮"),
        Record::AsksYouTag => "向您提问".into(),
        Record::AsksYouSuffix => "（向您提问）".into(),
        Record::TimingsExplained => "首个词元 · 输出速度".into(),
        Record::InterruptedNote => "（已中断）".into(),
        Record::InterruptedSuffix => " *（已中断）*".into(),
        Record::FacilitatorSpeaker => "主持人".into(),
        Record::WrappingUp => "收尾".into(),

        // What ended the party.
        Record::EndedByFacilitator => "主持人".into(),
        Record::EndedByRoundLimit => "轮次上限".into(),
        Record::EndedByTimeLimit => "时间上限".into(),
        Record::EndedByProposal => "智能体提议并经确认".into(),
        Record::EndedByLeaving => "主持人离开".into(),
        Record::EndedByUnreachable => "无法连接模型".into(),
        Record::EndedByConsensus => "达成共识".into(),
        Record::EndedBySilence => "冷场".into(),

        // What the facilitator was asked, and the answer.
        Record::AskedProposal { name } => format!("🏁 {name} 提议结束派对"),
        Record::AskedRoundLimit => "⏱️ 达到轮次上限".into(),
        Record::AskedTimeLimit => "⏱️ 达到时间上限".into(),
        Record::AskedConsensus => "🤝 大家似乎达成了共识".into(),
        Record::AskedSilence => "🤫 讨论冷场了".into(),
        Record::AskedFreshStart => "🔄 有人要求重新开始".into(),
        Record::AskedBudgetSpent => "⏩ 自动推进次数用完".into(),
        Record::AnswerEnded => "主持人结束了派对".into(),
        Record::AnswerKeptGoing => "主持人选择继续".into(),
        Record::AnswerStartedAfresh => "对话重新开始".into(),
        Record::AnswerWentOn => "对话照常继续".into(),
        Record::AnswerPushedOn => "讨论继续推进".into(),
        Record::AnswerPushesPaused => "自动推进暂停".into(),
        Record::AnswerPending => "尚未回答".into(),
        Record::AnswerExpired => "未作回答".into(),
    }
}
