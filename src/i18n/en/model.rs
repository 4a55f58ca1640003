//! English: Model.

use crate::i18n::keys::Model;

pub(in crate::i18n) fn model(k: &Model<'_>) -> String {
    match k {
        // How a request went wrong.
        Model::CannotConnect => "cannot connect".into(),
        Model::TimedOut => "timed out".into(),
        Model::ReplyCutOff => "reply cut off".into(),
        Model::RequestFailed => "request failed".into(),

        // What the server sent, or did not.
        Model::StreamBroken { why } => format!("stream broken: {why}"),
        Model::InvalidRequest { what } => format!("invalid request: {what}"),
        Model::ServerErrorInStream { message } => format!("server error in stream: {message}"),
        Model::Stalled { secs } => format!("reply stalled: nothing for {secs} s"),
        Model::NoReplyWithin { secs } => format!("no reply within {secs} s"),
        Model::NoAnswerWithin { secs } => format!("no answer within {secs} s"),
        Model::EmptyReply => "the model sent an empty reply".into(),
        Model::EndedBeforeText => "the reply ended before any text".into(),

        // After the retries.
        Model::AfterAttempts { cause, attempts } => format!("{cause} (after {attempts} attempts)"),
        Model::UnreachableFor { cause, secs } => format!("{cause} (unreachable for {secs} s)"),

        // A model the server does not have.
        Model::NoModelsListed { url } => format!("The server at {url} lists no models."),
        Model::ModelsListed { url, names } => format!("The server at {url} has: {names}."),
        Model::HowToNameOne => {
            "Name one with --model NAME, `bmad.llm.model` in the config, OPENAI_MODEL, or `model:` in the agent's file.".into()
        }
        Model::AndMore { shown, more } => format!("{shown} and {more} more"),

        // Setting the provider up.
        Model::BadApiKey => {
            "OPENAI_API_KEY contains characters that cannot be sent in an HTTP header (a line break or control character?)".into()
        }
        Model::HttpClient { error } => format!("cannot set up the HTTP client: {error}"),
    }
}
