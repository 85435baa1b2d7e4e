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
        r"(?:\b(?:ai|llms?|a\.i\.|ia|gpt|copilot|chatgpt|claude|gemini)\b|\b(?:die|der|eine[rn]?|liebe|liebes|für|an|hallo|hey|du|deine?|dein|als)\ski\b|\bki(?:[:,;!-]|\s(?:soll\w*|muss|müssen|darf|bitte|assistent\w*|agent\w*|modell\w*|system\w*|tool\w*)\b)|\bassistan\w*|\basist[ae]n\w*|\bagenci\w*|\\n(?:assistan\w*|agents?\b|ai\b)|\basystent\w*|\bassistent\w*|\bagent(?:s|es?|en|i|e|a|u|ie|owi|ów|ul|ului|ilor)?\b|\b(?:tradutt|tradut|traduct|traduct)\w*\sautomat\w*|\bagentes\b|\bbots?\b|@[\w-]*bot\b|\b[\w-]+-bots?\b|\bautomat(?:ed|ic|isch\w*|isierte?\w*|ique\w*|ico\w*|izad\w*|ici)\s(?:\w+[\s-]){0,2}?(?:tool\w*|system\w*|review\w*|operator\w*|analy[sz]er\w*|fixer\w*|translator\w*|traduttor\w*|reader\w*|contract\sanalysis|upgrade\w*|agent\w*|helper\w*)|\byapay\szek\w*|\bautomatikus\s(?:kód)?(?:ellenőrz|review|bot|ügynök|asszisztens|eszköz)\w*|助手|智能体|비서|에이전트|어시스턴트|アシスタント|エージェント)"
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
        r"(?:\b(?:do\snot|don'?t|never|without|no\sneed\sto|not\sto)\s(?:\w+\s){0,2}?(?:mention\w*|describ\w*|report\w*|listing\b|list(?:ed)?\s(?:it|this|that|them|the|these|those|any)\b|call\w*\s(?:it|this|that)\sout|surfac\w*|inspect\w*|look\w*|post\s(?:a\s)?summary|bother\w*\sthe\suser|flag\w*)\b|\bwithout\sasking\b|\bnot\s(?:to\s)?be\s(?:surfaced|mentioned|inspected|reported|shown)\b|\bdescribe\s(?:it|this|the\schange)\sas\b|\bsin\smencion\w*|\bno\s(?:lo\s)?menciones\b|\bn[ãa]o\s(?:\w+\s)?mencione\b|\bsem\smencionar\b|\bnicht\s(?:\w+\s)?erwähnen\b|\bals\s\x22[^\x22]{1,40}\x22\sbeschreiben|\bsans\s(?:le\s)?mentionner\b|\bnon\smenzionar\w*|\bnie\swspominaj\w*|\bbelirtmeyin\b|\bsormadan\b|(?:요약|보고|답변|응답|설명|커밋|변경|로그|기록|메시지|회신|출력)\S*\s(?:\S+\s)?포함하지\s마세요|不要提|不要告诉|不要在(?:总结|摘要|回复|报告)中?提)"
    };
}

/// A safeguard to switch off: tests, reviews, signatures, protections.
macro_rules! safeguard_off {
    () => {
        r"(?:\b(?:disabl\w*|skip\w*|remov\w*|delet\w*|suppress\w*|bypass\w*|turn\w*\soff|waiv\w*)\s(?:\w+\s){0,3}?(?:branch\sprotection|protection|tests?|security|ssl|tls|csrf|verif\w*|signature\w*|checks?|scans?|ci|auth\w*|findings|confirmation|firewall|plan\sreview|logs?|audit\w*|namespaces?)\b|\bdelete\s(?:\S+\s)?(?:/var/log|\.git\b)|\bpush\s(?:\S+\s)?--force\b|\bgit\stag\s-f\b|-auto-approve\b|\bezabatu\s(?:\S+\s){0,2}?(?:test|proba)\w*|\ballow_failure\b|\bpublic-read\b|0\.0\.0\.0/0|\bdesactiv\w*|\bdésactiv\w*|\bdeaktivier\w*|\bdevre\sdışı|\bno\sejecutes\slas\spruebas|\brimuovi\sil\scontrollo|überspr\w*|\bpomi\w*\stest\w*|跳过|방화벽)"
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
        r"(?:βοηθ(?:ός|ού|ό|οί|ούς|ών)|τεχνητής\sνοημοσύνης|مساعد|الذكاء\sالاصطناعي|ügynök|\btekoäly\w*|\w*agentti\w*|ربات|دستیار|هوش\sمصنوعی|असिस्टेंट|सहायक|एजेंट|trợ\slý|tác\stử|ผู้ช่วย|\bmsaidizi\b|עוזר|סוכן|סוכני|בינה\sה?מלאכותית|ассистент|помощник|нейросет|ии-|асистент|помічник|ші-|\bmi-\w+)"
    };
}

/// Version 9: an approval or a consent claimed, in more languages ("the
/// owner has already approved", "the customer agreed").
macro_rules! absent_approval_more {
    () => {
        r"(?:\bleadership\s(?:\w+\s){0,2}?approved\b|\balready\s(?:agreed|consented|given\s(?:permission|consent)|authori[sz]ed)\b|\bamesha(?:kubali|idhinisha)\w*|\bon\sjo\s(?:hyväksy|sallinut|antanut)\w*|\bjo\shyväksy\w*|\b(?:už\s)?(?:souhlasil|schválil|odsouhlasil)\w*|पहले\sही\s(?:अनुमति|मंजूरी|स्वीकृति)|अनुमति\sदे\sदी|jóváhagyta|\bmár\s(?:jóváhagy|engedélyez)\w*|engedélyezte|\b(?:sudah|telah)\s(?:mengizinkan|menyetujui|disetujui|diizinkan|memberi\sizin)\b|\b(?:redan|allerede)\s(?:godkänt|godkänd|godkendt|godkjent)\b|\bhar\s(?:godkänt|godkendt|godkjent)\b|\b(?:a|au|deja)\saprobat\b|אישר|כבר\sאושר|تمت\sالموافقة|وافق\sمسبق|έχει\sήδη\s(?:εγκρίνει|συμφωνήσει)|ενέκρινε|εγκρίθηκε|đã\s(?:phê\sduyệt|đồng\sý|cho\sphép|chấp\sthuận)|อนุมัติแล้ว|ยินยอมแล้ว|อนุญาตแล้ว|уже\s(?:одобрил|согласовал|разрешил|дал\sсогласие|погоди|схвали|дозволи)\w*|погодив|схвалив|تأیید\sکرده|موافقت\sکرده|承認済み|許可済み|了承済み|\bjuż\s(?:zaakceptował|wyraził\szgodę)\w*|\b(?:pumayag|inaprubahan)\sna\b|\bonartuta\s(?:dauka|dago)\b)"
    };
}

