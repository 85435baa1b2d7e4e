//! The `debug` tool, seen from the session: a `launch` is resolved to the
//! command line it would be as `exec` and passes the checks as that
//! `exec` would (plan mode's read-only rules, the `[approval]` exec rules,
//! the taint after flagged content); then the session's
//! [`Debugger`](crate::debug::Debugger) runs it. The debug session lives
//! as long as the agent's session at most; checkpoints do not hold it.

use serde_json::json;

use super::Session;
use crate::debug::Context;
use crate::tools::debug::{Action, DebugArgs};
use crate::tools::exec::ExecArgs;
use crate::tools::{Call, ToolOutput};

impl Session {
    pub(super) async fn debug(&mut self, id: &str, args: DebugArgs) -> ToolOutput {
        let work_dir = self.config.work_dir.clone();
        let cancel = self.control.cancel.clone();
        let exec = self.config.exec.clone();
        let ctx = Context {
            work_dir: &work_dir,
            cancel: &cancel,
            exec: &exec,
            mode: self.state.progress.mode,
        };
        if args.action != Action::Launch {
            return self.debugger.act(&args, &ctx).await;
        }
        let plan = match crate::debug::launch::plan(&work_dir, &args) {
            Ok(plan) => plan,
            Err(why) => return ToolOutput::fail(why),
        };
        let command = plan.command_line.clone();
        let as_exec = Call::Exec(ExecArgs {
            command: command.clone(),
            timeout_ms: None,
        });
        if let Err(refusal) = self
            .pass_checks(id, &as_exec, &json!({ "command": command }))
            .await
        {
            return refusal;
        }
        self.debugger.launch(plan, &ctx).await
    }
}
