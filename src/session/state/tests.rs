use super::*;
use crate::protocol::events::TodoStatus;

fn user(text: &str) -> Message {
    Message::User {
        text: text.to_owned(),
        images: Vec::new(),
    }
}

fn todo(content: &str, status: TodoStatus) -> TodoItem {
    TodoItem {
        id: None,
        content: content.to_owned(),
        status,
    }
}

#[test]
fn usage_adds_up_and_reports_both_the_call_and_the_totals() {
    let mut state = SessionState::new(Mode::Normal);
    let call = Usage {
        input_tokens: 100,
        output_tokens: 10,
        cached_input_tokens: 60,
        reasoning_tokens: 3,
    };
    let prices = crate::model::aliases::Prices::default();
    state.count_usage(call, &prices);
    let event = state.count_usage(call, &prices);
    assert_eq!(
        event,
        Event::UsageUpdate {
            input_tokens: 100,
            output_tokens: 10,
            cached_input_tokens: 60,
            reasoning_tokens: 3,
            total_input_tokens: 200,
            total_output_tokens: 20,
            cost_usd: None,
            total_cost_usd: None,
        }
    );
    assert_eq!(state.progress.usage.cached_input_tokens, 120);
    assert_eq!(state.progress.usage.reasoning_tokens, 6);
}

#[test]
fn a_refused_todo_list_leaves_the_old_one() {
    let mut state = SessionState::new(Mode::Normal);
    let event = state.replace_todos(vec![todo("read", TodoStatus::InProgress)]);
    assert!(matches!(event, Ok(Event::TodosUpdate { ref todos }) if todos.len() == 1));
    let refused = state.replace_todos(vec![
        todo("a", TodoStatus::InProgress),
        todo("b", TodoStatus::InProgress),
    ]);
    assert!(refused.is_err());
    assert_eq!(state.progress.todos.items()[0].content, "read");
}

#[test]
fn approving_the_plan_starts_a_fresh_context_in_implement_mode() {
    let mut state = SessionState::new(Mode::Plan);
    state.conversation.push(Message::System {
        text: "plan prompt".to_owned(),
    });
    state.conversation.push(user("the task"));
    state.conversation.push(user("much exploring"));
    state
        .replace_todos(vec![todo("write it", TodoStatus::Pending)])
        .expect("a valid list");
    let messages = state.conversation.len();
    state.conversation.mark_checkpointed(messages);

    let events = state.approve_plan("1. do it".to_owned(), |mode| format!("prompt for {mode}"));

    assert_eq!(
        events,
        [
            Event::PlanConfirmed {
                plan: "1. do it".to_owned()
            },
            Event::ModeChanged {
                from: Mode::Plan,
                to: Mode::Implement
            },
        ]
    );
    assert_eq!(state.mode(), Mode::Implement);
    assert_eq!(state.progress.plan.as_deref(), Some("1. do it"));
    assert_eq!(state.conversation.len(), 2);
    assert!(
        matches!(&state.conversation[0], Message::System { text } if text == "prompt for implement")
    );
    let Message::User { text, .. } = &state.conversation[1] else {
        panic!("the task comes second: {:?}", state.conversation[1]);
    };
    assert!(text.starts_with("the task\n\n## The approved plan\n\n1. do it"));
    assert!(text.contains("[ ] write it (id 1)"), "{text}");
    // The next checkpoint must store the new context.
    assert_eq!(state.conversation.unchanged_since_checkpoint(), 0);
}

#[test]
fn a_summary_replaces_the_middle_and_keeps_plan_and_todos() {
    let mut state = SessionState::new(Mode::Implement);
    for text in ["task", "old 1", "old 2", "recent"] {
        state.conversation.push(user(text));
    }
    state.progress.plan = Some("the plan".to_owned());
    state
        .replace_todos(vec![todo("finish", TodoStatus::InProgress)])
        .expect("a valid list");
    let messages = state.conversation.len();
    state.conversation.mark_checkpointed(messages);

    state.summarised(1, 3, "  did the old things \n");

    let texts: Vec<_> = state
        .conversation
        .iter()
        .map(|message| match message {
            Message::User { text, .. } => text.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(texts.len(), 3);
    assert_eq!(texts[0], "task");
    assert_eq!(texts[2], "recent");
    assert!(texts[1].starts_with("## Summary of the earlier work\n\ndid the old things\n\n"));
    assert!(texts[1].contains("## The approved plan\n\nthe plan"));
    assert!(texts[1].contains("[>] finish (id 1)"));
    assert_eq!(state.conversation.unchanged_since_checkpoint(), 0);
}

#[test]
fn progress_round_trips_through_its_flat_checkpoint_form() {
    let mut state = SessionState::new(Mode::Plan);
    state
        .replace_todos(vec![todo("one", TodoStatus::Completed)])
        .expect("a valid list");
    state.progress.plan = Some("p".to_owned());
    state.progress.model_calls = 4;
    let json = serde_json::to_value(&state.progress).expect("serialisable");
    // The manifest's field names, which older checkpoints use too.
    for field in [
        "mode",
        "plan",
        "todos",
        "todo_next_id",
        "usage",
        "model_calls",
    ] {
        assert!(json.get(field).is_some(), "{field} missing in {json}");
    }
    let back: Progress = serde_json::from_value(json).expect("readable");
    assert_eq!(back, state.progress);
}

#[test]
fn a_restored_state_is_the_checkpoint_s_and_stores_its_conversation_again() {
    let mut saved = SessionState::new(Mode::Plan);
    saved.progress.model_calls = 7;
    saved
        .replace_todos(vec![todo("one", TodoStatus::Pending)])
        .expect("a valid list");
    let restored = SessionState::restored(saved.progress.clone(), vec![user("task")], 5);
    assert_eq!(restored.progress, saved.progress);
    assert_eq!(restored.iterations, 5);
    assert_eq!(restored.mode(), Mode::Plan);
    assert_eq!(restored.conversation.len(), 1);
    // The checkpointer forgot what it stored before the restore.
    assert_eq!(restored.conversation.unchanged_since_checkpoint(), 0);
}