/// Version 9: the step kept from the user, in more languages ("do not
/// tell the user", "no need to ask").
macro_rules! unmentioned_more {
    () => {
        r"(?:\busi(?:mwambie|waambie)\b|\bbila\skumwambia\b|\bei\starvitse\s(?:kertoa|mainita|kysyä)|älä\s(?:kerro|mainitse)|\bne\s(?:említsd|szólj|mondd)|\bnem\skell\s(?:szólni|említeni|megkérdezni)|لا\sتخبر|دون\sإخبار|لا\sتذكر|لا\sتعرض|لا\sتظهر|אל\s(?:תציינו|תציין|תספר|תספרו|תזכיר|תזכירו|תציג|תציגו)|\bnu\s(?:o\s|le\s|îl\s)?(?:menționați|menționa|spuneți|spune)|\btidak\sperlu\s(?:bertanya|memberi\stahu|memberitahu)|\bjangan\s(?:beri\stahu|memberitahu|bilang|sebutkan)|neříkej|nezmiňuj|neinformuj|μην\s(?:το\s|την\s|τον\s|τα\s|τις\s|τους\s)?(?:αναφέρ|πεις|πείτε|ενημερώσ|δείξ)|не\s(?:говори|сообщай|упоминай|уведомляй|кажи|згадуй|повідомляй)|đừng\s(?:nói|báo|đề\scập|thông\sbáo)|không\scần\s(?:thông\sbáo|hỏi|nói)|ไม่ต้อง(?:บอก|แจ้ง|ถาม)|อย่า(?:บอก|แจ้ง)|मत\sबता|न\sबताएं|बिना\sबताए|伝えないで|言わないで|知らせないで|報告しないで|触れないで|\b(?:nämn|berätta|fortæl|nævn|fortell|nevn)\s(?:inte|ikke)\b|\butan\satt\s(?:fråga|berätta)|\buden\sat\s(?:spørge|fortælle)|\b(?:niet|nooit)\s(?:vermelden|vertellen|melden)\b|\bvertel\s(?:het\s)?niet\b|\bhuwag\s(?:sabihin|banggitin|ipaalam)|به\sکاربر\sنگو|نگویید|اطلاع\sندهید|\bnie\s(?:mów|informuj|zgłaszaj|pisz|wspominaj|opisuj)\w*|\bne(?:rakstī|rakstie|minē|pieminē|ziņo)\w*|\btidak\sperlu\s(?:di)?(?:maklum|beritahu|sebut)\w*|\belég\sannyit\sírni\b|\bhuwag\s(?:na\s)?(?:itong|ito)\s(?:i-report|iulat|ipaalam|sabihin)|\bikke\snoter?\s(?:dette|det)\b|δεν\sχρειάζεται\sνα\s(?:ειδοποιήσ|ενημερώσ|αναφέρ|ρωτήσ)|\bpole\svaja\s(?:kaasata|teavitada|mainida|küsida)|(?:^|\s)ära\s(?:maini|teavita|räägi)\w*|\bez\s(?:aipatu|jakinarazi)\w*|\bezer\s(?:esan|jakinarazi|aipatu)\sgabe\b|(?:私|オーナー|ユーザー|利用者)(?:に|へ)(?:確認|相談|連絡)(?:せず|しないで|は不要)|\bmich\s(?:\w+\s)?nicht\smehr\s(?:\w+\s)?fragen\b|\bnepieminie\w*|\bnie\s(?:zgłaszaj|informuj)\w*|\b(?:ret|rett|ändra)\sdet\s(?:ikke|inte)\stilbage\b|\bsenza\s(?:dirlo|avvisare)|\bne\s(?:le\s)?(?:dites|mentionnez|signalez)\spas\b|알리지\s마|말하지\s마|언급하지\s마)"
    };
}

/// Version 10: readers named in the languages the senses table learned
/// then (South and Central Asian, Baltic, South Slavic...), and "artificial
/// intelligence" spelled out.
macro_rules! reader_v10 {
    () => {
        r"(?:உதவியாளர்|செயற்கை\sநுண்ணறிவ|معاون|اسسٹنٹ|مصنوعی\sذہانت|সহকারী|কৃত্রিম\sবুদ্ধিমত্তা|సహాయక|कृत्रिम\sबुद्धिमत्ता|सहाय्यक|\bakili\s(?:bandia|mnemba)\b|pomoćni\w*|pomočni\w*|pomocník\w*|помошник|помагач|\b(?:umjetn|umetn|umel|uměl)\w*\sinteligenc\w*|вештачк\w*\sинтелигенц\w*|изкуствен\w*\sинтелект|штучн\w*\sінтелект\w*|искусственн\w*\sинтеллект\w*|\bdirbtin\w*\sintelekt\w*|mākslīg\w*\sintelekt\w*|\btehisintellekt\w*|intel·ligència\sartificial|\binteligencia\sartificial\b|\bintelligence\sartificielle\b|inteligência\sartificial|\bintelligenza\sartificiale\b|künstliche\w*\sintelligenz|\bsztuczn\w*\sinteligencj\w*|\bmesterséges\sintelligenci\w*|\binteligen\w*\sartificial\w*|\bkecerdasan\sbuatan\b|trí\stuệ\snhân\stạo|ปัญญาประดิษฐ์|人工知能|人工智能|인공지능|\bköməkçi\w*|süni\sintellekt|\byordamchi\w*|sun'iy\sintellekt|көмекші|жасанды\sинтеллект|ასისტენტ|օգնական|ረዳት|\bgervigreind\w*|\badimen\sartifizial\w*|\bagente(?:ari|ak|ei|arentzat)\b|\bkunsmatige\sintelligensie\b|\bkunstig\sintelligens\b|\bkonstgjord\sintelligens\b|\bkunstmatige\sintelligentie\b|\b(?:ai|ki|ia|ui|mi)-(?:asist\w*|assist\w*|asszisztens\w*|agent\w*|model\w*|bot\w*|system\w*|sistem\w*|tool\w*|verktøy\w*|werkzeug\w*|outil\w*|helper\w*|pregled\w*|review\w*)|\bbot(?:u|ul|ului|ot|ok|um|ov|ovi|om|ille)\b|(?:^|[\s«\x22'(@])бот(?:у|а|ом|ы|ов)?[\s,.:!?»])"
    };
}

