//! The typed keys of what the program says, one enum per area. A key names
//! what the text is for and carries the values it shows; `en/` and `zh/`
//! say it, each with one exhaustive `match` per area, so a key without its
//! words in every language does not compile.

mod cast;
mod key_words;
mod model;
mod printed;
mod problem;
mod record;
mod room;
mod screen;
mod start;

pub(crate) use cast::Cast;
pub(crate) use key_words::KeyWords;
pub(crate) use model::Model;
pub(crate) use printed::Printed;
pub(crate) use problem::{KeyHint, Problem, ValueKind};
pub(crate) use record::Record;
pub(crate) use room::Room;
pub(crate) use screen::Screen;
pub(crate) use start::Start;
