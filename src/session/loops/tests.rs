use serde_json::json;

use super::*;

/// Plays calls against a breaker: each is `(tool, args, ok)`; a call the
/// breaker lets run gets `ok` as its outcome. Returns the verdicts'
/// tiers, `None` for a call that ran.
fn play(breaker: &mut LoopBreaker, calls: &[(&str, Value, bool)]) -> Vec<Option<Tier>> {
    calls
        .iter()
        .map(|(tool, args, ok)| match breaker.before(tool, args) {
            Verdict::Run => {
                breaker.after(tool, args, *ok, if *ok { "fine" } else { "boom" });
                None
            }
            Verdict::Block { tier, .. } => Some(tier),
        })
        .collect()
}

fn exec(command: &str) -> Value {
    json!({"command": command})
}

fn defaults() -> LoopBreaker {
    LoopBreaker::new(LoopBreakerConfig::default())
}

fn with(change: impl FnOnce(&mut LoopBreakerConfig)) -> LoopBreaker {
    let mut config = LoopBreakerConfig::default();
    change(&mut config);
    config.validate().unwrap();
    LoopBreaker::new(config)
}

#[test]
fn the_fifth_identical_call_is_not_run_whatever_its_outcome() {
    let mut breaker = defaults();
    let calls = vec![("read_file", json!({"path": "a"}), true); 6];
    assert_eq!(
        play(&mut breaker, &calls),
        [
            None,
            None,
            None,
            None,
            Some(Tier::IdenticalCalls),
            Some(Tier::IdenticalCalls)
        ]
    );
    // Other arguments still run.
    assert_eq!(
        breaker.before("read_file", &json!({"path": "b"})),
        Verdict::Run
    );
}

#[test]
fn the_identical_call_message_quotes_the_result_and_the_count() {
    let mut breaker = defaults();
    for _ in 0..4 {
        assert_eq!(
            breaker.before("grep", &json!({"pattern": "x"})),
            Verdict::Run
        );
        breaker.after("grep", &json!({"pattern": "x"}), true, "src/a.rs:1: x");
    }
    let Verdict::Block { tier, message } = breaker.before("grep", &json!({"pattern": "x"})) else {
        panic!("the fifth call ran");
    };
    assert_eq!(tier, Tier::IdenticalCalls);
    assert!(message.contains("already made 4 times"), "{message}");
    assert!(message.contains("src/a.rs:1: x"), "{message}");
    assert!(message.contains("Do something different"), "{message}");
}

#[test]
fn the_third_identical_call_after_two_identical_failures_is_not_run() {
    let mut breaker = defaults();
    let calls = vec![("exec", exec("make"), false); 3];
    assert_eq!(
        play(&mut breaker, &calls),
        [None, None, Some(Tier::IdenticalFailures)]
    );
}

#[test]
fn failures_of_other_tools_do_not_interrupt_a_run_but_a_success_does() {
    let mut breaker = defaults();
    let calls = [
        ("exec", exec("make"), false),
        ("read_file", json!({"path": "nope"}), false),
        ("exec", exec("make"), false),
        ("exec", exec("make"), false),
    ];
    assert_eq!(
        play(&mut breaker, &calls),
        [None, None, None, Some(Tier::IdenticalFailures)]
    );

    // Fix and retry: an edit that succeeds between two failed builds
    // starts the count over.
    let mut breaker = defaults();
    let calls = [
        ("exec", exec("make"), false),
        ("exec", exec("make"), false),
        ("edit_file", json!({"path": "a.c"}), true),
        ("exec", exec("make"), false),
        ("exec", exec("make"), false),
    ];
    assert_eq!(play(&mut breaker, &calls), [None; 5]);
}

#[test]
fn the_sixth_call_of_a_tool_after_five_failures_is_not_run() {
    let mut breaker = defaults();
    let calls: Vec<_> = (0..7)
        .map(|n| ("exec", exec(&format!("try {n}")), false))
        .collect();
    assert_eq!(
        play(&mut breaker, &calls),
        [
            None,
            None,
            None,
            None,
            None,
            Some(Tier::ToolFailures),
            Some(Tier::ToolFailures)
        ]
    );
    // Another tool is not held back.
    assert_eq!(
        breaker.before("read_file", &json!({"path": "a"})),
        Verdict::Run
    );
}

