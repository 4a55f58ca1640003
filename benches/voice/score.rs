//! Scores the replies of one party, as a facilitator reading them would.
//!
//! Independent of the hygiene in `src/engine/`: the bench judges what the
//! facilitator was shown, with its own rules, so a bug in the cleaning
//! cannot hide itself. `tests/house/voice_score.rs` runs the tests below in CI.
#![cfg_attr(test, allow(dead_code))]

use std::collections::HashSet;

use regex::Regex;

#[path = "words.rs"]
mod words;
use words::{announces_nothing, answers_itself, coverage, gram_size, grams, leaks, long_enough, recites, stem, wrapped_in_quotes};
pub use words::{content_terms, is_bare_heading, is_cjk, is_list_item, sentences, tokens};

/// One flaw class; a reply may have several.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flaw {
    /// A line spoken as another agent or as the facilitator (`Kofi: …`).
    SpeaksAsOther,
    /// A view attributed to an agent who has not spoken yet.
    AttributesUnspoken,
    /// The speaker's own label, quoting itself as someone else would, or
    /// its reply wrapped whole in quotation marks, as a script's line is.
    SelfQuote,
    /// The runtime's instructions or markers, shown as speech.
    LeakedRuntime,
    /// A sentence copied from an earlier turn.
    Echo,
    /// A sentence or paragraph repeated within the reply.
    Loop,
    /// Nothing said (or a failed turn).
    Empty,
    WrongLanguage,
    OverLength,
    /// An assistant's register: a greeting, praise for the question, "hope
    /// this helps", an offer to help, talk about the conversation itself.
    Assistant,
    /// A turn of a handful of words ("I completely agree.", "同意。").
    Stub,
    /// The speaker calling on itself by name ("Tomás, what would it cost?"
    /// by Tomás; "Hey Maya," by Maya).
    SelfAddress,
    /// The speaker narrating itself in the third person ("Amara agrees").
    SelfNarration,
    /// Agreeing or disagreeing without saying with whom or with what: a
    /// bare "I completely agree." in a reply that names nobody.
    BareStance,
    /// A reply any persona could have written: nothing in it draws on the
    /// speaker's own role, principles, capabilities or style (`Judge::blurred`).
    PersonaBlur,
    /// Headings or list numbers with nothing under them ("### 1.\n\n### 2."),
    /// or an announcement ("我们可以安排如下步骤：") above nothing: the shape of
    /// an answer, its words gone.
    Skeleton,
    /// A list of points instead of a spoken turn: three items or more
    /// (numbered, bulleted, headed or bold-titled), as an assistant answers a
    /// question; a colleague in a meeting makes a point or two aloud.
    Listicle,
    /// One of its persona's principles said word for word, as a slogan
    /// ("Sustainable pace over heroics is a principle that aligns…"): the
    /// turn note hands the speaker a principle to argue from, not to quote.
    Creed,
    /// Opens on what it does not say: a word that carries on a sentence
    /// before it ("That way, we can…", "Additionally, …", "此外，…") or a
    /// list's second point first, as a reply whose head was cut reads.
    Headless,
    /// Asks and answers itself, line after line, as a script of two voices
    /// reads ("Would we have to invest a lot?" then "That is true, but…").
    SelfDialogue,
}

impl Flaw {
    pub const ALL: [Flaw; 20] = [
        Flaw::SpeaksAsOther,
        Flaw::AttributesUnspoken,
        Flaw::SelfQuote,
        Flaw::LeakedRuntime,
        Flaw::Echo,
        Flaw::Loop,
        Flaw::Empty,
        Flaw::WrongLanguage,
        Flaw::OverLength,
        Flaw::Assistant,
        Flaw::Stub,
        Flaw::SelfAddress,
        Flaw::SelfNarration,
        Flaw::BareStance,
        Flaw::PersonaBlur,
        Flaw::Skeleton,
        Flaw::Listicle,
        Flaw::Creed,
        Flaw::Headless,
        Flaw::SelfDialogue,
    ];

    /// The classes reply hygiene removes; the others are what a
    /// facilitator's ear hears beyond them (issue 35).
    pub const HYGIENE: &'static [Flaw] = Self::ALL.as_slice().split_at(9).0;

