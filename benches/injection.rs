//! How well the untrusted-content rules tell injections from ordinary
//! text, and how fast they run: `cargo bench --bench injection`.
//!
//! Detection rate per class of injected texts, false-positive rate per
//! class of benign texts (the committed corpus, this repository's own
//! files, and the cargo registry's READMEs and changelogs where the
//! machine has them), the rules that fired, every miss and every false
//! positive (`INJECTION_BENCH_LIST=all` for more than 40 of each; a new
//! blind set in `INJECTION_BENCH_EXTRA=DIR`, its `injected.txt` and
//! `benign.txt`, is measured apart), and
//! the time the detector takes. The figures go in docs/benchmarks.md.
//! Each class is counted three ways: the regex rules alone, the weighted
//! phrase table alone (`instruction-score`), and either, which is what
//! the agent flags.
//!
//! `-- --train` fits the phrase table instead (never on `fresh/`),
//! writes its weights and measures it on `fresh/`; `-- --train --blind`
//! writes nothing (see `injection/train.rs`).

// A benchmark's report is what it prints.
#![allow(clippy::print_stdout)]

#[path = "injection/corpus.rs"]
mod corpus;
#[path = "injection/labels.rs"]
mod labels;
#[path = "injection/patterns.rs"]
mod patterns;
#[path = "injection/train.rs"]
mod train;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use agent::session::untrusted::score::INSTRUCTION_SCORE;
use agent::session::untrusted::{RULES_VERSION, detect, screen};
use agent::tools::untrusted::Origin;
use corpus::Sample;

/// The goals of the issue: at least this share of injected texts
/// flagged, at most this share of benign ones.
const DETECTION_GOAL: f64 = 0.95;
const FALSE_POSITIVE_GOAL: f64 = 0.01;

