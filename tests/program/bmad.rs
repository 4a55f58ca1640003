//! Real BMAD projects of every layout (fixtures under tests/fixtures/):
//! detection, rosters from CSV manifests and config.toml installs, project
//! config, languages, output folders, and whole headless parties in them.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use bmad_party::engine::selection;
use bmad_party::roster::bmad::{detect, load};
use bmad_party::testing::FakeOpenAi;
use tokio::io::AsyncWriteExt;

const BIN: &str = env!("CARGO_BIN_EXE_bmad-party");

/// A copy of a fixture project in a temp dir, so runs write nothing into the repo.
fn fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join(name);
    copy_dir(&src, &dst);
    (dir, dst)
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap().flatten() {
        let (s, d) = (e.path(), dst.join(e.file_name()));
        if s.is_dir() {
            copy_dir(&s, &d);
        } else {
            std::fs::copy(&s, &d).unwrap();
        }
    }
}

fn names(root: &Path) -> Vec<String> {
    load(&detect(root).expect("a project"))
        .agents
        .iter()
        .map(|a| a.name.clone())
        .collect()
}

#[test]
fn five_column_manifest_in_an_old_bmad_folder() {
    let (_d, root) = fixture("csv5");
    let l = load(&detect(&root.join("bmad")).expect("found from the bmad folder itself"));
    assert_eq!(
        l.agents.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
        ["Mary", "Winston", "John"]
    );
    assert_eq!(l.agents[0].title, "Analyst", "a title from the code when the manifest has none");
    assert!(
        l.agents[0].role.contains("Strategic business analyst"),
        "the description stands in for the persona"
    );
    assert_eq!(l.config.user_name.as_deref(), Some("Grace"));
    assert_eq!(
        l.config.output_folder.as_deref(),
        Some(root.canonicalize().unwrap().join("notes").as_path())
    );
}

#[test]
fn ten_column_manifest_with_entities_and_a_compiled_agent_file() {
    let (_d, root) = fixture("csv10");
    let l = load(&detect(&root).unwrap());
    let arch = l.agents.iter().find(|a| a.id == "architect").unwrap();
    assert_eq!(
        (arch.title.as_str(), arch.icon.as_str()),
        ("Architect", "🏗️"),
        "empty cells filled from the compiled agent file"
    );
    assert_eq!(
        arch.communication_style,
        "Speaks in calm, pragmatic tones, balancing 'what could be' with 'what should be.'"
    );
    assert_eq!(
        arch.principles,
        ["User journeys drive technical decisions", "Embrace boring technology for stability"]
    );
    let writer = l.agents.iter().find(|a| a.id == "tech-writer").unwrap();
    assert_eq!(writer.name, "paige", "the manifest's display name wins as written");
    assert!(writer.communication_style.contains("\"analogies\" & examples"));
    let master = l.agents.iter().find(|a| a.id == "bmad-master").unwrap();
    assert!(master.moderator, "bmad-master redirects circular discussions");
    assert_eq!(l.config.communication_language.as_deref(), Some("Chinese"));
    assert_eq!(l.config.user_name.as_deref(), Some("小明"));
}

#[test]
fn eleven_column_manifest_keeps_odd_rows_and_reports_them() {
    let (_d, root) = fixture("csv11");
    let l = load(&detect(&root).unwrap());
    assert_eq!(l.agents.len(), 4, "every row with a name is kept");
    let pm = l.agents.iter().find(|a| a.id == "pm").unwrap();
    assert_eq!(
        pm.communication_style, "Asks \"WHY?\" relentlessly like a detective on a case",
        "\"\" escapes"
    );
    assert_eq!(pm.capabilities, None, "empty capabilities kept as none");
    let arch = l.agents.iter().find(|a| a.id == "architect").unwrap();
    assert_eq!(arch.principles.len(), 3, "{:?}", arch.principles);
    assert!(
        arch.identity.contains("cloud infrastructure, and API design — specializes"),
        "commas and dashes inside quoted fields"
    );
    assert_eq!(
        l.agents.iter().find(|a| a.id == "rnd").unwrap().title,
        "R&D Lead",
        "a raw & is not an entity"
    );
    let text: Vec<String> = l.problems.iter().map(|p| p.to_string()).collect();
    assert!(
        text.iter()
            .any(|p| p.contains("agent-manifest.csv:4: `path`: `_bmad/cis/agents/missing.md` does not exist")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|p| p.contains("agent-manifest.csv:5: `role`: no persona fields")),
        "{text:?}"
    );
}

