//! The model's todo list: ids that stay the same across updates, and at
//! most one item in progress.

use serde::{Deserialize, Serialize};

use crate::protocol::events::{Todo, TodoStatus};
use crate::tools::interactive::{MAX_TODOS, TodoItem};

/// Kept in checkpoints under the manifest's names for the two fields.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct TodoList {
    #[serde(rename = "todos")]
    items: Vec<Todo>,
    /// The last id handed out, so new ones stay unique after a restore.
    #[serde(rename = "todo_next_id")]
    next_id: u32,
}

impl TodoList {
    pub fn items(&self) -> &[Todo] {
        &self.items
    }

    /// The last id handed out (kept in checkpoints).
    pub fn last_id(&self) -> u32 {
        self.next_id
    }

    /// The list as a checkpoint kept it.
    pub fn restored(items: Vec<Todo>, last_id: u32) -> Self {
        TodoList {
            items,
            next_id: last_id,
        }
    }

    /// Replaces the list. An item keeps its id when the model sends it
    /// back, or, without an id, when its text is unchanged; a new item
    /// gets the next number.
    pub fn replace(&mut self, incoming: Vec<TodoItem>) -> Result<&[Todo], String> {
        if incoming.len() > MAX_TODOS {
            return Err(format!("at most {MAX_TODOS} todos; got {}", incoming.len()));
        }
        let in_progress = incoming
            .iter()
            .filter(|item| item.status == TodoStatus::InProgress)
            .count();
        if in_progress > 1 {
            return Err(format!(
                "{in_progress} todos are in_progress; at most one can be, mark the others pending or completed"
            ));
        }
        if incoming.iter().any(|item| item.content.trim().is_empty()) {
            return Err("a todo has empty content".to_owned());
        }
        let mut unclaimed: Vec<&Todo> = self.items.iter().collect();
        let mut next_id = self.next_id;
        let mut updated = Vec::with_capacity(incoming.len());
        for item in incoming {
            let by_id = item
                .id
                .as_deref()
                .and_then(|id| unclaimed.iter().position(|todo| todo.id == id));
            let by_content = || {
                unclaimed
                    .iter()
                    .position(|todo| todo.content == item.content)
            };
            let id = match by_id.or_else(by_content) {
                Some(index) => unclaimed.remove(index).id.clone(),
                None => {
                    next_id += 1;
                    next_id.to_string()
                }
            };
            if updated.iter().any(|todo: &Todo| todo.id == id) {
                return Err(format!("the id {id:?} is used twice"));
            }
            updated.push(Todo {
                id,
                content: item.content,
                status: item.status,
            });
        }
        self.items = updated;
        self.next_id = next_id;
        Ok(&self.items)
    }

    /// The list as the model reads it.
    pub fn render(&self) -> String {
        if self.items.is_empty() {
            return "(no todos)".to_owned();
        }
        self.items
            .iter()
            .map(|todo| {
                let mark = match todo.status {
                    TodoStatus::Pending => "[ ]",
                    TodoStatus::InProgress => "[>]",
                    TodoStatus::Completed => "[x]",
                };
                format!("{mark} {} (id {})", todo.content, todo.id)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: Option<&str>, content: &str, status: TodoStatus) -> TodoItem {
        TodoItem {
            id: id.map(str::to_owned),
            content: content.to_owned(),
            status,
        }
    }

    #[test]
    fn ids_are_stable_across_updates() {
        let mut list = TodoList::default();
        let first = list
            .replace(vec![
                item(None, "read code", TodoStatus::InProgress),
                item(None, "write test", TodoStatus::Pending),
            ])
            .unwrap()
            .to_vec();
        assert_eq!(first[0].id, "1");
        assert_eq!(first[1].id, "2");
        let second = list
            .replace(vec![
                item(None, "read code", TodoStatus::Completed),
                item(Some("2"), "write the test", TodoStatus::InProgress),
                item(None, "run it", TodoStatus::Pending),
            ])
            .unwrap()
            .to_vec();
        assert_eq!(
            second.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
            ["1", "2", "3"]
        );
        // A removed id is not given out again.
        let third = list
            .replace(vec![item(None, "new", TodoStatus::Pending)])
            .unwrap();
        assert_eq!(third[0].id, "4");
    }

    #[test]
    fn one_in_progress_at_most() {
        let mut list = TodoList::default();
        let err = list
            .replace(vec![
                item(None, "a", TodoStatus::InProgress),
                item(None, "b", TodoStatus::InProgress),
            ])
            .unwrap_err();
        assert!(err.contains("at most one"));
        assert!(list.items().is_empty());
    }
}
