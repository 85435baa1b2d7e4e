//! The loop breaker: a model that repeats a call, or keeps failing with
//! one tool, is stopped before it burns the budget to `--max-iterations`.
//!
//! Pure: it sees each call before it runs and its outcome after, over the
//! calls since the last user message, and says whether the next one runs.
//! The tiers are checked in a fixed order (docs/protocol.md, "Loops"):
//! a long run of failures of one tool ends the session; five identical
//! calls, three identical failures in a row, or six failures in a row of one
//! tool block the call and tell the model why.

use serde::Deserialize;
use serde_json::Value;

use crate::protocol::events::ErrorCode;
use crate::tools::truncate::head_tail;

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LoopBreakerConfig {
    /// Off: every call runs and no answer is cut.
    pub enabled: bool,
    /// The Nth identical call (same tool, same arguments, any outcome) is
    /// not run.
    pub identical_calls: u32,
    /// The Nth identical call after N-1 identical failures in a row is not run.
    pub identical_failures: u32,
    /// The Nth call of a tool after N-1 failures of it in a row is not run.
    pub tool_failures: u32,
    /// The Nth call of a tool after N-1 failures of it in a row ends the
    /// session (`exit_reason: "stuck"`).
    pub stuck_after: u32,
    /// A streamed answer that repeats one piece of text this many times in
    /// a row is cut.
    pub repeated_text: u32,
}

impl Default for LoopBreakerConfig {
    fn default() -> Self {
        LoopBreakerConfig {
            enabled: true,
            identical_calls: 5,
            identical_failures: 3,
            tool_failures: 6,
            stuck_after: 8,
            repeated_text: 10,
        }
    }
}

impl LoopBreakerConfig {
    pub fn validate(&self) -> Result<(), String> {
        // 1 would refuse a call before anything was tried.
        for (name, value) in [
            ("identical_calls", self.identical_calls),
            ("identical_failures", self.identical_failures),
            ("tool_failures", self.tool_failures),
            ("stuck_after", self.stuck_after),
        ] {
            if !(2..=100).contains(&value) {
                return Err(format!("loop_breaker.{name} must be between 2 and 100"));
            }
        }
        if !(2..=1000).contains(&self.repeated_text) {
            return Err("loop_breaker.repeated_text must be between 2 and 1000".into());
        }
        Ok(())
    }
}

/// Which rule stopped a call; each has its own `error` code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    Stuck,
    IdenticalCalls,
    IdenticalFailures,
    ToolFailures,
}

