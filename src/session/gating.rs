//! Which tools from outside (MCP) a request offers when there are too many
//! to offer them all. Each tool's name and description is a document; the
//! recent conversation is the query; Okapi BM25 ranks them. The tools a
//! session has used stay offered whatever their score: a tool that entered
//! the conversation never disappears from it, so the model is never shown
//! a call to a tool it can no longer make. Built-in tools are not gated.
//!
//! Lexical on purpose: no model call, no embedding table in the binary,
//! the same answer every time, and a few microseconds per tool.

use std::collections::{BTreeSet, HashMap};

use crate::model::ToolSpec;

/// BM25's usual constants: term frequency saturates around `K1`, and a
/// long description is damped by `B`.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Words that say nothing about what a tool does.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "has",
    "have", "i", "if", "in", "into", "is", "it", "its", "me", "mcp", "my", "of", "on", "or",
    "please", "that", "the", "their", "then", "this", "to", "tool", "use", "was", "we", "what",
    "when", "which", "will", "with", "you", "your",
];

/// How many tools are offered, and from how many on the gate applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate {
    /// Gating starts when the servers offer more than this many tools.
    pub above: usize,
    /// How many of them a request offers (besides those already used).
    pub offered: usize,
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            above: 20,
            offered: 10,
        }
    }
}

/// The words of a text: lower case, split at anything that is not a
/// letter or a digit and between a lower-case letter and an upper-case
/// one (`createIssue`, `create_issue` and `create-issue` read alike).
pub fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            flush(&mut current, &mut words);
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            flush(&mut current, &mut words);
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    flush(&mut current, &mut words);
    words
}

fn flush(current: &mut String, words: &mut Vec<String>) {
    if !current.is_empty() && !STOP_WORDS.contains(&current.as_str()) {
        words.push(std::mem::take(current));
    }
    current.clear();
}

/// The tools as documents, ready to be ranked against any query.
pub struct Index {
    /// Per tool, how often each of its words occurs, and its length.
    documents: Vec<(HashMap<String, u32>, usize)>,
    /// Per word, in how many tools it occurs.
    frequency: HashMap<String, usize>,
    average_length: f64,
}

impl Index {
    pub fn new(tools: &[ToolSpec]) -> Index {
        let mut documents = Vec::with_capacity(tools.len());
        let mut frequency: HashMap<String, usize> = HashMap::new();
        for tool in tools {
            let mut counts: HashMap<String, u32> = HashMap::new();
            let text = format!("{} {}", tool.name, tool.description);
            let words = words(&text);
            for word in &words {
                *counts.entry(word.clone()).or_default() += 1;
            }
            for word in counts.keys() {
                *frequency.entry(word.clone()).or_default() += 1;
            }
            documents.push((counts, words.len()));
        }
        let total: usize = documents.iter().map(|(_, length)| length).sum();
        let average_length = if documents.is_empty() {
            1.0
        } else {
            (total as f64 / documents.len() as f64).max(1.0)
        };
        Index {
            documents,
            frequency,
            average_length,
        }
    }

    /// Each tool's BM25 score for `query`, in the order of the tools.
    pub fn scores(&self, query: &str) -> Vec<f64> {
        let mut terms = words(query);
        terms.sort();
        terms.dedup();
        let count = self.documents.len() as f64;
        self.documents
            .iter()
            .map(|(counts, length)| {
                terms
                    .iter()
                    .filter_map(|term| {
                        let tf = f64::from(*counts.get(term)?);
                        let df = *self.frequency.get(term)? as f64;
                        let idf = ((count - df + 0.5) / (df + 0.5) + 1.0).ln();
                        let norm = K1 * (1.0 - B + B * *length as f64 / self.average_length);
                        Some(idf * tf * (K1 + 1.0) / (tf + norm))
                    })
                    .sum()
            })
            .collect()
    }

    /// The indices of the `limit` best tools for `query`, best first; a tie
    /// goes to the earlier tool, so the choice is the same every time.
    /// Tools that share no word with the query are not chosen.
    pub fn best(&self, query: &str, limit: usize) -> Vec<usize> {
        let scores = self.scores(query);
        let mut ranked: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] > 0.0).collect();
        ranked.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        ranked.truncate(limit);
        ranked
    }
}

