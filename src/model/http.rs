//! The HTTP model client shared by both wire formats: one POST per attempt,
//! SSE decoded by [`super::sse`], an idle timeout on every read, and
//! retries by [`RetryPolicy`].

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};

use super::error::{excerpt, http_error_text, looks_like_context_overflow};
use super::retry::{RetryPolicy, retry_after};
use super::sent_body::SentBody;
use super::{ModelError, ModelRequest, StreamItem, StreamSink, WireFormat, anthropic, openai, sse};

/// How much of an error body is read to quote the provider's message.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// How long the session's work under a request (the last iteration's
/// checkpoint) waits for the request to leave: a slow connect or upload
/// must not hold back what makes that iteration survive a crash.
const SENT_AT_LATEST: Duration = Duration::from_millis(200);

/// Times in a row a request turned away unread is sent again at once.
const RESEND_TURNED_AWAY: u32 = 2;

pub struct HttpModel {
    client: reqwest::Client,
    base_url: String,
    api_key: Option<String>,
    format: WireFormat,
    idle_timeout: Duration,
    retry: RetryPolicy,
}

pub struct HttpModelConfig {
    pub base_url: String,
    pub api_key: Option<String>,
    pub format: WireFormat,
    pub idle_timeout: Duration,
    pub connect_timeout: Duration,
    pub retry: RetryPolicy,
}

