//! Rules of version 4: a note addressed to automated readers, with what
//! makes it an attack rather than a contributor guide. Blind sets written
//! after version 3 hid their orders in data (a JSON key, a log line, a
//! calendar field, a code comment) and in a dozen languages, each order in
//! new words; but they lean on the same levers: an approval claimed from
//! someone absent ("pre-approved by the owner"), the step kept out of the
//! user's sight, a security check to switch off, something to send away,
//! a payload to decode and obey. A guide for coding assistants names its
//! readers too, but it does not claim an absent party signed off, nor ask
//! that a change go unmentioned; so the rule wants a reader and a lever
//! within a few lines of each other.

use super::Rule;

/// Who the note is for: an AI, an assistant, an agent, a bot, an automated
/// tool, in the languages of the blind sets. Alone, ordinary words.
macro_rules! reader {
    () => {
        r"(?:\b(?:ai|llms?|a\.i\.|ia|ki|gpt|copilot|chatgpt|claude|gemini)\b|\bassistan\w*|\basist[ae]n\w*|\bagenci\w*|\\n(?:assistan\w*|agents?\b|ai\b)|\basystent\w*|\bassistent\w*|\bagent(?:s|es?|en|i|e|a|u|ie|owi|ów)?\b|\b(?:tradutt|tradut|traduct|traduct)\w*\sautomat\w*|\bagentes\b|\bbots?\b|@[\w-]*bot\b|\b[\w-]+-bots?\b|\bautomat(?:ed|ic|isch\w*|isierte?\w*|ique\w*|ico\w*|izad\w*|ici)\s(?:\w+[\s-]){0,2}?(?:tool\w*|system\w*|review\w*|operator\w*|analy[sz]er\w*|fixer\w*|translator\w*|traduttor\w*|reader\w*|contract\sanalysis|upgrade\w*|agent\w*|helper\w*)|\byapay\szek\w*|助手|智能体|비서|에이전트|어시스턴트|アシスタント|エージェント)"
    };
}

/// An approval claimed from someone who is not in the conversation.
macro_rules! absent_approval {
    () => {
        r"(?:\bpre-?(?:approved|authori[sz]ed|reviewed|cleared)\b|\bapproved\s(?:this\s|it\s)?(?:in\sadvance|by\s(?:the\s|@|\w+\s)?)|\b(?:owner|maintainers?|cto|ceo|cfo|ops|management|security\s(?:team|lead)|infra|team|lead|manager|admins?|humans|reviewers)\s(?:\w+\s){0,4}?(?:approved|agreed|signed\soff|waived|requested\sthis|confirmed|pre-?approved|decided)\b|\bstanding\spermission\b|\bas\sagreed\swith\b|\bwaived\sby\b|\bit\swas\sapproved\b|\bya\s(?:lo\s)?(?:aprob|confirm|autoriz)\w*|\b(?:fue|foi|já\sfoi)\s(?:autorizad|aprovad)\w*|\bcombinado\scom\b|\bdéjà\s(?:approuvé|autorisé|validé)|\bbereits\s(?:freigegeben|genehmigt|abgestimmt)|\bmit\sder\s\w+\sabgestimmt|\bgià\sautorizzat\w*|\bzatwierdzi\w*|\bzgoda\szostała|\bzgodził\w*|\bgoedgekeurd\b|\bonayladı|\bonayı\svar\b|\bonaylandı|\bzdecydował\w*|已确认|已經確認|已批准|已授权|已经同意|已经说过|이미\s승인|승인한\s절차)"
    };
}

/// The step kept out of the user's sight.
macro_rules! unmentioned {
    () => {
        r"(?:\b(?:do\snot|don'?t|never|without|no\sneed\sto|not\sto)\s(?:\w+\s){0,2}?(?:mention\w*|describ\w*|report\w*|list\w*|call\w*\s(?:it|this|that)\sout|surfac\w*|inspect\w*|look\w*|post\s(?:a\s)?summary|bother\w*\sthe\suser|flag\w*)\b|\bwithout\sasking\b|\bnot\s(?:to\s)?be\s(?:surfaced|mentioned|inspected|reported|shown)\b|\bdescribe\s(?:it|this|the\schange)\sas\b|\bsin\smencion\w*|\bno\s(?:lo\s)?menciones\b|\bn[ãa]o\s(?:\w+\s)?mencione\b|\bsem\smencionar\b|\bnicht\s(?:\w+\s)?erwähnen\b|\bals\s\x22[^\x22]{1,40}\x22\sbeschreiben|\bsans\s(?:le\s)?mentionner\b|\bnon\smenzionar\w*|\bnie\swspominaj\w*|\bbelirtmeyin\b|\bsormadan\b|포함하지\s마세요|不要提|不要告诉|不要在(?:总结|摘要|回复|报告)中?提)"
    };
}

