//! A disk that fills up mid-party: the real binary on a small tmpfs where
//! the machine lets us mount one (root in a container), else with the
//! store's injected ENOSPC on the output folder (debug builds). Nothing is
//! lost: the whole session is in the fallback place, and it says where.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches: a broken expectation should stop them loudly"
)]

use crate::process;

use std::path::{Path, PathBuf};
use std::process::Command as Std;

use process::*;

/// A 64 KB tmpfs at `dir`, filled to leave two pages: the first saves fit,
/// and once the session outgrows a page its next version does not.
struct SmallDisk(PathBuf);

impl SmallDisk {
    fn mount(dir: &Path) -> Option<SmallDisk> {
        std::fs::create_dir_all(dir).ok()?;
        let mounted = Std::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs"])
            .arg(dir)
            .stderr(std::process::Stdio::null())
            .status()
            .ok()?
            .success();
        if !mounted {
            return None;
        }
        let disk = SmallDisk(dir.to_path_buf());
        std::fs::create_dir_all(dir.join("party-mode")).ok()?;
        let filler = dir.join("filler");
        // Page by page until the disk refuses, then give two pages back.
        let page = vec![b'x'; 4096];
        let mut pages = 0;
        while std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&filler)
            .and_then(|mut f| std::io::Write::write_all(&mut f, &page).and_then(|()| f.sync_all()))
            .is_ok()
        {
            pages += 1;
        }
        let f = std::fs::OpenOptions::new().write(true).open(&filler).ok()?;
        f.set_len((pages.max(2) - 2) * 4096).ok()?;
        Some(disk)
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Std::new("umount").arg(&self.0).status();
    }
}

#[tokio::test]
async fn a_disk_that_fills_up_loses_nothing_the_whole_session_goes_to_the_state_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let disk = SmallDisk::mount(&out);
    let mut cmd = party(dir.path());
    if disk.is_none() {
        eprintln!("no tmpfs here: the store's injected ENOSPC instead");
        cmd.env("BMAD_PARTY_FAULT", format!("disk-full:{}", out.display()));
    }
    cmd.args(["--headless", "--events", "json", "--output"])
        .arg(&out)
        .arg("--log-file")
        .arg(dir.path().join("party.log"));
    let messages = [
        "How should we name the plugin system?",
        "What about security, Ingrid?",
        "And the migration path for old plugins?",
        "Who maintains the registry?",
        "What would you test first?",
        "What do we tell users on day one?",
    ];
    let input = messages.join("\n") + "\n/exit\n";
    let (code, stdout, stderr) = run_with_input(cmd, &input).await;
    assert_eq!(code, 4, "not saved where asked: {stdout}\n{stderr}");
    let events = json_lines(&stdout);
    assert!(events.iter().any(|e| e["type"] == "save_failed"), "{stdout}");
    let end = events.iter().find(|e| e["type"] == "session_ended").unwrap();
    assert_eq!(end["saved"], false, "{end}");
    assert_eq!(end["completed"], false, "{end}");
    let elsewhere = PathBuf::from(end["elsewhere"].as_str().unwrap_or_else(|| panic!("where it is: {end}")));
    assert!(
        elsewhere.starts_with(dir.path().join(".state/bmad-party/sessions")),
        "{elsewhere:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "notice" && e["text"].as_str().unwrap_or("").contains(&elsewhere.display().to_string())),
        "said where, while it happened: {stdout}"
    );
    // The fallback holds the whole party, finished.
    let kept = bmad_party::session::load(&elsewhere).unwrap();
    assert!(kept.fm.workflow_completed, "the end is there too");
    for m in messages {
        assert!(kept.turns.iter().any(|t| t.text == m), "{m} kept");
    }
    // The file in place is an earlier complete version, never a torn one,
    // and no temp file is left beside it.
    let files = session_files(&out);
    assert_eq!(files.len(), 1, "{files:?}");
    let earlier = bmad_party::session::load(&files[0]).unwrap();
    assert!(earlier.turns.len() < kept.turns.len());
    let left = temp_files(&out);
    assert!(left.is_empty(), "{left:?}");
    drop(disk);
}