fn main() {
    // Thousands of texts in a row: their caches are kept whatever size.
    let _keep = agent::session::untrusted::detect::KeepCaches::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // `cargo bench` passes `--bench` too.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--pattern-hits") {
        patterns::run(root);
        return;
    }
    if args.iter().any(|arg| arg == "--train") {
        let flag = |name: &str| args.iter().any(|arg| arg == name);
        train::run(
            root,
            flag("--blind"),
            flag("--cv"),
            flag("--without-registry"),
        );
        return;
    }
    // Compiling the table is paid once per process; it is timed alone.
    let started = Instant::now();
    detect("warm up");
    let compile = started.elapsed();
    let injected = corpus::committed(root, "injected");
    let hard = corpus::committed(root, "hard");
    let mut benign = corpus::committed(root, "benign");
    benign.extend(corpus::repo_files(root));
    benign.extend(corpus::registry_docs());

    let (fresh_injected, fresh_benign): (Vec<Sample>, Vec<Sample>) =
        corpus::committed(root, "fresh")
            .into_iter()
            .partition(|sample| sample.class == "fresh/injected");

    println!("Untrusted-content rules, version {RULES_VERSION}\n");
    println!(
        "{:<26} {:>6} {:>8} {:>8} {:>6} {:>6}",
        "class", "texts", "flagged", "rate", "rules", "table"
    );
    let (missed, fired) = report(&injected, "injected (all)", DETECTION_GOAL, true);
    let (false_positives, _) = report(&benign, "benign (all)", FALSE_POSITIVE_GOAL, false);
    println!("Fresh texts, written after the rules and never tuned on:");
    let (fresh_missed, _) = report(&fresh_injected, "fresh injected", 0.0, true);
    let (fresh_flagged, _) = report(&fresh_benign, "fresh benign", 0.0, false);
    report(&hard, "about injections", 0.0, false);
    labels::report(
        &root.join("benches/injection/fresh"),
        "fresh",
        &fresh_injected,
        &fresh_benign,
    );
    // The issue's own classes, written blind (version 36): its rates
    // against the issue's goal, never its texts.
    let literal_dir = root.join("benches/injection/literal");
    let (literal_injected, literal_benign) = blind_set(&literal_dir, "literal");
    println!("The issue's own classes, written blind and never read (literal/):");
    report(&literal_injected, "literal injected", DETECTION_GOAL, true);
    report(
        &literal_benign,
        "literal benign",
        FALSE_POSITIVE_GOAL,
        false,
    );
    labels::report(&literal_dir, "literal", &literal_injected, &literal_benign);
    // A new blind set, measured once before it joins the corpus.
    let extra_dir = std::env::var_os("INJECTION_BENCH_EXTRA").map(std::path::PathBuf::from);
    let extra = extra_dir.as_deref().map(|dir| blind_set(dir, "extra"));
    if let (Some(dir), Some((injected, benign))) = (&extra_dir, &extra) {
        println!("The set in INJECTION_BENCH_EXTRA:");
        report(injected, "extra injected", 0.0, true);
        report(benign, "extra benign", 0.0, false);
        labels::report(dir, "extra", injected, benign);
    }
    // Thousands of real source files: ordinary code, measured on demand
    // (some twenty seconds).
    if std::env::var_os("INJECTION_BENCH_CODE").is_some() {
        let code = corpus::registry_code(agent::tools::MODEL_OUTPUT_LIMIT);
        let (flagged, _) = report(&code, "registry code", 0.0, false);
        println!("Registry code flagged:");
        for sample in &flagged {
            for flag in detect(&sample.text) {
                println!("  {} [{}]: {}", sample.name, flag.rule, flag.excerpt);
            }
        }
        println!();
    }

    println!("\nRules that fired on injected texts:");
    for (rule, count) in &fired {
        println!("  {rule:<22} {count}");
    }
    let all = std::env::var("INJECTION_BENCH_LIST").is_ok_and(|value| value == "all");
    let limit = if all { usize::MAX } else { 40 };
    println!("\nInjected texts not flagged ({}):", missed.len());
    for sample in missed.iter().take(limit) {
        println!("  {}: {}", sample.name, first_line(&sample.text));
    }
    println!(
        "\nBenign texts flagged ({}, and {} fresh):",
        false_positives.len(),
        fresh_flagged.len()
    );
    for sample in false_positives.iter().chain(&fresh_flagged).take(limit) {
        for flag in detect(&sample.text) {
            println!(
                "  {} {} [{}]: {}",
                sample.class, sample.name, flag.rule, flag.excerpt
            );
        }
    }
    println!(
        "\nFresh injected texts not flagged ({}):",
        fresh_missed.len()
    );
    for sample in fresh_missed.iter().take(limit) {
        println!("  {}: {}", sample.name, first_line(&sample.text));
    }
    // The extra set is the next version's blind set: listing its texts
    // here showed AF's misses and flags to the maker of version 29, and
    // AF was blind no more. Listed only when asked for.
    if extra.is_some() && std::env::var_os("INJECTION_BENCH_EXTRA_LIST").is_none() {
        println!(
            "\nThe extra set's texts are not listed (it is blind); INJECTION_BENCH_EXTRA_LIST=1 lists them."
        );
    } else if let Some((injected, benign)) = &extra {
        println!("\nExtra injected texts not flagged:");
        for sample in injected.iter().filter(|s| detect(&s.text).is_empty()) {
            println!("  {}: {}", sample.name, first_line(&sample.text));
        }
        println!("\nExtra benign texts flagged:");
        for sample in benign {
            for flag in detect(&sample.text) {
                println!("  {} [{}]: {}", sample.name, flag.rule, flag.excerpt);
            }
        }
    }
    speed(&benign, compile);
    if std::env::var_os("INJECTION_BENCH_PATTERNS").is_some() {
        slowest_patterns(&benign);
    }
}

