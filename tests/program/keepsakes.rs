//! Keepsakes: a finished session exported as a page and as a transcript,
//! from the command line and from the TUI's final screen, and the page
//! rendered by a real browser (headless Chromium): model markup stays text,
//! nothing is fetched.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::common;
use crate::process;
use crate::screen;

use std::path::{Path, PathBuf};
use std::time::Instant;

use bmad_party::config::Config;
use bmad_party::session::TurnKind;
use bmad_party::testing::{chunk, stream_events, FakeOpenAi};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The browser, when this machine has one (CI installs it).
fn chromium() -> Option<PathBuf> {
    let found = ["chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| std::env::split_paths(&paths).map(|d| d.join(name)).find(|p| p.is_file()))
        });
    if found.is_none() {
        assert!(std::env::var_os("CI").is_none(), "CI installs headless Chromium (see .ci/run)");
        eprintln!("no headless Chromium here: the browser half of this test is skipped");
    }
    found
}

// No sandbox and no /dev/shm: CI machines run as root in small containers.
const COMMON: [&str; 5] = [
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--disable-gpu",
    "--hide-scrollbars",
    "--no-first-run",
];

fn run_browser(browser: &Path, args: &[&str]) -> Vec<u8> {
    let out = std::process::Command::new(browser)
        .args(COMMON)
        .args(args)
        .output()
        .expect("run chromium");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// The colour of the page's corner in a screenshot, and its width.
fn corner(png: &Path) -> ([u8; 3], u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).expect("a screenshot")));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    ([buf[0], buf[1], buf[2]], info.width)
}

/// Runs the browser on `page`: its DOM as the browser built it; screenshots
/// at `png` in the light scheme and beside it in the dark one (their
/// backgrounds differ as the style sheet says); and a printed PDF.
fn browse(browser: &Path, page: &Path, png: &Path) -> String {
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let dom = run_browser(browser, &["--dump-dom", &url]);
    let dark = png.with_extension("dark.png");
    for (scheme, shot) in [("1", png), ("0", dark.as_path())] {
        let blink = format!("--blink-settings=preferredColorScheme={scheme}");
        run_browser(
            browser,
            &["--window-size=1000,1400", &blink, &format!("--screenshot={}", shot.display()), &url],
        );
    }
    let (light_bg, width) = corner(png);
    assert_eq!(width, 1000, "drawn at the window's width");
    assert_eq!(light_bg, [0xfb, 0xfa, 0xf7], "the light background");
    assert_eq!(corner(&dark).0, [0x17, 0x18, 0x1b], "the dark background");
    let pdf = png.with_extension("pdf");
    run_browser(
        browser,
        &["--no-pdf-header-footer", &format!("--print-to-pdf={}", pdf.display()), &url],
    );
    assert!(std::fs::read(&pdf).expect("a PDF").starts_with(b"%PDF"), "it prints");
    String::from_utf8_lossy(&dom).into_owned()
}

/// Where the test keeps its screenshots, to look at.
fn shots() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("keepsakes");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn a_finished_party_exports_every_turn_to_a_page_and_a_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut cmd = process::party(dir.path());
    cmd.args(["--headless", "--output"]).arg(&out);
    let (code, _, stderr) = process::run_with_input(cmd, "How should we price the API?\nAnd for students?\n*exit\n").await;
    assert_eq!(code, 0, "{stderr}");
    let file = process::session_files(&out).pop().expect("a session");
    let session = bmad_party::session::load(&file).unwrap();
    assert!(session.fm.workflow_completed);
    assert!(!session.fm.cast.is_empty(), "the cast is saved with the session");

    let mut cmd = process::party(dir.path());
    cmd.arg("export").arg(&file);
    let (code, stdout, stderr) = process::run_with_input(cmd, "").await;
    assert_eq!(code, 0, "{stderr}");
    let page_path = PathBuf::from(stdout.trim());
    assert_eq!(
        page_path,
        file.with_extension("html"),
        "beside the session, and the path is printed"
    );
    let page = std::fs::read_to_string(&page_path).unwrap();
    let shown = |k: TurnKind| {
        matches!(
            k,
            TurnKind::Agent | TurnKind::Farewell | TurnKind::Question | TurnKind::Facilitator | TurnKind::Highlights | TurnKind::Closing
        )
    };
    let cards = session.turns.iter().filter(|t| shown(t.kind)).count();
    assert_eq!(page.matches("<article class=\"turn").count(), cards, "one card a turn");
    for t in session.turns.iter().filter(|t| t.kind == TurnKind::Agent) {
        let who = session.fm.cast.iter().find(|c| Some(&c.id) == t.agent.as_ref()).unwrap();
        assert!(page.contains(&format!(
            "<span class=\"name\">{}</span><span class=\"title\">{}</span>",
            who.name, who.title
        )));
    }

    let transcript_path = dir.path().join("t.md");
    let mut cmd = process::party(dir.path());
    cmd.arg("export").arg(&file).arg("--markdown").arg("-o").arg(&transcript_path);
    let (code, _, stderr) = process::run_with_input(cmd, "").await;
    assert_eq!(code, 0, "{stderr}");
    let md = std::fs::read_to_string(&transcript_path).unwrap();
    for t in session
        .turns
        .iter()
        .filter(|t| matches!(t.kind, TurnKind::Agent | TurnKind::Farewell | TurnKind::Facilitator))
    {
        assert!(md.contains(t.text.trim()), "missing from the transcript: {}", t.text);
    }
    assert!(!md.contains("<!--") && !md.starts_with("---"), "no markers, no frontmatter");

    let mut cmd = process::party(dir.path());
    cmd.args(["export", "no-such.md"]);
    let (code, _, stderr) = process::run_with_input(cmd, "").await;
    assert_eq!(code, 1);
    assert!(stderr.contains("no-such.md"), "{stderr}");

    if let Some(browser) = chromium() {
        let dom = browse(&browser, &page_path, &shots().join("rehearsal.png"));
        assert!(dom.contains("How should we price the API?") && dom.contains("Round 2"), "{dom}");
    }
}

