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
        // The fence first: the capture below starts through the
        // trampoline while it is being built, later commands without.
        if let Some(policy) = self.config.exec.policy(self.state.progress.mode) {
            self.config.exec.sandbox.prepare(policy);
        }
        self.config.exec.start_login_env(
            self.state.progress.mode,
            &self.config.work_dir,
            Some(&self.config.state.dir.root),
        );
    }
}