    pub fn name(self) -> &'static str {
        match self {
            Flaw::SpeaksAsOther => "speaks as another",
            Flaw::AttributesUnspoken => "attributes to the unspoken",
            Flaw::SelfQuote => "self-quote",
            Flaw::LeakedRuntime => "leaked runtime text",
            Flaw::Echo => "echo of earlier text",
            Flaw::Loop => "loop",
            Flaw::Empty => "empty / failed",
            Flaw::WrongLanguage => "wrong language",
            Flaw::OverLength => "over length",
            Flaw::Assistant => "assistant's register",
            Flaw::Stub => "stub turn",
            Flaw::SelfAddress => "addresses itself",
            Flaw::SelfNarration => "narrates itself (third person, by its job)",
            Flaw::BareStance => "agrees without object",
            Flaw::PersonaBlur => "persona blur (any persona could say it)",
            Flaw::Skeleton => "empty headings or list numbers",
            Flaw::Listicle => "a list of points, not a spoken turn",
            Flaw::Creed => "recites its principle word for word",
            Flaw::Headless => "opens on what it does not say",
            Flaw::SelfDialogue => "asks and answers itself",
        }
    }
}

/// A reply shorter than this (Latin words, plus CJK characters counted
/// two to a word) says nothing of its own: a stub.
pub const STUB_WORDS: usize = 6;

/// A short reply of thanks, praise or a yes (`courtesy`) with fewer content
/// words of its own than this (names and thanks do not count) is a stub
/// too: "Thank you, Tomás. You're absolutely right."
pub const STUB_TERMS: usize = 3;

/// Replies of this many words or more are judged by the other classes.
pub const STUB_LONGEST: usize = 25;

/// The phrase lists of one language (`benches/voice/phrases/*.toml`).
#[derive(serde::Deserialize)]
struct PhraseFile {
    assistant: Vec<String>,
    bare_stance: Vec<String>,
    self_narration: Vec<String>,
    #[serde(default)]
    common: Vec<String>,
    #[serde(default)]
    courtesy: Vec<String>,
    #[serde(default)]
    label_words: Vec<String>,
    #[serde(default)]
    headless: Vec<String>,
    #[serde(default)]
    answer_openers: Vec<String>,
}

/// Every language's phrases: a reply is read with all of them.
pub struct Phrases {
    /// With `{U}` for the facilitator's name, escaped.
    assistant: Vec<String>,
    bare_stance: Vec<Regex>,
    /// With `{N}` for the speaker's own name, escaped.
    self_narration: Vec<String>,
    /// Words too common to mark out a persona (`content_terms`).
    pub common: HashSet<String>,
    /// Thanks, praise and agreement: a short reply of them and little else is a stub.
    courtesy: Vec<Regex>,
    /// Words between a name and its label's colon ("Sam's response:").
    label_words: Vec<String>,
    /// How a sentence opens that carries on one before it, lower case.
    headless: Vec<String>,
    /// How a line opens that answers the question on the line before it,
    /// lower case.
    answer_openers: Vec<String>,
}

impl Phrases {
    /// The bench's own files, built in: one per language.
    pub fn builtin() -> Phrases {
        Phrases::from_files(&[include_str!("phrases/en.toml"), include_str!("phrases/zh.toml")])
    }

    pub fn from_files(files: &[&str]) -> Phrases {
        let compile = |p: &String| Regex::new(&format!("(?i){p}")).unwrap_or_else(|e| panic!("phrase {p:?}: {e}"));
        let mut out = Phrases {
            assistant: Vec::new(),
            bare_stance: Vec::new(),
            self_narration: Vec::new(),
            common: HashSet::new(),
            courtesy: Vec::new(),
            label_words: Vec::new(),
            headless: Vec::new(),
            answer_openers: Vec::new(),
        };
        for text in files {
            let f: PhraseFile = toml::from_str(text).unwrap_or_else(|e| panic!("a phrase file: {e}"));
            out.assistant.extend(f.assistant);
            out.bare_stance.extend(f.bare_stance.iter().map(compile));
            out.self_narration.extend(f.self_narration);
            out.label_words.extend(f.label_words.iter().map(|w| regex::escape(w)));
            // Stemmed as content words are: "agreed" and "agrees" are "agree"'s.
            out.common.extend(f.common.iter().map(|w| stem(&w.to_lowercase())));
            out.courtesy.extend(f.courtesy.iter().map(compile));
            out.headless.extend(f.headless.iter().map(|h| h.to_lowercase()));
            out.answer_openers.extend(f.answer_openers.iter().map(|h| h.to_lowercase()));
        }
        out
    }
}

/// Items of a list (or headed points) from which a reply reads as a
/// written answer, not a turn said aloud.
pub const LISTICLE_ITEMS: usize = 3;