#[tokio::test]
async fn model_markup_is_shown_as_text_in_a_real_browser() {
    let reply = vec![
        chunk(
            Some("Ship it. <script>document.title='pwned'</script> <img src=\"http://127.0.0.1:9/x.png\" onerror=\"alert(1)\"> "),
            None,
        ),
        chunk(
            Some("![pixel](http://127.0.0.1:9/p.gif) [click](javascript:alert(1)) **bold** <b onclick=x>b</b>"),
            None,
        ),
        chunk(None, Some("stop")),
    ];
    let server = FakeOpenAi::start(move |_, _| stream_events(reply.clone())).await;
    let party = common::Party::new(&server);
    let events = party.run(vec![common::Step::Say("Topic")]).await;
    let file = common::session_file(&events);
    let page_path = bmad_party::export::export(&file, bmad_party::export::Format::Html, None, |_| Vec::new()).unwrap();
    let page = std::fs::read_to_string(&page_path).unwrap();
    assert!(page.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;"));
    assert!(!page.contains("<script") && !page.contains("<img") && !page.contains("onclick=x>"));
    assert!(!page.contains("javascript:") && !page.contains("127.0.0.1:9/p.gif\""));
    let Some(browser) = chromium() else { return };
    let dom = browse(&browser, &page_path, &shots().join("markup.png"));
    let body = &dom[dom.find("<body").expect("a body")..];
    assert!(
        !body.contains("<script") && !body.contains("<img") && !body.contains("<b onclick"),
        "{body}"
    );
    assert!(
        body.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;"),
        "shown as text: {body}"
    );
    assert!(body.contains("<strong>bold</strong>"), "Markdown still renders");
    assert!(!dom.contains("<title>pwned"), "no script ran");
}

#[tokio::test]
async fn the_final_screen_keeps_the_session_as_a_page_or_a_transcript() {
    let (events, dir) = screen::rehearsal_events(&["Topic", "*exit"], Config::default()).await;
    let mut app = screen::app_from(&events);
    let file = common::session_file(&events);
    let key = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
    let out = app.on_key(key('h'), Instant::now());
    assert!(!out.quit, "H keeps the final screen open");
    let page = file.with_extension("html");
    assert!(std::fs::read_to_string(&page).unwrap().contains("<!DOCTYPE html>"));
    assert!(!app.on_key(key('m'), Instant::now()).quit);
    let transcript = file.with_file_name(format!("{}.transcript.md", file.file_stem().unwrap().to_string_lossy()));
    assert!(transcript.is_file());
    let text = screen::screen_text(&screen::render(&app, 200, 30));
    assert!(text.contains(&format!("Web page: {}", page.display())), "{text}");
    assert!(text.contains(&format!("Transcript: {}", transcript.display())), "{text}");
    assert!(app.on_key(key('q'), Instant::now()).quit, "any other key quits");
    drop(dir);
}

#[tokio::test]
async fn no_color_draws_everything_in_the_terminals_colours() {
    let (events, _dir) = screen::rehearsal_events(&["Topic"], Config::default()).await;
    // Mid-round: panes, names and the status bar in colour.
    let upto = screen::prefix_until(&events, |e| matches!(e, bmad_party::engine::Event::AgentToken { .. }));
    let mut app = screen::app_from(&upto);
    let coloured = screen::render(&app, 100, 30);
    let cells = |t: &ratatui::Terminal<ratatui::backend::TestBackend>| t.backend().buffer().content.clone();
    use ratatui::style::{Color, Modifier};
    assert!(cells(&coloured).iter().any(|c| c.fg != Color::Reset), "colour without NO_COLOR");
    let had_background = cells(&coloured).iter().filter(|c| c.bg != Color::Reset).count();
    app.no_color = true;
    let plain = screen::render(&app, 100, 30);
    for c in cells(&plain) {
        assert_eq!((c.fg, c.bg), (Color::Reset, Color::Reset), "{c:?}");
    }
    let reversed = cells(&plain).iter().filter(|c| c.modifier.contains(Modifier::REVERSED)).count();
    assert!(reversed >= had_background, "what a background set apart is reversed instead");
    assert_eq!(screen::screen_text(&plain), screen::screen_text(&coloured), "the same text");
}
