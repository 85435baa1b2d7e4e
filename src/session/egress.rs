//! The model boundary for secrets: what the masking rules find in a
//! tool's output reaches the model as a numbered placeholder
//! (`«secret:openai-key:1»`), and a placeholder in a tool's arguments
//! becomes the value again just before the tool runs. The model can edit
//! a `.env`, pass a key to a command or copy a config; the provider never
//! receives the value.
//!
//! The finding is the event writer's [`Redactor`] (its rules, the exact
//! values it knows, private key blocks), so the model and the events hide
//! the same things. A value found only by what stands before it
//! (`password = ...`) is taught to the redactor as an exact value: a
//! command that prints it alone (`echo "$DB_PASSWORD"`) shows it masked,
//! to the model and in the events.
//!
//! Where the values are kept: in [`Placeholders`], a field of the
//! session's `Progress`, so every checkpoint's manifest holds them in the
//! clear. A restored session must turn the placeholders of its
//! conversation back into values, and nothing but the values can do that
//! (the file that held one may have changed since). The manifest sits in
//! the session's folder (0700, files 0600) beside the checkpoint's copy of
//! the work dir, which holds the same values, and before this boundary the
//! stored conversation held them in the clear too; the journal and the
//! events, which leave the machine, show only masks and placeholders.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Session;
use crate::protocol::redact::Redactor;
use crate::tools::Tool;

/// `[secrets] model_egress`: what the model gets of a secret in a tool's
/// output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelEgress {
    /// A placeholder, the value put back in the tool's arguments.
    #[default]
    Placeholders,
    /// The value itself, as before this boundary existed.
    Clear,
}

const OPEN: &str = "«secret:";
const CLOSE: &str = "»";

/// At most this many values found by their context are taught to the
/// redactor: each teaching rebuilds its automaton of exact values (with
/// some twenty encoded forms a value), and a log of thousands of
/// `password=` lines must not make every later event slow. Past it such a
/// value is still hidden wherever its context shows it.
pub const MAX_TAUGHT: usize = 512;

/// One placeholder and the value it stands for.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
struct Held {
    /// The rule that found the value first.
    kind: String,
    /// Counted per kind from 1, in the order the values were first seen.
    number: u32,
    value: String,
    /// Found by its context (`password = `): taught to the redactor.
    #[serde(default, skip_serializing_if = "is_false")]
    context: bool,
}

fn is_false(flag: &bool) -> bool {
    !*flag
}

impl Held {
    fn placeholder(&self) -> String {
        format!("{OPEN}{}:{}{CLOSE}", self.kind, self.number)
    }
}

/// The placeholders of one session and the values they stand for: the
/// same value always gets the same placeholder.
#[derive(Clone, Default, Serialize, Deserialize)]
#[serde(from = "Vec<Held>", into = "Vec<Held>")]
pub struct Placeholders {
    /// In the order first seen; what is stored.
    held: Vec<Held>,
    by_value: HashMap<String, usize>,
    by_placeholder: HashMap<String, usize>,
}

impl From<Vec<Held>> for Placeholders {
    fn from(held: Vec<Held>) -> Self {
        let mut placeholders = Placeholders::default();
        for entry in held {
            placeholders.insert(entry);
        }
        placeholders
    }
}

impl From<Placeholders> for Vec<Held> {
    fn from(placeholders: Placeholders) -> Self {
        placeholders.held
    }
}

impl PartialEq for Placeholders {
    fn eq(&self, other: &Self) -> bool {
        self.held == other.held
    }
}

/// The placeholders only: a checkpoint's manifest is printed in debug
/// output, and the values must not be.
impl std::fmt::Debug for Placeholders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.held.iter().map(Held::placeholder))
            .finish()
    }
}

impl Placeholders {
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    fn insert(&mut self, entry: Held) -> usize {
        let index = self.held.len();
        self.by_value.insert(entry.value.clone(), index);
        self.by_placeholder.insert(entry.placeholder(), index);
        self.held.push(entry);
        index
    }

    /// The placeholder of `value`, made when it is new; and whether it is.
    fn placeholder_for(&mut self, kind: &str, value: String, context: bool) -> (String, bool) {
        if let Some(&index) = self.by_value.get(&value) {
            return (self.held[index].placeholder(), false);
        }
        let number = 1 + self.held.iter().filter(|held| held.kind == kind).count() as u32;
        let index = self.insert(Held {
            kind: kind.to_owned(),
            number,
            value,
            context,
        });
        (self.held[index].placeholder(), true)
    }

