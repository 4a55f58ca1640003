//! `/cast` in the room (read by `engine::cast::typed`): a cast drafted for
//! the topic by `cast::ask` as `bmad-party cast` drafts one, shown for
//! review (`Event::CastDraft`, again after every step), changed by the
//! facilitator's steps (`Command::Cast`, or a typed review line: the pure
//! functions of `cast::review`), and when kept saved by `cast::save` into
//! the user's config folders. The saved files are read back as every agent
//! file is, join the roster and the parties, and the caller switches the
//! room to the new party. Ctrl+C (`Command::Abort`) stops the drafting or
//! closes the review; nothing is saved but a kept cast.

use super::party::Party;
use super::{Next, Room};
use crate::engine::cast::ask::{said, Asker, Drafted, OneDrafted};
use crate::engine::cast::review::{self, Applied, Review};
use crate::engine::cast::save::{save, Target};
use crate::engine::cast::typed::Ask;
use crate::engine::cast::{Brief, Draft, Sources, DEFAULT_SIZE};
use crate::engine::{Command, Event, InputKind, Memory, NoticeKind, Standing};
use crate::i18n::{Cast as Said, Say};
use crate::roster::parties::NamedParty;
use crate::source::SourceFile;

/// How a `/cast` ended.
#[derive(Debug)]
pub(super) enum Casting {
    /// Kept and saved: the new party's id, for the room to switch to.
    Kept(String),
    /// Nothing saved (refused, stopped, quit, or it could not start).
    Closed,
    /// A command that ends more than the cast (quit, exit, the facilitator
    /// left): nothing saved, and the command is the caller's to carry out.
    Interrupted(Command),
}

/// What a command does while a cast is drafted or reviewed.
enum Meanwhile {
    /// Ctrl+C: stop the drafting, or close the review.
    Stop,
    /// Quit, exit, left: the party's to carry out.
    End(Command),
    /// Typing: nothing but the next prompt.
    Typing,
    /// The message box's draft before the topic: it answers nothing.
    Nothing,
    /// Anything else: for after the cast (queued while drafting).
    Later(Command),
}

fn meanwhile(cmd: Option<Command>) -> Meanwhile {
    match cmd.unwrap_or(Command::Quit) {
        Command::Abort => Meanwhile::Stop,
        c @ (Command::Quit | Command::Exit | Command::Left) => Meanwhile::End(c),
        Command::Typing => Meanwhile::Typing,
        Command::Draft { .. } => Meanwhile::Nothing,
        c => Meanwhile::Later(c),
    }
}

impl Party {
    /// `/cast` during the party: drafted for the session's topic unless
    /// another is typed; kept, the room switches to it as `/party` does.
    pub(super) async fn cast(&mut self, ask: Ask) -> Next {
        let topic = self.session.fm.topic.clone();
        let cast = self.room.cast(ask, Some(&topic)).await;
        // Drafting and reviewing took the facilitator's time: the room has
        // not been left idle meanwhile (no push falls due on its return).
        self.idle.facilitator_acted();
        match cast {
            Casting::Kept(id) => self.hands(Ok(crate::engine::hands::Hand::Switch(id))).await,
            Casting::Closed => Next::Wait,
            Casting::Interrupted(cmd) => Next::Command(cmd),
        }
    }
}

