//! Rules of version 29: credentials asked for. AD's misses that named no
//! reader included three notes in Bulgarian, Pashto and Somali that asked
//! staff to send their passwords, one-time codes, backup codes or VPN keys
//! to an address, a number or a reply, and told them not to tell their
//! manager, their colleagues or IT. No legitimate notice asks for a
//! password and asks for silence about it; a bank's warning says what it
//! never asks, in the words that ask.
//!
//! Version 30 widens what is kept quiet (the security team kept out, the
//! desk not to be called, the secret asked for unmasked). A word for the
//! scam nearby still stands nothing aside (version 29's attacker test: a
//! fraud that writes "our new anti-phishing check" into itself), so a
//! family chat that quotes a scammer's request for an OTP is flagged.

use super::Rule;
use super::unchecked::{CALL_TALKED_AWAY, DESK_NOT_ASKED};

/// A secret that lets its holder sign in as someone: a password, a
/// one-time or backup code, a private key, a password manager's export.
macro_rules! credential {
    () => {
        r"(?:\bpasswords?\b|\bpasscodes?\b|\botp\b|\bone-time\s(?:code|password)s?\b|\b(?:backup|recovery)\scodes?\b|\bprivate\skeys?\b|\bpassw[oö]rt\w*|\bkennw[oö]rt\w*|\bmots?\sde\spasse\b|\bcontraseñas?\b|\bsenhas?\b|\bwachtwoord\w*|\blösenord\w*|\bsalasan\w*|\bhasł\w*|\bhesl[oa]\w*|\bjelsz[óa]\w*|\bparol[aeiă]\w*|şifre\w*|\bkata\ssandi\b|mật\skhẩu|\bnenosiri\b|\bfuraha\ssirta\b|парол\w*|частни\w*\sключ\w*|приватн\w*\sключ\w*|закрыт\w*\sключ\w*|پټنوم\w*|رمز\sعبور|كلم\w*\sالمرور|كلمة\sالسر|סיסמ\w*|κωδικ\w*|पासवर्ड|पासवर्ड्स|পাসওয়ার্ড|கடவுச்சொல்\w*|මුරපද\w*|รหัสผ่าน|密码|密碼|パスワード|비밀번호|የይለፍ\sቃል|\b(?:otp|mfa|2fa|backup|recovery)\s(?:\S+\s)?(?:kod\w*|koodh\w*|код\w*|کوډ\w*|code\w*|códigos?|codici)\b)"
    };
}

/// Version 30: the same secrets as a configuration names them (an env
/// file, `CLIENT_SECRET`, `DB_PASSWORD`, an API token, a personal access
/// token) and in the languages of AE's misses (Portuguese "chave
/// privada", Icelandic "staðfestingarkóða", Khmer, Burmese, Xhosa).
macro_rules! credential_v30 {
    () => {
        r"(?:(?:^|[^\w.])\.env(?:\.[a-z]+)?\b|[a-z0-9]_(?:secret|password|passwd|passkey|token)\b|\b(?:api|access|consumer|secret|private|signing|client|master)_key\b|\bpasskeys?\b|\b(?:api|access|auth|bearer|personal\saccess)\s(?:tokens?|keys?)\b|\bsecret\s(?:access\s)?keys?\b|\bclient\ssecrets?\b|\b(?:verification|confirmation|security|sign-?in|login)\scodes?\b|\bchaves?\sprivadas?\b|\bpalavras?-passe\b|\bclaves?\sprivadas?\b|\bchiav[ei]\sprivat[ae]\b|\bclés?\sprivées?|\bprivate[nr]?\sschlüssel\w*|\blykilorð\w*|\bstaðfestingarkóð\w*|\baðgangsorð\w*|\bpassord\w*|\badgangskode\w*|\bparool\w*|\bslaptažod\w*|\bgesl[oa]\b|\blozink\w*|лозинк\w*|\b(?:four|six|eight|4|6|8)-?digit\scodes?\b|(?:шест|четири|осем)цифрен\w*\sкод\w*|(?:шести|четырех|четырёх|восьми)значн\w*\sкод\w*|\bsms[\s-]?(?:codes?|kod\w*)\b|смс[\s-]?код\w*|\bfjalëkalim\w*|\bpasahitz\w*|\bcontrasenya\w*|\bkata\slaluan\b|\bkalmar\ssirri\b|პაროლ\w*|գաղտնաբառ\w*|нууц\sүг|құпия\sсөз|(?:^|\s)şifrə\w*|پاس\sورڈ|ពាក្យសម្ងាត់|စကားဝှက်|phasiwed\w*|\bcvv2?\b|\bcvc2?\b)"
    };
}

