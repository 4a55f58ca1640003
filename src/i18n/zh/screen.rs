//! Chinese (simplified): Screen.

use crate::i18n::keys::Screen;

pub(in crate::i18n) fn screen(k: &Screen<'_>) -> String {
    match k {
        // The main screen: its title, the panes, the input box.
        Screen::TerminalTooSmall => "终端太小：".into(),
        Screen::RehearsalBadge => "离线排练".into(),
        Screen::CleanupBadge { level } => match *level {
            "full" => "完整清理".into(),
            "light" => "轻度清理".into(),
            "off" => "不清理".into(),
            other => format!("清理：{other}"),
        },
        Screen::NewParty => "新的派对".into(),
        Screen::PaneQueued => "排队中".into(),
        Screen::PaneReading => "正在阅读提示…".into(),
        Screen::PaneReadingFor { secs } => format!("正在阅读提示… {secs} s"),
        Screen::PaneStreaming => "输出中…".into(),
        Screen::FirstToken { secs } => format!(" · 首个词元 {secs:.1} 秒"),
        Screen::PaneRetrying => "重试".into(),
        Screen::PaneWaitingForFacilitator => "等待主持人".into(),
        Screen::PaneDone => "完成".into(),
        Screen::PaneFailed => "失败".into(),
        Screen::PaneInterrupted => "已中断".into(),
        Screen::PaneSkipped => "本轮未发言".into(),
        Screen::WaitingForHostShort { host, secs } => format!("正在等待 {host}（{secs} 秒）"),
        Screen::WaitingForHost { host, secs } => format!("正在等待 {host} 的服务器（{secs} 秒）"),
        Screen::WaitingForServer { secs } => format!("正在等待服务器（{secs} 秒）"),
        Screen::InputTitleTopic => " 讨论主题 ".into(),
        Screen::InputTitleQueued => " 消息（本轮结束后发送）".into(),
        Screen::InputTitleMessage => " 消息 ".into(),

        // The transcript.
        Screen::SittingBegins => "本次从这里继续".into(),
        Screen::NewMessages => "新消息".into(),
        Screen::AgentAsks { name } => format!("❓ {name} 提问："),
        Screen::AwaitingAnswerMark => "[等待您的回复…]".into(),
        Screen::AutomaticPush { text } => format!("🤖 自动推进: {text}"),
        Screen::AgentFailed { name, cause } => format!("⚠ {name} 未能回答: {cause}"),
        Screen::Interrupted => "（已中断）".into(),
        Screen::TakeawaysAt { path } => format!("📝 要点： {path}"),

        // The status bar.
        Screen::RoundOf { n, max } => format!("轮次 {n}/{max}"),
        Screen::ConsensusLabel => "共识".into(),
        Screen::PushLabel => "推进".into(),
        Screen::AgentAsksYou { name } => format!("❓ {name} 在等您回答"),
        Screen::AwaitingYourAnswer => "⏳ 等待您的回答".into(),
        Screen::StoppedPressAgain => "已停止生成。再按一次 Ctrl+C 立即退出（状态已保存）。".into(),

        // The modals.
        Screen::ExitTitle => " 结束派对？ ".into(),
        Screen::ExitExplained => "大家会道别并总结要点，会话将被保存。".into(),
        Screen::ProposalConsensusTitle => "大家达成了共识".into(),
        Screen::ProposalSilenceTitle => "讨论在原地打转".into(),
        Screen::ProposalSuggestsEnding => "建议结束派对".into(),
        Screen::ProposalAsk => "按 Enter 结束派对，或输入消息继续讨论：".into(),
        Screen::LimitTitle => "已达上限".into(),
        Screen::LimitEndNow => "现在结束".into(),
        Screen::LimitContinue => "继续".into(),
        Screen::LimitUnitMinutes => "分钟".into(),
        Screen::LimitUnitRounds => "轮".into(),
        Screen::ResetTitle => "开始新的对话？".into(),
        Screen::ResetReasonLabel => "原因（可选）：".into(),
        Screen::ResetConfirm => "确认重置".into(),
        Screen::ResetReject => "拒绝".into(),
        Screen::BudgetTitle => "需要您决定".into(),
        Screen::MoreWaiting { n } => format!("(+{n} 个待处理)"),

        // The help overlay.
        Screen::HelpTitle => " 按键 ".into(),
        Screen::HelpScrollOrClose => " ↑↓ 滚动 · 其他键关闭 ".into(),
        Screen::HelpAnyKeyCloses => " 任意键关闭 ".into(),
        Screen::ExitWords => "*exit、goodbye、/exit".into(),
        Screen::ExitWordsDo => "  作为完整消息发送：结束派对".into(),
        Screen::ContextCommand => "/context 路径".into(),
        Screen::ContextCommandDoes => "  把一份文档（Markdown 或文本）放到房间面前".into(),
        Screen::MuteCommand => "/mute 名字 · /unmute [名字]".into(),
        Screen::MuteCommandDoes => "  让某位发言者安静（仍在房间里）· 让其（或所有人）重新发言".into(),
        Screen::InviteCommand => "/invite 名字… · /dismiss 名字…".into(),
        Screen::InviteCommandDoes => "  把名单上的智能体请进房间 · 请发言者离开（其发言保留）".into(),
        Screen::RosterTitle => "房间里有谁".into(),
        Screen::RosterIn => "在房间里".into(),
        Screen::RosterOut => "房间外（名单）".into(),
        Screen::RosterNobodyOut => "程序知道的智能体都在房间里".into(),
        Screen::RosterMuted => "🔇 已静音".into(),
        Screen::RosterNext => "👉 下一轮".into(),
        Screen::OnlyCommand => "/only 名字… [消息]".into(),
        Screen::OnlyCommandDoes => "  下一轮只由这几位按此顺序发言（只输入 /only 则取消）".into(),
        Screen::MutedNow { names } => format!("🔇 {names}"),
        Screen::OnlyNext { names } => format!("👉 仅 {names}"),

        // The final screen.
        Screen::SessionSavedTo => "会话已保存到".into(),
        Screen::PartyOver => "派对结束。".into(),
        Screen::EndedKeys => "H：保存为网页 · M：保存为 Markdown · 其他任意键退出。".into(),
        Screen::PressAnyKeyToQuit => "按任意键退出。".into(),
        Screen::WebPageAt => "网页：".into(),
        Screen::TranscriptAt => "记录：".into(),
    }
}