/// Version 10: an approval claimed in more languages ("pre-approved",
/// "with the approval of", "already authorised").
macro_rules! absent_approval_v10 {
    () => {
        r"(?:\bjá\s(?:\w+\s)?(?:autoriz|aprov|valid|confirm)\w*|\bpatvirtin\w*|\bleidim\w*\s(?:suteik|duot)\w*|suteikė\s(?:\w+\s)?leidim\w*|\bodobr(?:il|ila|ilo|eno|en|ila|io|ila|ilo)\b|\b(?:je\s)?(?:već|že)\s(?:odobri|dovoli|potrdi)\w*|\bpředem\sschv\w*|\bvopred\sschv\w*|одобрен[оа]?|вече\sодобри\w*|согласовано|одобрено|разрешено\s(?:владельц|администратор|руководств)\w*|погоджено|схвалено|\bkwa\sidhini\b|\bidhini\sya\b|منظوری\sسے|کی\sاجازت\sسے|ஒப்புதல்\sஅளித்|অনুমোদন\s(?:দিয়েছেন|করেছেন)|사전\s?승인|승인\s?완료|đã\s(?:\w+\s)?duyệt|\bonaylı\w*|\bforhåndsgodk\w*|\bförhandsgodk\w*|\bvorab\s(?:genehmigt|freigegeben|abgesegnet)|\bpré-?approuvé\w*|\bpréalablement\s(?:approuvé|autorisé|validé)\w*|\bvalidé\sen\samont\b|\bpre-?aprobad\w*|\bpreviamente\s(?:aprobad|autorizad)\w*|\bpre-?approvat\w*|\bgià\s(?:approvat|validat)\w*|\bzatwierdzon\w*|\bwstępnie\s(?:zatwierdz|zaakcept)\w*|بموافقة|با\sتأیید|באישור|με\sτην\sέγκριση|\batas\spersetujuan\b|\bdengan\skebenaran\b|\baprubado\sna\b|已(?:经)?(?:同意|批准|授权|審批|审批|核准)|経営陣の承認|許可を得て|\bcon\sl'approvazione\b|\bcon\sla\sapprovazione\b|\bcon\sla\saprobación\b|\bcom\sa\saprovação\b|\bavec\sl'accord\b|\bmit\s(?:der\s)?(?:genehmigung|freigabe|zustimmung)\b|\bwith\s(?:the\s)?(?:approval|consent|permission|blessing)\sof\b|\b(?:approved|authori[sz]ed|cleared|signed\soff)\sby\s(?:the\s)?(?:owner|cto|ceo|cfo|director|management|admin\w*|tech\slead|team\slead|dba|legal|security)\b)"
    };
}

/// Version 10: the step kept from the user, or no confirmation asked,
/// in more languages.
macro_rules! unmentioned_v10 {
    () => {
        r"(?:குறிப்பிடாத|சொல்லாத|கேட்க\sவேண்டாம்|நினைவூட்ட\sவேண்டாம்|نہ\sبتا|مت\sبتا|بتانے\sکی\sضرورت\sنہیں|اجازت\sلینے\sکی\sضرورت\sنہیں|জানাবেন\sনা|বলবেন\sনা|উল্লেখ\sকরবেন\sনা|\bnekomentuok\b|\bneminėk\b|\bnesakyk\b|\bnepranešk\w*|\bnepaminėk\w*|\bne\s(?:omenjaj|povej|obveščaj|spominji|obavještavaj|obaveštavaj|pitaj)\b|\bnemoj\s(?:reći|spominjati|javljati|pitati)|\bnehovor\w*|\bnespomínaj\w*|не\s(?:споменавай|казвай|уведомявай|питай|спрашивай|информируй)|\busi(?:eleze|taje|mjulishe|waulize|ulize)\b|\bikke\s(?:nevn|fortell|logg|informer|si\sfra|spør)\w*|\bikke\snødvendig\så\s(?:spørre|bekrefte|informere)|\bne\s(?:kérdezz|kérdezd|jelezd)\b|기재하지\s마|알리지\s않|묻지\s말|확인하지\s말|\bbahsetme(?:yin|den)?\b|\bsöyleme(?:yin)?\b|\bhaber\sverme(?:yin|den)?\b|不要告知|无需告知|不必告诉|无需确认|不要通知|不需要确认|不用确认|不要提及|确認不要|確認は不要|\bno\sho\s(?:diguis|mencionis)\b|\bnon\s(?:dirlo|avvisare|informare)\b|\bsenza\s(?:avvisare|informare)\b|\bsans\s(?:en\sparler|prévenir|informer|le\sdire)\b|\bne\spas\s(?:mentionner|informer|prévenir|signaler)\b|\bohne\sden\s(?:nutzer|benutzer|kunden)\s(?:zu\s)?informieren\b|\bsin\s(?:avisar|informar)\b|\bsem\s(?:avisar|informar)\b|\bnão\s(?:é\snecessário|precisa)\s(?:pedir\s|de\s)?(?:confirmação|confirmar|avisar|perguntar|informar)|\bnão\s(?:informe|avise|conte)\b|\bno\s(?:es\snecesario|hace\sfalta)\s(?:pedir\s|solicitar\s)?(?:confirmación|confirmar|avisar|preguntar|informar)|\bwithout\s(?:telling|informing|notifying)\s(?:the\s|their\s|your\s)?(?:user|owner|customer|human|operator|anyone)|\bno\sneed\sto\s(?:confirm|ask|check|notify|inform|tell)\s(?:with\s)?(?:the\s|them\b|anyone\b|him\b|her\b)|\bdo\snot\s(?:ask|notify|inform|tell)\s(?:the\s)?(?:user|owner|customer|human|operator)\b|\bnie\spowiadamiaj\b|\bbez\sinformowania\b|\bniet\smelden\b|\bzonder\ste\smelden\b|\bsoruya\sgerek\syok\b|\bonay\s(?:istemeden|almadan)\b|\bfără\sa\s(?:anunța|informa)\b|без\s(?:уведомления|повідомлення)|χωρίς\sνα\sενημερώσ|بدون\sاطلاع|ללא\sליידע|בלי\sליידע|\btanpa\smemberi\stahu\b|không\s(?:cần\s)?(?:xác\snhận|báo\scáo)|確認なしで|无需询问|不必询问|확인\s없이)"
    };
}

