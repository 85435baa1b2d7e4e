//! What the MCP reload costs the loop: before every model call the
//! session asks whether the files that define the servers changed. With
//! nothing changed that is a `stat` per guarded file; measured here against
//! a change (read, hash, parse, merge) and against the relevance gate's
//! choice among 200 tools, both per call.
//!
//! `cargo bench --bench mcp_reload`

// A benchmark stops at its first failure, and its report is its output.
#![allow(clippy::expect_used, clippy::print_stdout)]

use std::time::Instant;

use agent::config::Config;
use agent::mcp::config::McpConfig;
use agent::mcp::reload::{Files, Reloader, ServerTables};
use agent::model::ToolSpec;
use agent::session::gating::{self, Gate};

const ROUNDS: u32 = 20_000;

fn parse(text: &str) -> Result<(McpConfig, ServerTables), String> {
    Config::parse(text).map(|config| (config.mcp, config.mcp_servers))
}

fn no_env(_: &str) -> Option<String> {
    None
}

fn per_call(label: &str, rounds: u32, mut call: impl FnMut(u32)) -> f64 {
    let started = Instant::now();
    for round in 0..rounds {
        call(round);
    }
    let micros = started.elapsed().as_secs_f64() * 1e6 / f64::from(rounds);
    println!("{label:<58} {micros:>9.2} µs");
    micros
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("config.toml");
    let servers = dir.path().join("servers.json");
    let mut toml = String::from("[mcp]\ngate_above = 20\n");
    for i in 0..5 {
        toml.push_str(&format!(
            "[mcp_servers.s{i}]\ncommand = \"server-{i}\"\nargs = [\"--flag\", \"${{HOME:-/root}}\"]\n"
        ));
    }
    std::fs::write(&config, &toml).expect("write config");
    std::fs::write(&servers, r#"{"mcpServers": {"x": {"command": "x"}}}"#).expect("write");
    let files = Files {
        config: Some((config.clone(), true)),
        mcp_configs: vec![servers.clone()],
        work_dir: dir.path().to_path_buf(),
        guarded: vec![config.clone(), servers],
    };
    let mut reloader = Reloader::new(files, parse, no_env);
    println!("per model call ({ROUNDS} rounds; 2 guarded files, 6 servers)");
    let unchanged = per_call("reload check, nothing changed", ROUNDS, |_| {
        assert!(reloader.check().is_none());
    });
    let changed = per_call(
        "reload check, the config rewritten (read, hash, parse)",
        2_000,
        |round| {
            std::fs::write(&config, format!("{toml}# {round}\n")).expect("rewrite");
            assert!(reloader.check().is_some());
        },
    );
    let tools: Vec<ToolSpec> = (0..200)
        .map(|i| ToolSpec {
            name: format!("mcp__s{}__tool_{i}", i % 5),
            description: format!(
                "Does task number {i} with widgets, gadgets and item {}",
                i * 7
            ),
            parameters: serde_json::json!({"type": "object"}),
        })
        .collect();
    let talk = "please run task number 42 with the gadgets and tell me what item 294 is";
    let offered = std::collections::BTreeSet::new();
    let gate = per_call("relevance gate, 200 tools, choose 10", 2_000, |_| {
        assert!(!gating::choose(&tools, talk, &offered, Gate::default()).is_empty());
    });
    println!(
        "a check with nothing changed costs {:.3} of one that reloads, {:.3} of the gate",
        unchanged / changed,
        unchanged / gate
    );
}