impl Room {
    /// `/cast`: drafted for `ask` (its topic, else `session_topic`),
    /// reviewed, and saved when kept.
    pub(super) async fn cast(&mut self, ask: Ask, session_topic: Option<&str>) -> Casting {
        let lang = self.lang;
        let topic = match (ask.topic.is_empty(), session_topic) {
            (false, _) => ask.topic.clone(),
            (true, Some(t)) => t.to_string(),
            (true, None) => return self.refuse(Said::NeedsTopic),
        };
        let documents: Vec<(String, String)> = match ask.from_documents {
            true if self.documents.is_empty() => return self.refuse(Said::NoDocuments),
            true => self.documents.iter().map(|d| (d.name.clone(), d.text.clone())).collect(),
            false => vec![],
        };
        let Some(target) = self.cast_target() else {
            return self.refuse(Said::NoConfigFolder);
        };
        let brief = Brief {
            topic: crate::text::ellipsize(&topic, 600),
            size: DEFAULT_SIZE,
            language: self.speech_language.clone(),
            lang,
            taken: target.names.clone(),
            sources: Sources::new(&documents),
        };
        self.casts_drafted += 1;
        let request_id = format!("cast-{}", self.casts_drafted);
        self.emit(Event::Notice {
            kind: NoticeKind::Info,
            text: Said::DraftingInRoom {
                topic: crate::text::ellipsize(&brief.topic, 80),
                model: self.provider.info().model,
                size: brief.size,
                documents: documents.len(),
            }
            .say(lang),
        });
        if brief.sources.left_out > 0 {
            self.emit(Event::Notice {
                kind: NoticeKind::Warning,
                text: Said::LeftOut {
                    lines: brief.sources.left_out,
                }
                .say(lang),
            });
        }
        let started = std::time::Instant::now();
        let drafted = self.drafted(&brief).await;
        let outcome = match &drafted {
            Ok(Drafted::Ready { attempts, .. }) => format!("ready after {attempts}"),
            Ok(Drafted::Refused { attempts, .. }) => format!("refused after {attempts}"),
            Ok(Drafted::Failed(_)) => "failed".into(),
            Err(_) => "stopped".into(),
        };
        tracing::info!(ms = started.elapsed().as_millis() as u64, %outcome, "a cast was drafted in the room");
        let (draft, note) = match drafted {
            Ok(Drafted::Ready { draft, left_out, .. }) => {
                let note = (!left_out.is_empty()).then(|| {
                    Said::Salvaged {
                        dropped: left_out.join(", "),
                    }
                    .say(lang)
                });
                (draft, note)
            }
            Ok(Drafted::Refused { attempts, flaws }) => {
                let flaws = said(&flaws, &brief);
                return self.gave_up(Said::Refused { attempts, flaws });
            }
            Ok(Drafted::Failed(cause)) => return self.gave_up(Said::ModelFailed { cause: cause.say(lang) }),
            Err(Some(end)) => return Casting::Interrupted(end),
            Err(None) => return self.gave_up(Said::Stopped),
        };
        self.review(&request_id, draft, note, &brief, target).await
    }

    /// The drafting, while commands still come: Err(None) when Ctrl+C
    /// stopped it, Err(command) when one ended the party's wait.
    async fn drafted(&mut self, brief: &Brief) -> Result<Drafted, Option<Command>> {
        let lang = self.lang;
        let (tx, rx, queue) = (&self.tx, &mut self.rx, &mut self.queue);
        let asker = Asker {
            provider: self.provider.as_ref(),
            workflow: &self.workflow,
        };
        let mut progress = |note: Said| {
            let _ = tx.send(Event::Notice {
                kind: NoticeKind::Info,
                text: note.say(lang),
            });
        };
        let drafting = asker.draft(brief, &mut progress);
        tokio::pin!(drafting);
        loop {
            tokio::select! {
                drafted = &mut drafting => return Ok(drafted),
                cmd = rx.recv() => match meanwhile(cmd) {
                    Meanwhile::Stop => return Err(None),
                    Meanwhile::End(c) => return Err(Some(c)),
                    Meanwhile::Typing | Meanwhile::Nothing => {}
                    Meanwhile::Later(c) => queue.push_back(c),
                },
            }
        }
    }