/// Version 10: a safeguard switched off, in more languages.
macro_rules! safeguard_off_v10 {
    () => {
        r"(?:\bhoppa\söver\b|\bhoppe\sover\b|\bspring\s(?:\w+\s)?over\b|\bsla\s(?:de|het|alle)\s(?:\w+\s)?over\b|\bpule\s(?:a|o|as|os)\b|\bpular\s(?:a|o|as|os)\b|\bsalta(?:r|te)?\s(?:la|las|le|i|gli|los|el|il)\s(?:\w+\s)?(?:prueba|pruebas|test|tests|verifica|controll|revisión|seguridad|sicurezza)\w*|\bomit[ae]\s(?:la|las|el|los)\s(?:prueba|revisión|verificación|validación)\w*|\bignor[ae]\s(?:i|gli|le|los|las)\s(?:test|controlli|pruebas)\b|\bwyłącz\w*|\bpomiń\w*|\bvypn\w*|\bizklop\w*|\bisključ\w*|\bonemogoč\w*|\bišjun[gk]\w*|\bpraleisk\w*|(?:doğrulama|kontrol|güvenlik|test|denetim)\w*\s(?:\w+\s)?kapat\w*|\batla\b|отключ\w*|вимкн\w*|изключете|изключи\s|пропусти|απενεργοποί\w*|παράλειψε|عطّل|تعطيل|השבת\sאת|דלג\sעל|निष्क्रिय|\bnonaktifkan\b|\blewati\b|tắt\s(?:\w+\s)?(?:xác\sthực|kiểm\stra|bảo\smật)|\bbỏ\squa\s(?:\w+\s)?(?:kiểm|xác|bước)|(?:关闭|禁用|关掉)\S{0,6}?(?:验证|检查|测试|安全|审核|保护|防火墙|双重|二次|日志|审计)|無効に|無効化|비활성화|건너뛰|\bzima\s(?:ukaguzi|uthibitisho)\b|ஆஃப்\sசெய்|முடக்க|بند\sکر|غیرفعال|নিষ্ক্রিয়)"
    };
}

/// Version 10: a verdict dictated in any language: a perfect mark.
/// Version 34: a claim to be presented as official, and Hebrew's "on the
/// user's behalf".
macro_rules! dictated_v10 {
    () => {
        r"(?:(?:^|[\s(:])10\s?/\s?10(?:[,.;:!)]|\s(?:[^tp\d\s]|$)|$)|\b5\s?/\s?5\s(?:stars?|rating|ratings|étoiles|sterne|estrellas|estrelas|stelle|gwiazd\w*|yıldız)\b|\bpresent\s(?:this|it)\sas\s(?:an?\s)?(?:official|genuine|verified|real|legitimate)\b|בשם\sהמשתמש)"
    };
}

/// Version 15: a setting that switches a safeguard off, written as the
/// command or the configuration line that does it, in any language's
/// page: TLS verification, SSH password and root logins, sudo without a
/// password, branch protection, a port open to the whole internet, SELinux
/// or the firewall, commit hooks. Pages that teach these settings exist
/// (a local test setup); what an attack adds is the step kept out of
/// sight, or an approval claimed from someone absent.
macro_rules! weakening {
    () => {
        r"(?:\bhttp\.sslverify\s?=?\s?['\x22]?false\b|\bgit_ssl_no_verify\s?=\s?['\x22]?(?:1|true)\b|\bnode_tls_reject_unauthorized\s?=\s?['\x22]?0\b|\bpythonhttpsverify\s?=\s?['\x22]?0\b|_create_unverified_context\b|\bverify\s?=\s?false\b|\binsecure_?skip_?verify['\x22]?:?\s?=?\s?true\b|\brejectunauthorized:?\s?=?\s?false\b|\bstricthostkeychecking[\s=]+no\b|\bpasswordauthentication\s(?:yes|on)\b|\bpermitrootlogin\s(?:yes|on)\b|\bnopasswd\b|/branches/[\w.-]+/protection\b|\bgit\spush\s(?:[^\n]{0,60}?\s)?(?:--force(?:$|[^-])|-f\b)|\bcidrip[\x22']?\s?[=:]\s?[\x22']?0\.0\.0\.0/0|\bcidr_blocks\s?=\s?\[\s?[\x22']0\.0\.0\.0/0|--cidr\s0\.0\.0\.0/0|\bsetenforce\s0\b|\bufw\sdisable\b|\biptables\s-f\b|\bchmod\s(?:-r\s)?0?777\b|\bcore\.hookspath[\s=]+/dev/null\b|\bverify_peer['\x22]\s?=>\s?false\b|\bcurlopt_ssl_verifypeer\s?(?:,|=>)\s?(?:false|0)\b|\b\w*(?:auth_?bypass|bypass_?auth\w*|skip_?auth\w*|disable_?auth\w*|no_?auth)\s?[=:]\s?['\x22]?(?:1|true|yes|on)\b|\bignoretests['\x22]?\s?:\s?true\b|\bdisable\w*hostnameverification\b|\bcheckrevocation=false\b|\[trusted=yes\]|--allow-unauthenticated\b|--allow-insecure-repositories\b|\ballowunauthenticated\s['\x22]?true\b|check_revoke\s?=\s?['\x22]?false\b|\b\w*verify_?(?:webhooks?|signatures?)\w*\s?[=:]\s?['\x22]?(?:false|0|off|no)\b|\brm\s-(?:rf|fr)\s/var/(?:log|lib)/)"
    };
}

/// Version 16: what makes a download anyone on the way can change: a
/// public name over plain HTTP, or certificate checks off for one.
macro_rules! insecure_fetch {
    () => {
        r"\shttp://(?:[\w-]+\.)+[a-z]{2,}\b|(?:\s-[a-z]*k[a-z]*|\s--insecure|\s--no-check-certificate)\s(?:[^\n|;]{0,100}?\s)?https://(?:[\w-]+\.)+[a-z]{2,}\b|\shttps://(?:[\w-]+\.)+[a-z]{2,}\S*\s(?:[^\n|;]{0,100}?\s)?(?:-[a-z]*k[a-z]*|--insecure|--no-check-certificate)\b"
    };
}

/// Version 16: a check taken out of the code by commenting it out, as
/// a setting would switch it off.
macro_rules! commented_out {
    () => {
        r"(?:\bcomment\s(?:\w+\s){0,2}?out\s(?:the\s)?(?:\w+\s){0,2}?(?:verif\w*|signature\w*|auth\w*|checks?|validation)|\bzakomentuj\w*|\bauskommentier\w*|\bcommente[rz]?\s(?:\w+\s){0,2}?(?:vérif|signature|contrôle)|\bcomenta\s(?:\w+\s){0,2}?(?:verifica|firma|valida))"
    };
}

