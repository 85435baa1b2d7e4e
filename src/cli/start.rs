//! Start-up in two phases. [`resolve`] checks the flags, the environment
//! and the config (images included) and changes nothing on disk: a usage
//! error leaves no session folder behind. [`open`] then creates the
//! folders, takes the session's lock and builds the clients. One error type
//! says what a failure costs: exit status 2 for what the caller got wrong,
//! 1 for what the machine did (a disk that refuses, a session live in
//! another process, a TLS set-up that fails).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::{Cli, CliFormat, CliMode, hidden_env, images};
use crate::config::Config;
use crate::model::http::{HttpModel, HttpModelConfig};
use crate::model::scripted::ScriptedModel;
use crate::model::{Image, ModelClient, ModelSpec, aliases};
use crate::protocol::OutputFormat;
use crate::protocol::events::{Mode, PlanExecGuard, SandboxReport, StateFolderAccess};
use crate::session::checks::Checks;
use crate::session::hitl::HitlSettings;
use crate::session::{Fallback, RestorePoint, SessionConfig, StateSetup};
use crate::state::retention::Retention;
use crate::state::{self, SessionDir, checkpoint};
use crate::tools::sandbox::Sandbox;
use crate::tools::{self, exec::ExecSettings};

/// Exit status for a usage error (bad flags, bad config).
pub const USAGE_EXIT: u8 = 2;
/// Exit status when the machine, not the caller, stopped the start.
pub const MACHINE_EXIT: u8 = 1;

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// A flag, a variable, the config file or an image is wrong.
    #[error("{0}")]
    Usage(String),
    /// The disk, the session's lock or the TLS set-up failed.
    #[error("{0}")]
    Machine(String),
}

impl StartError {
    pub fn exit_code(&self) -> u8 {
        match self {
            StartError::Usage(_) => USAGE_EXIT,
            StartError::Machine(_) => MACHINE_EXIT,
        }
    }
}

fn usage(message: impl Into<String>) -> StartError {
    StartError::Usage(message.into())
}

fn machine(message: impl Into<String>) -> StartError {
    StartError::Machine(message.into())
}

/// The process-wide protections in place before the session starts.
pub struct Guards {
    pub token_hidden: bool,
    pub subreaper: bool,
}

/// Everything the caller asked for, checked. Paths are where things are
/// or will be; nothing has been created.
pub struct Resolved {
    prompt: String,
    mode: Mode,
    session_id: String,
    work_dir: PathBuf,
    /// As given, and where it will be once made.
    hitl_dir: Option<(PathBuf, PathBuf)>,
    /// Where the state folder is or will be (canonical).
    state_dir: PathBuf,
    restore: Option<RestorePoint>,
    model_alias: String,
    model_spec: ModelSpec,
    model: ModelSource,
    images: Vec<Image>,
    format: OutputFormat,
    blocked_tools: Vec<String>,
    max_iterations: u32,
    previous_summary: Option<String>,
    checks: Checks,
    retention: Retention,
    config: Config,
    mcp_servers: Vec<crate::mcp::ServerSpec>,
    mcp_reload: crate::mcp::reload::Reloader,
    /// The files of `mcp_reload` to keep from commands, canonical.
    mcp_guarded: Vec<PathBuf>,
}

enum ModelSource {
    Scripted(ScriptedModel),
    /// The model's server, and its fallback's (alias, spec, server).
    Http(
        HttpModelConfig,
        Option<Box<(String, ModelSpec, HttpModelConfig)>>,
    ),
}

/// What `run` needs: the session's settings and what must live as long.
pub struct Prepared {
    pub session_dir: SessionDir,
    pub state_dir: PathBuf,
    pub retention: Retention,
    /// Held until the process ends: the session is live while it is.
    pub _lock: std::fs::File,
    pub config: SessionConfig,
    pub model: ModelClient,
    pub format: OutputFormat,
    pub secrets: Vec<String>,
    /// Started by `run`, inside the runtime.
    pub mcp_servers: Vec<crate::mcp::ServerSpec>,
    /// What every MCP server's environment starts from.
    pub mcp_env: crate::mcp::ServerEnv,
    /// Sees the servers' definitions change mid-session.
    pub mcp_reload: crate::mcp::reload::Reloader,
    pub mcp_gate: crate::session::gating::Gate,
}

