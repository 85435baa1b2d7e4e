//! Skills: found in the work dir and the user's folder, listed in the
//! first request (names, descriptions, paths), the body only after the
//! `skill` call; a broken SKILL.md is reported and skipped; the work dir
//! wins a name clash; the listing stays within 2 % of the window.

use std::path::Path;

use serde_json::json;

use super::mock::{MockServer, Reply, openai};
use super::{TestEnv, messages};

pub fn write_skill(folder: &Path, name: &str, description: &str, body: &str) {
    std::fs::create_dir_all(folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n"),
    )
    .unwrap();
}

/// The user's skills folder of this environment (under its config folder).
pub fn user_skills(env: &TestEnv) -> std::path::PathBuf {
    env.root.path().join("home/.config/agent/skills")
}

/// The `<skills>` block of a first user message.
fn listing(task: &str) -> &str {
    let start = task.find("<skills>\n").expect("a <skills> block");
    let end = task.find("</skills>").expect("the block's end") + "</skills>".len();
    &task[start..end]
}

fn first_user_text(request: &super::mock::Recorded) -> String {
    messages(request)
        .iter()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

fn tool_texts(request: &super::mock::Recorded) -> Vec<String> {
    messages(request)
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn skill_call(name: &str) -> Reply {
    Reply::stream(openai::tool_turn(&[("s1", "skill", json!({"name": name}))]))
}

#[test]
fn the_listing_is_in_the_first_request_and_the_body_comes_only_with_the_skill_call() {
    let server = MockServer::start(vec![
        skill_call("pdf"),
        Reply::stream(openai::text_turn("done")),
    ]);
    let env = TestEnv::for_server(&server);
    let folder = env.work.join(".agents/skills/pdf");
    write_skill(
        &folder,
        "pdf",
        "Extract text from PDF files.",
        "PDF-BODY-MARKER: run scripts/extract.py",
    );
    std::fs::create_dir_all(folder.join("scripts")).unwrap();
    std::fs::write(folder.join("scripts/extract.py"), "print('x')\n").unwrap();
    let run = env.run(&["--prompt", "read the pdf"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let tools = run.one("session-start")["tools"].clone();
    assert!(
        tools.as_array().unwrap().contains(&json!("skill")),
        "{tools}"
    );

    let requests = server.requests();
    let task = first_user_text(&requests[0]);
    let block = listing(&task);
    assert!(
        block.contains("\n- pdf: Extract text from PDF files. (.agents/skills/pdf/SKILL.md)\n"),
        "{block}"
    );
    assert!(task.ends_with("\n\nread the pdf"), "the task stays last");
    assert!(
        !requests[0].body.to_string().contains("PDF-BODY-MARKER"),
        "the body is not in the first request"
    );
    assert!(requests[0].offered_tools().contains(&"skill".to_owned()));

    let results = tool_texts(&requests[1]);
    assert_eq!(results.len(), 1);
    assert!(
        results[0].starts_with(
            "<skill name=\"pdf\" path=\".agents/skills/pdf/SKILL.md\">\nPDF-BODY-MARKER"
        ),
        "{}",
        results[0]
    );
    assert!(
        results[0].contains("- scripts/extract.py (11 bytes)"),
        "{}",
        results[0]
    );
    let result = run.one("tool-result");
    assert_eq!(result["ok"], true);
    assert!(
        result.get("flags").is_none(),
        "a skill is not third-party content"
    );
    // The first message is the same bytes in every request: cacheable.
    assert_eq!(first_user_text(&requests[1]), task);
}

#[test]
fn without_skills_there_is_no_listing_and_no_tool() {
    let server = MockServer::start(vec![Reply::stream(openai::text_turn("done"))]);
    let env = TestEnv::for_server(&server);
    let run = env.run(&["--prompt", "hi"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let tools = &run.one("session-start")["tools"];
    assert!(
        !tools.as_array().unwrap().contains(&json!("skill")),
        "{tools}"
    );
    let request = &server.requests()[0];
    assert!(!first_user_text(request).contains("<skills>"));
    assert!(!request.offered_tools().contains(&"skill".to_owned()));
}

#[test]
fn skills_can_be_turned_off_and_are_read_in_plan_mode() {
    let env = TestEnv::offline();
    write_skill(
        &env.work.join(".claude/skills/review"),
        "review",
        "Review code.",
        "REVIEW-BODY",
    );
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "skill", "args": {"name": "review"}}]},
        {"text": "done"}
    ]}));
    let run = env.run_script(&script, "plan it", &["--mode", "plan"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let tools = &run.one("session-start")["tools"];
    assert!(
        tools.as_array().unwrap().contains(&json!("skill")),
        "{tools}"
    );
    let result = run.one("tool-result");
    assert_eq!(result["ok"], true, "{result}");
    assert!(result["output"].as_str().unwrap().contains("REVIEW-BODY"));
    assert_eq!(run.one("activity")["activity"], "reading-file");

    env.add_config("[skills]\nenabled = false\n");
    let off = env.run_script(&script, "plan it", &[]);
    let tools = &off.one("session-start")["tools"];
    assert!(
        !tools.as_array().unwrap().contains(&json!("skill")),
        "{tools}"
    );
    let refused = off.one("tool-result");
    assert_eq!(refused["ok"], false);
    assert!(
        refused["output"]
            .as_str()
            .unwrap()
            .contains("unknown tool \"skill\"")
    );
}

#[test]
fn a_broken_skill_md_is_reported_and_the_session_goes_on() {
    let env = TestEnv::offline();
    write_skill(
        &env.work.join(".agents/skills/good"),
        "good",
        "Works.",
        "GOOD-BODY",
    );
    let broken = env.work.join(".claude/skills/broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(
        broken.join("SKILL.md"),
        "---\nname: broken\n---\nno description\n",
    )
    .unwrap();
    let script = env.script(json!({"turns": [
        {"tool_calls": [
            {"name": "skill", "args": {"name": "good"}},
            {"name": "skill", "args": {"name": "broken"}}
        ]},
        {"text": "done"}
    ]}));
    let run = env.run_script(&script, "go", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.exit_reason(), "completed");
    let error = run.one("error");
    assert_eq!(error["code"], "skill-invalid");
    assert_eq!(error["fatal"], false);
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains(".claude/skills/broken/SKILL.md") && message.contains("no `description`"),
        "{message}"
    );
    let results = run.tool_results();
    assert_eq!(results[0]["ok"], true);
    assert!(results[0]["output"].as_str().unwrap().contains("GOOD-BODY"));
    assert_eq!(results[1]["ok"], false);
    assert!(
        results[1]["output"]
            .as_str()
            .unwrap()
            .contains("no skill named \"broken\"; the skills are: good"),
        "{}",
        results[1]
    );
}

