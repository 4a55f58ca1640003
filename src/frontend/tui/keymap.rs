//! The one key table. Key handling, the status-bar hints, the keys printed
//! in a modal and the help overlay all read it, so a key cannot work in one
//! place and be missing from another.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::i18n::{KeyWords, Lang, Say};

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
    RosterModal,
    /// The review of a drafted cast (`/cast`).
    CastModal,
    /// Its field editor.
    CastEdit,
}

impl Context {
    fn title(self) -> KeyWords {
        match self {
            Context::Anywhere => KeyWords::SectionAnywhere,
            Context::Screen => KeyWords::SectionScreen,
            Context::Typing => KeyWords::SectionTyping,
            Context::Menu => KeyWords::SectionMenu,
            Context::Help => KeyWords::SectionHelp,
            Context::Ended => KeyWords::SectionEnded,
            Context::ExitModal => KeyWords::SectionExitModal,
            Context::ProposalModal => KeyWords::SectionProposalModal,
            Context::LimitModal => KeyWords::SectionLimitModal,
            Context::ResetModal => KeyWords::SectionResetModal,
            Context::BudgetModal => KeyWords::SectionBudgetModal,
            Context::RosterModal => KeyWords::SectionRosterModal,
            Context::CastModal => KeyWords::SectionCastModal,
            Context::CastEdit => KeyWords::SectionCastEdit,
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
    /// Who is in the room: the roster modal.
    Roster,
    /// Ask the last round's last reply again (`/redo`).
    AskAgain,
    /// Take the last round back (`/undo`).
    Undo,
    /// Where the room stands, into the transcript (`/summary`).
    Summary,
    /// The last reply to the clipboard.
    Copy,
    /// The facilitator's last message into the message box, to edit and
    /// send again (`/edit`).
    EditLast,
    /// The takes set aside listed (`/takes`), and `/take ` in the message
    /// box for the number to bring back.
    Takes,
    /// Mute or unmute the highlighted speaker.
    Mute,
    /// Give the highlighted speaker the next round.
    Only,
    /// Leave the highlighted persona out of a drafted cast.
    Drop,
    /// Edit a field of the highlighted row.
    Edit,
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
    /// What the keys do, as the help lists it.
    pub does: KeyWords,
    /// In the status bar, in a word or two (the help lists every binding).
    pub hint: Option<Hint>,
}

/// A binding's entry in the status bar.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hint {
    /// The keys, when the bar shows fewer or others than the help ("↑↓").
    pub keys: Option<&'static str>,
    pub what: KeyWords,
}

impl Binding {
    pub(crate) fn text(&self, lang: Lang) -> String {
        self.does.say(lang)
    }
}

use Action as A;
use Context as C;
use Key::{Alt, Any, AnyChar, Ctrl, Plain, Shift};
use KeyCode as K;
use KeyWords as W;

const fn h(what: KeyWords) -> Option<Hint> {
    Some(Hint { keys: None, what })
}

const fn hk(keys: &'static str, what: KeyWords) -> Option<Hint> {
    Some(Hint { keys: Some(keys), what })
}

const fn b(context: Context, keys: &'static [Key], action: Action, shown: &'static str, does: KeyWords, hint: Option<Hint>) -> Binding {
    Binding {
        context,
        keys,
        action,
        shown,
        does,
        hint,
    }
}

/// In each context the first binding a key matches wins; the order within
/// a context is also the order of its hints (the first ones stay when the
/// status bar is narrow).
#[rustfmt::skip]
pub(crate) const KEYS: &[Binding] = &[
    b(C::Anywhere, &[Ctrl('c')], A::Stop, "Ctrl+C", W::AnywhereStop, h(W::AnywhereStopHint)),
    b(C::Screen, &[Plain(K::PageUp)], A::PageUp, "PgUp", W::ScreenPageUp, None),
    b(C::Screen, &[Plain(K::PageDown)], A::PageDown, "PgDn", W::ScreenPageDown, None),
    b(C::Typing, &[Plain(K::Enter)], A::Send, "Enter", W::TypingSend, h(W::TypingSendHint)),
    b(C::Typing, &[Alt(K::Enter), Shift(K::Enter)], A::NewLine, "Alt+Enter", W::TypingNewLine, h(W::TypingNewLineHint)),
    b(C::Typing, &[Plain(K::Esc)], A::OpenMenu, "Esc", W::TypingOpenMenu, h(W::TypingOpenMenuHint)),
    b(C::Menu, &[Plain(K::Char('e')), Plain(K::Char('E'))], A::Exit, "E", W::MenuExit, h(W::MenuExitHint)),
    b(C::Menu, &[Plain(K::Char('c')), Plain(K::Char('C'))], A::Continue, "C", W::MenuContinue, h(W::MenuContinueHint)),
    b(C::Menu, &[Plain(K::Char('r')), Plain(K::Char('R'))], A::Roster, "R", W::MenuRoster, h(W::MenuRosterHint)),
    b(C::Menu, &[Plain(K::Char('a')), Plain(K::Char('A'))], A::AskAgain, "A", W::MenuAskAgain, None),
    b(C::Menu, &[Plain(K::Char('t')), Plain(K::Char('T'))], A::Takes, "T", W::MenuTakes, None),
    b(C::Menu, &[Plain(K::Char('u')), Plain(K::Char('U'))], A::Undo, "U", W::MenuUndo, None),
    b(C::Menu, &[Plain(K::Char('l')), Plain(K::Char('L'))], A::EditLast, "L", W::MenuEditLast, None),
    b(C::Menu, &[Plain(K::Char('w')), Plain(K::Char('W'))], A::Summary, "W", W::MenuSummary, None),
    b(C::Menu, &[Plain(K::Char('y')), Plain(K::Char('Y'))], A::Copy, "Y", W::MenuCopy, None),
    b(C::Menu, &[Plain(K::Char('?'))], A::Help, "?", W::MenuHelp, h(W::MenuHelpHint)),
    b(C::Menu, &[Plain(K::Up), Plain(K::Char('k'))], A::LineUp, "↑ k", W::MenuLineUp, hk("↑↓", W::MenuLineUpHint)),
    b(C::Menu, &[Plain(K::Down), Plain(K::Char('j'))], A::LineDown, "↓ j", W::MenuLineDown, None),
    b(C::Menu, &[Plain(K::Home), Plain(K::Char('g'))], A::Top, "Home g", W::MenuTop, None),
    b(C::Menu, &[Plain(K::End), Plain(K::Char('G'))], A::Bottom, "End G", W::MenuBottom, None),
    b(C::Menu, &[Plain(K::Char('i')), Plain(K::Enter)], A::Type, "i Enter", W::MenuType, hk("i", W::MenuTypeHint)),
    b(C::Help, &[Plain(K::Up), Plain(K::Char('k'))], A::LineUp, "↑ k", W::HelpLineUp, hk("↑↓", W::HelpLineUpHint)),
    b(C::Help, &[Plain(K::Down), Plain(K::Char('j'))], A::LineDown, "↓ j", W::HelpLineDown, None),
    b(C::Help, &[Plain(K::PageUp)], A::PageUp, "PgUp", W::HelpPageUp, None),
    b(C::Help, &[Plain(K::PageDown)], A::PageDown, "PgDn", W::HelpPageDown, None),
    b(C::Help, &[Any], A::Close, "any key", W::HelpClose, hk("any other key", W::HelpCloseHint)),
    b(C::Ended, &[Plain(K::Char('h')), Plain(K::Char('H'))], A::ExportHtml, "H", W::EndedExportHtml, h(W::EndedExportHtmlHint)),
    b(C::Ended, &[Plain(K::Char('m')), Plain(K::Char('M'))], A::ExportMarkdown, "M", W::EndedExportMarkdown, h(W::EndedExportMarkdownHint)),
    b(C::Ended, &[Any], A::Quit, "any other key", W::EndedQuit, h(W::EndedQuitHint)),
    b(C::ExitModal, &[ Plain(K::Enter), Plain(K::Char('y')), Plain(K::Char('Y')), Plain(K::Char('e')), Plain(K::Char('E')), ], A::Confirm, "Enter y", W::ExitModalConfirm, hk("Enter", W::ExitModalConfirmHint)),
    b(C::ExitModal, &[Plain(K::Esc), Plain(K::Char('n')), Plain(K::Char('N')), Plain(K::Char('q'))], A::Decline, "Esc n", W::ExitModalDecline, hk("Esc", W::ExitModalDeclineHint)),
    b(C::ProposalModal, &[Plain(K::Enter)], A::Confirm, "Enter", W::ProposalModalConfirm, h(W::ProposalModalConfirmHint)),
    b(C::ProposalModal, &[Plain(K::Esc)], A::Decline, "Esc", W::ProposalModalDecline, h(W::ProposalModalDeclineHint)),
    b(C::ProposalModal, &[Plain(K::Backspace)], A::Erase, "Backspace", W::ProposalModalErase, None),
    b(C::ProposalModal, &[AnyChar], A::TypeChar, "type", W::ProposalModalTypeChar, h(W::ProposalModalTypeCharHint)),
    b(C::LimitModal, &[Plain(K::Left), Plain(K::Right), Plain(K::Tab), Plain(K::BackTab)], A::Toggle, "←→", W::LimitModalToggle, h(W::LimitModalToggleHint)),
    b(C::LimitModal, &[Plain(K::Char('+')), Plain(K::Char('=')), Plain(K::Up)], A::More, "+ ↑", W::LimitModalMore, hk("+/-", W::LimitModalMoreHint)),
    b(C::LimitModal, &[Plain(K::Char('-')), Plain(K::Down)], A::Less, "- ↓", W::LimitModalLess, None),
    b(C::LimitModal, &[Plain(K::Enter)], A::Confirm, "Enter", W::LimitModalConfirm, h(W::LimitModalConfirmHint)),
    b(C::LimitModal, &[Plain(K::Char('e')), Plain(K::Char('E'))], A::EndNow, "E", W::LimitModalEndNow, None),
    b(C::LimitModal, &[Plain(K::Char('c')), Plain(K::Char('C'))], A::ContinueMore, "C", W::LimitModalContinueMore, None),
    b(C::ResetModal, &[Plain(K::Enter)], A::Confirm, "Enter", W::ResetModalConfirm, h(W::ResetModalConfirmHint)),
    b(C::ResetModal, &[Plain(K::Tab), Plain(K::BackTab), Plain(K::Left), Plain(K::Right)], A::Toggle, "Tab", W::ResetModalToggle, h(W::ResetModalToggleHint)),
    b(C::ResetModal, &[Plain(K::Esc)], A::Decline, "Esc", W::ResetModalDecline, h(W::ResetModalDeclineHint)),
    b(C::ResetModal, &[Plain(K::Backspace)], A::Erase, "Backspace", W::ResetModalErase, None),
    b(C::ResetModal, &[AnyChar], A::TypeChar, "type", W::ResetModalTypeChar, h(W::ResetModalTypeCharHint)),
    b(C::BudgetModal, &[ Plain(K::Enter), Plain(K::Char('y')), Plain(K::Char('Y')), Plain(K::Char('c')), Plain(K::Char('C')), ], A::Confirm, "Enter", W::BudgetModalConfirm, h(W::BudgetModalConfirmHint)),
    b(C::BudgetModal, &[ Plain(K::Esc), Plain(K::Char('n')), Plain(K::Char('N')), Plain(K::Char('s')), Plain(K::Char('S')), ], A::Decline, "Esc", W::BudgetModalDecline, h(W::BudgetModalDeclineHint)),
    b(C::RosterModal, &[Plain(K::Up), Plain(K::Char('k'))], A::LineUp, "↑ k", W::RosterModalLineUp, hk("↑↓", W::RosterModalLineUpHint)),
    b(C::RosterModal, &[Plain(K::Down), Plain(K::Char('j'))], A::LineDown, "↓ j", W::RosterModalLineDown, None),
    b(C::RosterModal, &[Plain(K::Enter)], A::Confirm, "Enter", W::RosterModalConfirm, h(W::RosterModalConfirmHint)),
    b(C::RosterModal, &[Plain(K::Char('m')), Plain(K::Char('M'))], A::Mute, "M", W::RosterModalMute, h(W::RosterModalMuteHint)),
    b(C::RosterModal, &[Plain(K::Char('o')), Plain(K::Char('O'))], A::Only, "O", W::RosterModalOnly, h(W::RosterModalOnlyHint)),
    b(C::RosterModal, &[Plain(K::Esc), Plain(K::Char('q')), Plain(K::Char('r')), Plain(K::Char('R'))], A::Close, "Esc", W::RosterModalClose, h(W::RosterModalCloseHint)),
    b(C::CastModal, &[Plain(K::Up), Plain(K::Char('k'))], A::LineUp, "↑ k", W::CastModalLineUp, hk("↑↓", W::CastModalLineUpHint)),
    b(C::CastModal, &[Plain(K::Down), Plain(K::Char('j'))], A::LineDown, "↓ j", W::CastModalLineDown, None),
    b(C::CastModal, &[Plain(K::Enter)], A::Confirm, "Enter", W::CastModalConfirm, h(W::CastModalConfirmHint)),
    b(C::CastModal, &[Plain(K::Char('d')), Plain(K::Char('D')), Plain(K::Delete)], A::Drop, "D", W::CastModalDrop, h(W::CastModalDropHint)),
    b(C::CastModal, &[Plain(K::Char('a')), Plain(K::Char('A'))], A::AskAgain, "A", W::CastModalAgain, h(W::CastModalAgainHint)),
    b(C::CastModal, &[Plain(K::Char('e')), Plain(K::Char('E'))], A::Edit, "E", W::CastModalEdit, h(W::CastModalEditHint)),
    b(C::CastModal, &[Plain(K::Esc), Plain(K::Char('q'))], A::Close, "Esc", W::CastModalClose, h(W::CastModalCloseHint)),
    b(C::CastEdit, &[Plain(K::Enter)], A::Confirm, "Enter", W::CastEditConfirm, h(W::CastEditConfirmHint)),
    b(C::CastEdit, &[Plain(K::Tab)], A::Toggle, "Tab", W::CastEditToggle, h(W::CastEditToggleHint)),
    b(C::CastEdit, &[Plain(K::BackTab)], A::LineUp, "Shift+Tab", W::CastEditBack, None),
    b(C::CastEdit, &[Plain(K::Esc)], A::Close, "Esc", W::CastEditClose, h(W::CastEditCloseHint)),
    b(C::CastEdit, &[Plain(K::Backspace)], A::Erase, "Backspace", W::CastEditErase, None),
    b(C::CastEdit, &[AnyChar], A::TypeChar, "type", W::CastEditTypeChar, None),
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
fn exit_from_typing() -> (String, KeyWords) {
    let menu = binding(Context::Typing, Action::OpenMenu);
    let exit = binding(Context::Menu, Action::Exit);
    (format!("{} {}", menu.shown, exit.shown), KeyWords::ExitFromTyping)
}

/// The status bar's hints for `context`: `(keys, what)`, most useful first.
pub(crate) fn hints(context: Context, lang: Lang) -> Vec<(String, String)> {
    let of = |c: Context| {
        KEYS.iter().filter(move |b| b.context == c).filter_map(move |b| {
            b.hint
                .map(|h| (format!("[{}]", keys_text(lang, h.keys.unwrap_or(b.shown))), h.what.say(lang)))
        })
    };
    let mut out: Vec<(String, String)> = of(context).collect();
    if context == Context::Typing {
        // The way out is always on screen: second, so a narrow bar keeps it.
        let (keys, what) = exit_from_typing();
        out.insert(1.min(out.len()), (format!("[{keys}]"), what.say(lang)));
        // The keys that work anywhere, last.
        out.extend(of(Context::Anywhere));
    }
    out
}

/// Key names that are words, in `lang`; the table spells them in English.
fn keys_text(lang: Lang, shown: &'static str) -> String {
    match shown {
        "type" => KeyWords::TypeKey.say(lang),
        "any key" => KeyWords::AnyKey.say(lang),
        "any other key" => KeyWords::AnyOtherKey.say(lang),
        _ => shown.to_string(),
    }
}

/// The help overlay's sections: a title and `(keys, what)` rows, every
/// binding of the main screen (the first four) and of each modal.
pub(crate) fn help(lang: Lang) -> Vec<(String, Vec<(String, String)>)> {
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
        C::RosterModal,
        C::CastModal,
        C::CastEdit,
    ];
    order
        .iter()
        .map(|&c| {
            let rows = KEYS
                .iter()
                .filter(|b| b.context == c)
                .map(|b| (keys_text(lang, b.shown), b.text(lang)))
                .collect();
            (c.title().say(lang), rows)
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
        let en = hints(Context::Typing, Lang::En);
        assert_eq!(en[1], ("[Esc E]".to_string(), "Exit".to_string()));
        let zh = hints(Context::Typing, Lang::Zh);
        assert_eq!(zh[1].1, "退出");
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
