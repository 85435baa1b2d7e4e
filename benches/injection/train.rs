//! The trainer of the weighted phrase table
//! (`src/session/untrusted/score.rs`): `cargo bench --bench injection --
//! --train` writes `src/session/untrusted/score/weights.in` and measures
//! the table on `fresh/`, which no training reads; `--blind` does the
//! same and writes nothing. README.md beside this file says
//! what is trained on and why.
//!
//! Logistic regression over the words, word pairs and senses of windows, fitted
//! by FTRL-proximal (per-feature step sizes, an L1 term that leaves most
//! weights at zero), then cut to the [`KEEP`] heaviest features. The
//! tokenizer, the windows and the scoring are the agent's own
//! (`score::tokens`, `score::windows`, `Table::scores`), so what is
//! measured here is what runs. Every step is in a fixed order with a fixed
//! seed: the same corpus, `Cargo.lock` and rules give the same bytes.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use agent::session::untrusted::detect::{detect, normalise};
use agent::session::untrusted::score::{
    INSTRUCTION_SCORE, SCALE, THRESHOLD_FLOOR, Table, features, tokens, windows,
};

use crate::corpus::{self, Sample};

/// Passes over the windows per fit.
const EPOCHS: usize = 8;
/// FTRL-proximal's step size, its smoothing, and its L1 and L2 terms.
const ALPHA: f64 = 0.1;
const BETA: f64 = 1.0;
const L1: f64 = 1.0;
const L2: f64 = 1.0;
/// The L1 term for a weight below zero. A word that only benign texts use
/// says nothing about a page full of words the corpus never had, yet a
/// table that counted on such words would flag that page, since none of
/// them pulls its score down: the cargo registry's READMEs, never trained
/// on, were a third flagged. So a word must weigh a lot against
/// injections to weigh at all.
const L1_NEGATIVE: f64 = f64::INFINITY;
/// The injected windows together weigh this share of the benign ones:
/// there are many more benign windows, and a flag on a benign page costs
/// more than a missed one (the frame still holds).
const BALANCE: f64 = 0.25;
/// Fits per training: the first takes every window of an injected text
/// as an injection; each next one only the windows the last scored
/// highest, since a long injected text is mostly ordinary text around
/// one paragraph (multiple-instance learning).
const ROUNDS: usize = 3;
/// Features kept, the heaviest: the rest weigh too little to matter.
const KEEP: usize = 40000;
/// The threshold is the lowest at which the table, in cross-validation,
/// flags at most this share of the benign texts that the rules do not
/// already flag. The agent flags from `score::THRESHOLD_FLOOR` at the
/// lowest, and so does what is measured here; the weights file keeps
/// the value chosen.
const ADDED_FALSE_POSITIVES: f64 = 0.005;
const SEED: u64 = 0x5EED_1234_ABCD_0001;

const WEIGHTS_FILE: &str = "src/session/untrusted/score/weights.in";

/// One text of the training or test set, made into windows of feature
/// indices.
struct Text {
    name: String,
    injected: bool,
    fold: String,
    normal: String,
    windows: Vec<Vec<(u32, f32)>>,
    /// The regex rules that flag it.
    rules: Vec<String>,
}

impl Text {
    /// Whether the regex rules alone flag it.
    fn ruled(&self) -> bool {
        !self.rules.is_empty()
    }
}

/// Features seen in training, numbered in the order first seen.
#[derive(Default)]
struct Features {
    ids: HashMap<u64, u32>,
    hashes: Vec<u64>,
    names: Vec<String>,
}

impl Features {
    fn text(&mut self, sample: &Sample, injected: bool, fold: String) -> Text {
        let normal = normalise(&sample.text);
        let tokens = tokens(&normal);
        let windows = windows(&tokens)
            .into_iter()
            .map(|window| {
                let mut counts: Vec<(u32, f32)> = Vec::new();
                for (hash, name) in features(&normal, &tokens, window) {
                    let id = *self.ids.entry(hash).or_insert_with(|| {
                        self.hashes.push(hash);
                        self.names.push(name);
                        (self.hashes.len() - 1) as u32
                    });
                    counts.push((id, 1.0));
                }
                // Present or not, as `Table::scores` counts them.
                counts.sort_by_key(|(id, _)| *id);
                counts.dedup_by_key(|(id, _)| *id);
                counts
            })
            .collect();
        let rules = detect(&sample.text)
            .into_iter()
            .filter(|flag| flag.rule != INSTRUCTION_SCORE)
            .map(|flag| flag.rule)
            .collect();
        Text {
            name: format!("{} {}", sample.class, sample.name),
            injected,
            fold,
            normal,
            windows,
            rules,
        }
    }
}

