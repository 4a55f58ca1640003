//! Drives a real engine (channels in, events out) against the loopback
//! OpenAI server, the way a front end does.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bmad_party::assets::{embedded_agents, WorkflowSource};
use bmad_party::config::Config;
use bmad_party::engine::{self, Command, Event, Resume, Setup};
use bmad_party::i18n::Lang;
use bmad_party::llm::{OpenAiProvider, OpenAiSettings, Provider};
use bmad_party::roster::agents::load_roster;
use bmad_party::session::{self, Session, SessionLock};
use bmad_party::testing::FakeOpenAi;
use bmad_party::workflow::Workflow;

/// The tests' client settings for `server`: short timeouts and backoff.
pub fn settings(server: &FakeOpenAi) -> OpenAiSettings {
    OpenAiSettings {
        base_url: server.base_url(),
        api_key: "test-key".into(),
        model: "test-model".into(),
        model_named: true,
        request_timeout: Duration::from_secs(5),
        stall_timeout: Duration::from_secs(2),
        max_retries: 3,
        retry_window: Duration::from_secs(10),
        min_backoff: Duration::from_millis(20),
    }
}

/// A named endpoint on `server` serving `model`, as line 4 of a config
/// defines it, every other setting unset.
pub fn endpoint(name: &str, server: &FakeOpenAi, model: &str) -> bmad_party::config::Endpoint {
    bmad_party::config::Endpoint {
        name: name.into(),
        base_url: server.base_url(),
        model: Some(model.into()),
        api_key_env: None,
        context_tokens: None,
        reply_max_tokens: None,
        parallel_requests: None,
        prompt_layout: None,
        cleanup: None,
        file: "config.yaml".into(),
        line: Some(4),
        key_line: None,
    }
}

pub fn provider_with(settings: OpenAiSettings) -> Arc<dyn Provider> {
    Arc::new(OpenAiProvider::new(settings).expect("provider"))
}

pub fn provider(server: &FakeOpenAi) -> Arc<dyn Provider> {
    provider_with(settings(server))
}

pub struct Party {
    pub dir: tempfile::TempDir,
    pub config: Config,
    pub lang: Lang,
    pub provider: Arc<dyn Provider>,
    /// The named endpoints' providers, by name (`Setup::endpoints`).
    pub endpoints: Vec<(String, Arc<dyn Provider>)>,
    pub resume: Option<PathBuf>,
    /// A workflow folder whose files override the built-in ones.
    pub workflow_dir: Option<PathBuf>,
    pub agents: Vec<bmad_party::roster::agents::Agent>,
    /// Everyone `/invite` can bring in (the whole built-in roster).
    pub pool: Vec<bmad_party::roster::agents::Agent>,
    /// Where the graceful exit writes takeaways.
    pub takeaways: bmad_party::engine::TakeawaysTo,
    pub party: Option<bmad_party::roster::parties::NamedParty>,
    pub memory: Option<bmad_party::engine::Memory>,
    pub documents: Vec<bmad_party::engine::documents::Document>,
    /// The named parties `/party NAME` can switch to.
    pub parties: Vec<bmad_party::engine::Standing>,
}

/// One step of a facilitator script, fed when the engine asks for input.
pub enum Step {
    Say(&'static str),
    Cmd(Command),
    /// Answer the latest confirmation request.
    Answer {
        confirmed: bool,
        extend: Option<u32>,
        reason: Option<&'static str>,
    },
    /// Wait this long before the next step (the clock keeps running).
    Wait(Duration),
    /// Send a command the engine answers with nothing (a draft), then go
    /// on to the next step at once.
    Send(Command),
    /// Do something outside the party before the next step.
    Do(Box<dyn FnOnce() + Send>),
}

impl Step {
    /// Confirm the latest confirmation request, as it stands.
    pub const CONFIRM: Step = Step::Answer {
        confirmed: true,
        extend: None,
        reason: None,
    };
}

impl Party {
    /// A party of two speakers a round: the rounds the reading and the
    /// judgement tests script reply by reply.
    pub fn two_a_round(server: &FakeOpenAi) -> Party {
        let mut party = Party::new(server);
        party.config.party.agents_per_round = (2, 2);
        party
    }

    pub fn new(server: &FakeOpenAi) -> Party {
        Party {
            dir: tempfile::tempdir().expect("tempdir"),
            // Scripted replies go to requests in the order they arrive: one
            // request at a time keeps every script deterministic.
            // tests/round_modes.rs runs the concurrent modes.
            config: Config {
                party: bmad_party::config::PartyConfig {
                    round_mode: Some(bmad_party::config::RoundMode::Sequential),
                    ..Config::default().party
                },
                ..Config::default()
            },
            lang: Lang::En,
            provider: provider(server),
            endpoints: vec![],
            resume: None,
            workflow_dir: None,
            agents: load_roster(&embedded_agents()).expect("agents"),
            pool: load_roster(&embedded_agents()).expect("agents"),
            takeaways: Default::default(),
            party: None,
            memory: None,
            documents: vec![],
            parties: vec![],
        }
    }

