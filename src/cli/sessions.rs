//! `agent sessions search` and `agent sessions list`: the index of every
//! session's journal (`state/search/`), caught up first, read by a
//! person or a proxy. One JSON object per line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::json;

use super::{SessionsCommand, USAGE_EXIT};
use crate::config::Config;
use crate::protocol::writer::print_text;
use crate::state::search::{Index, SearchError, query};
use crate::state::{self, SessionDir};

pub fn run(
    command: SessionsCommand,
    state_dir: Option<PathBuf>,
    config_path: Option<&Path>,
) -> ExitCode {
    let config = match Config::load(config_path) {
        Ok((config, _)) => config,
        Err(err) => {
            crate::diag!("agent: error: {err}");
            return ExitCode::from(USAGE_EXIT);
        }
    };
    let Some(state_dir) = state_dir else {
        crate::diag!("agent: error: no state folder: set --state-dir or AGENT_STATE_DIR");
        return ExitCode::from(USAGE_EXIT);
    };
    if let SessionsCommand::Search { query: words, .. } = &command
        && query::fts_query(&words.join(" ")).is_none()
    {
        crate::diag!("agent: error: the query has no word to look for (letters or digits)");
        return ExitCode::from(USAGE_EXIT);
    }
    // Nothing was ever run here: nothing to find, and no folder to make.
    if !state_dir.join("sessions").is_dir() {
        return ExitCode::SUCCESS;
    }
    let max = config.session_search.max_index_bytes();
    let result = Index::open(&state_dir, max).and_then(|mut index| {
        index.catch_up()?;
        match command {
            SessionsCommand::Search {
                query,
                limit,
                session_id,
            } => search(&mut index, &query.join(" "), usize::from(limit), session_id),
            SessionsCommand::List => list(&mut index, &state_dir),
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(SearchError::EmptyQuery) => {
            crate::diag!("agent: error: the query has no word to look for (letters or digits)");
            ExitCode::from(USAGE_EXIT)
        }
        Err(err) => {
            crate::diag!("agent: error: {err}");
            ExitCode::from(1)
        }
    }
}

fn search(
    index: &mut Index,
    text: &str,
    limit: usize,
    session: Option<String>,
) -> Result<(), SearchError> {
    let results = index.search(text, session.as_deref(), limit)?;
    let mut out = String::new();
    for hit in &results.hits {
        out.push_str(&serde_json::to_string(hit).unwrap_or_default());
        out.push('\n');
    }
    if results.sessions_left_out > 0 {
        let partial = json!({
            "partial": true,
            "sessions_left_out": results.sessions_left_out,
            "reason": "the index's size cap ([session_search] max_index_mb) dropped the least recently used sessions",
        });
        out.push_str(&format!("{partial}\n"));
    }
    print_text(&out);
    Ok(())
}

fn list(index: &mut Index, state_dir: &Path) -> Result<(), SearchError> {
    let mut out = String::new();
    for row in index.sessions()? {
        let line = json!({
            "session_id": row.id,
            "started": row.started,
            "last_ts": row.last_ts,
            "events": row.events,
            "last_seq": row.last_seq,
            "work_dir": row.work_dir,
            "model": row.model,
            "live": state::is_live(&SessionDir::new(state_dir, &row.id)),
            "indexed": !row.dropped,
        });
        out.push_str(&format!("{line}\n"));
    }
    print_text(&out);
    Ok(())
}
