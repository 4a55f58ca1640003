//! The server's side of the wire: reading requests off a kept-alive
//! connection and writing each scripted reply as a real endpoint would.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::*;

/// Serves requests on one connection until a reply ends it. Like real
/// endpoints, a complete reply keeps the connection open for the next
/// request; faults that break the connection (a cut, a stall, a hang) end it.
pub(super) async fn serve(mut sock: TcpStream, shared: Arc<Shared>) -> std::io::Result<()> {
    let mut buf = Vec::new();
    while let Some(rec) = read_request(&mut sock, &mut buf).await? {
        let reply = reply_to(&rec, &shared);
        if !respond(&mut sock, reply, &shared).await? {
            break;
        }
    }
    let _ = sock.shutdown().await;
    Ok(())
}

/// What the server answers `rec`, recorded with the requests of its kind:
/// a question about the server, a prompt read ahead, a side call, an
/// embeddings request, else a turn (scripted, else the fallback's).
fn reply_to(rec: &Recorded, shared: &Shared) -> Reply {
    if rec.method == "GET" {
        // Questions about the server (the context window) are no calls:
        // they neither take a scripted reply nor count as received.
        let route = shared
            .routes
            .lock()
            .expect("lock")
            .iter()
            .find(|(p, _)| *p == rec.path)
            .map(|(_, v)| v.clone());
        shared.gets.lock().expect("lock").push(rec.path.clone());
        return match route {
            Some(v) => Reply::Json(v),
            None => Reply::Status {
                code: 404,
                headers: vec![],
                body: r#"{"detail":"Not Found"}"#.into(),
            },
        };
    }
    if rec.body["max_tokens"].as_u64() == Some(1) {
        // A prompt read ahead (`engine::machine::warm`): its one token is
        // thrown away, so it takes no scripted reply and is kept apart
        // from the calls whose replies count. Answered as llama.cpp may
        // answer it, with no text at all (the token held back as part
        // of a character): no reply, yet nothing to ask again.
        shared.read_aheads.lock().expect("lock").push(rec.clone());
        return stream_events(vec![chunk(None, Some("length"))]);
    }
    // The side calls (a hearing, a reading or facts question, a
    // self-check): scripted apart from the turns, each kind in its queue.
    if rec.is_hearing() {
        return side_answer(rec, shared, &shared.heard, &shared.hearings, NEUTRAL_HEARING);
    }
    if rec.is_reading() {
        let question = !rec.is_letter_reading();
        let neutral = if question { FACTS_QUESTION } else { NEUTRAL_READING };
        return side_answer(rec, shared, &shared.read, &shared.readings, neutral);
    }
    if rec.is_self_check() {
        return side_answer(rec, shared, &shared.checked, &shared.checks, NEUTRAL_CHECK);
    }
    if rec.path.ends_with("/embeddings") {
        // Asked without a script (the engine probes for embeddings on
        // its own): answered by the fallback, kept apart from the turns.
        shared.embedded.lock().expect("lock").push(rec.clone());
        return (shared.fallback)(rec, 0);
    }
    let n = {
        let mut r = shared.received.lock().expect("lock");
        r.push(rec.clone());
        r.len()
    };
    // Other calls that ask for JSON (a drafted cast) meet the same refusal.
    if let Some(refused) = refusal(rec, shared) {
        return refused;
    }
    let scripted = shared.script.lock().expect("lock").pop_front();
    scripted.unwrap_or_else(|| (shared.fallback)(rec, n))
}

/// Reads one request; what follows it stays in `buf` for the next one.
/// None when the client closed the connection.
async fn read_request(sock: &mut TcpStream, buf: &mut Vec<u8>) -> std::io::Result<Option<Recorded>> {
    let mut tmp = [0u8; 8192];
    let header_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        let n = sock.read(&mut tmp).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&tmp[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or("").split_whitespace();
    let method = first.next().unwrap_or("").to_string();
    let path = first.next().unwrap_or("").to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':').map(|(k, v)| (k.trim().to_string(), v.trim().to_string())))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < header_end + len {
        let n = sock.read(&mut tmp).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    let body_end = (header_end + len).min(buf.len());
    let body = serde_json::from_slice(&buf[header_end..body_end]).unwrap_or(serde_json::Value::Null);
    buf.drain(..body_end);
    Ok(Some(Recorded {
        method,
        path,
        headers,
        body,
    }))
}

