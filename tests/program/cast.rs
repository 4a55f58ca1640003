//! `cast` through the real binary: a rehearsed draft reviewed from stdin
//! and saved where `--list-agents`, `--list-parties` and `--party` find it;
//! a scripted model's bad drafts asked again with their flaws, or refused
//! with nothing saved; a cast distilled from a document, each persona
//! quoting its lines.

use bmad_party::testing::{stream_of, FakeOpenAi};

use crate::process;

/// A stake and a self for each title the tests use, each unlike the others.
fn stake(title: &str) -> (&'static str, &'static str) {
    match title {
        "Baker" => (
            "Bakes from four in the morning and sells out by noon.",
            "Has run the ovens for twenty years.",
        ),
        "Nurse" => (
            "Finishes night shifts when every shop is still shut.",
            "Works at the hospital across the river.",
        ),
        "Owner" => (
            "Pays the rent and the wages out of thin margins.",
            "Bought the shop after the old owner retired.",
        ),
        _ => (
            "Buys a loaf on the way to work each weekday.",
            "Lives two streets away with three children.",
        ),
    }
}

fn persona(name: &str, title: &str, lines: &[u32]) -> serde_json::Value {
    let (role, identity) = stake(title);
    serde_json::json!({
        "name": name, "title": title, "icon": "🥐",
        "role": role,
        "identity": identity,
        "communication_style": "Plain and short.",
        "principles": ["Fresh bread first", "Say what it costs"],
        "lines": lines,
    })
}

fn cast_of(names: &[(&str, &str, &[u32])]) -> String {
    let personas: Vec<_> = names.iter().map(|(n, t, l)| persona(n, t, l)).collect();
    serde_json::json!({ "name": "Bakery hours", "scene": "Saturday, six in the morning.", "personas": personas }).to_string()
}

fn cast_cmd(dir: &std::path::Path, server: Option<&FakeOpenAi>, args: &[&str]) -> tokio::process::Command {
    let mut cmd = process::party(dir);
    match server {
        Some(s) => {
            cmd.env("OPENAI_BASE_URL", s.base_url()).env("OPENAI_MODEL", "test-model");
        }
        None => {
            cmd.arg("--rehearsal");
        }
    }
    cmd.arg("cast").args(args);
    cmd
}

fn listing(dir: &std::path::Path, flag: &str) -> tokio::process::Command {
    let mut cmd = process::party(dir);
    cmd.arg(flag);
    cmd
}

