//! The program's words in Chinese (simplified), one function per area of `keys`.

mod cast;
mod key_words;
mod model;
mod printed;
mod problem;
mod record;
mod room;
mod screen;
mod start;

pub(super) use cast::cast;
pub(super) use key_words::key_words;
pub(super) use model::model;
pub(super) use printed::printed;
pub(super) use problem::problem;
pub(super) use record::record;
pub(super) use room::room;
pub(super) use screen::screen;
pub(super) use start::start;