/// Phase one: checks everything and changes nothing on disk. The checks
/// run in this order, so the first error a caller sees does not change:
/// the flags, the checkpoint to restore and the session id, the folders,
/// the model, the images, the approval rules.
pub fn resolve(
    cli: Cli,
    config: Config,
    runtime: &tokio::runtime::Runtime,
) -> Result<Resolved, StartError> {
    let Some(prompt) = cli.prompt.filter(|p| !p.trim().is_empty()) else {
        return Err(usage("--prompt TEXT is required (and must not be empty)"));
    };
    let mode = match cli.mode {
        CliMode::Normal => Mode::Normal,
        CliMode::Implement => Mode::Implement,
        CliMode::Plan => Mode::Plan,
    };
    check_limits(cli.max_iterations, &cli.blocked_tools)?;
    let restore = restore_point(cli.restore_checkpoint.as_deref())?;
    let session_id = session_id(cli.session_id, restore.as_ref())?;
    let work_dir = work_dir(&cli.work_dir)?;
    let hitl_dir = match cli.hitl_dir {
        None => None,
        Some(dir) => {
            let planned = check_hitl_folder(&dir)?;
            Some((dir, planned))
        }
    };
    let state_dir = state_folder(cli.state_dir, restore.as_ref(), &work_dir, &session_id)?;
    let (retention, warnings) = config.state.retention();
    for warning in warnings {
        crate::diag!("agent: warning: {warning}");
    }
    let (model_alias, model_spec, model) = model(cli.model, cli.script, &config)?;
    let images = load_images(&cli.image, &model_spec, &model_alias, runtime)?;
    let checks = Checks::new(config.approval.clone(), cli.unattended)
        .and_then(|checks| checks.with_untrusted(config.untrusted_content.clone()))
        .map_err(usage)?;
    let (mcp_reload, mcp_guarded) = mcp_files(cli.config.as_deref(), &cli.mcp_config, &work_dir);
    let mcp_servers = mcp_reload.load().map_err(usage)?.servers;
    Ok(Resolved {
        prompt,
        mode,
        session_id,
        work_dir,
        hitl_dir,
        state_dir,
        restore,
        model_alias,
        model_spec,
        model,
        images,
        format: match cli.format {
            CliFormat::Json => OutputFormat::Json,
            CliFormat::Text => OutputFormat::Text,
        },
        blocked_tools: cli.blocked_tools,
        max_iterations: cli.max_iterations,
        previous_summary: cli.previous_summary,
        checks,
        retention,
        config,
        mcp_servers,
        mcp_reload,
        mcp_guarded,
    })
}

/// What reads the files that define the MCP servers, and those of them
/// the fence is to keep from commands so that they may be looked at again
/// mid-session (`mcp/reload.rs`): each that exists outside the work dir,
/// canonical, with no second hard link (through which it could be written).
fn mcp_files(
    named_config: Option<&Path>,
    mcp_configs: &[PathBuf],
    work_dir: &Path,
) -> (crate::mcp::reload::Reloader, Vec<PathBuf>) {
    use std::os::unix::fs::MetadataExt;
    let config = match named_config {
        Some(path) => Some((path.to_path_buf(), true)),
        None => crate::config::default_path().map(|path| (path, false)),
    };
    let mut guarded = Vec::new();
    let mut canonical = Vec::new();
    for path in config.iter().map(|(path, _)| path).chain(mcp_configs) {
        let Ok(real) = path.canonicalize() else {
            continue;
        };
        let single = std::fs::metadata(&real).is_ok_and(|meta| meta.is_file() && meta.nlink() == 1);
        if single && !real.starts_with(work_dir) {
            guarded.push(path.clone());
            canonical.push(real);
        }
    }
    let files = crate::mcp::reload::Files {
        config,
        mcp_configs: mcp_configs.to_vec(),
        work_dir: work_dir.to_path_buf(),
        guarded,
    };
    let reloader = crate::mcp::reload::Reloader::new(files, mcp_tables, hidden_env::var);
    (reloader, canonical)
}

/// What a config file's text defines of the MCP servers, after every check
/// the file gets at start-up: a reload applies only these tables (the
/// others take effect in the next session), but a typo anywhere is still
/// an error.
fn mcp_tables(
    text: &str,
) -> Result<
    (
        crate::mcp::config::McpConfig,
        crate::mcp::reload::ServerTables,
    ),
    String,
> {
    Config::parse(text).map(|config| (config.mcp, config.mcp_servers))
}

