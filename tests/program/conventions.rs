//! A terminal user's conventions: a user config under a project's (key by
//! key), `init` writing one the program then reads, shell completions and a
//! man page from the same command line, help in English and Chinese, and
//! the table of rules in `docs/rules.md` naming only what exists.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::process;

use process::*;

/// The user config of a child run from `cwd` (its XDG_CONFIG_HOME is `cwd/.config`).
fn user_config(cwd: &std::path::Path) -> std::path::PathBuf {
    cwd.join(".config").join("bmad-party").join("config.yaml")
}

/// The `max_rounds` and facilitator's name a headless party in `cwd` ran with.
async fn party_settings(cwd: &std::path::Path, extra: &[&str]) -> (u64, String) {
    let mut cmd = party(cwd);
    cmd.args(["--headless", "--events", "json"]).args(extra);
    let (code, stdout, stderr) = run_with_input(cmd, "Topic\n*exit\n").await;
    assert_eq!(code, 0, "{stderr}");
    let ev = json_lines(&stdout);
    let round = ev.iter().find(|e| e["type"] == "round_started").expect("a round");
    let started = ev.iter().find(|e| e["type"] == "session_started").expect("started");
    (
        round["max_rounds"].as_u64().unwrap(),
        started["user_name"].as_str().unwrap().to_string(),
    )
}

#[tokio::test]
async fn init_writes_a_starter_the_program_then_reads_under_the_projects_config() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let (code, stdout, stderr) = run_with_input(
        {
            let mut c = party(cwd);
            c.arg("init");
            c
        },
        "",
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    let path = user_config(cwd);
    assert!(stdout.contains(&path.display().to_string()), "says where: {stdout}");
    let starter = std::fs::read_to_string(&path).unwrap();
    assert!(starter.lines().all(|l| l.trim().is_empty() || l.starts_with('#')), "all comments");
    assert!(!starter.contains("OPENAI_API_KEY=") && !starter.contains("api_key"), "never a key");

    // The starter as written changes nothing.
    assert_eq!(party_settings(cwd, &[]).await.0, 10);

    // A second init keeps the file; --force keeps the old one aside.
    let mut again = party(cwd);
    again.arg("init");
    let (code, _, stderr) = run_with_input(again, "").await;
    assert_eq!(code, 1);
    assert!(stderr.contains("already there") && stderr.contains("--force"), "{stderr}");

    // The facilitator uncomments two settings.
    let edited = starter
        .replace("# bmad:", "bmad:")
        .replace("#   party_mode:", "  party_mode:")
        .replace("#     user_name: Ada", "    user_name: Tomás")
        .replace("#     max_rounds: 10", "    max_rounds: 4");
    std::fs::write(&path, &edited).unwrap();
    assert_eq!(
        party_settings(cwd, &[]).await,
        (4, "Tomás".into()),
        "the program reads the user's config"
    );

    // A project's config overrides it key by key: the name, not the rounds.
    let project = cwd.join("workflows").join("party-mode");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("config.yaml"), "bmad:\n  party_mode:\n    user_name: Grace\n").unwrap();
    assert_eq!(party_settings(cwd, &[]).await, (4, "Grace".into()));
    // --config likewise, and flags over both.
    let other = cwd.join("other.yaml");
    std::fs::write(&other, "bmad:\n  party_mode:\n    max_rounds: 6\n").unwrap();
    let with = ["--config", other.to_str().unwrap(), "--user-name", "Lin"];
    assert_eq!(party_settings(cwd, &with).await, (6, "Lin".into()));

    // A mistake in the user's file names that file and line.
    std::fs::write(&path, "bmad:\n  party_mode:\n    max_rounds: many\n").unwrap();
    let mut bad = party(cwd);
    bad.args(["--headless"]);
    let (code, _, stderr) = run_with_input(bad, "Topic\n").await;
    assert_eq!(code, 2);
    assert!(stderr.contains(&format!("{}:3:", path.display())), "{stderr}");

    let mut forced = party(cwd);
    forced.args(["init", "--force"]);
    let (code, _, stderr) = run_with_input(forced, "").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        std::fs::read_to_string(path.with_extension("yaml.bak")).unwrap().contains("many"),
        "the old file is kept"
    );
}

#[test]
fn completions_for_each_shell_come_from_the_command_line() {
    for (shell, mark) in [
        ("bash", "complete -F _bmad__party"),
        ("zsh", "#compdef bmad-party"),
        ("fish", "complete -c bmad-party"),
    ] {
        let out = std::process::Command::new(BIN).args(["completions", shell]).output().unwrap();
        assert!(out.status.success());
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(script.contains(mark), "{shell}: {script}");
        for word in ["export", "sessions", "resume", "max-rounds"] {
            assert!(script.contains(word), "{shell} completes {word}");
        }
    }
    // Bash itself completes with the script: `bmad-party ex<Tab>`, `--max-r<Tab>`.
    let complete = |words: &str| {
        let script = format!(
            "source <(\"$BIN\" completions bash); COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             _bmad__party bmad-party \"${{COMP_WORDS[-1]}}\" \"${{COMP_WORDS[-2]}}\"; echo \"${{COMPREPLY[@]}}\""
        );
        let out = std::process::Command::new("bash")
            .env("BIN", BIN)
            .args(["-c", &script])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(complete("bmad-party ex"), "export");
    assert_eq!(complete("bmad-party --max-r"), "--max-rounds");
    assert_eq!(complete("bmad-party completions f"), "fish");
    assert_eq!(complete("bmad-party export --m"), "--markdown", "a subcommand's own options");
    let out = std::process::Command::new(BIN).args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "an unknown shell is refused");
}

