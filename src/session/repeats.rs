//! Finds a streamed answer that says the same thing over and over: the
//! same piece of text, back to back, many times. A model caught in such a
//! loop rarely gets out before its output limit, and every piece costs.

/// The longest piece looked for: a paragraph. Every byte is compared with
/// each of the this many before it, so this is the cost in steps per byte
/// of text: about 0.5 µs a byte in a release build (a 100 KB answer costs
/// 50 ms, spread over its stream).
const MAX_PERIOD: usize = 1024;
/// A repetition shorter than this in all is not cut, however many times
/// its piece repeats: a rule of dashes, a run of spaces or `0, 0, 0, ...`
/// is ordinary text.
const MIN_SPAN: usize = 200;
/// The bytes seen are kept newest first in a buffer this many times
/// `MAX_PERIOD` long, so the bytes 1, 2, 3... back are one forward slice
/// (which the compiler vectorises; a ring's wrapping index it did not,
/// four times slower); it is moved back once every 3 * `MAX_PERIOD` bytes.
const BUFFER_PERIODS: usize = 4;

/// Where a repetition was found, in bytes of the text fed so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repetition {
    /// Where the first copy of the piece starts.
    pub start: usize,
    /// The length of the piece.
    pub period: usize,
    /// How many copies, back to back (at least the threshold).
    pub times: usize,
    /// Just after the byte that completed the repetition.
    pub end: usize,
}

/// Fed the text as it streams; answers once a piece repeats `times` times.
pub struct RepeatDetector {
    /// The bytes seen, newest at `newest` and older ones after it.
    seen: Vec<u8>,
    newest: usize,
    /// Per period p (index p - 1): how many bytes in a row, up to now,
    /// equal the byte p positions before them. Bounded: the answer is cut
    /// once a run reaches `needed`.
    runs: Vec<u32>,
    /// Per period: the run that makes a repetition (`times` copies and
    /// `MIN_SPAN` bytes in all), so the hot loop only compares.
    needed: Vec<u32>,
    fed: usize,
}

impl RepeatDetector {
    pub fn new(times: u32) -> Self {
        let times = (times as usize).max(2);
        RepeatDetector {
            seen: vec![0; BUFFER_PERIODS * MAX_PERIOD],
            newest: BUFFER_PERIODS * MAX_PERIOD,
            runs: vec![0; MAX_PERIOD],
            needed: (1..=MAX_PERIOD)
                .map(|period| {
                    let needed = ((times - 1) * period).max(MIN_SPAN.saturating_sub(period));
                    u32::try_from(needed).unwrap_or(u32::MAX)
                })
                .collect(),
            fed: 0,
        }
    }

    /// Feeds the next piece of text; returns the first repetition it
    /// completes. Bytes, not characters: a repeated piece of text is a
    /// repeated piece of bytes, and the caller cuts on a char boundary.
    pub fn feed(&mut self, text: &str) -> Option<Repetition> {
        for &byte in text.as_bytes() {
            let position = self.fed;
            let reach = position.min(MAX_PERIOD);
            // `back[p - 1]` is the byte p positions before this one.
            let back = &self.seen[self.newest..self.newest + reach];
            let mut hit = false;
            for ((run, &earlier), &needed) in self.runs[..reach]
                .iter_mut()
                .zip(back)
                .zip(&self.needed[..reach])
            {
                *run = (*run + 1) * u32::from(earlier == byte);
                hit |= *run >= needed;
            }
            if self.newest == 0 {
                let end = BUFFER_PERIODS * MAX_PERIOD;
                self.seen.copy_within(..MAX_PERIOD, end - MAX_PERIOD);
                self.newest = end - MAX_PERIOD;
            }
            self.newest -= 1;
            self.seen[self.newest] = byte;
            self.fed += 1;
            if hit {
                return self.found(reach, position);
            }
        }
        None
    }