    /// `text` with every secret `redactor` finds replaced by its
    /// placeholder. Values found by their context are taught to it.
    pub fn hide(&mut self, redactor: &Redactor, text: &str) -> String {
        let mut taught = self.held.iter().filter(|held| held.context).count();
        let mut learned = Vec::new();
        let hidden = redactor.mask_with(text, &mut |found| {
            // A value may hold placeholders given earlier in this pass: a
            // key block whose lines were known holds theirs.
            let value = self.reveal_text(found.value).into_owned();
            let (placeholder, fresh) =
                self.placeholder_for(found.rule, value.clone(), found.by_context);
            if fresh && found.by_context {
                if taught < MAX_TAUGHT {
                    learned.push(value);
                }
                taught += 1;
            }
            placeholder
        });
        for value in learned {
            redactor.add_exact(&value);
        }
        hidden
    }

    /// After a restore: the redactor of this process learns what the one
    /// that found the values had been taught.
    pub fn teach(&self, redactor: &Redactor) {
        for held in self
            .held
            .iter()
            .filter(|held| held.context)
            .take(MAX_TAUGHT)
        {
            redactor.add_exact(&held.value);
        }
    }

    /// `text` with every known placeholder replaced by its value; an
    /// unknown one is left as it is. Values put in are not read again.
    pub fn reveal_text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.held.is_empty() || !text.contains(OPEN) {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(OPEN) {
            out.push_str(&rest[..at]);
            let tail = &rest[at..];
            let known = tail
                .find(CLOSE)
                .map(|end| &tail[..end + CLOSE.len()])
                .and_then(|placeholder| {
                    let index = *self.by_placeholder.get(placeholder)?;
                    Some((placeholder.len(), &self.held[index].value))
                });
            match known {
                Some((length, value)) => {
                    out.push_str(value);
                    rest = &tail[length..];
                }
                None => {
                    out.push_str(OPEN);
                    rest = &tail[OPEN.len()..];
                }
            }
        }
        out.push_str(rest);
        Cow::Owned(out)
    }

    /// `arguments` with placeholders replaced in every string, object keys
    /// included, at any depth.
    pub fn reveal<'a>(&self, arguments: &'a Value) -> Cow<'a, Value> {
        if self.held.is_empty() || !holds_placeholder(arguments) {
            return Cow::Borrowed(arguments);
        }
        Cow::Owned(self.reveal_value(arguments))
    }

    fn reveal_value(&self, value: &Value) -> Value {
        match value {
            Value::String(text) => Value::String(self.reveal_text(text).into_owned()),
            Value::Array(items) => {
                Value::Array(items.iter().map(|item| self.reveal_value(item)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(key, item)| {
                        (self.reveal_text(key).into_owned(), self.reveal_value(item))
                    })
                    .collect(),
            ),
            Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
        }
    }
}

fn holds_placeholder(value: &Value) -> bool {
    match value {
        Value::String(text) => text.contains(OPEN),
        Value::Array(items) => items.iter().any(holds_placeholder),
        Value::Object(map) => map
            .iter()
            .any(|(key, item)| key.contains(OPEN) || holds_placeholder(item)),
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
    }
}

impl Session {
    /// Whether the boundary stands between the model and the tool `name`:
    /// not for the session's own tools (`ask_user`, `write_plan`,
    /// `todo_write`), which neither read the sandbox nor act in it. Their
    /// results are a person's words or the model's own, like a prompt.
    fn guarded(name: &str) -> bool {
        !Tool::from_name(name).is_some_and(Tool::runs_in_session)
    }

