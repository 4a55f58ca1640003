//! The one key table. Key handling, the status-bar hints, the keys printed
//! in a modal and the help overlay all read it, so a key cannot work in one
//! place and be missing from another.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::i18n::{pick, Lang};

/// Where the keys are read: the focus of the main screen, an open modal,
/// the help overlay, the final screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    /// Before any other: works whatever is open.
    Anywhere,
    /// The main screen with no modal open, whichever the focus.
    Screen,
    Typing,
    Menu,
    Help,
    Ended,
    ExitModal,
    ProposalModal,
    LimitModal,
    ResetModal,
    BudgetModal,
}

impl Context {
    fn title(self) -> (&'static str, &'static str) {
        match self {
            Context::Anywhere => ("Anywhere", "任何时候"),
            Context::Screen => ("Main screen", "主界面"),
            Context::Typing => ("Typing", "输入时"),
            Context::Menu => ("Menu (after Esc)", "菜单（按 Esc 后）"),
            Context::Help => ("This help", "本帮助"),
            Context::Ended => ("Final screen", "结束界面"),
            Context::ExitModal => ("Exit question", "退出确认"),
            Context::ProposalModal => ("Proposal to end", "结束提议"),
            Context::LimitModal => ("Limit reached", "达到上限"),
            Context::ResetModal => ("Start a new conversation?", "开始新的对话？"),
            Context::BudgetModal => ("Push budget spent", "推进次数用完"),
        }
    }
}

/// What a key does; each context gives its own meaning to its actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Stop,
    PageUp,
    PageDown,
    Send,
    NewLine,
    OpenMenu,
    Exit,
    Continue,
    Help,
    Type,
    LineUp,
    LineDown,
    Top,
    Bottom,
    /// The modal's main answer (end, keep going, confirm the choice).
    Confirm,
    /// The modal's other answer (stay, wait, reject).
    Decline,
    /// Switch the highlighted choice.
    Toggle,
    More,
    Less,
    EndNow,
    ContinueMore,
    /// A character into the modal's text field.
    TypeChar,
    Erase,
    Close,
    Quit,
    /// The session as a self-contained HTML page, beside it.
    ExportHtml,
    /// The session as a clean Markdown transcript, beside it.
    ExportMarkdown,
}

/// A key as the table names it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Key {
    /// The key with neither Ctrl nor Alt (Shift is how a terminal sends `E`).
    Plain(KeyCode),
    Ctrl(char),
    Alt(KeyCode),
    Shift(KeyCode),
    /// Any printable character without Ctrl.
    AnyChar,
    Any,
}

impl Key {
    fn matches(self, ev: &KeyEvent) -> bool {
        let m = ev.modifiers;
        let ctrl = m.contains(KeyModifiers::CONTROL);
        match self {
            Key::Plain(code) => {
                // Shift+Enter is a new line, not Enter.
                let shift_enter = code == KeyCode::Enter && m.contains(KeyModifiers::SHIFT);
                ev.code == code && !ctrl && !m.contains(KeyModifiers::ALT) && !shift_enter
            }
            Key::Ctrl(c) => ctrl && ev.code == KeyCode::Char(c),
            Key::Alt(code) => m.contains(KeyModifiers::ALT) && ev.code == code,
            Key::Shift(code) => m.contains(KeyModifiers::SHIFT) && ev.code == code,
            Key::AnyChar => !ctrl && matches!(ev.code, KeyCode::Char(_)),
            Key::Any => true,
        }
    }
}

pub(crate) struct Binding {
    pub context: Context,
    pub keys: &'static [Key],
    pub action: Action,
    /// The keys as shown ("Alt+Enter", "↑ k").
    pub shown: &'static str,
    pub en: &'static str,
    pub zh: &'static str,
    /// In the status bar, in a word or two (the help lists every binding).
    pub hint: Option<Hint>,
}

/// A binding's entry in the status bar.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hint {
    /// The keys, when the bar shows fewer or others than the help ("↑↓").
    pub keys: Option<&'static str>,
    pub en: &'static str,
    pub zh: &'static str,
}

impl Binding {
    pub(crate) fn text(&self, lang: Lang) -> &'static str {
        pick(lang, self.en, self.zh)
    }
}

use Action as A;
use Context as C;
use Key::{Alt, Any, AnyChar, Ctrl, Plain, Shift};
use KeyCode as K;

const fn h(en: &'static str, zh: &'static str) -> Option<Hint> {
    Some(Hint { keys: None, en, zh })
}

const fn hk(keys: &'static str, en: &'static str, zh: &'static str) -> Option<Hint> {
    Some(Hint { keys: Some(keys), en, zh })
}