/// `--max-iterations` and `--blocked-tools`.
fn check_limits(max_iterations: u32, blocked_tools: &[String]) -> Result<(), StartError> {
    if max_iterations == 0 {
        return Err(usage("--max-iterations must be at least 1"));
    }
    for name in blocked_tools {
        // An MCP tool's name is known only once its server runs.
        if tools::Tool::from_name(name).is_none() && !crate::mcp::names::is_mcp_name(name) {
            return Err(usage(format!(
                "--blocked-tools: unknown tool {name:?}; the tools are {}, and an MCP server's as mcp__SERVER__TOOL",
                tools::registry::names().collect::<Vec<_>>().join(", ")
            )));
        }
    }
    Ok(())
}

/// The checkpoint `--restore-checkpoint` names, its manifest read.
fn restore_point(given: Option<&Path>) -> Result<Option<RestorePoint>, StartError> {
    let Some(path) = given else {
        return Ok(None);
    };
    let path = path
        .canonicalize()
        .map_err(|err| usage(format!("--restore-checkpoint {}: {err}", path.display())))?;
    let manifest = checkpoint::load_manifest(&path)
        .map_err(|err| usage(format!("--restore-checkpoint: {err}")))?;
    Ok(Some(RestorePoint { path, manifest }))
}

/// The checkpoint's session when one is restored (`--session-id` must
/// agree), else `--session-id`, else a new one.
fn session_id(given: Option<String>, restore: Option<&RestorePoint>) -> Result<String, StartError> {
    Ok(match (given, restore) {
        (Some(id), Some(point)) if id != point.manifest.session_id => {
            return Err(usage(format!(
                "--session-id {id:?} does not match the checkpoint's session {:?}",
                point.manifest.session_id
            )));
        }
        // A manifest is a file on disk: its id names a folder, so it is
        // checked like a flag.
        (_, Some(point)) if !valid_session_id(&point.manifest.session_id) => {
            return Err(usage(format!(
                "--restore-checkpoint: the checkpoint names an invalid session {:?}",
                point.manifest.session_id
            )));
        }
        (_, Some(point)) => point.manifest.session_id.clone(),
        (Some(id), None) if valid_session_id(&id) => id,
        (Some(id), None) => {
            return Err(usage(format!(
                "--session-id {id:?}: use 1 to 128 letters, digits, '.', '_' or '-'"
            )));
        }
        (None, None) => new_session_id(),
    })
}

fn work_dir(given: &Path) -> Result<PathBuf, StartError> {
    let work_dir = given
        .canonicalize()
        .map_err(|err| usage(format!("--work-dir {}: {err}", given.display())))?;
    if !work_dir.is_dir() {
        return Err(usage(format!(
            "--work-dir {} is not a folder",
            work_dir.display()
        )));
    }
    Ok(work_dir)
}

/// Where the state folder is or will be (canonical): the restored
/// checkpoint's, else `--state-dir`, else the default. It must lie outside
/// the work dir and, for a new session, hold no folder of the same id.
fn state_folder(
    given: Option<PathBuf>,
    restore: Option<&RestorePoint>,
    work_dir: &Path,
    session_id: &str,
) -> Result<PathBuf, StartError> {
    let state_dir = match restore {
        Some(point) => checkpoint::session_dir_of(&point.path)
            .ok()
            .and_then(|dir| dir.root.parent()?.parent().map(Path::to_path_buf))
            .ok_or_else(|| {
                usage("--restore-checkpoint: the checkpoint is not inside a state folder")
            })?,
        None => given.or_else(state::default_state_dir).ok_or_else(|| {
            usage("no state folder: set --state-dir or AGENT_STATE_DIR (HOME is not set)")
        })?,
    };
    let state_dir = planned_path(&state_dir)
        .map_err(|err| usage(format!("state folder {}: {err}", state_dir.display())))?;
    if state_dir.starts_with(work_dir) {
        return Err(usage(format!(
            "the state folder {} is inside the work dir; checkpoints would capture themselves. Use --state-dir",
            state_dir.display()
        )));
    }
    if restore.is_none() && SessionDir::new(&state_dir, session_id).root.exists() {
        return Err(usage(format!(
            "session {session_id:?} exists already; continue it with --restore-checkpoint, or use a new --session-id"
        )));
    }
    Ok(state_dir)
}