    /// What the model gets of the output of the tool `name`: its secrets
    /// replaced by placeholders (unless `model_egress = "clear"`). Before
    /// any truncation: a cut through a secret leaves a part no rule knows.
    pub(super) fn for_model<'a>(&mut self, name: &str, output: &'a str) -> Cow<'a, str> {
        if self.config.model_egress == ModelEgress::Clear || !Self::guarded(name) {
            return Cow::Borrowed(output);
        }
        let redactor = self.events.redactor();
        Cow::Owned(
            self.state
                .progress
                .secret_placeholders
                .hide(redactor, output),
        )
    }

    /// The arguments the tool `name` runs with: the model's, with the
    /// placeholders it was given put back to their values. Also when
    /// `model_egress = "clear"`: a session restored under that setting
    /// still holds the placeholders an earlier process gave.
    pub(super) fn for_tool<'a>(&self, name: &str, arguments: &'a Value) -> Cow<'a, Value> {
        if !Self::guarded(name) {
            return Cow::Borrowed(arguments);
        }
        self.state.progress.secret_placeholders.reveal(arguments)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const OPENAI: &str = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";
    const OTHER: &str = "sk-proj-zyxwvutsrqponmlkjihgfedcba987654";

    fn hide(placeholders: &mut Placeholders, redactor: &Redactor, text: &str) -> String {
        placeholders.hide(redactor, text)
    }

    #[test]
    fn the_same_value_gets_the_same_placeholder_and_numbers_count_per_kind() {
        let redactor = Redactor::new([]);
        let mut p = Placeholders::default();
        assert_eq!(
            hide(
                &mut p,
                &redactor,
                &format!("a={OPENAI} b={OTHER} c={OPENAI}")
            ),
            "a=«secret:openai-key:1» b=«secret:openai-key:2» c=«secret:openai-key:1»"
        );
        // Later texts, other kinds: numbering goes on per kind.
        assert_eq!(
            hide(
                &mut p,
                &redactor,
                &format!("AKIAIOSFODNN7EXAMPLE {OTHER} password = hunter2hunter2")
            ),
            "«secret:aws-access-key-id:1» «secret:openai-key:2» password = «secret:secret-assignment:1»"
        );
        assert_eq!(
            format!("{p:?}"),
            "[\"«secret:openai-key:1»\", \"«secret:openai-key:2»\", \"«secret:aws-access-key-id:1»\", \"«secret:secret-assignment:1»\"]"
        );
        // Nothing found, nothing changed.
        assert_eq!(hide(&mut p, &redactor, "plain text"), "plain text");
    }

    #[test]
    fn a_value_found_by_its_context_is_found_alone_later_with_its_placeholder() {
        let redactor = Redactor::new([]);
        let mut p = Placeholders::default();
        assert_eq!(
            hide(&mut p, &redactor, "DB_PASSWORD=Tr0ub4dor&3xyz"),
            "DB_PASSWORD=«secret:secret-assignment:1»"
        );
        // `echo "$DB_PASSWORD"` prints it with no key before it.
        assert_eq!(
            hide(&mut p, &redactor, "Tr0ub4dor&3xyz\n"),
            "«secret:secret-assignment:1»\n"
        );
        // And the events mask it too.
        assert_eq!(
            redactor.redact("x Tr0ub4dor&3xyz"),
            "x [REDACTED:secret-value]"
        );
    }

    #[test]
    fn placeholders_go_back_to_values_in_every_string_at_any_depth() {
        let redactor = Redactor::new([]);
        let mut p = Placeholders::default();
        hide(&mut p, &redactor, &format!("{OPENAI} {OTHER}"));
        let arguments = json!({
            "command": "test \"$KEY\" = «secret:openai-key:1»",
            "nested": [{"deep": ["«secret:openai-key:2»«secret:openai-key:1»"]}],
            "«secret:openai-key:2»": 3,
            "n": 7,
        });
        assert_eq!(
            p.reveal(&arguments).into_owned(),
            json!({
                "command": format!("test \"$KEY\" = {OPENAI}"),
                "nested": [{"deep": [format!("{OTHER}{OPENAI}")]}],
                OTHER: 3,
                "n": 7,
            })
        );
        // Without a placeholder the arguments are not copied.
        let plain = json!({"command": "ls"});
        assert!(matches!(p.reveal(&plain), Cow::Borrowed(_)));
    }

    #[test]
    fn unknown_or_broken_placeholders_are_left_as_they_are() {
        let redactor = Redactor::new([]);
        let mut p = Placeholders::default();
        hide(&mut p, &redactor, OPENAI);
        for text in [
            "«secret:openai-key:2»",
            "«secret:openai-key:11»",
            "«secret:jwt:1»",
            "«secret:openai-key:1",
            "«secret:openai-key:1 »",
            "<<secret:openai-key:1>>",
        ] {
            assert_eq!(p.reveal_text(text), text);
        }
        // A broken one before a good one does not hide the good one.
        assert_eq!(
            p.reveal_text("«secret:«secret:openai-key:1»»"),
            format!("«secret:{OPENAI}»")
        );
        // An empty map touches nothing.
        assert_eq!(
            Placeholders::default().reveal_text("«secret:openai-key:1»"),
            "«secret:openai-key:1»"
        );
    }

    #[test]
    fn a_value_that_holds_another_is_a_value_of_its_own() {
        let inner = "inner-secret-value-42";
        let outer = format!("xx{inner}yy-more");
        let redactor = Redactor::new([inner.to_owned(), outer.clone()]);
        let mut p = Placeholders::default();
        // The longer known value wins where it is; the shorter gets its own.
        let text = format!("{outer} / {inner}");
        let hidden = hide(&mut p, &redactor, &text);
        assert_eq!(hidden, "«secret:secret-value:1» / «secret:secret-value:2»");
        assert_eq!(p.reveal_text(&hidden), text);
        // A known value inside an assignment's value is hidden there, and
        // the rest of the assignment, holding a placeholder, is left as
        // the events leave `xx[REDACTED:secret-value]yy`.
        let redactor = Redactor::new([inner.to_owned()]);
        let mut p = Placeholders::default();
        let text = format!("password = {outer}");
        let hidden = hide(&mut p, &redactor, &text);
        assert_eq!(hidden, "password = xx«secret:secret-value:1»yy-more");
        assert_eq!(p.reveal_text(&hidden), text);
    }

    #[test]
    fn a_key_block_whose_lines_were_known_goes_back_whole() {
        let redactor = Redactor::new([]);
        let block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----";
        redactor.learn_private_keys(block);
        let mut p = Placeholders::default();
        let hidden = hide(&mut p, &redactor, &format!("key:\n{block}\n"));
        assert!(!hidden.contains("MIIE"), "{hidden}");
        assert_eq!(p.reveal_text(&hidden), format!("key:\n{block}\n"));
    }

    #[test]
    fn placeholders_survive_a_round_trip_through_the_manifest() {
        let redactor = Redactor::new([]);
        let mut p = Placeholders::default();
        hide(
            &mut p,
            &redactor,
            &format!("{OPENAI} secret = Tr0ub4dor&3xyz"),
        );
        let stored = serde_json::to_value(&p).unwrap();
        assert_eq!(
            stored,
            json!([
                {"kind": "openai-key", "number": 1, "value": OPENAI},
                {"kind": "secret-assignment", "number": 1, "value": "Tr0ub4dor&3xyz", "context": true},
            ])
        );
        let mut restored: Placeholders = serde_json::from_value(stored).unwrap();
        assert_eq!(restored, p);
        assert_eq!(
            restored.reveal_text("«secret:secret-assignment:1»"),
            "Tr0ub4dor&3xyz"
        );
        // A fresh process's redactor learns the values found by context.
        let fresh = Redactor::new([]);
        restored.teach(&fresh);
        assert_eq!(fresh.redact("Tr0ub4dor&3xyz"), "[REDACTED:secret-value]");
        assert_eq!(
            hide(&mut restored, &fresh, &format!("{OTHER} {OPENAI}")),
            "«secret:openai-key:2» «secret:openai-key:1»"
        );
    }

    #[test]
    fn the_sessions_own_tools_are_outside_the_boundary() {
        for name in ["ask_user", "write_plan", "todo_write"] {
            assert!(!Session::guarded(name), "{name}");
        }
        for name in ["read_file", "edit_file", "exec", "web_fetch", "an_mcp_tool"] {
            assert!(Session::guarded(name), "{name}");
        }
    }

    #[test]
    fn the_writer_leaves_placeholders_alone() {
        let redactor = Redactor::new([]);
        for text in [
            "OPENAI_API_KEY=«secret:openai-key:1»",
            "aws_secret_access_key = «secret:aws-secret-access-key:1»",
            "password: «secret:secret-assignment:12», next",
            "The key is «secret:secret-assignment:1».",
            "Authorization: Bearer «secret:bearer-token:1»",
            "https://user:«secret:url-credentials:1»@example.com",
        ] {
            assert_eq!(redactor.redact(text), text);
        }
    }
}
