//! Finding and killing every process a command started.
//!
//! A command's process group is not enough: `setsid`, `nohup ... &` and
//! double forks leave it. The agent is a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`), so whatever its commands leave behind is
//! re-parented to the agent instead of to init, and stays findable in
//! `/proc` as a descendant. Killing a tree first stops every process in it
//! (a stopped process cannot fork), looks again until nothing new shows up,
//! then kills them all, so a fork racing the kill does not escape.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

/// How long a tree kill may keep finding new processes before it gives up
/// on the ones it could not stop (a fork bomb faster than the scan).
const KILL_DEADLINE: Duration = Duration::from_millis(1500);

/// Children the session keeps running on purpose between tool calls (MCP
/// servers). Whoever spawned one waits for it, so [`reap_orphans`] leaves
/// it alone; and it acts only when called, so [`any_descendant_alive`]
/// does not count it (a call to it makes its own checkpoint look).
static SERVICES: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn services() -> MutexGuard<'static, BTreeSet<i32>> {
    match SERVICES.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// `pid`, a child of this process, is a service (see [`SERVICES`]).
pub fn add_service(pid: i32) {
    services().insert(pid);
}

/// `pid` has been waited for, or is about to be.
pub fn remove_service(pid: i32) {
    services().remove(&pid);
}

/// Makes this process the reaper of its orphaned descendants.
pub fn become_subreaper() -> bool {
    rustix::process::set_child_subreaper(Some(rustix::process::getpid())).is_ok()
}

/// Kills `root`, all its descendants and `root`'s process group. The
/// tree is stopped and walked first: killed first, the group's processes
/// would orphan their children in other groups (a debuggee under a
/// debugger's launcher) to the agent before the walk could find them
/// below `root`.
pub fn kill_tree(root: Pid) {
    kill_below(root, true);
    let _ = rustix::process::kill_process_group(root, Signal::KILL);
}

/// Kills every descendant of this process: the end of a session leaves
/// nothing running. Returns how many were killed.
pub fn kill_all_descendants() -> usize {
    // Every live descendant has a live parent below us or, as the
    // subreaper, us: with no child at all there is nothing below. That
    // look costs a few reads, the process table one read per process of
    // the machine (a third of a quiet session's CPU, measured).
    if has_no_child() {
        return 0;
    }
    kill_below(rustix::process::getpid(), false)
}

/// Whether no thread of this process has a child, ended or not; false
/// where the kernel does not say (no `children` files, no `/proc`).
fn has_no_child() -> bool {
    children().is_some_and(|pids| pids.is_empty())
}

/// Waits for every child that has ended: orphans re-parented here by the
/// subreaper, which nobody else waits for. Only between commands, when
/// every child the agent spawned itself has been waited for; one
/// `waitpid` call when there is nothing to reap.
pub fn reap_orphans() {
    if services().is_empty() {
        while let Ok(Some(_)) = rustix::process::wait(rustix::process::WaitOptions::NOHANG) {}
        return;
    }
    // A service's status belongs to the task that waits for it: only the
    // other ended children are waited for here, one by one.
    for pid in children_but_services() {
        let ended = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| parse_stat(&stat))
            .is_some_and(|info| info.zombie);
        if let (true, Some(pid)) = (ended, Pid::from_raw(pid)) {
            let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG);
        }
    }
}

/// This process's children that are not services, from each thread's
/// `children` file.
fn children_but_services() -> Vec<i32> {
    let services = services().clone();
    children()
        .unwrap_or_default()
        .into_iter()
        .filter(|pid| !services.contains(pid))
        .collect()
}

/// This process's children, ended or not, from each thread's `children`
/// file; `None` where one cannot be read (no `/proc`, a kernel without
/// those files).
fn children() -> Option<Vec<i32>> {
    let mut pids = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let list = std::fs::read_to_string(task.ok()?.path().join("children")).ok()?;
        pids.extend(
            list.split_ascii_whitespace()
                .filter_map(|pid| pid.parse::<i32>().ok()),
        );
    }
    Some(pids)
}