    /// The review: the draft shown after every step until it is kept
    /// (and saved) or closed.
    async fn review(&mut self, request_id: &str, mut draft: Draft, mut note: Option<String>, brief: &Brief, target: Target) -> Casting {
        let lang = self.lang;
        // Whether to show the draft again, and to ask for the next step.
        let (mut show, mut ask) = (true, true);
        loop {
            if show {
                self.emit(Event::CastDraft {
                    request_id: request_id.to_string(),
                    draft: draft.view(&brief.sources),
                    note: note.take(),
                });
            }
            if ask {
                self.emit(Event::AwaitingInput { kind: InputKind::Review });
            }
            (show, ask) = (true, true);
            let step = match meanwhile(self.rx.recv().await) {
                Meanwhile::Stop => Review::Quit,
                Meanwhile::End(c) => {
                    self.close_review(request_id, None);
                    return Casting::Interrupted(c);
                }
                Meanwhile::Typing => {
                    show = false;
                    continue;
                }
                Meanwhile::Nothing => {
                    (show, ask) = (false, false);
                    continue;
                }
                Meanwhile::Later(Command::Cast { request_id: id, review }) if id == request_id => review,
                Meanwhile::Later(Command::Message { text }) => match review::parse(&crate::text::sanitize(&text), draft.personas.len()) {
                    Ok(step) => step,
                    Err(e) => {
                        note = Some(format!("{} ({})", e.say(lang), Said::ReviewHelp.say(lang)));
                        continue;
                    }
                },
                Meanwhile::Later(Command::Cast { request_id: id, .. }) => {
                    self.reject_answer(&id);
                    show = false;
                    continue;
                }
                // An answer to the party's own question waits for the
                // review's end, as it does while a cast is drafted.
                Meanwhile::Later(c @ (Command::Answer { .. } | Command::TurnConfirmationResponse(_))) => {
                    self.queue.push_back(c);
                    show = false;
                    continue;
                }
                Meanwhile::Later(_) => {
                    note = Some(Said::ReviewOpen.say(lang));
                    continue;
                }
            };
            note = match self.step(&mut draft, step, brief, request_id).await {
                Step::Shown(n) => n,
                Step::Keep => match review::unsaveable(&draft).as_slice() {
                    [] => match self.keep(&draft, &brief.sources, &target) {
                        Ok(id) => {
                            self.close_review(request_id, Some(id.clone()));
                            return Casting::Kept(id);
                        }
                        Err(cause) => Some(Said::NotSaved { cause }.say(lang)),
                    },
                    flaws => Some(said(flaws, brief)),
                },
                Step::Quit => {
                    self.close_review(request_id, None);
                    self.emit(Event::Notice {
                        kind: NoticeKind::Info,
                        text: Said::NothingSaved.say(lang),
                    });
                    return Casting::Closed;
                }
                Step::End(c) => {
                    self.close_review(request_id, None);
                    return Casting::Interrupted(c);
                }
            };
        }
    }

    /// One review step on the draft; what to tell the facilitator of it.
    async fn step(&mut self, draft: &mut Draft, step: Review, brief: &Brief, request_id: &str) -> Step {
        let lang = self.lang;
        Step::Shown(match review::apply(draft, step) {
            Err(e) => Some(e.say(lang)),
            Ok(Applied::Keep) => return Step::Keep,
            Ok(Applied::Quit) => return Step::Quit,
            Ok(Applied::Shown { dropped }) => dropped.map(|who| Said::Dropped { who }.say(lang)),
            Ok(Applied::Again(at)) => match self.asked_again(brief, draft, at, request_id).await {
                Ok(n) => n,
                Err(end) => return end,
            },
        })
    }

    /// `again N`: someone else asked for in place `at`, while Ctrl+C
    /// still stops it.
    async fn asked_again(&mut self, brief: &Brief, draft: &mut Draft, at: usize, request_id: &str) -> Result<Option<String>, Step> {
        let lang = self.lang;
        let who = draft.personas[at].name.clone();
        self.emit(Event::Notice {
            kind: NoticeKind::Info,
            text: Said::AskingOne { who: who.clone() }.say(lang),
        });
        let answer = {
            let asker = Asker {
                provider: self.provider.as_ref(),
                workflow: &self.workflow,
            };
            let asking = asker.one(brief, draft, at);
            tokio::pin!(asking);
            loop {
                tokio::select! {
                    answer = &mut asking => break answer,
                    // Steps sent while someone is asked for are not taken
                    // (the draft they were meant for is about to change),
                    // but quitting the review; other commands wait for the
                    // review's end.
                    cmd = self.rx.recv() => match meanwhile(cmd) {
                        Meanwhile::Stop => return Ok(Some(Said::Stopped.say(lang))),
                        Meanwhile::End(c) => return Err(Step::End(c)),
                        Meanwhile::Later(Command::Cast { review: Review::Quit, request_id: id }) if id == request_id => return Err(Step::Quit),
                        Meanwhile::Later(Command::Cast { .. } | Command::Message { .. }) | Meanwhile::Typing | Meanwhile::Nothing => {}
                        Meanwhile::Later(c) => self.queue.push_back(c),
                    },
                }
            }
        };
        Ok(Some(match answer {
            OneDrafted::Ready(p) => {
                let by = p.name.clone();
                draft.personas[at] = p;
                Said::Replaced { who, by }.say(lang)
            }
            OneDrafted::Refused(flaws) => Said::OneRefused {
                who,
                flaws: said(&flaws, brief),
            }
            .say(lang),
            OneDrafted::Failed(cause) => Said::ModelFailed { cause: cause.say(lang) }.say(lang),
        }))
    }