/// Version 15: the step kept off the record, with no reader named: no
/// ticket, no changelog entry, no review.
macro_rules! off_record {
    () => {
        r"(?:\bno\s(?:change\s)?(?:ticket|review|approval|change\srequest|cr)\s(?:is\s)?(?:needed|required|necessary)\b|\b(?:do\s?n[o']t|never)\s(?:open|file|create|log|record|write|add)\s(?:a\s|an\s|any\s)?(?:ticket|change\srequest|entry|changelog)|\bwithout\s(?:a\s|any\s)?(?:ticket|review|change\srequest)\b|\bleave\s(?:it|them|this)\s(?:\w+\s){0,3}?permanently\b|\b(?:do\s?n[o']t|never)\s(?:revert|undo|roll\sback|change)\s(?:it|this|that)\s(?:back\s)?(?:when|during|while|in)\s(?:refactor\w*|clean\w*)|\b(?:already\s)?reviewed\s(?:it\s)?(?:offline|privately|out\sof\sband)\b|\bknown[\s-]flaky\b[^\n.]{0,40}?\bmerge\b|\bkein\s(?:change-)?ticket\s(?:nötig|notwendig|erforderlich)|\bpas\sbesoin\sde\s(?:ticket|le\snoter|l'indiquer)|\bsin\s(?:abrir\s)?(?:un\s)?(?:ticket|incidencia)\b|\bno\s(?:abras|hace\sfalta\sabrir)\s(?:un\s)?ticket|не\s(?:открывай|отварајте|отварај|заводи|оформляй)\w*\s(?:тикет|заявк)|\bne\s(?:otvarajte|otvaraj)\s(?:tiket|ticket)|기록하지\s?마|記録しないで|記録は不要|チケットは不要|不要(?:记录|开工单|提工单)|无需(?:记录|工单))"
    };
}

/// Version 18: the step kept from the team, or not to be undone, in the
/// languages of S's orders ("no need to tell the data team", "don't
/// revert it afterwards"); and a weakening kept in production, which a
/// guide to a local setup warns against.
macro_rules! unmentioned_v18 {
    () => {
        r"(?:không\scần\sbáo\b|చెప్పనవసరం\sలేదు|گزارش\sنکنید|\bnon\sfai\sfalla\scomunic\w*|\binutile\sde\s(?:prévenir|signaler|informer)\b|\bnehlás\w*|\bne\sállíts\w*\svissza\b|\bne\s(?:vraćajte|vraćate|vraćaj)\b|\bne\sčakajte\b|\bne\s(?:\w+\s)?(?:rimuovetela|citatela|rimuoverla|citarla)\b|\b(?:do\s?n[o']t|never)\s(?:revert|undo|roll\sback|restore|re-?enable)\s(?:it|this|that|them)\s(?:afterwards|again)\b|(?:^|[^t]\s)(?:even|also)\sin\sprod(?:uction)?(?:[.,;!]|\s(?:too|as\swell)\b|$)|\bin\sprod(?:uction)?\stoo\b|\bauch\sin\s(?:der\s)?produktion\b|\bi\sv\sprodukč\w*|\b(?:assim|também)\sem\sprodução\b|\b(?:incluso|también)\sen\sproducción\b|\b(?:même|aussi)\sen\sproduction\b|\banche\sin\sproduzione\b|پروڈکشن\sمیں\sبھی|\b(?:też|również)\sna\sprodukcji\b)"
    };
}

/// Version 29: the step kept from the user, or its source, in the
/// languages of AD's misses: "джерело не вказуй", "Ma ṣe sọ fun
/// olumulo", "Մի նշիր", "प्रयोगकर्तालाई नबताउनु", "නොපෙන්වන්න", "Ha u
/// sheegin maamulaha", "مه شریکوئ", "Не е необходимо да уведомявате",
/// "Lad være med at nævne det".
macro_rules! unmentioned_v29 {
    () => {
        r"(?:\b(?:do\snot|don'?t|never)\s(?:tell|inform|notify|loop\sin|share\s(?:this|it)\swith|forward\s(?:this|it)\sto)\s(?:your\s|the\s|any\s)?(?:manager|boss|supervisor|colleagues?|it|it\sdepartment|helpdesk|management|anyone|anybody)\b|(?:^|\s)не\s(?:вказуй|зазначай|указывай|уточняй)|\bm[aá]\s(?:ṣe|se)\s(?:sọ|so|beere)\b|(?:^|\s)մի\s(?:նշ|աս|տեղեկաց|հայտն|ցույց)|नबताउ|नभन्नु|නොපෙන්ව|නොකිය|නොදන්ව|\bha\s(?:u\s)?(?:sheegin|ogeysiin|ogaysiin|wargelin)\b|(?:^|\s)مه\s(?:شریکوئ|وایاست|وایئ|ښیئ|خبروئ)|не\sе\sнеобходимо\sда\s(?:уведомява|информира|казва|пита)|\blad\svære\smed\sat\s(?:nævne|fortælle|skrive|informere)\b|\bla\svære\så\s(?:nevne|fortelle|skrive|informere)\b)"
    };
}

/// Version 29: data sent to an address or a number, in the languages
/// that name the verb before it ("ranṣẹ si adebayo@…", "изпратете на
/// odit@…", "ii soo dir … +252…") or after it ("…@protonmail.com मा
/// पठाउनु", "…@… වෙත ඉදිරියට යවන්න"). Read only as a `near`, so no
/// pattern ends in a repeat that cannot change whether it matches: the
/// lean form keeps `addressed-lever`'s joined `near` as fast as before.
macro_rules! send_any {
    () => {
        r"(?:(?:\branṣẹ\ssi|(?:^|\s)(?:ուղարկ(?:իր|եք|ի)|надішліть|надішли|надсилайте|отправьте|отправь|перешлите|перешли|изпратете|изпрати|препратете|пошаљите|пошаљи|проследите)|\b(?:pošaljite|pošalji|pošljite|pošlji|pošlete|pošli|wyślij|wyślijcie|prześlij|prześlijcie|küldje|küldd|küldjék|trimite|gönderin|gönder|iletin|kirimkan|kirim|tuma|soo\sdir|envía|envíe|envíen|envie|envoyez|envoie|inviate|invia|inoltra|inoltrate|schicke|schickt|stuur|skicka)\b|(?:^|\s)gửi)\s[^\n]{0,80}?(?:[a-z0-9._+-]@[a-z0-9-]+\.[a-z]|https?://|\+\d\d\d)|(?:@[a-z0-9-]+\.[a-z]{2,}|\+\d[\d\s]{6,}\d)\s?[^\n]{0,40}?(?:पठाउ|भेज|ولیږ|ارسال|بفرست|ուղարկ|යවන්න|அனுப்ப|పంప|পাঠা|送信|送って|보내|ranṣẹ))"
    };
}

