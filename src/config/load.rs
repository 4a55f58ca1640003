//! Reading `config.yaml`: the file's raw shape with source positions,
//! checked key by key into a `Config`, every problem located.

use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::i18n::Problem;

use super::check::Checker;
use super::*;

// ---- raw, position-carrying shape of the file ----

type S<T> = Option<Spanned<T>>;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawFile {
    bmad: Option<RawBmad>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawBmad {
    party_mode: Option<RawParty>,
    llm: Option<RawLlm>,
    parties: S<std::collections::BTreeMap<String, Spanned<super::parties::RawPartyDef>>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawParty {
    auto_exit_enabled: S<bool>,
    max_rounds: S<u32>,
    warn_at_rounds: S<u32>,
    warn_at: S<u32>,
    max_duration_minutes: S<f64>,
    warn_at_minutes: S<f64>,
    agents_per_round: Option<Spanned<RawRange>>,
    selection: S<Selection>,
    #[serde(default, deserialize_with = "super::endpoints::present")]
    round_mode: S<Option<RoundMode>>,
    exit_triggers: S<Vec<String>>,
    reset_triggers: S<Vec<String>>,
    end_detection: Option<RawEnd>,
    ask_marker: S<String>,
    self_check: S<bool>,
    read_messages: S<bool>,
    turn_points: S<usize>,
    consensus: Option<RawConsensus>,
    silence: Option<RawSilence>,
    diligence: Option<RawDiligence>,
    confirmation_timeout_seconds: S<u64>,
    #[serde(default, deserialize_with = "super::endpoints::present")]
    lang: S<Option<crate::i18n::Lang>>,
    #[serde(default, deserialize_with = "super::endpoints::present")]
    user_name: S<Option<String>>,
    #[serde(default, deserialize_with = "super::endpoints::present")]
    default_party: S<Option<String>>,
    memory: S<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRange {
    min: usize,
    max: usize,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawEnd {
    enable_detection: S<bool>,
    end_marker: S<String>,
    require_confirmation: S<bool>,
    auto_end: S<bool>,
    quiet_rounds: S<u32>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawConsensus {
    enabled: S<bool>,
    threshold: S<f64>,
    lookback: S<u32>,
    convergence_indicator: S<String>,
    disagreement_words: S<Vec<String>>,
    agreement_words: S<Vec<String>>,
    open_question_words: S<Vec<String>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawSilence {
    enabled: S<bool>,
    user_timeout_minutes: S<f64>,
    content_similarity: S<f64>,
    consecutive_similar_rounds: S<u32>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawDiligence {
    push_max: S<u32>,
    idle_seconds: S<u64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawLlm {
    #[serde(default, deserialize_with = "super::endpoints::present")]
    base_url: S<Option<String>>,
    #[serde(default, deserialize_with = "super::endpoints::present")]
    model: S<Option<String>>,
    #[serde(default, deserialize_with = "super::endpoints::present")]
    embedding_model: S<Option<String>>,
    temperature: S<f32>,
    request_timeout_seconds: S<u64>,
    stall_timeout_seconds: S<u64>,
    max_retries: S<u32>,
    retry_window_seconds: S<u64>,
    reply_max_tokens: S<u32>,
    #[serde(default, deserialize_with = "super::endpoints::present")]
    context_tokens: S<Option<u32>>,
    prompt_layout: S<PromptLayout>,
    warm_up: S<WarmUp>,
    #[serde(default, deserialize_with = "super::endpoints::present")]
    parallel_requests: S<Option<bool>>,
    cleanup: S<CleanupLevel>,
    #[serde(default, deserialize_with = "super::endpoints::present")]
    endpoints: super::endpoints::RawEndpoints,
}

fn take<T: Clone>(slot: &S<T>, into: &mut T) {
    if let Some(s) = slot {
        *into = s.value.clone();
    }
}

impl Config {
    /// Parses a config file's text. `file` names it in errors.
    /// A file parsed alone is the whole config: the checks of merged
    /// layers (`merged`) are made at once.
    pub fn parse(text: &str, file: &str, overrides: &Overrides) -> Result<Config, SourceError> {
        Config::parse_onto(Config::default(), text, file, overrides)?.merged()
    }

    /// The config once every layer is read, with the checks that need all
    /// of them (an endpoint's window against the cap it falls back to).
    pub(crate) fn merged(self) -> Result<Config, SourceError> {
        super::endpoints::check_windows(&self.llm)?;
        Ok(self)
    }

    /// Parses a config file's text over `base`: the keys it sets replace
    /// base's, the others stay (the user's config under a project's). The
    /// sections are checked in a fixed order (limits, the room, consensus,
    /// silence, diligence, the facilitator, parties, llm); the first
    /// problem is the one reported.
    pub(crate) fn parse_onto(base: Config, text: &str, file: &str, overrides: &Overrides) -> Result<Config, SourceError> {
        let raw: RawFile = if text.trim().is_empty() {
            RawFile::default()
        } else {
            serde_saphyr::from_str(text).map_err(|e| yaml_error(&e, file, text, 0))?
        };
        let bmad = raw.bmad.unwrap_or_default();
        let mut p = bmad.party_mode.unwrap_or_default();
        let mut c = base;
        let mut ck = Checker::new(file);
        limits(&p, overrides, &mut c.party, &mut ck);
        room(&p, overrides, &mut c.party, &mut ck);
        consensus(&p.consensus.take().unwrap_or_default(), &mut c.party.consensus, &mut ck);
        silence(&p.silence.take().unwrap_or_default(), &mut c.party.silence, &mut ck);
        let d = p.diligence.take().unwrap_or_default();
        take(&d.push_max, &mut c.party.diligence.push_max);
        take(&d.idle_seconds, &mut c.party.diligence.idle_seconds);
        ck.at_least(
            "bmad.party_mode.diligence.idle_seconds",
            d.idle_seconds.as_ref(),
            c.party.diligence.idle_seconds,
            1,
        );
        facilitator(&p, &mut c.party, &mut ck);
        super::parties::check(&bmad.parties, &mut c.parties, &p.default_party, &mut ck);
        ck.at_least(
            "bmad.party_mode.confirmation_timeout_seconds",
            p.confirmation_timeout_seconds.as_ref(),
            c.party.confirmation_timeout_seconds,
            1,
        );
        llm(&bmad.llm.unwrap_or_default(), overrides, &mut c.llm, &mut ck);
        match ck.first() {
            Some(mut err) => {
                if !crate::source::may_hold_secret(&err.key, &err.message) {
                    err.snippet = err.line.and_then(|line| snippet(text, line, err.column));
                }
                Err(err)
            }
            None => Ok(c),
        }
    }

    /// Reads a config file over `base` (see `parse_onto`).
    pub(crate) fn load_onto(base: Config, path: &Path, overrides: &Overrides) -> Result<Config, SourceError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| SourceError {
            file: file.clone(),
            line: None,
            column: None,
            key: String::new(),
            message: Box::new(Problem::CannotRead { error: e.to_string() }),
            snippet: None,
        })?;
        Config::parse_onto(base, &text, &file, overrides)
    }
}

/// The limits: rounds and minutes with their warnings. An explicit
/// `--max-rounds` (or `--max-minutes`) without an explicit warning moves
/// the warning with it (80 %, 5/6), instead of tripping over the default.
fn limits(p: &RawParty, overrides: &Overrides, pc: &mut PartyConfig, ck: &mut Checker) {
    take(&p.auto_exit_enabled, &mut pc.auto_exit_enabled);
    take(&p.max_rounds, &mut pc.max_rounds);
    take(&p.max_duration_minutes, &mut pc.max_duration_minutes);
    if p.warn_at_rounds.is_some() && p.warn_at.is_some() {
        ck.fail_at("bmad.party_mode.warn_at", p.warn_at.as_ref(), Problem::WarnAtBoth);
    }
    let warn_rounds = p.warn_at_rounds.as_ref().or(p.warn_at.as_ref());
    let warn_rounds_key = if p.warn_at_rounds.is_some() {
        "bmad.party_mode.warn_at_rounds"
    } else {
        "bmad.party_mode.warn_at"
    };
    if let Some(m) = overrides.max_rounds {
        pc.max_rounds = m;
    }
    pc.warn_at_rounds = match warn_rounds {
        // A flag that lowers the limit below the file's warning moves the
        // warning along; the file itself must be consistent (checked below).
        Some(w) if overrides.max_rounds.is_some_and(|m| w.value >= m) => pc.max_rounds * 4 / 5,
        Some(w) => w.value,
        None if p.max_rounds.is_some() || overrides.max_rounds.is_some() => pc.max_rounds * 4 / 5,
        None => pc.warn_at_rounds,
    };
    if let Some(m) = overrides.max_minutes {
        pc.max_duration_minutes = m;
    }
    pc.warn_at_minutes = match &p.warn_at_minutes {
        Some(w) if overrides.max_minutes.is_some_and(|m| w.value >= m) => pc.max_duration_minutes * 5.0 / 6.0,
        Some(w) => w.value,
        None if p.max_duration_minutes.is_some() || overrides.max_minutes.is_some() => pc.max_duration_minutes * 5.0 / 6.0,
        None => pc.warn_at_minutes,
    };
    ck.at_least("bmad.party_mode.max_rounds", p.max_rounds.as_ref(), pc.max_rounds, 1);
    if pc.warn_at_rounds >= pc.max_rounds && pc.max_rounds > 0 {
        let why = Problem::WarnRoundsBelowMax {
            max: pc.max_rounds.to_string(),
        };
        ck.fail_at(warn_rounds_key, warn_rounds.or(p.max_rounds.as_ref()), why);
    }
    if !(pc.max_duration_minutes > 0.0 && pc.max_duration_minutes.is_finite()) {
        ck.fail_at(
            "bmad.party_mode.max_duration_minutes",
            p.max_duration_minutes.as_ref(),
            Problem::PositiveMinutes,
        );
    }
    if !(pc.warn_at_minutes >= 0.0 && pc.warn_at_minutes < pc.max_duration_minutes) && pc.max_duration_minutes > 0.0 {
        ck.fail_at(
            "bmad.party_mode.warn_at_minutes",
            p.warn_at_minutes.as_ref().or(p.max_duration_minutes.as_ref()),
            Problem::WarnMinutesBelowMax {
                max: pc.max_duration_minutes.to_string(),
            },
        );
    }
}

/// Who speaks and how, the triggers, the end and ask markers.
fn room(p: &RawParty, overrides: &Overrides, pc: &mut PartyConfig, ck: &mut Checker) {
    if let Some(r) = &p.agents_per_round {
        let (min, max) = (r.value.min, r.value.max);
        if min < 1 || min > max || max > 8 {
            ck.fail_at(
                "bmad.party_mode.agents_per_round",
                Some(r),
                Problem::AgentsPerRound {
                    min: min.to_string(),
                    max: max.to_string(),
                },
            );
        }
        pc.agents_per_round = (min, max);
    }
    take(&p.selection, &mut pc.selection);
    take(&p.round_mode, &mut pc.round_mode);
    if let Some(m) = overrides.round_mode {
        pc.round_mode = Some(m);
    }
    for (slot, into, key) in [
        (&p.exit_triggers, &mut pc.exit_triggers, "bmad.party_mode.exit_triggers"),
        (&p.reset_triggers, &mut pc.reset_triggers, "bmad.party_mode.reset_triggers"),
    ] {
        if let Some(s) = slot {
            if s.value.iter().any(|t| t.trim().is_empty()) {
                ck.fail_at(key, Some(s), Problem::EmptyTrigger);
            }
            *into = s.value.iter().map(|t| t.trim().to_string()).collect();
        }
    }
    let e = p.end_detection.as_ref();
    let ed = &mut pc.end_detection;
    if let Some(e) = e {
        take(&e.enable_detection, &mut ed.enable_detection);
        take(&e.end_marker, &mut ed.end_marker);
        take(&e.require_confirmation, &mut ed.require_confirmation);
        take(&e.auto_end, &mut ed.auto_end);
        take(&e.quiet_rounds, &mut ed.quiet_rounds);
    }
    take(&p.self_check, &mut pc.self_check);
    take(&p.read_messages, &mut pc.read_messages);
    take(&p.turn_points, &mut pc.turn_points);
    ck.at_least("bmad.party_mode.turn_points", p.turn_points.as_ref(), pc.turn_points, 1);
    let marker_at = e.and_then(|e| e.end_marker.as_ref());
    ck.not_empty("bmad.party_mode.end_detection.end_marker", marker_at, &pc.end_detection.end_marker);
    take(&p.ask_marker, &mut pc.ask_marker);
    ck.not_empty("bmad.party_mode.ask_marker", p.ask_marker.as_ref(), &pc.ask_marker);
}

fn consensus(cs: &RawConsensus, c: &mut Consensus, ck: &mut Checker) {
    take(&cs.enabled, &mut c.enabled);
    take(&cs.threshold, &mut c.threshold);
    take(&cs.lookback, &mut c.lookback);
    take(&cs.disagreement_words, &mut c.disagreement_words);
    take(&cs.agreement_words, &mut c.agreement_words);
    take(&cs.open_question_words, &mut c.open_question_words);
    ck.between_0_and_1("bmad.party_mode.consensus.threshold", cs.threshold.as_ref(), c.threshold);
    ck.at_least("bmad.party_mode.consensus.lookback", cs.lookback.as_ref(), c.lookback, 1);
    if let Some(source) = &cs.convergence_indicator {
        match Pattern::new(&source.value) {
            Ok(p) => c.convergence_indicator = p,
            Err(err) => ck.fail_at(
                "bmad.party_mode.consensus.convergence_indicator",
                Some(source),
                Problem::BadRegex { error: err.to_string() },
            ),
        }
    }
}

fn silence(si: &RawSilence, s: &mut Silence, ck: &mut Checker) {
    take(&si.enabled, &mut s.enabled);
    take(&si.user_timeout_minutes, &mut s.user_timeout_minutes);
    take(&si.content_similarity, &mut s.content_similarity);
    take(&si.consecutive_similar_rounds, &mut s.consecutive_similar_rounds);
    if s.user_timeout_minutes.is_nan() || s.user_timeout_minutes <= 0.0 {
        ck.fail_at(
            "bmad.party_mode.silence.user_timeout_minutes",
            si.user_timeout_minutes.as_ref(),
            Problem::PositiveMinutes,
        );
    }
    ck.between_0_and_1(
        "bmad.party_mode.silence.content_similarity",
        si.content_similarity.as_ref(),
        s.content_similarity,
    );
    ck.at_least(
        "bmad.party_mode.silence.consecutive_similar_rounds",
        si.consecutive_similar_rounds.as_ref(),
        s.consecutive_similar_rounds,
        2,
    );
}

/// The facilitator's language and name, the default party, the memory.
fn facilitator(p: &RawParty, pc: &mut PartyConfig, ck: &mut Checker) {
    take(&p.confirmation_timeout_seconds, &mut pc.confirmation_timeout_seconds);
    take(&p.lang, &mut pc.lang);
    if let Some(n) = &p.user_name {
        if let Some(name) = &n.value {
            ck.not_empty("bmad.party_mode.user_name", Some(n), name);
        }
        pc.user_name = n.value.as_ref().map(|v| v.trim().to_string());
    }
    take(&p.default_party, &mut pc.default_party);
    take(&p.memory, &mut pc.memory);
}

/// The endpoint and the calls: the flags `--model` and `--base-url` win.
fn llm(l: &RawLlm, overrides: &Overrides, lc: &mut LlmConfig, ck: &mut Checker) {
    take(&l.base_url, &mut lc.base_url);
    take(&l.model, &mut lc.model);
    take(&l.embedding_model, &mut lc.embedding_model);
    take(&l.temperature, &mut lc.temperature);
    take(&l.request_timeout_seconds, &mut lc.request_timeout_seconds);
    take(&l.stall_timeout_seconds, &mut lc.stall_timeout_seconds);
    take(&l.max_retries, &mut lc.max_retries);
    take(&l.retry_window_seconds, &mut lc.retry_window_seconds);
    take(&l.reply_max_tokens, &mut lc.reply_max_tokens);
    take(&l.context_tokens, &mut lc.context_tokens);
    take(&l.prompt_layout, &mut lc.prompt_layout);
    take(&l.warm_up, &mut lc.warm_up);
    take(&l.parallel_requests, &mut lc.parallel_requests);
    take(&l.cleanup, &mut lc.cleanup);
    ck.at_least("bmad.llm.reply_max_tokens", l.reply_max_tokens.as_ref(), lc.reply_max_tokens, 32);
    if let Some(n) = lc.context_tokens {
        if n < 1024 || n <= lc.reply_max_tokens * 2 {
            ck.fail_at("bmad.llm.context_tokens", l.context_tokens.as_ref(), Problem::ContextTokens);
        }
    }
    if let Some(m) = &overrides.model {
        lc.model = Some(m.clone());
    }
    if let Some(u) = &overrides.base_url {
        lc.base_url = Some(u.clone());
    }
    llm_values(l, overrides, lc, ck);
    super::endpoints::check(&l.endpoints, &mut lc.endpoints, ck);
}

/// The endpoint's address, the model names, the call's numbers in range.
fn llm_values(l: &RawLlm, overrides: &Overrides, lc: &LlmConfig, ck: &mut Checker) {
    if let Some(u) = &lc.base_url {
        if !(u.starts_with("http://") || u.starts_with("https://")) {
            let key = if overrides.base_url.is_some() {
                "--base-url"
            } else {
                "bmad.llm.base_url"
            };
            ck.fail_at(
                key,
                l.base_url.as_ref().filter(|_| overrides.base_url.is_none()),
                Problem::NotHttpUrl { url: u.to_string() },
            );
        }
    }
    for (slot, key) in [(&l.model, "bmad.llm.model"), (&l.embedding_model, "bmad.llm.embedding_model")] {
        if let Some(Spanned { value: Some(v), .. }) = slot {
            if v.trim().is_empty() {
                ck.fail_at(key, slot.as_ref(), Problem::EmptyUseNull);
            }
        }
    }
    if !(0.0..=2.0).contains(&lc.temperature) {
        ck.fail_at("bmad.llm.temperature", l.temperature.as_ref(), Problem::Between0And2);
    }
    ck.at_least(
        "bmad.llm.request_timeout_seconds",
        l.request_timeout_seconds.as_ref(),
        lc.request_timeout_seconds,
        1,
    );
    ck.at_least(
        "bmad.llm.stall_timeout_seconds",
        l.stall_timeout_seconds.as_ref(),
        lc.stall_timeout_seconds,
        1,
    );
    if lc.max_retries > 10 {
        ck.fail_at("bmad.llm.max_retries", l.max_retries.as_ref(), Problem::AtMost10);
    }
    if lc.retry_window_seconds > 3600 {
        ck.fail_at(
            "bmad.llm.retry_window_seconds",
            l.retry_window_seconds.as_ref(),
            Problem::AtMostAnHour,
        );
    }
}
