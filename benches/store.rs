//! One save of the session file (render the Markdown + YAML, write a temp
//! file, fsync, rename) at 100 / 1k / 10k messages, as the engine does it
//! after every message: the body is rendered incrementally, so a save costs
//! one appended turn plus the write.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use bmad_party::session::{
    store_write, ConversationState, DiligenceState, Folder, Frontmatter, ProviderRecord, Session, SessionStore, StepId, Turn, TurnKind,
};
use chrono::Utc;
use divan::Bencher;

fn main() {
    divan::main();
}

fn session(messages: usize) -> Session {
    let now = Utc::now();
    let fm = Frontmatter {
        workflow_type: "party-mode".into(),
        topic: "Plugins".into(),
        user_name: "Ada".into(),
        date: "2026-11-22".into(),
        agents: vec!["a".into(), "b".into(), "c".into()],
        cast: vec![],
        steps_completed: vec![StepId::Number(1), StepId::Number(2)],
        agents_loaded: true,
        party_active: true,
        workflow_completed: false,
        conversation_state: ConversationState {
            current_round: (messages / 3) as u32,
            active_seconds: 60,
            ..ConversationState::new(now, 10_000, 8, 30.0, 25.0)
        },
        diligence: DiligenceState { budget: 3, used: 0 },
        confirmations: vec![],
        lang: bmad_party::i18n::Lang::En,
        provider: ProviderRecord::default(),
        party: None,
        context: vec![],
        hygiene: Default::default(),
        cleanup: Default::default(),
        self_checks: Vec::new(),
        set_aside: Vec::new(),
        pinned: Vec::new(),
        readings: Vec::new(),
    };
    let turns = (0..messages)
        .map(|i| Turn {
            at: now,
            ..Turn::said(
                TurnKind::Agent,
                Some(["a", "b", "c"][i % 3]),
                (i / 3) as u32,
                "🏗️ Ingrid",
                format!(
                    "Reply {i}: a considered paragraph about contracts, tests and what ships first, about sixty tokens long in a real party."
                ),
            )
        })
        .collect();
    Session { fm, turns }
}

#[divan::bench(args = [100, 1_000, 10_000], sample_count = 30)]
fn save_after_a_new_message(bencher: Bencher, messages: usize) {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(messages);
    let mut store = SessionStore::create(dir.path(), "Plugins", Utc::now());
    let path = store.path.clone();
    store_write(&path, &store.render(&s).unwrap().parts(), Folder::MayBeNew).unwrap();
    let extra = s.turns[0].clone();
    bencher.bench_local(|| {
        s.turns.push(extra.clone());
        store_write(&path, &store.render(&s).unwrap().parts(), Folder::Known).unwrap();
    });
}
