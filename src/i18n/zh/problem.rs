//! Chinese (simplified): Problem.

use crate::i18n::keys::{KeyHint, Problem, ValueKind};

pub(in crate::i18n) fn problem(k: &Problem) -> String {
    match k {
        Problem::Text(text) => text.clone(),
        Problem::Ignored(m) => format!("{}；已忽略", problem(m)),

        // Reading a file.
        Problem::CannotRead { error } => format!("无法读取：{error}"),
        Problem::CannotReadAgentsFolder { error } => format!("无法读取智能体文件夹：{error}"),
        Problem::NotUtf8At { at } => format!("不是 UTF-8 文本（第 {at} 字节）"),

        // YAML, reworded.
        Problem::UnknownKey { unknown, hint } => {
            let hint = match hint {
                KeyHint::Near(k) => format!("是不是 `{k}`？"),
                KeyHint::Known(list) => format!("这里可用的键：{list}"),
                KeyHint::None => String::new(),
            };
            format!("未知的键 `{unknown}`；{hint}").trim_end_matches("；").to_string()
        }
        Problem::MissingKey {
            missing,
            near: Some((k, n)),
        } => {
            format!("缺少 `{missing}`；第 {n} 行的 `{k}` 是不是应为 `{missing}`？")
        }
        Problem::MissingKey { missing, near: None } => format!("缺少 `{missing}`"),
        Problem::DuplicateKey { dup, first: Some(n) } => format!("`{dup}` 在同一块中出现两次（第一次在第 {n} 行）；只保留一个"),
        Problem::DuplicateKey { dup, first: None } => format!("`{dup}` 在同一块中出现两次；只保留一个"),
        Problem::Expected { wanted, found } => {
            let wanted = value_kind(*wanted);
            let found = found.as_ref().map(|v| format!("，实际是 `{v}`")).unwrap_or_default();
            format!("应为{wanted}{found}")
        }

        // Config values.
        Problem::AtLeast { min } => format!("至少为 {min}"),
        Problem::Between0And1 => "必须在 0 到 1 之间".into(),
        Problem::Between0And2 => "必须在 0 到 2 之间".into(),
        Problem::NotEmpty => "不能为空".into(),
        Problem::EmptyUseNull => "不能为空（使用 null 表示默认值）".into(),
        Problem::EmptyUseNullRoom => "不能为空（默认房间请用 null）".into(),
        Problem::WarnAtBoth => "`warn_at_rounds` 与其别名 `warn_at` 只能给出一个".into(),
        Problem::WarnRoundsBelowMax { max } => format!("必须小于 max_rounds（{max}）；设为 0 可关闭提醒"),
        Problem::PositiveMinutes => "必须是正数（分钟）".into(),
        Problem::WarnMinutesBelowMax { max } => format!("必须不小于 0 且小于 max_duration_minutes（{max}）"),
        Problem::AgentsPerRound { min, max } => format!("需要 1 <= min <= max <= 8，实际 min {min}，max {max}"),
        Problem::EmptyTrigger => "触发词不能为空".into(),
        Problem::BadRegex { error } => format!("不是有效的正则表达式：{error}"),
        Problem::ContextTokens => "至少为 1024，且大于 reply_max_tokens 的两倍".into(),
        Problem::NotHttpUrl { url } => format!("`{url}` 不是 http:// 或 https:// 地址"),
        Problem::AtMost10 => "不能超过 10".into(),
        Problem::AtMostAnHour => "不能超过 3600（一小时）".into(),
        Problem::PartyIdChars => "派对的 id 只能由字母、数字、- 和 _ 组成（它也是记忆文件夹的名字）".into(),
        Problem::NamesNobody => "没有列出任何人；开放阵容（整个房间）请省略 `members`".into(),
        Problem::EndpointName => "服务端点的名字只能由字母、数字、- 和 _ 组成，且不能是 `default`（即顶层的 bmad.llm）".into(),
        Problem::EndpointNeedsUrl => "服务端点需要 `base_url`".into(),
        Problem::UnknownEndpoint { name, known } if known.is_empty() => {
            format!("没有名为 `{name}` 的服务端点：bmad.llm.endpoints 中一个也没有定义（`default` 指顶层的 bmad.llm）")
        }
        Problem::UnknownEndpoint { name, known } => {
            format!("没有名为 `{name}` 的服务端点（bmad.llm.endpoints 中有 {known}；`default` 指顶层的 bmad.llm）")
        }
        Problem::KeyVarUnset { var } => format!("保存该服务端点密钥的环境变量 `{var}` 未设置"),
        Problem::KeyVarName => "应填写保存密钥的环境变量名（字母、数字和 _，如 OPENAI_API_KEY），不能直接填写密钥".into(),
        Problem::KeyVarValue { var } => format!("环境变量 `{var}` 中的密钥无法发送（含有换行或其他控制字符）"),
        Problem::EndpointFlag { given } => format!("`{given}` 不是 AGENT=ENDPOINT 的形式（例如 `--endpoint architect=hosted`）"),
        Problem::EndpointAgent { agent } => format!("房间里没有名为 `{agent}` 的智能体（`--list-agents` 可查看）"),

        // Agent files.
        Problem::NoFrontmatter => "没有 YAML frontmatter：文件必须以一行 `---` 开头，接着是角色字段，再以 `---` 结束".into(),
        Problem::IdChars { id } => format!("`{id}` 只能包含字母、数字、`-` 和 `_`（用于 @id 称呼）"),
        Problem::NotAColour { colour, all } => format!("`{colour}` 不是颜色；请使用 {all} 之一或 #rrggbb"),
        Problem::DuplicateId { id, first } => format!("重复的 id `{id}`（已被 {first} 使用）"),
        Problem::NoAgentFiles => "没有找到智能体文件（*.md）；房间是空的".into(),

        // A BMAD install.
        Problem::NotTomlIgnored { error } => format!("不是有效的 TOML，已忽略：{error}"),
        Problem::NotATableSkipped => "不是表，已跳过".into(),
        Problem::NoCodeSkipped => "没有 `code`，已跳过".into(),
        Problem::GroupIdSkipped => "需要由字母、数字、- 和 _ 组成的 `id`（它也是记忆文件夹的名字），已跳过".into(),
        Problem::NoCustomizeToml => "没有找到该智能体的 customize.toml；以其描述作为角色设定".into(),
        Problem::NoPersonaFields => "没有角色字段（role、identity、communicationStyle、description）；仅保留名字".into(),
        Problem::AgentFileMissing { path } => format!("`{path}` 不存在；仅使用清单中的字段"),
        Problem::UnreadableHeader { error } => format!("无法读取表头：{error}"),
        Problem::NotAManifest => "没有 `name` 或 `displayName` 列；这不是智能体清单".into(),
        Problem::UnreadableRow { error } => format!("无法读取的行，已跳过：{error}"),
        Problem::RowWithoutName => "该行没有 `name` 或 `displayName`，已跳过".into(),

        // A document put in front of the room.
        Problem::DocumentUnreadable { shown, error } => format!("{shown}：无法读取：{error}"),
        Problem::DocumentNotText { shown } => format!("{shown}：不是文本文件（需要 Markdown 或纯文本）"),
        Problem::DocumentNotUtf8 { shown } => format!("{shown}：不是 UTF-8 文本（需要 Markdown 或纯文本）"),
        Problem::DocumentEmpty { shown } => format!("{shown}：文件为空"),

        // The workflow's files.
        Problem::WorkflowMissing => "缺少工作流文件".into(),
        Problem::TemplateMissing => "缺少必需的模板（一个 `## Template: NAME` 标题，后跟代码块）".into(),
        Problem::UnknownPlaceholder { placeholder, known } => format!("未知占位符 {{{{{placeholder}}}}}；此模板可用 {known}"),
        Problem::TemplateNotClosed { fence } => format!("模板块没有用 {fence} 结束"),
        Problem::NoFencedBlock => "这个标题后面没有代码块（中间的行不能以 #、` 或 ~ 开头）".into(),
    }
}

fn value_kind(k: ValueKind) -> &'static str {
    match k {
        ValueKind::Unsigned => "非负整数",
        ValueKind::Integer => "整数",
        ValueKind::Number => "数字",
        ValueKind::Bool => "true 或 false",
        ValueKind::Single => "单个值",
        ValueKind::Text => "文本",
    }
}
