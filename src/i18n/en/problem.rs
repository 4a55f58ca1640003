//! English: Problem.

use crate::i18n::keys::{KeyHint, Problem, ValueKind};

pub(in crate::i18n) fn problem(k: &Problem) -> String {
    match k {
        Problem::Text(text) => text.clone(),
        Problem::Ignored(m) => format!("{}; ignored", problem(m)),

        // Reading a file.
        Problem::CannotRead { error } => format!("cannot read: {error}"),
        Problem::CannotReadAgentsFolder { error } => format!("cannot read the agents folder: {error}"),
        Problem::NotUtf8At { at } => format!("not UTF-8 text (byte {at})"),

        // YAML, reworded.
        Problem::UnknownKey { unknown, hint } => {
            let hint = match hint {
                KeyHint::Near(k) => format!("did you mean `{k}`?"),
                KeyHint::Known(list) => format!("the keys known here: {list}"),
                KeyHint::None => String::new(),
            };
            format!("unknown key `{unknown}`; {hint}").trim_end_matches("; ").to_string()
        }
        Problem::MissingKey {
            missing,
            near: Some((k, n)),
        } => {
            format!("`{missing}` is missing; is `{k}` on line {n} meant to be `{missing}`?")
        }
        Problem::MissingKey { missing, near: None } => format!("`{missing}` is missing"),
        Problem::DuplicateKey { dup, first: Some(n) } => {
            format!("`{dup}` is set twice in the same block (first on line {n}); keep one")
        }
        Problem::DuplicateKey { dup, first: None } => format!("`{dup}` is set twice in the same block; keep one"),
        Problem::Expected { wanted, found } => {
            let wanted = value_kind(*wanted);
            let found = found.as_ref().map(|v| format!(", found `{v}`")).unwrap_or_default();
            format!("expected {wanted}{found}")
        }

        // Config values.
        Problem::AtLeast { min } => format!("must be at least {min}"),
        Problem::Between0And1 => "must be between 0 and 1".into(),
        Problem::Between0And2 => "must be between 0 and 2".into(),
        Problem::NotEmpty => "may not be empty".into(),
        Problem::EmptyUseNull => "may not be empty (use null for the default)".into(),
        Problem::EmptyUseNullRoom => "may not be empty (use null for the default room)".into(),
        Problem::WarnAtBoth => "give either `warn_at_rounds` or its alias `warn_at`, not both".into(),
        Problem::WarnRoundsBelowMax { max } => format!("must be below max_rounds ({max}); use 0 to turn the warning off"),
        Problem::PositiveMinutes => "must be a positive number of minutes".into(),
        Problem::WarnMinutesBelowMax { max } => format!("must be at least 0 and below max_duration_minutes ({max})"),
        Problem::AgentsPerRound { min, max } => format!("need 1 <= min <= max <= 8, got min {min}, max {max}"),
        Problem::EmptyTrigger => "a trigger may not be empty".into(),
        Problem::BadRegex { error } => format!("not a valid regular expression: {error}"),
        Problem::ContextTokens => "must be at least 1024 and more than twice reply_max_tokens".into(),
        Problem::NotHttpUrl { url } => format!("`{url}` is not an http:// or https:// URL"),
        Problem::AtMost10 => "must be 10 or less".into(),
        Problem::AtMostAnHour => "must be 3600 or less (an hour)".into(),
        Problem::PartyIdChars => "a party's id is letters, digits, - and _ (it names its memory folder)".into(),
        Problem::NamesNobody => "names nobody; leave `members` out for an open cast (the whole room)".into(),
        Problem::EndpointName => "an endpoint's name is letters, digits, - and _, and not `default` (the top-level bmad.llm)".into(),
        Problem::EndpointNeedsUrl => "an endpoint needs its `base_url`".into(),
        Problem::UnknownEndpoint { name, known } if known.is_empty() => {
            format!("no endpoint named `{name}`: bmad.llm.endpoints defines none (`default` is the top-level bmad.llm)")
        }
        Problem::UnknownEndpoint { name, known } => {
            format!("no endpoint named `{name}` (bmad.llm.endpoints has {known}; `default` is the top-level bmad.llm)")
        }
        Problem::KeyVarUnset { var } => format!("the environment variable `{var}` that holds this endpoint's key is not set"),
        Problem::KeyVarName => {
            "is the name of the environment variable that holds the key (letters, digits and _, e.g. OPENAI_API_KEY), never the key itself"
                .into()
        }
        Problem::KeyVarValue { var } => {
            format!("the key in the environment variable `{var}` cannot be sent (it holds a newline or another control character)")
        }
        Problem::EndpointFlag { given } => format!("`{given}` is not AGENT=ENDPOINT (e.g. `--endpoint architect=hosted`)"),
        Problem::EndpointAgent { agent } => format!("no agent in the room answers to `{agent}` (`--list-agents` shows who is)"),

        // Agent files.
        Problem::NoFrontmatter => "no YAML frontmatter: the file must start with a line `---`, then the persona fields, then `---`".into(),
        Problem::IdChars { id } => format!("`{id}` may only use letters, digits, `-` and `_` (it is typed as @id)"),
        Problem::NotAColour { colour, all } => format!("`{colour}` is not a colour; use one of {all} or #rrggbb"),
        Problem::DuplicateId { id, first } => format!("duplicate id `{id}` (already used by {first})"),
        Problem::NoAgentFiles => "no agent files (*.md) found; the room is empty".into(),

        // A BMAD install.
        Problem::NotTomlIgnored { error } => format!("not valid TOML, ignored: {error}"),
        Problem::NotATableSkipped => "not a table, skipped".into(),
        Problem::NoCodeSkipped => "has no `code`, skipped".into(),
        Problem::GroupIdSkipped => "needs an `id` of letters, digits, - and _ (it names the memory folder), skipped".into(),
        Problem::NoCustomizeToml => "no customize.toml found for this agent; using its description as the persona".into(),
        Problem::NoPersonaFields => "no persona fields (role, identity, communicationStyle, description); kept with its name only".into(),
        Problem::AgentFileMissing { path } => format!("`{path}` does not exist; using the manifest's fields only"),
        Problem::UnreadableHeader { error } => format!("unreadable header: {error}"),
        Problem::NotAManifest => "no `name` or `displayName` column; this is not an agent manifest".into(),
        Problem::UnreadableRow { error } => format!("unreadable row, skipped: {error}"),
        Problem::RowWithoutName => "row without `name` or `displayName`, skipped".into(),

        // A document put in front of the room.
        Problem::DocumentUnreadable { shown, error } => format!("{shown}: cannot read: {error}"),
        Problem::DocumentNotText { shown } => format!("{shown}: not a text file (Markdown or plain text is expected)"),
        Problem::DocumentNotUtf8 { shown } => format!("{shown}: not UTF-8 text (Markdown or plain text is expected)"),
        Problem::DocumentEmpty { shown } => format!("{shown}: empty"),

        // The workflow's files.
        Problem::WorkflowMissing => "workflow file is missing".into(),
        Problem::TemplateMissing => "required template is missing (a `## Template: NAME` heading followed by a fenced block)".into(),
        Problem::UnknownPlaceholder { placeholder, known } => {
            format!("unknown placeholder {{{{{placeholder}}}}}; this template knows {known}")
        }
        Problem::TemplateNotClosed { fence } => format!("template block is not closed with {fence}"),
        Problem::NoFencedBlock => "no fenced block follows this heading (lines between may not start with #, ` or ~)".into(),
    }
}

fn value_kind(k: ValueKind) -> &'static str {
    match k {
        ValueKind::Unsigned => "a whole number (0 or more)",
        ValueKind::Integer => "a whole number",
        ValueKind::Number => "a number",
        ValueKind::Bool => "true or false",
        ValueKind::Single => "a single value",
        ValueKind::Text => "text",
    }
}