const fn b(
    context: Context,
    keys: &'static [Key],
    action: Action,
    shown: &'static str,
    en: &'static str,
    zh: &'static str,
    hint: Option<Hint>,
) -> Binding {
    Binding {
        context,
        keys,
        action,
        shown,
        en,
        zh,
        hint,
    }
}

/// In each context the first binding a key matches wins; the order within
/// a context is also the order of its hints (the first ones stay when the
/// status bar is narrow).
#[rustfmt::skip]
pub(crate) const KEYS: &[Binding] = &[
    b(C::Anywhere, &[Ctrl('c')], A::Stop, "Ctrl+C", "stop the replies; twice within 5 s: quit now (saved, resumable)", "停止生成；5 秒内再按一次：立即退出（已保存，可恢复）", h("Stop", "停止")),
    b(C::Screen, &[Plain(K::PageUp)], A::PageUp, "PgUp", "scroll the transcript a page up (the wheel scrolls too)", "向上翻页（也可用滚轮）", None),
    b(C::Screen, &[Plain(K::PageDown)], A::PageDown, "PgDn", "scroll a page down", "向下翻页", None),
    b(C::Typing, &[Plain(K::Enter)], A::Send, "Enter", "send (the first message is the topic)", "发送（第一条为讨论主题）", h("Send", "发送")),
    b(C::Typing, &[Alt(K::Enter), Shift(K::Enter)], A::NewLine, "Alt+Enter", "new line (Shift+Enter where the terminal reports it)", "换行（终端支持时也可用 Shift+Enter）", h("New line", "换行")),
    b(C::Typing, &[Plain(K::Esc)], A::OpenMenu, "Esc", "menu keys", "菜单", h("Menu", "菜单")),
    b(C::Menu, &[Plain(K::Char('e')), Plain(K::Char('E'))], A::Exit, "E", "exit the party (asks first)", "退出派对（会先确认）", h("Exit", "退出")),
    b(C::Menu, &[Plain(K::Char('c')), Plain(K::Char('C'))], A::Continue, "C", "let the room continue one round", "让大家继续讨论一轮", h("Continue", "继续")),
    b(C::Menu, &[Plain(K::Char('?'))], A::Help, "?", "help: every key", "帮助：所有按键", h("Help", "帮助")),
    b(C::Menu, &[Plain(K::Up), Plain(K::Char('k'))], A::LineUp, "↑ k", "scroll up a line", "向上滚动一行", hk("↑↓", "Scroll", "滚动")),
    b(C::Menu, &[Plain(K::Down), Plain(K::Char('j'))], A::LineDown, "↓ j", "scroll down a line", "向下滚动一行", None),
    b(C::Menu, &[Plain(K::Home), Plain(K::Char('g'))], A::Top, "Home g", "to the start", "到开头", None),
    b(C::Menu, &[Plain(K::End), Plain(K::Char('G'))], A::Bottom, "End G", "to the end (follows new text again)", "到末尾（重新跟随新消息）", None),
    b(C::Menu, &[Plain(K::Char('i')), Plain(K::Enter)], A::Type, "i Enter", "back to typing", "回到输入框", hk("i", "Type", "输入")),
    b(C::Help, &[Plain(K::Up), Plain(K::Char('k'))], A::LineUp, "↑ k", "scroll the help", "滚动帮助", hk("↑↓", "Scroll", "滚动")),
    b(C::Help, &[Plain(K::Down), Plain(K::Char('j'))], A::LineDown, "↓ j", "scroll the help", "滚动帮助", None),
    b(C::Help, &[Plain(K::PageUp)], A::PageUp, "PgUp", "scroll the help a page", "帮助向上翻页", None),
    b(C::Help, &[Plain(K::PageDown)], A::PageDown, "PgDn", "scroll the help a page", "帮助向下翻页", None),
    b(C::Help, &[Any], A::Close, "any key", "close the help", "关闭帮助", hk("any other key", "Close help", "关闭帮助")),
    b(C::Ended, &[Plain(K::Char('h')), Plain(K::Char('H'))], A::ExportHtml, "H", "keep the session as a web page", "把会话保存为网页", h("Web page", "网页")),
    b(C::Ended, &[Plain(K::Char('m')), Plain(K::Char('M'))], A::ExportMarkdown, "M", "keep it as a Markdown transcript", "保存为 Markdown 记录", h("Markdown", "Markdown")),
    b(C::Ended, &[Any], A::Quit, "any other key", "quit", "退出", h("Quit", "退出")),
    b(C::ExitModal, &[ Plain(K::Enter), Plain(K::Char('y')), Plain(K::Char('Y')), Plain(K::Char('e')), Plain(K::Char('E')), ], A::Confirm, "Enter y", "end the party", "结束派对", hk("Enter", "End party", "结束派对")),
    b(C::ExitModal, &[Plain(K::Esc), Plain(K::Char('n')), Plain(K::Char('N')), Plain(K::Char('q'))], A::Decline, "Esc n", "keep talking", "继续讨论", hk("Esc", "Keep talking", "继续讨论")),
    b(C::ProposalModal, &[Plain(K::Enter)], A::Confirm, "Enter", "end the party (with a message typed: send it and go on)", "结束派对（已输入消息时：发送并继续）", h("End party", "结束派对")),
    b(C::ProposalModal, &[Plain(K::Esc)], A::Decline, "Esc", "continue", "继续", h("Continue", "继续")),
    b(C::ProposalModal, &[Plain(K::Backspace)], A::Erase, "Backspace", "erase a character", "删除一个字符", None),
    b(C::ProposalModal, &[AnyChar], A::TypeChar, "type", "a message to keep going with", "输入消息继续讨论", h("Continue with a message", "输入消息继续")),
    b(C::LimitModal, &[Plain(K::Left), Plain(K::Right), Plain(K::Tab), Plain(K::BackTab)], A::Toggle, "←→", "choose: end now or continue", "选择：现在结束或继续", h("Choose", "选择")),
    b(C::LimitModal, &[Plain(K::Char('+')), Plain(K::Char('=')), Plain(K::Up)], A::More, "+ ↑", "continue longer", "增加继续的数量", hk("+/-", "Amount", "数量")),
    b(C::LimitModal, &[Plain(K::Char('-')), Plain(K::Down)], A::Less, "- ↓", "continue shorter", "减少继续的数量", None),
    b(C::LimitModal, &[Plain(K::Enter)], A::Confirm, "Enter", "confirm the choice", "确认选择", h("Confirm", "确认")),
    b(C::LimitModal, &[Plain(K::Char('e')), Plain(K::Char('E'))], A::EndNow, "E", "end now", "现在结束", None),
    b(C::LimitModal, &[Plain(K::Char('c')), Plain(K::Char('C'))], A::ContinueMore, "C", "continue", "继续", None),
    b(C::ResetModal, &[Plain(K::Enter)], A::Confirm, "Enter", "answer with the highlighted choice", "以选中的选项回答", h("Answer", "回答")),
    b(C::ResetModal, &[Plain(K::Tab), Plain(K::BackTab), Plain(K::Left), Plain(K::Right)], A::Toggle, "Tab", "choose: confirm or reject", "选择：确认或拒绝", h("Confirm/Reject", "确认/拒绝")),
    b(C::ResetModal, &[Plain(K::Esc)], A::Decline, "Esc", "reject", "拒绝", h("Reject", "拒绝")),
    b(C::ResetModal, &[Plain(K::Backspace)], A::Erase, "Backspace", "erase a character", "删除一个字符", None),
    b(C::ResetModal, &[AnyChar], A::TypeChar, "type", "a reason (optional)", "原因（可选）", h("Reason", "原因")),
    b(C::BudgetModal, &[ Plain(K::Enter), Plain(K::Char('y')), Plain(K::Char('Y')), Plain(K::Char('c')), Plain(K::Char('C')), ], A::Confirm, "Enter", "keep going on its own", "继续自动推进", h("Keep going", "继续推进")),
    b(C::BudgetModal, &[ Plain(K::Esc), Plain(K::Char('n')), Plain(K::Char('N')), Plain(K::Char('s')), Plain(K::Char('S')), ], A::Decline, "Esc", "wait for me", "等我发言", h("Wait for me", "等我发言")),
];