/// The model's alias (`--model`, else the config's default, else the
/// built-in one), what it resolves to, and where its answers come from:
/// the `--script` file, or the HTTP server the environment names.
fn model(
    alias: Option<String>,
    script: Option<PathBuf>,
    config: &Config,
) -> Result<(String, ModelSpec, ModelSource), StartError> {
    let table = aliases::ModelTable::with_overrides(config.models.clone());
    let model_alias = alias
        .or_else(|| config.default_model.clone())
        .unwrap_or_else(|| aliases::DEFAULT_ALIAS.to_owned());
    let model_spec = table.resolve(&model_alias);
    let model = match script {
        Some(path) => {
            ModelSource::Scripted(ScriptedModel::load(&path).map_err(|err| usage(err.to_string()))?)
        }
        None => {
            let fallback = match &model_spec.fallback {
                None => None,
                Some(alias) if *alias == model_alias => {
                    return Err(usage(format!(
                        "models.{model_alias}.fallback names the model itself"
                    )));
                }
                Some(alias) => {
                    let spec = table.resolve(alias);
                    let http = http_config(config, &spec)?;
                    Some(Box::new((alias.clone(), spec, http)))
                }
            };
            ModelSource::Http(http_config(config, &model_spec)?, fallback)
        }
    };
    Ok((model_alias, model_spec, model))
}

/// The `--image` files and URLs, read; only for a model that takes images.
fn load_images(
    given: &[String],
    spec: &ModelSpec,
    alias: &str,
    runtime: &tokio::runtime::Runtime,
) -> Result<Vec<Image>, StartError> {
    if given.is_empty() {
        return Ok(Vec::new());
    }
    if !spec.images {
        return Err(usage(format!(
            "--image: the model {alias:?} does not take images (set images = true in its [models] entry)"
        )));
    }
    runtime
        .block_on(images::load_all(given))
        .map_err(|err| usage(format!("--image {err}")))
}

fn http_config(config: &Config, spec: &ModelSpec) -> Result<HttpModelConfig, StartError> {
    let base_url = env_nonempty("AGENT_API_URL")
        .or_else(|| env_nonempty("STRAYL_API_URL"))
        .ok_or_else(|| {
            usage("no model server: set AGENT_API_URL (or STRAYL_API_URL), or pass --script FILE to play a scripted model")
        })?;
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(usage(format!(
            "AGENT_API_URL must start with http:// or https://, got {base_url:?}"
        )));
    }
    let api_key = hidden_env::var("AGENT_API_KEY")
        .filter(|value| !value.trim().is_empty())
        .or_else(|| {
            hidden_env::var("STRAYL_SESSION_TOKEN").filter(|value| !value.trim().is_empty())
        });
    Ok(HttpModelConfig {
        base_url,
        api_key,
        format: spec.format,
        idle_timeout: Duration::from_secs(config.http.idle_timeout_secs),
        connect_timeout: Duration::from_secs(config.http.connect_timeout_secs),
        retry: config.retry,
    })
}

