//! Chinese (simplified): Room.

use crate::i18n::keys::Room;
use crate::i18n::one_of;

pub(in crate::i18n) fn room(k: &Room<'_>) -> String {
    match k {
        // Notices in the transcript, and the nudge to the agents.
        Room::AgentFailed { agent, cause } => format!("⚠️ {agent} 未能回答: {cause}"),
        Room::AgentPassed { agent } => format!("🤐 {agent} 本轮没有新的内容可补充"),
        Room::NotInRoomAnyMore { gone } => format!("⚠️ 已不在房间中：{gone}"),
        Room::DocumentInFront { name, words } => format!("📎 {name} 已摆在大家面前（{words} 词；过长的文档会按模型的上下文截断）"),
        Room::StopsReadingMessages => "模型把你的开场消息读成了收尾消息，无法区分你的消息：本次对话中主持人不再解读你的消息。成员仍可提议结束或向你提问；设置 read_messages: false 可长期关闭。".into(),
        Room::EndpointGone { endpoint, since, again } => format!("未发言：服务端点 `{endpoint}` 的服务器自第 {since} 轮起没有回应；将在第 {again} 轮再次尝试"),
        Room::PromptsShrunkOn { endpoint, window, before } => format!("⚠️ 服务端点 `{endpoint}` 的服务器因超出上下文窗口拒绝了一次提示：此后其提示按 {window} 个 token 裁剪（原为 {before}），较早的轮次会更早移出。"),
        Room::PromptsShrunk { window, before } => format!("⚠️ 模型服务器因超出上下文窗口拒绝了一次提示：此后提示按 {window} 个 token 裁剪（原为 {before}），较早的轮次会更早移出。"),
        Room::ServerUnreachable { url, cause, window_s } => format!("无法连接 {url} 的模型服务器（{cause}）。派对仍可开始：每条回复最多等待服务器 {window_s} 秒。"),
        Room::UsingOnlyModel { model, url } => format!("使用模型 `{model}`：{url} 的服务器上的那一个（未指定模型）。"),
        Room::UsingModelAlso { model, url, also } => format!("使用 {url} 服务器上的模型 `{model}`（未指定模型）；它还有 {also}。可用 --model 名称 指定。"),
        Room::ForAgents { names } => format!("（{names} 使用）"),
        Room::ModelNotListed { url, model, whose, has } => format!("{url} 的服务器没有列出模型 `{model}`{whose}；它有 {has}。可用 --model 名称 或智能体文件中的 `model:` 指定。"),
        Room::NowUsingModel { now } => format!("现在使用服务器列出的模型 `{now}`（未指定模型）。"),
        Room::SavingWorksAgain { file, old } => format!("已能再次保存到 {file}（{old} 中的副本已删除）。"),
        Room::SavedElsewhereUntil { file, there } => format!("在 {file} 可以写入之前，整个会话保存在 {there}（可用 `bmad-party --resume {there}` 继续）。"),
        Room::FallbackUnwritable { there } => format!("{there} 也无法再写入；其中保留着到最后一次成功保存为止的会话。"),
        Room::ContextNeedsFile => "/context 需要一个文件：/context 路径（Markdown 或文本）".into(),
        Room::Invited { names } => format!("🚪 {names} 加入了房间；他们能看到到目前为止的对话"),
        Room::Dismissed { names } => format!("👋 {names} 离开了房间；他们之前的发言仍留在对话中"),
        Room::Switched { party, names, scene } => format!("🎪 房间现在是 {party}：{names}；他们能看到到目前为止的对话。{scene}"),
        Room::PartyNeedsName { known } => format!("/party 需要一个名字：/party 名字（已有：{known}）"),
        Room::NoParties => "没有定义可切换的命名派对（配置中的 `bmad.parties`，或 BMAD 项目的派对组）".into(),
        Room::NoSuchParty { name, known } => format!("没有叫“{name}”的派对（已有：{known}）"),
        Room::PartyAlready { name } => format!("房间已经是 {name} 了"),
        Room::Muted { names } => format!("🔇 已静音：{names}；仍在房间里，/unmute 之前不会被点到"),
        Room::Unmuted { names } => format!("🔊 {names} 可以再次发言"),
        Room::UnmutedEveryone => "🔊 现在没有人被静音".into(),
        Room::OnlyNextRound { names } => format!("👉 下一轮只由 {names} 发言"),
        Room::OnlyTakenBack => "👉 下一轮的发言者重新由房间挑选".into(),
        Room::NoSuchSpeaker { word, room } => format!("这里没有叫“{word}”的发言者（房间里有：{room}）"),
        Room::NeedsName { command, room } => format!("{command} 需要一个名字：{command} 名字（房间里有：{room}）"),
        Room::NotInvitable { word, out } => format!("房间外没有叫“{word}”的智能体（房间外有：{out}）"),
        Room::InviteNeedsName { out } => format!("/invite 需要一个名字：/invite 名字（房间外有：{out}）"),
        Room::NobodyOut => "程序知道的智能体都已经在房间里了".into(),
        Room::InTheRoomAlready { name } => format!("{name} 已经在房间里了"),
        Room::OneStaysUnmuted => "至少要有一位发言者不被静音".into(),
        Room::OnlyMutedSpeaker { name, id } => format!("{name} 已被静音：请先 /unmute {id}"),
        Room::AskedAgain { names, round, take } => format!("↩ 已作为第 {take} 版搁置（/takes 列出，/take {take} 取回）；第 {round} 轮重新请 {names} 发言"),
        Room::RoundTakenBack { round, take } => format!("↩ 第 {round} 轮已撤回，作为第 {take} 版搁置（/take {take} 取回）"),
        Room::MessageEdited { round, take } => format!("✏️ 第 {round} 轮按你修改后的消息重新进行；原来的版本是第 {take} 版"),
        Room::TakeLine { take, by, turns, said } => format!("第 {take} 版（/{by}，{turns} 条）：{said}"),
        Room::TakeBack { take, now } => format!("↪ 第 {take} 版已取回；原来的内容现在是第 {now} 版"),
        Room::RoundBack { take, round } => format!("↪ 第 {take} 版已取回：第 {round} 轮恢复"),
        Room::WhereWeAre { round } => format!("📍 第 {round} 轮之后，我们在哪里"),
        Room::Pinned { line } => format!("📌 已钉为决定：{line}"),
        Room::Unpinned { n } => format!("📌 已取消 {n} 个钉选"),
        Room::NotSpokenYet { name } => format!("{name} 还没有发言：没有可钉选的内容"),
        Room::NothingToPin => "还没有可钉选的回复（/pin 名字 钉选其最后一条）".into(),
        Room::PinnedDecisions { list } => format!("钉选的决定：{list}。"),
        Room::NothingToSumUp => "还没有可总结的内容：还没有智能体发言".into(),
        Room::TakeawaysWritten { path } => format!("📝 要点已写入 {path}；派对继续"),
        Room::NothingToTakeBack => "没有可撤回的内容：开始或上次重置以来还没有进行过一轮".into(),
        Room::DidNotSpeak { name, round } => format!("{name} 在第 {round} 轮没有发言"),
        Room::NoReplyToAskAgain { round } => format!("第 {round} 轮没有可以重新生成的回复"),
        Room::NobodyToAskAgain => "那里发过言的人都不在房间里或已被静音：请指名（/redo 名字）".into(),
        Room::NoMessageToEdit { round } => format!("第 {round} 轮不是由你的消息开启的：没有可编辑的消息（/undo 可撤回该轮）"),
        Room::NoTakes => "这一轮没有被搁置的内容".into(),
        Room::NoSuchTake { n, have } => format!("没有第 {n} 版：这一轮的版本是 {have}（/takes 列出）"),
        Room::TakeOfAnotherRound { n, round } => format!("第 {n} 版（第 {round} 轮）现在不能取回：/takes 列出可以取回的版本"),
        Room::EditNeedsMessage => "/edit 需要修改后的消息：/edit 消息".into(),
        Room::TakeNeedsNumber => "/take 需要版本号：/take N（/takes 列出）".into(),
        Room::TakesNothingAfter { command } => format!("{command} 后面不需要任何内容"),
        Room::NothingToContinue => "还没有可以继续的讨论：请先发送一条消息".into(),
        Room::NoOpenRequest { request_id } => format!("没有待处理的请求 `{request_id}`"),
        Room::ReplyEmpty => "回复为空".into(),
        Room::WordlessProposal => "（提议结束派对，没有说明理由）".into(),
        Room::NothingLeftAfterCleaning { what } => format!("清理回复后没有剩余内容（{what}）"),
        Room::CleanupByConfig => "按配置设定".into(),
        Room::CleanupByServerSize { billions } => format!("服务器报告模型为 {billions}B 参数"),
        Room::CleanupByNameSize { billions } => format!("按模型名称为 {billions}B 参数"),
        Room::CleanupByLocal => "本机或局域网服务器，模型大小未知".into(),
        Room::CleanupByHosted => "托管模型".into(),
        Room::CleanupByRehearsal => "彩排".into(),
        Room::CleanupByRaised => "已提升：有回复以他人身份发言或复述了系统提示".into(),
        Room::CleanupRaised { who, agent } => format!("🧹 {agent} 的回复以他人身份发言或复述了系统提示：此后 {who} 的回复将完整清理"),
        Room::MemoryLine { date, user, topic, names } => format!("{date}：{user} 和 {names} 讨论了「{topic}」"),
        Room::AutomaticNudge => "（系统自动推进，并非主持人的新请求：主持人暂时没有发言。请自行推动讨论——挑出最重要的未决问题深入探讨。不要回复这条提示本身。）".into(),

        // The takeaways file.
        Room::TakeawaysTitle { topic } => format!("# 要点：{topic}\n\n"),
        Room::RoundsHeld { rounds } => format!("{rounds} 轮"),
        Room::Decisions => "决定".into(),
        Room::OpenQuestions => "未决问题".into(),
        Room::Disagreements => "分歧".into(),
        Room::Positions => "各方立场".into(),
        Room::NoneListed => "- 无".into(),
        Room::RanItsCourse => "大家认为讨论已充分。".into(),
        Room::ReachedConsensus => "大家达成了共识。".into(),

        // The offline rehearsal's lines.
        Room::RehearsalTurn { title, subject, cap, rule, cross, seed } => {
            let open = one_of(
                &["从{title}的角度看，", "作为{title}，我想说：", "说到这里，我这个{title}有话要讲——"],
                *seed,
            )
            .replace("{title}", title);
            let mut s = format!("{open}关于「{subject}」，我会先从{cap}入手。我的原则是：{rule}。");
            match cross {
                Some(name) => s.push_str(
                    &one_of(
                        &[
                            "\n\n{name}说得有道理，我想在此基础上补充一点：先做一个最小的实验来验证最大的风险。",
                            "\n\n我和{name}的看法不太一样：在动手之前，我们需要先弄清楚谁会真正受益。",
                        ],
                        seed >> 24,
                    )
                    .replace("{name}", name),
                ),
                None => s.push_str("\n\n我的建议：先明确成功的标准，再决定第一步做什么。"),
            }
            s
        },
        Room::RehearsalFarewell { user, rule } => format!("谢谢你，{user}！我的收获是：{rule}。下次再聊！"),
        Room::RehearsalHighlights { rounds, topic } => format!("经过 {rounds} 轮讨论，大家同意从小处着手：先验证风险最大的假设，明确成功标准，再逐步扩展；关于「{topic}」的细节仍有待下次继续。"),
        Room::RehearsalQuestion => "对您来说，这件事更看重速度还是稳妥？".into(),
        Room::RehearsalWrapUp => "\n\n我觉得我们已经把主要观点都谈透了，可以收尾了。".into(),
        Room::RehearsalTakeaways { topic } => format!(
            "## 决定\n- 从最小的实验开始，先验证「{topic}」中风险最大的假设。\n## 未决问题\n- 成功的标准由谁来定？\n## 分歧\n- 先做调研还是先做原型。\n"
        ),
        Room::RehearsalMemory { topic, first, second } => format!(
            "- (outcome) 关于「{topic}」：先做最小的实验，验证风险最大的假设。\n- (dynamic by {first}) {first} 和 {second} 在先调研还是先做原型上各执一词。\n"
        ),
    }
}