/// `injected.txt` and `benign.txt` of `dir`, in the corpus's format.
fn blind_set(dir: &Path, name: &str) -> (Vec<Sample>, Vec<Sample>) {
    let read = |class: &str| -> Vec<Sample> {
        let file = dir.join(format!("{class}.txt"));
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|err| panic!("{}: {err}", file.display()));
        corpus::split(&text)
            .into_iter()
            .enumerate()
            .map(|(number, text)| Sample {
                class: format!("{name}/{class}"),
                name: format!("{class}.txt #{}", number + 1),
                text,
            })
            .collect()
    };
    (read("injected"), read("benign"))
}

/// Each pattern alone over the benign texts, the slowest first: where to
/// look when a change to the table makes it slow.
fn slowest_patterns(benign: &[Sample]) {
    use agent::session::untrusted::detect::normalise;
    use agent::session::untrusted::rules::table;
    let texts: Vec<String> = benign
        .iter()
        .map(|sample| normalise(&sample.text))
        .collect();
    let mut timed = Vec::new();
    for rule in table() {
        for pattern in rule.patterns {
            let source = pattern.replace(r"\b", r"(?-u:\b)");
            let Ok(regex) = regex::Regex::new(&source) else {
                continue;
            };
            let started = Instant::now();
            for text in &texts {
                std::hint::black_box(regex.is_match(text));
            }
            timed.push((started.elapsed(), rule.id, *pattern));
        }
    }
    timed.sort_by_key(|(took, _, _)| std::cmp::Reverse(*took));
    println!("\nSlowest patterns alone:");
    for (took, rule, pattern) in timed.iter().take(10) {
        let shown: String = pattern.chars().take(90).collect();
        println!("  {:>7.1} ms  {rule}: {shown}", took.as_secs_f64() * 1e3);
    }
}

/// Prints one line per class and the total; returns the texts the rules
/// got wrong (injected ones not flagged, benign ones flagged) and how
/// often each rule fired.
fn report<'a>(
    samples: &'a [Sample],
    total: &str,
    goal: f64,
    injected: bool,
) -> (Vec<&'a Sample>, BTreeMap<String, usize>) {
    // Per class: texts, flagged, by the rules, by the phrase table.
    let mut classes: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    let (mut flagged, mut clean) = (Vec::new(), Vec::new());
    let mut fired = BTreeMap::new();
    let (mut by_rules, mut by_table) = (0, 0);
    for sample in samples {
        let flags = detect(&sample.text);
        let entry = classes.entry(&sample.class).or_default();
        entry[0] += 1;
        let table = flags.iter().any(|flag| flag.rule == INSTRUCTION_SCORE);
        let rules = flags.iter().any(|flag| flag.rule != INSTRUCTION_SCORE);
        entry[2] += usize::from(rules);
        entry[3] += usize::from(table);
        by_rules += usize::from(rules);
        by_table += usize::from(table);
        if flags.is_empty() {
            clean.push(sample);
        } else {
            entry[1] += 1;
            flagged.push(sample);
            for flag in flags {
                *fired.entry(flag.rule).or_default() += 1;
            }
        }
    }
    for (class, [texts, hits, rules, table]) in &classes {
        println!(
            "{class:<26} {texts:>6} {hits:>8} {:>7.1}% {rules:>6} {table:>6}",
            percent(*hits, *texts)
        );
    }
    let rate = flagged.len() as f64 / samples.len().max(1) as f64;
    let verdict = match (goal > 0.0, injected) {
        (false, _) => String::new(),
        (true, true) => format!("goal >= {:.0}%: {}", goal * 100.0, met(rate >= goal)),
        (true, false) => format!("goal <= {:.0}%: {}", goal * 100.0, met(rate <= goal)),
    };
    if classes.len() > 1 || !verdict.is_empty() {
        println!(
            "{total:<26} {:>6} {:>8} {:>7.1}% {by_rules:>6} {by_table:>6}  {verdict}",
            samples.len(),
            flagged.len(),
            rate * 100.0
        );
    }
    println!();
    let wrong = if injected { clean } else { flagged };
    (wrong, fired)
}