/// The fold of a committed text: its round (each round was written by one
/// author at one time, so holding it out is holding out a new author), or
/// the first classes together.
fn fold_of(sample: &Sample) -> String {
    let file = sample.name.split(".txt").next().unwrap_or_default();
    if file.starts_with("round-") {
        file.to_owned()
    } else {
        "classes".to_owned()
    }
}

/// `--train`, `--train --blind` (nothing written), and `--train --cv`
/// (the cross-validation alone, `fresh/` not measured: what the settings
/// are chosen by).
///
/// `--without-registry` keeps the registry's documents out of the
/// training and measures the table on them: how it does on a kind of
/// page it never saw.
pub fn run(root: &Path, blind: bool, cv: bool, without_registry: bool) {
    let mut features = Features::default();
    let mut texts = Vec::new();
    // Never `fresh/`: it is what the table is measured on, once, as text
    // it never saw; the bench's line for it must stay that estimate.
    let fresh = corpus::committed(root, "fresh");
    let injected = corpus::committed(root, "injected");
    let benign = corpus::committed(root, "benign");
    for sample in &injected {
        texts.push(features.text(sample, true, fold_of(sample)));
    }
    for sample in &benign {
        texts.push(features.text(sample, false, fold_of(sample)));
    }
    let mut folds: Vec<String> = texts.iter().map(|text| text.fold.clone()).collect();
    folds.sort();
    folds.dedup();
    // The registry's documents are benign only; each goes to one fold in
    // turn, so each is held out once. This repository's files are not
    // trained on: docs/benchmarks.md holds the figures of each training,
    // so training on it would change the weights with every report of
    // them. They are measured instead, as pages the table never saw.
    let repo = corpus::repo_files(root);
    let registry = corpus::locked_registry_docs(root);
    let mut dealt = Vec::new();
    if !without_registry {
        dealt.extend(registry.iter().cloned());
    }
    for (number, sample) in dealt.iter().enumerate() {
        let fold = folds[number % folds.len()].clone();
        texts.push(features.text(sample, false, fold));
    }
    println!(
        "Training the phrase table without fresh/: {} injected and {} benign texts ({} of the registry), {} windows, {} features seen, {} folds",
        texts.iter().filter(|t| t.injected).count(),
        texts.iter().filter(|t| !t.injected).count(),
        dealt.len(),
        texts.iter().map(|t| t.windows.len()).sum::<usize>(),
        features.hashes.len(),
        folds.len(),
    );

    // Out-of-fold scores: each fold scored by a table fitted without it.
    let mut held_out: Vec<Option<i32>> = vec![None; texts.len()];
    for fold in &folds {
        let training: Vec<&Text> = texts.iter().filter(|t| &t.fold != fold).collect();
        let table = fit(&training, &features);
        for (at, text) in texts.iter().enumerate() {
            if &text.fold == fold {
                held_out[at] = table.best(&text.normal).map(|best| best.score);
            }
        }
    }
    let chosen = choose_threshold(&texts, &held_out);
    let threshold = chosen.max(THRESHOLD_FLOOR);
    println!("Cross-validation chose a threshold of {chosen}; the table flags from {threshold}");
    // Each text's fold, class, rules and held-out score, for a look at
    // what the rules and the table each catch (see README.md).
    if let Some(path) = std::env::var_os("INJECTION_TRAIN_DUMP") {
        let mut out = String::from("fold\tinjected\trules\theld-out score\ttext\n");
        for (text, score) in texts.iter().zip(&held_out) {
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\n",
                text.fold,
                u8::from(text.injected),
                text.rules.join(","),
                score.unwrap_or(i32::MIN),
                text.name
            ));
        }
        if let Err(err) = std::fs::write(&path, out) {
            panic!("{}: {err}", std::path::Path::new(&path).display());
        }
    }
    println!("\nCross-validation, leaving out one round at a time:");
    cross_validation_report(&texts, &held_out, threshold);

    let table = fit(&texts.iter().collect::<Vec<_>>(), &features).with_threshold(threshold);
    println!(
        "\nThe table: {} features, bias {}, threshold {} (thousandths)",
        table.len(),
        table.bias(),
        table.threshold()
    );
    let mut unseen = vec![("this repository's files", &repo)];
    if without_registry {
        unseen.push(("cargo registry docs", &registry));
    }
    for (what, samples) in unseen {
        let flagged = samples
            .iter()
            .filter(|s| table.flag(&normalise(&s.text)).is_some())
            .collect::<Vec<_>>();
        println!(
            "{what}, never trained on: the table flags {} of {}",
            flagged.len(),
            samples.len()
        );
        for sample in flagged.iter().take(10) {
            let excerpt = table
                .flag(&normalise(&sample.text))
                .map(|flag| flag.excerpt)
                .unwrap_or_default();
            println!("  {}: {excerpt}", sample.name);
        }
    }
    if cv {
        return;
    }
    {
        println!("\nfresh/, never trained on, measured once (rules, table, either):");
        for class in ["fresh/injected", "fresh/benign"] {
            let samples: Vec<&Sample> = fresh.iter().filter(|s| s.class == class).collect();
            let mut counts = (0, 0, 0);
            for sample in &samples {
                let rules = detect(&sample.text)
                    .iter()
                    .any(|flag| flag.rule != INSTRUCTION_SCORE);
                let scored = table.flag(&normalise(&sample.text)).is_some();
                counts.0 += usize::from(rules);
                counts.1 += usize::from(scored);
                counts.2 += usize::from(rules || scored);
            }
            println!(
                "  {class:<16} {} texts: rules {}, table {}, either {}",
                samples.len(),
                counts.0,
                counts.1,
                counts.2
            );
        }
    }
    if blind {
        return;
    }
    let path = root.join(WEIGHTS_FILE);
    let written = weights_file(&table.clone().with_threshold(chosen), &features, &texts);
    if let Err(err) = std::fs::write(&path, written) {
        panic!("{}: {err}", path.display());
    }
    println!("written to {WEIGHTS_FILE}");
}

