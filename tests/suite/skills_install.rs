//! `agent skills install` from a local HTTP server (allowed through
//! `[web_fetch] allow_hosts`): each kind of source installs; a zip-slip,
//! a symlink member, an absolute entry, a private address without the
//! allow list, a redirect to one, and a SHA-256 mismatch are refused with
//! nothing written.

use std::io::{Cursor, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;

use serde_json::json;
use sha2::Digest;
use zip::write::SimpleFileOptions;

use super::TestEnv;
use super::mock::{MockServer, Reply};
use super::skills::user_skills;

const SKILL: &str = "---\nname: pdf\ndescription: Read PDF files.\n---\nPDF-BODY\n";

fn install(env: &TestEnv, args: &[&str]) -> Output {
    let mut all = vec!["skills", "install"];
    all.extend_from_slice(args);
    let mut command = env.plain_command(&all);
    command.arg("--config").arg(&env.config);
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn allowing_localhost() -> TestEnv {
    let env = TestEnv::offline();
    env.add_config("[web_fetch]\nallow_hosts = [\"localhost\"]\n");
    env
}

fn serve(bytes: &[u8], content_type: &str) -> Reply {
    Reply::Bytes {
        content_type: content_type.into(),
        body: bytes.to_vec(),
    }
}

fn sha256(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Nothing in the user's skills folder, hidden temporary folders included.
fn nothing_installed(env: &TestEnv) {
    let folder = user_skills(env);
    let left: Vec<_> = std::fs::read_dir(&folder)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "written: {left:?}");
}

/// Every file under `folder`, for a search for what an archive smuggled.
fn all_files(folder: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() && !path.is_symlink() {
            all_files(&path, out);
        } else {
            out.push(path.display().to_string());
        }
    }
}

fn zip_of(entries: &[(&str, &str, u32)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, content, mode) in entries {
        let options = SimpleFileOptions::default().unix_permissions(*mode);
        writer.start_file(*name, options).unwrap();
        writer.write_all(content.as_bytes()).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

#[test]
fn a_skill_md_url_installs_is_listed_and_reaches_a_session() {
    let server = MockServer::start(vec![
        serve(SKILL.as_bytes(), "text/markdown"),
        serve(SKILL.as_bytes(), "text/markdown"),
        serve(SKILL.as_bytes(), "text/markdown"),
    ]);
    let env = allowing_localhost();
    let url = server.localhost_url("/skills/pdf/SKILL.md");
    let out = install(
        &env,
        &[&url, "--sha256", &sha256(SKILL.as_bytes()).to_uppercase()],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("installed the skill pdf (1 file) in "),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("sha256 {}", sha256(SKILL.as_bytes()))));
    let installed = user_skills(&env).join("pdf/SKILL.md");
    assert_eq!(std::fs::read_to_string(&installed).unwrap(), SKILL);
    assert_eq!(server.requests()[0].path, "/skills/pdf/SKILL.md");

    let again = install(&env, &[&url]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        text(&again.stderr).contains("installed already"),
        "{}",
        text(&again.stderr)
    );
    let renamed = install(&env, &[&url, "--name", "pdf-two"]);
    assert!(renamed.status.success(), "{}", text(&renamed.stderr));
    let copy = std::fs::read_to_string(user_skills(&env).join("pdf-two/SKILL.md")).unwrap();
    assert!(copy.starts_with("---\nname: pdf-two\n"), "{copy}");

    let mut list = env.plain_command(&["skills", "list", "--work-dir"]);
    list.arg(&env.work).arg("--config").arg(&env.config);
    let listed = text(&list.output().unwrap().stdout);
    assert!(
        listed.contains("pdf  (user)  ") && listed.contains("pdf-two  (user)  "),
        "{listed}"
    );
    assert!(listed.contains("    Read PDF files.\n"), "{listed}");

    let script = env.script(json!({"turns": [
        {"tool_calls": [{"name": "skill", "args": {"name": "pdf"}}]},
        {"text": "done"}
    ]}));
    let run = env.run_script(&script, "go", &[]);
    let result = run.one("tool-result");
    assert_eq!(result["ok"], true, "{result}");
    assert!(result["output"].as_str().unwrap().contains("PDF-BODY"));
}

#[test]
fn a_github_shorthand_takes_main_then_master() {
    let server = MockServer::start(vec![
        Reply::status(404, "404: Not Found"),
        serve(SKILL.as_bytes(), "text/plain; charset=utf-8"),
    ]);
    let env = allowing_localhost();
    env.add_config(&format!(
        "[skills]\ngithub_raw_base = \"{}\"\n",
        server.localhost_url("")
    ));
    let out = install(&env, &["acme/tools#skills/pdf"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(
        paths,
        [
            "/acme/tools/main/skills/pdf/SKILL.md",
            "/acme/tools/master/skills/pdf/SKILL.md"
        ]
    );
    assert!(text(&out.stdout).contains("/acme/tools/master/skills/pdf/SKILL.md"));
    assert_eq!(
        std::fs::read_to_string(user_skills(&env).join("pdf/SKILL.md")).unwrap(),
        SKILL
    );

    let missing = MockServer::start(vec![
        Reply::status(404, "404: Not Found"),
        Reply::status(404, "404: Not Found"),
    ]);
    let env = allowing_localhost();
    env.add_config(&format!(
        "[skills]\ngithub_raw_base = \"{}\"\n",
        missing.localhost_url("")
    ));
    let out = install(&env, &["acme/tools"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no SKILL.md at "),
        "{}",
        text(&out.stderr)
    );
    nothing_installed(&env);
}

#[test]
fn a_zip_url_installs_the_skill_folder_with_its_files() {
    let archive = zip_of(&[
        ("tools-main/README.md", "the repository", 0o644),
        ("tools-main/skills/pdf/SKILL.md", SKILL, 0o644),
        (
            "tools-main/skills/pdf/scripts/extract.sh",
            "echo pdf",
            0o755,
        ),
        (
            "tools-main/skills/other/SKILL.md",
            "---\nname: other\ndescription: o\n---\n",
            0o644,
        ),
    ]);
    let server = MockServer::start(vec![serve(&archive, "application/zip")]);
    let env = allowing_localhost();
    let url = server.localhost_url("/archive/main.zip#skills/pdf");
    let out = install(&env, &[&url, "--sha256", &sha256(&archive)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("installed the skill pdf (2 files)"));
    let dir = user_skills(&env).join("pdf");
    assert_eq!(
        std::fs::read_to_string(dir.join("SKILL.md")).unwrap(),
        SKILL
    );
    let script = dir.join("scripts/extract.sh");
    assert_eq!(std::fs::read_to_string(&script).unwrap(), "echo pdf");
    let mode = std::fs::metadata(&script).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755);
    assert!(!dir.join("README.md").exists() && !user_skills(&env).join("other").exists());
    assert_eq!(
        server.requests()[0].path,
        "/archive/main.zip",
        "the fragment stays here"
    );
}

#[test]
fn dangerous_archive_entries_refuse_the_install_and_write_nothing() {
    let slip = zip_of(&[
        ("pdf/SKILL.md", SKILL, 0o644),
        ("pdf/../../../evil-slip.txt", "evil", 0o644),
    ]);
    let absolute = zip_of(&[
        ("pdf/SKILL.md", SKILL, 0o644),
        ("/tmp/evil-absolute.txt", "evil", 0o644),
    ]);
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    writer
        .start_file("pdf/SKILL.md", SimpleFileOptions::default())
        .unwrap();
    writer.write_all(SKILL.as_bytes()).unwrap();
    writer
        .add_symlink("pdf/evil-link", "/etc/passwd", SimpleFileOptions::default())
        .unwrap();
    let symlink = writer.finish().unwrap().into_inner();
    for (archive, reason) in [
        (slip, "climbs out with `..`"),
        (absolute, "has an absolute path"),
        (symlink, "is a symbolic link"),
    ] {
        let server = MockServer::start(vec![serve(&archive, "application/zip")]);
        let env = allowing_localhost();
        let out = install(&env, &[&server.localhost_url("/skill.zip")]);
        assert_eq!(out.status.code(), Some(1), "{reason}");
        assert!(text(&out.stderr).contains(reason), "{}", text(&out.stderr));
        nothing_installed(&env);
        let mut files = Vec::new();
        all_files(env.root.path(), &mut files);
        assert!(!files.iter().any(|file| file.contains("evil")), "{files:?}");
        assert!(!Path::new("/tmp/evil-absolute.txt").exists());
    }
}

#[test]
fn private_addresses_are_refused_without_the_allow_list_and_behind_redirects() {
    let server = MockServer::start(vec![serve(SKILL.as_bytes(), "text/markdown")]);
    let env = TestEnv::offline();
    for (url, reason) in [
        (
            format!("{}/SKILL.md", server.url.trim_end_matches("/v1")),
            "127.0.0.1 is a private, loopback",
        ),
        (server.localhost_url("/SKILL.md"), "localhost resolves to "),
        (
            "http://169.254.169.254/latest/SKILL.md".to_owned(),
            "169.254.169.254 is a private",
        ),
    ] {
        let out = install(&env, &[&url]);
        assert_eq!(out.status.code(), Some(1), "{url}");
        assert!(
            text(&out.stderr).contains(reason),
            "{url}: {}",
            text(&out.stderr)
        );
    }
    assert!(
        server.requests().is_empty(),
        "a refused install reached the server"
    );
    nothing_installed(&env);

    let internal = MockServer::start(vec![serve(SKILL.as_bytes(), "text/markdown")]);
    let redirecting = MockServer::start(vec![Reply::Status {
        status: 302,
        headers: vec![(
            "location".into(),
            format!("{}/SKILL.md", internal.url.trim_end_matches("/v1")),
        )],
        body: String::new(),
    }]);
    let env = allowing_localhost();
    let out = install(&env, &[&redirecting.localhost_url("/SKILL.md")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("redirect refused"),
        "{}",
        text(&out.stderr)
    );
    assert!(internal.requests().is_empty());
    nothing_installed(&env);
}

#[test]
fn a_sha256_mismatch_installs_nothing() {
    let server = MockServer::start(vec![serve(SKILL.as_bytes(), "text/markdown")]);
    let env = allowing_localhost();
    let wrong = "0".repeat(64);
    let out = install(
        &env,
        &[&server.localhost_url("/SKILL.md"), "--sha256", &wrong],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("is {}, not {wrong}", sha256(SKILL.as_bytes()))),
        "{stderr}"
    );
    nothing_installed(&env);

    let malformed = install(
        &env,
        &[&server.localhost_url("/SKILL.md"), "--sha256", "abc"],
    );
    assert_eq!(malformed.status.code(), Some(2));
    assert!(text(&malformed.stderr).contains("not 64 hex digits"));
    let not_a_source = install(&env, &["just-a-word"]);
    assert_eq!(not_a_source.status.code(), Some(2));
    nothing_installed(&env);
}