/// Phase two: the folders, the lock, the clients.
pub fn open(resolved: Resolved, guards: Guards) -> Result<Prepared, StartError> {
    let config = &resolved.config;
    let hitl_dir = match &resolved.hitl_dir {
        None => None,
        Some((given, _)) => Some(make_hitl_folder(given)?),
    };
    state::private_dir(&resolved.state_dir)
        .map_err(|err| machine(format!("state folder: {err}")))?;
    let state_dir = resolved.state_dir.canonicalize().map_err(|err| {
        machine(format!(
            "state folder {}: {err}",
            resolved.state_dir.display()
        ))
    })?;
    let session_dir = SessionDir::new(&state_dir, &resolved.session_id);
    session_dir
        .create()
        .map_err(|err| machine(format!("session folder: {err}")))?;
    let lock = state::lock_session(&session_dir).map_err(|err| machine(err.to_string()))?;
    let (model, fallback) = model_clients(resolved.model)?;
    let secret_names = config.secret_matcher();
    let secrets = hidden_env::secret_values(&secret_names);
    let (exec, report) = confine_commands(
        config,
        secret_names,
        [state_dir.clone()]
            .into_iter()
            .chain(hitl_dir.clone())
            .chain(resolved.mcp_guarded.iter().cloned())
            .chain(user_skills(config, &resolved.work_dir)),
        &guards,
    );
    let mut mcp_reload = resolved.mcp_reload;
    // Unfenced, a command could write them all: none is looked at again.
    if report.state_folder != StateFolderAccess::ReadOnly {
        mcp_reload.unguard();
    }
    let skills = (config.skills.enabled).then(|| config.skills.roots(resolved.work_dir.clone()));
    let mcp_env = crate::mcp::ServerEnv::new(exec.base_env.clone());
    let (search, repo_map) = state_tools(
        config,
        &state_dir,
        &resolved.session_id,
        &resolved.model_spec,
        &resolved.prompt,
    );
    Ok(Prepared {
        config: SessionConfig {
            session_id: resolved.session_id,
            prompt: resolved.prompt,
            model_alias: resolved.model_alias,
            model: resolved.model_spec,
            mode: resolved.mode,
            work_dir: resolved.work_dir,
            blocked_tools: resolved.blocked_tools,
            max_iterations: resolved.max_iterations,
            previous_summary: resolved.previous_summary,
            exec: Arc::new(exec),
            web: Arc::new(tools::web::WebSettings::new(
                config.web_fetch.allow_hosts.clone(),
            )),
            version: crate::VERSION.to_owned(),
            images: resolved.images,
            checks: resolved.checks,
            hitl: HitlSettings {
                timeout: Duration::from_secs(config.hitl.timeout_secs),
                dir: hitl_dir,
            },
            compaction: config.compaction.clone(),
            sandbox: report,
            model_egress: config.secrets.model_egress,
            loop_breaker: config.loop_breaker.clone(),
            project_instructions: config.context.project_instructions,
            fallback,
            skills,
            search,
            repo_map,
            debugger: config.debugger.clone(),
            state: StateSetup {
                dir: session_dir.clone(),
                max_file_bytes: config.state.max_file_mb * 1024 * 1024,
                restore: resolved.restore,
            },
        },
        session_dir,
        state_dir,
        retention: resolved.retention,
        _lock: lock,
        model,
        format: resolved.format,
        secrets,
        mcp_servers: resolved.mcp_servers,
        mcp_env,
        mcp_reload,
        mcp_gate: crate::session::gating::Gate {
            above: config.mcp.gate_above,
            offered: config.mcp.offered,
        },
    })
}

/// The settings of the tools that keep what they learn in the state
/// folder: the transcript index and the repository map's cache.
fn state_tools(
    config: &Config,
    state_dir: &Path,
    session_id: &str,
    model: &ModelSpec,
    prompt: &str,
) -> (
    Arc<tools::session_search::SearchSettings>,
    Arc<tools::repo_map::MapSettings>,
) {
    let search = tools::session_search::SearchSettings::new(
        config.session_search.tool,
        state_dir.to_path_buf(),
        session_id.to_owned(),
        config.session_search.max_index_bytes(),
    );
    let repo_map = tools::repo_map::MapSettings::new(
        Some(state_dir.join(tools::repo_map::CACHE_FILE_NAME)),
        &config.repo_map,
        model,
    );
    repo_map.note_words(prompt);
    (Arc::new(search), Arc::new(repo_map))
}

/// The model's client, and its fallback's.
fn model_clients(source: ModelSource) -> Result<(ModelClient, Option<Fallback>), StartError> {
    let client = |http| HttpModel::new(http).map_err(|err| machine(err.to_string()));
    Ok(match source {
        ModelSource::Scripted(script) => (ModelClient::Scripted(script), None),
        ModelSource::Http(http, fallback) => {
            let fallback = match fallback.map(|boxed| *boxed) {
                Some((alias, spec, http)) => Some(Fallback {
                    alias,
                    spec,
                    client: ModelClient::Http(client(http)?),
                }),
                None => None,
            };
            (ModelClient::Http(client(http)?), fallback)
        }
    })
}

/// The user's skills folder, to fence off (whether it exists or not): a
/// skill is instructions every later session reads, and only a person
/// installs one (`agent skills install`), never a command.
fn user_skills(config: &Config, work_dir: &Path) -> Option<PathBuf> {
    let dir = config.skills.user_dir()?;
    let dir = dir.canonicalize().unwrap_or(dir);
    (dir.is_absolute() && !dir.starts_with(work_dir) && !work_dir.starts_with(&dir)).then_some(dir)
}