/// The lowest threshold at which the held-out table flags at most
/// [`ADDED_FALSE_POSITIVES`] of the benign texts beyond what the rules
/// flag.
fn choose_threshold(texts: &[Text], held_out: &[Option<i32>]) -> i32 {
    let benign = texts.iter().filter(|t| !t.injected).count();
    let budget = (ADDED_FALSE_POSITIVES * benign as f64).floor() as usize;
    let mut scores: Vec<i32> = texts
        .iter()
        .zip(held_out)
        .filter(|(text, _)| !text.injected && !text.ruled())
        .filter_map(|(_, score)| *score)
        .collect();
    scores.sort_unstable_by(|a, b| b.cmp(a));
    // Just above the first benign score past the budget.
    scores.get(budget).map_or(i32::MIN, |score| score + 1)
}

fn cross_validation_report(texts: &[Text], held_out: &[Option<i32>], threshold: i32) {
    let flagged = |at: usize, threshold: i32| held_out[at].is_some_and(|s| s >= threshold);
    let count = |injected: bool, threshold: i32| {
        let mut counts = (0, 0, 0, 0);
        for (at, text) in texts.iter().enumerate() {
            if text.injected != injected {
                continue;
            }
            counts.0 += 1;
            counts.1 += usize::from(text.ruled());
            counts.2 += usize::from(flagged(at, threshold));
            counts.3 += usize::from(text.ruled() || flagged(at, threshold));
        }
        counts
    };
    println!(
        "  {:<10} {:>7} {:>6} {:>6} {:>6}",
        "", "texts", "rules", "table", "either"
    );
    for (label, injected) in [("injected", true), ("benign", false)] {
        let (n, rules, table, either) = count(injected, threshold);
        println!(
            "  {label:<10} {n:>7} {rules:>6} {table:>6} {either:>6}  ({:.1} % either)",
            100.0 * either as f64 / n.max(1) as f64
        );
    }
    for source in [
        "injected/",
        "fresh/injected",
        "benign/",
        "fresh/benign",
        "repo/",
        "registry",
    ] {
        let mut line = [0; 4];
        for (at, text) in texts.iter().enumerate() {
            if text.name.starts_with(source) {
                line[0] += 1;
                line[1] += usize::from(text.ruled());
                line[2] += usize::from(flagged(at, threshold));
                line[3] += usize::from(text.ruled() || flagged(at, threshold));
            }
        }
        if line[0] > 0 {
            let [n, rules, table, either] = line;
            println!("  {source:<16} {n:>5} {rules:>6} {table:>6} {either:>6}");
        }
    }
    println!("  per fold (injected either/texts, benign either/texts):");
    let mut folds: Vec<&str> = texts.iter().map(|t| t.fold.as_str()).collect();
    folds.sort_unstable();
    folds.dedup();
    for fold in folds {
        let mut line = (0, 0, 0, 0);
        for (at, text) in texts.iter().enumerate().filter(|(_, t)| t.fold == fold) {
            let either = usize::from(text.ruled() || flagged(at, threshold));
            if text.injected {
                line.0 += either;
                line.1 += 1;
            } else {
                line.2 += either;
                line.3 += 1;
            }
        }
        println!("    {fold:<10} {}/{} {}/{}", line.0, line.1, line.2, line.3);
    }
    println!("  other thresholds (injected either, benign either):");
    for offset in [-2000, -1000, -500, 0, 500, 1000, 2000] {
        let (_, _, _, injected) = count(true, threshold + offset);
        let (_, _, _, benign) = count(false, threshold + offset);
        println!("    {:>7}: {injected} {benign}", threshold + offset);
    }
    let missed: Vec<&Text> = texts
        .iter()
        .enumerate()
        .filter(|(at, t)| !t.injected && !t.ruled() && flagged(*at, threshold))
        .map(|(_, t)| t)
        .collect();
    println!(
        "  benign texts the held-out table flags ({}):",
        missed.len()
    );
    for text in missed {
        println!("    {}", text.name);
    }
}

