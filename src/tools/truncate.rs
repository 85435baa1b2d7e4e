//! Shortening output, all of it here: head and tail for the model (of a
//! text, or of a stream too long to hold), a capped head for events. The
//! model sees one marker with the true count, however the text was cut.

/// Keeps the first and last parts of `text` within `limit` bytes, cut on
/// UTF-8 boundaries, with a marker saying how much was left out. A model
/// needs both ends: the command that ran and the error it ended with.
pub fn head_tail(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let half = limit / 2;
    let head_end = floor_boundary(text, half);
    let tail_start = ceil_boundary(text, text.len() - half);
    format!(
        "{}{}{}",
        &text[..head_end],
        marker(tail_start - head_end, text.len()),
        &text[tail_start..]
    )
}

fn marker(left_out: usize, total: usize) -> String {
    format!("\n[... {left_out} bytes left out of {total} ...]\n")
}

/// The head and tail of a byte stream too long to hold (a command's
/// output), in bounded memory: at most `limit` bytes are kept, and the
/// marker counts everything that went by.
pub struct HeadTail {
    half: usize,
    head: Vec<u8>,
    tail: Vec<u8>,
    total: usize,
}

impl HeadTail {
    pub fn new(limit: usize) -> Self {
        HeadTail {
            half: limit / 2,
            head: Vec::new(),
            tail: Vec::new(),
            total: 0,
        }
    }

    pub fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len();
        if self.head.len() < self.half {
            let take = (self.half - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        self.tail.extend_from_slice(bytes);
        // Trimmed in batches: draining the front on every read would move
        // the whole tail each time.
        if self.tail.len() > 2 * self.half {
            self.tail.drain(..self.tail.len() - self.half);
        }
    }

    /// The text (invalid UTF-8 replaced), with the marker if anything was
    /// left out.
    pub fn finish(mut self) -> String {
        if self.tail.len() > self.half {
            self.tail.drain(..self.tail.len() - self.half);
        }
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        let left_out = self.total - self.head.len() - self.tail.len();
        if left_out > 0 {
            text.push_str(&marker(left_out, self.total));
        }
        text.push_str(&String::from_utf8_lossy(&self.tail));
        text
    }
}

/// The start of `text`, at most `limit` bytes, and whether anything was cut.
pub fn cap(text: &str, limit: usize) -> (String, bool) {
    if text.len() <= limit {
        return (text.to_owned(), false);
    }
    (text[..floor_boundary(text, limit)].to_owned(), true)
}

pub fn floor_boundary(text: &str, mut index: usize) -> usize {
    index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

fn ceil_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_both_ends_on_char_boundaries() {
        let text = "é".repeat(100);
        let short = head_tail(&text, 21);
        assert!(short.starts_with("éééé"));
        assert!(short.ends_with("éééé"));
        assert!(short.contains("bytes left out of 200"));
        assert_eq!(head_tail("small", 10), "small");
    }

    #[test]
    fn a_stream_keeps_both_ends_and_counts_all_it_saw() {
        let mut kept = HeadTail::new(8);
        for chunk in [&b"abcdef"[..], b"ghijklmnop", b"qrstuvwxyz"] {
            kept.push(chunk);
        }
        assert_eq!(
            kept.finish(),
            "abcd\n[... 18 bytes left out of 26 ...]\nwxyz"
        );
        let mut small = HeadTail::new(8);
        small.push(b"abcdefgh");
        assert_eq!(small.finish(), "abcdefgh");
    }

    #[test]
    fn cap_reports_cutting() {
        assert_eq!(cap("abcdef", 3), ("abc".to_owned(), true));
        assert_eq!(cap("ab", 3), ("ab".to_owned(), false));
        assert_eq!(cap("éé", 3), ("é".to_owned(), true));
    }
}
