//! `--non-interactive`: the party as a step of another workflow. No
//! facilitator: the topic opens it, the room goes on by itself (the
//! continue prompt) for the rounds asked, every question of the runtime is
//! answered so that those rounds are played (proposals to end, consensus
//! and silence are declined; a limit reached ends it), then the graceful
//! exit writes the takeaways. Standard output gets their path alone;
//! progress and problems go to standard error. Same engine, no stdin.

use crate::engine::{self, Command, Event, InputKind, Setup};
use crate::error::ExitStatus;
use crate::i18n::{Lang, Printed, Say};
use crate::session::ConfirmKind;

pub(crate) async fn run(mut setup: Setup, rounds: u32, topic: String) -> i32 {
    let lang = setup.lang;
    // No screen shares the thread: the engine writes its saves itself.
    setup.saves = engine::Saves::Inline;
    let mut engine = engine::spawn(setup);
    let mut signals = super::signals::Signals::new();
    let mut ending = super::exit::Ending::default();
    let mut batch = Batch {
        lang,
        rounds,
        opening: Some(topic),
        played: 0,
        takeaways: None,
        last_failure: String::new(),
    };
    loop {
        let ev = tokio::select! {
            ev = engine.events.recv() => ev,
            _ = signals.next() => {
                ending.signalled = true;
                let _ = engine.commands.send(Command::Quit);
                continue;
            }
        };
        let Some(ev) = ev else { break };
        ending.see(&ev);
        if let Some(c) = batch.on_event(ev) {
            let _ = engine.commands.send(c);
        }
    }
    let _ = engine.task.await;
    batch.finish(ending.status())
}

/// A party without a facilitator: the rounds asked for, what it says on
/// stderr, where its takeaways went.
struct Batch {
    lang: Lang,
    rounds: u32,
    /// The topic, sent when the engine first asks for a message.
    opening: Option<String>,
    played: u32,
    takeaways: Option<String>,
    last_failure: String,
}

impl Batch {
    fn say(&self, what: Printed<'_>) {
        eprintln!("bmad-party: {}", what.say(self.lang));
    }

    /// What the driver answers an event with, if anything.
    fn on_event(&mut self, ev: Event) -> Option<Command> {
        let rounds = self.rounds;
        match ev {
            Event::SessionFile { path } => self.say(Printed::BatchSessionFile { path: &path }),
            Event::AwaitingInput { kind: InputKind::Message } => {
                return Some(match self.opening.take() {
                    Some(text) => Command::Message { text },
                    None if self.played < rounds => Command::Continue,
                    None => Command::Exit,
                })
            }
            Event::ConfirmationRequest { request_id, kind, .. } => {
                // Limits end the party; anything that would end it early is
                // declined so the rounds asked for are played.
                let confirmed = matches!(kind, ConfirmKind::RoundLimit | ConfirmKind::TimeLimit);
                return Some(Command::Answer {
                    request_id,
                    confirmed,
                    reason: None,
                    extend: None,
                });
            }
            Event::TurnConfirmationRequest(r) => {
                return Some(Command::TurnConfirmationResponse(engine::TurnConfirmationResponse {
                    request_id: r.request_id,
                    confirmed: false,
                    reason: None,
                }))
            }
            Event::RoundFinished { round, .. } => {
                self.played = self.played.max(round);
                self.say(Printed::BatchRoundDone { round, rounds });
            }
            Event::AgentFailed { agent, cause, .. } => {
                self.say(Printed::BatchAgentFailed {
                    agent: &agent,
                    cause: &cause,
                });
                self.last_failure = cause;
            }
            Event::SaveFailed { path, error } => self.say(Printed::BatchCannotWrite {
                path: &path,
                error: &error,
            }),
            Event::Takeaways { path } => self.takeaways = Some(path),
            _ => {}
        }
        None
    }

    /// The takeaways' path on stdout when the party ended with them, else
    /// why not on stderr; the exit code.
    fn finish(self, status: ExitStatus) -> i32 {
        let last_failure = &self.last_failure;
        match (status, self.takeaways.clone()) {
            (ExitStatus::Ended, Some(path)) => {
                println!("{path}");
                return status.code().into();
            }
            (ExitStatus::Unreachable, path) => {
                let path = path.unwrap_or_default();
                self.say(Printed::BatchUnreachable {
                    cause: last_failure,
                    path: &path,
                });
            }
            (ExitStatus::Interrupted, _) => self.say(Printed::BatchInterrupted),
            (ExitStatus::NotSaved, _) => self.say(Printed::BatchNotSaved),
            (_, _) => self.say(Printed::BatchNoTakeaways),
        }
        match status {
            ExitStatus::Ended => ExitStatus::Failed.code().into(),
            s => s.code().into(),
        }
    }
}
