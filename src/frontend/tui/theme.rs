//! What every view shares: the palette (agent colours, amber, the counters'
//! severity), centring a box, and the little of the app a view may read
//! ([`Speakers`]: who is in the room, the language, the facilitator's name).
//! Views take these rather than the whole `App`.

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

use crate::engine::AgentInfo;
use crate::i18n::Lang;

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
        Style::new().fg(Color::White).bg(Color::Red).add_modifier(Modifier::BOLD)
    } else if warn > 0 && value >= warn {
        Style::new().fg(Color::Black).bg(AMBER)
    } else {
        Style::new().fg(Color::White)
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
