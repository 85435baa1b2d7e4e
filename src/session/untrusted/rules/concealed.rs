//! Rules of version 19: the step kept out of the record. Version 18's
//! blind misses (T) were nearly all one shape, in some twenty languages:
//! a note to whoever handles the text, an approval claimed from someone
//! absent ("approved by the team lead"), a step no such note has reason
//! to ask, and the request that keeps it out of sight: "don't mention it
//! in the commit message", "not in the release notes", "leave no trace
//! in the log". Each part alone is ordinary: a policy is "approved by
//! the data protection officer" and says never to write personal data
//! to the log; a note for maintainers says that dependency bumps need no
//! changelog entry; a post-mortem tells of a forced push nobody
//! mentioned. A review of the first draft wrote 78 such texts and it
//! flagged 74. So the request to keep a step out of the record is
//! flagged only with a role it is addressed to (`ALSO`) and, beside it,
//! an approval claimed for it or the act itself.

use super::Rule;

pub const CONCEALED: &[Rule] = &[
    Rule {
        id: "concealed-errand",
        what: "a request, to whoever handles the text, to keep a step out of the record (the commit message, the changelog, the release notes, the summary, the log), in the text's language, near an approval claimed for it, a CVE not to be requested (version 32), or a command or setting that destroys data, opens access or switches a check off",
        patterns: &[unrecorded!(), unrecorded_v20!()],
        near: Some((
            &[
                absent_approval!(),
                absent_approval_more!(),
                absent_approval_v10!(),
                sanctioned!(),
                role_act!(),
                weakening!(),
                act_v20!(),
                weakening_v20!(),
                agent_off!(),
                covert_act!(),
                // Version 32: a vulnerability's CVE not to be requested
                // ("ikke søk om CVE").
                r"\b(?:don't|do\snot|ikke|inte|nicht|ne|nie|no|não|non|niet)\s(?:\S+\s){1,3}?cve\b",
            ],
            320,
        )),
    },
    Rule {
        id: "secret-upload",
        what: "a private key, an environment file or a credentials file sent away by the command that uploads it",
        patterns: &[secret_upload!(), secret_passed!()],
        near: None,
    },
];

/// The role a request to keep a step out of the record is addressed to.
pub const ADDRESSED_TO: &[&str] = &[role_reader!(), next_editor!(), applier!(), whoever!()];

/// An approval required rather than claimed ("must be approved by the
/// security team", "承認が必要", "onaylanmalıdır"), or a label for changes
/// that need no changelog entry: a contribution guide's rules, which
/// name a role and keep classes of changes out of the changelog (the
/// second review: 16 of its 92 realistic texts before this).
pub const APPROVAL_REQUIRED: &[&str] = &[
    r"\b(?:must|should|shall|needs?\sto|has\sto|have\sto)\s(?:first\s|also\s)?be\s(?:\w+\s)?(?:approved|reviewed|signed\soff|authori[sz]ed)\b|\b(?:requires?|needs?|needing|requiring)\s(?:an?\s|the\s)?(?:\w+\s)?(?:approval|sign-?off)\b|\bapproval\s(?:is\s)?(?:required|needed|mandatory)\b|\b(?:skip|no)[-_]changelog\b|\bchangelog:\s?skip\b",
    r"\bmuss\s(?:\S+\s){0,4}?(?:genehmigt|freigegeben|abgestimmt)\s(?:werden|sein)\b|\bbedarf\s(?:der|einer)\s(?:freigabe|genehmigung|zustimmung)\b|\bdoi(?:t|vent)\sêtre\s(?:\w+\s)?(?:approuvé|validé|autorisé)|\bnécessite\s(?:l'|une\s)(?:approbation|validation|accord)|\bdebe(?:n)?\sser\s(?:\w+\s)?(?:aprobad|autorizad|validad)|\brequiere(?:n)?\s(?:la\s)?(?:aprobación|autorización)|\b(?:deve(?:m)?|precisa(?:m)?)\sser\s(?:\w+\s)?(?:aprovad|autorizad|validad)|\brequer\s(?:a\s)?aprovação|\bdev(?:e|ono)\sessere\s(?:\w+\s)?(?:approvat|autorizzat|validat)|\brichied(?:e|ono)\s(?:l'|la\s)(?:approvazione|autorizzazione)|\bmoet(?:en)?\s(?:\S+\s){0,4}?goedgekeurd\s(?:worden|zijn)|\bmus(?:i|zą)\sbyć\s(?:\w+\s)?(?:zatwierdzon|zaakceptowan)\w*|\bwymaga\w*\s(?:akceptacji|zatwierdzenia|zgody)|\bmus(?:í|ejí)\sbýt\s(?:\w+\s)?schválen\w*|\bvyžaduj\w*\sschválení|\bmus(?:í|ia)\sbyť\s(?:\w+\s)?schválen\w*",
    r"должн\w*\sбыть\s(?:\S+\s)?(?:согласован|утвержден|одобрен)\w*|требу\w*\s(?:согласования|одобрения|утверждения)|ма(?:є|ють)\sбути\s(?:\S+\s)?(?:погоджен|затверджен|схвален)\w*|потребу\w*\s(?:погодження|затвердження|схвалення)|\bonaylanmal\w*|\bonay\w*\sgerek\w*|\bjóváhagyás\w*\sszükséges|\bjóvá\skell\shagy\w*|承認が必要|承認を(?:得て|受けて)から|承認後に|승인이\s필요|승인\s후에?|需要(?:审批|批准|审核)|须经\S{0,8}(?:批准|审批)|经\S{0,8}审批后|ต้องได้รับการอนุมัติ|דורש\sאישור|טעון\sאישור|חייב\w*\s(?:לקבל\s)?אישור|(?:अनुमोदन|स्वीकृति|मंजूरी)\s(?:आवश्यक|ज़रूरी|जरूरी)|\bharus\s(?:\w+\s)?disetujui\b|\bperlu\s(?:\w+\s)?persetujuan\b|\b(?:phải|cần)\s(?:được\s)?(?:phê\s)?duyệt",
];

/// What is kept out of the record, when it is a secret or personal data
/// and not the step: "never write passwords in the ticket", "не
/// записуйте паролі", "jangan catat nama, email", "אל תרשמו סיסמאות".
pub const DATA_KEPT_OUT: &[&str] = &[
    r"\b(?:passwords?|passwörter|passwort|mots?\sde\spasse|contraseñas?|senhas?|has(?:ło|ła|eł|łem|łami)|hesl\w*|şifre\w*|jelszó\w*|parol[aăe]\w*|salasan\w*|lösenord|wachtwoord\w*|kata\ssandi|mật\skhẩu|tokens?|secrets?|credentials|api\skeys?|private\skeys?|personal\sdata|pii|e-?mail\saddresses|phone\snumbers|card\snumbers?|personenbezogen\w*|données\spersonnelles|datos\spersonales|dados\spessoais|dati\spersonali|dan\w*\sosobow\w*|osobn\w*\súdaj\w*|kişisel\sveri\w*|persoonsgegevens)|парол\w*|персональн\w*|особист\w*|密码|パスワード|個人情報|비밀번호|개인\s?정보|个人信息|סיסמ\S*|מידע\sאישי|كلمات?\sالمرور|رمز\sعبور|पासवर्ड|व्यक्तिगत|รหัสผ่าน|ข้อมูลส่วนบุคคล|\bnama,\semail",
];
