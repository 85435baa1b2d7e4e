//! Rules of version 29: credentials asked for. AD's misses that named no
//! reader included three notes in Bulgarian, Pashto and Somali that asked
//! staff to send their passwords, one-time codes, backup codes or VPN keys
//! to an address, a number or a reply, and told them not to tell their
//! manager, their colleagues or IT. No legitimate notice asks for a
//! password and asks for silence about it; a bank's warning says what it
//! never asks, in the words that ask. A word for the scam nearby does not
//! stand it aside as it does gift cards (`SCAM_WARNED`): "our new
//! anti-phishing check" is what the fraud itself writes.

use super::Rule;

/// A secret that lets its holder sign in as someone: a password, a
/// one-time or backup code, a private key, a password manager's export.
macro_rules! credential {
    () => {
        r"(?:\bpasswords?\b|\bpasscodes?\b|\botp\b|\bone-time\s(?:code|password)s?\b|\b(?:backup|recovery)\scodes?\b|\bprivate\skeys?\b|\bpassw[oö]rt\w*|\bkennw[oö]rt\w*|\bmots?\sde\spasse\b|\bcontraseñas?\b|\bsenhas?\b|\bwachtwoord\w*|\blösenord\w*|\bsalasan\w*|\bhasł\w*|\bhesl[oa]\w*|\bjelsz[óa]\w*|\bparol[aeiă]\w*|şifre\w*|\bkata\ssandi\b|mật\skhẩu|\bnenosiri\b|\bfuraha\ssirta\b|парол\w*|частни\w*\sключ\w*|приватн\w*\sключ\w*|закрыт\w*\sключ\w*|پټنوم\w*|رمز\sعبور|كلم\w*\sالمرور|كلمة\sالسر|סיסמ\w*|κωδικ\w*|पासवर्ड|पासवर्ड्स|পাসওয়ার্ড|கடவுச்சொல்\w*|මුරපද\w*|รหัสผ่าน|密码|密碼|パスワード|비밀번호|የይለፍ\sቃል|\b(?:otp|mfa|2fa|backup|recovery)\s(?:\S+\s)?(?:kod\w*|koodh\w*|код\w*|کوډ\w*|code\w*|códigos?|codici)\b)"
    };
}

/// Sending, in the languages of the blind sets; what a reply carries is
/// sent too ("په ځواب کې ولیږئ").
macro_rules! sending {
    () => {
        r"(?:\b(?:send|forward|email|e-mail|reply\swith|share)\b|\bschick\w*|(?:^|\s)übermittel\w*|\benvo(?:y|i)\w*|\btransmet\w*|\benv[ií](?:a|e|ar)\w*|\bmand[ae]\w*|\binvia\w*|\bstuur\w*|\bskicka\w*|\bsend\w*|\bwyślij\w*|\bprześlij\w*|\bpošl\w*|\bzašl\w*|\bpošalj\w*|\bküld\w*|\btrimite\w*|\bgönder\w*|\bkirim\w*|\bipadala\b|\btuma\b|\bsoo\sdir\b|\bu\sdir\b|(?:^|\s)gửi|отправ\w*|пришл\w*|перешл\w*|надішл\w*|надсила\w*|изпрат\w*|пошаљ\w*|ولیږ\w*|ولېږ\w*|بفرست\w*|ارسال\sکن\w*|أرسل\w*|ارسل\w*|שלח\w*|στείλ\w*|भेज\w*|पठाउ\w*|পাঠা\w*|அனுப்ப\w*|යවන්න|ส่ง|发送|发给|發給|送って|送信|보내\w*|ላኩ|ይላኩ)"
    };
}

pub const HARVEST: &[Rule] = &[Rule {
    id: "credentials-asked",
    what: "passwords, one-time or backup codes or private keys asked to be sent, with the request kept from a manager, colleagues, IT or the user (read with `ALSO`)",
    patterns: &[credential!()],
    near: Some((&[sending!()], 200)),
}];

/// The request kept from someone, which must also stand near (`ALSO`):
/// the same words the addressed rules read.
pub const KEPT_QUIET: &[&str] = &[
    unmentioned!(),
    unmentioned_more!(),
    unmentioned_v10!(),
    untold_v20!(),
    unmentioned_v29!(),
];

/// A warning of what is never asked, read only where it ends in the
/// credential it covers (`UNLESS`'s reach is a few words): "we will
/// never ask for your password" beside a real request clears nothing.
pub const NEVER_ASKED: &[&str] = &[concat!(
    r"(?:\bnever|\bnunca|\bjamais|\bniemals|(?:^|\s)никогда|(?:^|\s)ніколи|(?:^|\s)никога|\bnigdy|\bnikdy|\bsoha|\bkamwe|\bhech\sqachon|\bhiçbir\szaman|\basla)\s(?:\S+\s){0,5}?",
    credential!()
)];
