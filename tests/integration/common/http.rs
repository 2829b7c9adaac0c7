//! A small HTTP/1.1 client for the server's tests: one request a connection, on loopback.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// What came back.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The value a `Set-Cookie` header gives `name`, if one does.
    pub fn cookie(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .filter(|(key, _)| key.eq_ignore_ascii_case("set-cookie"))
            .filter_map(|(_, value)| value.split(';').next()?.split_once('='))
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.to_string())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }
}

/// Sends one request to `address` (`127.0.0.1:PORT`) and reads the whole reply.
pub fn request(address: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(address).expect("the server accepts");
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head += &format!("{name}: {value}\r\n");
    }
    head += "\r\n";
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a reply has a head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(key, value)| (key.trim().to_string(), value.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(key, value)| key.eq_ignore_ascii_case("transfer-encoding") && value.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&body).to_string(),
    }
}

fn dechunk(mut bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = bytes.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size = usize::from_str_radix(String::from_utf8_lossy(&bytes[..end]).trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&bytes[end + 2..end + 2 + size]);
        bytes = &bytes[end + 2 + size + 2..];
    }
}

/// A JSON request with a session cookie (or none).
pub fn json(address: &str, method: &str, path: &str, session: Option<&str>, body: &serde_json::Value) -> Reply {
    let cookie = session.map(|token| format!("othello_session={token}"));
    let mut headers = vec![("Content-Type", "application/json")];
    if let Some(cookie) = &cookie {
        headers.push(("Cookie", cookie));
    }
    request(address, method, path, &headers, body.to_string().as_bytes())
}

/// A GET, with a cookie header when given.
pub fn get(address: &str, path: &str, cookie: Option<&str>) -> Reply {
    let headers: Vec<(&str, &str)> = cookie.iter().map(|c| ("Cookie", *c)).collect();
    request(address, "GET", path, &headers, b"")
}

/// One server-sent event: its kind and its data.
#[derive(Debug)]
pub struct Event {
    pub kind: String,
    pub data: String,
}

/// Reads the server-sent events of `path` until one of kind `last` (or the stream ends, or
/// `within` passes): an HTTP/1.0 request, so the body comes unframed, line by line.
pub fn events(address: &str, path: &str, cookie: &str, last: &str, within: Duration) -> Vec<Event> {
    use std::io::BufRead;
    let mut stream = TcpStream::connect(address).expect("the server accepts");
    stream.set_read_timeout(Some(within)).unwrap();
    let head =
        format!("GET {path} HTTP/1.0\r\nHost: {address}\r\nCookie: {cookie}\r\nAccept: text/event-stream\r\n\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    let mut lines = std::io::BufReader::new(stream).lines();
    let status = lines.next().and_then(Result::ok).unwrap_or_default();
    assert!(status.contains(" 200 "), "the events stream answered {status:?}");
    // The head ends at the first empty line.
    for line in lines.by_ref() {
        if line.map_or(true, |line| line.is_empty()) {
            break;
        }
    }
    let (mut found, mut kind, mut data) = (Vec::new(), String::new(), String::new());
    for line in lines {
        let Ok(line) = line else { break };
        if let Some(value) = line.strip_prefix("event:") {
            kind = value.trim().to_string();
        } else if let Some(value) = line.strip_prefix("data:") {
            data += value.strip_prefix(' ').unwrap_or(value);
        } else if line.is_empty() && !data.is_empty() {
            let done = kind == last;
            found.push(Event {
                kind: std::mem::take(&mut kind),
                data: std::mem::take(&mut data),
            });
            if done {
                break;
            }
        }
    }
    found
}
