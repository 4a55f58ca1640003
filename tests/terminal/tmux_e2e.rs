//! Runs tests/e2e/tmux.sh against the binary cargo just built: the real
//! program in a real terminal, driven with tmux send-keys / capture-pane.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

#[test]
fn full_screen_session_in_a_real_terminal() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/e2e/tmux.sh");
    let out = std::process::Command::new("bash")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_bmad-party"))
        .output()
        .expect("bash runs the tmux script");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "tmux end-to-end test failed (it needs tmux; as root it installs it):\n{text}"
    );
    assert!(text.contains("tmux e2e: ok"), "{text}");
}