    /// The shortest piece whose run just made a repetition ending at
    /// `position`.
    fn found(&self, reach: usize, position: usize) -> Option<Repetition> {
        let period =
            (1..=reach).find(|&period| self.runs[period - 1] >= self.needed[period - 1])?;
        // A run of r bytes equal to those p before them is r + p bytes of
        // period p: (r + p) / p copies of the piece.
        let span = self.runs[period - 1] as usize + period;
        Some(Repetition {
            start: position + 1 - span,
            period,
            times: span / period,
            end: position + 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed_all(detector: &mut RepeatDetector, pieces: &[&str]) -> Option<Repetition> {
        pieces.iter().find_map(|piece| detector.feed(piece))
    }

    #[test]
    fn a_sentence_said_ten_times_is_found_at_the_tenth() {
        let sentence = "I will now fix the failing test in src/lib.rs. ";
        let mut text = "Let me look:\n".to_owned();
        let mut detector = RepeatDetector::new(10);
        assert_eq!(detector.feed(&text), None);
        for _ in 0..9 {
            assert_eq!(detector.feed(sentence), None);
            text.push_str(sentence);
        }
        let found = detector.feed(sentence).expect("the tenth copy");
        assert_eq!(found.period, sentence.len());
        assert_eq!(found.times, 10);
        assert_eq!(found.end, text.len() + sentence.len());
        // The first copy starts right after what came before.
        assert_eq!(found.start, "Let me look:\n".len());
    }

    #[test]
    fn streamed_in_odd_pieces_it_is_found_all_the_same() {
        let text = format!("intro\n{}", "abcdefghijklmnopqrstuvwxyz ".repeat(12));
        let mut detector = RepeatDetector::new(10);
        let pieces: Vec<&str> = text
            .as_bytes()
            .chunks(7)
            .map(|chunk| std::str::from_utf8(chunk).unwrap())
            .collect();
        let found = feed_all(&mut detector, &pieces).expect("found");
        assert_eq!(found.period, 27);
        assert_eq!(found.end, "intro\n".len() + 27 * 10);
    }

    #[test]
    fn ordinary_text_is_not_cut() {
        let mut detector = RepeatDetector::new(10);
        let rule = "-".repeat(120);
        let table = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n";
        let zeros = "0, ".repeat(40);
        let prose = include_str!("loops.rs");
        for text in [rule.as_str(), table, zeros.as_str(), prose] {
            assert_eq!(detector.feed(text), None, "{text}");
            detector = RepeatDetector::new(10);
        }
        // Nine copies of a long piece are not ten.
        let piece = "x".repeat(50) + "\n";
        assert_eq!(RepeatDetector::new(10).feed(&piece.repeat(9)), None);
    }

    #[test]
    fn a_run_of_one_byte_counts_once_it_is_long() {
        let mut detector = RepeatDetector::new(10);
        let found = detector.feed(&" ".repeat(500)).expect("found");
        assert_eq!((found.start, found.period, found.end), (0, 1, MIN_SPAN));
    }

    /// Letters with no period (a linear congruential walk).
    fn noise(length: usize) -> String {
        let mut state = 7u32;
        (0..length)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                char::from(b'a' + ((state >> 16) % 26) as u8)
            })
            .collect()
    }

    #[test]
    fn a_long_answer_is_followed_through_the_buffer_moves() {
        // The buffer moves when 4 KiB, 7 KiB, 10 KiB, 13 KiB were fed: the
        // repetition straddles the last move.
        let before = noise(13 * 1024 - 100) + ".";
        let piece = "the same line once more\n";
        let mut detector = RepeatDetector::new(10);
        assert_eq!(detector.feed(&before), None);
        let found = detector.feed(&piece.repeat(20)).expect("found");
        assert_eq!(found.start, before.len());
        assert_eq!(found.period, piece.len());
        assert_eq!(found.end, before.len() + 10 * piece.len());
    }

    #[test]
    fn pieces_longer_than_the_window_are_not_looked_for() {
        let piece = noise(MAX_PERIOD + 1);
        let mut detector = RepeatDetector::new(3);
        assert_eq!(detector.feed(&piece.repeat(4)), None);
    }
}
