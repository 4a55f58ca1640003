//! Chinese (simplified): Model.

use crate::i18n::keys::Model;

pub(in crate::i18n) fn model(k: &Model<'_>) -> String {
    match k {
        // How a request went wrong.
        Model::CannotConnect => "无法连接".into(),
        Model::TimedOut => "超时".into(),
        Model::ReplyCutOff => "回复被截断".into(),
        Model::RequestFailed => "请求失败".into(),

        // What the server sent, or did not.
        Model::StreamBroken { why } => format!("流中断：{why}"),
        Model::InvalidRequest { what } => format!("无效请求：{what}"),
        Model::ServerErrorInStream { message } => format!("流中的服务器错误：{message}"),
        Model::Stalled { secs } => format!("回复停滞：{secs} 秒没有数据"),
        Model::NoReplyWithin { secs } => format!("{secs} 秒内没有回复"),
        Model::NoAnswerWithin { secs } => format!("{secs} 秒内没有回应"),
        Model::EmptyReply => "模型返回了空回复".into(),
        Model::EndedBeforeText => "回复在输出文字前就结束了".into(),

        // After the retries.
        Model::AfterAttempts { cause, attempts } => format!("{cause}（已尝试 {attempts} 次）"),
        Model::UnreachableFor { cause, secs } => format!("{cause}（{secs} 秒内无法连接）"),

        // A model the server does not have.
        Model::NoModelsListed { url } => format!("{url} 的服务器没有列出模型。"),
        Model::ModelsListed { url, names } => format!("{url} 的服务器上有：{names}。"),
        Model::HowToNameOne => "可用 --model 名称、配置中的 `bmad.llm.model`、OPENAI_MODEL 或智能体文件中的 `model:` 指定。".into(),
        Model::AndMore { shown, more } => format!("{shown} 等另外 {more} 个"),

        // Setting the provider up.
        Model::BadApiKey => "OPENAI_API_KEY 含有无法放入 HTTP 头的字符（换行或控制字符？）".into(),
        Model::HttpClient { error } => format!("无法建立 HTTP 客户端：{error}"),
    }
}
