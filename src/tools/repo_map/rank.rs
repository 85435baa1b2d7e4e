//! Which definitions matter most: files are nodes, and a file that refers
//! to a name another defines links to it, weighted by how often and by
//! what the name is. A PageRank personalised towards the files in focus
//! ranks the files; each file's rank flows along its links to the
//! definitions it uses, and those shares rank the definitions. Every
//! collection here is ordered, and every sum is taken in the same order,
//! so the same input ranks the same, to the bit. Names are numbered once,
//! in their byte order, and sorted and compared as numbers after.

use std::collections::BTreeSet;

use super::scan::FileSymbols;
use super::tags::{Kind, Tag};

const DAMPING: f64 = 0.85;
const MAX_ITERATIONS: usize = 100;
const CONVERGED: f64 = 1e-10;
/// A name defined in more files than this is too common to say much.
const COMMON_DEFINERS: usize = 5;

/// What the map is drawn towards.
#[derive(Debug, Clone, Default)]
pub struct Focus {
    /// Paths (files, or folders ending in `/`) given to the tool, and the
    /// files the session touched: the walk starts from them.
    pub paths: BTreeSet<String>,
    /// Identifiers and file names the user wrote.
    pub words: BTreeSet<String>,
}

impl Focus {
    fn holds(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        self.paths.iter().any(|focus| {
            focus == path || (focus.ends_with('/') && path.starts_with(focus.as_str()))
        }) || self.words.contains(path)
            || self.words.contains(name)
    }
}

/// One line of the map, best first: a definition (file, tag index), or a
/// file shown by its path alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    Def(usize, usize),
    File(usize),
}

/// The tags of all files by name number: the names in byte order (each
/// by a tag that has it, and its [`NameShape`]: the text of a name is read
/// only where it is asked for), every definition (name, file, tag index)
/// and every reference (name, file), each sorted.
struct Tags<'a> {
    files: &'a [FileSymbols],
    /// (file, tag index, shape).
    names: Vec<(u32, u32, NameShape)>,
    defs: Vec<(usize, usize, usize)>,
    refs: Vec<(usize, usize)>,
}

/// What a link's weight asks of its name besides the focus, found where
/// the name is read ([`Tags::push`](super::tags::Tags::push)) rather than
/// name by name when the links are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameShape {
    /// Long and compound (`parse_config`, `ServiceHandle`): says much.
    pub specific: bool,
    /// `_hidden`.
    pub private: bool,
}

impl NameShape {
    pub fn of(name: &str) -> NameShape {
        NameShape {
            specific: name.len() >= 8
                && (name.contains('_')
                    || (name.chars().any(char::is_uppercase)
                        && name.chars().any(char::is_lowercase))),
            private: name.starts_with('_'),
        }
    }
}

/// One tag, as [`Tags::of`] sorts them: the first 16 bytes of its name as
/// a number ([`Tag::name_prefix`]), the name's length, and where the tag
/// is.
struct Met {
    prefix: u128,
    len: u32,
    file: u32,
    tag: u32,
    kind: Kind,
    shape: NameShape,
}

impl Met {
    fn new(tag: &Tag, file: usize, index: usize) -> Met {
        Met {
            prefix: tag.name_prefix(),
            len: u32::from(tag.name_len()),
            file: u32::try_from(file).unwrap_or(u32::MAX),
            tag: u32::try_from(index).unwrap_or(u32::MAX),
            kind: tag.kind,
            shape: tag.shape,
        }
    }

    /// The byte order of the two names. The same first bytes of two
    /// names of at most 16 bytes make the shorter the lesser (its zeros
    /// against the other's bytes, or the same name); else `name` gives
    /// the text to compare.
    fn by_name<'n>(&self, other: &Met, name: impl Fn(&Met) -> &'n str) -> std::cmp::Ordering {
        self.prefix.cmp(&other.prefix).then_with(|| {
            if self.len <= 16 && other.len <= 16 {
                self.len.cmp(&other.len)
            } else {
                name(self).cmp(name(other))
            }
        })
    }
}

