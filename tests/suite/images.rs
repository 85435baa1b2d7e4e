//! Images: `--image` with the prompt, and `read_file` on a picture, in both
//! wire formats.

use serde_json::json;

use super::mock::{MockServer, Reply, anthropic, openai};
use super::{TestEnv, messages};

/// A 1x1 PNG.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\0\0\0\rIDATx\x9cc\xf8\x0f\0\0\x01\x01\0\x05\x18\xd8N\0\0\0\0IEND\xaeB`\x82";
const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4DwAAAQEABRjYTgAAAABJRU5ErkJggg==";

#[test]
fn image_flag_sends_the_picture_with_the_prompt_in_both_formats() {
    let server = MockServer::start(vec![Reply::stream(openai::text_turn("a dot"))]);
    let env = TestEnv::for_server(&server);
    let file = env.root.path().join("dot.png");
    std::fs::write(&file, PNG).unwrap();
    let run = env.run(&[
        "--prompt",
        "what is this?",
        "--image",
        file.to_str().unwrap(),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let user = &messages(&server.requests()[0])[1];
    assert_eq!(user["content"][0]["type"], "text");
    assert!(super::is_task(&user["content"][0]["text"], "what is this?"));
    assert_eq!(
        user["content"][1],
        json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG_BASE64}")}})
    );

    let mut stream = vec![anthropic::message_start(5)];
    stream.extend(anthropic::text_block(0, &["a dot"]));
    stream.extend(anthropic::message_end("end_turn", 2));
    let server = MockServer::start(vec![Reply::stream(stream)]);
    let env = TestEnv::for_server(&server);
    std::fs::write(env.root.path().join("dot.png"), PNG).unwrap();
    let path = env.root.path().join("dot.png");
    let run = env.run(&[
        "--prompt",
        "what?",
        "--model",
        "claude",
        "--image",
        path.to_str().unwrap(),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let content = &server.requests()[0].body["messages"][0]["content"];
    assert_eq!(
        content[0],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_BASE64}})
    );
    assert!(super::is_task(&content[1]["text"], "what?"));
}

#[test]
fn image_flag_downloads_a_url() {
    let server = MockServer::start(vec![
        Reply::Bytes {
            content_type: "image/png".into(),
            body: PNG.to_vec(),
        },
        Reply::stream(openai::text_turn("ok")),
    ]);
    let env = TestEnv::for_server(&server);
    let url = format!("{}/dot.png", server.url);
    let run = env.run(&["--prompt", "look", "--image", &url]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/dot.png");
    let user = &messages(&requests[1])[1];
    assert!(
        user["content"][1]["image_url"]["url"]
            .as_str()
            .unwrap()
            .ends_with(PNG_BASE64)
    );
}

#[test]
fn bad_images_are_usage_errors() {
    let env = TestEnv::offline();
    let text = env.root.path().join("notes.png");
    std::fs::write(&text, "not an image").unwrap();
    let cases: [(&[&str], &str); 3] = [
        (
            &["--image", text.to_str().unwrap()],
            "not a PNG, JPEG, GIF or WebP image",
        ),
        (&["--image", "/nonexistent/x.png"], "/nonexistent/x.png"),
        (
            &[
                "--image",
                text.to_str().unwrap(),
                "--model",
                "some-local-model",
            ],
            "does not take images",
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["--prompt", "x"];
        all.extend_from_slice(args);
        let output = env
            .command(&all)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn read_file_returns_an_image_to_a_model_that_takes_images() {
    let server = MockServer::start(vec![
        Reply::stream(openai::tool_turn(&[
            ("c1", "read_file", json!({"path": "dot.png"})),
            ("c2", "exec", json!({"command": "true"})),
        ])),
        Reply::stream(openai::text_turn("a dot")),
    ]);
    let env = TestEnv::for_server(&server);
    std::fs::write(env.work.join("dot.png"), PNG).unwrap();
    let run = env.run(&["--prompt", "look at dot.png"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.tool_results()[0]["output"]
            .as_str()
            .unwrap()
            .contains("attached as an image")
    );
    // No base64 in the event stream.
    assert!(run.lines.iter().all(|line| !line.contains(PNG_BASE64)));
    let sent = messages(&server.requests()[1]);
    // system, user, assistant, tool, tool, then the images as a user message.
    assert_eq!(sent[3]["role"], "tool");
    assert_eq!(sent[4]["role"], "tool");
    assert_eq!(sent[5]["role"], "user");
    assert!(
        sent[5]["content"][1]["image_url"]["url"]
            .as_str()
            .unwrap()
            .ends_with(PNG_BASE64)
    );
    assert!(server.violations().is_empty());
}

#[test]
fn read_file_describes_an_image_to_a_text_only_model() {
    let env = TestEnv::offline();
    std::fs::write(env.work.join("dot.png"), PNG).unwrap();
    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "read_file", "args": {"path": "dot.png"}}]}, {"text": "ok"}
    ]}));
    let run = env.run_script(&script, "x", &["--model", "local-text-model"]);
    let output = run.one("tool-result")["output"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(output.contains("cannot take images"), "{output}");
}
