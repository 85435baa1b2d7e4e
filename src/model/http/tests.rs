use super::*;
use crate::model::{StreamItem, ToolSet};

/// Records what the client tells the session.
#[derive(Default)]
struct Recorder {
    text: String,
    retries: u32,
    sent: u32,
}

impl StreamSink for Recorder {
    fn item(&mut self, item: StreamItem) {
        if let StreamItem::Text(piece) = item {
            self.text.push_str(&piece);
        }
    }

    fn retrying(&mut self, _: &ModelError, _: u32, _: Duration) {
        self.retries += 1;
    }

    fn sent(&mut self) {
        self.sent += 1;
    }
}

/// An HTTP/2 server (prior knowledge, no TLS) that refuses the first
/// `refuse` streams it is sent (`REFUSED_STREAM`, the request unread) and
/// answers the next with a one-word OpenAI stream; the number of
/// requests it saw.
async fn refusing_server(refuse: usize) -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    tokio::spawn(async move {
        loop {
            let (socket, _) = listener.accept().await.unwrap();
            let counter = counter.clone();
            tokio::spawn(async move {
                let mut connection = h2::server::handshake(socket).await.unwrap();
                while let Some(Ok((request, mut respond))) = connection.accept().await {
                    let number = counter.fetch_add(1, Ordering::SeqCst);
                    if number < refuse {
                        respond.send_reset(h2::Reason::REFUSED_STREAM);
                        continue;
                    }
                    let mut body = request.into_body();
                    while let Some(Ok(_)) = body.data().await {}
                    let response = http::Response::builder()
                        .status(200)
                        .header("content-type", "text/event-stream")
                        .body(())
                        .unwrap();
                    let mut stream = respond.send_response(response, false).unwrap();
                    let events = concat!(
                        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\n",
                        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
                        "data: [DONE]\n\n"
                    );
                    stream.send_data(events.into(), true).unwrap();
                }
            });
        }
    });
    (url, seen)
}

fn model(url: String) -> HttpModel {
    HttpModel {
        client: client_builder()
            .unwrap()
            .http2_prior_knowledge()
            .build()
            .unwrap(),
        base_url: url,
        api_key: None,
        format: WireFormat::OpenAi,
        idle_timeout: Duration::from_secs(5),
        // One attempt: a refusal that reached the retry policy would end
        // the call.
        retry: RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        },
    }
}

fn request(tools: &ToolSet) -> ModelRequest<'_> {
    ModelRequest {
        model_id: "m",
        messages: &[],
        tools,
        max_output_tokens: 10,
        temperature: None,
        cache_key: None,
    }
}

/// reqwest sends a request an HTTP/2 server turned away unread again on
/// its own, but only with a body it can copy, which the body that says
/// when it left is not: the client does it, at once and without a
/// retry's event or wait.
#[tokio::test]
async fn a_request_an_http2_server_refused_unread_is_sent_again_at_once() {
    let (url, seen) = refusing_server(2).await;
    let tools = ToolSet::default();
    let mut sink = Recorder::default();
    model(url)
        .complete(&request(&tools), &mut sink)
        .await
        .unwrap();
    assert_eq!(sink.text, "ok");
    assert_eq!(sink.retries, 0);
    assert!(sink.sent >= 1);
    assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 3);
}

/// Not forever: a server that keeps refusing is an error.
#[tokio::test]
async fn a_server_that_keeps_refusing_is_an_error() {
    let (url, seen) = refusing_server(usize::MAX).await;
    let tools = ToolSet::default();
    let mut sink = Recorder::default();
    let error = model(url)
        .complete(&request(&tools), &mut sink)
        .await
        .unwrap_err();
    assert!(matches!(error, ModelError::Transport(_)), "{error}");
    assert_eq!(
        seen.load(std::sync::atomic::Ordering::SeqCst),
        1 + RESEND_TURNED_AWAY as usize
    );
}