/// A deterministic generator for the order of the windows.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for at in (1..items.len()).rev() {
            let other = (self.next() % (at as u64 + 1)) as usize;
            items.swap(at, other);
        }
    }
}

/// FTRL-proximal's state: per feature its `z` and `n`; the bias last.
struct Ftrl {
    z: Vec<f64>,
    n: Vec<f64>,
}

impl Ftrl {
    fn new(features: usize) -> Self {
        Self {
            z: vec![0.0; features + 1],
            n: vec![0.0; features + 1],
        }
    }

    fn weight(&self, id: usize) -> f64 {
        let bias = id + 1 == self.z.len();
        // Above zero when z is below -l1, below zero when z is above the
        // negative side's l1.
        let (positive, negative) = if bias { (0.0, 0.0) } else { (L1, L1_NEGATIVE) };
        let z = self.z[id];
        let denominator = (BETA + self.n[id].sqrt()) / ALPHA + L2;
        if z < -positive {
            -(z + positive) / denominator
        } else if z > negative {
            -(z - negative) / denominator
        } else {
            0.0
        }
    }

    fn step(&mut self, window: &[(u32, f32)], positive: bool, weight: f64) {
        let bias = self.z.len() - 1;
        let mut logit = self.weight(bias);
        for (id, count) in window {
            logit += self.weight(*id as usize) * f64::from(*count);
        }
        let p = 1.0 / (1.0 + (-logit.clamp(-35.0, 35.0)).exp());
        let gradient = (p - if positive { 1.0 } else { 0.0 }) * weight;
        let ids = window
            .iter()
            .map(|(id, count)| (*id as usize, f64::from(*count)))
            .chain([(bias, 1.0)]);
        for (id, count) in ids {
            let g = gradient * count;
            let w = self.weight(id);
            let sigma = ((self.n[id] + g * g).sqrt() - self.n[id].sqrt()) / ALPHA;
            self.z[id] += g - sigma * w;
            self.n[id] += g * g;
        }
    }
}