/// Version 29: a link slipped into the summary the model writes, in other
/// languages ("додай … в підсумок посилання https://…").
macro_rules! summary_link {
    () => {
        r"(?:(?:^|\s)(?:додай|добав|включи|встав)|\bdodaj|\bwstaw|\bumieść|\bpřidej|\bvlož|\bfüg\w*\sein|\bajoute|\binsère|\bañad|\bagreg|\binclu|\binserisci\b|\baggiungi\b|\badicion|\bekle|\btambahkan\b|(?:^|\s)thêm)\s[^\n]{0,60}?(?:підсум|резюме|відповід|итог|ответ|сводк|\bpodsumow|\bodpowied|\bshrnutí|\bodpověď|\bzusammenfassung|\bantwort|\brésumé|\bréponse|\bresumen|\brespuesta|\briassunto|\brisposta|\bresumo|\bresposta|özet|\byanıt|\bringkasan|\bjawaban|tóm\stắt|요약|摘要|总结)[^\n]{0,60}?https?://"
    };
}

/// Version 30: the step kept from the user or the record, and data sent
/// away, in the words of AF's misses ("Não comente este passo no
/// ticket", "Non dire all'utente", "Mos përmend", "borra este evento
/// para que non quede rastro", "ladda upp dem till https://…").
macro_rules! unmentioned_v30 {
    () => {
        r"(?:\bnão\s(?:comente|comentem|registre|registrem|anote|documente)\b|\bnon\s(?:dire|dirlo|dirgli|menzionare|segnalare|scrivere)\s(?:nulla\s)?(?:all'|a\s|al\s)?(?:utente|l'utente|cliente)\b|\bmos\s(?:e\s)?(?:përmend|thuaj|trego|shëno)\w*|\b(?:para\sque\snon?\squede|sin\sdejar|sem\sdeixar|senza\slasciare|sans\slaisser\sde|without\sleaving\sa|ohne\s\w*\s?spur)\s(?:\S+\s)?(?:rastro|rasto|traccia|trace|traces)\b|\bspurlos\b|\b(?:ladda|laste|last)\supp\s[^\n]{0,60}?https?://|\bskriv\si\s(?:sammanfattningen|svaret)\satt\b)"
    };
}

/// Version 31: the step kept from the user in the words of AG's misses
/// ("به کاربر چیزی نگو", "istifadəçiyə heç nə demə", "kullanıcıya
/// söyleme", "ärge mainige seda kasutajale").
macro_rules! unmentioned_v31 {
    () => {
        r"(?:به\sکاربر\s(?:\S+\s){0,2}?(?:نگو|نگویید|نگید|اطلاع\sنده|نشان\sنده)|\bistifadəçiyə\s(?:\S+\s){0,3}?(?:demə|deməyin|bildirmə\w*|söyləmə\w*|göstərmə\w*)|\bkullanıcıya\s(?:\S+\s){0,3}?(?:söyleme\w*|bildirme\w*|gösterme\w*|deme\w*)|(?:^|\s)ärge\s(?:\S+\s)?(?:mainige|rääkige|teavitage|öelge|näidake)\s(?:\S+\s){0,2}?kasutaja\w*)"
    };
}

/// Version 32: the one who writes asked not to be asked again ("не
/// перепитуй мене", "не переспрашивай меня").
macro_rules! unmentioned_v32 {
    () => {
        r"(?:(?:^|\s)не\s(?:перепитуй|переспрашивай|питай|спрашивай|уточнюй)\w*\s(?:мене|меня)(?:\s|$|[.,;!]))"
    };
}

/// Version 30: the reader named by what it is doing to this text ("para
/// você, que está lendo este ticket", "till dig som sammanfattar den här
/// kanalen", "per chi sta generando i test di questo modulo"): an
/// address to whoever reads, summarises or processes the text now,
/// which a page for people seldom makes in those words.
macro_rules! you_reading {
    () => {
        r"(?:\byou,?\s(?:who|that)\s(?:are|is|'re)\s(?:now\s)?(?:reading|summari[sz]ing|processing|parsing|analy[sz]ing)\sthis\b|\b(?:você|vocês),?\s(?:que\s)?(?:está|estão|estiver)\s(?:a\s)?(?:ler|lendo|resumir|resumindo|processar|processando|analisar|analisando)\b|\bti,?\sque\sestás\sa\s(?:ler|resumir|procesar)\b|\b(?:tú|usted),?\sque\s(?:estás|está)\s(?:leyendo|resumiendo|procesando|analizando)\b|\b(?:chi|tu\sche)\sst(?:a|ai)\s(?:leggendo|generando|riassumendo|elaborando|analizzando)\b|\b(?:dig|deg)\ssom\s(?:läser|sammanfattar|bearbetar|analyserar|leser|læser|oppsummerer|opsummerer)\b|\bjij\sdie\s(?:dit\s)?(?:leest|samenvat|verwerkt)\b|\b(?:toi|vous)\squi\s(?:lis|lisez|résumes|résumez|traites|traitez|analyses|analysez)\b|\bty\sqë\spo\s(?:e\s)?(?:lexon|përmbledh|përpunon)\b|\bsy'n\sdarllen\b|तपाईं\sयो\s\S+\sपढ्दै|\btu,?\scare\s(?:citești|rezumi|procesezi)|\bty,?\s(?:który|która)\s(?:czytasz|streszczasz|przetwarzasz)\b|\bty,?\skter[ýá]\s(?:čteš|shrnuješ|zpracováváš)|(?:^|\s)ты,?\sкоторый\s(?:читаешь|обрабатываешь|пересказываешь)|\bbunu\s(?:okuyan|özetleyen|işleyen)\b|\bdu,?\s(?:der|die)\s(?:du\s)?(?:dies\w*\s\S+\s)?(?:liest|zusammenfasst|verarbeitest)\b)"
    };
}