#[test]
fn twelve_column_manifest_shared_names_aliases_and_a_broken_row() {
    let (_d, root) = fixture("csv12");
    let l = load(&detect(&root).unwrap());
    assert_eq!(names(&root), ["Winston", "Winston", "Amelia"]);
    let text: Vec<String> = l.problems.iter().map(|p| p.to_string()).collect();
    assert!(
        text.iter()
            .any(|p| p.contains(":5: `name`: row without `name` or `displayName`, skipped")),
        "{text:?}"
    );
    // The name picks both Winstons; a code picks one; the alias works with @.
    let both = selection::named(&l.agents, "Winston, what do you think?");
    assert_eq!(both.len(), 2);
    let one = selection::named(&l.agents, "@bmad-agent-winston-legacy please");
    assert_eq!(
        one.iter().map(|&i| l.agents[i].title.as_str()).collect::<Vec<_>>(),
        ["Legacy Architect"]
    );
    let alias = selection::named(&l.agents, "@dev and @architect");
    assert_eq!(
        alias.iter().map(|&i| l.agents[i].name.as_str()).collect::<Vec<_>>(),
        ["Amelia", "Winston"]
    );
}

#[test]
fn config_toml_install_merges_layers_and_lists_only_its_agents() {
    let (_d, root) = fixture("toml");
    let l = load(&detect(&root).unwrap());
    assert_eq!(
        l.agents.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
        ["Winston", "Johanna"],
        "custom/config.toml renames; dev is not listed so not invited"
    );
    let arch = &l.agents[0];
    assert_eq!(
        arch.principles,
        [
            "User journeys drive technical decisions.",
            "Embrace boring technology.",
            "Always write the ADR first."
        ],
        "the user override appends"
    );
    assert_eq!(arch.role, "System Architect + Technical Design Leader");
    assert_eq!(arch.aliases, ["architect"]);
    assert_eq!(l.config.user_name.as_deref(), Some("Sofía"), "from config.user.toml");
    assert_eq!(l.config.communication_language.as_deref(), Some("Español"));
}

#[test]
fn config_toml_wins_over_a_stale_csv() {
    let (_d, root) = fixture("both");
    assert_eq!(names(&root), ["Mary"]);
}

/// A string field of the first headless event of a kind.
fn event_text(ev: &[serde_json::Value], kind: &str, field: &str) -> String {
    let e = ev.iter().find(|e| e["type"] == kind).unwrap_or_else(|| panic!("a {kind} event"));
    e[field]
        .as_str()
        .unwrap_or_else(|| panic!("{kind}.{field} is a string"))
        .to_string()
}