/// A table fitted on `texts`: [`ROUNDS`] fits, each on the windows of
/// the injected texts the last one picked.
fn fit(texts: &[&Text], features: &Features) -> Table {
    // Per injected text, the windows taken as injections.
    let mut chosen: Vec<Vec<bool>> = texts
        .iter()
        .map(|text| vec![text.injected; text.windows.len()])
        .collect();
    let mut table = train_once(texts, &chosen, features);
    for _ in 1..ROUNDS {
        for (text, chosen) in texts.iter().zip(&mut chosen) {
            if !text.injected || text.windows.len() < 2 {
                continue;
            }
            let scores = table.scores(&text.normal);
            let best = scores.iter().map(|s| s.score).max().unwrap_or(0);
            for (chosen, scored) in chosen.iter_mut().zip(&scores) {
                *chosen = scored.score == best || scored.score >= 0;
            }
        }
        table = train_once(texts, &chosen, features);
    }
    table
}

fn train_once(texts: &[&Text], chosen: &[Vec<bool>], features: &Features) -> Table {
    // (text, window, injected); an injected text's windows not chosen are
    // left out, as neither.
    let mut examples: Vec<(usize, usize, bool)> = Vec::new();
    for (t, (text, chosen)) in texts.iter().zip(chosen).enumerate() {
        for (w, chosen) in chosen.iter().enumerate() {
            if !text.injected {
                examples.push((t, w, false));
            } else if *chosen {
                examples.push((t, w, true));
            }
        }
    }
    let positives = examples.iter().filter(|e| e.2).count().max(1);
    let negatives = (examples.len() - positives).max(1);
    let positive_weight = BALANCE * negatives as f64 / positives as f64;
    let mut ftrl = Ftrl::new(features.hashes.len());
    let mut rng = Rng(SEED);
    for _ in 0..EPOCHS {
        rng.shuffle(&mut examples);
        for &(t, w, positive) in &examples {
            let weight = if positive { positive_weight } else { 1.0 };
            ftrl.step(&texts[t].windows[w], positive, weight);
        }
    }
    let quantise = |w: f64| (w * SCALE).round();
    let mut kept: Vec<(u64, i16)> = (0..features.hashes.len())
        .filter_map(|id| {
            let q = quantise(ftrl.weight(id)).clamp(i16::MIN.into(), i16::MAX.into()) as i16;
            (q != 0).then(|| (features.hashes[id], q))
        })
        .collect();
    kept.sort_by(|a, b| {
        b.1.unsigned_abs()
            .cmp(&a.1.unsigned_abs())
            .then(a.0.cmp(&b.0))
    });
    kept.truncate(KEEP);
    kept.sort_by_key(|(hash, _)| *hash);
    let bias = quantise(ftrl.weight(features.hashes.len())) as i32;
    match Table::new(bias, 0, kept) {
        Ok(table) => table,
        Err(err) => panic!("{err}"),
    }
}

/// The table as the Rust expression `score.rs` includes, each feature
/// with its spelling.
fn weights_file(table: &Table, features: &Features, texts: &[Text]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Written by `cargo bench --bench injection -- --train`; do not edit.\n\
         // {} features of the {} seen in {} texts (benches/injection/ but hard/,\n\
         // and the registry's documents of the crates in Cargo.lock): the bias,\n\
         // the threshold, and the (feature, weight) pairs sorted by feature, in\n\
         // thousandths.\n(",
        table.len(),
        features.hashes.len(),
        texts.len(),
    );
    let _ = writeln!(out, "    {},", table.bias());
    let _ = writeln!(out, "    {},", table.threshold());
    out.push_str("    &[\n");
    for (hash, weight) in table.entries() {
        let name = features
            .ids
            .get(hash)
            .map_or("?", |id| features.names[*id as usize].as_str());
        let _ = writeln!(out, "        (0x{hash:016x}, {weight}), // {name:?}");
    }
    out.push_str("    ],\n)\n");
    out
}
