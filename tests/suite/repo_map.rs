//! `repo_map` on a small repository of several languages: what a focus
//! file uses comes first, the same call answers the same bytes, the budget
//! is kept; the map in the first request when `[repo_map] context_tokens`
//! asks for it; a second session parses nothing new; a damaged cache is
//! made again.

use std::path::Path;

use serde_json::{Value, json};

use super::mock::{MockServer, Reply, openai};
use super::{Finished, Running, TestEnv, messages, one_turn};

/// What `AGENT_REPO_MAP_STATS` makes a build say: files parsed, and from
/// the cache.
fn parsed_and_cached(stderr: &str) -> Vec<(u64, u64)> {
    stderr
        .lines()
        .filter_map(|line| line.strip_prefix("repo-map: "))
        .map(|line| {
            let numbers: Vec<u64> = line
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|part| part.parse().ok())
                .collect();
            (numbers[1], numbers[2])
        })
        .collect()
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A repository in seven languages and a README.
fn fixture(work: &Path) {
    write(
        work,
        "store/db.py",
        "class Database:\n    def query_rows(self, sql):\n        return []\n\n    def _private_helper(self):\n        pass\n",
    );
    write(
        work,
        "app/main.py",
        "from store.db import Database\n\ndef run_app():\n    db = Database()\n    return db.query_rows('select 1')\n",
    );
    write(
        work,
        "web/ui.ts",
        "import { formatTitle } from './format';\nexport function renderPage(title: string): string {\n  return formatTitle(title);\n}\n",
    );
    write(
        work,
        "web/format.ts",
        "export function formatTitle(text: string): string {\n  return text.trim();\n}\n",
    );
    write(
        work,
        "core/src/lib.rs",
        "pub struct Engine {\n    speed: u32,\n}\n\nimpl Engine {\n    pub fn start_engine(&self) -> bool {\n        true\n    }\n}\n",
    );
    write(
        work,
        "core/src/main.rs",
        "fn main() {\n    let engine = Engine { speed: 1 };\n    engine.start_engine();\n}\n",
    );
    write(
        work,
        "svc/server.go",
        "package svc\n\nfunc ServeHTTP() {\n\thandleRequest()\n}\n\nfunc handleRequest() {}\n",
    );
    write(
        work,
        "java/Shop.java",
        "class Shop {\n    int checkoutTotal() { return 0; }\n}\n",
    );
    write(
        work,
        "native/area.c",
        "int compute_area(int w, int h) {\n    return w * h;\n}\n",
    );
    write(
        work,
        "lib/cart.rb",
        "class Cart\n  def total_price\n    0\n  end\nend\n",
    );
    write(work, "README.md", "# A demo\n");
}

fn repo_map_call(args: Value) -> Value {
    json!({"name": "repo_map", "args": args})
}

/// The scripted model makes `calls`, with build statistics on stderr.
fn run_with_stats(env: &TestEnv, calls: Value, more: &[&str]) -> Finished {
    let script = env.script(one_turn(calls));
    let mut command = env.script_command(&script, "map it", more);
    command.env("AGENT_REPO_MAP_STATS", "1");
    let run = Running::spawn(command).finish();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    run
}