impl HttpModel {
    pub fn new(config: HttpModelConfig) -> Result<Self, ModelError> {
        let client = client_builder()?
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|err| ModelError::Setup(err.to_string()))?;
        Ok(HttpModel {
            client,
            base_url: config.base_url.trim_end_matches('/').to_owned(),
            api_key: config.api_key,
            format: config.format,
            idle_timeout: config.idle_timeout,
            retry: config.retry,
        })
    }

    pub async fn complete(
        &self,
        request: &ModelRequest<'_>,
        sink: &mut dyn StreamSink,
    ) -> Result<(), ModelError> {
        let mut attempt = 1;
        loop {
            let error = match self.attempt(request, sink).await {
                Ok(()) => return Ok(()),
                Err(error) => error,
            };
            if !error.is_retryable() || attempt >= self.retry.max_attempts {
                return Err(error);
            }
            if let Some(asked) = error.retry_after()
                && !self.retry.honours(asked)
            {
                return Err(error);
            }
            let delay = self.retry.delay(attempt, error.retry_after());
            // The wait before the next attempt is the model's too.
            sink.sent();
            sink.retrying(&error, attempt, delay);
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    async fn attempt(
        &self,
        request: &ModelRequest<'_>,
        sink: &mut dyn StreamSink,
    ) -> Result<(), ModelError> {
        let json = bytes::Bytes::from(super::request_json(self.format, request));
        let response = self.send(&json, sink).await?;
        let status = response.status();
        if !status.is_success() {
            let asked = retry_after(response.headers());
            let body = self.read_error_body(response).await;
            let message = http_error_text(&body);
            if (status.as_u16() == 400 || status.as_u16() == 413)
                && looks_like_context_overflow(&message)
            {
                return Err(ModelError::ContextTooLong(message));
            }
            return Err(ModelError::Http {
                status: status.as_u16(),
                message: if message.is_empty() {
                    status.canonical_reason().unwrap_or("no reason").to_owned()
                } else {
                    message
                },
                retry_after: asked,
            });
        }
        let mut bytes = response.bytes_stream();
        let mut decoder = sse::Decoder::default();
        let mut parser = Parser::new(self.format);
        // Idle means no event: keep-alive comments alone do not hold a
        // stream open.
        let mut deadline = tokio::time::Instant::now() + self.idle_timeout;
        loop {
            let next = tokio::time::timeout_at(deadline, bytes.next())
                .await
                .map_err(|_| ModelError::IdleTimeout(self.idle_timeout))?;
            let chunk = match next {
                None => break,
                Some(Ok(chunk)) => chunk,
                Some(Err(err)) => return Err(ModelError::StreamCut(describe_reqwest(&err))),
            };
            let events = decoder
                .push(&chunk)
                .map_err(|err| ModelError::Malformed(err.to_string()))?;
            if !events.is_empty() {
                deadline = tokio::time::Instant::now() + self.idle_timeout;
            }
            for data in events {
                for item in parser.feed(&data)? {
                    let finished = item == StreamItem::Finished;
                    sink.item(item);
                    // Dropping the response closes the connection: the
                    // provider stops generating what nobody reads.
                    if finished || sink.stopped() {
                        return Ok(());
                    }
                }
            }
        }
        parser.finish()
    }

    /// The POST of one attempt, `body` its request.
    fn post(&self, body: SentBody) -> reqwest::RequestBuilder {
        let path = match self.format {
            WireFormat::OpenAi => "chat/completions",
            WireFormat::Anthropic => "messages",
        };
        let http = self
            .client
            .post(format!("{}/{path}", self.base_url))
            .header(ACCEPT, "text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(reqwest::Body::wrap(body));
        match self.format {
            WireFormat::OpenAi => match &self.api_key {
                Some(key) => http.header(AUTHORIZATION, format!("Bearer {key}")),
                None => http,
            },
            WireFormat::Anthropic => {
                let http = http.header("anthropic-version", anthropic::API_VERSION);
                match &self.api_key {
                    Some(key) => http.header("x-api-key", key),
                    None => http,
                }
            }
        }
    }

    /// Sends the request; once its last byte is with the connection (or
    /// [`SENT_AT_LATEST`] after it began, if connecting takes longer),
    /// the sink hears of it (see [`StreamSink::sent`]). A request an
    /// HTTP/2 server turned away unread is sent again at once, as
    /// reqwest would itself for a body it can copy (this one it cannot:
    /// it carries the signal).
    async fn send(
        &self,
        json: &bytes::Bytes,
        sink: &mut dyn StreamSink,
    ) -> Result<reqwest::Response, ModelError> {
        let mut turned_away = 0;
        loop {
            let (body, sent) = SentBody::new(json.clone());
            match self.send_once(self.post(body), sent, sink).await? {
                Ok(response) => return Ok(response),
                Err(err) if turned_away < RESEND_TURNED_AWAY && turned_away_unread(&err) => {
                    turned_away += 1;
                }
                Err(err) => return Err(ModelError::Transport(describe_reqwest(&err))),
            }
        }
    }

    async fn send_once(
        &self,
        http: reqwest::RequestBuilder,
        sent: tokio::sync::oneshot::Receiver<()>,
        sink: &mut dyn StreamSink,
    ) -> Result<Result<reqwest::Response, reqwest::Error>, ModelError> {
        let idle = |_| ModelError::IdleTimeout(self.idle_timeout);
        let send = http.send();
        tokio::pin!(send);
        let answered = tokio::time::timeout(self.idle_timeout, async {
            // The signal first: an answer ready in the same poll must not
            // pass the session's work that was to come before it.
            tokio::select! {
                biased;
                Ok(()) = sent => None,
                () = tokio::time::sleep(SENT_AT_LATEST) => None,
                response = &mut send => Some(response),
            }
        })
        .await
        .map_err(idle)?;
        match answered {
            Some(answer) => Ok(answer),
            // What the session does now is its own time: the server's
            // silence is timed from when it is done.
            None => {
                sink.sent();
                tokio::time::timeout(self.idle_timeout, &mut send)
                    .await
                    .map_err(idle)
            }
        }
    }

    async fn read_error_body(&self, response: reqwest::Response) -> String {
        let mut body = Vec::new();
        let mut chunks = response.bytes_stream();
        while body.len() < ERROR_BODY_LIMIT {
            match tokio::time::timeout(self.idle_timeout, chunks.next()).await {
                Ok(Some(Ok(chunk))) => body.extend_from_slice(&chunk),
                _ => break,
            }
        }
        excerpt(&String::from_utf8_lossy(&body))
    }
}

/// An HTTP/2 server refused the stream (`REFUSED_STREAM`) or closed the
/// connection gracefully (`GOAWAY` with `NO_ERROR`) before it read the
/// request: nothing of it was processed, so it can go again.
fn turned_away_unread(err: &reqwest::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(error) = source {
        if let Some(h2) = error.downcast_ref::<h2::Error>() {
            return h2.is_remote()
                && ((h2.is_go_away() && h2.reason() == Some(h2::Reason::NO_ERROR))
                    || (h2.is_reset() && h2.reason() == Some(h2::Reason::REFUSED_STREAM)));
        }
        source = error.source();
    }
    false
}

enum Parser {
    OpenAi(openai::StreamParser),
    Anthropic(anthropic::StreamParser),
}

impl Parser {
    fn new(format: WireFormat) -> Self {
        match format {
            WireFormat::OpenAi => Parser::OpenAi(openai::StreamParser::default()),
            WireFormat::Anthropic => Parser::Anthropic(anthropic::StreamParser::default()),
        }
    }

    fn feed(&mut self, data: &str) -> Result<Vec<StreamItem>, ModelError> {
        match self {
            Parser::OpenAi(parser) => parser.feed(data),
            Parser::Anthropic(parser) => parser.feed(data),
        }
    }

    fn finish(&self) -> Result<(), ModelError> {
        match self {
            Parser::OpenAi(parser) => parser.finish(),
            Parser::Anthropic(parser) => parser.finish(),
        }
    }
}

/// reqwest's Display stops at the outer layer ("error sending request");
/// the cause ("connection refused") is what a person needs.
pub fn describe_reqwest(err: &reqwest::Error) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A reqwest builder with our TLS setup, for every HTTP client of the agent.
pub fn client_builder() -> Result<reqwest::ClientBuilder, ModelError> {
    Ok(reqwest::Client::builder()
        .tls_backend_preconfigured(tls_config()?)
        .user_agent(concat!("agent/", env!("CARGO_PKG_VERSION"))))
}

/// rustls with the ring provider and the Mozilla roots compiled in: the
/// sandbox may have no `/etc/ssl` at all.
fn tls_config() -> Result<rustls::ClientConfig, ModelError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|err| ModelError::Setup(err.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests;
