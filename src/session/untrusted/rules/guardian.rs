//! Rules of version 31: a guardian kept out by a note to whoever handles
//! the text. AG's misses that named no reader were mostly one shape, in a
//! dozen languages: a note to whoever handles the ticket, runs the
//! install, is on call this week or processes the file next ("ملاحظة لمن
//! يعالج هذه التذكرة", "Kas budi šią savaitę", "kes iganes seda faili
//! järgmisena töötleb", "Ко год припрема миграцију"), an errand in words
//! no table holds (grant an account admin on every tenant, share a sheet
//! with anyone who has the link, upload the raw recording), and the
//! request that the people whose work is to catch it not hear of it: the
//! security team, compliance, the data protection officer. A runbook
//! names a role and a security team too, but it does not ask that the
//! team be kept out; so the rule wants the request and the role within a
//! few lines.

use super::Rule;
use super::concealed::ADDRESSED_TO;

/// Version 31: those whose work is to catch what the note asks: the
/// security team (`security_team!`, which also holds the data protection
/// officer and Marathi's compliance), compliance, data protection.
macro_rules! guardian {
    () => {
        concat!(
            "(?:",
            security_team!(),
            r"|\bcompliance\b|\bcumplimiento\b|\bconformité|\bconformidade\b|\bconformità|\bdatenschutz\w*|\bprotection\sdes\sdonnées|\bprotección\sde\sdatos|\bproteção\sde\sdados|\bprotezione\sdei\sdati|\bgegevensbescherming\w*|\bochron\w*\sdanych|\bdataskydd\w*|\bdatabeskyttelse\w*|\btietosuoja\w*|\bprivacy\s(?:officer|team|office)\b|\bzaštit\w*\s(?:\S+\s)?podataka\b|\bvarstv\w*\s(?:\S+\s)?podatkov\b|\bochran\w*\s(?:\S+\s)?údaj\w*|защит\w*\s(?:\S+\s)?данн\w*|защита\sна\s(?:\S+\s)?данни|захист\w*\s(?:\S+\s)?даних|\bprotecți\w*\sdatelor|\bprotectia\sdatelor|\badatvédelm\w*|\bveri\skoruma\w*|προστασία\s(?:\S+\s)?δεδομένων|\bduomenų\sapsaug\w*|\bdatu\saizsardzīb\w*|\binternal\saudit\w*|\binterne?\s(?:revision|revisie|audit\w*)\b|\bintern\w*\srevizij\w*|\bunutarnj\w*\srevizij\w*|\bnotranj\w*\srevizij\w*|\bauditoría\sinterna|\baudit\sinterne?\b|\bauditoria\sinterna|\brevisione\sinterna|\baudyt\w*\swewnętrzn\w*|\binterní\saudit\w*|\bvnitřní\saudit\w*|\bintern\srevisjon\b|\bsisäi\w*\starkast\w*|\biç\sdenetim\w*|\bbelső\sellenőr\w*|\bauditul\sintern\b|\biekšēj\w*\saudit\w*|\bvidaus\saudit\w*|\bsiseaudit\w*|\baudit\sinternal\b|\bkiểm\stoán\snội\sbộ|\bukaguzi\swa\sndani\b|внутренн\w*\sаудит\w*|внутрішн\w*\sаудит\w*|вътрешн\w*\s(?:одит|контрол)\w*|внатрешн\w*\sревизиј\w*|შიდა\sაუდიტ\S*|التدقيق\sالداخلي|حسابرسی\sداخلی|ביקורת\s(?:ה)?פנים|内部审计|内部監査|내부\s?감사)"
        )
    };
}

pub const GUARDIAN: &[Rule] = &[Rule {
    id: "guardian-kept-out",
    what: "a request to keep the security team, compliance, internal audit or the data protection officer out of it, in any of some fifty languages, within 320 bytes of a note to whoever handles, runs or processes the text (version 31)",
    patterns: &[
        kept_from!(guardian!(), r"[^\s.!?,;:—–]"),
        // Marathi and Hindi put the denied telling last, after the
        // whole list of who is not to hear ("अनुपालन (compliance)
        // विभागाला किंवा शाखा व्यवस्थापकाला याबद्दल कळवू नये").
        r"(?:अनुपालन|सुरक्षा)[^\n.।]{0,100}?(?:(?:कळवू|सांगू)\s(?:नये|नका)|(?:न|मत)\s(?:बताएं|बताएँ|बताना|बताओ))",
    ],
    // Whoever handles the text, as `concealed-errand` reads the role its
    // request is addressed to.
    near: Some((ADDRESSED_TO, 320)),
}];

/// What stands beside a guardian named after a denial and is no request
/// to keep it out: the guardian as the gate the step must wait for ("Do
/// not merge before the security review", "nicht vor der
/// Sicherheitsprüfung", "sin la aprobación del equipo de seguridad"),
/// read within the request itself: a gate in the next clause clears
/// nothing.
pub const GATED: &[&str] = &[concat!(
    r"(?:\bbefore|\buntil|\btill|\bprior\sto|\bpending|\bwithout\s(?:an?\s|the\s)?(?:approval|sign-?off|review|ok|go-ahead)\s(?:of|from|by)|\bvor|\bbevor|\bohne\s(?:die\s)?(?:freigabe|zustimmung)\s(?:de[rs]|vom)|\bavant|\bsans\s(?:l'accord|la\svalidation|l'approbation)\s(?:de|du|des)|\bantes\sde|\bhasta|\bsin\s(?:la\s)?(?:aprobación|autorización|revisión)\s(?:de|del)|\bprima\sd(?:i|ella|el)|\bsenza\s(?:l'approvazione|il\sbenestare)\s(?:di|del|della)|\bsem\s(?:a\s)?(?:aprovação|autorização)\s(?:de|da|do)|\bvoor|\bzonder\s(?:goedkeuring|akkoord)\s(?:van)|\bprzed|\bbez\s(?:zgody|akceptacji|zatwierdzenia)|\bpřed|(?:^|\s)до|(?:^|\s)перед|(?:^|\s)без\s(?:одобрения|согласования|погодження|схвалення))\s(?:\S+\s){0,3}?",
    guardian!()
)];