#[test]
fn the_man_page_comes_from_the_same_command_line() {
    let out = std::process::Command::new(BIN).arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.contains(".TH bmad-party 1"), "{page}");
    for needle in ["\\-\\-resume", "\\-\\-max\\-rounds", "export", "NO_COLOR", "OPENAI_BASE_URL"] {
        assert!(page.contains(needle), "the man page names {needle}");
    }
    for section in [".SH ENVIRONMENT", ".SH \"EXIT STATUS\"", ".SH FILES"] {
        assert!(page.contains(section), "the man page has {section}: {page}");
    }
    assert!(!page.contains(".SH EXTRA"), "no catch-all section: {page}");
}

#[test]
fn help_names_every_exit_status_in_both_languages() {
    for (lang, title) in [("en", "Exit status:"), ("zh", "退出码：")] {
        let out = std::process::Command::new(BIN).args(["--lang", lang, "--help"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let at = text.find(title).unwrap_or_else(|| panic!("{lang}: {text}"));
        let section: Vec<&str> = text[at..].lines().skip(1).take_while(|l| !l.trim().is_empty()).collect();
        let codes: Vec<&str> = section.iter().filter_map(|l| l.split_whitespace().next()).collect();
        assert_eq!(codes, ["0", "1", "2", "3", "4", "130"], "{lang}: {text}");
    }
}

#[test]
fn subcommand_help_speaks_english_and_chinese() {
    let out = std::process::Command::new(BIN)
        .args(["--lang", "zh", "export", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("用法：") && text.contains("参数：") && text.contains("显示帮助") && text.contains("导出"),
        "{text}"
    );
    assert!(!text.contains("Usage") && !text.contains("Print help"), "{text}");
    let out = std::process::Command::new(BIN)
        .env("LANG", "C.UTF-8")
        .args(["export", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Usage:") && text.contains("clean Markdown transcript"), "{text}");
}

/// The tests (`#[test]`, `#[tokio::test…]`) defined in the Rust files under `dir`.
fn tests_under(dir: &std::path::Path, found: &mut std::collections::HashSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            tests_under(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let source = std::fs::read_to_string(&path).unwrap();
            for piece in source.split("#[test]").skip(1).chain(source.split("#[tokio::test").skip(1)) {
                found.extend(functions_in(piece).into_iter().take(1));
            }
        }
    }
}

/// Whether `key` (`consensus.threshold`, `llm.embedding_model`) is a field
/// path of the raw config the loader reads: each part a field of the
/// struct the part before it names, from `RawParty` (or `RawBmad` for
/// `llm.`).
fn config_has(loader: &str, key: &str) -> bool {
    let body = |name: &str| {
        let start = loader.find(&format!("struct {name} {{"))?;
        let rest = &loader[start..];
        Some(rest[..rest.find("\n}")?].to_string())
    };
    let mut within = if key.starts_with("llm.") { "RawBmad" } else { "RawParty" }.to_string();
    for part in key.split('.') {
        let Some(fields) = body(&within) else { return false };
        let Some(line) = fields.lines().find(|l| l.trim_start().starts_with(&format!("{part}: "))) else {
            return false;
        };
        // The struct the field holds, if any: the next part is looked up there.
        if let Some(at) = line.find("Raw") {
            within = line[at..].chars().take_while(|c| c.is_alphanumeric()).collect();
        }
    }
    true
}

fn functions_in(source: &str) -> Vec<String> {
    source
        .split("fn ")
        .skip(1)
        .filter_map(|rest| {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// The `code` spans of a table cell.
fn spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

#[test]
fn the_rules_table_names_files_functions_keys_and_tests_that_exist() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/rules.md")).unwrap();
    let loader = std::fs::read_to_string(root.join("src/config/load.rs")).unwrap();
    let mut tests = std::collections::HashSet::new();
    tests_under(&root.join("tests"), &mut tests);
    tests_under(&root.join("src"), &mut tests);
    let rows: Vec<Vec<&str>> = doc
        .lines()
        .skip_while(|l| !l.starts_with("| Rule |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split(" | ").collect())
        .collect();
    assert!(rows.len() >= 20, "the table has a row per rule: {} rows", rows.len());
    let mut problems = Vec::new();
    for row in &rows {
        let [rule, keys, home, named] = row[..] else {
            panic!("a row of four cells: {row:?}");
        };
        // A key is a field path of the raw config the loader reads; a rule
        // without one says so with "—".
        if spans(keys).is_empty() && keys.trim() != "—" {
            problems.push(format!("{rule}: no config key and no \"—\""));
        }
        for key in spans(keys) {
            if !config_has(&loader, key) {
                problems.push(format!("{rule}: no config key `{key}` in src/config/load.rs"));
            }
        }
        let [file, function] = spans(home)[..] else {
            panic!("{rule}: the home is a file and a function: {home}");
        };
        match std::fs::read_to_string(root.join(file)) {
            Err(e) => problems.push(format!("{rule}: {file}: {e}")),
            Ok(source) if !functions_in(&source).iter().any(|f| f == function) => {
                problems.push(format!("{rule}: no fn {function} in {file}"))
            }
            Ok(_) => {}
        }
        let named = spans(named);
        assert!(!named.is_empty(), "{rule}: at least one test");
        for test in named {
            if !tests.contains(test) {
                problems.push(format!("{rule}: no test {test}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "docs/rules.md names what does not exist:\n{}",
        problems.join("\n")
    );
}
