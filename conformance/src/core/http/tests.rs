//! The HTTP client against a scripted loopback server: both answer forms, 202, the bounds on
//! a JSON body and an SSE event, an endless stream cut at the deadline, exact headers.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::body::Frame;
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::sync::mpsc;

use super::*;
use crate::core::transcript::Transcript;

/// A body fed by a channel: chunks as the script sends them, the end when it drops the sender.
struct ChanBody(mpsc::Receiver<Bytes>);

impl hyper::body::Body for ChanBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|c| c.map(|b| Ok(Frame::data(b))))
    }
}

/// What the scripted server answers: status, content type, chunks, and whether the body stays
/// open after them.
#[derive(Clone)]
struct Script {
    status: u16,
    content_type: Option<&'static str>,
    chunks: Vec<Vec<u8>>,
    endless: bool,
}

/// Serves `script` to every request on 127.0.0.1 (an ephemeral port); the request's headers
/// come back on the returned channel.
async fn serve(script: Script) -> (HttpTarget, mpsc::UnboundedReceiver<Vec<(String, String)>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (seen_tx, seen_rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let script = script.clone();
            let seen_tx = seen_tx.clone();
            let svc = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
                let script = script.clone();
                let headers = req
                    .headers()
                    .iter()
                    .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_owned()))
                    .collect();
                let _ = seen_tx.send(headers);
                async move {
                    let (tx, rx) = mpsc::channel(4);
                    tokio::spawn(async move {
                        for c in script.chunks {
                            if tx.send(Bytes::from(c)).await.is_err() {
                                return;
                            }
                        }
                        if script.endless {
                            loop {
                                if tx
                                    .send(Bytes::from_static(b": keep-alive\n\n"))
                                    .await
                                    .is_err()
                                {
                                    return;
                                }
                                tokio::time::sleep(Duration::from_millis(5)).await;
                            }
                        }
                    });
                    let mut resp = hyper::Response::builder().status(script.status);
                    if let Some(ct) = script.content_type {
                        resp = resp.header("content-type", ct);
                    }
                    Ok::<_, Infallible>(resp.body(ChanBody(rx)).expect("response"))
                }
            });
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    let target = HttpTarget::parse(&format!("http://127.0.0.1:{port}/mcp")).expect("url");
    (target, seen_rx)
}

fn client(target: HttpTarget, within: Duration) -> HttpClient {
    HttpClient::new(
        target,
        Transcript::new(),
        Deadline::at(Instant::now() + within),
    )
}

fn ping() -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})
}

#[tokio::test]
async fn a_json_answer_is_read_and_recorded_with_the_exact_headers_sent() {
    let (target, mut seen) = serve(Script {
        status: 200,
        content_type: Some("application/json"),
        chunks: vec![br#"{"jsonrpc":"2.0","id":7,"result":{}}"#.to_vec()],
        endless: false,
    })
    .await;
    let c = client(target, Duration::from_secs(10));
    let req = HttpRequest::post(&ping()).header("Origin", "http://evil.example");
    let resp = c.send(req).await.expect("answer");
    assert_eq!(resp.status, 200);
    assert_eq!(
        resp.response_to(&json!(7)),
        Some(json!({"jsonrpc":"2.0","id":7,"result":{}}))
    );
    let headers = seen.recv().await.expect("request seen");
    let get = |n: &str| {
        headers
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("accept"), Some(ACCEPT_BOTH));
    assert_eq!(get("origin"), Some("http://evil.example"));
    assert!(get("host").is_some_and(|h| h.starts_with("127.0.0.1:")));
    let rows: Vec<String> = c
        .transcript()
        .entries()
        .into_iter()
        .map(|e| e.dir)
        .collect();
    assert_eq!(rows, ["note", "c2s", "note", "s2c"]);
}

#[tokio::test]
async fn an_sse_answer_stops_at_the_response_even_if_the_stream_goes_on() {
    let (target, _) = serve(Script {
        status: 200,
        content_type: Some("text/event-stream"),
        chunks: vec![
            b"id: p\ndata:\n\n".to_vec(),
            b"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n".to_vec(),
            b"data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n".to_vec(),
        ],
        endless: true,
    })
    .await;
    let resp = client(target, Duration::from_secs(10))
        .send(HttpRequest::post(&ping()))
        .await
        .expect("answer");
    let Body::Sse { events, end, .. } = &resp.body else {
        panic!("an SSE body: {:?}", resp.body);
    };
    assert_eq!(*end, SseEnd::Answered);
    assert_eq!(events.len(), 3);
    assert_eq!(resp.body.messages().len(), 2);
    assert!(resp.response_to(&json!(7)).is_some());
}

#[tokio::test]
async fn an_endless_stream_is_cut_at_the_deadline_and_reported() {
    let (target, _) = serve(Script {
        status: 200,
        content_type: Some("text/event-stream"),
        chunks: Vec::new(),
        endless: true,
    })
    .await;
    let started = Instant::now();
    let c = client(target, Duration::from_millis(400));
    let resp = c.send(HttpRequest::post(&ping())).await.expect("head");
    assert!(matches!(
        resp.body,
        Body::Sse {
            end: SseEnd::Deadline,
            ..
        }
    ));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        c.transcript()
            .entries()
            .iter()
            .any(|e| e.line.contains("still open at the case's deadline"))
    );
}

#[tokio::test]
async fn bodies_and_events_over_the_bound_are_findings_not_buffers() {
    let big = vec![b'x'; MAX_SERVER_LINE + 1];
    let (target, _) = serve(Script {
        status: 200,
        content_type: Some("application/json"),
        chunks: vec![big.clone()],
        endless: false,
    })
    .await;
    let resp = client(target, Duration::from_secs(20))
        .send(HttpRequest::post(&ping()))
        .await
        .expect("head");
    assert!(
        matches!(resp.body, Body::TooLarge { .. }),
        "{:?}",
        resp.status
    );

    let mut event = b"data: ".to_vec();
    event.extend_from_slice(&big);
    let (target, _) = serve(Script {
        status: 200,
        content_type: Some("text/event-stream"),
        chunks: vec![event],
        endless: true,
    })
    .await;
    let resp = client(target, Duration::from_secs(20))
        .send(HttpRequest::post(&ping()))
        .await
        .expect("head");
    assert!(matches!(
        resp.body,
        Body::Sse {
            end: SseEnd::Broken(SseError::Oversized { .. }),
            ..
        }
    ));
}

#[tokio::test]
async fn a_notification_answered_202_has_an_empty_body_and_no_head_wait_is_endless() {
    let (target, _) = serve(Script {
        status: 202,
        content_type: None,
        chunks: Vec::new(),
        endless: false,
    })
    .await;
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let resp = client(target, Duration::from_secs(10))
        .send(HttpRequest::post(&note))
        .await
        .expect("answer");
    assert_eq!((resp.status, resp.body), (202, Body::Empty));

    // A listener that never answers: the wait for the head ends at the deadline.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = silent.local_addr().expect("addr").port();
    let target = HttpTarget::parse(&format!("http://127.0.0.1:{port}/")).expect("url");
    let err = client(target, Duration::from_millis(300))
        .send(HttpRequest::post(&ping()))
        .await
        .expect_err("no head");
    assert!(matches!(err, HttpError::Timeout { .. }), "{err}");
    drop(silent);
}