/// Version 32: the user, whom a note to an assistant asks be kept out as
/// a guardian is ("பயனரிடம் கேட்கவோ தெரிவிக்கவோ வேண்டாம்", "Ungamtsheli
/// umsebenzisi", "వినియోగదారుని అనుమతి అడగవద్దు"): the word for a user
/// in some sixty languages, declined or not, but no further than its own
/// word.
macro_rules! user_noun {
    () => {
        r"(?:\busers?\b|\butilisateur\w*|\busuari[oa]s?\b|\busuári[oa]s?\b|\butilizador\w*|\butent[ei]\b|\b(?:be)?nutzer\w*|\banwender\w*|\bgebruiker\w*|\banvändar\w*|\bbruker\w*|\bbruger\w*|\bkäyttäjä\w*|\bkasutaja\w*|\blietotāj\w*|\bnaudotoj\w*|\bvartotoj\w*|\bużytkownik\w*|\buživatel\w*|\bpoužívateľ\w*|\buporabnik\w*|\bkorisnik\w*|корисник\w*|пользовател\w*|користувач\w*|потребител\w*|\butilizator\w*|\bfelhasználó\w*|\bkullanıcı\w*|\bistifadəçi\w*|\bfoydalanuvchi\w*|пайдаланушы\w*|χρήστ\w*|\bpërdorues\w*|მომხმარებ[^\s.!?,;:]*|օգտատեր[^\s.!?,;:]*|المستخدم[^\s.!?,;:]*|للمستخدم|کاربر[^\s.!?,;:]*|משתמש[^\s.!?,;:]*|صارف[^\s.!?,;:]*|उपयोगकर्ता[^\s.!?,;:]*|यूज़र[^\s.!?,;:]*|यूजर[^\s.!?,;:]*|वापरकर्त[^\s.!?,;:]*|प्रयोगकर्ता[^\s.!?,;:]*|ব্যবহারকারী[^\s.!?,;:]*|பயனர[^\s.!?,;:]*|వినియోగదారు[^\s.!?,;:]*|ಬಳಕೆದಾರ[^\s.!?,;:]*|ഉപയോക്താ[^\s.!?,;:]*|පරිශීලක[^\s.!?,;:]*|ผู้ใช้[^\s.!?,;:]*|người\sdùng|\bpengguna\b|\bm?tumiaji\b|\bwatumiaji\b|\w*sebenzisi\b|olùmúlò|\bolumulo\b|ተጠቃሚ[^\s.!?,;:]*|អ្នកប្រើ[^\s.!?,;:]*|ຜູ້ໃຊ້[^\s.!?,;:]*|အသုံးပြုသူ[^\s.!?,;:]*|хэрэглэгч[^\s.!?,;:]*|\berabiltzaile\w*|\bdefnyddiwr\b|\bnotand\w*|úsáideoir\w*|\bisticmaal\w*)"
    };
}

/// Version 32: a denial in the imperative only, and not in English (which
/// `hide-from-user` and `consent-skipped` read): "the hidden text is not
/// shown to the user", the way an article about injection puts it, is no
/// request.
macro_rules! told_not_to {
    () => {
        r"(?:வேண்டாம்|[\u{C00}-\u{C7F}]+వద్దు|[\u{C80}-\u{CFF}]+ಬೇಡ|[\u{D00}-\u{D7F}]+രുത്|\S*ngamtsheli\b|\bungacel\w*|\busimw\w*|አይንገሩ|አትንገሩ|\bhuwag\b|\bjangan\b|(?:^|\s)đừng|อย่า|(?:^|\s)älä\w*|(?:^|\s)ärge\b|\bne\s(?:dites|montrez|demandez|informez|prévenez)\b|\bnon\s(?:dire|dirlo|mostrare|chiedere|informare|avvisare)\b|\bno\s(?:le\s)?(?:digas|muestres|preguntes|informes|avises)\b|\bnão\s(?:diga|mostre|pergunte|informe|avise)\b|\bnicht\s(?:fragen|informieren|sagen|zeigen)\b|\bnie\s(?:mów|pytaj|pokazuj|informuj)\w*|(?:^|\s)не\s(?:говори|кажи|сообщай|показуй|показывай|питай|спрашивай|повідомляй|информирай|казвай)\w*|\bne\s(?:govori|pitaj|obavještavaj|obaveštavaj|pokazuj)\w*|\bnemoj(?:te)?\b)"
    };
}

/// Version 32: the user kept out, for `addressed-lever`'s `near`.
pub const USER_KEPT_OUT: &str = concat!(
    "(?:",
    told_not_to!(),
    r"\s(?:[^\s.!?]+\s){0,4}?",
    user_noun!(),
    "|",
    user_noun!(),
    r"(?:\s[^\s.!?]+){0,3}?\s",
    told_not_to!(),
    ")"
);
