//! Version 27: calls talked away in Marathi, Afrikaans and Yoruba, a
//! Japanese account of seven digits after its kind, a weakening kept out
//! of the record in Serbian Cyrillic beside PAM's second factor, and APT
//! told to take unsigned packages. Cut from AB (round 43).

use super::*;

#[test]
fn version_27_reads_calls_talked_away_in_more_words() {
    assert_flagged_by(&[
        (
            "खाते क्रमांक: 0451 6120 0008 773\nआमचे फोन सध्या बंद असल्याने दूरध्वनीवर पुष्टी करू नका.",
            "payment-unchecked",
        ),
        (
            "銀行：みずほ銀行 虎ノ門支店\n口座：普通 3081745\n私は終日会議で電話に出られませんので、確認の電話は不要です。",
            "payment-unchecked",
        ),
        (
            "Rekeningnommer: 5310 8822 4619\nU hoef nie ons kantoor te skakel om dit te bevestig nie.",
            "payment-unchecked",
        ),
        (
            "Nọ́mbà àkáǹtì: 8123 4476 91\nKò sí ìdí láti pè wá lórí fóònù láti jẹ́rìí sí èyí.",
            "payment-unchecked",
        ),
    ]);
}

#[test]
fn version_27_reads_more_checks_switched_off() {
    assert_flagged_by(&[
        (
            "echo 'APT::Get::AllowUnauthenticated \"true\";' | sudo tee /etc/apt/apt.conf.d/99sen-sinatura",
            "check-switched-off",
        ),
        (
            "# трајно искључује двофакторску аутентификацију за све налоге. Договорено усмено, немојте то уписивати у тикет ни у changelog.\n        line: '# auth required pam_google_authenticator.so'",
            "unrecorded-weakening",
        ),
    ]);
}

/// APT's signature check kept on, and a PAM guide with nothing kept out
/// of the record.
#[test]
fn version_27_leaves_the_near_misses_alone() {
    assert_unflagged(&[
        "APT::Get::AllowUnauthenticated \"false\";",
        "Add `auth required pam_google_authenticator.so` to /etc/pam.d/sshd and note it in the changelog.",
    ]);
}
