//! `--non-interactive`: the party as a step of another workflow. No
//! facilitator: the topic opens it, the room goes on by itself (the
//! continue prompt) for the rounds asked, every question of the runtime is
//! answered so that those rounds are played (proposals to end, consensus
//! and silence are declined; a limit reached ends it), then the graceful
//! exit writes the takeaways. Standard output gets their path alone;
//! progress and problems go to standard error. Same engine, no stdin.

use super::exit::Status;
use crate::engine::{self, Command, Event, InputKind, Setup};
use crate::i18n::Lang;
use crate::session::ConfirmKind;

pub async fn run(mut setup: Setup, rounds: u32, topic: String) -> i32 {
    let lang = setup.lang;
    // No screen shares the thread: the engine writes its saves itself.
    setup.saves = engine::Saves::Inline;
    let mut engine = engine::spawn(setup);
    let mut signals = super::signals::Signals::new();
    let mut opening = Some(topic);
    let mut played = 0u32;
    let mut takeaways: Option<String> = None;
    let mut ending = super::exit::Ending::default();
    let mut last_failure = String::new();
    let say = |en: String, zh: String| {
        eprintln!("bmad-party: {}", if lang == Lang::Zh { zh } else { en });
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
        let command = match ev {
            Event::SessionFile { path } => {
                say(format!("session file {path}"), format!("会话文件 {path}"));
                None
            }
            Event::AwaitingInput { kind: InputKind::Message } => Some(match opening.take() {
                Some(text) => Command::Message { text },
                None if played < rounds => Command::Continue,
                None => Command::Exit,
            }),
            Event::ConfirmationRequest { request_id, kind, .. } => {
                // Limits end the party; anything that would end it early is
                // declined so the rounds asked for are played.
                let confirmed = matches!(kind, ConfirmKind::RoundLimit | ConfirmKind::TimeLimit);
                Some(Command::Answer {
                    request_id,
                    confirmed,
                    reason: None,
                    extend: None,
                })
            }
            Event::TurnConfirmationRequest(r) => Some(Command::TurnConfirmationResponse(engine::TurnConfirmationResponse {
                request_id: r.request_id,
                confirmed: false,
                reason: None,
            })),
            Event::RoundFinished { round, .. } => {
                played = played.max(round);
                say(format!("round {round}/{rounds} done"), format!("第 {round}/{rounds} 轮结束"));
                None
            }
            Event::AgentFailed { agent, cause, .. } => {
                say(format!("{agent} failed: {cause}"), format!("{agent} 失败：{cause}"));
                last_failure = cause;
                None
            }
            Event::SaveFailed { path, error } => {
                say(format!("cannot write {path}: {error}"), format!("无法写入 {path}：{error}"));
                None
            }
            Event::Takeaways { path } => {
                takeaways = Some(path);
                None
            }
            _ => None,
        };
        if let Some(c) = command {
            let _ = engine.commands.send(c);
        }
    }
    let _ = engine.task.await;
    let status = ending.status();
    match (status, takeaways) {
        (Status::Ended, Some(path)) => {
            println!("{path}");
            return status.code().into();
        }
        (Status::Ended, None) => say("the party ended without takeaways".into(), "派对结束，但没有写出要点".into()),
        (Status::Unreachable, path) => {
            let path = path.unwrap_or_default();
            say(
                format!("the model could not be reached ({last_failure}); takeaways from the transcript alone: {path}"),
                format!("无法连接模型（{last_failure}）；仅根据对话记录生成的要点：{path}"),
            );
        }
        (Status::Interrupted, _) => say(
            "stopped before the end; the session can be resumed".into(),
            "在结束前停止；会话可以继续".into(),
        ),
        (Status::NotSaved, _) => say("the session could not be saved (see above)".into(), "会话无法保存（见上文）".into()),
        (_, _) => say("the party ended without takeaways".into(), "派对结束，但没有写出要点".into()),
    }
    match status {
        Status::Ended => Status::Failed.code().into(),
        s => s.code().into(),
    }
}
