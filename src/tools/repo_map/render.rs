//! The map as text, fitted to a budget of tokens: the longest prefix of
//! the ranked entries whose rendering fits, found by adding up the length
//! of the rendering entry by entry (a longer prefix never renders
//! shorter), and rendered once. Files come in the order of their best
//! entry, each with its definitions in line order.

use std::fmt::Write as _;

use super::rank::Entry;
use super::scan::{FileSymbols, MAX_FILES};

/// Tokens of a text, by the rule the session counts its context with
/// (`session::compact::estimate_tokens`: four bytes a token).
pub fn tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

/// The map of at most `budget` tokens.
pub fn fit(files: &[FileSymbols], entries: &[Entry], budget: u64, partial: bool) -> String {
    render(
        files,
        &entries[..fitting(files, entries, budget, partial)],
        partial,
    )
}

/// How many of `entries` the map of `budget` tokens holds: the bytes
/// [`render`] would write for each longer prefix, up to the first that
/// does not fit.
fn fitting(files: &[FileSymbols], entries: &[Entry], budget: u64, partial: bool) -> usize {
    let mut shown = vec![false; files.len()];
    let mut with_lines = vec![false; files.len()];
    let (mut body, mut shown_files, mut definitions) = (0, 0, 0);
    let mut last = String::new();
    for (count, entry) in entries.iter().enumerate() {
        let (file, tag) = match *entry {
            Entry::Def(file, tag) => (file, Some(tag)),
            Entry::File(file) => (file, None),
        };
        if !shown[file] {
            shown[file] = true;
            shown_files += 1;
            // The path and its newline.
            body += files[file].path.len() + 1;
        }
        if let Some(tag) = tag {
            if !with_lines[file] {
                with_lines[file] = true;
                // The path's colon.
                body += 1;
            }
            definitions += 1;
            let tags = &files[file].tags;
            let tag = tags.get(tag);
            // `{:>6}: {}\n`.
            body += digits(tag.line as usize).max(6) + 2 + tags.signature(tag).len() + 1;
        }
        last.clear();
        last_line(&mut last, shown_files, files.len(), definitions, partial);
        if ((body + last.len()) as u64).div_ceil(4) > budget {
            return count;
        }
    }
    entries.len()
}

fn digits(mut number: usize) -> usize {
    let mut digits = 1;
    while number >= 10 {
        number /= 10;
        digits += 1;
    }
    digits
}

/// The line that says how much of the tree the map shows.
fn last_line(out: &mut String, shown: usize, files: usize, definitions: usize, partial: bool) {
    let _ = write!(
        out,
        "[{shown} of {files} files shown, best-ranked first, with {definitions} definitions"
    );
    if partial {
        let _ = write!(
            out,
            "; only the first {MAX_FILES} files of the tree were read"
        );
    }
    out.push_str("]\n");
}

/// The entries as the map shows them, and a last line that says how much
/// of the tree that is.
pub fn render(files: &[FileSymbols], entries: &[Entry], partial: bool) -> String {
    let mut order: Vec<usize> = Vec::new();
    let mut lines: Vec<Vec<usize>> = vec![Vec::new(); files.len()];
    let mut seen = vec![false; files.len()];
    for entry in entries {
        let (file, tag) = match *entry {
            Entry::Def(file, tag) => (file, Some(tag)),
            Entry::File(file) => (file, None),
        };
        if !seen[file] {
            seen[file] = true;
            order.push(file);
        }
        lines[file].extend(tag);
    }
    let mut out = String::new();
    let mut definitions = 0;
    for file in &order {
        let symbols = &files[*file];
        let tags = &mut lines[*file];
        tags.sort_by_key(|tag| (symbols.tags.get(*tag).line, *tag));
        definitions += tags.len();
        out.push_str(&symbols.path);
        out.push_str(if tags.is_empty() { "\n" } else { ":\n" });
        for tag in tags.iter() {
            let tag = symbols.tags.get(*tag);
            let _ = writeln!(out, "{:>6}: {}", tag.line, symbols.tags.signature(tag));
        }
    }
    last_line(&mut out, order.len(), files.len(), definitions, partial);
    out
}

#[cfg(test)]
mod tests {
    use super::super::tags::{Kind, Tags};
    use super::*;

    fn files(count: usize) -> (Vec<FileSymbols>, Vec<Entry>) {
        let mut files = Vec::new();
        let mut entries = Vec::new();
        for n in 0..count {
            let mut tags = Tags::default();
            for line in 0..5 {
                tags.push(
                    line * 10 + 1,
                    Kind::Def,
                    &format!("item_{n}_{line}"),
                    &format!("pub fn item_{n}_{line}(value: Input) -> Output {{"),
                );
            }
            files.push(FileSymbols {
                path: format!("src/module_{n:04}.rs"),
                tags,
            });
            entries.extend((0..5).rev().map(|tag| Entry::Def(n, tag)));
        }
        (files, entries)
    }

    #[test]
    fn files_keep_their_definitions_in_line_order() {
        let (files, entries) = files(2);
        let text = render(&files, &entries[..7], false);
        let expected = "src/module_0000.rs:\n     1: pub fn item_0_0(value: Input) -> Output {\n";
        assert!(text.starts_with(expected), "{text}");
        assert!(
            text.contains("src/module_0001.rs:\n    31: pub fn item_1_3"),
            "{text}"
        );
        assert!(text.ends_with("[2 of 2 files shown, best-ranked first, with 7 definitions]\n"));
    }

    #[test]
    fn the_map_lands_just_under_the_budget() {
        let (files, entries) = files(2_000);
        for budget in [256, 1_000, 4_096, 10_000] {
            let text = fit(&files, &entries, budget, false);
            let used = tokens(&text);
            assert!(used <= budget, "{budget}: {used}");
            assert!(used as f64 >= budget as f64 * 0.95, "{budget}: {used}");
        }
    }

    #[test]
    fn a_small_tree_is_shown_whole_under_a_large_budget() {
        let (files, entries) = files(3);
        let text = fit(&files, &entries, 100_000, false);
        assert_eq!(text, render(&files, &entries, false));
    }

    #[test]
    fn the_counted_length_is_the_rendered_one() {
        let (mut files, mut entries) = files(40);
        let mut long = Tags::default();
        for (index, (tag, name)) in files[3].tags.named().enumerate() {
            let line = if index == 2 { 12_345_678 } else { tag.line };
            long.push(line, tag.kind, name, files[3].tags.signature(tag));
        }
        files[3].tags = long;
        files.push(FileSymbols {
            path: "README.md".to_owned(),
            tags: Tags::default(),
        });
        entries.insert(17, Entry::File(40));
        for partial in [false, true] {
            for budget in (0..1_200).step_by(7) {
                let longest = (0..=entries.len())
                    .rev()
                    .find(|count| tokens(&render(&files, &entries[..*count], partial)) <= budget)
                    .unwrap_or(0);
                assert_eq!(
                    fitting(&files, &entries, budget, partial),
                    longest,
                    "{budget}"
                );
            }
        }
    }
}
