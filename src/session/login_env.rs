//! The login environment of commands, started with the session so that
//! the profile scripts run while the model thinks (issue 13: they took 160
//! ms of a 210 ms session, in every user turn), and kept in the session
//! folder for the next turns (`tools/exec/login.rs`).

use crate::tools::exec::ExecArgs;
use crate::tools::registry::ToolDef;

use super::Session;

impl Session {
    /// Starts the capture, confined as the commands of the session's mode
    /// (restored, if it was). After `session-start`, whose first byte it
    /// would delay by a process spawn. Nothing when no command can run in
    /// this session.
    pub(super) fn start_login_env(&self) {
        if self
            .config
            .blocked_tools
            .iter()
            .any(|tool| tool == ExecArgs::NAME)
        {
            return;
        }
        let exec = self.config.exec.clone();
        exec.keep_login_env_in(&self.config.state.dir.root);
        let (mode, work_dir) = (self.state.progress.mode, self.config.work_dir.clone());
        // The fence first, on a thread of its own, and the capture once it
        // is built, fenced in its own process: started now, the capture
        // would take the trampoline, which builds the same ruleset again
        // in the child, and the two builds (a few ms each beside a crowded
        // folder) would take both cores of a small sandbox from the loop
        // while it sends the first model request. Spawned on the loop's
        // own thread (a child's parent-death signal follows the thread
        // that forked it); a session that ends first never polls it again,
        // and its end killed everything started before.
        match exec
            .policy(mode)
            .and_then(|policy| exec.sandbox.prepare(policy))
        {
            Some(built) => {
                tokio::spawn(async move {
                    let _ = built.await;
                    exec.start_login_env(mode, &work_dir);
                });
            }
            None => exec.start_login_env(mode, &work_dir),
        }
    }
}