/// Whether the process `pid` may talk to the agent as a person would (on
/// the control socket): not if the agent started it, directly or through
/// any number of forks, `setsid` included. A process that is gone before
/// it could be looked at is refused too. Without `/proc` nothing can be
/// told apart, and everything is let through.
pub fn outside_our_tree(pid: i32) -> bool {
    if std::fs::metadata("/proc/self/stat").is_err() {
        return true;
    }
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let mut current = pid;
    // A chain longer than this is a loop in a changing table.
    for _ in 0..4096 {
        if current == me {
            return false;
        }
        if current <= 1 {
            return true;
        }
        let Some(info) = std::fs::read_to_string(format!("/proc/{current}/stat"))
            .ok()
            .and_then(|stat| parse_stat(&stat))
        else {
            return false;
        };
        current = info.parent;
    }
    false
}

/// Whether a process the agent started, or adopted as their subreaper,
/// is alive: it may change the work dir at any time. Looking at the
/// agent's own children is enough: a live process below a dead one was
/// re-parented to the agent. So this reads each thread's `children` in
/// `/proc/self/task` and the `stat` of each child, a few reads when
/// nothing runs; the whole process table on a kernel without those
/// files; and says yes without `/proc`, where it cannot tell.
pub fn any_descendant_alive() -> bool {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return true;
    };
    let services = services().clone();
    for task in tasks.flatten() {
        let Ok(children) = std::fs::read_to_string(task.path().join("children")) else {
            let me = rustix::process::getpid().as_raw_nonzero().get();
            return ProcessTable::read().is_none_or(|table| {
                let served: Vec<i32> = services.iter().copied().collect();
                let below_services = table.descendants(&served);
                table
                    .descendants(&[me])
                    .iter()
                    .any(|pid| !services.contains(pid) && !below_services.contains(pid))
            });
        };
        let others = children
            .split_ascii_whitespace()
            .filter(|pid| pid.parse().is_ok_and(|pid: i32| !services.contains(&pid)));
        if any_alive(others) {
            return true;
        }
    }
    false
}

/// Whether any of `pids` is a process that has not ended.
fn any_alive<'a>(pids: impl IntoIterator<Item = &'a str>) -> bool {
    pids.into_iter().any(|pid| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| parse_stat(&stat))
            .is_some_and(|info| !info.zombie)
    })
}

fn kill_below(root: Pid, include_root: bool) -> usize {
    let root_raw = root.as_raw_nonzero().get();
    let started = Instant::now();
    let mut stopped: HashSet<i32> = HashSet::new();
    if include_root {
        let _ = rustix::process::kill_process(root, Signal::STOP);
        stopped.insert(root_raw);
    }
    // Stop everything below, again and again, until a scan finds no live
    // process that is not stopped yet.
    while let Some(table) = ProcessTable::read() {
        let mut tops: Vec<i32> = vec![root_raw];
        // Processes already stopped whose parent died (killed by someone
        // else) were re-parented to us: their children still count.
        tops.extend(stopped.iter().copied());
        let found: Vec<i32> = table
            .descendants(&tops)
            .into_iter()
            .filter(|pid| !stopped.contains(pid))
            .collect();
        if found.is_empty() || started.elapsed() > KILL_DEADLINE {
            break;
        }
        for pid in found {
            if let Some(process) = Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(process, Signal::STOP);
            }
            stopped.insert(pid);
        }
    }
    let mut killed = 0;
    for pid in &stopped {
        if *pid == root_raw && !include_root {
            continue;
        }
        if let Some(process) = Pid::from_raw(*pid)
            && rustix::process::kill_process(process, Signal::KILL).is_ok()
        {
            killed += 1;
        }
    }
    killed
}

struct ProcInfo {
    parent: i32,
    zombie: bool,
}

struct ProcessTable {
    processes: HashMap<i32, ProcInfo>,
}

