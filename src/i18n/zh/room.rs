//! Chinese (simplified): Room.

use crate::i18n::keys::Room;
use crate::i18n::one_of;

pub(in crate::i18n) fn room(k: &Room<'_>) -> String {
    match k {
        // Notices in the transcript, and the nudge to the agents.
        Room::AgentFailed { agent, cause } => format!("⚠️ {agent} 未能回答: {cause}"),
        Room::AgentPassed { agent } => format!("🤐 {agent} 本轮没有新的内容可补充"),
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