#[test]
fn the_work_dir_wins_a_name_clash_and_the_users_skills_are_listed_too() {
    let server = MockServer::start(vec![
        skill_call("deploy"),
        Reply::stream(openai::text_turn("done")),
    ]);
    let env = TestEnv::for_server(&server);
    let user = user_skills(&env);
    write_skill(
        &env.work.join(".agents/skills/deploy"),
        "deploy",
        "From agents.",
        "BODY-AGENTS",
    );
    write_skill(
        &env.work.join(".claude/skills/deploy"),
        "deploy",
        "From claude.",
        "BODY-CLAUDE",
    );
    write_skill(
        &user.join("deploy"),
        "deploy",
        "From the user.",
        "BODY-USER",
    );
    write_skill(
        &user.join("notes"),
        "notes",
        "The user's notes.",
        "BODY-NOTES",
    );
    let run = env.run(&["--prompt", "ship it"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let requests = server.requests();
    let task = first_user_text(&requests[0]);
    let block = listing(&task);
    assert!(
        block.contains("- deploy: From agents. (.agents/skills/deploy/SKILL.md)"),
        "{block}"
    );
    assert!(
        !block.contains("From claude") && !block.contains("From the user"),
        "{block}"
    );
    let user_file = user.canonicalize().unwrap().join("notes/SKILL.md");
    assert!(
        block.contains(&format!(
            "- notes: The user's notes. ({})",
            user_file.display()
        )),
        "{block}"
    );
    let result = &tool_texts(&requests[1])[0];
    assert!(result.contains("BODY-AGENTS"), "{result}");
    assert!(!result.contains("BODY-CLAUDE") && !result.contains("BODY-USER"));
}

#[test]
fn the_listing_stays_within_two_percent_of_the_window_shortening_descriptions() {
    let server = MockServer::start(vec![Reply::stream(openai::text_turn("done"))]);
    let env = TestEnv::for_server(&server);
    // 2 % of 50,000 tokens: 1,000 tokens, 4,000 bytes.
    env.add_config(
        "[models.small]\nformat = \"openai\"\nmodel = \"small-mock\"\ncontext_window = 50000\n",
    );
    let long = "Use this skill for a particular kind of work. ".repeat(14);
    for i in 0..8 {
        write_skill(
            &env.work.join(format!(".agents/skills/s{i}")),
            &format!("skill-{i}"),
            &long,
            "body",
        );
    }
    let run = env.run(&["--prompt", "go", "--model", "small"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let task = first_user_text(&server.requests()[0]);
    let block = listing(&task);
    assert!(block.len() <= 4_000, "{} bytes", block.len());
    assert!(
        block.len() > 3_500,
        "the budget is used: {} bytes",
        block.len()
    );
    for i in 0..8 {
        let line = block
            .lines()
            .find(|line| line.starts_with(&format!("- skill-{i}: Use this skill")))
            .unwrap_or_else(|| panic!("skill-{i} is listed with a description: {block}"));
        assert!(
            line.ends_with(&format!("… (.agents/skills/s{i}/SKILL.md)")),
            "{line}"
        );
    }
}