/// Sends one reply; false when the connection must not be used again.
async fn respond(sock: &mut TcpStream, reply: Reply, shared: &Shared) -> std::io::Result<bool> {
    match reply {
        Reply::Restart { down } => {
            let _ = shared.outage.send(down);
            // The accept loop drops this connection with the others.
            std::future::pending::<()>().await;
        }
        Reply::Status { code, headers, body } => sock.write_all(status_response(code, &headers, &body).as_bytes()).await?,
        Reply::Json(v) => {
            let body = v.to_string();
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
            sock.write_all(head.as_bytes()).await?;
        }
        Reply::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            return Ok(false);
        }
        Reply::ReadsPrompt { wait, events } => paced(sock, wait, Duration::ZERO, &events).await?,
        Reply::Paced { first, each, events } => paced(sock, first, each, &events).await?,
        Reply::RawStream { chunks, done } => {
            sock.write_all(STREAM_HEAD).await?;
            for c in chunks {
                write_chunk(sock, &c).await?;
            }
            end_stream(sock, done).await?;
        }
        Reply::Stream {
            events,
            done,
            delay,
            cut_after,
            stall_after,
        } => {
            sock.write_all(STREAM_HEAD).await?;
            for (i, ev) in events.iter().enumerate() {
                if cut_after == Some(i) {
                    // An abrupt end: no chunked terminator, as when a proxy dies.
                    return Ok(false);
                }
                if stall_after == Some(i) {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    return Ok(false);
                }
                if !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                write_chunk(sock, format!("data: {ev}\n\n").as_bytes()).await?;
            }
            end_stream(sock, done).await?;
        }
    }
    sock.flush().await?;
    Ok(true)
}

/// The head of a streamed reply: server-sent events, chunked.
const STREAM_HEAD: &[u8] =
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n";

/// A plain reply with `code`, the given headers (JSON unless one says
/// otherwise) and `body`.
fn status_response(code: u16, headers: &[(String, String)], body: &str) -> String {
    let mut head = format!("HTTP/1.1 {code} X\r\ncontent-length: {}\r\n", body.len());
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if !head.to_lowercase().contains("content-type") {
        head.push_str("content-type: application/json\r\n");
    }
    head.push_str("\r\n");
    head.push_str(body);
    head
}

/// A stream whose headers come at once and whose first event only after
/// `first` (a model reading its prompt), then one event every `each`.
async fn paced(sock: &mut TcpStream, first: Duration, each: Duration, events: &[String]) -> std::io::Result<()> {
    sock.write_all(STREAM_HEAD).await?;
    sock.flush().await?;
    tokio::time::sleep(first).await;
    for (i, ev) in events.iter().enumerate() {
        if i > 0 && !each.is_zero() {
            tokio::time::sleep(each).await;
        }
        write_chunk(sock, format!("data: {ev}\n\n").as_bytes()).await?;
    }
    end_stream(sock, true).await
}

/// The stream's end: `[DONE]` when the server says it, then the chunked
/// terminator.
async fn end_stream(sock: &mut TcpStream, done: bool) -> std::io::Result<()> {
    if done {
        write_chunk(sock, b"data: [DONE]\n\n").await?;
    }
    sock.write_all(b"0\r\n\r\n").await
}

/// One chunk of a chunked body, in one write, as a server sends one event.
async fn write_chunk(sock: &mut TcpStream, data: &[u8]) -> std::io::Result<()> {
    let mut frame = format!("{:x}\r\n", data.len()).into_bytes();
    frame.extend_from_slice(data);
    frame.extend_from_slice(b"\r\n");
    sock.write_all(&frame).await?;
    sock.flush().await
}

/// A server's refusal of `rec`'s constrained output, as configured
/// (`refuse_response_format`, `refuse_json_schema_like_llama_cpp_python`).
/// A side call's answer, the call kept in `log`: the refusal of its
/// `response_format` if the server refuses one, else the next answer a test
/// queued, else `neutral`.
fn side_answer(rec: &Recorded, shared: &Shared, log: &Mutex<Vec<Recorded>>, queue: &Mutex<VecDeque<Reply>>, neutral: &str) -> Reply {
    log.lock().expect("lock").push(rec.clone());
    refusal(rec, shared).unwrap_or_else(|| queue.lock().expect("lock").pop_front().unwrap_or_else(|| stream_of(neutral)))
}

fn refusal(rec: &Recorded, shared: &Shared) -> Option<Reply> {
    let form = rec.body["response_format"]["type"].as_str().unwrap_or_default();
    match (shared.refuse_response_format.load(std::sync::atomic::Ordering::Relaxed), form) {
        (1, f) if !f.is_empty() => Some(Reply::Status {
            code: 400,
            headers: vec![],
            body: r#"{"error":{"message":"Unrecognized request argument supplied: response_format","type":"invalid_request_error"}}"#.into(),
        }),
        (2, "json_schema") => Some(Reply::Status {
            code: 500,
            headers: vec![],
            body: r#"{"error":{"message":"1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}","type":"internal_server_error"}}"#.into(),
        }),
        _ => None,
    }
}