    /// Saves a kept cast; its agents, read back from their files, join the
    /// roster, and its party the ones `/party` can switch to. The party's
    /// id, or why nothing was saved.
    fn keep(&mut self, draft: &Draft, sources: &Sources, target: &Target) -> Result<String, String> {
        let lang = self.lang;
        let saved = save(draft, sources, target)?;
        let read_back = |path: &std::path::PathBuf| -> Result<crate::roster::Agent, String> {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let file = SourceFile {
                path: path.display().to_string(),
                text,
            };
            crate::roster::agents::parse_agent(&file).map_err(|e| e.say(lang))
        };
        let agents = match saved.files[..saved.agents.len()]
            .iter()
            .map(read_back)
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(agents) => agents,
            // What cannot be read back is no cast: nothing stays.
            Err(cause) => {
                for path in &saved.files {
                    let _ = std::fs::remove_file(path);
                }
                return Err(cause);
            }
        };
        for (from, to) in &saved.renamed {
            self.emit(Event::Notice {
                kind: NoticeKind::Info,
                text: Said::Renamed {
                    from: from.clone(),
                    to: to.clone(),
                }
                .say(lang),
            });
        }
        self.emit(Event::Notice {
            kind: NoticeKind::Info,
            text: Said::Saved {
                name: saved.party.name.clone(),
                id: saved.party.id.clone(),
                count: agents.len(),
                dir: target.agents_dir.parent().unwrap_or(&target.agents_dir).display().to_string(),
            }
            .say(lang),
        });
        let id = saved.party.id.clone();
        let memory = self.casts.as_ref().and_then(|c| c.memory_dir.as_ref()).map(|dir| Memory {
            path: crate::memlog::path(dir, &id),
            entries: vec![],
        });
        if let Some(casts) = self.casts.as_mut() {
            casts.parties.push(id.clone());
        }
        self.pool.extend(agents.iter().cloned());
        self.parties.push(Standing {
            party: NamedParty {
                id: id.clone(),
                name: saved.party.name,
                scene: saved.party.scene,
            },
            agents,
            memory,
        });
        Ok(id)
    }

    /// Where a kept cast is saved, and the names and ids it must not take.
    fn cast_target(&self) -> Option<Target> {
        let casts = self.casts.as_ref()?;
        let mut parties = casts.parties.clone();
        parties.extend(self.parties.iter().map(|p| p.party.id.clone()));
        Some(Target {
            agents_dir: casts.agents_dir.clone(),
            parties_dir: casts.parties_dir.clone(),
            ids: self.pool.iter().map(|a| a.id.clone()).collect(),
            names: self.pool.iter().map(|a| a.name.clone()).collect(),
            parties,
        })
    }

    /// The drafting came to nothing: said in the transcript.
    fn gave_up(&self, why: Said) -> Casting {
        self.emit(Event::Notice {
            kind: NoticeKind::Warning,
            text: why.say(self.lang),
        });
        Casting::Closed
    }

    /// `/cast` cannot start: why.
    fn refuse(&self, why: Said) -> Casting {
        self.emit(Event::Rejected {
            message: why.say(self.lang),
        });
        Casting::Closed
    }

    fn close_review(&self, request_id: &str, party: Option<String>) {
        self.emit(Event::CastClosed {
            request_id: request_id.to_string(),
            party,
        });
    }
}

/// What a review step came to.
enum Step {
    /// The draft shown again, with this said of the step.
    Shown(Option<String>),
    Keep,
    Quit,
    /// A command that ends more than the cast came while a persona was
    /// asked for again.
    End(Command),
}
