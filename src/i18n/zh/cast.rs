//! 中文: Cast.

use crate::i18n::keys::Cast;

pub(in crate::i18n) fn cast(k: &Cast) -> String {
    match k {
        Cast::NoJson => "回答中没有 JSON 对象".into(),
        Cast::NoPersonas => "对象中没有 `personas` 列表".into(),
        Cast::Count { have } => format!("有 {have} 个角色；房间需要 3 到 6 个"),
        Cast::Missing { who, field, .. } => format!("{who}：`{field}` 缺失或为空"),
        Cast::NotAName { name, .. } => format!("`name` 只写一个人的名字，不是标签或句子：不是“{name}”"),
        Cast::NameIsTitle { name, .. } => {
            format!("“{name}”既是 `name` 又是 `title`：`name` 只写一个人的名字，`title` 用两到四个词写他的身份")
        }
        Cast::SameName { name, .. } => format!("两个角色都叫 {name}：请各起各的名字"),
        Cast::Taken { name, .. } => format!("{name} 已是程序中某位成员的名字：请换一个名字"),
        Cast::Alike { who, other, field, .. } => format!("{who} 的 {field} 与 {other} 的相同：让他们成为想要不同东西的不同的人"),
        Cast::Crowded { who, others, .. } => format!("{who} 的描述里写了 {others}：只写 {who} 是谁、想要什么、怎么说话"),
        Cast::Language { who, language, .. } => format!("{who} 不是用{language}写的"),
        Cast::NoLines { who, .. } => format!("{who} 的 `lines` 没有引用文档中的任何一行"),
        Cast::NoSuchLine { who, line, last, .. } => format!("{who} 引用了第 {line} 行，但文档只有第 1 到 {last} 行"),

        Cast::Drafting { topic, model, size } => format!("正在用 {model} 为“{topic}”起草 {size} 人的阵容……"),
        Cast::AskingAgain { attempt, of, flaws } => format!("草稿不能用（{flaws}）；重新请求（第 {attempt} 次，共 {of} 次）……"),
        Cast::Refused { attempts, flaws } => format!("{attempts} 份草稿都不能用，什么也没有保存。最后一份：{flaws}"),
        Cast::Salvaged { dropped } => format!("最后一份草稿中不能用、已略去的角色：{dropped}"),
        Cast::LeftOut { lines } => format!("文档超出了起草提示所能容纳的长度：最后 {lines} 行没有读。"),
        Cast::NotAnswering { cause } => format!("服务器没有立即回应（{cause}）；仍然向它请求……"),
        Cast::ModelFailed { cause } => format!("模型未能起草阵容：{cause}"),
        Cast::DraftingInRoom {
            topic,
            model,
            size,
            documents,
        } => {
            let from = match documents {
                0 => String::new(),
                n => format!("，取材于房间里的 {n} 份文档"),
            };
            format!("正在用 {model} 为“{topic}”起草 {size} 人的阵容{from}……")
        }
        Cast::NeedsTopic => "派对还没有话题，/cast 需要一个话题：/cast 话题".into(),
        Cast::NoDocuments => "/cast --from：房间里还没有文档（用 /context 路径 放入一份）".into(),
        Cast::NoConfigFolder => "/cast 会保存到你的配置文件夹，但系统没有配置文件夹（请设置 XDG_CONFIG_HOME 或 HOME）".into(),
        Cast::Stopped => "已停止；阵容保持原样。".into(),

        Cast::ReviewHelp => "keep 保留 · drop N 删去 · again N 重写 · edit N 字段 文本 · quit 退出".into(),
        Cast::NoSuchPersona { n, count } => format!("`{n}`：角色编号是 1 到 {count}"),
        Cast::NoSuchField { field, fields } => format!("`{field}`：字段有 {fields}"),
        Cast::TooFewLeft => "派对至少需要两个角色：这一位留下".into(),
        Cast::UnknownReview { line } => format!("`{line}`：不是审阅命令"),
        Cast::AskingOne { who } => format!("正在请求一位新角色代替 {who}……"),
        Cast::ReviewOpen => "正在审阅阵容：请先保留或退出（keep 保留 · drop N 删去 · again N 重写 · edit N 字段 文本 · quit 退出）".into(),
        Cast::Dropped { who } => format!("已删去 {who}。"),
        Cast::Replaced { who, by } => format!("{by} 代替了 {who}。"),
        Cast::OneRefused { who, flaws } => format!("没有得到可用的角色代替 {who}（{flaws}）；{who} 留下。"),

        Cast::Saved { name, id, count, dir } => format!("已保存“{name}”（--party {id}），{count} 位成员，位于 {dir}"),
        Cast::Renamed { from, to } => format!("{from} 已是程序中某位成员的名字：另存为 {to}"),
        Cast::StartIt { id } => format!("启动：bmad-party --party {id}"),
        Cast::NoBmadProject => "--into bmad：这里没有 BMAD 项目（在此处及上级目录中找过 _bmad/；可用 --bmad DIR 指定）".into(),
        Cast::NothingSaved => "什么也没有保存。".into(),
        Cast::NotSaved { cause } => format!("阵容未能保存，因此什么也没有保存：{cause}"),
    }
}