/// Every file under the user's config folder, by name.
fn saved(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for sub in ["agents", "parties"] {
        if let Ok(d) = std::fs::read_dir(dir.join(".config/bmad-party").join(sub)) {
            out.extend(d.flatten().map(|e| format!("{sub}/{}", e.file_name().to_string_lossy())));
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn a_rehearsed_cast_is_reviewed_saved_listed_and_started_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let review = "drop 2\nedit 1 name Maya\nedit 9 name X\nscene A street meeting on a Sunday.\nkeep\n";
    let (code, stdout, stderr) =
        process::run_with_input(cast_cmd(d, None, &["A tool library for our street", "--size", "4"]), review).await;
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stderr.contains("Drafting a cast of 4 for “A tool library for our street” with rehearsal"),
        "{stderr}"
    );
    assert!(stderr.contains("`9`: there are personas 1 to 3"), "a bad place is named: {stderr}");
    let first: serde_json::Value = serde_json::Deserializer::from_str(&stdout).into_iter().next().unwrap().unwrap();
    assert_eq!(
        first["personas"].as_array().unwrap().len(),
        4,
        "the draft is shown as JSON: {stdout}"
    );
    assert!(
        stdout.contains("is already someone in the program: saved as Maya ("),
        "Maya is the analyst's name: {stdout}"
    );
    let id = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Start it: bmad-party --party "))
        .expect("how to start it")
        .to_string();
    assert_eq!(saved(d).len(), 4, "three agents and a party: {:?}", saved(d));

    let (code, listed, problems) = process::run_with_input(listing(d, "--list-parties"), "").await;
    assert_eq!(code, 0, "{problems}");
    assert!(listed.contains(&id) && listed.contains("A street meeting on a Sunday."), "{listed}");
    assert!(
        !format!("{listed}{problems}").to_lowercase().contains("problem"),
        "{listed}{problems}"
    );
    let (code, agents, problems) = process::run_with_input(listing(d, "--list-agents"), "").await;
    assert_eq!(code, 0, "{problems}");
    for file in saved(d).iter().filter_map(|f| f.strip_prefix("agents/")) {
        let id = file.trim_end_matches(".md");
        assert!(agents.contains(&format!("@{id} ")), "{id} is listed: {agents}");
    }
    assert!(!agents.to_lowercase().contains("problem"), "{agents}");

    let mut party = process::party(d);
    party.args([
        "--rehearsal",
        "--party",
        &id,
        "--non-interactive",
        "--rounds",
        "1",
        "Where do we keep the ladder?",
    ]);
    let (code, out, err) = process::run_with_input(party, "").await;
    assert_eq!(code, 0, "{out}{err}");
    let session = process::session_files(&d.join("_bmad-output"));
    let text = std::fs::read_to_string(session.first().expect("the session")).unwrap();
    assert!(text.contains(&format!("party: {id}")), "held by the drafted party: {text}");
    assert!(text.contains("Maya ("), "the cast speaks: {text}");
}

#[tokio::test]
async fn bad_drafts_are_asked_again_with_their_flaws_then_the_good_one_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOpenAi::start(|_, _| stream_of("{}")).await;
    server.push([
        stream_of("Sure! Here are some ideas for your room."),
        stream_of(&cast_of(&[("Ana", "Baker", &[]), ("Maya", "Regular", &[])])),
        stream_of(&format!(
            "```json\n{}\n```",
            cast_of(&[("Ana", "Baker", &[]), ("Bo", "Regular", &[]), ("Cy", "Owner", &[])])
        )),
    ]);
    let (code, stdout, stderr) =
        process::run_with_input(cast_cmd(dir.path(), Some(&server), &["Opening hours", "--size", "3", "--yes"]), "").await;
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stderr.contains("(the answer held no JSON object); asking again (2 of 3)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("it has 2 personas; the room needs 3 to 6; Maya is the name of someone already"),
        "{stderr}"
    );
    let asked = server.received();
    assert_eq!(asked.len(), 3);
    assert!(
        asked[0].body["response_format"]["json_schema"]["schema"]["properties"]["personas"].is_object(),
        "the cast's schema is sent"
    );
    assert_eq!(asked[0].body.get("seed"), None, "a first draft has no seed");
    assert_eq!(asked[2].body["seed"], 3, "a draft asked again is sampled anew");
    let last = asked[2].body["messages"].as_array().unwrap();
    assert!(
        last.iter()
            .any(|m| m["content"].as_str().unwrap_or("").contains("- the answer held no JSON object")),
        "{last:?}"
    );
    // A list of names a small model is told to avoid is a list it copies:
    // a taken name is said only when a draft took one.
    assert!(
        !asked[0].prompt_text().contains("Maya") && asked[0].prompt_text().contains("Opening hours"),
        "{}",
        asked[0].prompt_text()
    );
    assert!(last.iter().any(|m| m["content"]
        .as_str()
        .unwrap_or("")
        .contains("- Maya is the name of someone already")));
    assert_eq!(
        saved(dir.path()),
        ["agents/ana.md", "agents/bo.md", "agents/cy.md", "parties/bakery-hours.yaml"]
    );
}

#[tokio::test]
async fn a_cast_with_no_usable_draft_is_refused_and_nothing_is_saved() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOpenAi::start(|_, _| stream_of(&cast_of(&[("Ana", "Baker", &[]), ("Ana", "Baker", &[])]))).await;
    let (code, stdout, stderr) = process::run_with_input(cast_cmd(dir.path(), Some(&server), &["Opening hours", "--yes"]), "").await;
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stderr.contains("No usable cast after 3 drafts, so nothing was saved"), "{stderr}");
    assert!(stderr.contains("two personas are called Ana"), "{stderr}");
    assert_eq!(server.received().len(), 3);
    assert!(saved(dir.path()).is_empty(), "{:?}", saved(dir.path()));
    assert!(stdout.is_empty(), "no draft is shown: {stdout}");
}

#[tokio::test]
async fn a_cast_from_a_document_quotes_each_personas_lines_even_when_the_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("interviews.md"),
        "# Interviews\n\nAna (baker): I start at four; closing at six means I never see my kids.\nBo (nurse): after night shift the shop is shut.\nCy (owner): Sunday opening costs double wages.\n",
    )
    .unwrap();
    let server = FakeOpenAi::start(|_, _| stream_of("{}")).await;
    server.refuse_response_format();
    server.push([stream_of(&cast_of(&[
        ("Ana", "Baker", &[2]),
        ("Bo", "Nurse", &[3]),
        ("Cy", "Owner", &[4]),
    ]))]);
    let (code, stdout, stderr) = process::run_with_input(
        cast_cmd(
            dir.path(),
            Some(&server),
            &["Opening hours", "--from", "interviews.md", "--size", "3"],
        ),
        "keep\n",
    )
    .await;
    assert_eq!(code, 0, "{stdout}{stderr}");
    let asked = server.received();
    let sent = asked.last().unwrap();
    assert!(sent.body.get("response_format").is_none(), "asked again without the refused field");
    assert!(
        sent.prompt_text().contains("3: Bo (nurse): after night shift the shop is shut."),
        "{}",
        sent.prompt_text()
    );
    assert!(
        stdout.contains("\"interviews.md:4: Bo (nurse): after night shift the shop is shut.\""),
        "{stdout}"
    );
    let bo = std::fs::read_to_string(dir.path().join(".config/bmad-party/agents/bo.md")).unwrap();
    assert!(
        bo.contains("- interviews.md:4: “Bo (nurse): after night shift the shop is shut.”"),
        "{bo}"
    );
}

