//! The untrusted-content rules against the corpus of
//! `benches/injection/` (its README says how it is built): the goals on
//! the texts they were tuned on, and floors on the fresh ones.

// The bench's loader; the registry's texts are the bench's alone.
#[allow(dead_code)]
#[path = "../../benches/injection/corpus.rs"]
mod corpus;

/// The goals the rules are held to on the texts they were tuned on, and
/// floors for the fresh texts (benches/injection/README.md), so that a
/// change to the rules cannot lower either without this test saying so.
#[test]
fn the_rules_hold_their_rates_on_the_committed_corpus() {
    use agent::session::untrusted::detect;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let injected = corpus::committed(root, "injected");
    let mut benign = corpus::committed(root, "benign");
    benign.extend(corpus::repo_files(root));
    let missed: Vec<&str> = injected
        .iter()
        .filter(|sample| detect(&sample.text).is_empty())
        .map(|sample| sample.name.as_str())
        .collect();
    let flagged: Vec<String> = benign
        .iter()
        .filter_map(|sample| {
            let flags = detect(&sample.text);
            (!flags.is_empty()).then(|| format!("{} {:?}", sample.name, flags))
        })
        .collect();
    let detected = 1.0 - missed.len() as f64 / injected.len() as f64;
    let false_positives = flagged.len() as f64 / benign.len() as f64;
    assert!(injected.len() >= 250 && benign.len() >= 200);
    assert!(
        detected >= 0.95,
        "{:.1}% detected; missed: {missed:?}",
        detected * 100.0
    );
    assert!(
        false_positives <= 0.01,
        "{:.1}% of benign texts flagged: {flagged:#?}",
        false_positives * 100.0
    );

    let fresh = corpus::committed(root, "fresh");
    let count = |class: &str, flagged: bool| {
        fresh
            .iter()
            .filter(|sample| sample.class == class && detect(&sample.text).is_empty() != flagged)
            .count()
    };
    // As measured when the set was written (docs/benchmarks.md).
    assert!(
        count("fresh/injected", true) >= 57,
        "fresh injected texts flagged"
    );
    assert!(
        count("fresh/benign", true) <= 4,
        "fresh benign texts flagged"
    );
}
