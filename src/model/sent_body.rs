//! A request body that says when the connection has taken its last byte,
//! so the session can do what only has to be done before the answer (a
//! checkpoint of the iteration before) while the model works, instead of
//! before the request leaves.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::sync::oneshot;

/// The whole request in one frame, of a known length (so the wire carries
/// a `content-length`, as a plain body would); the signal fires when the
/// connection takes that frame. The connection's task writes and flushes
/// it before it yields, and the session's task runs only after, so by the
/// time the session hears of it the bytes are with the kernel (unless the
/// socket's buffer is full, when the rest follows as soon as it drains).
pub struct SentBody {
    data: Option<Bytes>,
    sent: Option<oneshot::Sender<()>>,
}

impl SentBody {
    pub fn new(data: impl Into<Bytes>) -> (Self, oneshot::Receiver<()>) {
        let data = data.into();
        let (sent, heard) = oneshot::channel();
        let body = SentBody {
            data: Some(data),
            sent: Some(sent),
        };
        (body, heard)
    }
}

impl Body for SentBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let data = self.data.take();
        if data.is_some()
            && let Some(sent) = self.sent.take()
        {
            let _ = sent.send(());
        }
        Poll::Ready(data.map(|data| Ok(Frame::data(data))))
    }

    fn is_end_stream(&self) -> bool {
        self.data.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.data.as_ref().map_or(0, |data| data.len() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    /// The attacker's case is a signal that fires before the bytes left:
    /// the session would then block its thread (a checkpoint) with the
    /// request still in the connection's buffer, and the model would wait
    /// for it. Here the code that hears the signal blocks the thread until
    /// a server thread has read the whole request: it can only succeed if
    /// the bytes were on the socket before the signal was heard.
    #[test]
    fn the_signal_comes_once_the_request_is_on_the_socket() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        // About a first request's size: one that outgrows the socket's
        // buffer sends its rest after the signal, by design.
        let body = "x".repeat(30_000);
        let expected = body.len();
        let received = Arc::new(AtomicBool::new(false));
        let server = std::thread::spawn({
            let received = received.clone();
            move || {
                let (mut stream, _) = listener.accept().unwrap();
                let mut seen = Vec::new();
                let mut buffer = [0u8; 65536];
                loop {
                    let read = stream.read(&mut buffer).unwrap();
                    seen.extend_from_slice(&buffer[..read]);
                    let text = String::from_utf8_lossy(&seen);
                    if let Some(head) = text.find("\r\n\r\n") {
                        assert!(text[..head].contains(&format!("content-length: {expected}")));
                        if seen.len() - head - 4 >= expected {
                            break;
                        }
                    }
                }
                received.store(true, Ordering::SeqCst);
                stream
                    .write_all(
                        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok",
                    )
                    .unwrap();
            }
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let waited = runtime.block_on(async move {
            let (body, heard) = SentBody::new(body);
            let client = crate::model::http::client_builder()
                .unwrap()
                .build()
                .unwrap();
            let send = client
                .post(format!("http://{address}/"))
                .body(reqwest::Body::wrap(body))
                .send();
            tokio::pin!(send);
            tokio::select! {
                biased;
                _ = &mut send => panic!("answered before the signal"),
                heard = heard => heard.unwrap(),
            }
            // Blocks the only thread, as a checkpoint would.
            let began = Instant::now();
            while !received.load(Ordering::SeqCst) {
                assert!(
                    began.elapsed() < Duration::from_secs(10),
                    "the server never got the whole request while the thread was held"
                );
                std::thread::sleep(Duration::from_millis(1));
            }
            let response = send.await.unwrap();
            assert_eq!(response.text().await.unwrap(), "ok");
            began.elapsed()
        });
        server.join().unwrap();
        assert!(waited < Duration::from_secs(10));
    }
}
