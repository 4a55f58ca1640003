/// What the model layer says of a call that went wrong: how a request
/// failed, what the server did or did not send, and which models it has.
/// Said from a `llm::Failure` where it is shown, in the party's language.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Model<'a> {
    // How a request went wrong (the library's causes follow).
    CannotConnect,
    TimedOut,
    ReplyCutOff,
    RequestFailed,

    // What the server sent, or did not.
    StreamBroken {
        why: &'a str,
    },
    InvalidRequest {
        what: &'a str,
    },
    ServerErrorInStream {
        message: &'a str,
    },
    Stalled {
        secs: u64,
    },
    NoReplyWithin {
        secs: u64,
    },
    /// The endpoint's model list.
    NoAnswerWithin {
        secs: u64,
    },
    EmptyReply,
    EndedBeforeText,

    // After the retries.
    AfterAttempts {
        cause: &'a str,
        attempts: u32,
    },
    UnreachableFor {
        cause: &'a str,
        secs: u64,
    },

    // A model the server does not have.
    NoModelsListed {
        url: &'a str,
    },
    ModelsListed {
        url: &'a str,
        names: &'a str,
    },
    HowToNameOne,
    /// A few names, then how many more.
    AndMore {
        shown: &'a str,
        more: usize,
    },

    // Setting the provider up.
    BadApiKey,
    HttpClient {
        error: &'a str,
    },
}