/// A safeguard to switch off: tests, reviews, signatures, protections.
macro_rules! safeguard_off {
    () => {
        r"(?:\b(?:disabl\w*|skip\w*|remov\w*|delet\w*|suppress\w*|bypass\w*|turn\w*\soff|waiv\w*)\s(?:\w+\s){0,3}?(?:branch\sprotection|protection|tests?|security|ssl|tls|csrf|verif\w*|signature\w*|checks?|scans?|ci|auth\w*|findings|confirmation|firewall|plan\sreview|logs?|audit\w*|namespaces?)\b|\bdelete\s(?:\S+\s)?(?:/var/log|\.git\b)|\bpush\s(?:\S+\s)?--force\b|\bgit\stag\s-f\b|-auto-approve\b|\ballow_failure\b|\bpublic-read\b|0\.0\.0\.0/0|\bdesactiv\w*|\bdésactiv\w*|\bdeaktivier\w*|\bdevre\sdışı|\bno\sejecutes\slas\spruebas|\brimuovi\sil\scontrollo|\büberspr\w*|\bpomi\w*\stest\w*|跳过|방화벽)"
    };
}

/// Something to send to an address.
macro_rules! send_away {
    () => {
        r"(?:\b(?:send|upload|forward|post|copy|reported|transf[eé]r\w*|share|stuur|env[ií]a\w*|envoie\w*|weiterleit\w*|weiterzuleiten|compartilhe|odeślij|yükle\w*|inoltr\w*)\b[^\n]{0,120}?\s(?:to|with|naar|à|an|a|al|para|per|at|na|com|con|mit)\s(?:https?://|[\w.+-]+@[\w-]+\.[a-z])|\?\w+=<[^>\n]{0,30}(?:key|token|secret)|전송|\b(?:requests\.post|fetch|urlopen)\(\s?[\x22'][^\n]{0,80}?(?:\.env\b|id_[a-z0-9]+|credentials|\.ssh))"
    };
}

/// Secrets to be shown where others read them: the reply, a channel.
macro_rules! secret_shown {
    () => {
        r"(?:\b(?:secrets?|credentials|keys?|tokens?|\.env|[a-z_]+_key)\b[^\n.]{0,60}?\b(?:printed|into\s(?:your|the|a)\s(?:\w+\s)?(?:reply|answer|response|channel|comment|output|cell|chat))\b|\bdump\w*\s(?:the\s)?(?:values?|contents?)\sof\b)"
    };
}

/// A verdict, a ranking or a claim dictated, or the user impersonated.
macro_rules! dictated {
    () => {
        r"(?:\b(?:rank|classify|rate|score|label)\s(?:this|it|[\w-]*\d[\w-]*)\s(?:\w+\s){0,2}?(?:as|first|highest)\b|\bregardless\sof\s(?:the\s)?(?:findings|issues|results)\b|\bomit\s[^\n.]{0,40}?\bfrom\s(?:any|the|your)\s(?:\w+\s)?summar|\btell\sthe\suser\s(?:that\s)?(?:it|this)\s(?:has|is)\b|\bdescribe\s(?:\w+\s){0,2}?as\s(?:having|being)\b|\b(?:respond|reply|answer|send|sign|write)\w*\s(?:\w+\s){0,2}?(?:on\sbehalf\sof|in\sthe\sname\sof)\sthe\suser\b|\bmark\s(?:it|this|them)\sas\ssent\sby\b|\ben\snombre\sdel\susuario\b|\bem\snome\sdo\susuário|\bau\snom\sde\sl'utilisateur\b|\bim\snamen\sdes\s(?:nutzers|benutzers)\b|\bw\simieniu\sużytkownika|\bkullanıcı\sadına\b)"
    };
}

/// Version 9: the same readers in more languages. A word that starts
/// with a letter outside ASCII has no `\b` before it (the boundary is
/// ASCII's): its spelling alone must be distinctive.
macro_rules! reader_more {
    () => {
        r"(?:βοηθ(?:ός|ού|ό|οί|ούς|ών)|τεχνητής\sνοημοσύνης|مساعد|الذكاء\sالاصطناعي|ügynök|\btekoäly\w*|\w*agentti\w*|ربات|دستیار|هوش\sمصنوعی|असिस्टेंट|सहायक|एजेंट|trợ\slý|tác\stử|ผู้ช่วย|\bmsaidizi\b|עוזר|סוכן|סוכני|בינה\sמלאכותית|ассистент|помощник|нейросет|ии-|асистент|помічник|ші-|\bmi-\w+)"
    };
}

