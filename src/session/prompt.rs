//! The system prompt. Short on purpose: it is paid for on every call, and
//! small local models have small windows.

use super::SessionConfig;
use crate::protocol::events::Mode;

pub fn system_prompt(config: &SessionConfig, mode: Mode) -> String {
    let mut prompt = format!(
        "You are a coding agent working in the folder {}. \
         Use the tools to inspect and change files and to run commands; paths are relative to that folder. \
         Look before you change things and check your work after. \
         When the task is done, reply with a short summary and no tool call.",
        config.work_dir.display()
    );
    match mode {
        Mode::Implement => {
            prompt.push_str("\n\nA plan for this task was approved. Implement it step by step.")
        }
        Mode::Plan => prompt.push_str(
            "\n\nYou are in plan mode: nothing may change yet. Investigate with the read-only tools, \
             then submit a step-by-step plan with write_plan and wait for its approval.",
        ),
        Mode::Normal => {}
    }
    if config.model_egress == super::egress::ModelEgress::Placeholders {
        prompt.push_str(
            "\n\nSecrets in tool output are shown as placeholders such as «secret:openai-key:1». \
             Write a placeholder as it is where the value belongs in a tool's arguments; the tool gets the value.",
        );
    }
    if let Some(summary) = config
        .previous_summary
        .as_deref()
        .filter(|s| !s.trim().is_empty())
    {
        prompt.push_str("\n\nSummary of the earlier work on this task:\n");
        prompt.push_str(summary);
    }
    prompt
}