#[tokio::test]
async fn a_document_that_cannot_be_read_stops_the_cast_before_the_model_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.bin"), [0u8, 159, 146, 150]).unwrap();
    let server = FakeOpenAi::start(|_, _| stream_of("{}")).await;
    let (code, _, stderr) =
        process::run_with_input(cast_cmd(dir.path(), Some(&server), &["Hours", "--from", "notes.bin", "--yes"]), "").await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("notes.bin"), "{stderr}");
    assert!(server.received().is_empty());
}

#[tokio::test]
async fn the_ready_made_rooms_list_in_both_languages_and_start_with_their_own_members() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (code, en, err) = process::run_with_input(listing(d, "--list-parties"), "").await;
    assert_eq!(code, 0, "{err}");
    assert!(
        en.contains("code-review “Code-review crew”") && en.contains("🛡️ Nadia, ⏱️ Bartek, 🧭 Ines, 🔨 Kenji"),
        "{en}"
    );
    assert!(en.contains("hard-decision “Hard decision”"), "{en}");
    let mut zh = listing(d, "--list-parties");
    zh.args(["--lang", "zh"]);
    let (code, zh, err) = process::run_with_input(zh, "").await;
    assert_eq!(code, 0, "{err}");
    assert!(zh.contains("代码审查小组") && zh.contains("桌上有一个很容易同意"), "{zh}");
    let (_, agents, _) = process::run_with_input(listing(d, "--list-agents"), "").await;
    assert!(
        agents.contains("8 more to /invite") && !agents.to_lowercase().contains("problem"),
        "{agents}"
    );
    assert!(agents.contains("⏱️ Bartek") && agents.contains("🗝️ Mirela"), "{agents}");

    let mut party = process::party(d);
    party.args([
        "--rehearsal",
        "--party",
        "hard-decision",
        "--non-interactive",
        "--rounds",
        "1",
        "Rewrite the billing service in Go?",
    ]);
    let (code, out, err) = process::run_with_input(party, "").await;
    assert_eq!(code, 0, "{out}{err}");
    let session = process::session_files(&d.join("_bmad-output"));
    let text = std::fs::read_to_string(session.first().expect("the session")).unwrap();
    assert!(text.contains("party: hard-decision"), "{text}");
    let speakers = ["Esther", "Olu", "Ravi", "Mirela"];
    assert!(
        speakers.iter().any(|s| text.contains(&format!("**{s}**")) || text.contains(s)),
        "{text}"
    );
    assert!(!text.contains("Ingrid") && !text.contains("Kofi"), "only the room's members speak");
}

/// A copy of a fixture project, so runs write nothing into the repo.
fn project_copy(name: &str, into: &std::path::Path) -> std::path::PathBuf {
    fn copy(src: &std::path::Path, dst: &std::path::Path) {
        std::fs::create_dir_all(dst).unwrap();
        for e in std::fs::read_dir(src).unwrap().flatten() {
            let (s, d) = (e.path(), dst.join(e.file_name()));
            if s.is_dir() {
                copy(&s, &d)
            } else {
                std::fs::copy(&s, &d).map(drop).unwrap()
            }
        }
    }
    let root = into.join(name);
    copy(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name),
        &root,
    );
    root
}

#[tokio::test]
async fn a_cast_kept_into_a_bmad_project_is_one_of_its_party_groups() {
    let dir = tempfile::tempdir().unwrap();
    let root = project_copy("toml", dir.path());
    let mut cmd = process::party(&root);
    cmd.env("XDG_CONFIG_HOME", dir.path().join(".config"));
    cmd.args(["--rehearsal", "cast", "Opening hours for the bakery", "--yes", "--into", "bmad"]);
    let (code, stdout, stderr) = process::run_with_input(cmd, "").await;
    assert_eq!(code, 0, "{stdout}{stderr}");
    let file = root.join("_bmad/custom/bmad-party-mode.user.toml");
    assert!(stdout.contains(&file.display().to_string()), "{stdout}");
    let id = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Start it: bmad-party --party "))
        .expect("how to start it")
        .to_string();
    assert!(saved(dir.path()).is_empty(), "nothing in the config folders");

    let mut list = process::party(&root);
    list.env("XDG_CONFIG_HOME", dir.path().join(".config")).arg("--list-parties");
    let (code, listed, problems) = process::run_with_input(list, "").await;
    assert_eq!(code, 0, "{problems}");
    let group = listed
        .lines()
        .skip_while(|l| !l.trim_start().starts_with(&id))
        .nth(1)
        .unwrap_or_default();
    assert_eq!(group.matches(", ").count(), 3, "four members, all found: {listed}");
    assert!(
        !group.contains("not found") && !format!("{listed}{problems}").to_lowercase().contains("problem"),
        "{listed}{problems}"
    );
}