impl ProcessTable {
    /// `None` without `/proc` (a chroot): only process groups can be killed.
    fn read() -> Option<ProcessTable> {
        let entries = std::fs::read_dir("/proc").ok()?;
        let mut processes = HashMap::new();
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|name| name.parse::<i32>().ok())
            else {
                continue;
            };
            // Gone between the listing and the read: not ours to kill.
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            if let Some(info) = parse_stat(&stat) {
                processes.insert(pid, info);
            }
        }
        Some(ProcessTable { processes })
    }

    /// Live (not zombie) processes below any of `tops`.
    fn descendants(&self, tops: &[i32]) -> Vec<i32> {
        let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
        for (pid, info) in &self.processes {
            children.entry(info.parent).or_default().push(*pid);
        }
        let mut seen: HashSet<i32> = HashSet::new();
        let mut queue: Vec<i32> = tops.to_vec();
        let mut found = Vec::new();
        while let Some(pid) = queue.pop() {
            for child in children.get(&pid).into_iter().flatten() {
                if seen.insert(*child) {
                    queue.push(*child);
                    if self.processes.get(child).is_some_and(|info| !info.zombie) {
                        found.push(*child);
                    }
                }
            }
        }
        found
    }
}

/// The fields of a `/proc/PID/stat` line from field 3 (`state`) on: the
/// command name before them may hold spaces and parentheses, so they are
/// read after the last `)`. Field N of proc(5) is at index N - 3.
pub(crate) fn stat_fields(stat: &str) -> Vec<&str> {
    stat.rfind(')')
        .map(|at| stat[at + 1..].split_ascii_whitespace().collect())
        .unwrap_or_default()
}

fn parse_stat(stat: &str) -> Option<ProcInfo> {
    let fields = stat_fields(stat);
    let state = *fields.first()?;
    let parent = fields.get(1)?.parse().ok()?;
    Some(ProcInfo {
        parent,
        zombie: state == "Z" || state == "X",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_of_any_thread_is_seen_and_an_ended_one_too() {
        // Spawned from another thread: the child is listed in that
        // thread's `children` file, not the main one's.
        let mut child = std::thread::spawn(|| {
            std::process::Command::new("sleep")
                .arg("30")
                .spawn()
                .expect("sleep")
        })
        .join()
        .expect("thread");
        assert!(!has_no_child(), "a running child");
        child.kill().expect("kill");
        // Ended but not yet waited for: still below us.
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!has_no_child(), "a zombie child");
        child.wait().expect("wait");
    }

    #[test]
    fn stat_lines_with_odd_names_parse() {
        let info = parse_stat("42 (a (b) c) S 7 42 42 0 -1").unwrap();
        assert_eq!(info.parent, 7);
        assert!(!info.zombie);
        assert!(parse_stat("43 (x) Z 1 0").unwrap().zombie);
        assert!(parse_stat("garbage").is_none());
    }

    #[test]
    fn a_live_child_is_seen_and_a_zombie_is_not() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        assert!(any_descendant_alive());
        assert!(any_alive([child.id().to_string().as_str()]));
        child.kill().unwrap();
        // Dead but not waited for: a zombie, which changes nothing.
        let pid = child.id();
        let stat = format!("/proc/{pid}/stat");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !std::fs::read_to_string(&stat).is_ok_and(|text| parse_stat(&text).unwrap().zombie) {
            assert!(std::time::Instant::now() < deadline);
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!any_alive([pid.to_string().as_str()]));
        child.wait().unwrap();
    }

    #[test]
    fn services_are_left_to_their_owner() {
        let spawn = || {
            std::process::Command::new("sleep")
                .arg("30")
                .spawn()
                .unwrap()
        };
        let (mut service, mut other) = (spawn(), spawn());
        let pid = |child: &std::process::Child| i32::try_from(child.id()).unwrap();
        add_service(pid(&service));
        let seen = children_but_services();
        assert!(!seen.contains(&pid(&service)), "{seen:?}");
        assert!(seen.contains(&pid(&other)), "{seen:?}");
        remove_service(pid(&service));
        assert!(children_but_services().contains(&pid(&service)));
        for child in [&mut service, &mut other] {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    #[test]
    fn descendants_follow_the_tree() {
        let mut processes = HashMap::new();
        for (pid, parent, zombie) in [(2, 1, false), (3, 2, false), (4, 3, true), (5, 4, false)] {
            processes.insert(pid, ProcInfo { parent, zombie });
        }
        processes.insert(
            9,
            ProcInfo {
                parent: 8,
                zombie: false,
            },
        );
        let table = ProcessTable { processes };
        let mut found = table.descendants(&[1]);
        found.sort();
        assert_eq!(
            found,
            vec![2, 3, 5],
            "zombies are not live, their children are"
        );
    }
}
