//! Shortening output: head and tail for the model, a capped head for events.

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
        "{}\n[... {} bytes left out of {} ...]\n{}",
        &text[..head_end],
        tail_start - head_end,
        text.len(),
        &text[tail_start..]
    )
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
    fn cap_reports_cutting() {
        assert_eq!(cap("abcdef", 3), ("abc".to_owned(), true));
        assert_eq!(cap("ab", 3), ("ab".to_owned(), false));
        assert_eq!(cap("éé", 3), ("é".to_owned(), true));
    }
}
