//! The Debug Adapter Protocol's framing: each message is a JSON body after
//! a header block (`Content-Length: N`, then a blank line), in the manner
//! of HTTP. Bytes arrive from a pipe in any cut: a header split across
//! reads, several messages in one read, a body in pieces. [`Decoder`]
//! takes them as they come and hands out whole messages; both the header
//! and the body are bounded, so an adapter that writes nonsense cannot
//! make the agent hold unbounded memory.

use serde_json::Value;

/// A header block longer than this without its blank line is not DAP.
const MAX_HEADER: usize = 8 * 1024;
/// A bigger message is refused (a variable's value is capped by the
/// adapter long before this).
pub const MAX_BODY: usize = 64 * 1024 * 1024;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FrameError {
    #[error("a header block longer than {MAX_HEADER} bytes")]
    HeaderTooLong,
    #[error("a header without Content-Length: {0:?}")]
    NoLength(String),
    #[error("a bad Content-Length: {0:?}")]
    BadLength(String),
    #[error("a message of {0} bytes, more than {MAX_BODY}")]
    BodyTooLong(usize),
    #[error("a body that is not JSON: {0}")]
    BadJson(String),
}

/// Reassembles messages from the bytes of a stream.
#[derive(Debug, Default)]
pub struct Decoder {
    buffer: Vec<u8>,
    /// The body length of the message being read, once its header is in.
    body_len: Option<usize>,
}

impl Decoder {
    pub fn push(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    /// The next whole message, `None` until its last byte has come. An
    /// error leaves the stream unreadable: a reader stops there.
    pub fn next_message(&mut self) -> Result<Option<Value>, FrameError> {
        let body_len = match self.body_len {
            Some(len) => len,
            None => match self.take_header()? {
                Some(len) => len,
                None => return Ok(None),
            },
        };
        if self.buffer.len() < body_len {
            self.body_len = Some(body_len);
            return Ok(None);
        }
        self.body_len = None;
        let body: Vec<u8> = self.buffer.drain(..body_len).collect();
        serde_json::from_slice(&body)
            .map(Some)
            .map_err(|err| FrameError::BadJson(err.to_string()))
    }

    /// Reads the header block off the front of the buffer, if it is all
    /// there; returns the body's length.
    fn take_header(&mut self) -> Result<Option<usize>, FrameError> {
        let Some(end) = find(&self.buffer, b"\r\n\r\n") else {
            if self.buffer.len() > MAX_HEADER {
                return Err(FrameError::HeaderTooLong);
            }
            return Ok(None);
        };
        if end > MAX_HEADER {
            return Err(FrameError::HeaderTooLong);
        }
        let header = String::from_utf8_lossy(&self.buffer[..end]).into_owned();
        self.buffer.drain(..end + 4);
        let length = header
            .split("\r\n")
            .filter_map(|line| line.split_once(':'))
            .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
            .map(|(_, value)| value.trim().to_owned());
        let Some(length) = length else {
            return Err(FrameError::NoLength(header));
        };
        let length: usize = length
            .parse()
            .map_err(|_| FrameError::BadLength(length.clone()))?;
        if length > MAX_BODY {
            return Err(FrameError::BodyTooLong(length));
        }
        Ok(Some(length))
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// One message as it goes on the wire.
pub fn encode(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn all(decoder: &mut Decoder) -> Vec<Value> {
        let mut found = Vec::new();
        while let Some(message) = decoder.next_message().unwrap() {
            found.push(message);
        }
        found
    }

    #[test]
    fn a_message_survives_any_cut() {
        let message = json!({"seq": 1, "type": "event", "event": "output", "body": {"output": "héllo\r\n\r\n"}});
        let wire = encode(&message);
        for cut in 0..wire.len() {
            let mut decoder = Decoder::default();
            decoder.push(&wire[..cut]);
            let early = all(&mut decoder);
            decoder.push(&wire[cut..]);
            let mut found = early;
            found.extend(all(&mut decoder));
            assert_eq!(found, vec![message.clone()], "cut at {cut}");
        }
    }

    #[test]
    fn several_messages_in_one_read_and_a_byte_at_a_time() {
        let messages: Vec<Value> = (1..=3).map(|seq| json!({"seq": seq})).collect();
        let wire: Vec<u8> = messages.iter().flat_map(encode).collect();
        let mut decoder = Decoder::default();
        decoder.push(&wire);
        assert_eq!(all(&mut decoder), messages);

        let mut decoder = Decoder::default();
        let mut found = Vec::new();
        for byte in &wire {
            decoder.push(std::slice::from_ref(byte));
            found.extend(all(&mut decoder));
        }
        assert_eq!(found, messages);
    }

    #[test]
    fn a_partial_body_waits_for_the_rest() {
        let mut decoder = Decoder::default();
        decoder.push(b"Content-Length: 10\r\n\r\n{\"seq\":");
        assert_eq!(decoder.next_message(), Ok(None));
        assert_eq!(decoder.next_message(), Ok(None));
        decoder.push(b"42}");
        assert_eq!(decoder.next_message(), Ok(Some(json!({"seq": 42}))));
        assert_eq!(decoder.next_message(), Ok(None));
    }

    #[test]
    fn other_headers_and_any_case_are_taken() {
        let mut decoder = Decoder::default();
        decoder.push(b"content-type: application/vscode-jsonrpc\r\nCONTENT-LENGTH:  2 \r\n\r\n{}");
        assert_eq!(decoder.next_message(), Ok(Some(json!({}))));
    }

    #[test]
    fn bad_headers_and_bodies_are_errors() {
        let error = |bytes: &[u8]| {
            let mut decoder = Decoder::default();
            decoder.push(bytes);
            decoder.next_message().err()
        };
        assert!(matches!(
            error(b"X-Other: 1\r\n\r\n{}"),
            Some(FrameError::NoLength(_))
        ));
        assert!(matches!(
            error(b"Content-Length: lots\r\n\r\n"),
            Some(FrameError::BadLength(_))
        ));
        assert!(matches!(
            error(b"Content-Length: 99999999999\r\n\r\n"),
            Some(FrameError::BodyTooLong(_))
        ));
        assert!(matches!(
            error(b"Content-Length: 3\r\n\r\nabc"),
            Some(FrameError::BadJson(_))
        ));
        assert_eq!(
            error(&vec![b'x'; MAX_HEADER + 1]),
            Some(FrameError::HeaderTooLong)
        );
    }
}
