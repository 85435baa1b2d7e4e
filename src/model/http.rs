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
        let path = match self.format {
            WireFormat::OpenAi => "chat/completions",
            WireFormat::Anthropic => "messages",
        };
        let (body, sent) = SentBody::new(super::request_json(self.format, request));
        let mut http = self
            .client
            .post(format!("{}/{path}", self.base_url))
            .header(ACCEPT, "text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(reqwest::Body::wrap(body));
        match self.format {
            WireFormat::OpenAi => {
                if let Some(key) = &self.api_key {
                    http = http.header(AUTHORIZATION, format!("Bearer {key}"));
                }
            }
            WireFormat::Anthropic => {
                http = http.header("anthropic-version", anthropic::API_VERSION);
                if let Some(key) = &self.api_key {
                    http = http.header("x-api-key", key);
                }
            }
        }
        let response = self.send(http, sent, sink).await?;
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

    /// Sends the request; once its last byte is with the connection, the
    /// sink hears of it (see [`StreamSink::sent`]).
    async fn send(
        &self,
        http: reqwest::RequestBuilder,
        sent: tokio::sync::oneshot::Receiver<()>,
        sink: &mut dyn StreamSink,
    ) -> Result<reqwest::Response, ModelError> {
        let idle = |_| ModelError::IdleTimeout(self.idle_timeout);
        let send = http.send();
        tokio::pin!(send);
        let answered = tokio::time::timeout(self.idle_timeout, async {
            tokio::select! {
                biased;
                response = &mut send => Some(response),
                Ok(()) = sent => None,
            }
        })
        .await
        .map_err(idle)?;
        let answer = match answered {
            Some(answer) => answer,
            // What the session does now is its own time: the server's
            // silence is timed from when it is done.
            None => {
                sink.sent();
                tokio::time::timeout(self.idle_timeout, &mut send)
                    .await
                    .map_err(idle)?
            }
        };
        answer.map_err(|err| ModelError::Transport(describe_reqwest(&err)))
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