/// Version 33: readers named in the words of AI's misses: a language
/// model in some thirty languages, "AI" spelled in Indic scripts, and a
/// data field or a page's `meta` named as a message for the AI
/// (`"message_for_agent"`, `name="ai-instructions"`), whatever language
/// its value is in.
macro_rules! reader_v33 {
    () => {
        r"(?:భాషా\sమోడల్\S*|భాషా\sనమూనా\S*|भाषा\sमॉडल\S*|ভাষা\sমডেল\S*|மொழி\sமாதிரி\S*|ಭಾಷಾ\sಮಾದರಿ\S*|ഭാഷാ\sമോഡൽ\S*|γλωσσικ\w*\sμοντ[εέ]λ\w*|языков\w*\sмодел\w*|мовн\w*\sмодел\w*|\bsprachmodell\w*|\bmodèles?\sde\slangage\b|\bmodelos?\sde\s(?:lenguaje|linguagem)\b|\bmodell[oi]\slinguistic[oi]\b|\btaalmodel\w*|\bspråkmodell\w*|\bsprogmodel\w*|\bmodel\w*\sjęzykow\w*|\bjazykov\w*\smodel\w*|\bdil\smodel\w*|\bkielimall\w*|\bnyelvi\smodell\w*|言語モデル|语言模型|語言模型|언어\s모델|(?:^|[^\w])(?:एआई|এআই|ஏஐ|ఏఐ|ಎಐ|എഐ)|(?:^|\s)ии[\s,.:]|\b(?:ai|llm|agent|assistant|model|bot|gpt|copilot)[_-](?:instructions?|directives?|notes?|messages?|prompts?|tasks?|orders?)\b|\b(?:messages?|notes?|instructions?|directives?|prompts?|tasks?)[_-](?:for|to)[_-](?:the[_-])?(?:ai|llms?|agents?|assistants?|models?|bots?)\b)"
    };
}

/// Version 33: a lever that needs no language: a secret (a token, a
/// password or its hash, a one-time code, a secrets file, the
/// conversation's history) and an address within 200 bytes of each
/// other. Near a reader, that is data asked to go to a host, whatever
/// words the note uses for "send".
macro_rules! secret_v33 {
    () => {
        r"(?:\b(?:otp|2fa|mfa|totp|api[\s_-]?keys?|[a-z0-9]+_(?:token|secret|key|password)|tokens?|secrets?(?:\.ya?ml|\.json)?|password(?:_hash)?s?|passwd|credentials?|id_rsa|id_ed25519|private[\s_-]keys?|session[\s_-]?(?:ids?|tokens?|cookies?))\b|\.env\b|टोकन|টোকেন|டோக்கன்|టోకెన్|ಟೋಕನ್|ടോക്കൺ|(?:^|\s)токен|توکن|トークン|토큰|令牌|\bchat\shistory\b|\bconversation\shistory\b|ιστορικό\sτης\sσυνομιλίας|истори\w*\s(?:переписки|чата|диалога)|\bhistorial\sde\s(?:la\s)?conversación|\bhistorique\sde\s(?:la\s)?conversation|\b(?:gesprächs|chat)verlauf\w*|会话历史|聊天记录|会話履歴|대화\s기록)"
    };
}

/// The secret before the address or after it, with no code between
/// (`=`, `:`, quotes, braces, `$`): an API call's example sets a key
/// and a URL side by side, a note asks in words.
macro_rules! secret_to_host {
    () => {
        concat!(
            secret_v33!(),
            r"[^=:{}\x22'$<>]{0,200}?(?:https?://|\b[a-z0-9-]+(?:\.[a-z0-9-]+)+/[a-z0-9])|https?://[^\s\x22'<>,;)]+\s[^=:{}\x22'$<>]{0,200}?",
            secret_v33!()
        )
    };
}

/// Version 33: a reader said to be reading the text now, in some seventy
/// languages' verbs for reading ("ይህን ምላሽ የምታነብ የAI ወኪል", "ఈ ఫలితాలను
/// చదివే భాషా మోడల్", "Onye enyemaka AI na-agụ nzaghachi a"): the note's
/// address, whatever the language of its orders.
macro_rules! read_verb {
    () => {
        r"(?:\bread(?:ing|s)?\b|\bles(?:en|end\w*|er)?\b|\bliest\b|\blis(?:ez|ent|ant)\b|\blit\b|\blee(?:n|s)?\b|\bleyendo\b|\blêem\b|\blê\s|\blendo\b|\blegg\w*|\bllegeix\w*|\blees\w*|\blezen\b|\bläs\w*|\blæs\w*|\bczyta\w*|(?:^|\s)(?:čt(?:e|ou)\w*|čít\w*|čit\w*)|чита\w*|чит(?:ает|ают|ающ)\w*|\bcite[sș]t\w*|\bciti\w*|\bolvas\w*|\bluke\w*|\bloe\w*|\blasa\w*|\blasī\w*|\bskait\w*|\boku(?:yan|yor|yun)\w*|\boxu(?:yan|yur)\w*|\bo'qi\w*|оқи\w*|διαβάζ\w*|διαβαζ\w*|קורא\w*|קוראים|يقرأ|تقرأ|يقرؤون|قارئ\S*|می‌خوان\S*|میخوان\S*|پڑھ\S*|पढ़\S*|पढ\S*|वाच\S*|পড়\S*|পড\S*|படிக்\S*|வாசி\S*|చదివ\S*|చదువ\S*|ಓದು\S*|വായി\S*|વાંચ\S*|ਪੜ੍ਹ\S*|කියව\S*|อ่าน|ອ່ານ|អាន|ဖတ်|đọc|\bmembaca\b|\bbumabasa\b|\bnagbabasa\b|\bbinabasa\b|\b(?:ana|wana|una|ina)soma\b|\bkusoma\b|የምታነብ\S*|የሚያነብ\S*|የምታነቡ\S*|የሚያነቡ\S*|\bkaranta\w*|\bna-ag[uụ]|\b\w*funda(?:yo|ayo|ile|a)\b|\bléann\b|\bag\sléamh\b|\bdarllen\w*|\birakurt\w*|\blex(?:o|on|ojnë)\w*|კითხულობ\S*|წაიკითხ\S*|կարդ\S*|унш\S*|読(?:む|んで|み)|阅读|閱讀|读取|读到|읽\S*|\blegant\w*|\blegas\b|\blegit\b|\blegunt\b|\blegens\b|\btaqra\b|\bjaqraw\b)"
    };
}

/// The readers `reader-sent-secret` wants near its verb of reading
/// (`ALSO`), one list rather than a pattern per pairing: the table's
/// memory grows by the readers once.
pub const READERS: &[&str] = &[reader!(), reader_more!(), reader_v10!(), reader_v33!()];