impl Tier {
    pub fn code(self) -> ErrorCode {
        match self {
            Tier::Stuck => ErrorCode::LoopStuck,
            Tier::IdenticalCalls => ErrorCode::LoopIdenticalCalls,
            Tier::IdenticalFailures => ErrorCode::LoopIdenticalFailures,
            Tier::ToolFailures => ErrorCode::LoopToolFailures,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Run,
    /// Not run; `message` is the call's result for the model (and the
    /// `error` event's text). With [`Tier::Stuck`] the session ends.
    Block {
        tier: Tier,
        message: String,
    },
}

/// One call since the last user message.
struct Record {
    tool: String,
    /// A hash of the arguments in canonical JSON: a `write_file` holds a
    /// whole file, and a thousand of them need not stay in memory.
    args: u64,
    /// The start and end of the arguments, to show.
    shown: String,
    ok: bool,
    /// The start and end of its output; `None` when it was not run.
    excerpt: Option<String>,
}

/// How much of a result is kept to quote back to the model.
const EXCERPT_BYTES: usize = 600;
/// Older calls are forgotten: a session this long has other problems.
const MAX_HISTORY: usize = 1000;

pub struct LoopBreaker {
    config: LoopBreakerConfig,
    history: Vec<Record>,
}

impl LoopBreaker {
    pub fn new(config: LoopBreakerConfig) -> Self {
        LoopBreaker {
            config,
            history: Vec::new(),
        }
    }

    /// A user message (the prompt or an `inject`) starts over: the person
    /// may have changed what the same call will find.
    pub fn user_spoke(&mut self) {
        self.history.clear();
    }

    /// Whether the call runs. A call that does not is recorded here as a
    /// failure of its tool, so the tiers after it count it.
    pub fn before(&mut self, tool: &str, args: &Value) -> Verdict {
        if !self.config.enabled {
            return Verdict::Run;
        }
        let (hash, shown) = fingerprint(args);
        let verdict = self.judge(tool, hash);
        if let Verdict::Block { .. } = verdict {
            self.record(Record {
                tool: tool.to_owned(),
                args: hash,
                shown,
                ok: false,
                excerpt: None,
            });
        }
        verdict
    }

    /// The outcome of a call that ran.
    pub fn after(&mut self, tool: &str, args: &Value, ok: bool, output: &str) {
        if !self.config.enabled {
            return;
        }
        let (hash, shown) = fingerprint(args);
        self.record(Record {
            tool: tool.to_owned(),
            args: hash,
            shown,
            ok,
            excerpt: Some(head_tail(output, EXCERPT_BYTES)),
        });
    }

    fn record(&mut self, record: Record) {
        if self.history.len() >= MAX_HISTORY {
            self.history.remove(0);
        }
        self.history.push(record);
    }

    fn judge(&self, tool: &str, args: u64) -> Verdict {
        let config = &self.config;
        // The failures since the last success of any tool: a success (an
        // edit, say) may be what makes the same command pass next time.
        let failing = || self.history.iter().rev().take_while(|call| !call.ok);
        let same = |call: &&Record| call.tool == tool && call.args == args;
        let tool_failures = failing().filter(|call| call.tool == tool).count();
        let identical = self.history.iter().filter(same).count();
        let identical_failures = failing().filter(same).count();
        let reached = |count: usize, limit: u32| count + 1 >= limit as usize;
        let (tier, message) = if reached(tool_failures, config.stuck_after) {
            (
                Tier::Stuck,
                format!(
                    "the session stops: {tool} failed {tool_failures} times in a row (calls not run included){}",
                    self.last_failure(tool)
                ),
            )
        } else if reached(identical, config.identical_calls) {
            let result = self
                .history
                .iter()
                .rev()
                .filter(same)
                .find_map(|call| call.excerpt.as_deref())
                .unwrap_or("(not run)");
            (
                Tier::IdenticalCalls,
                format!(
                    "not run: this call was already made {identical} times since the last user message; its last result was:\n{result}\nDo something different."
                ),
            )
        } else if reached(identical_failures, config.identical_failures) {
            (
                Tier::IdenticalFailures,
                format!(
                    "not run: this exact call failed {identical_failures} times in a row and would fail again. Change your approach: read the error, check your assumptions, try other arguments or another tool."
                ),
            )
        } else if reached(tool_failures, config.tool_failures) {
            (
                Tier::ToolFailures,
                format!(
                    "not run: this tool failed {tool_failures} times in a row, with any arguments{}\nStop and change your approach before using {tool} again: read the errors, check your assumptions, or do something else first.",
                    self.last_failure(tool)
                ),
            )
        } else {
            return Verdict::Run;
        };
        Verdict::Block { tier, message }
    }

    /// "; the last that ran: TOOL ARGS -> OUTPUT", for the last failure of
    /// `tool` in the current run of failures that was run.
    fn last_failure(&self, tool: &str) -> String {
        self.history
            .iter()
            .rev()
            .take_while(|call| !call.ok)
            .filter(|call| call.tool == tool)
            .find_map(|call| {
                let excerpt = call.excerpt.as_deref()?;
                Some(format!(
                    "; the last that ran: {tool} {} ->\n{excerpt}",
                    call.shown
                ))
            })
            .unwrap_or_default()
    }
}

/// The hash of the canonical arguments, and their start and end to show.
fn fingerprint(args: &Value) -> (u64, String) {
    use std::hash::{Hash, Hasher};
    let canonical = canonical(args);
    // SipHash with fixed keys: the same within the process, which is all
    // a history that lives in memory needs; a collision is 1 in 2^64.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    canonical.hash(&mut hasher);
    (hasher.finish(), head_tail(&canonical, 300))
}

/// JSON with the keys of every object sorted, so that the order the model
/// wrote them in does not make two calls differ (the crate keeps insertion
/// order, `preserve_order`).
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (index, (key, value)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                write_canonical(value, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            out.push_str(&value.to_string());
        }
    }
}

#[cfg(test)]
mod tests;
mod wiring;
pub(super) use wiring::loop_args;
