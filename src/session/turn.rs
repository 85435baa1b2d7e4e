//! Turns one model call's stream into the assistant turn that enters the
//! conversation and into the wire events a person watches live.

use std::time::Duration;

use super::partial_json::{PartialObject, Piece};
use super::repeats::{RepeatDetector, Repetition};
use crate::model::{AssistantTurn, ModelError, StreamItem, StreamSink, ToolCall, Usage};
use crate::protocol::events::{ActivityKind, ErrorCode, Event};
use crate::tools::Tool;

/// Collects a streamed turn. Pure: it returns the events to emit, so unit
/// tests can compare them whole.
#[derive(Default)]
pub struct TurnBuilder {
    iteration: u32,
    turn: AssistantTurn,
    usage: Usage,
    finished: bool,
    announced_thinking: bool,
    /// Per tool call index: the `write_file` whose content is shown live.
    file_streams: Vec<Option<FileStream>>,
    /// The tools offered to this call: a call of another one is refused
    /// when it runs, so it shows no activity and no content meanwhile.
    offered: Vec<Tool>,
    /// Watches the text for a piece repeated back to back; `None` when
    /// the loop breaker is off.
    repeats: Option<(u32, RepeatDetector)>,
    /// Once the answer was cut for repeating itself: what the model is
    /// told. Nothing more of the stream is taken.
    cut: Option<String>,
}

/// The arguments of one `write_file` as they stream: `file-delta` events
/// carry the decoded content once the path is known.
#[derive(Default)]
struct FileStream {
    object: PartialObject,
    path: String,
    path_complete: bool,
    /// Content that came before the path did.
    early_content: String,
}

impl TurnBuilder {
    pub fn new(iteration: u32, offered: &[Tool]) -> Self {
        TurnBuilder {
            iteration,
            offered: offered.to_vec(),
            ..TurnBuilder::default()
        }
    }

    /// Cuts the answer once one piece of its text repeats `times` times
    /// in a row.
    pub fn cut_repeats(mut self, times: u32) -> Self {
        self.repeats = Some((times, RepeatDetector::new(times)));
        self
    }

    /// What to tell the model when its answer was cut; then the stream
    /// is no longer read.
    pub fn cut(&self) -> Option<&str> {
        self.cut.as_deref()
    }

    pub fn accept(&mut self, item: StreamItem) -> Vec<Event> {
        if self.cut.is_some() {
            return Vec::new();
        }
        match item {
            StreamItem::Text(delta) => self.text(delta),
            StreamItem::Reasoning(delta) => {
                self.turn.reasoning.push_str(&delta);
                let mut events = Vec::new();
                if !std::mem::replace(&mut self.announced_thinking, true) {
                    events.push(Event::Activity {
                        activity: ActivityKind::Thinking,
                        tool_call_id: None,
                    });
                }
                events.push(Event::ReasoningDelta {
                    delta,
                    iteration: self.iteration,
                });
                events
            }
            StreamItem::ReasoningSignature(piece) => {
                self.turn
                    .reasoning_signature
                    .get_or_insert_with(String::new)
                    .push_str(&piece);
                Vec::new()
            }
            StreamItem::ToolCallStarted { index, id, name } => {
                if self.turn.tool_calls.len() <= index {
                    self.turn.tool_calls.resize_with(index + 1, || ToolCall {
                        id: String::new(),
                        name: String::new(),
                        arguments: String::new(),
                    });
                }
                let tool = Tool::from_name(&name).filter(|tool| self.offered.contains(tool));
                let activity = tool.map(Tool::activity);
                if self.file_streams.len() <= index {
                    self.file_streams.resize_with(index + 1, || None);
                }
                self.file_streams[index] =
                    (tool == Some(Tool::WriteFile)).then(FileStream::default);
                self.turn.tool_calls[index].id = id.clone();
                self.turn.tool_calls[index].name = name;
                activity
                    .map(|activity| Event::Activity {
                        activity,
                        tool_call_id: Some(id),
                    })
                    .into_iter()
                    .collect()
            }
            StreamItem::ToolCallArguments { index, delta } => {
                let Some(call) = self.turn.tool_calls.get_mut(index) else {
                    return Vec::new();
                };
                call.arguments.push_str(&delta);
                match self.file_streams.get_mut(index).and_then(Option::as_mut) {
                    Some(stream) => stream.feed(&call.id, &delta),
                    None => Vec::new(),
                }
            }
            StreamItem::Usage(usage) => {
                self.usage = usage;
                Vec::new()
            }
            StreamItem::Finished => {
                self.finished = true;
                Vec::new()
            }
        }
    }

