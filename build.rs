//! Embeds the git revision so `--version` and `session-start.version` say
//! exactly which build is running.

use std::process::Command;

fn main() {
    // An image build has no .git (see .dockerignore): it passes the
    // revision in instead.
    let given = std::env::var("AGENT_BUILD_REVISION")
        .ok()
        .map(|rev| rev.trim().to_owned())
        .filter(|rev| !rev.is_empty() && rev != "unknown")
        // It ends up in a cargo directive line: nothing but a revision.
        .filter(|rev| {
            rev.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
        });
    let revision = given
        .or_else(git_revision)
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=AGENT_GIT_REV={revision}");
    println!("cargo:rerun-if-env-changed=AGENT_BUILD_REVISION");
    for path in [".git/HEAD", ".git/refs/heads", ".git/packed-refs"] {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}

fn git_revision() -> Option<String> {
    Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map(|rev| rev.trim().to_owned())
        .filter(|rev| !rev.is_empty())
}