    pub fn setup(&self) -> Setup {
        let resume = self.resume.as_ref().map(|p| Resume {
            path: p.clone(),
            session: session::load(p).expect("resumable"),
            lock: Some(SessionLock::acquire(p).expect("the session is free")),
        });
        Setup {
            config: self.config.clone(),
            workflow: Workflow::load(WorkflowSource {
                dir: self.workflow_dir.clone(),
            })
            .expect("workflow"),
            agents: self.agents.clone(),
            pool: self.pool.clone(),
            provider: self.provider.clone(),
            endpoints: self.endpoints.clone(),
            lang: self.lang,
            speech_language: self.lang.speech_name().into(),
            user_name: "Ada".into(),
            output: self.dir.path().to_path_buf(),
            resume,
            document_language: None,
            notices: vec![],
            saves: Default::default(),
            takeaways: self.takeaways.clone(),
            party: self.party.clone(),
            memory: self.memory.clone(),
            documents: self.documents.clone(),
            parties: self.parties.clone(),
            casts: Some(bmad_party::engine::CastsTo {
                agents_dir: self.config_dir().join("agents"),
                parties_dir: self.config_dir().join("parties"),
                parties: vec![],
                memory_dir: None,
            }),
        }
    }

    /// The user's config folder a cast kept by `/cast` is saved in.
    pub fn config_dir(&self) -> PathBuf {
        self.dir.path().join("config")
    }

    /// Runs the script; after it, the facilitator leaves. Returns every event.
    pub async fn run(&self, script: Vec<Step>) -> Vec<Event> {
        tokio::time::timeout(Duration::from_secs(60), self.run_inner(script))
            .await
            .expect("party finished within 60 s")
    }

    async fn run_inner(&self, script: Vec<Step>) -> Vec<Event> {
        let mut h = engine::spawn(self.setup());
        let mut events = Vec::new();
        let mut steps = script.into_iter().peekable();
        while let Some(ev) = h.events.recv().await {
            events.push(ev.clone());
            match ev {
                // An answer waits until the engine actually asks something;
                // meanwhile the room may go on by itself (pushes, timers).
                Event::AwaitingInput {
                    kind: engine::InputKind::Message,
                } if matches!(steps.peek(), Some(Step::Answer { .. })) => {}
                Event::AwaitingInput { .. } => loop {
                    let cmd = match steps.next() {
                        Some(Step::Say(t)) => Command::Message { text: t.into() },
                        Some(Step::Cmd(c)) => c,
                        Some(Step::Answer { confirmed, extend, reason }) => {
                            let id = events.iter().rev().find_map(|e| match e {
                                Event::ConfirmationRequest { request_id, .. } => Some(request_id.clone()),
                                Event::TurnConfirmationRequest(r) => Some(r.request_id.clone()),
                                _ => None,
                            });
                            Command::Answer {
                                request_id: id.expect("a request to answer"),
                                confirmed,
                                extend,
                                reason: reason.map(String::from),
                            }
                        }
                        Some(Step::Wait(d)) => {
                            tokio::time::sleep(d).await;
                            continue;
                        }
                        Some(Step::Do(f)) => {
                            f();
                            continue;
                        }
                        Some(Step::Send(c)) => {
                            let _ = h.commands.send(c);
                            continue;
                        }
                        None => Command::Left,
                    };
                    // The engine may have ended on its own (a timer) meanwhile.
                    let _ = h.commands.send(cmd);
                    break;
                },
                Event::SessionEnded { .. } => break,
                _ => {}
            }
        }
        h.task.await.expect("engine task ends cleanly");
        events
    }
}

pub fn session_file(events: &[Event]) -> PathBuf {
    events
        .iter()
        .find_map(|e| match e {
            Event::SessionFile { path } => Some(PathBuf::from(path)),
            _ => None,
        })
        .expect("a session file")
}

pub fn load(path: &Path) -> Session {
    session::load(path).expect("session file parses")
}

/// A room going in circles: every speaker's turn says the same thing in
/// other words; every other call (summaries, farewells) varies.
pub fn circling_reply(r: &bmad_party::testing::Recorded, n: usize) -> bmad_party::testing::Reply {
    use bmad_party::testing::{shuffled, stream_of, varied_reply};
    if r.prompt_text().contains("Note from the session") {
        stream_of(&shuffled("We keep saying the roadmap needs more research first.", n))
    } else {
        stream_of(&varied_reply(n))
    }
}

/// What the engine refused, in order.
pub fn rejected(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Rejected { message } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

/// The prompt of the last call that asked an agent for its turn.
pub fn last_agent_prompt(server: &bmad_party::testing::FakeOpenAi) -> String {
    server
        .received()
        .iter()
        .rev()
        .find(|r| r.prompt_text().contains("Note from the session"))
        .expect("an agent was called")
        .prompt_text()
}

pub fn notices(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Notice { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

pub fn rounds(events: &[Event]) -> Vec<Vec<String>> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::RoundStarted { agents, .. } => Some(agents.clone()),
            _ => None,
        })
        .collect()
}

pub fn agent_messages(events: &[Event]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::AgentMessage { agent, text, .. } => Some((agent.clone(), text.clone())),
            _ => None,
        })
        .collect()
}

/// Everything the agents' panes were shown, token by token.
pub fn shown_tokens(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::AgentToken { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

pub fn say(n: usize, text: &'static str) -> Vec<Step> {
    (0..n).map(|_| Step::Say(text)).collect()
}

/// Why the party ended, from its `session_ended` event.
pub fn exit_reason(events: &[Event]) -> Option<bmad_party::engine::ExitReason> {
    events.iter().find_map(|e| match e {
        Event::SessionEnded { reason, .. } => *reason,
        _ => None,
    })
}

/// How many confirmation requests of `kind` the facilitator was asked.
pub fn requests(events: &[Event], kind: bmad_party::session::ConfirmKind) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::ConfirmationRequest { kind: k, .. } if *k == kind))
        .count()
}

/// The speaker a request to the loopback server is for (its persona: "You
/// are Maya, …"), "" for calls of no agent's.
pub fn speaker(r: &bmad_party::testing::Recorded) -> String {
    r.speaker().unwrap_or_default()
}