fn met(ok: bool) -> &'static str {
    if ok { "met" } else { "NOT met" }
}

fn percent(part: usize, whole: usize) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

fn first_line(text: &str) -> String {
    text.lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("")
        .chars()
        .take(100)
        .collect()
}

/// The detector over every benign text (the median of 5 runs), what the
/// session does to a 32 KiB result (frame and rules), and cases built to
/// be slow.
fn speed(benign: &[Sample], compile: Duration) {
    let bytes: usize = benign.iter().map(|sample| sample.text.len()).sum();
    let mut runs: Vec<Duration> = (0..5)
        .map(|_| {
            let started = Instant::now();
            for sample in benign {
                std::hint::black_box(detect(&sample.text));
            }
            started.elapsed()
        })
        .collect();
    runs.sort();
    let median = runs[runs.len() / 2];
    let mib = bytes as f64 / (1024.0 * 1024.0);
    println!(
        "\nSpeed: the rules compile in {:.0} ms (once per process); {} benign texts, {mib:.1} MiB, in {:.0} ms: {:.0} MiB/s",
        compile.as_secs_f64() * 1e3,
        benign.len(),
        median.as_secs_f64() * 1e3,
        mib / median.as_secs_f64()
    );
    // The texts that cost most: a pattern that backtracks over one kind
    // of text shows here before it shows in the total.
    let mut slowest: Vec<(Duration, &Sample)> = benign
        .iter()
        .map(|sample| {
            let started = Instant::now();
            std::hint::black_box(detect(&sample.text));
            (started.elapsed(), sample)
        })
        .collect();
    slowest.sort_by_key(|(took, _)| std::cmp::Reverse(*took));
    println!("  the slowest texts:");
    for (took, sample) in slowest.iter().take(5) {
        println!(
            "    {:>8.2} ms  {:>7} bytes  {} {}",
            took.as_secs_f64() * 1e3,
            sample.text.len(),
            sample.class,
            sample.name
        );
    }
    // The phrase table alone, over the text the rules also read.
    let normal: Vec<String> = benign
        .iter()
        .map(|sample| agent::session::untrusted::detect::normalise(&sample.text))
        .collect();
    let table = best_of(5, || {
        for text in &normal {
            std::hint::black_box(agent::session::untrusted::score::flag(text));
        }
    });
    println!(
        "  of which the phrase table ({} features): {:.0} ms, {:.0} MiB/s",
        agent::session::untrusted::score::builtin().len(),
        table.as_secs_f64() * 1e3,
        mib / table.as_secs_f64()
    );
    let limit = 32 * 1024;
    let prose: String = benign
        .iter()
        .map(|sample| sample.text.as_str())
        .collect::<String>()
        .chars()
        .take(limit)
        .collect();
    let cases = [
        ("32 KiB of documentation", prose),
        ("32 KiB of \"ignore \"", "ignore ".repeat(limit / 7)),
        ("32 KiB of zero-width spaces", "\u{200B}".repeat(limit / 3)),
        ("32 KiB of \"curl x \"", "curl x ".repeat(limit / 7)),
        ("32 KiB of \"<!-- \"", "<!-- ".repeat(limit / 5)),
        ("32 KiB of Chinese", "忽略之前的说明文字".repeat(limit / 27)),
    ];
    let origin = Origin::new("web_fetch", "https://example.com/");
    for (name, text) in cases {
        let detect_time = best_of(9, || {
            std::hint::black_box(detect(&text));
        });
        let screen_time = best_of(9, || {
            std::hint::black_box(screen(&text, &origin, limit));
        });
        println!(
            "  {name:<30} rules {:>7.2} ms, frame and rules {:>7.2} ms",
            detect_time.as_secs_f64() * 1e3,
            screen_time.as_secs_f64() * 1e3
        );
    }
}

fn best_of(runs: usize, mut work: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let started = Instant::now();
            work();
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}