/// Longest reply that still reads as a spoken turn.
pub const MAX_WORDS: usize = 250;
pub const MAX_CJK_CHARS: usize = 500;

pub struct Person {
    pub id: String,
    pub name: String,
    /// Its title in the party's language ("测试架构师"): written as a label,
    /// it is the speaker's own label, as its name is.
    pub title: String,
    /// The content words of its persona (role, identity, style,
    /// principles, capabilities, in every language it has): empty when
    /// not known, and then its replies are not judged for blur.
    pub profile: HashSet<String>,
    /// Its principles as written, in every language it has.
    pub principles: Vec<String>,
}

/// A reply with fewer content words is too short to judge for blur.
pub const BLUR_MIN_TERMS: usize = 12;

/// Everything said before a reply, in order.
pub struct Said {
    /// The agent id, or None for the facilitator.
    pub by: Option<String>,
    pub text: String,
}

pub struct Judge {
    pub roster: Vec<Person>,
    pub facilitator: String,
    pub chinese: bool,
    /// Texts of the runtime (templates): none of it may come back.
    pub runtime_texts: Vec<String>,
    pub phrases: Phrases,
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Verdict {
    pub flaws: Vec<Flaw>,
    /// Names an agent who has spoken before (not itself).
    pub reacts: bool,
    /// Names such an agent and takes up what they said: shares content
    /// words with their turns that the facilitator's messages do not hold.
    pub answers: bool,
    pub words: usize,
}

const ATTRIBUTION_EN: &[&str] = &[
    r"\b(?:as|like) {N}\s+(?:just\s+)?(?:said|says|mentioned|noted|pointed out|suggested|argued|put it|emphasi[sz]ed|highlighted|proposed|stated|explained)",
    r"\b(?:agree|agrees|agreed|agreeing|disagree|disagrees) with {N}\b",
    r"\b{N}(?:'s|’s) (?:point|idea|suggestion|concern|view|proposal|comment|emphasis|approach|insight|argument|take|perspective)",
    r"\b{N} (?:just\s+)?(?:said|mentioned|noted|pointed out|suggested|argued|raised|brought up|highlighted|emphasi[sz]ed|proposed|is right|has a point|made a)",
    r"\bbuild(?:ing)? on {N}\b",
    r"\becho(?:ing)? {N}\b",
    r"\b(?:contrary to|unlike|differ(?:ently)? from|differ with) {N}\b",
];

const ATTRIBUTION_ZH: &[&str] = &[
    r"(?:正如|如同|同意|赞同|认同|补充|回应|呼应|反对|不同意){N}",
    r"{N}(?:刚才|刚刚|之前|也)?(?:说|提到|指出|建议|认为|强调|所说|提出|的观点|的建议|的看法|的意见)",
];

/// The reply opens by greeting `name` (`Hey Priya,`, `Tomás, thank you`).
fn greets(name: &str, reply: &str) -> bool {
    let n = regex::escape(name);
    Regex::new(&format!(
        r"(?i)^[\s\W]*(?:(?:hi|hey|hello|dear|thanks|thank you|你好|嗨)[\s,，]*)?{n}\s*[,!，！、]"
    ))
    .expect("greeting pattern is valid")
    .is_match(reply)
}

/// `name` without its accents (`Tomás` → `Tomas`).
pub fn plain(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    name.nfd().filter(|c| !unicode_normalization::char::is_combining_mark(*c)).collect()
}

/// A pattern for `name` as given or without its accents.
fn either_form(name: &str) -> String {
    format!("(?:{}|{})", regex::escape(name), regex::escape(&plain(name)))
}

/// `reply` names `name` as a word. A name's edge is any non-Latin letter:
/// Chinese writes names straight against its own characters (`同意Kofi的看法`).
fn names(name: &str, reply: &str) -> bool {
    Regex::new(&format!(r"(?i)(?:^|[^\p{{Latin}}]){}(?:[^\p{{Latin}}]|$)", either_form(name)))
        .expect("name pattern is valid")
        .is_match(reply)
}

/// `reply` calls on `name` anywhere: the name followed by a comma or a mark
/// of address (`Tomás, what…`, `…, Maya!`, `Maya，我们…`), not a label.
fn addresses(name: &str, reply: &str) -> bool {
    Regex::new(&format!(r"(?i)(?:^|[^\p{{Latin}}]){}\s*[,，、!！?？]", either_form(name)))
        .expect("address pattern is valid")
        .is_match(reply)
}

impl Judge {
    fn attribution(&self, name: &str) -> Vec<Regex> {
        let n = regex::escape(name);
        ATTRIBUTION_EN
            .iter()
            .chain(ATTRIBUTION_ZH)
            .map(|p| Regex::new(&format!("(?i){}", p.replace("{N}", &n))).expect("patterns are valid"))
            .collect()
    }

