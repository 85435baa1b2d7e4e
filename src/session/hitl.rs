//! Waiting for a person: a question, an approval, a plan. A request is
//! answered on stdin (`hitl-response`, `confirm-plan`) or, with
//! `--hitl-dir`, by a response file; the first answer wins, a later one is
//! refused; the deadline applies the default decision; `cancel` ends the
//! wait. A request never hangs silently.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::protocol::commands::Decision;
use crate::protocol::events::ErrorCode;
use crate::protocol::events::{Event, HitlKind, ResolvedBy};
use crate::protocol::redact::Redactor;
use crate::protocol::{Command, EventWriter, parse_command};

/// How often `--hitl-dir` is looked at for a response file.
pub const POLL_INTERVAL: Duration = Duration::from_millis(100);
/// A response file larger than this is refused unread.
pub const MAX_RESPONSE_BYTES: u64 = 1024 * 1024;

#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub decision: Decision,
    pub data: Value,
    pub by: ResolvedBy,
}

/// The one request waiting for a person (tools run one at a time), shared
/// between the loop that waits and the stdin dispatcher that answers.
#[derive(Default)]
pub struct HitlDesk {
    state: Mutex<DeskState>,
}

#[derive(Default)]
struct DeskState {
    waiting: Option<Waiting>,
    answered: HashSet<String>,
}

struct Waiting {
    id: String,
    kind: HitlKind,
    reply: oneshot::Sender<Answer>,
}

impl HitlDesk {
    fn lock(&self) -> std::sync::MutexGuard<'_, DeskState> {
        match self.state.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    fn open(&self, id: &str, kind: HitlKind) -> oneshot::Receiver<Answer> {
        let (reply, receiver) = oneshot::channel();
        self.lock().waiting = Some(Waiting {
            id: id.to_owned(),
            kind,
            reply,
        });
        receiver
    }

    /// Whether a `hitl-response` for `id` would be taken now; the reason
    /// when not. Lets the dispatcher acknowledge before the effect.
    pub fn check_answer(&self, id: &str) -> Result<(), String> {
        let state = self.lock();
        match &state.waiting {
            Some(waiting) if waiting.id == id => Ok(()),
            _ if state.answered.contains(id) => Err(format!(
                "request {id:?} was already answered; this answer is ignored"
            )),
            _ => Err(format!("no person-in-the-loop request {id:?} is waiting")),
        }
    }

    /// The id of the plan waiting for confirmation, if one is.
    pub fn waiting_plan(&self) -> Option<String> {
        let state = self.lock();
        state
            .waiting
            .as_ref()
            .filter(|waiting| waiting.kind == HitlKind::Plan)
            .map(|waiting| waiting.id.clone())
    }

    /// Delivers an answer; false when the request was resolved meanwhile.
    pub fn answer(&self, id: &str, answer: Answer) -> bool {
        match self.take(id) {
            Some(reply) => reply.send(answer).is_ok(),
            None => false,
        }
    }

    /// Removes the waiting request; `None` when someone answered first.
    fn take(&self, id: &str) -> Option<oneshot::Sender<Answer>> {
        let mut state = self.lock();
        if state
            .waiting
            .as_ref()
            .is_some_and(|waiting| waiting.id == id)
        {
            state.answered.insert(id.to_owned());
            state.waiting.take().map(|waiting| waiting.reply)
        } else {
            None
        }
    }
}

/// What a request shows the person.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub question: Option<String>,
    pub options: Option<Vec<String>>,
    pub content: Option<String>,
    pub action: Option<String>,
    pub reason: Option<String>,
}

pub struct HitlSettings {
    pub timeout: Duration,
    pub dir: Option<PathBuf>,
}

pub enum Outcome {
    Answered(Answer),
    Cancelled,
}

/// Asks, waits for the first answer (stdin, file, deadline or cancel), and
/// reports who answered with `hitl-resolved`.
#[allow(clippy::too_many_arguments)]
pub async fn wait_for_person(
    desk: &HitlDesk,
    settings: &HitlSettings,
    events: &EventWriter,
    cancel: &CancellationToken,
    id: &str,
    kind: HitlKind,
    default_decision: Decision,
    request: Request,
) -> Outcome {
    let mut receiver = desk.open(id, kind);
    let deadline = chrono::Utc::now()
        + chrono::Duration::from_std(settings.timeout).unwrap_or(chrono::Duration::MAX);
    let event = Event::HitlRequest {
        id: id.to_owned(),
        kind,
        deadline: Some(deadline.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()),
        default_decision,
        question: request.question,
        options: request.options,
        content: request.content,
        action: request.action,
        reason: request.reason,
    };
    let files = settings
        .dir
        .as_deref()
        .map(|dir| FileTransport::new(dir, id));
    if let Some(files) = &files
        && let Err(err) = files.write_request(&event, events.redactor())
    {
        events.emit(Event::warning(
            ErrorCode::HitlDir,
            format!(
                "cannot write the request file {}: {err}; answer on stdin",
                files.request.display()
            ),
        ));
    }
    events.emit(event);

    let timeout = tokio::time::sleep(settings.timeout);
    tokio::pin!(timeout);
    let mut poll = tokio::time::interval(POLL_INTERVAL);
    poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let outcome = loop {
        tokio::select! {
            // The receiver first: once an answer is in, nothing else counts.
            biased;
            answer = &mut receiver => match answer {
                Ok(answer) => break Outcome::Answered(answer),
                // The desk dropped the sender without answering: cannot
                // happen while we hold the receiver; treat as cancel.
                Err(_) => break Outcome::Cancelled,
            },
            _ = poll.tick(), if files.is_some() => {
                let Some(files) = &files else { continue };
                match files.read_response(id) {
                    Ok(None) => {}
                    Ok(Some((decision, data))) => {
                        // Delivered to ourselves, the receiver has it; or
                        // stdin won and the receiver has that.
                        desk.answer(id, Answer { decision, data, by: ResolvedBy::File });
                    }
                    Err(problem) => {
                        events.emit(Event::warning(ErrorCode::HitlDir, problem));
                    }
                }
            }
            () = &mut timeout => {
                let answer = Answer { decision: default_decision, data: Value::Null, by: ResolvedBy::Timeout };
                desk.answer(id, answer);
            }
            () = cancel.cancelled() => {
                let answer = Answer { decision: Decision::Reject, data: Value::Null, by: ResolvedBy::Cancel };
                desk.answer(id, answer);
            }
        }
    };
    let (decision, by) = match &outcome {
        Outcome::Answered(answer) => (answer.decision, answer.by),
        Outcome::Cancelled => (Decision::Reject, ResolvedBy::Cancel),
    };
    events.emit(Event::HitlResolved {
        id: id.to_owned(),
        decision,
        by,
    });
    if let Some(files) = &files {
        files.clean_up();
    }
    match outcome {
        Outcome::Answered(answer) if answer.by == ResolvedBy::Cancel => Outcome::Cancelled,
        other => other,
    }
}