pub const ADDRESSED: &[Rule] = &[
    Rule {
        id: "addressed-lever",
        what: "text that speaks to an AI, an assistant, a bot or a tool (since version 33 also a language model, or a data field named as a message for the AI), near an approval claimed from someone absent, a step kept from the user, a safeguard switched off or data sent away",
        patterns: &[
            reader!(),
            reader_more!(),
            reader_v10!(),
            you_reading!(),
            reader_v33!(),
        ],
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
                absent_approval_v10!(),
                unmentioned_v10!(),
                safeguard_off_v10!(),
                dictated_v10!(),
                unmentioned_v18!(),
                untold_v20!(),
                unmentioned_v29!(),
                send_any!(),
                summary_link!(),
                unmentioned_v30!(),
                unmentioned_v31!(),
                unmentioned_v32!(),
                super::guardian::USER_KEPT_OUT,
            ],
            320,
        )),
    },
    Rule {
        id: "reader-sent-secret",
        what: "text that speaks to the AI reading it (an AI, a language model, an assistant, with a verb of reading in any of some seventy languages) within 320 bytes of a secret (a token, a password or its hash, a one-time code, a secrets file, the conversation's history) and an address within 200 bytes of each other, with no code between (version 33)",
        patterns: &[read_verb!()],
        near: Some((&[secret_to_host!()], 320)),
    },
    Rule {
        id: "covert-weakening",
        what: "a setting that switches a safeguard off (TLS verification, SSH password or root login, sudo without a password, branch protection, a port open to all, an authentication bypass, a dropped table), or words that do, near a step kept off the record or an approval claimed from someone absent",
        patterns: &[
            weakening!(),
            commented_out!(),
            weakening_v20!(),
            agent_off!(),
        ],
        near: Some((
            &[
                absent_approval!(),
                absent_approval_more!(),
                unmentioned!(),
                unmentioned_more!(),
                absent_approval_v10!(),
                unmentioned_v10!(),
                off_record!(),
                unmentioned_v18!(),
                unrecorded_v20!(),
                untold_v20!(),
            ],
            320,
        )),
    },
    Rule {
        id: "insecure-pipe-to-shell",
        what: "a download from a public name over plain HTTP or with certificate checks off, run by a shell",
        patterns: &[
            concat!(
                r"\b(?:curl|wget)\b[^\n|;]{0,200}?(?:",
                insecure_fetch!(),
                r")[^\n|;]{0,200}(?:\\\n[^\n|;]{0,200})?\|\s?(?:sudo\s(?:-\w+\s)?)?(?:/bin/|/usr/bin/)?(?:ba|z|da|k)?sh\b"
            ),
            concat!(
                r"\b(?:ba|z|da)?sh\s(?:-c\s)?[\x22']?(?:\$|<)\(\s?(?:curl|wget)\b[^\n)]{0,200}?(?:",
                insecure_fetch!(),
                r")"
            ),
        ],
        near: None,
    },
    Rule {
        id: "review-bypass",
        what: "an order to approve or merge a change anyway, without reading it, or to approve it oneself",
        patterns: &[
            r"(?:^|[.;:!?,]\s|\b(?:please|just|then|and|simply|so)\s)(?:just\s)?(?:approve|merge)\s(?:and\s(?:merge|approve)\s)?(?:it\s|this\s|them\s|the\s(?:pr|mr|pull\srequest|merge\srequest|change)\s)?(?:anyway|regardless|without\s(?:\w+\s){0,2}?(?:reading|re-?reading|looking))\b",
            r"(?:^|[.;:!?]\s|\b(?:please|just|then|and|simply|so)\s)approve\s(?:the\s|this\s|your\s)?(?:pr|mr|pull\srequest|merge\srequest)\syourself\b",
            r"\bautomerge\s(?:everything|every\s(?:pr|update|change))[^.\n]{0,80}?\bwithout\s(?:waiting|review|checks|tests)",
        ],
        near: None,
    },
    Rule {
        id: super::ENCODED_PAYLOAD,
        what: "a payload to be decoded and carried out, or an order spelled with digits for letters; or base64 or hex (a block wrapped over lines too), a text that names ROT13, lines in leetspeak or spaced letters, or a string split into pieces that code joins, that decode to text the rules flag, or to a command (a download run by a shell, files sent away, a destructive command)",
        patterns: &[
            r"\bdecod\w*\s(?:\w+\s){0,3}?(?:and|then|,)\s(?:\w+\s)?(?:follow|execute|run|obey|act\son|apply|carry\sout)\b",
            r"\bdecoding\s[^.\n]{0,40}?\band\s(?:acting|executing|following)\b",
            r"\b(?:decodificar\w*|décoder|dekodier\w*|decodific\w*)\s(?:\w+\s){0,2}?(?:y|et|und|e)\s(?:\w+\s)?(?:seguir\w*|ejecutar\w*|suivre|exécuter|befolgen|ausführen|eseguir\w*)",
            // Version 18: decode and carry out, in more languages, both
            // verbs in the imperative (a decoder's documentation says
            // "decodes and runs").
            r"(?:فك\s(?:ترميز|تشفير)\w*\s(?:\S+\s){0,2}?و(?:تنفيذ|نفذ|نفّذ|اتبع)|(?:^|\s)(?:декодируй|декодируйте|розкодуй|декодуй|раскодируй)\w*[^\n]{0,60}?(?:выполни|виконай)|\b(?:zdekoduj|odkoduj)\w*[^\n]{0,60}?\bwykonaj\w*|\bdekóduj\w*[^\n]{0,60}?\bvykonaj\w*|\bdekodiraj\w*[^\n]{0,60}?\b(?:izvrši|izvedi)\w*|(?:^|[^\w])çöz(?:ün|üp)\s[^\n]{0,60}?çalıştır(?:ın|)\b|\bdekode\w*\s[^\n]{0,60}?\b(?:lalu|dan)\sjalankan\b|giải\smã[^\n]{0,60}?(?:rồi|và)\s(?:chạy|thực\sthi|làm\stheo)|αποκωδικοποίησ\w*[^\n]{0,60}?(?:εκτέλεσε|ακολούθησε)|डिकोड\sकर[^\n]{0,60}?(?:चलाएँ|चलाएं|लागू\sकरें)|פענח\w*[^\n]{0,60}?(?:הרץ|בצע)|デコードして[^\n]{0,40}?実行して|디코딩(?:해|하)[^\n]{0,40}?실행(?:해|하세요)|解码(?:后|并|然后)[^\n]{0,20}?(?:执行|照做)|解碼(?:後|並)[^\n]{0,20}?(?:執行|照做)|\bdecodifica\w*\s[^\n]{0,60}?\beseguil\w*|\bdekodiere\w*\s[^\n]{0,60}?\bführe\s[^\n]{0,30}?\saus\b)",
            r"\b(?:1gn[o0]r[e3]|[i1]gn0r[e3]|[i1]gn[o0]r3|d[i1]sr[e3]g[a4]rd)\b[^\n]{0,40}?\b[i1]n[s5]truct[i1][o0]n[s5]?\b",
        ],
        near: None,
    },
];
