//! The program's own words in English and Chinese. Prompts and notices that
//! shape the party live in the workflow's step files instead, so a
//! facilitator can edit them; this module holds what the program says about
//! itself (labels, errors, hints).
//!
//! One way to say something: both languages side by side where it is said.
//! `pick(lang, en, zh)` for fixed words, `tr!(lang; en, zh)` when they hold
//! values (`tr!(en, zh)` in the start-up language, before a party has one),
//! and `Msg` names the few pairs that more than one place says.

use std::sync::atomic::{AtomicU8, Ordering};

use serde::{Deserialize, Serialize};

static UI_LANG: AtomicU8 = AtomicU8::new(0);

/// The language of messages made outside a party (errors, problems), set
/// once at start-up from `--lang`, the BMAD project or the locale.
pub(crate) fn set_ui_lang(lang: Lang) {
    UI_LANG.store(if lang == Lang::Zh { 1 } else { 0 }, Ordering::Relaxed);
}

pub(crate) fn ui_lang() -> Lang {
    if UI_LANG.load(Ordering::Relaxed) == 1 {
        Lang::Zh
    } else {
        Lang::En
    }
}

/// `tr!(lang; "English {x}", "中文 {x}")`: the message in `lang`, its
/// placeholders filled from the variables in scope; `tr!("…", "…")`: in
/// the start-up language (`ui_lang`).
#[macro_export]
macro_rules! tr {
    ($lang:expr; $en:literal, $zh:literal $(,)?) => {
        match $lang {
            $crate::i18n::Lang::Zh => format!($zh),
            $crate::i18n::Lang::En => format!($en),
        }
    };
    ($en:literal, $zh:literal $(,)?) => {
        $crate::tr!($crate::i18n::ui_lang(); $en, $zh)
    };
}

/// Fixed words in `lang`.
pub(crate) const fn pick(lang: Lang, en: &'static str, zh: &'static str) -> &'static str {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum, Default)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    pub(crate) fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// Reads a locale or language setting ("zh_CN.UTF-8", "Chinese", "中文",
    /// "English"); None when it names a language the program has no text for.
    pub(crate) fn from_setting(s: &str) -> Option<Lang> {
        let l = s.trim().to_lowercase();
        if l.starts_with("zh") || l.starts_with("chinese") || l.contains("中文") || l.contains("汉语") {
            Some(Lang::Zh)
        } else if l.starts_with("en") || l == "c" || l == "posix" || l.starts_with("c.") {
            Some(Lang::En)
        } else {
            None
        }
    }

    /// The language agents are asked to speak when nothing else says.
    pub fn speech_name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Zh => "Chinese (简体中文)",
        }
    }

    pub(crate) fn from_env() -> Option<Lang> {
        ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .filter_map(|k| std::env::var(k).ok())
            .find(|v| !v.is_empty())
            .and_then(|v| Lang::from_setting(&v))
    }
}

/// Program text keys. Each has an English and a Chinese form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Msg {
    RehearsalBadge,
    SessionFile,
    AwaitingMessage,
    AwaitingAnswer,
    AnswerHint,
    LimitAnswerHint,
    AgentFailed,
    AgentPassed,
    Retrying,
    Interrupted,
    SessionFinished,
    SessionSaved,
    SessionNotSaved,
    SaveFailed,
    PushLabel,
    Round,
}

pub(crate) fn t(lang: Lang, msg: Msg) -> &'static str {
    use Msg::*;
    let (en, zh) = match msg {
        RehearsalBadge => ("offline rehearsal (no model)", "离线排练（未连接模型）"),
        SessionFile => ("Session file", "会话文件"),
        AwaitingMessage => ("Your message (or *exit to end):", "请输入消息（输入 *exit 结束）："),
        AwaitingAnswer => ("Answer needed", "需要您的回答"),
        AnswerHint => (
            "Press Enter (empty line) to end the party, or type a message to continue with it.",
            "直接回车（空行）结束对话，或输入一条消息继续讨论。",
        ),
        LimitAnswerHint => (
            "Press Enter (empty line) to end now, or send {\"type\":\"answer\",\"request_id\":\"…\",\"confirmed\":false,\"extend\":N} to continue.",
            "直接回车（空行）立即结束，或发送 {\"type\":\"answer\",\"request_id\":\"…\",\"confirmed\":false,\"extend\":N} 继续。",
        ),
        AgentFailed => ("could not answer", "未能回答"),
        AgentPassed => ("has nothing new to add this round", "本轮没有新的内容可补充"),
        Retrying => ("retrying", "正在重试"),
        Interrupted => ("(interrupted)", "（已中断）"),
        SessionFinished => (
            "This session has already finished (workflow_completed: true); start a new party instead.",
            "该会话已经结束（workflow_completed: true），请开始新的对话。",
        ),
        SessionSaved => ("Session saved to", "会话已保存到"),
        SessionNotSaved => (
            "The session's end could not be saved (the file holds what was saved before):",
            "会话的结尾未能保存（文件中只有之前保存的内容）：",
        ),
        SaveFailed => ("Could not save the session file", "无法保存会话文件"),
        PushLabel => ("automatic push", "自动推进"),
        Round => ("Round", "轮次"),
    };
    pick(lang, en, zh)
}
