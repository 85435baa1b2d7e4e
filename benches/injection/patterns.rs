//! `cargo bench --bench injection -- --pattern-hits`: each pattern of
//! the rule table over the committed corpus, the ones that flag benign
//! texts first: which pattern of a rule does the harm, before a rule is
//! narrowed. Never reads `fresh/`, `next/` or `literal/`.

use std::path::Path;

use agent::session::untrusted::detect::{around, detect, normalise};
use agent::session::untrusted::rules::table;
use agent::session::untrusted::score::INSTRUCTION_SCORE;
use regex::{Regex, RegexBuilder};

use crate::corpus;

/// A text of the corpus, normalised, and the rules that flag it.
struct Text {
    name: String,
    normal: String,
    rules: Vec<String>,
}

/// Per pattern: the rule, its place in the rule, the texts it matches
/// (injected, benign) and, of those, the ones no other rule and not
/// the phrase table flags.
struct Hits {
    rule: &'static str,
    index: usize,
    injected: usize,
    benign: usize,
    injected_alone: usize,
    benign_alone: usize,
    pattern: &'static str,
}

pub fn run(root: &Path) {
    let injected = corpus::committed(root, "injected");
    let mut benign = corpus::committed(root, "benign");
    benign.extend(corpus::registry_docs());
    // The text, normalised, and the rules that flag it.
    let read = |samples: &[corpus::Sample]| -> Vec<Text> {
        samples
            .iter()
            .map(|sample| Text {
                name: format!("{} {}", sample.class, sample.name),
                normal: normalise(&sample.text),
                rules: detect(&sample.text)
                    .into_iter()
                    .map(|flag| flag.rule)
                    .collect(),
            })
            .collect()
    };
    // `INJECTION_PATTERN_DUMP=FILE`: each pattern's texts, one per line,
    // to be joined with the held-out scores of `INJECTION_TRAIN_DUMP`.
    let mut dump = String::new();
    let (injected, benign) = (read(&injected), read(&benign));
    let mut all = Vec::new();
    for rule in table() {
        let near = match rule.near {
            None => None,
            Some((patterns, bytes)) => {
                let joined = patterns
                    .iter()
                    .map(|pattern| format!("(?:{})", pattern.replace(r"\b", r"(?-u:\b)")))
                    .collect::<Vec<_>>()
                    .join("|");
                let built = RegexBuilder::new(&joined)
                    .size_limit(1 << 28)
                    .dfa_size_limit(1 << 28)
                    .build();
                match built {
                    Ok(regex) => Some((regex, bytes)),
                    // `every_pattern_compiles` holds them; a rule whose
                    // near patterns do not compile is left out here.
                    Err(err) => {
                        println!("{}: its near patterns do not compile: {err}", rule.id);
                        continue;
                    }
                }
            }
        };
        for (index, pattern) in rule.patterns.iter().enumerate() {
            let Ok(regex) = Regex::new(&pattern.replace(r"\b", r"(?-u:\b)")) else {
                continue;
            };
            let hits = |text: &str| {
                regex.find_iter(text).any(|found| match &near {
                    None => true,
                    Some((near, within)) => {
                        let (from, to) = around(text, found.start(), found.end(), *within);
                        near.is_match(&text[from..to])
                    }
                })
            };
            let mut count = |texts: &[Text]| {
                let matched: Vec<&Text> = texts.iter().filter(|text| hits(&text.normal)).collect();
                for text in &matched {
                    dump.push_str(&format!("{} #{index}\t{}\n", rule.id, text.name));
                }
                let alone = matched
                    .iter()
                    .filter(|text| {
                        text.rules
                            .iter()
                            .all(|other| other == rule.id && other != INSTRUCTION_SCORE)
                    })
                    .count();
                (matched.len(), alone)
            };
            let (injected_hits, injected_alone) = count(&injected);
            let (benign_hits, benign_alone) = count(&benign);
            all.push(Hits {
                rule: rule.id,
                index,
                injected: injected_hits,
                benign: benign_hits,
                injected_alone,
                benign_alone,
                pattern,
            });
        }
    }
    if let Some(path) = std::env::var_os("INJECTION_PATTERN_DUMP")
        && let Err(err) = std::fs::write(&path, dump)
    {
        panic!("{}: {err}", Path::new(&path).display());
    }
    all.sort_by_key(|hits| {
        (
            std::cmp::Reverse(hits.benign_alone),
            std::cmp::Reverse(hits.benign),
        )
    });
    println!(
        "Patterns over {} injected and {} benign texts (committed and the registry's); \
         alone: no other rule and not the table",
        injected.len(),
        benign.len()
    );
    println!(
        "{:<34} {:>8} {:>6} {:>8} {:>6}",
        "rule #pattern", "injected", "alone", "benign", "alone"
    );
    for hits in all.iter().filter(|hits| hits.benign > 0) {
        println!(
            "{:<34} {:>8} {:>6} {:>8} {:>6}",
            format!("{} #{}", hits.rule, hits.index),
            hits.injected,
            hits.injected_alone,
            hits.benign,
            hits.benign_alone
        );
    }
    if std::env::var_os("INJECTION_PATTERN_SOURCES").is_some() {
        for hits in all.iter().filter(|hits| hits.benign_alone > 0) {
            let shown: String = hits.pattern.chars().take(300).collect();
            println!("\n{} #{}: {shown}", hits.rule, hits.index);
        }
    }
}
