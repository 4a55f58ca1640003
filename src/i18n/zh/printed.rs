//! Chinese (simplified): Printed.

use crate::i18n::keys::Printed;

pub(in crate::i18n) fn printed(k: &Printed<'_>) -> String {
    match k {
        // Headless: the party as it goes.
        Printed::RehearsalBadge => "离线排练（未连接模型）".into(),
        Printed::CleanupLevel { who, level, why } => {
            let level = match *level {
                "full" => "完整",
                "light" => "轻度",
                "off" => "关闭",
                other => other,
            };
            format!("🧹 {who} 的回复清理：{level}（{why}）")
        }
        Printed::SessionFile { path } => format!("📄 会话文件: {path}"),
        Printed::SittingBegins => "本次从这里继续".into(),
        Printed::RoundRule { n, max } => format!("── 轮次 {n}/{max} ──"),
        Printed::Retrying { attempt, secs } => format!("{secs:.1} 秒后第 {attempt} 次重试"),
        Printed::Interrupted => "（已中断）".into(),
        Printed::CouldNotAnswer { cause } => format!("⚠️ 未能回答: {cause}"),
        Printed::AgentFailed { icon, name, cause } => format!("⚠️ {icon} {name} 未能回答: {cause}"),
        Printed::WaitingForServerAt { url, secs, window, cause } => format!("正在等待 {url} 的服务器（{secs}/{window} 秒）：{cause}"),
        Printed::WaitingForServer { secs, window, cause } => format!("正在等待服务器（{secs}/{window} 秒）：{cause}"),
        Printed::AutomaticPush { used, budget, text } => format!("\n🤖 自动推进 ({used}/{budget}): {text}"),
        Printed::TakeawaysAt { path } => format!("📝 要点： {path}"),

        // Headless: what it waits for.
        Printed::AwaitingMessage => "请输入消息（输入 *exit 结束）：".into(),
        Printed::AwaitingAnswer => "需要您的回答".into(),
        Printed::AwaitingReview => "请审阅阵容：".into(),
        Printed::EndAnswerHint => "直接回车（空行）结束对话，或输入一条消息继续讨论。".into(),
        Printed::LimitAnswerHint => "直接回车（空行）立即结束，或发送 {\"type\":\"answer\",\"request_id\":\"…\",\"confirmed\":false,\"extend\":N} 继续。".into(),
        Printed::ResetAnswerHint => "直接回车（空行）确认重置；输入消息则拒绝并继续；或发送 {\"type\":\"turn_confirmation_response\",\"request_id\":\"…\",\"confirmed\":true,\"reason\":\"…\"}".into(),

        // Headless: saving.
        Printed::SaveFailed => "无法保存会话文件".into(),
        Printed::SessionSavedTo { file } => format!("📄 会话已保存到 {file}"),
        Printed::SessionNotSaved { file } => format!("⚠️ 会话的结尾未能保存（文件中只有之前保存的内容）： {file}"),

        // Why a run ended as it did (frontend::exit::explain).
        Printed::StoppedUnreachable { cause, file } => format!("无法连接模型（{cause}），派对已暂停；会话保持未结束：可用 `bmad-party --resume {file}` 继续"),
        Printed::SavedElsewhere { file, there } => format!("会话未能保存到 {file}；整个会话在 {there}（可用 `bmad-party --resume {there}` 继续）"),
        Printed::EndNotSaved { file } => format!("会话的结尾未能保存到 {file}；文件中只有之前保存的内容"),
        Printed::StoppedBySignal { file } => format!("被信号中止；会话已保存，可以继续：{file}"),
        Printed::StoppedUnexpectedly => "派对意外停止".into(),

        // The batch driver (--non-interactive).
        Printed::BatchSessionFile { path } => format!("会话文件 {path}"),
        Printed::BatchRoundDone { round, rounds } => format!("第 {round}/{rounds} 轮结束"),
        Printed::BatchAgentFailed { agent, cause } => format!("{agent} 失败：{cause}"),
        Printed::BatchCannotWrite { path, error } => format!("无法写入 {path}：{error}"),
        Printed::BatchUnreachable { cause, path } => format!("无法连接模型（{cause}）；仅根据对话记录生成的要点：{path}"),
        Printed::BatchInterrupted => "在结束前停止；会话可以继续".into(),
        Printed::BatchNotSaved => "会话无法保存（见上文）".into(),
        Printed::BatchNoTakeaways => "派对结束，但没有写出要点".into(),

        // Sessions: the list and resuming.
        Printed::ListFinished => "已结束".into(),
        Printed::ListResumable => "可继续".into(),
        Printed::ListRounds { n } => format!("{n:>3} 轮"),
        Printed::SessionFinished => "该会话已经结束（workflow_completed: true），请开始新的对话。".into(),
        Printed::NoSessions { dir } => format!("{dir} 中没有会话。"),

        // The listings (--list-agents, --list-parties).
        Printed::AgentsFrom { n, source } => format!("{n} 位智能体，来自 {source}"),
        Printed::AlsoInPool { n } => format!("另有 {n} 位可以 /invite 或在派对中点名："),
        Printed::CardImported { name, id, path } => format!("✓ {name}（@{id}）→ {path}"),
        Printed::CardDropped { fields } => format!("  未带过来：{fields}"),
        Printed::CardScene { scene } => format!("  它的场景，加 --party 名字 即成派对的场景：{scene}"),
        Printed::CardRefused { file, cause } => format!("✗ {file}：{cause}"),
        Printed::CardParty { name, id, path } => format!("✓ 派对“{name}”→ {path}\n启动：bmad-party --party {id}"),
        Printed::CardsUse => "用 /invite 名字 请他们进来，或在派对的成员中点名（docs/configuration.md，“Persona cards”）。".into(),
        Printed::NoAgentCalled { name, known } => format!("没有叫“{name}”的智能体；现有：{known}"),
        Printed::ProblemCount { n } => format!("{n} 个问题："),
        Printed::Remembers => " · 有记忆".into(),
        Printed::DefaultRoom => "（默认房间）".into(),
        Printed::AgentsInRoom { n } => format!("{n} 位智能体：`--list-agents` 可列出"),
        Printed::Through { endpoint, model } => format!(" · {endpoint}：{model}"),
        Printed::ServersModel => "服务端列出的模型".into(),
        Printed::MembersNotFound { missing } => format!("（未找到：{missing}）"),
        Printed::OpenCast => "开放阵容：默认房间".into(),
        Printed::DefaultPartyNote => "\n* 未用 --party 指定时打开的派对；`bmad-party --party ID` 可选其他\n".into(),

        // `init`.
        Printed::ConfigWritten { path } => format!("已写入 {path}\n每一行都是注释：去掉设置前的 \"# \" 即可生效。项目的配置会逐项覆盖它。"),

        // The front ends' own troubles.
        Printed::CannotStartRuntime { error } => format!("无法启动异步运行时：{error}"),
        Printed::CannotSetUpTerminal { error } => format!("无法初始化终端：{error}"),
        Printed::StoppedAfterInternalError => "bmad-party 因内部错误而停止。会话文件保存了最后一次完成的变化之前的全部内容；可用 --resume 继续。".into(),
        Printed::EngineStopped { error } => format!("引擎意外停止：{error}"),
        Printed::StdinUnreadable { n, error } => format!("标准输入第 {n} 行：{error}"),
        Printed::StdinNotCommand { n, why } => format!("标准输入第 {n} 行：不是命令（{why}）；已跳过"),
        Printed::KeptInMemory => "（内容保留在内存中；每次变化时重试保存）".into(),
    }
}