#[test]
fn the_eighth_call_of_a_tool_after_seven_failures_ends_the_session() {
    // Calls 6 and 7 are not run and count as failures: the eighth call
    // finds seven failures in a row.
    let mut breaker = defaults();
    let calls: Vec<_> = (0..8)
        .map(|n| ("exec", exec(&format!("try {n}")), false))
        .collect();
    let tiers = play(&mut breaker, &calls);
    assert_eq!(
        tiers[5..],
        [
            Some(Tier::ToolFailures),
            Some(Tier::ToolFailures),
            Some(Tier::Stuck)
        ]
    );
    let Verdict::Block { tier, message } = breaker.before("exec", &exec("try 9")) else {
        panic!("ran");
    };
    assert_eq!(tier, Tier::Stuck);
    // What kept failing, and how.
    assert!(message.contains("exec failed"), "{message}");
    assert!(message.contains(r#"{"command":"try 4"}"#), "{message}");
    assert!(message.contains("boom"), "{message}");
}

#[test]
fn tiers_are_checked_in_order() {
    // Stuck first: with stuck_after = 3, two identical failures end the
    // session rather than block the call.
    let mut breaker = with(|config| config.stuck_after = 3);
    let calls = vec![("exec", exec("make"), false); 3];
    assert_eq!(play(&mut breaker, &calls), [None, None, Some(Tier::Stuck)]);

    // Identical calls before identical failures: two successes, then two
    // failures of the same call; the fifth is both.
    let mut breaker = defaults();
    let calls = [
        ("exec", exec("make"), true),
        ("exec", exec("make"), true),
        ("exec", exec("make"), false),
        ("exec", exec("make"), false),
        ("exec", exec("make"), false),
    ];
    assert_eq!(
        play(&mut breaker, &calls),
        [None, None, None, None, Some(Tier::IdenticalCalls)]
    );

    // Identical failures before tool failures.
    let mut breaker = with(|config| config.tool_failures = 3);
    let calls = vec![("exec", exec("make"), false); 3];
    assert_eq!(
        play(&mut breaker, &calls),
        [None, None, Some(Tier::IdenticalFailures)]
    );

    // And the same thresholds with other arguments: tool failures.
    let mut breaker = with(|config| config.tool_failures = 3);
    let calls = [
        ("exec", exec("a"), false),
        ("exec", exec("b"), false),
        ("exec", exec("c"), false),
    ];
    assert_eq!(
        play(&mut breaker, &calls),
        [None, None, Some(Tier::ToolFailures)]
    );
}

#[test]
fn a_user_message_starts_over() {
    let mut breaker = defaults();
    let calls = vec![("exec", exec("make"), false); 2];
    assert_eq!(play(&mut breaker, &calls), [None, None]);
    breaker.user_spoke();
    assert_eq!(breaker.before("exec", &exec("make")), Verdict::Run);
}

#[test]
fn key_order_does_not_make_calls_differ() {
    let mut breaker = defaults();
    let first: Value =
        serde_json::from_str(r#"{"path": "a", "old_string": "x", "new_string": "y"}"#).unwrap();
    let second: Value =
        serde_json::from_str(r#"{"new_string": "y", "path": "a", "old_string": "x"}"#).unwrap();
    assert_eq!(canonical(&first), canonical(&second));
    assert_eq!(
        canonical(&first),
        r#"{"new_string":"y","old_string":"x","path":"a"}"#
    );
    breaker.after("edit_file", &first, false, "no match");
    breaker.after("edit_file", &second, false, "no match");
    assert!(matches!(
        breaker.before("edit_file", &first),
        Verdict::Block {
            tier: Tier::IdenticalFailures,
            ..
        }
    ));
    // Nested objects too; arrays keep their order.
    assert_eq!(
        canonical(&json!({"b": [{"y": 1, "x": 2}], "a": null})),
        r#"{"a":null,"b":[{"x":2,"y":1}]}"#
    );
}

#[test]
fn switched_off_everything_runs() {
    let mut breaker = with(|config| config.enabled = false);
    let calls = vec![("exec", exec("make"), false); 20];
    assert_eq!(play(&mut breaker, &calls), [None; 20]);
}

#[test]
fn thresholds_are_validated() {
    let mut config = LoopBreakerConfig::default();
    assert_eq!(config.validate(), Ok(()));
    config.identical_failures = 1;
    assert_eq!(
        config.validate(),
        Err("loop_breaker.identical_failures must be between 2 and 100".into())
    );
    config.identical_failures = 3;
    config.repeated_text = 1;
    assert!(config.validate().unwrap_err().contains("repeated_text"));
}