fn outputs(run: &Finished) -> Vec<String> {
    run.tool_results()
        .iter()
        .map(|result| {
            assert_eq!(result["ok"], true, "{result}");
            result["output"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn a_focus_file_brings_what_it_uses_first_and_the_same_call_answers_the_same() {
    let env = TestEnv::offline();
    fixture(&env.work);
    let focus_py = repo_map_call(json!({"focus": ["app/main.py"], "budget_tokens": 400}));
    let calls = json!([
        focus_py,
        focus_py,
        repo_map_call(json!({"focus": ["web/ui.ts"], "budget_tokens": 400})),
        repo_map_call(json!({"focus": ["core"], "budget_tokens": 400})),
    ]);
    let run = run_with_stats(&env, calls, &[]);
    let maps = outputs(&run);
    assert_eq!(maps[0], maps[1], "same input, same bytes");
    assert!(
        maps[0].starts_with(
            "store/db.py:\n     1: class Database:\n     2: def query_rows(self, sql):\n"
        ),
        "{}",
        maps[0]
    );
    assert!(
        maps[2].starts_with("web/format.ts:\n     1: export function formatTitle("),
        "{}",
        maps[2]
    );
    assert!(
        maps[3].starts_with("core/src/lib.rs:\n     1: pub struct Engine {"),
        "{}",
        maps[3]
    );
    for map in &maps {
        assert!(map.len().div_ceil(4) <= 400, "{map}");
        // Every language's definitions are in a map this size, and the
        // files of other languages by path.
        for line in [
            "def run_app():",
            "func ServeHTTP() {",
            "int checkoutTotal() { return 0; }",
            "int compute_area(int w, int h) {",
            "def total_price",
            "\nREADME.md\n",
        ] {
            assert!(map.contains(line), "{line}: {map}");
        }
        assert!(
            map.contains("[11 of 11 files shown, best-ranked first"),
            "{map}"
        );
    }
}

#[test]
fn a_large_tree_fills_the_budget_and_no_more() {
    let env = TestEnv::offline();
    for n in 0..300 {
        write(
            &env.work,
            &format!("pkg/module_{n:03}.py"),
            &format!(
                "def handler_{n}(request, response):\n    return helper_{}(request)\n\ndef helper_{n}(value):\n    return value\n\nclass Model{n}:\n    pass\n",
                (n * 7 + 1) % 300
            ),
        );
    }
    let calls = json!([
        repo_map_call(json!({"budget_tokens": 1000})),
        repo_map_call(json!({})),
    ]);
    let run = run_with_stats(&env, calls, &[]);
    let maps = outputs(&run);
    let used = maps[0].len().div_ceil(4);
    assert!((950..=1000).contains(&used), "{used} tokens: {}", maps[0]);
    // The tool's default: the model's share of its window (the scripted
    // model is `pro`'s, 400000 tokens: 1/32 of it, at most 4096), within 5 %.
    let used = maps[1].len().div_ceil(4);
    assert!((3892..=4096).contains(&used), "{used} tokens");
}

#[test]
fn plan_mode_offers_the_map_and_runs_it() {
    let env = TestEnv::offline();
    fixture(&env.work);
    let run = run_with_stats(&env, json!([repo_map_call(json!({}))]), &["--mode", "plan"]);
    let tools = run.one("session-start")["tools"].clone();
    assert!(
        tools.as_array().unwrap().contains(&json!("repo_map")),
        "{tools}"
    );
    assert!(outputs(&run)[0].contains("store/db.py"));
}

#[test]
fn a_second_session_parses_nothing_new_and_a_damaged_cache_is_made_again() {
    let env = TestEnv::offline();
    fixture(&env.work);
    let calls = json!([repo_map_call(json!({}))]);
    let first = run_with_stats(&env, calls.clone(), &[]);
    assert_eq!(
        parsed_and_cached(&first.stderr),
        [(10, 0)],
        "{}",
        first.stderr
    );
    let second = run_with_stats(&env, calls.clone(), &[]);
    assert_eq!(
        parsed_and_cached(&second.stderr),
        [(0, 10)],
        "{}",
        second.stderr
    );
    assert_eq!(outputs(&first), outputs(&second));

    let cache = env.state_dir().join("repo-map.sqlite");
    assert!(cache.is_file());
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", cache.display()));
    }
    std::fs::write(&cache, vec![0x42; 16 * 1024]).unwrap();
    let damaged = run_with_stats(&env, calls.clone(), &[]);
    assert_eq!(
        parsed_and_cached(&damaged.stderr),
        [(10, 0)],
        "{}",
        damaged.stderr
    );
    assert_eq!(outputs(&damaged), outputs(&first));
    let again = run_with_stats(&env, calls, &[]);
    assert_eq!(
        parsed_and_cached(&again.stderr),
        [(0, 10)],
        "{}",
        again.stderr
    );
}

#[test]
fn the_map_opens_the_first_request_when_configured_and_only_then() {
    let server = MockServer::start(vec![
        Reply::stream(openai::text_turn("done")),
        Reply::stream(openai::text_turn("done")),
    ]);
    let env = TestEnv::for_server(&server);
    fixture(&env.work);
    let run = env.run(&["--prompt", "speed up the Engine"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    env.add_config("[repo_map]\ncontext_tokens = 300\n");
    let run = env.run(&["--prompt", "speed up the Engine"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let requests = server.requests();
    let task = |index: usize| {
        messages(&requests[index])[1]["content"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(!task(0).contains("<repo_map>"), "{}", task(0));
    let with_map = task(1);
    let start = with_map.find("<repo_map>\n").expect("a map");
    let end = with_map.find("</repo_map>").expect("its end");
    let map = &with_map[start..end];
    // The prompt's "Engine" weighs: its file comes first.
    let first_file = map.lines().nth(2).unwrap();
    assert_eq!(first_file, "core/src/lib.rs:", "{map}");
    assert!(map.len().div_ceil(4) <= 300 + 60, "{map}");
    assert!(with_map.ends_with("\n\nspeed up the Engine"));
}