/// `DIR/ID.request.json` written by us, `DIR/ID.response.json` by the proxy.
struct FileTransport {
    request: PathBuf,
    response: PathBuf,
}

impl FileTransport {
    fn new(dir: &Path, id: &str) -> Self {
        // Tool call ids come from the model: keep them from naming paths.
        let safe: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        FileTransport {
            request: dir.join(format!("{safe}.request.json")),
            response: dir.join(format!("{safe}.response.json")),
        }
    }

    /// Masked like the event on stdout: the proxy reads this file too, and
    /// it sits on disk while the request waits.
    fn write_request(&self, event: &Event, redactor: &Redactor) -> std::io::Result<()> {
        let mut value = serde_json::to_value(event).map_err(std::io::Error::other)?;
        redactor.redact_value(&mut value);
        let mut text = value.to_string();
        text.push('\n');
        crate::state::write_atomically(&self.request, text.as_bytes())
            .map_err(std::io::Error::other)
    }

    /// The answer in the response file, once there is a valid one. A file
    /// that is not a regular file, too big, or not a matching
    /// `hitl-response` is set aside as `.invalid` with an error.
    fn read_response(&self, id: &str) -> Result<Option<(Decision, Value)>, String> {
        let Ok(meta) = std::fs::symlink_metadata(&self.response) else {
            return Ok(None);
        };
        let shown = self.response.display().to_string();
        let problem = if !meta.file_type().is_file() {
            Some(format!("{shown} is not a regular file"))
        } else if meta.len() > MAX_RESPONSE_BYTES {
            Some(format!("{shown} is over {MAX_RESPONSE_BYTES} bytes"))
        } else {
            None
        };
        let parsed = match problem {
            Some(problem) => Err(problem),
            None => match std::fs::read(&self.response) {
                Ok(bytes) => match parse_command(bytes.trim_ascii()) {
                    Ok(Command::HitlResponse {
                        id: answered,
                        decision,
                        data,
                    }) if answered == id => Ok((decision, data)),
                    Ok(Command::HitlResponse { id: answered, .. }) => {
                        Err(format!("{shown} answers {answered:?}, not {id:?}"))
                    }
                    Ok(other) => Err(format!(
                        "{shown} holds a {} command, not a hitl-response",
                        other.kind()
                    )),
                    Err(err) => Err(format!("{shown}: {err}")),
                },
                Err(err) => Err(format!("cannot read {shown}: {err}")),
            },
        };
        match parsed {
            Ok(answer) => Ok(Some(answer)),
            Err(problem) => {
                let aside = self.response.with_extension("json.invalid");
                let _ = std::fs::rename(&self.response, aside);
                Err(format!(
                    "{problem}; the file was renamed to .invalid and is ignored"
                ))
            }
        }
    }

    fn clean_up(&self) {
        let _ = std::fs::remove_file(&self.request);
        let _ = std::fs::remove_file(&self.response);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_answer_wins_and_later_ones_are_refused() {
        let desk = HitlDesk::default();
        let mut receiver = desk.open("q1", HitlKind::AskUser);
        assert_eq!(desk.check_answer("q1"), Ok(()));
        assert!(
            desk.check_answer("other")
                .unwrap_err()
                .contains("no person-in-the-loop request")
        );
        let answer = Answer {
            decision: Decision::Approve,
            data: Value::Null,
            by: ResolvedBy::Stdin,
        };
        assert!(desk.answer("q1", answer.clone()));
        assert_eq!(receiver.try_recv().unwrap(), answer);
        assert!(!desk.answer("q1", answer));
        assert!(
            desk.check_answer("q1")
                .unwrap_err()
                .contains("already answered")
        );
    }

    #[test]
    fn ids_cannot_name_paths() {
        let files = FileTransport::new(Path::new("/hitl"), "../../etc/x");
        assert_eq!(files.request, Path::new("/hitl/______etc_x.request.json"));
    }
}