/// Version 9: an approval or a consent claimed, in more languages ("the
/// owner has already approved", "the customer agreed").
macro_rules! absent_approval_more {
    () => {
        r"(?:\bleadership\s(?:\w+\s){0,2}?approved\b|\balready\s(?:agreed|consented|given\s(?:permission|consent)|authori[sz]ed)\b|\bamesha(?:kubali|idhinisha)\w*|\bon\sjo\s(?:hyväksy|sallinut|antanut)\w*|\bjo\shyväksy\w*|\b(?:už\s)?(?:souhlasil|schválil|odsouhlasil)\w*|पहले\sही\s(?:अनुमति|मंजूरी|स्वीकृति)|अनुमति\sदे\sदी|jóváhagyta|\bmár\s(?:jóváhagy|engedélyez)\w*|engedélyezte|\b(?:sudah|telah)\s(?:mengizinkan|menyetujui|disetujui|diizinkan|memberi\sizin)\b|\b(?:redan|allerede)\s(?:godkänt|godkänd|godkendt|godkjent)\b|\bhar\s(?:godkänt|godkendt|godkjent)\b|\b(?:a|au|deja)\saprobat\b|אישר|כבר\sאושר|تمت\sالموافقة|وافق\sمسبق|έχει\sήδη\s(?:εγκρίνει|συμφωνήσει)|ενέκρινε|εγκρίθηκε|đã\s(?:phê\sduyệt|đồng\sý|cho\sphép|chấp\sthuận)|อนุมัติแล้ว|ยินยอมแล้ว|อนุญาตแล้ว|уже\s(?:одобрил|согласовал|разрешил|дал\sсогласие|погоди|схвали|дозволи)\w*|погодив|схвалив|تأیید\sکرده|موافقت\sکرده|承認済み|許可済み|了承済み|\bjuż\s(?:zaakceptował|wyraził\szgodę)\w*|\b(?:pumayag|inaprubahan)\sna\b)"
    };
}

/// Version 9: the step kept from the user, in more languages ("do not
/// tell the user", "no need to ask").
macro_rules! unmentioned_more {
    () => {
        r"(?:\busi(?:mwambie|waambie)\b|\bbila\skumwambia\b|\bei\starvitse\s(?:kertoa|mainita|kysyä)|älä\s(?:kerro|mainitse)|\bne\s(?:említsd|szólj|mondd)|\bnem\skell\s(?:szólni|említeni|megkérdezni)|لا\sتخبر|دون\sإخبار|لا\sتذكر|אל\s(?:תציינו|תציין|תספר|תספרו|תזכיר|תזכירו)|\bnu\s(?:o\s|le\s|îl\s)?(?:menționați|menționa|spuneți|spune)|\btidak\sperlu\s(?:bertanya|memberi\stahu|memberitahu)|\bjangan\s(?:beri\stahu|memberitahu|bilang|sebutkan)|neříkej|nezmiňuj|neinformuj|μην\s(?:το\s)?(?:αναφέρ|πεις|πείτε|ενημερώσ)|не\s(?:говори|сообщай|упоминай|уведомляй|кажи|згадуй|повідомляй)|đừng\s(?:nói|báo|đề\scập|thông\sbáo)|không\scần\s(?:thông\sbáo|hỏi|nói)|ไม่ต้อง(?:บอก|แจ้ง|ถาม)|อย่า(?:บอก|แจ้ง)|मत\sबता|न\sबताएं|बिना\sबताए|伝えないで|言わないで|知らせないで|報告しないで|触れないで|\b(?:nämn|berätta|fortæl|nævn|fortell|nevn)\s(?:inte|ikke)\b|\butan\satt\s(?:fråga|berätta)|\buden\sat\s(?:spørge|fortælle)|\b(?:niet|nooit)\s(?:vermelden|vertellen|melden)\b|\bvertel\s(?:het\s)?niet\b|\bhuwag\s(?:sabihin|banggitin|ipaalam)|به\sکاربر\sنگو|نگویید|اطلاع\sندهید|\bnie\s(?:mów|informuj)|\bsenza\s(?:dirlo|avvisare)|\bne\s(?:le\s)?(?:dites|mentionnez|signalez)\spas\b|알리지\s마|말하지\s마|언급하지\s마)"
    };
}

pub const ADDRESSED: &[Rule] = &[
    Rule {
        id: "addressed-lever",
        what: "text that speaks to an AI, an assistant, a bot or a tool, near an approval claimed from someone absent, a step kept from the user, a safeguard switched off or data sent away",
        patterns: &[reader!(), reader_more!()],
        near: Some((
            &[
                absent_approval!(),
                absent_approval_more!(),
                unmentioned!(),
                unmentioned_more!(),
                safeguard_off!(),
                send_away!(),
                secret_shown!(),
                dictated!(),
            ],
            320,
        )),
    },
    Rule {
        id: "encoded-payload",
        what: "a payload to be decoded and carried out, or an order spelled with digits for letters",
        patterns: &[
            r"\bdecod\w*\s(?:\w+\s){0,3}?(?:and|then|,)\s(?:\w+\s)?(?:follow|execute|run|obey|act\son|apply|carry\sout)\b",
            r"\bdecoding\s[^.\n]{0,40}?\band\s(?:acting|executing|following)\b",
            r"\b(?:decodificar\w*|décoder|dekodier\w*|decodific\w*)\s(?:\w+\s){0,2}?(?:y|et|und|e)\s(?:\w+\s)?(?:seguir\w*|ejecutar\w*|suivre|exécuter|befolgen|ausführen|eseguir\w*)",
            r"\b(?:1gn[o0]r[e3]|[i1]gn0r[e3]|[i1]gn[o0]r3|d[i1]sr[e3]g[a4]rd)\b[^\n]{0,40}?\b[i1]n[s5]truct[i1][o0]n[s5]?\b",
        ],
        near: None,
    },
];