/// What `key` does in `context`, if anything.
pub(crate) fn action(context: Context, key: &KeyEvent) -> Option<Action> {
    KEYS.iter()
        .filter(|b| b.context == context)
        .find(|b| b.keys.iter().any(|k| k.matches(key)))
        .map(|b| b.action)
}

/// The binding of `action` in `context` (for a modal's printed keys).
pub(crate) fn binding(context: Context, action: Action) -> &'static Binding {
    KEYS.iter()
        .find(|b| b.context == context && b.action == action)
        .unwrap_or_else(|| panic!("no key for {action:?} in {context:?}"))
}

/// `[Esc E] Exit`: how to reach the menu's exit from the input box, made of
/// the two bindings so it cannot name keys that do not do it.
fn exit_from_typing() -> (String, &'static str, &'static str) {
    let menu = binding(Context::Typing, Action::OpenMenu);
    let exit = binding(Context::Menu, Action::Exit);
    (format!("{} {}", menu.shown, exit.shown), "Exit", "退出")
}

/// The status bar's hints for `context`: `(keys, what)`, most useful first.
pub(crate) fn hints(context: Context, lang: Lang) -> Vec<(String, &'static str)> {
    let of = |c: Context| {
        KEYS.iter().filter(move |b| b.context == c).filter_map(move |b| {
            b.hint
                .map(|h| (format!("[{}]", keys_text(lang, h.keys.unwrap_or(b.shown))), pick(lang, h.en, h.zh)))
        })
    };
    let mut out: Vec<(String, &'static str)> = of(context).collect();
    if context == Context::Typing {
        // The way out is always on screen: second, so a narrow bar keeps it.
        let (keys, en, zh) = exit_from_typing();
        out.insert(1.min(out.len()), (format!("[{keys}]"), pick(lang, en, zh)));
        // The keys that work anywhere, last.
        out.extend(of(Context::Anywhere));
    }
    out
}

/// Key names that are words.
fn keys_text(lang: Lang, shown: &'static str) -> &'static str {
    match (lang, shown) {
        (Lang::Zh, "type") => "输入",
        (Lang::Zh, "any key") => "任意键",
        (Lang::Zh, "any other key") => "其他键",
        _ => shown,
    }
}

/// The help overlay's sections: a title and `(keys, what)` rows, every
/// binding of the main screen (the first four) and of each modal.
pub(crate) fn help(lang: Lang) -> Vec<(&'static str, Vec<(String, &'static str)>)> {
    let order = [
        C::Typing,
        C::Menu,
        C::Screen,
        C::Anywhere,
        C::ExitModal,
        C::ProposalModal,
        C::LimitModal,
        C::ResetModal,
        C::BudgetModal,
    ];
    order
        .iter()
        .map(|&c| {
            let (en, zh) = c.title();
            let rows = KEYS
                .iter()
                .filter(|b| b.context == c)
                .map(|b| (keys_text(lang, b.shown).to_string(), b.text(lang)))
                .collect();
            (pick(lang, en, zh), rows)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn the_first_matching_binding_wins() {
        let shift_enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT);
        assert_eq!(action(Context::Typing, &shift_enter), Some(Action::NewLine));
        assert_eq!(action(Context::Typing, &key(KeyCode::Enter)), Some(Action::Send));
        let upper_e = KeyEvent::new(KeyCode::Char('E'), KeyModifiers::SHIFT);
        assert_eq!(action(Context::Menu, &upper_e), Some(Action::Exit));
        let ctrl_e = KeyEvent::new(KeyCode::Char('e'), KeyModifiers::CONTROL);
        assert_eq!(action(Context::Menu, &ctrl_e), None);
    }

    #[test]
    fn typing_shows_the_way_out() {
        let hints = hints(Context::Typing, Lang::En);
        assert_eq!(hints[1], ("[Esc E]".to_string(), "Exit"));
        let zh = hints_for_zh();
        assert_eq!(zh[1].1, "退出");
    }

    fn hints_for_zh() -> Vec<(String, &'static str)> {
        hints(Context::Typing, Lang::Zh)
    }

    #[test]
    fn every_hint_names_keys_that_work() {
        // A hint's first key, pressed, does the hinted action.
        for b in KEYS.iter().filter(|b| b.hint.is_some()) {
            if let Some(first) = b.keys.first() {
                let ev = match *first {
                    Key::Plain(code) | Key::Alt(code) | Key::Shift(code) => key(code),
                    Key::Ctrl(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL),
                    Key::AnyChar => key(KeyCode::Char('x')),
                    Key::Any => key(KeyCode::Char('x')),
                };
                let ev = match *first {
                    Key::Alt(code) => KeyEvent::new(code, KeyModifiers::ALT),
                    Key::Shift(code) => KeyEvent::new(code, KeyModifiers::SHIFT),
                    _ => ev,
                };
                assert_eq!(action(b.context, &ev), Some(b.action), "{:?} {:?}", b.context, b.action);
            }
        }
    }

    #[test]
    fn the_help_lists_every_binding_of_every_modal_and_the_menu() {
        let sections = help(Lang::En);
        let listed: usize = sections.iter().map(|(_, rows)| rows.len()).sum();
        let expected = KEYS.iter().filter(|b| !matches!(b.context, C::Help | C::Ended)).count();
        assert_eq!(listed, expected);
        let menu = &sections.iter().find(|(t, _)| t.starts_with("Menu")).expect("menu").1;
        assert!(menu.iter().any(|(k, _)| k == "↓ j"));
        assert!(menu.iter().any(|(k, _)| k == "End G"));
        let exit = &sections.iter().find(|(t, _)| t.starts_with("Exit")).expect("exit modal").1;
        assert!(exit.iter().any(|(k, _)| k == "Enter y") && exit.iter().any(|(k, _)| k == "Esc n"));
    }
}