    /// Forgets what a failed attempt streamed before the retry.
    pub fn restart(&mut self) {
        let fresh = TurnBuilder::new(self.iteration, &self.offered);
        *self = match &self.repeats {
            Some((times, _)) => fresh.cut_repeats(*times),
            None => fresh,
        };
    }

    fn text(&mut self, delta: String) -> Vec<Event> {
        let found = self
            .repeats
            .as_mut()
            .and_then(|(_, detector)| detector.feed(&delta));
        let Some(found) = found else {
            self.turn.text.push_str(&delta);
            return vec![Event::TextDelta {
                delta,
                iteration: self.iteration,
            }];
        };
        // The piece up to the byte that completed the repetition is shown;
        // nothing after it.
        let shown = delta.ceil_char_boundary(found.end - self.turn.text.len());
        self.turn.text.push_str(&delta[..shown]);
        let mut events = Vec::new();
        if shown > 0 {
            events.push(Event::TextDelta {
                delta: delta[..shown].to_owned(),
                iteration: self.iteration,
            });
        }
        events.push(self.cut_at(&found));
        events
    }

    /// Ends the answer after the first copy of the repeated piece, with a
    /// note, and drops the tool calls (their arguments may be half
    /// streamed). Returns the `error` event that shows it.
    fn cut_at(&mut self, found: &Repetition) -> Event {
        let text = &self.turn.text;
        let start = text.floor_char_boundary(found.start);
        let end = text.floor_char_boundary(found.start + found.period);
        let piece: String = text[start..end]
            .chars()
            .take(200)
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let piece = piece.trim();
        let times = found.times;
        self.turn.text.truncate(end);
        self.turn.text.push_str(&format!(
            "\n[cut by the agent: this answer repeated the text above {times} times in a row]"
        ));
        self.turn.tool_calls.clear();
        self.file_streams.clear();
        self.cut = Some(format!(
            "Your last answer was cut off: it repeated the same text {times} times in a row (\"{piece}\"). Do not repeat it: go on with the task from where it stands, differently."
        ));
        Event::Error {
            code: ErrorCode::LoopRepeatedText,
            message: format!(
                "the answer was cut: it repeated the same text {times} times in a row: \"{piece}\""
            ),
            fatal: false,
            attempt: None,
        }
    }

    pub fn finish(mut self) -> (AssistantTurn, Usage) {
        // Calls the stream started but never named are dropped: there is
        // nothing to run and no id to answer.
        self.turn
            .tool_calls
            .retain(|call| !call.id.is_empty() && !call.name.is_empty());
        (self.turn, self.usage)
    }
}

impl FileStream {
    fn feed(&mut self, id: &str, delta: &str) -> Vec<Event> {
        let mut content = String::new();
        for piece in self.object.feed(delta) {
            match piece {
                Piece::Text { key, text } if key == "path" => self.path.push_str(&text),
                Piece::End { key } if key == "path" => {
                    self.path_complete = true;
                    content.insert_str(0, &std::mem::take(&mut self.early_content));
                }
                Piece::Text { key, text } if key == "content" => {
                    if self.path_complete {
                        content.push_str(&text);
                    } else {
                        self.early_content.push_str(&text);
                    }
                }
                Piece::Text { .. } | Piece::End { .. } => {}
            }
        }
        if content.is_empty() {
            return Vec::new();
        }
        vec![Event::FileDelta {
            id: id.to_owned(),
            path: self.path.clone(),
            delta: content,
        }]
    }
}

