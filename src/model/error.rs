//! Why a model call failed, and reading the reason out of what a provider
//! sent back: shared by both wire formats and the HTTP client.

use std::time::Duration;

use serde_json::Value;

use crate::protocol::events::ErrorCode;

/// Why a model call failed. `code()` is the stable string put in `error`
/// events; `is_retryable()` decides between another attempt and the end of
/// the session.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("model server answered HTTP {status}: {message}")]
    Http {
        status: u16,
        message: String,
        retry_after: Option<Duration>,
    },
    #[error("the conversation is too long for the model: {0}")]
    ContextTooLong(String),
    #[error("cannot reach the model server: {0}")]
    Transport(String),
    #[error("the model stream sent nothing for {} s", .0.as_secs())]
    IdleTimeout(Duration),
    #[error("the model stream ended before its final event ({0})")]
    StreamCut(String),
    #[error("the model stream is malformed: {0}")]
    Malformed(String),
    #[error("the model server reported an error in the stream: {0}")]
    Provider(String),
    #[error("{0}")]
    Script(String),
    #[error("cannot set up the model client: {0}")]
    Setup(String),
}

impl ModelError {
    pub fn code(&self) -> ErrorCode {
        match self {
            ModelError::Http { status, .. } => match status {
                401 | 403 => ErrorCode::ModelAuth,
                429 => ErrorCode::ModelRateLimited,
                400..=499 => ErrorCode::ModelBadRequest,
                _ => ErrorCode::ModelServerError,
            },
            ModelError::ContextTooLong(_) => ErrorCode::ContextTooLong,
            ModelError::Transport(_) => ErrorCode::ModelUnreachable,
            ModelError::IdleTimeout(_) => ErrorCode::ModelIdleTimeout,
            ModelError::StreamCut(_) => ErrorCode::ModelStreamCut,
            ModelError::Malformed(_) => ErrorCode::ModelStreamMalformed,
            ModelError::Provider(_) => ErrorCode::ModelProviderError,
            ModelError::Script(_) => ErrorCode::Script,
            ModelError::Setup(_) => ErrorCode::ModelSetup,
        }
    }

    pub fn is_retryable(&self) -> bool {
        match self {
            ModelError::Http { status, .. } => {
                matches!(status, 408 | 409 | 425 | 429 | 529) || (500..=599).contains(status)
            }
            ModelError::Transport(_)
            | ModelError::IdleTimeout(_)
            | ModelError::StreamCut(_)
            | ModelError::Malformed(_)
            | ModelError::Provider(_) => true,
            ModelError::ContextTooLong(_) | ModelError::Script(_) | ModelError::Setup(_) => false,
        }
    }

    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ModelError::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// Providers word "the prompt is too long" in many ways; these are the
/// phrasings of OpenAI, Anthropic, llama.cpp and vLLM.
pub fn looks_like_context_overflow(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    [
        "context_length_exceeded",
        "context length",
        "prompt is too long",
        "maximum context",
        "exceeds the available context size",
        "exceed_context_size",
        "too many tokens",
    ]
    .iter()
    .any(|needle| lower.contains(needle))
}

/// The human part of a provider's error body, whichever shape it has.
pub fn error_message(error: &Value) -> String {
    if let Some(text) = error.as_str() {
        return text.to_owned();
    }
    if let Some(message) = error.get("message").and_then(Value::as_str) {
        return message.to_owned();
    }
    if let Some(inner) = error.get("error") {
        return error_message(inner);
    }
    excerpt(&error.to_string())
}

/// The error text of a non-2xx body: the provider's message when it sent
/// JSON, otherwise the start of the body.
pub fn http_error_text(body: &str) -> String {
    match serde_json::from_str::<Value>(body) {
        Ok(value) => error_message(&value),
        Err(_) => excerpt(body),
    }
}

/// The start of `text`, trimmed and cut on a char boundary: enough to
/// quote a provider's message in an error without carrying its whole body.
pub fn excerpt(text: &str) -> String {
    const LIMIT: usize = 500;
    let trimmed = text.trim();
    if trimmed.len() <= LIMIT {
        return trimmed.to_owned();
    }
    let mut end = LIMIT;
    while !trimmed.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &trimmed[..end])
}
