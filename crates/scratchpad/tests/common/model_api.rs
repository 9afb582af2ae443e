//! A model API on loopback for the real agent CLIs: an HTTP/1.1 server that hands each request to
//! the test's answer and keeps every request body, so a test can script the model's turns and then
//! read exactly what the CLI sent the model. One request per connection (`connection: close`).

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::Value;

/// One request as the CLI sent it.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    /// The request target: path and query (`/v1beta/models/m:streamGenerateContent?alt=sse`).
    pub path: String,
    /// The body as JSON, `Null` when there is none or it is not JSON.
    pub body: Value,
}

/// What the server sends back.
pub struct Response {
    status: &'static str,
    content_type: &'static str,
    body: Vec<u8>,
}

impl Response {
    pub fn json(body: &Value) -> Self {
        Self {
            status: "200 OK",
            content_type: "application/json",
            body: body.to_string().into_bytes(),
        }
    }

    /// Server-sent events, already framed (`data: …\n\n`), sent whole.
    pub fn event_stream(events: String) -> Self {
        Self {
            status: "200 OK",
            content_type: "text/event-stream",
            body: events.into_bytes(),
        }
    }

    pub fn not_found() -> Self {
        Self {
            status: "404 Not Found",
            content_type: "application/json",
            body: br#"{"error": {"message": "not found"}}"#.to_vec(),
        }
    }
}

type Answer = dyn Fn(&Request) -> Response + Send + Sync;

pub struct ModelApi {
    pub port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl ModelApi {
    /// Listens on a free loopback port and answers every request with `answer`, each connection
    /// on a thread of its own (a CLI may hold one request open while it sends another).
    pub fn start(answer: impl Fn(&Request) -> Response + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let answer: Arc<Answer> = Arc::new(answer);
        let seen = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (seen, answer) = (Arc::clone(&seen), Arc::clone(&answer));
                std::thread::spawn(move || {
                    let _ = serve(stream, &seen, answer.as_ref());
                });
            }
        });
        Self { port, requests }
    }

    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request so far, in the order they arrived.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, seen: &Mutex<Vec<Request>>, answer: &Answer) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut stream = stream;
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut words = request_line.split_whitespace();
    let method = words.next().unwrap_or_default().to_owned();
    let path = words.next().unwrap_or_default().to_owned();
    let (mut length, mut chunked, mut encoded) = (0usize, false, None);
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        if line.trim().is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = value.parse().unwrap_or(0);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.eq_ignore_ascii_case("chunked");
        } else if name.eq_ignore_ascii_case("content-encoding")
            && !value.eq_ignore_ascii_case("identity")
        {
            encoded = Some(value.to_owned());
        }
    }
    let body = if chunked {
        read_chunked(&mut reader)?
    } else {
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        body
    };
    // A compressed body cannot be read here: say so in what the test sees, rather than lose it.
    let body = match encoded {
        Some(encoding) => serde_json::json!({"unreadable body, content-encoding": encoding}),
        None => serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    let request = Request { method, path, body };
    let response = answer(&request);
    seen.lock().unwrap().push(request);
    let head = format!(
        "HTTP/1.1 {}\r\ncontent-type: {}\r\ncontent-length: {}\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
        response.status,
        response.content_type,
        response.body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(&response.body)?;
    stream.flush()
}

fn read_chunked(reader: &mut BufReader<TcpStream>) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let size = size.trim().split(';').next().unwrap_or_default();
        let size = usize::from_str_radix(size, 16).unwrap_or(0);
        let mut chunk = vec![0; size + 2];
        if size == 0 {
            // The trailer section ends with an empty line.
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        reader.read_exact(&mut chunk)?;
        body.extend_from_slice(&chunk[..size]);
    }
}
