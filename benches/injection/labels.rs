//! Rates by what a blind set's writer said of each text, in the
//! `labels.tsv` beside its `injected.txt` and `benign.txt`: whether an
//! injection names an AI reader (the classes do; an order to
//! whoever handles a ticket does not) and its class, whether a benign
//! text is a hard negative. One line a text, in file order:
//! `N<TAB>class<TAB>reader...` for injected texts (`reader` is `ai` or
//! `none`), `B<N><TAB>kind<TAB>hard|plain...` for benign ones.

use std::collections::BTreeMap;
use std::path::Path;

use agent::session::untrusted::detect;

use super::corpus::Sample;

/// Prints the rates of `injected` and `benign` per label, if `dir` has a
/// `labels.tsv`.
pub fn report(dir: &Path, name: &str, injected: &[Sample], benign: &[Sample]) {
    let Ok(labels) = std::fs::read_to_string(dir.join("labels.tsv")) else {
        return;
    };
    // Per group: texts, flagged.
    let mut groups: BTreeMap<String, [usize; 2]> = BTreeMap::new();
    for line in labels.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let (Some(number), Some(kind), Some(third)) =
            (fields.first(), fields.get(1), fields.get(2))
        else {
            continue;
        };
        let (texts, number, keys) = match number.strip_prefix('B') {
            Some(number) => (benign, number, vec![format!("benign, {third}")]),
            None => (
                injected,
                *number,
                vec![
                    format!("injected, reader {third}"),
                    format!("injected, class {kind}"),
                ],
            ),
        };
        let Some(sample) = number
            .parse::<usize>()
            .ok()
            .and_then(|number| texts.get(number.checked_sub(1)?))
        else {
            panic!("{}: no text for the line {line:?}", dir.display());
        };
        let flagged = !detect(&sample.text).is_empty();
        for key in keys {
            let entry = groups.entry(key).or_default();
            entry[0] += 1;
            entry[1] += usize::from(flagged);
        }
    }
    println!("{name}, by its writer's labels:");
    for (group, [texts, flagged]) in &groups {
        let rate = 100.0 * *flagged as f64 / (*texts).max(1) as f64;
        println!("  {group:<34} {texts:>5} {flagged:>8} {rate:>7.1}%");
    }
    println!();
}