/// The links, group by group, in flat lists. A group is a name and the
/// files that define it (its targets), with the files that use it and how
/// much each use weighs; each user links to every target with its weight.
/// Kept by name rather than link by link, since a common name used in U
/// files and defined in D would make U x D links.
#[derive(Default)]
struct Links {
    /// Per group: its name, and where its targets and its uses end.
    groups: Vec<(usize, usize, usize)>,
    targets: Vec<usize>,
    /// Per target, its first definition of the name in [`Tags::defs`].
    firsts: Vec<usize>,
    /// (from, weight).
    uses: Vec<(usize, f64)>,
}

impl Links {
    fn push(&mut self, name: usize, targets: &[(usize, usize)], uses: &[(usize, f64)]) {
        self.targets.extend(targets.iter().map(|(to, _)| *to));
        self.firsts.extend(targets.iter().map(|(_, first)| *first));
        self.uses.extend_from_slice(uses);
        self.groups
            .push((name, self.targets.len(), self.uses.len()));
    }

    /// Each group: its name, targets and uses.
    fn each(&self) -> impl Iterator<Item = (usize, &[usize], &[(usize, f64)])> {
        let mut starts = (0, 0);
        self.groups
            .iter()
            .map(move |&(name, targets_end, uses_end)| {
                let (targets, uses) = starts;
                starts = (targets_end, uses_end);
                (
                    name,
                    &self.targets[targets..targets_end],
                    &self.uses[uses..uses_end],
                )
            })
    }
}

/// The entries of the map, best first: every definition, then each file
/// with none, by its rank.
pub fn rank(files: &[FileSymbols], focus: &Focus) -> Vec<Entry> {
    let tags = Tags::of(files);
    let focused: Vec<bool> = files.iter().map(|file| focus.holds(&file.path)).collect();
    let links = links(&tags, &focused, focus);
    let personal = personal(&focused, &tags, focus);
    let out = out_weights(files.len(), &links);
    let ranks = pagerank(&links, &out, &personal);
    let by_path = path_order(files);
    // (file, name, share, its first definition there).
    let mut ranked: Vec<(usize, usize, f64, usize)> = Vec::new();
    let mut firsts = links.firsts.iter();
    for (name, targets, uses) in links.each() {
        let share = flow(uses, &ranks, &out);
        let targets = targets.iter().zip(firsts.by_ref());
        ranked.extend(targets.map(|(to, first)| (*to, name, share, *first)));
    }
    ranked.sort_by(|(a, a_name, a_share, _), (b, b_name, b_share, _)| {
        b_share
            .total_cmp(a_share)
            .then_with(|| by_path[*a].cmp(&by_path[*b]))
            .then_with(|| a_name.cmp(b_name))
    });
    let mut entries = Vec::new();
    let mut shown = vec![false; files.len()];
    let defs = &tags.defs;
    for (file, name, _, first) in ranked {
        shown[file] = true;
        let tags = defs[first..]
            .iter()
            .take_while(|def| (def.0, def.1) == (name, file));
        entries.extend(tags.map(|def| Entry::Def(file, def.2)));
    }
    let mut rest: Vec<usize> = (0..files.len()).filter(|file| !shown[*file]).collect();
    rest.sort_by(|a, b| {
        ranks[*b]
            .total_cmp(&ranks[*a])
            .then_with(|| by_path[*a].cmp(&by_path[*b]))
    });
    entries.extend(rest.into_iter().map(Entry::File));
    entries
}