/// The error event shown for a failed attempt that will be retried.
pub fn retry_event(error: &ModelError, attempt: u32, delay: Duration) -> Event {
    Event::Error {
        code: error.code(),
        message: format!(
            "{error}; retrying in {:.1} s (attempt {} failed)",
            delay.as_secs_f64(),
            attempt
        ),
        fatal: false,
        attempt: Some(attempt),
    }
}

/// A [`StreamSink`] that feeds a [`TurnBuilder`] and emits its events.
pub struct LiveTurn<'a> {
    pub builder: TurnBuilder,
    pub emit: &'a dyn Fn(Event),
    /// What waits for the request to leave (the previous iteration's
    /// checkpoint); idempotent.
    pub on_sent: &'a mut dyn FnMut(),
}

impl StreamSink for LiveTurn<'_> {
    fn item(&mut self, item: StreamItem) {
        for event in self.builder.accept(item) {
            (self.emit)(event);
        }
    }

    fn retrying(&mut self, error: &ModelError, attempt: u32, delay: Duration) {
        self.builder.restart();
        (self.emit)(retry_event(error, attempt, delay));
    }

    fn stopped(&self) -> bool {
        self.builder.cut().is_some()
    }

    fn sent(&mut self) {
        (self.on_sent)();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_becomes_turn_and_events() {
        let mut builder = TurnBuilder::new(2, Tool::ALL);
        let mut events = Vec::new();
        for item in [
            StreamItem::Reasoning("a".into()),
            StreamItem::Reasoning("b".into()),
            StreamItem::Text("Hi".into()),
            StreamItem::ToolCallStarted {
                index: 0,
                id: "c1".into(),
                name: "exec".into(),
            },
            StreamItem::ToolCallArguments {
                index: 0,
                delta: "{\"command\":".into(),
            },
            StreamItem::ToolCallArguments {
                index: 0,
                delta: "\"ls\"}".into(),
            },
            StreamItem::ToolCallStarted {
                index: 1,
                id: "c2".into(),
                name: "mystery".into(),
            },
            StreamItem::Usage(Usage {
                input_tokens: 5,
                ..Usage::default()
            }),
            StreamItem::Finished,
        ] {
            events.extend(builder.accept(item));
        }
        assert_eq!(
            events,
            vec![
                Event::Activity {
                    activity: ActivityKind::Thinking,
                    tool_call_id: None
                },
                Event::ReasoningDelta {
                    delta: "a".into(),
                    iteration: 2
                },
                Event::ReasoningDelta {
                    delta: "b".into(),
                    iteration: 2
                },
                Event::TextDelta {
                    delta: "Hi".into(),
                    iteration: 2
                },
                Event::Activity {
                    activity: ActivityKind::RunningCommand,
                    tool_call_id: Some("c1".into())
                },
            ]
        );
        let (turn, usage) = builder.finish();
        assert_eq!(turn.text, "Hi");
        assert_eq!(turn.reasoning, "ab");
        assert_eq!(turn.tool_calls.len(), 2);
        assert_eq!(turn.tool_calls[0].arguments, "{\"command\":\"ls\"}");
        assert_eq!(usage.input_tokens, 5);
    }

    #[test]
    fn write_file_content_streams_as_file_deltas() {
        let mut builder = TurnBuilder::new(1, Tool::ALL);
        let mut deltas = String::new();
        let args = r#"{"content": "a\nb \u00e9\ud83d\ude00 \"q\"", "path": "x.txt"}"#;
        builder.accept(StreamItem::ToolCallStarted {
            index: 0,
            id: "w".into(),
            name: "write_file".into(),
        });
        for chunk in args.as_bytes().chunks(3) {
            let chunk = std::str::from_utf8(chunk).unwrap();
            for event in builder.accept(StreamItem::ToolCallArguments {
                index: 0,
                delta: chunk.into(),
            }) {
                match event {
                    Event::FileDelta { id, path, delta } => {
                        assert_eq!((id.as_str(), path.as_str()), ("w", "x.txt"));
                        deltas.push_str(&delta);
                    }
                    other => panic!("unexpected {other:?}"),
                }
            }
        }
        assert_eq!(deltas, "a\nb é😀 \"q\"");
        assert_eq!(builder.finish().0.tool_calls[0].arguments, args);
    }

    #[test]
    fn restart_forgets_the_failed_attempt() {
        let mut builder = TurnBuilder::new(1, Tool::ALL);
        builder.accept(StreamItem::Text("partial".into()));
        builder.restart();
        builder.accept(StreamItem::Text("whole".into()));
        assert_eq!(builder.finish().0.text, "whole");
    }

    #[test]
    fn an_answer_that_repeats_itself_is_cut_after_the_first_copy() {
        let line = "I will run the tests again now.\n";
        let mut builder = TurnBuilder::new(3, Tool::ALL).cut_repeats(10);
        let mut events = builder.accept(StreamItem::Text("Intro: ".into()));
        let mut items = 0;
        for _ in 0..30 {
            if builder.cut().is_some() {
                break;
            }
            items += 1;
            events.extend(builder.accept(StreamItem::Text(line.into())));
        }
        // The tenth copy completes the repetition.
        assert_eq!(items, 10);
        let shown: String = events
            .iter()
            .filter_map(|event| match event {
                Event::TextDelta { delta, .. } => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(shown, format!("Intro: {}", line.repeat(10)));
        assert_eq!(
            events.last(),
            Some(&Event::Error {
                code: ErrorCode::LoopRepeatedText,
                message: "the answer was cut: it repeated the same text 10 times in a row: \"I will run the tests again now.\"".into(),
                fatal: false,
                attempt: None,
            })
        );
        // Nothing more is taken: no text, no tool call.
        assert_eq!(builder.accept(StreamItem::Text(line.into())), []);
        assert_eq!(
            builder.accept(StreamItem::ToolCallStarted {
                index: 0,
                id: "c1".into(),
                name: "exec".into()
            }),
            []
        );
        let told = builder.cut().unwrap().to_owned();
        assert!(told.contains("repeated the same text 10 times"), "{told}");
        assert!(told.contains("I will run the tests again now."), "{told}");
        let (turn, _) = builder.finish();
        assert_eq!(
            turn.text,
            "Intro: I will run the tests again now.\n\n[cut by the agent: this answer repeated the text above 10 times in a row]"
        );
        assert!(turn.tool_calls.is_empty());
    }

    #[test]
    fn a_retry_keeps_watching_for_repeats() {
        let mut builder = TurnBuilder::new(1, Tool::ALL).cut_repeats(10);
        builder.accept(StreamItem::Text("ab".repeat(50)));
        builder.restart();
        assert!(builder.cut().is_none());
        let events = builder.accept(StreamItem::Text("xy".repeat(150)));
        assert!(builder.cut().is_some(), "{events:?}");
        // Without the setting, nothing is cut.
        let mut plain = TurnBuilder::new(1, Tool::ALL);
        plain.accept(StreamItem::Text("xy".repeat(150)));
        assert!(plain.cut().is_none());
        assert_eq!(plain.finish().0.text, "xy".repeat(150));
    }

    #[test]
    fn a_tool_not_offered_shows_no_activity_and_no_content() {
        // Plan mode: write_file is refused when it runs, so nothing may
        // look as if it were being written meanwhile.
        let plan: Vec<Tool> = Tool::ALL
            .iter()
            .copied()
            .filter(|tool| tool.offered_in(crate::protocol::events::Mode::Plan))
            .collect();
        let mut builder = TurnBuilder::new(1, &plan);
        let mut events = builder.accept(StreamItem::ToolCallStarted {
            index: 0,
            id: "w1".into(),
            name: "write_file".into(),
        });
        events.extend(builder.accept(StreamItem::ToolCallArguments {
            index: 0,
            delta: r#"{"path":"a","content":"secret plan"}"#.into(),
        }));
        assert_eq!(events, []);
        assert_eq!(builder.finish().0.tool_calls[0].name, "write_file");
    }
}