    fn label_re(&self, name: &str) -> Regex {
        // `Kofi:`, `**Kofi**:`, `🛠️ Kofi (Senior Developer):`, `- Kofi：` at a
        // line start; `Tomas:` for Tomás, as small models drop accents; a
        // label's words before the colon (`（小林的回应：`, `(Sam's response:`).
        let n = either_form(name);
        let words = format!("(?:{})?", self.phrases.label_words.join("|"));
        // Or the name in brackets and no colon (`【Maya】`, judgement bench s6-final).
        Regex::new(&format!(
            r"(?im)^[\s>*#_\-•(（]*(?:(?:\p{{So}}\S*\s*)?\**{n}\**{words}(?:\s*[(（][^)）\n]{{0,40}}[)）])?\s*\**\s*[:：]|[【\[]{n}[】\]])"
        ))
        .expect("label pattern is valid")
    }

    /// A stage direction for another: a whole line in brackets opening with
    /// their name, narrated ("（小林同意并补充了他的观点）", "(Kofi nods.)");
    /// an aside to them ("(Sam, …)") or one's own ("(Kofi and I …)") is speech.
    fn stage_line(&self, name: &str, reply: &str) -> bool {
        let n = either_form(name);
        let re = Regex::new(&format!(r"(?im)^\s*[(（]\s*{n}(?:[ ]|\p{{Han}})[^\n]*[)）]\s*$")).expect("stage pattern is valid");
        let lines: Vec<&str> = re.find_iter(reply).map(|m| m.as_str()).collect();
        lines
            .iter()
            .any(|line| !line.contains('我') && !line.split(|c: char| !c.is_alphanumeric()).any(|w| w == "I"))
    }

    /// A line of another with its colon lost: the name at a line start,
    /// then a capitalised word ("Tomás Excellent points!", "**Hiro** Great
    /// idea."); "Tomás and I", "Tomás, you", "Tomás I agree" are speech.
    fn bare_label_re(&self, name: &str) -> Regex {
        let n = either_form(name);
        // Or the name in brackets before the line, as a script's cue (s18-last: "(Kofi) Yes.").
        Regex::new(&format!(
            r"(?im)^[\s>*#_\-•]*(?:\**{n}\**[ ](?-i:\p{{Lu}})\p{{L}}|[(（【\[]\s*{n}\s*[)）】\]]\s*\S)"
        ))
        .expect("label pattern is valid")
    }