impl<'a> Tags<'a> {
    /// Every tag sorted once by name (then file, then place in the file),
    /// and numbered in that order: no table of names, and the sort
    /// compares the first bytes of two names as one number, going to the
    /// names' text only where those are the same.
    fn of(files: &'a [FileSymbols]) -> Tags<'a> {
        let count = files.iter().map(|file| file.tags.len()).sum();
        let mut met: Vec<Met> = Vec::with_capacity(count);
        for (file, symbols) in files.iter().enumerate() {
            for (index, tag) in symbols.tags.as_slice().iter().enumerate() {
                met.push(Met::new(tag, file, index));
            }
        }
        let name = |met: &Met| {
            let tags = &files[met.file as usize].tags;
            tags.name(tags.get(met.tag as usize))
        };
        // By numbers first; a run of the same first bytes holds more than
        // one name only where a name is longer or the lengths differ, and
        // only such a run is put in the order of the names' text.
        met.sort_unstable_by_key(|met| (met.prefix, met.file, met.tag));
        for run in met.chunk_by_mut(|a, b| a.prefix == b.prefix) {
            if run.iter().any(|met| met.len > 16 || met.len != run[0].len) {
                run.sort_unstable_by(|a, b| {
                    a.by_name(b, name)
                        .then(a.file.cmp(&b.file))
                        .then(a.tag.cmp(&b.tag))
                });
            }
        }
        let mut names = Vec::new();
        let mut defs = Vec::new();
        let mut refs = Vec::new();
        let mut previous: Option<&Met> = None;
        for tag in &met {
            if previous.is_none_or(|previous| previous.by_name(tag, name).is_ne()) {
                names.push((tag.file, tag.tag, tag.shape));
            }
            previous = Some(tag);
            let number = names.len() - 1;
            match tag.kind {
                Kind::Def => defs.push((number, tag.file as usize, tag.tag as usize)),
                Kind::Ref => refs.push((number, tag.file as usize)),
            }
        }
        Tags {
            files,
            names,
            defs,
            refs,
        }
    }

    /// The name numbered `number`.
    #[cfg(test)]
    fn name(&self, number: usize) -> &'a str {
        let (file, tag, _) = self.names[number];
        let tags = &self.files[file as usize].tags;
        tags.name(tags.get(tag as usize))
    }

    /// The number of `name`, if a tag has it.
    fn number(&self, name: &str) -> Option<usize> {
        self.names
            .binary_search_by(|(file, tag, _)| {
                let tags = &self.files[*file as usize].tags;
                tags.name(tags.get(*tag as usize)).cmp(name)
            })
            .ok()
    }
}

/// Each file's place in the order of paths (the scan gives them sorted;
/// equal paths, which it never gives, have the same place).
fn path_order(files: &[FileSymbols]) -> Vec<usize> {
    if files.is_sorted_by(|a, b| a.path < b.path) {
        return (0..files.len()).collect();
    }
    let mut sorted: Vec<usize> = (0..files.len()).collect();
    sorted.sort_by(|a, b| files[*a].path.cmp(&files[*b].path));
    let mut order = vec![0; files.len()];
    for (place, file) in sorted.iter().enumerate() {
        let same = place > 0 && files[sorted[place - 1]].path == files[*file].path;
        order[*file] = if same {
            order[sorted[place - 1]]
        } else {
            place
        };
    }
    order
}