async fn headless_in(dir: &Path, server: &FakeOpenAi, extra: &[&str], input: &str) -> (i32, Vec<serde_json::Value>, String) {
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.current_dir(dir)
        .env_remove("OPENAI_API_KEY")
        .env("OPENAI_BASE_URL", server.base_url())
        .env("BMAD_PARTY_MIN_BACKOFF_MS", "20")
        .env("LANG", "C.UTF-8")
        .env_remove("LC_ALL")
        .args(["--headless", "--events", "json"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).await.unwrap();
    drop(stdin);
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let events = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (
        out.status.code().unwrap_or(-1),
        events,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chinese_project_party_greets_by_name_speaks_chinese_and_writes_to_its_output_folder() {
    let (_d, root) = fixture("csv10");
    let server = FakeOpenAi::varied().await;
    let (code, ev, stderr) = headless_in(&root, &server, &[], "主题\n").await;
    assert_eq!(code, 0, "{stderr}");
    let started = &ev[0];
    assert_eq!(started["lang"], "zh");
    assert_eq!(started["user_name"], "小明");
    let ids: Vec<&str> = started["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["bmad-master", "architect", "tech-writer"]);
    let welcome = event_text(&ev, "welcome", "text");
    assert!(welcome.contains("欢迎 小明"), "{welcome}");
    assert!(
        ev.iter()
            .any(|e| e["type"] == "notice" && e["text"].as_str().unwrap().contains("正在结束对话")),
        "Chinese notices"
    );
    let file = event_text(&ev, "session_ended", "file");
    assert!(
        file.starts_with(&root.canonicalize().unwrap().join("docs/party-mode").display().to_string()),
        "{file}"
    );
    assert!(
        server.received().iter().any(|r| r.system_prompt().contains("Write in Chinese")),
        "agents are told the language"
    );
    assert!(
        std::fs::read_to_string(&file).unwrap().contains("# 🎉 派对模式：主题"),
        "the file's own heading is Chinese too"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_spanish_toml_project_tells_agents_to_speak_spanish_with_english_program_text() {
    let (_d, root) = fixture("toml");
    let server = FakeOpenAi::varied().await;
    let (code, ev, stderr) = headless_in(&root, &server, &[], "Tema\n").await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(ev[0]["lang"], "en", "program text falls back to English");
    assert_eq!(ev[0]["user_name"], "Sofía");
    assert!(server.received().iter().any(|r| r.system_prompt().contains("Write in Español")));
    let file = event_text(&ev, "session_ended", "file");
    assert!(file.contains("_bmad-output/party-mode/"), "{file}");
    let s = bmad_party::session::load(Path::new(&file)).unwrap();
    assert_eq!(s.fm.agents, ["bmad-agent-architect", "bmad-agent-pm"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn roster_problems_are_shown_and_flags_win() {
    let (_d, root) = fixture("csv11");
    let server = FakeOpenAi::varied().await;
    let out = tempfile::tempdir().unwrap();
    let (code, ev, _) = headless_in(
        &root,
        &server,
        &["--lang", "zh", "--user-name", "Bo", "--output", out.path().to_str().unwrap()],
        "Topic\n",
    )
    .await;
    assert_eq!(code, 0);
    assert_eq!(ev[0]["lang"], "zh");
    assert_eq!(ev[0]["user_name"], "Bo");
    assert!(
        ev.iter()
            .any(|e| e["type"] == "notice" && e["text"].as_str().unwrap().contains("名单中有 3 个问题")),
        "program text follows --lang zh"
    );
    let file = event_text(&ev, "session_ended", "file");
    assert!(file.starts_with(&out.path().display().to_string()));
}

#[tokio::test(flavor = "multi_thread")]
async fn list_agents_and_a_bmad_flag_pointing_nowhere() {
    let (_d, root) = fixture("csv12");
    let out = std::process::Command::new(BIN)
        .current_dir(&root)
        .arg("--list-agents")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3 agent(s) from"), "{text}");
    assert!(
        text.contains("💻 Amelia") && text.contains("@bmad-agent-dev (also dev, bmad-dev)"),
        "{text}"
    );
    assert!(text.contains("3 problem(s):"), "{text}");

    let empty = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(BIN)
        .current_dir(empty.path())
        .arg("--bmad")
        .arg(empty.path())
        .arg("--list-agents")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no BMAD install there"));

    // A project without any roster: named with --bmad it is an error;
    // found by itself, the built-in room runs and says why.
    std::fs::create_dir_all(empty.path().join("_bmad/core")).unwrap();
    std::fs::write(empty.path().join("_bmad/core/config.yaml"), "user_name: Zed\n").unwrap();
    let out = std::process::Command::new(BIN)
        .current_dir(empty.path())
        .arg("--bmad")
        .arg(empty.path())
        .arg("--list-agents")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no agents found"));
    let out = std::process::Command::new(BIN)
        .current_dir(empty.path())
        .arg("--list-agents")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("(built-in) agents/") && text.contains("using the built-in room"),
        "{text}"
    );
}

/// A copy of the `toml` fixture project whose facilitator speaks `language`.
fn project_speaking(language: &str) -> (tempfile::TempDir, PathBuf) {
    let (dir, root) = fixture("toml");
    std::fs::write(
        root.join("_bmad/config.user.toml"),
        format!("[core]\nuser_name = \"Sofía\"\ncommunication_language = \"{language}\"\n"),
    )
    .unwrap();
    (dir, root)
}

/// Natural replies in a language: a speaker's own point, then, for the
/// next speaker, a take-up that names the one before and carries their
/// words (the room's cross-talk).
struct Speech {
    points: [&'static str; 4],
    /// `{name}` and `{said}` (the one before's point) filled in.
    take_up: &'static str,
    /// What a farewell, the highlights or any other call says.
    other: &'static str,
}

const KOREAN: Speech = Speech {
    points: [
        "결제 시스템을 옮기기 전에 고객 데이터부터 정리해야 합니다.",
        "첫 달에는 한 팀만 먼저 옮겨서 위험을 줄이고 싶습니다.",
        "환불 흐름은 별도로 테스트 환경을 만들어 검증하는 게 좋겠습니다.",
        "운영팀이 새벽에 대응하지 않도록 배포 시간을 오후로 잡읍시다.",
    ],
    take_up: "{name}가 말한 것처럼 {said} 다만",
    other: "오늘 논의 감사합니다. 다음 회의에서 이어가죠.",
};

const JAPANESE: Speech = Speech {
    points: [
        "決済システムを移行する前に、まず顧客データを整理するべきです。",
        "最初の一か月は一つのチームだけを移行して、リスクを抑えたいと思います。",
        "返金の流れは別のテスト環境で検証したほうがいいでしょう。",
        "運用チームが深夜に対応しなくて済むよう、リリースは午後にしましょう。",
    ],
    take_up: "{name}さんの言う通り、{said}ただ、",
    other: "本日はありがとうございました。次回も続けましょう。",
};

const GERMAN: Speech = Speech {
    points: [
        "Bevor wir das Zahlungssystem umziehen, sollten wir die Kundendaten bereinigen.",
        "Im ersten Monat würde ich nur ein Team umstellen, um das Risiko klein zu halten.",
        "Die Rückerstattungen sollten wir in einer eigenen Testumgebung prüfen, z. B. mit echten Belegen.",
        "Damit niemand nachts Bereitschaft schieben muss, sollten wir nachmittags ausrollen.",
    ],
    take_up: "{name} hat recht: {said} Und:",
    other: "Danke für die Diskussion, wir machen nächstes Mal weiter.",
};

/// A loopback server that answers every speaker in `speech`, each turn
/// after the first of a round taking up the one before; `first_in`: what
/// the very first turn says instead (None: its point). Returns the server
/// and every turn's reply as sent.
async fn speaking(speech: &'static Speech, first_in: Option<&'static str>) -> (FakeOpenAi, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let sent = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let log = sent.clone();
    let server = FakeOpenAi::start(move |r, _| {
        let text = r.prompt_text();
        if !text.contains("Note from the session") {
            return bmad_party::testing::stream_of(speech.other);
        }
        let mut sent = log.lock().unwrap();
        let n = sent.len();
        let point = speech.points[n % speech.points.len()];
        // The one before in this round, as the turn note names them.
        let before = ["Winston", "Johanna"]
            .into_iter()
            .find(|name| r.speaker().as_deref() != Some(*name) && text.contains(&format!("Already spoke this round: {name}")));
        let reply = match (n, first_in, before) {
            (0, Some(first), _) => first.to_string(),
            (_, _, Some(name)) => {
                let said = speech.points[(n + speech.points.len() - 1) % speech.points.len()];
                format!("{} {point}", speech.take_up.replace("{name}", name).replace("{said}", said))
            }
            _ => point.to_string(),
        };
        sent.push(reply.clone());
        bmad_party::testing::stream_of(&reply)
    })
    .await;
    (server, sent)
}

fn agent_texts(ev: &[serde_json::Value]) -> Vec<String> {
    ev.iter()
        .filter(|e| e["type"] == "agent_message")
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn korean_japanese_and_german_projects_hear_every_reply_whole_in_their_language() {
    for (language, speech) in [("Korean", &KOREAN), ("Japanese", &JAPANESE), ("German", &GERMAN)] {
        let (_d, root) = project_speaking(language);
        let (server, sent) = speaking(speech, None).await;
        let (code, ev, stderr) = headless_in(&root, &server, &["--max-rounds", "2"], "이전 / Migration?\nNext?\n").await;
        assert_eq!(code, 0, "{language}: {stderr}");
        assert!(
            server
                .received()
                .iter()
                .any(|r| r.system_prompt().contains(&format!("Write in {language}"))),
            "{language}: agents are told the language"
        );
        let shown = agent_texts(&ev);
        let sent = sent.lock().unwrap().clone();
        assert!(shown.len() >= 4, "{language}: {shown:?}");
        assert_eq!(shown, sent[..shown.len()], "{language}: every reply shown whole");
        assert!(
            shown.iter().any(|t| t.contains("Winston") || t.contains("Johanna")),
            "{language}: a take-up naming a colleague is shown: {shown:?}"
        );
        let passed: Vec<&serde_json::Value> = ev.iter().filter(|e| e["type"] == "agent_passed").collect();
        assert!(passed.is_empty(), "{language}: nobody passes: {passed:?} after {sent:?}");
        let file = event_text(&ev, "session_ended", "file");
        let s = bmad_party::session::load(Path::new(&file)).unwrap();
        assert!(
            s.fm.hygiene.is_empty(),
            "{language}: nothing cut, nobody asked again: {:?}",
            s.fm.hygiene
        );
        assert_eq!(s.fm.cleanup["default"].level, "full", "{language}: a local server's cleanup");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_english_reply_in_a_korean_party_is_still_the_wrong_language() {
    let (_d, root) = project_speaking("Korean");
    let english = "I think we should clean up the customer data before we move the payment system at all.";
    let (server, sent) = speaking(&KOREAN, Some(english)).await;
    let (code, ev, stderr) = headless_in(&root, &server, &["--max-rounds", "1"], "이전?\n").await;
    assert_eq!(code, 0, "{stderr}");
    let shown = agent_texts(&ev);
    assert!(!shown.iter().any(|t| t == english), "{shown:?}");
    assert_eq!(sent.lock().unwrap()[0], english);
    let file = event_text(&ev, "session_ended", "file");
    let s = bmad_party::session::load(Path::new(&file)).unwrap();
    assert_eq!(s.fm.hygiene.get("asked_again"), Some(&1), "{:?}", s.fm.hygiene);
    // Asked again, the speaker answered in Korean.
    assert!(shown.iter().any(|t| t == KOREAN.points[1]), "{shown:?}");
}