/// The tools from outside a request offers: all of them up to the gate;
/// above it, the tools already used in the session and the `gate.offered`
/// best for the recent conversation. In the order the servers listed them,
/// so that a request's tool list changes only where the choice changed.
pub fn choose(
    tools: &[ToolSpec],
    recent: &str,
    used: &BTreeSet<String>,
    gate: Gate,
) -> Vec<ToolSpec> {
    if tools.len() <= gate.above {
        return tools.to_vec();
    }
    let index = Index::new(tools);
    let mut chosen: BTreeSet<usize> = index.best(recent, gate.offered).into_iter().collect();
    chosen.extend(
        tools
            .iter()
            .enumerate()
            .filter(|(_, tool)| used.contains(&tool.name))
            .map(|(i, _)| i),
    );
    chosen.into_iter().map(|i| tools[i].clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str) -> ToolSpec {
        ToolSpec {
            name: name.to_owned(),
            description: description.to_owned(),
            parameters: serde_json::json!({"type": "object"}),
        }
    }

    fn catalogue() -> Vec<ToolSpec> {
        let mut tools = vec![
            tool(
                "mcp__github__create_issue",
                "Create a new issue in a GitHub repository",
            ),
            tool(
                "mcp__github__list_pull_requests",
                "List pull requests of a repository",
            ),
            tool("mcp__db__runQuery", "Run a read-only SQL query on Postgres"),
            tool(
                "mcp__calendar__create_event",
                "Create a calendar event with attendees",
            ),
            tool("mcp__weather__forecast", "Weather forecast for a city"),
        ];
        for i in 0..30 {
            tools.push(tool(
                &format!("mcp__misc__noop_{i}"),
                "Does nothing useful, a placeholder",
            ));
        }
        tools
    }

    #[test]
    fn words_split_names_and_drop_stop_words() {
        assert_eq!(
            words("mcp__db__runQuery: Run the SQL-query"),
            ["db", "run", "query", "run", "sql", "query"]
        );
        assert_eq!(
            words("createIssue HTTP2Server"),
            ["create", "issue", "http2", "server"]
        );
    }

    #[test]
    fn the_tools_the_conversation_speaks_of_come_first() {
        let index = Index::new(&catalogue());
        let best = index.best("Please open an issue on GitHub about the crash", 2);
        assert_eq!(best[0], 0, "create_issue first");
        let best = index.best(
            "how many rows does the orders table have? run a SQL query",
            1,
        );
        assert_eq!(best, [2]);
        assert!(index.best("zzz unknown words", 5).is_empty());
    }

    #[test]
    fn under_the_gate_everything_is_offered() {
        let tools: Vec<ToolSpec> = catalogue().into_iter().take(20).collect();
        let chosen = choose(&tools, "weather", &BTreeSet::new(), Gate::default());
        assert_eq!(chosen.len(), 20);
    }

    #[test]
    fn above_the_gate_the_best_and_the_used_are_offered_in_server_order() {
        let tools = catalogue();
        let used = BTreeSet::from(["mcp__misc__noop_29".to_owned()]);
        let gate = Gate {
            above: 20,
            offered: 2,
        };
        let chosen = choose(&tools, "what is the weather forecast in Oslo", &used, gate);
        let names: Vec<&str> = chosen.iter().map(|tool| tool.name.as_str()).collect();
        assert_eq!(names, ["mcp__weather__forecast", "mcp__misc__noop_29"]);
        // The same inputs, the same choice.
        let again = choose(&tools, "what is the weather forecast in Oslo", &used, gate);
        assert_eq!(chosen, again);
    }

    #[test]
    fn a_used_tool_stays_when_the_talk_moves_on() {
        let tools = catalogue();
        let used = BTreeSet::from(["mcp__db__runQuery".to_owned()]);
        let chosen = choose(&tools, "create a calendar event", &used, Gate::default());
        assert!(chosen.iter().any(|tool| tool.name == "mcp__db__runQuery"));
        assert!(
            chosen
                .iter()
                .any(|tool| tool.name == "mcp__calendar__create_event")
        );
    }
}
