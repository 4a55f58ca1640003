//! What every view shares: the palette (agent colours, amber, the counters'
//! severity), centring a box, and the little of the app a view may read
//! ([`Speakers`]: who is in the room, the language, the facilitator's name).
//! Views take these rather than the whole `App`.

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

use crate::engine::AgentInfo;
use crate::i18n::Lang;

// The palette: every colour a view draws with, by what it says. Views
// name these, never a colour (`tests/house/layout.rs` holds them to it).

/// Text as it is.
pub(crate) const TEXT: Color = Color::White;
/// What is there to read but is not the point: counts, labels, keys at rest.
pub(crate) const MUTED: Color = Color::Gray;
/// What only frames or separates: borders at rest, rules, quote marks.
pub(crate) const FAINT: Color = Color::DarkGray;
/// What to press or notice: keys, code, a reset to confirm, a model reading.
pub(crate) const ATTENTION: Color = Color::Yellow;
/// The help's section titles.
pub(crate) const HEADING: Color = Color::Cyan;
/// The room asks the facilitator: a question, the exit to confirm.
pub(crate) const ASK: Color = Color::Magenta;
/// A failure or a limit reached.
pub(crate) const DANGER: Color = Color::Red;
/// Done, agreed.
pub(crate) const GOOD: Color = Color::Green;
/// The runtime's own, calm: the push budget, the scroll position, a retry.
pub(crate) const CALM: Color = Color::Blue;
/// The runtime's push, as the transcript shows it.
pub(crate) const PUSH: Color = Color::LightBlue;
/// Text on a bright ground.
pub(crate) const INK: Color = Color::Black;
/// The header's ground.
pub(crate) const HEADER_BG: Color = Color::Rgb(40, 40, 60);
/// No colour (`NO_COLOR`): the terminal's own.
pub(crate) const NO_COLOR: Color = Color::Reset;
/// The warning's colour: a counter past its warning.
pub(crate) const AMBER: Color = Color::Rgb(255, 176, 0);

pub(crate) fn agent_color(name: Option<&str>) -> Color {
    use crate::roster::agents::AgentColor as A;
    match name.and_then(A::parse) {
        Some(A::Red) => Color::Red,
        Some(A::Green) => Color::Green,
        Some(A::Yellow) => Color::Yellow,
        Some(A::Blue) => Color::Blue,
        Some(A::Magenta) => Color::Magenta,
        Some(A::Cyan) | None => Color::Cyan,
        Some(A::Gray) => Color::Gray,
        Some(A::White) => Color::White,
        Some(A::LightRed) => Color::LightRed,
        Some(A::LightGreen) => Color::LightGreen,
        Some(A::LightYellow) => Color::LightYellow,
        Some(A::LightBlue) => Color::LightBlue,
        Some(A::LightMagenta) => Color::LightMagenta,
        Some(A::LightCyan) => Color::LightCyan,
        Some(A::Rgb(r, g, b)) => Color::Rgb(r, g, b),
    }
}

/// The severity colour of a counter: normal, amber from the warning, red at the limit.
pub(crate) fn level_style(value: u64, warn: u64, max: u64) -> Style {
    if max > 0 && value >= max {
        Style::new().fg(TEXT).bg(DANGER).add_modifier(Modifier::BOLD)
    } else if warn > 0 && value >= warn {
        Style::new().fg(INK).bg(AMBER)
    } else {
        Style::new().fg(TEXT)
    }
}

/// A rectangle of at most `width` × `height`, centred in `area`.
pub(crate) fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// The model an agent speaks with, as a heading shows it after the name
/// (` [gpt-4o-mini]`): only in a room of several models (`AgentInfo::model`),
/// else nothing.
pub(crate) fn model_tag(agent: Option<&AgentInfo>) -> String {
    agent
        .and_then(|a| a.model.as_deref())
        .map(|m| format!(" [{m}]"))
        .unwrap_or_default()
}

/// What an entry's heading needs to know about the people in the room.
pub(crate) struct Speakers<'a> {
    pub agents: &'a [AgentInfo],
    pub lang: Lang,
    pub user_name: &'a str,
}

impl Speakers<'_> {
    pub(crate) fn agent(&self, id: &str) -> Option<&AgentInfo> {
        self.agents.iter().find(|a| a.id == id)
    }
}