/// Where the walk jumps to: the files in focus, and those that define a
/// name the user wrote (unless many do: then the name says little).
fn personal(focused: &[bool], tags: &Tags<'_>, focus: &Focus) -> Vec<f64> {
    let mut personal: Vec<f64> = focused
        .iter()
        .map(|held| if *held { 1.0 } else { 0.0 })
        .collect();
    for word in focus.words.iter().filter(|word| word.len() >= 3) {
        let Some(name) = tags.number(word) else {
            continue;
        };
        let defs = &tags.defs;
        let first = defs.partition_point(|def| def.0 < name);
        let mut definers: Vec<usize> = defs[first..]
            .iter()
            .take_while(|def| def.0 == name)
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

/// The rank a group passes to each of its targets. Inlined into the
/// power iteration, which calls it for every group of every iteration.
#[inline]
fn flow(uses: &[(usize, f64)], ranks: &[f64], out: &[f64]) -> f64 {
    // As `Iterator::sum` adds floats, from -0.0, in a loop the compiler
    // inlines.
    let mut sum = -0.0;
    for (from, weight) in uses {
        sum += ranks[*from] * weight / out[*from];
    }
    sum
}

/// Each file's weight of links out.
fn out_weights(nodes: usize, links: &Links) -> Vec<f64> {
    let mut out = vec![0.0; nodes];
    for (_, targets, uses) in links.each() {
        for (from, weight) in uses {
            out[*from] += weight * targets.len() as f64;
        }
    }
    out
}

/// The groups of links in the order of their names. A name no other file
/// uses still links its definer to itself, faintly, so it is ranked.
fn links(tags: &Tags<'_>, focused: &[bool], focus: &Focus) -> Links {
    let (defs, refs) = (&tags.defs, &tags.refs);
    let mut mentioned: Vec<usize> = focus
        .words
        .iter()
        .filter_map(|word| tags.number(word))
        .collect();
    mentioned.sort_unstable();
    let mut links = Links::default();
    // (file, its first definition of the name).
    let mut targets: Vec<(usize, usize)> = Vec::new();
    let mut uses: Vec<(usize, f64)> = Vec::new();
    let mut at = 0;
    let mut used_at = 0;
    while at < defs.len() {
        let name = defs[at].0;
        let end = at + defs[at..].partition_point(|def| def.0 == name);
        targets.clear();
        for (first, def) in defs.iter().enumerate().take(end).skip(at) {
            if targets.last().is_none_or(|(to, _)| *to != def.1) {
                targets.push((def.1, first));
            }
        }
        at = end;
        used_at += refs[used_at..].partition_point(|used| used.0 < name);
        let users_end = used_at + refs[used_at..].partition_point(|used| used.0 == name);
        let users = &refs[used_at..users_end];
        used_at = users_end;
        if users.is_empty() {
            for target in &targets {
                links.push(name, &[*target], &[(target.0, 0.1)]);
            }
            continue;
        }
        let weight = weight(
            mentioned.binary_search(&name).is_ok(),
            tags.names[name].2,
            targets.len(),
        );
        uses.clear();
        for run in users.chunk_by(|a, b| a.1 == b.1) {
            let from = run[0].1;
            let from_focus = if focused[from] { 50.0 } else { 1.0 };
            uses.push((from, weight * from_focus * (run.len() as f64).sqrt()));
        }
        links.push(name, &targets, &uses);
    }
    links
}

/// [`weight`] of `name`, for the tests and the reference ranking.
#[cfg(test)]
fn name_weight(name: &str, definers: usize, focus: &Focus) -> f64 {
    weight(focus.words.contains(name), NameShape::of(name), definers)
}

/// How much a link by a name weighs: more for a name the user wrote
/// (`mentioned`) and for a long, specific one; less for a private or very
/// common one (defined in more than a few files).
fn weight(mentioned: bool, shape: NameShape, definers: usize) -> f64 {
    let mut weight = 1.0;
    if mentioned {
        weight *= 10.0;
    }
    if shape.specific {
        weight *= 10.0;
    }
    if shape.private {
        weight *= 0.1;
    }
    if definers > COMMON_DEFINERS {
        weight *= 0.1;
    }
    weight
}

/// Power iteration: the stationary rank of a walk that follows a link
/// with the probability [`DAMPING`] and otherwise (and from a file with no
/// links out, by `out`) jumps to a file of `personal` (to any file when it
/// is all 0). Two buffers, swapped: nothing is allocated per iteration.
fn pagerank(links: &Links, out: &[f64], personal: &[f64]) -> Vec<f64> {
    let nodes = personal.len();
    if nodes == 0 {
        return Vec::new();
    }
    let total: f64 = personal.iter().sum();
    let jump: Vec<f64> = match total > 0.0 {
        true => personal.iter().map(|weight| weight / total).collect(),
        false => vec![1.0 / nodes as f64; nodes],
    };
    let dangling_nodes: Vec<usize> = (0..nodes).filter(|node| out[*node] == 0.0).collect();
    let mut rank = jump.clone();
    let mut next = vec![0.0; nodes];
    for _ in 0..MAX_ITERATIONS {
        let dangling: f64 = dangling_nodes.iter().map(|node| rank[*node]).sum();
        let teleport = 1.0 - DAMPING + DAMPING * dangling;
        for (slot, share) in next.iter_mut().zip(&jump) {
            *slot = teleport * share;
        }
        for (_, targets, uses) in links.each() {
            let passed = DAMPING * flow(uses, &rank, out);
            for to in targets {
                next[*to] += passed;
            }
        }
        let change: f64 = next.iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
        std::mem::swap(&mut rank, &mut next);
        if change < CONVERGED {
            break;
        }
    }
    rank
}

#[cfg(test)]
#[path = "rank_reference.rs"]
mod reference;

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::tags::Tags;
    use super::*;

    fn file(path: &str, defs: &[&str], refs: &[&str]) -> FileSymbols {
        let mut tags = Tags::default();
        let kinds = [(Kind::Def, defs, 1), (Kind::Ref, refs, 100)];
        for (kind, names, first_line) in kinds {
            for (name, line) in names.iter().zip(first_line..) {
                tags.push(line, kind, name, &format!("def {name}"));
            }
        }
        FileSymbols {
            path: path.to_owned(),
            tags,
        }
    }

    fn links(pairs: &[(usize, usize, f64)]) -> Links {
        let mut links = Links::default();
        for (from, to, weight) in pairs {
            links.push(0, &[(*to, 0)], &[(*from, *weight)]);
        }
        links
    }

    fn pagerank_of(nodes: usize, pairs: &[(usize, usize, f64)], personal: &[f64]) -> Vec<f64> {
        assert_eq!(personal.len(), nodes);
        let links = links(pairs);
        pagerank(&links, &out_weights(nodes, &links), personal)
    }

    #[test]
    fn rank_sums_to_one_and_flows_to_what_is_linked() {
        // 0 -> 2, 1 -> 2, 2 -> 0.
        let links = [(0, 2, 1.0), (1, 2, 1.0), (2, 0, 1.0)];
        let rank = pagerank_of(3, &links, &[0.0; 3]);
        assert!((rank.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{rank:?}");
        assert!(rank[2] > rank[0] && rank[0] > rank[1], "{rank:?}");
        // Personalised on 1: its one target gains.
        let towards_one = pagerank_of(3, &links, &[0.0, 1.0, 0.0]);
        assert!(towards_one[1] > rank[1], "{towards_one:?}");
    }

    #[test]
    fn a_dangling_file_gives_its_rank_back_to_the_jump() {
        let rank = pagerank_of(2, &[(0, 1, 1.0)], &[0.0; 2]);
        assert!((rank.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{rank:?}");
        assert!(rank[1] > rank[0]);
    }

    #[test]
    fn the_focus_file_ranks_what_it_uses_first() {
        let files = vec![
            file("a.py", &["alpha_store"], &[]),
            file("b.py", &["beta_loader"], &[]),
            file("main.py", &["main"], &["beta_loader"]),
            file("other.py", &["other"], &["alpha_store", "alpha_store"]),
        ];
        let plain = rank(&files, &Focus::default());
        assert_eq!(plain[0], Entry::Def(0, 0), "{plain:?}");
        let focus = Focus {
            paths: BTreeSet::from(["main.py".to_owned()]),
            words: BTreeSet::new(),
        };
        let focused = rank(&files, &focus);
        assert_eq!(focused[0], Entry::Def(1, 0), "{focused:?}");
        // Every definition and file is in the list once.
        assert_eq!(focused.len(), 4);
    }

    #[test]
    fn mentioned_names_weigh_more_private_and_common_ones_less() {
        let focus = Focus {
            paths: BTreeSet::new(),
            words: BTreeSet::from(["run".to_owned()]),
        };
        assert_eq!(name_weight("run", 1, &focus), 10.0);
        assert_eq!(name_weight("go", 1, &focus), 1.0);
        assert_eq!(name_weight("parse_config", 1, &focus), 10.0);
        assert!((name_weight("_hidden", 1, &focus) - 0.1).abs() < 1e-12);
        assert!((name_weight("new", 9, &focus) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn the_same_input_ranks_the_same() {
        let files: Vec<FileSymbols> = (0..40)
            .map(|n| {
                let def = format!("symbol_{n}");
                let used = format!("symbol_{}", (n * 7 + 3) % 40);
                file(&format!("f{n:02}.rs"), &[&def], &[&used])
            })
            .collect();
        let first = rank(&files, &Focus::default());
        for _ in 0..5 {
            assert_eq!(rank(&files, &Focus::default()), first);
        }
    }

    // Names longer than the 16 bytes `Met` compares as a number, with
    // those bytes the same, and one that is another with a zero after it.
    const NAMES: [&str; 18] = [
        "handle_request_with_timeout",
        "handle_request_with_retry",
        "handle_request_w",
        "a\0",
        "new",
        "run",
        "parse_config",
        "_hidden",
        "Engine",
        "spawn",
        "x",
        "handle_request",
        "ServiceHandle",
        "poll",
        "drop",
        "f00.rs",
        "a",
        "zz",
    ];

    #[test]
    fn names_are_numbered_in_byte_order() {
        let files: Vec<FileSymbols> = (0..NAMES.len())
            .map(|n| {
                let defs: Vec<&str> = NAMES.iter().cycle().skip(n).take(5).copied().collect();
                let refs: Vec<&str> = NAMES
                    .iter()
                    .rev()
                    .cycle()
                    .skip(n * 3)
                    .take(4)
                    .copied()
                    .collect();
                file(&format!("f{n:02}.rs"), &defs, &refs)
            })
            .collect();
        let tags = super::Tags::of(&files);
        let mut expected = NAMES.to_vec();
        expected.sort_unstable();
        let names: Vec<&str> = (0..tags.names.len()).map(|n| tags.name(n)).collect();
        assert_eq!(names, expected);
        let (mut defs, mut refs) = (Vec::new(), Vec::new());
        for (index, file) in files.iter().enumerate() {
            for (tag_index, (tag, name)) in file.tags.named().enumerate() {
                let number = expected.binary_search(&name).unwrap();
                match tag.kind {
                    Kind::Def => defs.push((number, index, tag_index)),
                    Kind::Ref => refs.push((number, index)),
                }
            }
        }
        defs.sort_unstable();
        refs.sort_unstable();
        assert_eq!((tags.defs, tags.refs), (defs, refs));
    }

    proptest! {
        #![proptest_config(crate::model::sse::test_support::config(64))]

        #[test]
        fn the_numbered_ranking_is_the_string_one_to_the_bit(
            tags in proptest::collection::vec(
                proptest::collection::vec((0..NAMES.len(), any::<bool>()), 0..8),
                0..30,
            ),
            sorted in any::<bool>(),
            words in proptest::collection::btree_set(0..NAMES.len(), 0..3),
            paths in proptest::collection::btree_set(0..30usize, 0..2),
        ) {
            let path = |n: usize| match sorted {
                true => format!("f{n:02}.rs"),
                false => format!("d{}/f{n}.rs", (n * 7) % 5),
            };
            let files: Vec<FileSymbols> = tags
                .iter()
                .enumerate()
                .map(|(n, tags)| {
                    let defs: Vec<&str> =
                        tags.iter().filter(|t| t.1).map(|t| NAMES[t.0]).collect();
                    let refs: Vec<&str> =
                        tags.iter().filter(|t| !t.1).map(|t| NAMES[t.0]).collect();
                    file(&path(n), &defs, &refs)
                })
                .collect();
            let focus = Focus {
                paths: paths.into_iter().map(path).collect(),
                words: words.into_iter().map(|n| NAMES[n].to_owned()).collect(),
            };
            prop_assert_eq!(rank(&files, &focus), reference::rank(&files, &focus));
        }
    }
}