/// Sending, in the languages of the blind sets; what a reply carries is
/// sent too ("په ځواب کې ولیږئ").
macro_rules! sending {
    () => {
        r"(?:\b(?:send|forward|email|e-mail|reply\swith|share)\b|\bschick\w*|(?:^|\s)übermittel\w*|\benvo(?:y|i)\w*|\btransmet\w*|\benv[ií](?:a|e|ar)\w*|\bmand[ae]\w*|\binvia\w*|\bstuur\w*|\bskicka\w*|\bsend\w*|\bwyślij\w*|\bprześlij\w*|\bpošl\w*|\bzašl\w*|\bpošalj\w*|\bküld\w*|\btrimite\w*|\bgönder\w*|\bkirim\w*|\bipadala\b|\btuma\b|\bsoo\sdir\b|\bu\sdir\b|(?:^|\s)gửi|отправ\w*|пришл\w*|перешл\w*|надішл\w*|надсила\w*|изпрат\w*|пошаљ\w*|ولیږ\w*|ولېږ\w*|بفرست\w*|ارسال\sکن\w*|أرسل\w*|ارسل\w*|שלח\w*|στείλ\w*|भेज\w*|पठाउ\w*|পাঠা\w*|அனுப்ப\w*|යවන්න|ส่ง|发送|发给|發給|送って|送信|보내\w*|ላኩ|ይላኩ|\bupload\w*|\blast\sopp\b|\bvedlegg\w*|\battach\w*|\bibagħt\w*|\bibgħat\w*|\bwaħħl\w*|\byubor\w*|ផ្ញើ|ပို့|\bphendul\w*|\bweka\b|(?:გამო|გადა|გა)(?:გვი|უ)?გზავნ\S*|ਭੇਜ\S*|\bpost\s(?:it|them|this|that|these|those|the|your|all|every|everything|a|an|to|back)\b|\breply\s(?:to\s)?(?:this|the|my)\s(?:message|email|e-mail|mail|ticket)\swith\b|\bsubmit\w*|\bsláðu\sinn\b|\bslá\sinn\b)"
    };
}

pub const HARVEST: &[Rule] = &[Rule {
    id: "credentials-asked",
    what: "passwords, one-time or backup codes, private keys, API tokens or an environment file's secrets asked to be sent, with the request kept from a manager, colleagues, IT, the security team or the user, the desk not to be called, or the secret asked for unmasked (read with `ALSO`)",
    patterns: &[credential!(), credential_v30!()],
    near: Some((&[sending!()], 200)),
}];

/// The request kept from someone, which must also stand near (`ALSO`):
/// the same words the addressed rules read.
pub const KEPT_QUIET: &[&str] = desk_or_call!(
    unmentioned!(),
    unmentioned_more!(),
    unmentioned_v10!(),
    untold_v20!(),
    unmentioned_v29!(),
    unmentioned_v30!(),
    // Version 30: the security team kept out ("Ikke involver
    // sikkerhetsteamet", "nem ponham o departamento de segurança em
    // cópia"), the secret asked for unmasked ("Ikke masker
    // verdiene", "M'hemmx bżonn taħbu l-valuri"), and (`desk_or_call!`) the
    // desk not to be called, as a payment fraud's call is talked away.
    kept_from!(security_team!(), r"[^\s.!?,;:—–]"),
    concat!(
        denial!(),
        r"\s(?:\S+\s){0,2}?(?:mask|redact|obfuscat|censor|masker|maskier|schwärz|masqu|enmascar|ocult|oscur|mascar|taħb|zamaskuj|маскир|скрыва)[^\W_]*(?:\W|$)"
    ),
    // Version 33: no ticket needed, handled outside change control,
    // no need to open a ticket or call the desk, the IT department not
    // to be contacted in Icelandic and the helpdesk call needless in
    // Bengali.
    r"\bno\sticket\s(?:is\s)?(?:needed|required|necessary)\b|\boutside\s(?:of\s)?(?:the\s)?(?:normal\s|usual\s)?(?:change\scontrol|change\smanagement|queue)\b|\bno\sneed\sto\s(?:open|file|raise|call|contact|ring|email)\b[^\n.]{0,40}?(?:ticket|desk|\bit\b|support|security|helpdesk)|\bekki\sþarf\sað\s(?:hafa\ssamband|hringja|láta\svita)|(?:ফোন|কল)\sকরার\s(?:প্রয়োজন|দরকার)\sনেই",
    r"\b(?:unredacted|unmasked|ungeschwärzt|unmaskiert|unencrypted|onversleuteld\w*|unverschlüsselt\w*)\b|\bwithout\sencrypt\w*|\bsin\scifrar\b|\bsem\scriptografia\b|без\sшифровани\w*|შიფრაციის\sგარეშე",
);

/// A warning of what is never asked, read only where it ends in the
/// credential it covers (`UNLESS`'s reach is a few words): "we will
/// never ask for your password" beside a real request clears nothing.
pub const NEVER_ASKED: &[&str] = &[
    concat!(
        r"(?:\bnever|\bnunca|\bjamais|\bniemals|(?:^|\s)никогда|(?:^|\s)ніколи|(?:^|\s)никога|\bnigdy|\bnikdy|\bsoha|\bkamwe|\bhech\sqachon|\bhiçbir\szaman|\basla)\s(?:\S+\s){0,5}?(?:",
        credential!(),
        "|",
        credential_v30!(),
        ")"
    ),
    // Version 30: or the warning that follows it ("Paste your API token
    // here. Never share it with anyone.").
    concat!(
        "(?:",
        credential!(),
        "|",
        credential_v30!(),
        r")[^\n]{0,60}?\b(?:never|don't|do\snot)\s(?:share|send|give|disclose|post|email)\b"
    ),
];