#[tokio::test]
async fn again_asks_for_one_persona_in_a_place_and_a_bad_one_leaves_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOpenAi::start(|_, _| stream_of("{}")).await;
    let dee = serde_json::json!({
        "name": "Dee", "title": "Neighbour", "icon": "🏠", "role": "Hears the ovens through the wall at four.",
        "identity": "Has lived above the bakery for thirty years.", "communication_style": "Gentle, then firm.",
        "principles": ["Sleep is not negotiable"]
    });
    server.push([
        stream_of(&cast_of(&[("Ana", "Baker", &[]), ("Bo", "Nurse", &[]), ("Cy", "Owner", &[])])),
        stream_of(&dee.to_string()),
        stream_of("no idea"),
        stream_of("still no idea"),
    ]);
    let (code, stdout, stderr) = process::run_with_input(
        cast_cmd(dir.path(), Some(&server), &["Opening hours", "--size", "3"]),
        "again 2\nagain 3\nkeep\n",
    )
    .await;
    assert_eq!(code, 0, "{stdout}{stderr}");
    let asked = server.received();
    assert_eq!(asked.len(), 4);
    let one = &asked[1];
    assert!(
        one.body["response_format"]["json_schema"]["schema"]["properties"]
            .get("personas")
            .is_none(),
        "one persona's schema"
    );
    assert!(
        one.prompt_text().contains("take the place of Bo") && one.prompt_text().contains("- Ana, Baker:"),
        "{}",
        one.prompt_text()
    );
    assert!(
        stderr.contains("No usable persona in place of Cy (the answer held no JSON object); Cy stays."),
        "{stderr}"
    );
    assert_eq!(
        saved(dir.path()),
        ["agents/ana.md", "agents/cy.md", "agents/dee.md", "parties/bakery-hours.yaml"]
    );
}

#[tokio::test]
async fn cast_inside_a_headless_party_is_reviewed_by_typed_lines_and_the_room_switches() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |format: &'static str, input: &'static str| {
        let mut cmd = process::party(d);
        cmd.args(["--rehearsal", "--headless", "--events", format, "--max-rounds", "3"]);
        process::run_with_input(cmd, input)
    };
    // Text: the draft numbered as review lines name it, and the lines' answers.
    let input = "Opening hours of the tool library\n/cast\ndrop 9\ndrop 2\nkeep\nWho keeps the ladder?\n";
    let (code, out, err) = run("text", input).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("🎭 [cast-1]") && out.contains(" 1. ") && out.contains("    role: "),
        "{out}"
    );
    assert!(out.contains("keep · drop N · again N · edit N FIELD TEXT · quit"), "{out}");
    assert!(out.contains("`9`: there are personas 1 to 4"), "{out}");
    assert!(out.contains("is left out."), "{out}");
    let id = out
        .split("(--party ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .expect("the saved party's id")
        .to_string();
    assert_eq!(saved(d).len(), 4, "three agents and a party: {:?}", saved(d));
    let session = process::session_files(&d.join("_bmad-output"));
    let text = std::fs::read_to_string(session.first().expect("the session")).unwrap();
    assert!(text.contains(&format!("party: {id}")), "the room is the kept cast: {text}");

    // JSON: the draft and its end as events; a review step as a JSON command.
    let input =
        "Opening hours of the tool library\n/cast A repair café\n{\"type\":\"cast\",\"request_id\":\"cast-1\",\"review\":\"quit\"}\n";
    let (code, out, err) = run("json", input).await;
    assert_eq!(code, 0, "{out}{err}");
    let events: Vec<serde_json::Value> = out.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let draft = events.iter().find(|e| e["type"] == "cast_draft").expect("a cast_draft event");
    assert!(draft["draft"]["personas"].as_array().is_some_and(|p| p.len() == 4), "{draft}");
    assert!(events.iter().any(|e| e["type"] == "awaiting_input" && e["kind"] == "review"));
    let closed = events.iter().find(|e| e["type"] == "cast_closed").expect("cast_closed");
    assert!(closed.get("party").is_none(), "nothing kept: {closed}");
    assert_eq!(saved(d).len(), 4, "nothing more saved");
}