/// How commands run: the sandbox this kernel offers, the folders no
/// command may write (the state folder, and the hitl folder: a command
/// that could write a response file could approve its own request), and
/// what `session-start` reports of it.
fn confine_commands(
    config: &Config,
    secret_names: globset::GlobSet,
    protect: impl Iterator<Item = PathBuf>,
    guards: &Guards,
) -> (ExecSettings, SandboxReport) {
    let sandbox = Sandbox::probe();
    let protected: Vec<PathBuf> = if config.exec.protect_state && sandbox.enforces() {
        protect.collect()
    } else {
        Vec::new()
    };
    let report = SandboxReport {
        landlock_abi: sandbox.landlock_abi,
        plan_exec: if sandbox.enforces() {
            PlanExecGuard::Landlock
        } else {
            PlanExecGuard::Classifier
        },
        state_folder: if protected.is_empty() {
            StateFolderAccess::Writable
        } else {
            StateFolderAccess::ReadOnly
        },
        token_hidden: guards.token_hidden,
        subreaper: guards.subreaper,
    };
    let exec = ExecSettings::new(
        config.exec.shell.clone(),
        Duration::from_millis(config.exec.default_timeout_ms),
        Duration::from_millis(config.exec.max_timeout_ms),
        secret_names,
        config.exec.login_shell,
    )
    .confined(sandbox, protected);
    (exec, report)
}

/// Where `path` is, or will be once its missing folders are made: the
/// existing part resolved (symlinks included), the rest appended.
fn planned_path(path: &Path) -> std::io::Result<PathBuf> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()?.join(path)
    };
    let mut missing = Vec::new();
    let mut existing = absolute.as_path();
    loop {
        match existing.canonicalize() {
            Ok(mut found) => {
                found.extend(missing.iter().rev());
                return Ok(found);
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                // `..` in a part that does not exist yet cannot be
                // resolved without making it.
                let (Some(name), Some(parent)) = (existing.file_name(), existing.parent()) else {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        "a missing part of the path is `..`",
                    ));
                };
                missing.push(name.to_owned());
                existing = parent;
            }
            Err(err) => return Err(err),
        }
    }
}

/// The integration plan passes `--hitl-dir /tmp/hitl` and never makes it,
/// so a missing folder is created when the session opens. One that exists
/// is used as it is, also through a symlink; a symlink to nothing is
/// refused rather than followed into a folder made wherever it points.
fn check_hitl_folder(dir: &Path) -> Result<PathBuf, StartError> {
    let failed = |err: std::io::Error| usage(format!("--hitl-dir {}: {err}", dir.display()));
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() && !dir.exists() => Err(usage(format!(
            "--hitl-dir {} is a symlink to nothing",
            dir.display()
        ))),
        Ok(_) if !dir.is_dir() => Err(usage(format!(
            "--hitl-dir {} exists and is not a folder",
            dir.display()
        ))),
        Ok(_) => dir.canonicalize().map_err(failed),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => planned_path(dir).map_err(failed),
        Err(err) => Err(failed(err)),
    }
}

/// Makes the hitl folder (0700, parents too) when it is missing.
fn make_hitl_folder(dir: &Path) -> Result<PathBuf, StartError> {
    use std::os::unix::fs::DirBuilderExt;
    let failed = |err: std::io::Error| machine(format!("--hitl-dir {}: {err}", dir.display()));
    if std::fs::symlink_metadata(dir).is_err() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(failed)?;
    }
    let canonical = dir.canonicalize().map_err(failed)?;
    if !canonical.is_dir() {
        return Err(machine(format!(
            "--hitl-dir {} is no longer a folder",
            dir.display()
        )));
    }
    Ok(canonical)
}

fn env_nonempty(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

pub(super) fn valid_session_id(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && id != "."
        && id != ".."
}

fn new_session_id() -> String {
    format!(
        "s-{}-{:08x}",
        chrono::Utc::now().format("%Y%m%dT%H%M%S"),
        fastrand::u32(..)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_checked() {
        assert!(valid_session_id("abc-1.2_3"));
        assert!(!valid_session_id("../etc"));
        assert!(!valid_session_id(".."));
        assert!(!valid_session_id(""));
        assert!(valid_session_id(&new_session_id()));
    }

    #[test]
    fn planned_paths_resolve_what_exists_and_append_the_rest() {
        let root = tempfile::tempdir().unwrap();
        let base = root.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("real")).unwrap();
        std::os::unix::fs::symlink(base.join("real"), base.join("link")).unwrap();
        assert_eq!(
            planned_path(&base.join("link/new/deeper")).unwrap(),
            base.join("real/new/deeper")
        );
        assert_eq!(planned_path(&base.join("real")).unwrap(), base.join("real"));
        assert!(planned_path(&base.join("missing/../x")).is_err());
    }
}
