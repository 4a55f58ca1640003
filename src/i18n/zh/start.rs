//! Chinese (simplified): Start.

use super::problem;
use crate::i18n::keys::Start;

pub(in crate::i18n) fn start(k: &Start) -> String {
    match k {
        // Arguments and settings that cannot work.
        Start::MaxMinutes { minutes } => format!("--max-minutes：`{minutes}` 必须是正数（分钟）"),
        Start::BaseUrl { url } => format!("OPENAI_BASE_URL：`{url}` 不是 http:// 或 https:// 地址"),
        Start::TopicAndResume { topic } => format!("“{topic}”会开始新的派对，而 --resume 是继续旧的：只能二选一"),
        Start::NothingToResume { dir } => format!("{dir} 中没有可继续的会话：都已结束（`bmad-party sessions` 可列出）"),
        Start::NoBmadInstall { dir } => format!("--bmad {dir}：这里没有 BMAD 安装（查找了 _bmad/、.bmad/ 或带配置的 bmad/）"),
        Start::NoAgentsFound { dir } => {
            format!("{dir}：没有找到智能体（查找了 config.toml [agents.*]、_config/agent-manifest.csv、_cfg/agent-manifest.csv）")
        }
        Start::NoAgentsBuiltIn { dir } => format!("{}；改用内置房间", start(&Start::NoAgentsFound { dir: dir.clone() })),

        // The party named.
        Start::NoPartyDefined { requested } => {
            format!("没有名为 `{requested}` 的派对：尚未定义任何派对（配置中的 bmad.parties，或 BMAD 项目的 [[workflow.party_groups]]）")
        }
        Start::NoParty { requested, known } => format!("没有名为 `{requested}` 的派对；已有：{known}（`--list-parties` 可列出）"),
        Start::PartyEmpty { party, named } => format!("派对 `{party}`：其成员（{named}）都不在房间中（`--list-agents` 可查看）"),

        // The session to resume.
        Start::SessionUnreadable { file, error } => format!("{file}：无法读取会话文件：{error}"),
        Start::NotASession { file } => format!("{file}：不是派对会话文件：它没有以 `---` YAML frontmatter 开头"),
        Start::WrongWorkflow { file, found } => format!("{file}：`workflowType` 是 `{found}`，不是 `party-mode`"),
        Start::SessionHeld { file, pid: Some(pid) } => {
            format!("{file}：该会话正在另一个 bmad-party 中打开（进程 {pid}）；请先关闭那一个")
        }
        Start::SessionHeld { file, pid: None } => format!("{file}：该会话正在另一个 bmad-party 中打开；请先关闭那一个"),

        // Notices for the facilitator as the party opens.
        Start::NewerCopy { copy, file } => format!("继续较新的副本 {copy}：在 {file} 无法写入时会话在那里继续。"),
        Start::MemoryUnreadable { shown, error } => format!("⚠️ {shown}：无法读取派对的记忆（{error}）；房间将不带记忆开始"),
        Start::NotInRoom { party, missing } => format!("⚠️ {party}：不在房间中：{missing}（`--list-parties` 可查看）"),
        Start::RehearsalForAll { endpoints } => format!("排练模式替所有智能体发言：分配给智能体的服务端点（{endpoints}）不会使用。"),
        Start::EndpointChanged { agent, now, was } => format!("{agent} 现在通过 {now} 发言，之前是 {was}。"),
        Start::EndpointKept { agent, id, endpoint } => {
            format!("{agent} 仍通过 {endpoint} 发言，沿用本会话此前的设置（`--endpoint {id}=default` 可改回默认端点）。")
        }
        Start::SameUrlOtherKeys { url, first, second } => {
            format!("⚠️ 服务端点 `{first}` 和 `{second}` 都是 {url}，但发送的密钥不同：其中一个是否本应指向另一个服务？")
        }
        Start::RosterProblems { n, source } => format!("⚠️ 名单中有 {n} 个问题（{source}）；可用的智能体已入场："),
        Start::DocumentLeftOut { why } => format!("⚠️ {}；房间将不带它继续", problem(why)),

        // Subcommands.
        Start::NoConfigFolder => "系统没有配置文件夹（请设置 XDG_CONFIG_HOME 或 HOME）".into(),
        Start::ConfigThere { shown } => {
            format!("{shown} 已存在；请直接编辑，或用 `bmad-party init --force` 替换（旧文件保存为 config.yaml.bak）")
        }
        Start::KeepsakeOverSession { path } => format!("{path}：导出文件会覆盖会话文件本身；请用 -o 指定其他文件"),
    }
}