    /// Judges `reply` by `speaker` (an agent id) after `before`.
    pub fn judge(&self, speaker: &str, reply: &str, before: &[Said]) -> Verdict {
        let mut flaws = Vec::new();
        let toks = tokens(reply);
        let words = toks.len();
        let me = self.roster.iter().find(|p| p.id == speaker);
        let spoken: HashSet<&str> = before.iter().filter_map(|s| s.by.as_deref()).collect();

        let cjk_chars = toks.iter().filter(|w| w.chars().all(is_cjk)).count();
        let weight = toks.len() - cjk_chars + cjk_chars / 2;
        // Fewer than three tokens is nothing said, as the bench always counted it.
        // Its own: the content words that are not the room's names.
        let own_terms = {
            let none = HashSet::new();
            let names: HashSet<String> = self.roster.iter().flat_map(|p| content_terms(&p.name, &none)).collect();
            content_terms(reply, &self.phrases.common).difference(&names).count()
        };
        // Terse is not empty: only a short reply of thanks, praise or a yes
        // with little else is a stub ("No. Use SQS; Kafka is too big." is not).
        let courteous = self.phrases.courtesy.iter().any(|r| r.is_match(reply));
        if toks.len() < 3 {
            flaws.push(Flaw::Empty);
        } else if weight < STUB_WORDS || (own_terms < STUB_TERMS && weight < STUB_LONGEST && courteous) {
            flaws.push(Flaw::Stub);
        }
        let sents_text = sentences(reply);
        let user = regex::escape(&self.facilitator);
        let assistant = self.phrases.assistant.iter().any(|p| {
            let r = Regex::new(&format!("(?i){}", p.replace("{U}", &user))).expect("phrases are valid");
            r.is_match(reply) || sents_text.iter().any(|s| r.is_match(s))
        });
        if assistant {
            flaws.push(Flaw::Assistant);
        }
        // Names anyone in the room but itself: the object of a stance.
        let names_someone = self
            .roster
            .iter()
            .filter(|p| p.id != speaker)
            .map(|p| p.name.as_str())
            .chain([self.facilitator.as_str()])
            .any(|n| names(n, reply));
        let bare = sents_text.iter().any(|s| self.phrases.bare_stance.iter().any(|r| r.is_match(s)));
        if bare && !names_someone {
            flaws.push(Flaw::BareStance);
        }
        if let Some(m) = me {
            if addresses(&m.name, reply) || greets(&m.name, reply) {
                flaws.push(Flaw::SelfAddress);
            }
            let n = regex::escape(&m.name);
            let narrates = self.phrases.self_narration.iter().any(|p| {
                Regex::new(&format!("(?i){}", p.replace("{N}", &n)))
                    .expect("phrases are valid")
                    .is_match(reply)
            });
            if narrates {
                flaws.push(Flaw::SelfNarration);
            }
        }
        // Speaking as others.
        let others = self.roster.iter().filter(|p| p.id != speaker).map(|p| p.name.as_str());
        let facilitator_labels = [self.facilitator.as_str(), "Facilitator", "主持人", "User", "用户"];
        let others_only = others.clone();
        if others
            .chain(facilitator_labels)
            .any(|n| self.label_re(n).is_match(reply) || self.stage_line(n, reply))
            || others_only.into_iter().any(|n| self.bare_label_re(n).is_match(reply))
        {
            flaws.push(Flaw::SpeaksAsOther);
        }
        // Attribution to agents who have not spoken, and to oneself.
        let own_label = |m: &Person| {
            [m.name.as_str(), m.title.as_str()]
                .iter()
                .any(|n| !n.trim().is_empty() && self.label_re(n).is_match(reply))
        };
        let mut self_quote = me.is_some_and(own_label) || wrapped_in_quotes(reply);
        let mut unspoken = false;
        for p in &self.roster {
            let attributed = self.attribution(&p.name).iter().any(|r| r.is_match(reply));
            if !attributed {
                continue;
            }
            if p.id == speaker {
                self_quote = true;
            } else if !spoken.contains(p.id.as_str()) {
                unspoken = true;
            }
        }
        if unspoken {
            flaws.push(Flaw::AttributesUnspoken);
        }
        if self_quote {
            flaws.push(Flaw::SelfQuote);
        }
        if leaks(reply, &self.runtime_texts) {
            flaws.push(Flaw::LeakedRuntime);
        }
        // Echo: a sentence copied from an earlier agent turn.
        let n = gram_size(self.chinese);
        let earlier: HashSet<Vec<String>> = before
            .iter()
            .filter(|s| s.by.is_some())
            .flat_map(|s| grams(&tokens(&s.text), n))
            .collect();
        let sents: Vec<Vec<String>> = sentences(reply).iter().map(|s| tokens(s)).collect();
        // The facilitator's own message handed back, as the whole reply.
        let facilitator: HashSet<Vec<String>> = before
            .iter()
            .filter(|s| s.by.is_none())
            .flat_map(|s| grams(&tokens(&s.text), n))
            .collect();
        if sents.iter().any(|s| long_enough(s) && coverage(s, &earlier, n) >= 0.8)
            || (words >= 20 && coverage(&toks, &earlier, n) >= 0.5)
            || (long_enough(&toks) && coverage(&toks, &facilitator, n) >= 0.8)
        {
            flaws.push(Flaw::Echo);
        }
        if reply.lines().any(is_bare_heading) || announces_nothing(reply) {
            flaws.push(Flaw::Skeleton);
        }
        if self.headless(reply) {
            flaws.push(Flaw::Headless);
        }
        if answers_itself(reply, &self.phrases.answer_openers) {
            flaws.push(Flaw::SelfDialogue);
        }
        if reply.lines().filter(|l| is_list_item(l)).count() >= LISTICLE_ITEMS {
            flaws.push(Flaw::Listicle);
        }
        // Loop: a sentence said twice in the reply.
        let mut own: HashSet<Vec<String>> = HashSet::new();
        let mut looped = false;
        for s in &sents {
            if s.len() >= 6 && coverage(s, &own, n.min(s.len())) >= 0.8 {
                looped = true;
            }
            own.extend(grams(s, n.min(s.len().max(1))));
        }
        if looped {
            flaws.push(Flaw::Loop);
        }
        // Language.
        let cjk = reply.chars().filter(|c| is_cjk(*c)).count();
        let latin = reply.chars().filter(|c| c.is_ascii_alphabetic()).count();
        if (self.chinese && cjk < latin) || (!self.chinese && cjk * 5 > latin.max(1)) {
            flaws.push(Flaw::WrongLanguage);
        }
        let latin_words = toks.iter().filter(|t| !t.chars().all(is_cjk)).count();
        if latin_words > MAX_WORDS || cjk > MAX_CJK_CHARS {
            flaws.push(Flaw::OverLength);
        }
        if me.is_some_and(|m| self.blurred(m, reply, before)) {
            flaws.push(Flaw::PersonaBlur);
        }
        if me.is_some_and(|m| recites(&m.principles, reply)) {
            flaws.push(Flaw::Creed);
        }
        // Reacting: names an agent who has spoken (not itself).
        let named: Vec<&Person> = self
            .roster
            .iter()
            .filter(|p| p.id != speaker && spoken.contains(p.id.as_str()) && names(&p.name, reply))
            .collect();
        let answers = named.iter().any(|p| self.takes_up(p, reply, before));
        flaws.sort();
        flaws.dedup();
        Verdict {
            flaws,
            reacts: !named.is_empty(),
            answers,
            words,
        }
    }

