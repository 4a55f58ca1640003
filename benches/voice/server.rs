//! The local model server the real-model benches run against: started
//! (`benches/voice/local-model.sh`) unless one already answers on the port.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

pub fn up(port: u16) -> bool {
    models(port).is_some()
}

/// The server's answer to `GET /v1/models`, when it answers 200.
fn models(port: u16) -> Option<String> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = write!(s, "GET /v1/models HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    let mut buf = String::new();
    let _ = s.read_to_string(&mut buf);
    (buf.starts_with("HTTP/1.1 200") || buf.starts_with("HTTP/1.0 200")).then_some(buf)
}

/// Starts the local model server unless one listens already (a busy one
/// answers late: it serves one request at a time), then waits until it
/// answers. One that listens but goes away before it answers (a run before
/// this one stopping its server) is replaced.
pub fn ensure(port: u16, model: &str, log: &Path) -> Option<Child> {
    let listening = || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
    let start_one = || {
        eprintln!(
            "bench: starting the local model server ({model}) on port {port}; the first time builds it (~10 min); its log: {}",
            log.display()
        );
        let out = std::fs::File::create(log).expect("server log");
        Command::new("bash")
            .arg("benches/voice/local-model.sh")
            .arg(port.to_string())
            .arg(model)
            .stdout(out.try_clone().expect("log"))
            .stderr(out)
            .spawn()
            .expect("bash runs local-model.sh")
    };
    let mut child = if listening() {
        eprintln!("bench: using the model server already on port {port}");
        None
    } else {
        Some(start_one())
    };
    let start = Instant::now();
    while !up(port) {
        assert!(
            start.elapsed() < Duration::from_secs(3600),
            "the model server did not answer within an hour"
        );
        if child.is_none() && !listening() {
            child = Some(start_one());
        }
        std::thread::sleep(Duration::from_secs(2));
    }
    // A server left running for another model would label every figure
    // wrongly: the one on the port must serve the model asked for.
    let listed = models(port).unwrap_or_default().to_lowercase();
    assert!(
        listed.contains(&model.to_lowercase()),
        "the server on port {port} does not serve the {model} model (it lists: {}); stop it or use --port",
        listed.lines().last().unwrap_or_default()
    );
    child
}
