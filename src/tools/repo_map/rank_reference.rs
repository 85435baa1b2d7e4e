//! The ranking as it was before names were numbered and links kept in
//! flat lists (commit 36d5d68): strings sorted and compared, a vector
//! per group and per iteration. The tests hold the ranking to it, entry
//! for entry, so the faster one stays the same to the bit.

use super::super::scan::FileSymbols;
use super::super::tags::Kind;
use super::{COMMON_DEFINERS, CONVERGED, DAMPING, Entry, Focus, MAX_ITERATIONS, name_weight};

/// A name and the files that define it (its targets), with the files that
/// use it and how much each use weighs. Each user links to every target
/// with its weight; kept by name rather than link by link, since a common
/// name used in U files and defined in D would make U x D links.
struct Group<'a> {
    name: &'a str,
    targets: Vec<usize>,
    uses: Vec<(usize, f64)>,
}

/// Every definition by name, file and tag index, sorted.
type Defs<'a> = Vec<(&'a str, usize, usize)>;

/// The entries of the map, best first: every definition, then each file
/// with none, by its rank.
pub(super) fn rank(files: &[FileSymbols], focus: &Focus) -> Vec<Entry> {
    let (defs, groups) = groups(files, focus);
    let personal = personal(files, &defs, focus);
    let ranks = pagerank(files.len(), &groups, &personal);
    let out = out_weights(files.len(), &groups);
    let mut ranked: Vec<(usize, &str, f64)> = Vec::new();
    for group in &groups {
        let share = flow(group, &ranks, &out);
        ranked.extend(group.targets.iter().map(|to| (*to, group.name, share)));
    }
    ranked.sort_by(|(a, a_name, a_share), (b, b_name, b_share)| {
        b_share
            .total_cmp(a_share)
            .then_with(|| files[*a].path.cmp(&files[*b].path))
            .then_with(|| a_name.cmp(b_name))
    });
    let mut entries = Vec::new();
    let mut shown = vec![false; files.len()];
    for (file, name, _) in ranked {
        shown[file] = true;
        let first = defs.partition_point(|def| (def.0, def.1) < (name, file));
        let tags = defs[first..]
            .iter()
            .take_while(|def| (def.0, def.1) == (name, file));
        entries.extend(tags.map(|def| Entry::Def(file, def.2)));
    }
    let mut rest: Vec<usize> = (0..files.len()).filter(|file| !shown[*file]).collect();
    rest.sort_by(|a, b| {
        ranks[*b]
            .total_cmp(&ranks[*a])
            .then_with(|| files[*a].path.cmp(&files[*b].path))
    });
    entries.extend(rest.into_iter().map(Entry::File));
    entries
}

/// Where the walk jumps to: the files in focus, and those that define a
/// name the user wrote (unless many do: then the name says little).
fn personal(files: &[FileSymbols], defs: &Defs<'_>, focus: &Focus) -> Vec<f64> {
    let mut personal: Vec<f64> = files
        .iter()
        .map(|file| if focus.holds(&file.path) { 1.0 } else { 0.0 })
        .collect();
    for word in focus.words.iter().filter(|word| word.len() >= 3) {
        let first = defs.partition_point(|def| def.0 < word.as_str());
        let mut definers: Vec<usize> = defs[first..]
            .iter()
            .take_while(|def| def.0 == word.as_str())
            .map(|def| def.1)
            .collect();
        definers.dedup();
        if definers.len() <= COMMON_DEFINERS {
            for file in definers {
                personal[file] = 1.0;
            }
        }
    }
    personal
}

/// The rank a group passes to each of its targets.
fn flow(group: &Group<'_>, ranks: &[f64], out: &[f64]) -> f64 {
    group
        .uses
        .iter()
        .map(|(from, weight)| ranks[*from] * weight / out[*from])
        .sum()
}

/// Each file's weight of links out.
fn out_weights(nodes: usize, groups: &[Group<'_>]) -> Vec<f64> {
    let mut out = vec![0.0; nodes];
    for group in groups {
        for (from, weight) in &group.uses {
            out[*from] += weight * group.targets.len() as f64;
        }
    }
    out
}

/// The definitions, and the groups of links in the order of their names.
/// A name no other file uses still links its definer to itself, faintly,
/// so it is ranked.
fn groups<'a>(files: &'a [FileSymbols], focus: &Focus) -> (Defs<'a>, Vec<Group<'a>>) {
    let mut defs: Defs<'a> = Vec::new();
    let mut refs: Vec<(&str, usize)> = Vec::new();
    for (index, file) in files.iter().enumerate() {
        for (tag_index, (tag, name)) in file.tags.named().enumerate() {
            match tag.kind {
                Kind::Def => defs.push((name, index, tag_index)),
                Kind::Ref => refs.push((name, index)),
            }
        }
    }
    defs.sort_unstable();
    refs.sort_unstable();
    let focused: Vec<bool> = files.iter().map(|file| focus.holds(&file.path)).collect();
    let mut groups = Vec::new();
    let mut at = 0;
    while at < defs.len() {
        let name = defs[at].0;
        let end = at + defs[at..].partition_point(|def| def.0 == name);
        let mut targets: Vec<usize> = defs[at..end].iter().map(|def| def.1).collect();
        targets.dedup();
        at = end;
        let first = refs.partition_point(|used| used.0 < name);
        let users = &refs[first..first + refs[first..].partition_point(|used| used.0 == name)];
        if users.is_empty() {
            groups.extend(targets.into_iter().map(|to| Group {
                name,
                targets: vec![to],
                uses: vec![(to, 0.1)],
            }));
            continue;
        }
        let weight = name_weight(name, targets.len(), focus);
        let mut uses: Vec<(usize, f64)> = Vec::new();
        for run in users.chunk_by(|a, b| a.1 == b.1) {
            let from = run[0].1;
            let from_focus = if focused[from] { 50.0 } else { 1.0 };
            uses.push((from, weight * from_focus * (run.len() as f64).sqrt()));
        }
        groups.push(Group {
            name,
            targets,
            uses,
        });
    }
    (defs, groups)
}

/// Power iteration: the stationary rank of a walk that follows a link
/// with the probability [`DAMPING`] and otherwise (and from a file with no
/// links) jumps to a file of `personal` (to any file when it is all 0).
fn pagerank(nodes: usize, groups: &[Group<'_>], personal: &[f64]) -> Vec<f64> {
    if nodes == 0 {
        return Vec::new();
    }
    let total: f64 = personal.iter().sum();
    let jump: Vec<f64> = match total > 0.0 {
        true => personal.iter().map(|weight| weight / total).collect(),
        false => vec![1.0 / nodes as f64; nodes],
    };
    let out = out_weights(nodes, groups);
    let mut rank = jump.clone();
    for _ in 0..MAX_ITERATIONS {
        let dangling: f64 = (0..nodes)
            .filter(|node| out[*node] == 0.0)
            .map(|node| rank[node])
            .sum();
        let mut next: Vec<f64> = jump
            .iter()
            .map(|share| (1.0 - DAMPING + DAMPING * dangling) * share)
            .collect();
        for group in groups {
            let passed = DAMPING * flow(group, &rank, &out);
            for to in &group.targets {
                next[*to] += passed;
            }
        }
        let change: f64 = next.iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
        rank = next;
        if change < CONVERGED {
            break;
        }
    }
    rank
}