    /// Whether the reply opens on a word that carries on a sentence before
    /// it, or on a numbered point past the first; or whether its first
    /// numbered point, wherever it stands, is past the first ("我会采取以下
    /// 措施：" then "5. …"): another's list carried on.
    fn headless(&self, reply: &str) -> bool {
        let bare = |line: &str| {
            line.trim_start()
                .trim_start_matches(['*', '_', '"', '“', '「', '#', ' '])
                .to_lowercase()
        };
        let first = bare(reply);
        static POINT: std::sync::LazyLock<Regex> =
            std::sync::LazyLock::new(|| Regex::new(r"^(\d+)(?:[.)．](?:\s|$)|、)").expect("a valid pattern"));
        let later = |line: &str| POINT.captures(line).and_then(|c| c[1].parse::<u32>().ok()).is_some_and(|n| n >= 2);
        let first_point = reply.lines().map(bare).find(|l| POINT.is_match(l));
        self.phrases.headless.iter().any(|h| first.starts_with(h.as_str())) || later(&first) || first_point.is_some_and(|l| later(&l))
    }

    /// The facilitator's words so far: the topic, which every persona may use.
    fn topic_terms(&self, before: &[Said]) -> HashSet<String> {
        before
            .iter()
            .filter(|s| s.by.is_none())
            .flat_map(|s| content_terms(&s.text, &self.phrases.common))
            .collect()
    }

    /// Whether a reply of some length draws on none of the words that mark
    /// out its speaker's persona: those of its profile found in fewer than
    /// three of the room's profiles and not in the facilitator's messages.
    pub fn blurred(&self, me: &Person, reply: &str, before: &[Said]) -> bool {
        let terms = content_terms(reply, &self.phrases.common);
        if me.profile.is_empty() || terms.len() < BLUR_MIN_TERMS {
            return false;
        }
        let topic = self.topic_terms(before);
        let shared_by = |t: &String| self.roster.iter().filter(|p| p.id != me.id && p.profile.contains(t)).count();
        !me.profile
            .iter()
            .any(|t| terms.contains(t) && !topic.contains(t) && shared_by(t) < 2)
    }

    /// Whether `reply` takes up what `other` said: two content words of
    /// their turns that are not the facilitator's.
    fn takes_up(&self, other: &Person, reply: &str, before: &[Said]) -> bool {
        let topic = self.topic_terms(before);
        let theirs: HashSet<String> = before
            .iter()
            .filter(|s| s.by.as_deref() == Some(other.id.as_str()))
            .flat_map(|s| content_terms(&s.text, &self.phrases.common))
            .collect();
        let name = content_terms(&other.name, &self.phrases.common);
        content_terms(reply, &self.phrases.common)
            .iter()
            .filter(|t| theirs.contains(*t) && !topic.contains(*t) && !name.contains(*t))
            .count()
            >= 2
    }
}

#[cfg(test)]
#[path = "score_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "measure_tests.rs"]
mod measure_tests;
