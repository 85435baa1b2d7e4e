//! When and how long to wait before trying a model call again.

use std::time::Duration;

use reqwest::header::HeaderMap;
use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RetryPolicy {
    /// Attempts in all, the first one included.
    pub max_attempts: u32,
    pub base_delay_ms: u64,
    pub max_delay_ms: u64,
    /// A server asking for a longer pause than this is not waited for: the
    /// session ends with the server's error rather than hang for an hour.
    pub max_retry_after_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 6,
            base_delay_ms: 1_000,
            max_delay_ms: 30_000,
            max_retry_after_ms: 120_000,
        }
    }
}

impl RetryPolicy {
    /// The pause before attempt `failed_attempt + 1`: exponential with
    /// jitter (between half and all of the step, so that many agents hit by
    /// the same outage do not return in lockstep), or exactly what the
    /// server asked for.
    pub fn delay(&self, failed_attempt: u32, server_asked: Option<Duration>) -> Duration {
        if let Some(asked) = server_asked {
            return asked;
        }
        let exponent = failed_attempt.saturating_sub(1).min(20);
        let step = self
            .base_delay_ms
            .saturating_mul(1u64 << exponent)
            .min(self.max_delay_ms);
        let jittered = step / 2 + fastrand::u64(0..=step / 2);
        Duration::from_millis(jittered)
    }

    pub fn honours(&self, server_asked: Duration) -> bool {
        server_asked <= Duration::from_millis(self.max_retry_after_ms)
    }
}

/// Reads `retry-after-ms` (milliseconds, OpenAI) or `Retry-After` (seconds
/// or an HTTP date).
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    if let Some(ms) =
        header_str(headers, "retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_millis(ms as u64));
    }
    let value = header_str(headers, "retry-after")?.trim().to_owned();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let date = chrono::DateTime::parse_from_rfc2822(&value).ok()?;
    let wait = date.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn backoff_grows_with_jitter_and_caps() {
        let policy = RetryPolicy {
            base_delay_ms: 100,
            max_delay_ms: 1_000,
            ..RetryPolicy::default()
        };
        for _ in 0..50 {
            let first = policy.delay(1, None).as_millis();
            assert!((50..=100).contains(&first), "{first}");
            let third = policy.delay(3, None).as_millis();
            assert!((200..=400).contains(&third), "{third}");
            let tenth = policy.delay(10, None).as_millis();
            assert!((500..=1_000).contains(&tenth), "{tenth}");
        }
    }

    #[test]
    fn server_pause_wins() {
        let policy = RetryPolicy::default();
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(7))),
            Duration::from_secs(7)
        );
        assert!(!policy.honours(Duration::from_secs(3600)));
    }

    #[test]
    fn reads_both_headers() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", HeaderValue::from_static("1500"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(1500)));
        let mut dated = HeaderMap::new();
        dated.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&dated), Some(Duration::ZERO));
        let mut junk = HeaderMap::new();
        junk.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&junk), None);
    }
}
