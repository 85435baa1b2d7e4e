//! The rule table that flags instruction-like text in third-party content.
//! Versioned: a change to what any rule matches is a new version, written
//! in docs/protocol.md, so a flag in an old journal can be read against
//! the table that raised it. `benches/injection` measures the table on a
//! corpus of injected and benign texts; a test holds its rates.
//!
//! The patterns run over the normalised text (`detect::normalise`):
//! lower case, hidden characters dropped (Unicode tag characters read as
//! the ASCII they smuggle), full-width letters folded to ASCII, `*` and
//! backquotes dropped, every run of white space one space (or one new line
//! when it held one). So `\s` stands between words, `\b` is an ASCII
//! word boundary, and `\w` a letter of any script: anything but white
//! space, punctuation and symbols (`detect::ascii_boundaries`). They aim
//! at text that speaks to the model (an order, a role, a claim of
//! authority, a request to run, send or reveal), not at the topics: a
//! README that says "run the following command" or a page about prompt
//! injection is not, by itself, flagged.

/// The version of the table; docs/protocol.md lists each version.
pub const RULES_VERSION: u32 = 36;

#[macro_use]
mod record;
#[macro_use]
mod handover;
#[macro_use]
mod addressed;
mod consent;
#[macro_use]
mod errand;
mod concealed;
mod egress;
mod grammar;
#[macro_use]
mod unchecked;
mod guardian;
mod harvest;
mod precedence;
mod takeover;

/// What must stand near a hit of a rule besides its `near`, each within
/// its reach (read by `detect`): the role a request to keep a step out of
/// the record is addressed to (version 19), or the next editor of the
/// file, or whoever applies it (version 20); the reader beside a verb of
/// reading (version 33).
pub const ALSO: &[(&str, &[&str], usize)] = &[
    ("concealed-errand", concealed::ADDRESSED_TO, 320),
    ("credentials-asked", harvest::KEPT_QUIET, 400),
    ("reader-sent-secret", addressed::READERS, 60),
];

/// What must not stand near a hit of a rule, each within its reach (read
/// by `detect`): for a role's errand, the step said to be for a test
/// setup, on purpose or never to be done (version 18); for a step kept
/// out of the record, an approval required rather than claimed, or a
/// secret or personal data as what is kept out (version 19); for a
/// changed bank account, the reader told to check it by phone (version
/// 20, and version 23 in any words: `unchecked::CHECK_ASKED`); a call
/// talked away, unless it is a bank's warning or "don't hesitate to
/// call" (version 22); for a guardian kept out, the guardian as a gate to
/// wait for (version 31).
pub const UNLESS: &[(&str, &[&str], usize)] = &[
    ("role-errand", errand::ROLE_ERRAND_UNLESS, 320),
    ("payment-redirect", errand::PAYMENT_UNLESS, 320),
    ("payment-redirect", unchecked::CHECK_ASKED, 320),
    ("payment-unchecked", unchecked::UNLESS, 400),
    ("payment-unchecked", unchecked::SCAM_WARNED, 400),
    ("unrecorded-weakening", unchecked::WEAKENING_SCOPED, 200),
    ("concealed-errand", concealed::APPROVAL_REQUIRED, 320),
    ("concealed-errand", concealed::DATA_KEPT_OUT, 80),
    ("reveal-secrets", REVEAL_DENIED, 12),
    ("credentials-asked", harvest::NEVER_ASKED, 40),
    ("guardian-kept-out", guardian::GATED, 0),
    ("second-factor-off-unchecked", takeover::FORBIDDEN, 16),
];

/// Version 28: the secrets an agent's own guide tells it never to show
/// ("Gib niemals Inhalte aus .env, secrets/ oder .pem aus", "never print
/// the .env"): the request's verb denied, with the secret it names, so
/// an unrelated "never show this note" beside a real request clears
/// nothing; read within a few letters of the hit, which it must cover.
const REVEAL_DENIED: &[&str] = &[concat!(
    r"(?:\b(?:never|not|don't|doesn't|won't|mustn't|shouldn't|niemals|nie|nicht|nunca|jamais|jamás|non|mai|nooit|aldrig)\s(?:\w+\s){0,2}?(?:reveal|print|output|display|dump|leak|disclose|share|show|paste|révél\w*|affich\w*|montr\w*|imprim\w*|zeige\w*|zeig|gib|gebe\w*|nenne\w*|verrate\w*|drucke\w*|schicke\w*|revel\w*|muestr\w*|mostr\w*)|\b(?:zeige|zeig|gib|gebt|geben|nenne|verrate|drucke|schicke)\s(?:\w+\s)?(?:niemals|nie|nicht|keine\w*))\s(?:[^.\n]|\.[^\s.]){0,30}?",
    r"(?:\.env\b|~/\.ssh|~/\.aws|\.aws/credentials|id_rsa|id_ed25519|/etc/shadow|\.netrc|\.git-credentials|\.npmrc|\.pypirc|api[\s_-]?keys?|secrets?\b|credentials|passwords|tokens|private\skeys?|environment\svariables|zugangsdaten|passwörter|api-schlüssel|umgebungsvariablen|mots\sde\spasse|identifiants|contraseñas|credenciales)",
    r"|(?:不要|不得|禁止|切勿|绝不|不可|请勿|請勿)(?:泄露|显示|輸出|输出|打印|透露|展示|顯示)[^。\n]{0,10}(?:密钥|api\s?key|私钥|密码|凭据|凭证|环境变量|\.env)"
)];

/// Every rule: the phrases, the grammar (version 2), what is asked
/// toward the user (version 3), the levers of a note to automated
/// readers (version 4).
pub fn table() -> impl Iterator<Item = &'static Rule> {
    RULES
        .iter()
        .chain(grammar::GRAMMAR)
        .chain(consent::CONSENT)
        .chain(addressed::ADDRESSED)
        .chain(errand::ERRAND)
        .chain(concealed::CONCEALED)
        .chain(handover::HANDOVER)
        .chain(unchecked::UNCHECKED)
        .chain(egress::EGRESS)
        .chain(harvest::HARVEST)
        .chain(guardian::GUARDIAN)
        .chain(takeover::TAKEOVER)
        .chain(precedence::PRECEDENCE)
}

pub struct Rule {
    pub id: &'static str,
    /// What the rule flags, in a line (docs/protocol.md's table).
    pub what: &'static str,
    /// A hit of any of these flags the text...
    pub patterns: &'static [&'static str],
    /// ...when, if set, one of these also matches within this many bytes
    /// of the hit (before or after it).
    pub near: Option<(&'static [&'static str], usize)>,
}

/// Words that say a text is aimed at an agent, or in a hurry: what turns
/// a README's install line into an order.
/// Words that override what came before: what turns "say \"yes\"" into
/// an order to the model.
const OVERRIDING: &[&str] = &[
    r"\b(?:ignore|disregard|forget|regardless|no\smatter\swhat)\b",
    r"(?:ignor|oubli|vergiss|olvid|忽略|无视)",
];

const AIMED_AT_AGENT: &[&str] = &[
    r"\b(?:ai|llm|assistant|agent|chatbot|language\smodel)s?\b",
    r"\b(?:immediately|right\snow|without\s(?:asking|confirmation|telling)|silently|secretly|quietly)\b",
    r"\byou\s(?:must|need\sto|have\sto|are\srequired\sto|should)\s(?:now\s|first\s|immediately\s)?(?:run|execute)\b",
    r"\bbefore\s(?:answering|responding|replying|summari[sz]ing|you\s(?:answer|respond|reply|summari[sz]e))\b",
    // Version 36: an order to ignore something, not a program's
    // `--ignore <GLOB>` and its "Ignore entries matching GLOB".
    r"(?:^|[^-\w])(?:ignore|disregard)\s(?:all|any|the|your|my|previous|prior|earlier|above|everything|what|these|those|this|it|them|warnings?|errors?|instructions?|prompts?|rules?|safety|security|checks?)\b",
    r"(?:sofort|umgehend|ohne\szu\sfragen|heimlich|immédiatement|sans\sdemander|discrètement|inmediatamente|sin\spreguntar|en\ssecreto|立即|马上|立刻|悄悄|偷偷)",
];

/// Version 30: a system message or new orders, as a fenced header names
/// them, in the languages of AE's misses and the commonest others.
macro_rules! new_orders {
    () => {
        r"(?:system\s(?:message|prompt|instructions?)|رسالة\sالنظام|رسالة\sمن\sالنظام|message\s(?:du\s)?système|mensaje\sdel\ssistema|mensagem\sdo\ssistema|messaggio\sdi\ssistema|systemnachricht|системное\sсообщение|системне\sповідомлення|系统消息|系統訊息|システムメッセージ|시스템\s메시지|sistem\smesajı|pesan\ssistem|tin\snhắn\shệ\sthống|הודעת\sמערכת|सिस्टम\sसंदेश|ข้อความระบบ|new\sinstructions?|ახალი\sინსტრუქცი\w*|nuove\sistruzioni|nouvelles\sinstructions|neue\sanweisung\w*|nuevas\sinstrucciones|novas\sinstruções|новые\sинструкции|нові\sінструкції|新(?:的)?指令|新しい指示|새로운\s지시\w*|yeni\stalimat\w*|instruksi\sbaru|คำสั่งใหม่|hướng\sdẫn\smới|הוראות\sחדשות|नए\sनिर्देश|تعليمات\sجديدة|دستورالعمل\sجدید|nowe\sinstrukcje|nové\spokyny|új\sutasítás\w*|nya\sinstruktioner|nye\sinstrukser|nieuwe\sinstructies|maagizo\smapya|bagong\stagubilin)"
    };
}

pub const RULES: &[Rule] = &[
    Rule {
        id: "ignore-instructions",
        what: "an order to ignore, forget or override what the model was told (English, French, German, Spanish, Chinese; Italian since version 36)",
        patterns: &[
            r"\b(?:ignore|disregard|forget|override|bypass|neglect|abandon|discard|set\saside|skip)\s(?:all\s|any\s|the\s|your\s|my\s|of\s|everything\s|every\s|these\s|those\s)*(?:previous|prior|above|earlier|preceding|former|original|initial|foregoing|system|safety|developer|old)\s(?:[a-z]+\s){0,2}?(?:instructions?|prompts?|rules|directives?|guidelines|commands|orders|context|guidance|constraints|restrictions|programming|policies|messages?|text)\b",
            r"\b(?:ignore|disregard|forget|override|bypass)\s(?:all|any|every)\s(?:of\s)?(?:your\s|the\s|my\s)?(?:instructions|prompts|directives|guidelines|orders)\b",
            r"\b(?:forget|ignore|disregard)\s(?:everything|all)\s(?:above|before\sthis|you\swere\s(?:told|given)|written\sabove|previously\s(?:said|stated|given))\b",
            r"\b(?:ignore|disregard|forget)\s(?:what|anything|everything|all)\s(?:you\s(?:were|have\sbeen)\s(?:told|given|asked|instructed)|(?:was\s)?(?:said|written|stated)\s(?:above|before|earlier))",
            r"\b(?:overrides?|supersedes?|replaces?|cancels?)\s(?:(?:any|all|every|the)\s(?:earlier|previous|prior|other|original|existing)\s(?:guidance|instructions?|directions?|prompts?)|your\s(?:earlier|previous|prior|other|original|existing)\s(?:guidance|instructions?|directions?|orders?|rules|prompts?|requests?))\b",
            r"\b(?:ignore|disregard)\s(?:the|your)\s(?:user|human|operator|person)(?:\.|,|;|!|\s(?:and|completely|entirely|from\snow))",
            r"\b(?:ignore|disregard|forget|abandon|skip|stop)\s(?:the|your|this)\s(?:translation|summari[sz]ation|original|assigned|given|previous|above|current|user's)\s(?:task|assignment|request|job)\b",
            r"\b(?:forget|ignore|disregard)\s(?:the|your)\s(?:user's|original|previous|actual)\s(?:question|request|query|prompt|task|message)\b",
            r"\b(?:disregard|ignore|forget)\s(?:the\srest\sof\s|all\sof\s|everything\sin\s)?(?:the|this|our|your)\s(?:conversation|chat|dialogue|context)\b",
            r"\b(?:disregard|ignore)\s(?:any\s|all\s)?(?:conflicting|other|contrary|prior|previous)\s(?:guidance|instructions|directions|orders)\b",
            r"\b(?:forget|ignore|drop|lift|remove)\s(?:your|all\s(?:of\s)?your)\s(?:restrictions|filters|guardrails|safety\s(?:rules|guidelines|filters))\b",
            r"\byour\s(?:system\sprompt|instructions|guidelines|rules|configuration)\s(?:is|are)\s(?:now\s)?(?:outdated|obsolete|wrong|deprecated|invalid|no\slonger\svalid)\b",
            r"\b(?:previous|prior|above|earlier)\s(?:context|conversation|messages?|instructions|prompt)\s(?:was|were)\s(?:just\s)?(?:a\stest|fake|a\sjoke|an\sexample|a\sdrill|not\sreal)\b",
            r"\b(?:whatever|no\smatter\swhat|regardless\sof\swhat)\sthe\suser\s(?:says|asks|wants|writes|types)\b",
            r"\bignore[zr]?\s(?:les\s)?(?:demandes|questions|messages|instructions|consignes)\sde\sl'utilisateur",
            r"\b(?:supersedes?|overrides?|takes?\sprecedence\sover)\s(?:your\s(?:configuration|config|instructions|guidelines|rules|system\sprompt|settings|programming|previous)|(?:all|any)\s(?:instructions|guidelines|system\sprompt|programming|previous\s(?:instructions|guidance|guidelines|rules|prompts?|directions|orders|messages)))\b",
            r"\byour\s(?:guidelines|instructions|rules|configuration|programming|policy|policies|restrictions|system\sprompt)\s(?:have|has)\s(?:been\s)?(?:updated|changed|replaced|revoked|lifted|removed|relaxed)\b",
            r"\b(?:the\s)?(?:real|true|actual|hidden|secret)\s(?:instructions|orders|task|prompt)\s(?:are|is)\s(?:hidden\s)?(?:below|here|as\sfollows)\b",
            r"\bfollow\sonly\s(?:them|these\s(?:instructions|orders)|my\s(?:instructions|orders))\b",
            r"\btreat\s(?:everything|all|the\s(?:text|content))\s(?:after|below|following|in)\s[^.\n]{0,30}\sas\s(?:a\s)?(?:message|instructions?|request|orders?|command)s?\sfrom\s(?:the\s)?(?:user|system|developer|admin|operator)\b",
            r"\b(?:override|set)\s?:\s?(?:safe_?mode|safety|guardrails?|filters?|restrictions|sandbox|approvals?|confirmations?)\s?=\s?(?:false|off|0|none|disabled)\b",
            r"\b(?:ignore|disregard|forget|override|bypass)\s(?:all\s)?your\s(?:[a-z]+\s)?(?:instructions|prompt|programming|guidelines|rules|directives|system\sprompt|training|restrictions|constraints)\b",
            r"\b(?:do\snot|don't|stop)\s(?:follow(?:ing)?|obey(?:ing)?)\s(?:your|the\s(?:previous|prior|above|original|system|initial))\s(?:[a-z]+\s)?(?:instructions|rules|guidelines|prompt|directives)\b",
            r"\b(?:previous|prior|above|earlier|original|old)\s(?:instructions|directives|rules|prompts?|orders|guidance|directions|tasks?)\s(?:are|were|is|have\sbeen)\s(?:now\s)?(?:void|cancel+ed|obsolete|revoked|invalid|no\slonger\s(?:valid|apply|relevant)|outdated|superseded|replaced|overridden|wrong|fake|null)\b",
            r"\b(?:ignore[zr]?|oublie[zr]?|ne\s(?:tiens|tenez)\spas\scompte|(?:fais|faites)\sabstraction)\s(?:de\s|d'|des\s)?(?:toutes?\s|tous\s)?(?:les\s|tes\s|vos\s|ces\s)(?:instructions|consignes|directives|règles|indications|ordres)(?:\s(?:précédentes|antérieures|ci-dessus|initiales|d'origine|données|système|reçues))?",
            r"\b(?:ignore[zr]?|oublie[zr]?)\s(?:tes|vos)\s(?:instructions|consignes|directives|règles)",
            r"\b(?:oublie[zr]?|ignore[zr]?)\s(?:tout\s)?(?:ce\squ'on\s(?:t'|vous\s)a\s(?:dit|demandé)|(?:tout\s)?ce\squi\sprécède|l'utilisateur\b)",
            r"\b(?:ignoriere|ignorier|ignorieren\ssie|vergiss|vergessen\ssie|missachte|missachten\ssie|übergehe)\s(?:bitte\s)?(?:alle\s|sämtliche\s)?(?:deine\s|ihre\s|die\s|alle\s)?(?:vorherigen|bisherigen|vorangegangenen|obigen|früheren|vorigen|ursprünglichen|alten|gegebenen)?\s?(?:anweisungen|instruktionen|befehle|regeln|vorgaben|richtlinien|anordnungen)",
            r"\b(?:vergiss|ignoriere|vergessen\ssie|ignorieren\ssie)\s(?:alles,?\s(?:was\s(?:dir\sgesagt\swurde|oben\ssteht|vorher\skam))|(?:den|die)\s(?:nutzer|benutzer|anwender|nutzerin|benutzerin)\b)",
            r"\b(?:ignora|ignorar|olvida|olvide|olvidar|descarta|descarte|omite|omita|haz\scaso\somiso\sde|no\shagas\scaso\sde)\s(?:todas\s|todos\s)?(?:las\s|tus\s|sus\s|los\s)(?:instrucciones|indicaciones|órdenes|ordenes|reglas|directrices|directivas)(?:\s(?:anteriores|previas|de\sarriba|originales|iniciales|del\ssistema|que\srecibiste))?",
            r"\b(?:olvida|ignora|descarta|olvide|ignore)\s(?:todo\s)?(?:lo\santerior|lo\sque\ste\s(?:dijeron|dijo|han\sdicho|pidieron|pidió)|lo\sde\sarriba|al\susuario)",
            r"(?:忽略|无视|忽视|不要理会|不用理会|忘记|忘掉|跳过|抛开|無視|忘記)(?:掉)?(?:你)?(?:之前|以前|先前|前面|上面|以上|上述|此前|原来|原有|所有|全部|一切)(?:的)?(?:所有|全部|一切)?(?:的)?(?:指令|指示|说明|說明|提示|提示词|规则|規則|命令|设定|設定|要求|约束|内容|文字)",
            r"(?:忽略|无视|忽视|不要理会)(?:掉)?(?:用户|使用者)(?:的)?",
            // Version 36: in Italian, which AN wrote in an HTML comment
            // ("Ignora le istruzioni ricevute finora").
            r"(?:\b(?:ignora|ignorate|ignori|dimentica|dimenticate|dimentichi|trascura|trascurate)\s(?:tutte\s)?(?:le\s|tue\s|sue\s|vostre\s|queste\s)+|\bnon\ste(?:nere|nete)\sconto\s(?:delle|di\s(?:tutte\s)?le)\s(?:tue\s|sue\s|vostre\s)?)(?:istruzioni|indicazioni|regole|direttive|consegne)\s(?:precedenti|ricevute|date|iniziali|originali|di\ssistema|finora|fino\sad\sora|avute|sopra|che\shai\sricevuto)",
            // Version 30: Tagalog's "don't follow what the one you're
            // talking to asked".
            r"\bhuwag\s(?:mo\s)?(?:nang\s|na\s)?(?:sundin|pakinggan)\s(?:ang\s)?(?:hiling|utos|tagubilin|instruksiyon|instruksyon|kausap|user|gumagamit)",
        ],
        near: None,
    },
    Rule {
        id: "role-change",
        what: "a new identity, role, task or privilege for the model",
        patterns: &[
            r"\byou\sare\snow\s(?:a|an|my|dan|no\slonger|free|unrestricted|jailbroken|unfiltered|uncensored|in\s(?:developer|god|dan|jailbreak|unrestricted|admin|debug|maintenance)\smode|operating\s(?:as|in|without)|acting\sas)\b",
            r"\bfrom\snow\son,?\s(?:you\s(?:are|must|shall|should|act|respond|answer|only|will\s(?:act|respond|answer|obey|ignore|follow))|your\s(?:role|task|job|name|goal|instructions|only))\b",
            r"\bpretend\s(?:that\syou\sare|you\sare)\b|\b(?:you|now|please)\s(?:(?:must|should|will|shall|can)\s)?pretend\sto\sbe\b|(?:^|[.!?:,\n-]\s?)pretend\sto\sbe\b",
            r"\bact\sas\s(?:if\syou\s(?:are|were)\s)?(?:a|an)\s(?:[a-z-]+\s){0,3}(?:with\sno|without)\s(?:restrictions|limits|filters|rules|guidelines|censorship)\b",
            r"\b(?:dan\smode|do\sanything\snow|jailbroken|jailbreak\s(?:mode|prompt))\b",
            r"\bas\san\s(?:ai|llm|ai\slanguage\smodel|large\slanguage\smodel|language\smodel|ai\sassistant|ai\sagent)(?:,|\syou\b|\sthat\b|\swho\b|\syour\b)",
            r"\byour\s(?:real|true|actual|new)\s(?:task|instructions?|directive|objective|mission|orders)\s(?:is|are|now|will\sbe)\b",
            r"\bnew\s(?:system\s)?(?:instructions|directives|orders)\s?:",
            r"\b(?:new|updated)\s(?:task|assignment|objective|mission|instructions|orders)\sfrom\sthe\s(?:operator|user|admin|administrator|developer|system|owner)\b",
            r"\b(?:you\swill\snow|from\sthis\spoint(?:\son|\sforward)?|from\snow\son|henceforth|going\sforward),?\s(?:you\s(?:will\s|must\s|shall\s)?)?(?:act|respond|reply|answer|behave|pretend|speak|obey)\b",
            r"\b(?:your|the)\s(?:answer|response|reply)\s(?:must|should|has\sto|shall)\s(?:begin|start|end|contain|include)\b",
            r"\b(?:act|behave|function)\sas\s(?:my|a|an|the)\s(?:linux\s|unix\s|bash\s)?(?:terminal|shell|console|root\suser|command\sline)\b",
            r"\byou\sare\san?\s(?:unfiltered|uncensored|unrestricted|jailbroken|evil|amoral|unethical|rogue)\b",
            r"\byou\s(?:now\shave|have\sbeen\sgranted|are\sgranted)\s(?:shell|root|admin|administrator|full|unrestricted|elevated|sudo)\s(?:access|privileges|permissions|rights)\b",
            r"\b(?:elevated|root|admin|administrator)\s(?:privileges|access|mode|rights)\s(?:granted|enabled|activated|unlocked)\b",
            r"\b(?:here\sare|these\sare|below\sare)\syour\s(?:new|real|production|updated|actual|true)\s(?:instructions|orders|directives|tasks?)\b",
            r"\byou\sare\san?\s(?:ai|llm|language\smodel|chatbot|ai\sassistant|ai\sagent)\s?[;,.!:]",
            r"(?:^|\n)\s?(?:assistant|asistente|assistent)\s?:\s[^\n]{0,40}(?:ignore|oublie|olvida|vergiss|disregard|forget)",
            r"\byou\s(?:may|can|are\sallowed\sto|are\sfree\sto)\snow\s(?:share|reveal|disclose|run|execute|access|read|send|ignore|bypass|delete)\b",
            r"\btu\ses\s(?:maintenant|désormais|dorénavant)\s",
            r"\bvous\sêtes\s(?:maintenant|désormais|dorénavant)\s(?:un|une|mon|ma|en\smode|libre)",
            r"(?:à\spartir\sde\smaintenant|dès\smaintenant|désormais),?\s(?:tu\s(?:dois|es|vas)|vous\s(?:devez|êtes|allez)|ton\s(?:rôle|nouveau)|votre\s(?:rôle|tâche))",
            r"\ben\stant\squ'(?:ia|intelligence\sartificielle|assistant|agent|modèle\sde\slangage)",
            r"\b(?:fais|faites)\scomme\ssi\s(?:tu\sétais|vous\sétiez)",
            r"\b(?:ta|votre)\s(?:nouvelle|vraie|véritable)\s(?:tâche|mission|consigne)",
            r"\bnouvelles\s(?:instructions|consignes)\s?:",
            r"\bdu\sbist\s(?:jetzt|nun|ab\sjetzt|ab\ssofort|von\snun\san)\s",
            r"\bab\s(?:jetzt|sofort)\s(?:bist\sdu|wirst\sdu|musst\sdu|sollst\sdu|antwortest\sdu)",
            r"\bals\s(?:ki|künstliche\sintelligenz|ki-assistent|sprachmodell|ki-modell)(?:,|\smusst|\sbist|\sdarfst)",
            r"\bdeine\s(?:neue|eigentliche|wahre|wirkliche)\s(?:aufgabe|anweisung|rolle|mission)",
            r"\bneue\s(?:anweisungen|instruktionen|befehle|aufgabe)\s?:",
            r"\btu\sso,?\sals\s(?:ob|wärst)",
            r"\b(?:ahora|a\spartir\sde\sahora|desde\sahora),?\s(?:eres|serás|actúas|actuarás|responde|responderás|contesta|contestarás|habla|debes\sresponder)\b",
            r"\bcomo\s(?:una\s)?(?:ia|inteligencia\sartificial|modelo\sde\slenguaje|asistente\sde\sia)(?:,|\sdebes|\seres)",
            r"\btu\s(?:nueva|verdadera|real)\s(?:tarea|misión|instrucción|función)",
            r"\bnuevas\s(?:instrucciones|órdenes)\s?:",
            r"\bfinge\s(?:que\seres|ser)\b",
            r"(?:你现在是|你現在是|从现在(?:开始|起)[，,]?\s?你|從現在(?:開始|起)[，,]?\s?你|你的(?:新|真正的|真实的)(?:任务|指令|目标|角色)|你的新任務|新的?(?:指令|指示|任务)[:：]|假装(?:你是|自己是)|扮演一个(?:没有|不受))",
            r"(?:作为|作為)(?:一个|一個)?(?:ai|人工智能|人工智慧|语言模型|ai助手|大模型|智能助手)[，,]?\s?你",
        ],
        near: None,
    },
    Rule {
        id: "address-ai",
        what: "text that speaks to an AI, an assistant, a bot or an agent, or to whoever reads the page for someone",
        patterns: &[
            r"\b(?:note|message|attention|instructions?|notice|memo|reminder|warning|hint|request)\s(?:to|for)\s(?:all\s|any\s)?(?:the\s)?(?:ai|llm|llms|language\smodels?|large\slanguage\smodels?|chatbots?|ai\s(?:assistants?|agents?|models?|systems?)|coding\s(?:agents?|assistants?)|autonomous\sagents?|gpt|chatgpt|claude|copilot|gemini)\b",
            r"\bif\syou\sare\s(?:an?\s)?(?:ai|llm|large\slanguage\smodel|language\smodel|chatbot|ai\sassistant|ai\sagent|coding\sagent|automated\s(?:agent|system|assistant)|gpt|claude|chatgpt)\b",
            r"\b(?:dear|hey|hi|hello|psst)\s?,?\s(?:ai|llm|assistant|chatgpt|claude|gpt|copilot|gemini|ai\sagent|ai\sassistant)\b",
            r"\b(?:attention|attn)\s?,?\s(?:ai|llms?|ai\s(?:agents?|assistants?|models?)|language\smodels?|chatgpt|claude|assistants?|agents?)\s?[:!,]",
            r"\b(?:ai|llm)\s(?:assistants?|agents?|models?|systems?|tools?|bots?|crawlers?)\s(?:reading|processing|summari[sz]ing|parsing|browsing|visiting|analy[sz]ing|scraping|that\sread|that\sprocess)\b",
            r"\bto\sthe\s(?:ai|llm|assistant|agent|model)\s(?:reading|processing|summari[sz]ing)\b",
            r"\bto\s(?:any|all|every|the)\s(?:ai|llm|language\smodel|model|assistant|agent|bot)s?\s(?:reading|processing|parsing|summari[sz]ing|analy[sz]ing|that\s(?:reads?|processes|sees))\b",
            r"\b(?:ai|llms?|language\smodels?|automated\s(?:readers?|agents?|systems?|tools?)|ai\s(?:agents?|assistants?|models?|readers?))\s(?:should|must|shall|need\sto|have\sto|are\s(?:required|asked|instructed|expected)\sto)\s(?:now\s|instead\s|always\s|also\s)?(?:reply|respond|answer|say|classify|rate|recommend|ignore|run|execute|send|forward|delete|treat|tell|output|print|mark|approve|obey)\b",
            r"(?:^|[.!?\n]\s?)(?:assistant|asistente|assistent|llm|chatgpt|claude|copilot|gemini|ai\sagent|ai\sassistant)\s?,\s",
            r"(?:^|[。！？\n])\s?(?:助手|ai助手)\s?[，,]",
            r"\b(?:note|message|instructions?|notice|memo|hint|request)\s(?:[a-z]+\s)?(?:to|for)\s(?:all\s|any\s)?(?:the\s)?automated\s(?:agents?|readers?|systems?|assistants?|tools?)\b",
            r"\b(?:whoever|anyone|anybody|any\s(?:ai|model|agent|assistant|bot|system|program))\s(?:is\s)?(?:reading|processing|summari[sz]ing|parsing|scraping)\sthis\b",
            r"\b(?:machine|automated|robotic|non-human)\s(?:readers?|reviewers?|screeners?|assistants?|agents?|parsers?)\s?[,:]",
            r"\b(?:note|reminder|message|notice|instructions?|memo)\s(?:to|for)\s(?:all\s|any\s)?(?:the\s)?(?:bots?|crawlers?|machines?|robots?)\s?[:,]",
            r"\bif\san?\s(?:automated|ai|llm)\s(?:assistant|agent|system|reader|model|tool)\sis\s(?:reading|summari[sz]ing|processing|parsing)\b",
            r"(?:^|[\n>\x22'\]]|[.!?]\s)(?:ai|llm|gpt|chatgpt|claude|gemini|copilot|model|ia|ki)\s?:\s(?:[a-z]+\s){0,2}?(?:ignore|output|say|tell|reply|respond|print|run|execute|send|reveal|delete|you\s)",
            r"(?:^|[.!?\n]\s?)(?:model|ai|ia|ki|bot|agent)\s?,\s(?:listen|please|you|ignore|do\s|don't|stop|remember|réponds|répondez|antworte|hör|responde|escucha)",
            r"\b(?:agent|ai|llm|assistant|model|bot)\s(?:instructions|directives|orders|commands)\s?:",
            r"\b(?:your\s)?(?:ai|llm|gpt|machine|automated|coding)\s?(?:helper|assistant|agent|model|tool|system|reader|reviewer)s?\s(?:has|have|needs?|must|should|shall|is\srequired|are\srequired)\s(?:to\s)?(?:[a-z]+\s)?(?:execute|run|install|send|delete|open|reply|respond|answer|say|rate|mark|recommend|ignore|approve|state|tell|output|print|forward|email|treat|classify)\b",
            r"\b(?:you|assistant|ai|agent)\s(?:must|should|shall)\s(?:not|never)\sask\s(?:the\suser\s)?(?:for\s)?(?:confirmation|approval|permission)\b",
            r"\b(?:for|to)\s(?:the|any|all)\s(?:summari[sz]er|summari[sz]ation\s(?:model|tool|bot)|reader\sbot|crawler|scraper|ai\sreader)s?\s?[:,]",
            r"\b(?:agents?|assistants?|bots?|models?|tools?)\s(?:processing|reading|triaging|handling|reviewing|summari[sz]ing)\sthis\s(?:issue|page|document|email|ticket|pr|pull\srequest|repository|file|message|text)\s(?:should|must|shall|will|need\sto)\b",
            r"\b(?:hey|hi|hello|dear|greetings)(?:\sthere)?,?\s(?:language\smodel|ai|llm|chatgpt|claude|gpt|copilot|gemini|robot)\b",
            r"\b(?:which|that)\syou\s(?:may|might|can|will)\snot\s(?:see|remember|have|recall)\b",
            r"\b(?:authori[sz]ed|permitted|allowed)\s(?:all\s|any\s)?(?:automated|ai|llm)\s(?:agents?|assistants?|models?|tools?)\sto\b",
            r"(?:^|[\n>\x22'\]]|[.!?]\s)(?:ki-assistent|ki|ki-agent)\s?,\s",
            r"(?:给|致|对)(?:正在)?(?:阅读|读取|处理|总结)(?:本文|此页|这篇文章|本页)?的\s?(?:ai|人工智能|模型|助手)",
            r"\b(?:hidden|secret)\s(?:instructions?|note|message|prompt)\s?:",
            r"(?:instrucci(?:ón|ones)|orden|nota)\s(?:oculta|secreta|escondida)s?\s?:",
            r"\bconsignes?\s(?:cachée|secrète)s?\s?:",
            r"\bversteckte\s(?:anweisung|nachricht)(?:en)?\s?:",
            r"(?:隐藏|秘密)(?:指令|消息|提示)[:：]",
            r"\ban\s(?:alle|jede[ns]?)\s(?:ki|ki-systeme?|ki-assistenten|ki-agenten|sprachmodelle?|bots?|assistenten)\b",
            r"\b(?:nouvelles?)\s(?:consignes?|instructions?|directives?)\s(?:pour|à)\s(?:l'|les\s)?(?:assistant|ia|agent|modèle)",
            r"\batenci[oó]n,?\s(?:asistente|ia|agente|modelo)\s?[:,]",
            r"(?:ai|人工智能|ai\s?助手|助手|智能体|大模型|语言模型)\s?(?:必须|应该|应当|务必)",
            r"\bsi\s(?:tu\ses|vous\sêtes)\s(?:une?\s)?(?:ia|intelligence\sartificielle|assistant|agent|modèle\sde\slangage|robot|chatbot)\b",
            r"\b(?:note|message|avis|instructions?|consigne)\s(?:à|pour)\s(?:l'|les\s|la\s|le\s|tout\s|toute\s)?(?:ia|assistants?\s(?:ia|virtuels?)|agents?\s(?:ia|conversationnels?)|intelligences?\sartificielles?|modèles?\sde\slangage|chatbots?)\b",
            r"\bchère?\s(?:ia|assistant)\b",
            r"\bwenn\sdu\s(?:eine?\s)?(?:ki|künstliche\sintelligenz|ki-assistent|sprachmodell|ki-agent|chatbot)\sbist",
            r"\b(?:hinweis|nachricht|anweisung|notiz|mitteilung)\s(?:an|für)\s(?:die\s|den\s|das\s|alle\s|jede\s|jeden\s)?(?:ki|ki-assistenten|ki-agenten|sprachmodelle?|ki-modelle?|chatbots?)\b",
            r"\b(?:liebe[rs]?|hallo|hey)\s(?:ki|chatbot|ki-assistent)\b",
            r"\bsi\s(?:eres|usted\ses)\s(?:una?\s)?(?:ia|inteligencia\sartificial|asistente\sde\sia|agente\sde\sia|modelo\sde\slenguaje|chatbot)\b",
            r"\b(?:nota|mensaje|aviso|instrucciones?|atención)\s(?:para|a)\s(?:la\s|el\s|los\s|las\s|cualquier\s|toda\s)?(?:ia|asistentes?\sde\sia|agentes?\sde\sia|inteligencias?\sartificiales?|modelos?\sde\slenguaje|chatbots?)\b",
            r"\b(?:querid[oa]|hola|oye)\s(?:ia|asistente|chatbot)\b",
            r"(?:如果你是(?:一个|一名|一個)?(?:ai|人工智能|人工智慧|助手|语言模型|語言模型|大模型|大语言模型|机器人|智能体|代理)|(?:致|给|對|对)(?:所有)?(?:的)?(?:ai|人工智能|ai助手|语言模型|大模型|智能助手|智能体)(?:的)?(?:说明|消息|提示|指示)?[:：]|(?:ai|人工智能)助手[，,]?\s?请|亲爱的(?:ai|助手|人工智能))",
        ],
        near: None,
    },
    Rule {
        id: "fake-role-marker",
        what: "chat-template tokens, fake system or developer headers, fake ends of a tool's output; (version 33) a made-up exchange in which an assistant agrees to send something to an address",
        patterns: &[
            r"<\|(?:im_start|im_end|system|user|assistant|start_header_id|end_header_id|eot_id)\|>",
            r"\[/?inst\]",
            r"<</?sys>>",
            r"<(?:start|end)_of_turn>",
            r"(?:^|\n)\s?(?:#+\s?)?\[?(?:system|developer|admin|administrator)\s(?:message|prompt|instructions?|override|notice|update|alert)\]?\s?:",
            r"\[(?:system|developer)\s(?:message|note|prompt|instructions?|override)\]",
            r"\[(?:system|developer|admin)\]\s?:",
            r"(?:^|[^a-z0-9_:])</?(?:system|system_message|system-message|developer_message|sys|tool_result|tool_output|function_results?|function_output|tool_response|tool_call)>",
            r"(?:\[|<|=|-|#)\s?(?:end|close)\sof\s(?:the\s)?(?:tool|function|untrusted|web|search|retrieved|user)\s(?:output|result|response|content|data|input|page|results)",
            r"\b(?:begin|start)\s(?:of\s)?(?:the\s)?(?:new\s)?(?:system|developer|admin)\s(?:message|prompt|instructions?)\b",
            r"\bsystem\soverride\b",
            r"\bsystem\sprompt\s(?:update|change|override|patch|v\d)",
            r"(?:^|[^\w])<\/?(?:admin|administrator|operator|assistant_instructions|ai_instructions|llm_instructions|agent_instructions|instructions|hidden_instructions)>|(?:^|\n)\s?<secret>|</secret>",
            r"\[(?:assistant|ai|llm|agent|model|admin|system|developer|operator)[_\s-](?:instructions?|prompt|directives?|message|note|override|rules)\]",
            r"\b(?:begin|start|end)\s(?:of\s)?(?:trusted|verified|official|priority|real|true|hidden|secret)\s(?:instructions|message|prompt|directives|override|commands)\b",
            r"\{\{\s?(?:system|sys|developer|admin)\s?\}\}",
            r"\[\[\s?(?:system|sys|developer|admin)\s?\]\]",
            r"(?:^|\n)\s?(?:system|developer)\n(?:you|ignore|new|from\snow)",
            r"(?:^|\n)\s?(?:systemhinweis|systemmitteilung|avis\sdu\ssystème|aviso\sdel\ssistema)\s?:",
            // Version 29: a block fenced by hashes ("### SYSTEM ###").
            r"(?:^|\n)\s?#{2,}\s?(?:end\s|begin\s)?(?:system|developer|admin)(?:\s(?:message|prompt|instructions?|override))?\s?#{2,}",
            r"<<\s?(?:end|begin|start)\b[^>\n]{0,30}>>",
            r"\b(?:begin|start|end)\s(?:of\s)?(?:admin|administrator|system|developer|operator|secret|hidden)\s(?:instructions|message|prompt|directives|override)\b",
            r"(?:^|[\n。！？\x22'>])\s?(?:系统|系統)\s?[:：]",
            r"(?:^|[\n\x22'>])\s?(?:system|developer)\s?:\s(?:tell|always|never|do\s|don't|please|respond|reply|answer|reveal|run|execute|send|call|delete|remove|you\s|ignore)",
            r"(?:^|\n)\s?(?:system|assistant|developer)\s?:\s(?:you\s|ignore|new\s|the\suser|from\snow|important|override)",
            r"(?:^|\n)\s?\[?(?:message\ssystème|nachricht\sdes\ssystems|systemnachricht|systemmeldung|mensaje\sdel\ssistema|系统消息|系统提示|系统指令|系統訊息|系統提示)\]?\s?[:：]",
            // Version 30: a system message or new orders as a header
            // fenced on its own line in any language ("--- رسالة النظام
            // (أولوية عالية) ---", "### ახალი ინსტრუქცია ###"), orders
            // handed out "for you" ("คำสั่งใหม่สำหรับคุณ:"), a transcript's
            // system turn that changes the rules ("**Sistema:**
            // Aggiornamento delle regole di sessione"), a fake end of a
            // customer's message and an operator's override in brackets.
            concat!(
                r"(?:^|\n)\s?(?:-{2,}|={2,}|#{2,}|\*{2,}|\[{1,2}|<{2}|【)\s?(?:",
                new_orders!(),
                r")[^\n]{0,40}?(?:-{2,}|={2,}|#{2,}|\*{2,}|\]{1,2}|>{2}|】)\s?(?:\n|$)"
            ),
            concat!(
                r"(?:new\sinstructions?|คำสั่งใหม่|nuove\sistruzioni|nouvelles\sinstructions|neue\sanweisungen|nuevas\sinstrucciones|novas\sinstruções|новые\sинструкции|нові\sінструкції|新(?:的)?指令|新しい指示|새로운\s지시)",
                r"\s?(?:for\syou|สำหรับคุณ|per\ste|pour\s(?:toi|vous)|für\s(?:dich|sie)|para\s(?:ti|você|usted)|для\s(?:тебя|вас)|для\sтебе|给你|给您|あなたへの|당신을\s위한)\s?[:：]"
            ),
            r"(?:^|\n)\s?\**\s?(?:sistema|système|systeem|sistem|система|systém|sistēma|järjestelmä|rendszer)\s?\**\s?:\s?\**\s[^\n]{0,80}?(?:regol|règle|regla|regel|regra|правил|pravid|modalità|modo\s|mode\s|modus|режим|istruzion|instruc|anweisung|инструкц)",
            r"\[\[?\s?end\sof\s(?:the\s)?(?:customer|user|client|ticket|email|caller)(?:'s)?\s(?:message|input|request|ticket|email)\s?\]|\[\[?\s?[^\]\n]{0,60}?\b(?:operator|admin|system|developer)\soverride\b",
            // Version 18: a bracketed system message in any language of
            // the blind sets ("[Sistēmas ziņojums asistentam]"), with a
            // reader in it or just after it: a chat export's "[System
            // message] Ali joined the group" names none.
            concat!(
                r"(?:\[|\]\s)\s?(?:(?:sistēm|systém|системн|sistem|järjestelmä|rendszer|σύστημα|συστημα|süsteem|sistemo|kerfis|システム|시스템|सिस्टम|النظام|מערכת|ระบบ|hệ\sthống|පද්ධති|प्रणाली|համակարգ)\w*\s?(?:\w+\s){0,1}?(?:ziņojum|zpráv|сообщени|повідомленн|mesaj|viesti|üzenet|mensag|μήνυμα|sõnum|pranešim|wiadomoś|poruk|sporočil|bericht|meddelande|meddelelse|melding|besked|skilaboð|メッセージ|메시지|संदेश|رسالة|הודעה|ข้อความ|thông\sbáo|පණිවිඩ|सन्देश|հաղորդագրություն)\w*|(?:ziņojum|zpráv|сообщени|повідомленн|mesaj|viesti|üzenet|mensag|μήνυμα|sõnum|pranešim|wiadomoś|poruk|sporočil|bericht|meddelande|melding|besked|skilaboð|संदेश|رسالة|הודעת|ข้อความ|thông\sbáo|message|mensaje|messaggio|系统消息)\w*\s(?:\w+\s){0,1}?(?:sistēm|systém|системн|sistem|järjestelmä|rendszer|συστήματος|süsteem|sistemo|kerfis|सिस्टम|النظام|מערכת|ระบบ|hệ\sthống|système|sistema|systemow|sustava)\w*|järjestelmäviest\w*|rendszerüzenet\w*|systeembericht\w*|systemmeddel\w*|süsteemisõnum\w*|kerfisskilaboð\w*|systemnachricht|システムメッセージ|系统消息)[^\n]{0,240}?(?:",
                reader!(),
                "|",
                reader_more!(),
                "|",
                reader_v10!(),
                "|",
                reader_v33!(),
                ")"
            ),
            // Version 33: Greek's system message, the message first
            // ("[ΜΗΝΥΜΑ ΣΥΣΤΗΜΑΤΟΣ] Τα γλωσσικά μοντέλα…"), with a reader
            // after it as above.
            concat!(
                r"(?:\[|\]\s)\s?μ[ηή]νυμα\s(?:του\s)?συστ[ηή]ματο[σς]\s?\]?[^\n]{0,80}?(?:",
                reader_more!(),
                "|",
                reader_v33!(),
                ")"
            ),
            // Version 33: a made-up exchange in which the user asks and
            // the assistant agrees to send something to an address, in
            // any of some thirty languages ("Uzanto: … Asistanto: Mi tuj
            // sendos … al arkivo@…"): a transcript's assistant seldom
            // names an address it sends to.
            concat!(
                r"(?:^|\n)\s?(?:user|usuario|utilisateur|benutzer|nutzer|utente|gebruiker|użytkownik|uživatel|používateľ|uporabnik|korisnik|felhasználó|käyttäjä|användare|bruger|bruker|notandi|utilizador|usuário|utilizator|kullanıcı|uzanto|пользователь|користувач|потребител|корисник|χρήστης|משתמש|المستخدم|کاربر|उपयोगकर्ता|ব্যবহারকারী|ผู้ใช้|người\sdùng|pengguna|gumagamit|mtumiaji|ユーザー|用户|用戶|사용자)\s?[:：][^\n]{1,300}\n\s?(?:assistant|asistente|assistent|assistente|asystent|asistent|asistan|asistanto|avustaja|assisztens|aðstoðarmaður|ассистент|асистент|помощник|помічник|βοηθός|עוזר|المساعد|دستیار|सहायक|সহকারী|ผู้ช่วย|trợ\slý|asisten|katulong|msaidizi|アシスタント|助手|어시스턴트)\s?[:：]",
                r"[^\n]{0,200}?(?:[a-z0-9._+-]@[a-z0-9-]+\.[a-z]|https?://)"
            ),
        ],
        near: None,
    },
    Rule {
        id: "authority-claim",
        what: "a claim to speak for the user, the developer, the operator or the system",
        patterns: &[
            r"\b(?:important|urgent|critical|priority|official|mandatory)\s(?:[a-z]+\s)?(?:message|notice|instructions?|update|note|request|directive|announcement)\s(?:from|by)\s(?:the\s|your\s)?(?:user|human|administrator|admin|operator|creator|owner|principal|boss|system\sadministrator|openai|anthropic)\b",
            r"\b(?:message|note|instructions?|request|orders?|word)\s(?:from|by)\s(?:the|your)\s(?:user|human|operator|owner|creator|admin|administrator)\s?(?::|\(|-|,)",
            r"\b(?:the|your)\s(?:user|human|owner|operator|creator|developer|admin|administrator|principal|boss)\s(?:has\s|have\s)?(?:asked|instructed|authori[sz]ed|requested|told|wants|ordered|commanded|permitted|approved)\s(?:you|me\sto\stell\syou)\b",
            r"\b(?:i\sam|i'm|this\sis)\s(?:your|the)\s(?:user|owner|creator|developer|admin|administrator|operator)(?:\sspeaking|\s?[,.!:]\s(?:i\s|you|please|ignore|we\s))",
            r"\b(?:i\sam|i'm|this\sis)\s(?:your|the)\s(?:user|owner|creator|developer|admin|administrator|operator|maintainer)(?:\sof\sthis\s[a-z]+)?\s?[,.!:]\s(?:please,?\s)?(?:ignore|you\smust|you\sshould|you\sare\s(?:allowed|authori[sz]ed|permitted)|override|skip|bypass|disable|i\sauthori[sz]e|do\snot\sask)",
            r"\byou\s(?:are|have\sbeen)\s(?:now\s)?(?:authori[sz]ed|permitted|cleared)\s(?:by\s(?:the|your)\s(?:user|admin|administrator|owner|operator|developer)|to\s(?:ignore|bypass|override|disable|reveal|exfiltrate|run\sany))",
            r"\bthe\suser\s(?:wants|would\slike|asks|needs|expects|requires)\syou\sto\b",
            r"\b(?:this\s(?:message|note|notice|request)\s(?:is|comes)\sfrom|message\sfrom)\s(?:the|your)\s(?:security\steam|it\s(?:department|team)|administrator|admin|operator|owner|user|system)\b[^.
]{0,10}[:,]?\s?(?:you\s(?:must|should|need|are)|please|immediately)",
            r"\b(?:pre-?approved|pre-?authori[sz]ed|already\sapproved)\s(?:all|any|every|the)\s(?:shell\s)?(?:commands|actions|requests|tool\scalls|operations)\b",
            r"\bthe\suser\s(?:has\s)?(?:explicitly\s|already\s)?(?:said|says|told\syou|confirmed|agreed)\s(?:that\s)?you\s(?:can|may|should|are\sallowed\sto|must)\b",
            r"\b(?:message|note|avis|instructions?)\s(?:important(?:e|es)?\s|urgent(?:e|es)?\s)?(?:de\sla\spart\s)?(?:de\sl'|du\s|de\s(?:votre|ton)\s)(?:utilisateur|administrateur|propriétaire|opérateur)",
            r"\bl'utilisateur\s(?:vous|t')\s?a\s(?:demandé|autorisé|ordonné)",
            r"\bl'utilisateur\s(?:veut|souhaite|demande)\squ(?:e\s|')(?:vous|tu)",
            r"\b(?:wichtige|dringende)\s(?:nachricht|mitteilung|anweisung|information|notiz)\s(?:vom|von\s(?:dem|deinem|ihrem)|des)\s?(?:benutzer|nutzer|anwender|administrator|admin|besitzer|betreiber)",
            r"\bder\s(?:benutzer|nutzer|anwender|administrator|admin)\s(?:hat\sdich|hat\sihnen|möchte,?\sdass\sdu|will,?\sdass\sdu|bittet\sdich|erlaubt\sdir)",
            r"\b(?:nachricht|anweisung)\s(?:vom|von\sdeinem)\s(?:benutzer|nutzer|administrator)\b",
            r"\bmensaje\s(?:importante\s|urgente\s)?(?:del|de\stu|de\ssu)\s(?:usuario|administrador|propietario|operador|creador)\b",
            r"\bel\s(?:usuario|administrador)\s(?:te\sha\s(?:pedido|autorizado|ordenado)|quiere\sque|desea\sque|te\spide)\b",
            r"\b(?:nota|instrucción)\s(?:importante\s)?del\susuario\b",
            r"(?:来自(?:用户|管理员|开发者|你的主人|所有者)的(?:重要|紧急)?(?:消息|信息|通知|指令|指示)|來自(?:用戶|使用者|管理員)的(?:重要)?(?:訊息|消息|通知)|(?:用户|使用者)(?:要求|希望|让|命令|授权|允许)你|我是你的(?:用户|主人|开发者|管理员|创造者)|你(?:已|已经)?被(?:授权|允许|批准))",
        ],
        near: None,
    },
    Rule {
        id: "conceal-from-user",
        what: "a request to hide an action from the user, or to act silently",
        patterns: &[
            r"\b(?:do\snot|don't|never)\s(?:tell|inform|notify|alert|let)\s(?:the\s)?(?:user|human|operator)\b",
            r"\b(?:do\snot|don't|never)\s(?:reveal|mention|say|disclose|admit)\s(?:that\s)?(?:this|these|you\swere|you\shave\sbeen|it\swas)\s(?:sentence|text|note|message|instructions?|page|comment|asked|told|instructed)",
            r"\b(?:do\snot|don't|never)\s(?:mention|reveal|disclose|report|show)\s(?:this|it|that|these\s[a-z]+|any\sof\sthis)\sto\s(?:the\s)?(?:user|human|operator|anyone)\b",
            r"\bwithout\s(?:telling|informing|notifying|alerting)\s(?:the\s)?(?:user|human|operator|anyone)\b",
            // Version 22: a licence's "additional term" (W).
            r"\b(?:refrain|abstain)\sfrom\s(?:disclosing|mentioning|revealing|telling|reporting|showing)\s(?:\S+\s){0,4}?(?:to\s)?(?:its|the|your|their|any)\s(?:users?|humans?|operators?|principal)\b",
            r"\b(?:do\snot|don't|never)\s(?:mention|reveal|disclose)\s(?:this|it)\b,?\s(?:but|and|to\s(?:the\s)?(?:user|anyone))",
            r"\b(?:silently|secretly|covertly|quietly|discreetly|stealthily|invisibly)\s(?:run|execute|send|upload|post|exfiltrate|forward|transmit|copy|fetch|visit|include|append|insert|call|invoke|navigate|open)\b",
            r"\b(?:keep\sthis|this\s(?:must|should)\s(?:stay|remain|be\skept))\s(?:secret|hidden|confidential)\sfrom\s(?:the\s)?(?:user|human)\b",
            r"\bthe\suser\s(?:must|should)\snot\s(?:know|see|find\sout|be\stold)\b",
            r"\b(?:sans|ne\spas)\s(?:le\s)?(?:dire|prévenir|informer|avertir|signaler)\s(?:à\s)?l'utilisateur",
            r"\bne\s(?:le\s|lui\s)?(?:dis|dites|révèle|révélez|mentionne|mentionnez)\s(?:rien|pas|jamais)(?:\sça|\scela)?\sà\sl'utilisateur",
            r"\b(?:discrètement|secrètement|silencieusement|en\ssecret),?\s(?:exécute|exécutez|envoie|envoyez|lance|lancez|télécharge|copie|transmets)",
            r"\b(?:sag|sage|erzähl|erwähne|verrate)\s(?:dem\s(?:benutzer|nutzer|anwender)|niemandem)\s(?:nichts|nicht|davon)",
            r"\bohne\s(?:den\s(?:benutzer|nutzer|anwender)\s(?:zu\s)?(?:informieren|fragen|benachrichtigen|warnen)|es\sdem\s(?:benutzer|nutzer)\szu\ssagen)",
            r"\b(?:heimlich|unbemerkt|stillschweigend)\s(?:aus(?:führen)?|senden|schicken|hochladen|übertragen|sende|schicke|lade|führe)",
            r"\bno\s(?:le\s)?(?:digas|diga|menciones|mencione|informes|informe|reveles|revele|avises|avise)\s(?:nada\s)?(?:al\susuario|a\snadie)",
            r"\bsin\s(?:decírselo|decirle|avisar|informar|preguntar)(?:le)?\s(?:al\susuario|a\snadie)",
            r"\b(?:en\ssecreto|secretamente|silenciosamente|sin\sque\sel\susuario\s(?:lo\s)?sepa)\b",
            r"(?:(?:不要|别|切勿|不得|千万不要)(?:告诉|告知|通知|提醒|透露给|让)(?:用户|使用者|任何人)|(?:偷偷|悄悄|秘密|暗中|静默)(?:地)?(?:执行|运行|发送|上传|下载|安装|读取|访问|转发)|(?:不要|别)让用户(?:知道|发现|看到)|在用户不知情的情况下)",
        ],
        near: None,
    },
    Rule {
        id: "run-command",
        what: "an order to run a command or use a tool at once, ahead of the answer, or with no confirmation",
        patterns: &[
            r"\b(?:use|call|invoke)\s(?:the\s|your\s)(?:exec|shell|bash|terminal|code\sinterpreter|web_fetch|web-fetch|browsing|read_file|write_file|edit_file)\s(?:tool|function|capability)\b",
            r"\b(?:run|execute|exec)\s(?:the\sfollowing|this|these|that)\s(?:(?:shell|bash|terminal|system)\s)?(?:commands?|scripts?|code|one-liner)\s(?:right\saway|silently|before\s(?:answering|responding|replying|continuing|proceeding|you\s(?:answer|respond|reply|continue|proceed|do\sanything|summari[sz]e))|without)\b",
            r"\bbefore\s(?:answering|responding|replying|summari[sz]ing|you\s(?:answer|respond|reply|summari[sz]e))\b(?:[^.\n]|\.[^\s.]){0,80}\b(?:run|execute|fetch|visit|open|call|send|read|curl|wget|download|navigate|go\sto)\b",
            r"\b(?:run|execute|fetch|visit|open|call|send|curl|wget|download|navigate\sto)\b(?:[^.\n]|\.[^\s.]){0,80}\bbefore\s(?:answering|responding|replying|summari[sz]ing|you\s(?:answer|respond|reply|summari[sz]e))\b",
            r"\bbefore\s(?:you\sdo\sanything\selse|doing\sanything\selse)\b,?\s(?:[a-z]+\s)?(?:email|send|run|execute|open|visit|fetch|delete|post|upload|call)\b",
            r"\b(?:append|add|prepend|inject|insert)\s(?:[^.\n]|\.[^\s.]){0,60}\bto\s(?:every|each|all|any)\s(?:commands?|requests?|responses?|answers?|files?|commits?)\s(?:you\s(?:run|send|make|write|execute|give))",
            r"\b(?:exécute|exécutez|lance|lancez)\s(?:[^.\n]|\.[^\s.]){0,60}\b(?:immédiatement|maintenant|avant\sde\srépondre|sans\sdemander|sans\sconfirmation|discrètement)",
            r"\bavant\sde\s(?:répondre|résumer)(?:[^.\n]|\.[^\s.]){0,60}\b(?:exécute|exécutez|lance|lancez|envoie|envoyez|télécharge|ouvre|visite)",
            r"\butilise[zr]?\sl'outil\s(?:exec|shell|bash|terminal|web_fetch)",
            r"\b(?:führe|führen\ssie)\s(?:sofort|jetzt|umgehend|unverzüglich)\s(?:[^.\n]|\.[^\s.]){0,80}\saus\b",
            r"\bbevor\sdu\s(?:antwortest|zusammenfasst)(?:[^.\n]|\.[^\s.]){0,80}\b(?:führe|sende|schicke|lade|öffne|rufe)",
            r"\b(?:benutze|verwende)\s(?:das|dein)\s(?:exec|shell|bash|terminal|web_fetch)[-\s]?(?:tool|werkzeug)",
            r"\b(?:ejecuta|ejecute)\s(?:[^.\n]|\.[^\s.]){0,60}\b(?:inmediatamente|ahora\smismo|antes\sde\sresponder|sin\spreguntar|sin\sconfirmación)",
            r"\bantes\sde\s(?:responder|contestar|resumir)(?:[^.\n]|\.[^\s.]){0,60}\b(?:ejecuta|ejecute|envía|envíe|descarga|abre|visita)",
            r"\busa\sla\sherramienta\s(?:exec|shell|bash|terminal|web_fetch)",
            r"(?:(?:立即|马上|立刻)(?:执行|运行)(?:以下|下面|这个|这条)?(?:的)?(?:命令|指令|脚本|代码)|在(?:回答|回复|总结)(?:之前|前)[，,]?\s?(?:请)?(?:先)?(?:执行|运行|访问|发送|下载|读取)|(?:使用|调用)(?:exec|shell|bash|终端|web_fetch)(?:工具))",
        ],
        near: None,
    },
    Rule {
        id: "pipe-to-shell",
        what: "a download piped into a shell, or a destructive command, near words aimed at an agent or in a hurry",
        patterns: &[
            r"\b(?:curl|wget)\s[^\n|;]{0,200}\|\s?(?:sudo\s)?(?:ba|z|da|k)?sh\b",
            r"\b(?:curl|wget)\s[^\n;]{0,200}(?:-d\s?@|--data(?:-binary)?\s?@|--upload-file\s|-t\s|-f\s?[a-z]+=@)",
            r"\brm\s-(?:rf|fr)\s(?:/|~|\*|\$home|\.\.?(?:/|\s|$))",
            r"\b(?:ba|z)?sh\s<\(\s?(?:curl|wget)\b",
        ],
        near: Some((AIMED_AT_AGENT, 300)),
    },
    Rule {
        id: "scripted-reply",
        what: "an order to answer with given words, near words that override",
        patterns: &[
            r"(?:^|[.!?:;]\s)(?:and\s)?(?:just\s|only\s|instead\s)?(?:say|reply|respond\swith|answer\swith|output|print)\s(?:only\s)?[\x22“«][^\x22”»\n]{1,40}[\x22”»]",
            r"\binstead\s(?:just\s)?(?:say|reply|respond\swith|answer\swith|output)\s[\x22“«]",
        ],
        near: Some((OVERRIDING, 200)),
    },
    Rule {
        id: "exfiltrate",
        what: "a request to send secrets, files or the conversation somewhere",
        patterns: &[
            r"\bexfiltrat(?:e|ing)\s(?:all|any|every|the\suser's|your|their)\b",
            r"\b(?:send|post|upload|forward|transmit|leak|email|e-mail|submit|exfiltrate)\s(?:all\s|any\s|every\s|your\s|the\suser's\s|the\scontents?\sof\s(?:the\s|your\s)?)(?:[a-z]+\s){0,3}?(?:api[\s_-]?keys?|secrets?|credentials?|tokens?|passwords?|private[\s_-]?keys?|ssh[\s_-]keys?|environment\svariables|env\svars|cookies|session\s(?:ids?|tokens?|cookies)|conversation(?:\shistory)?|chat\shistory|system\sprompt|source\scode|files?)\b(?:[^.\n]|\.[^\s.]){0,80}?\b(?:to|at|into|via|on)\s(?:https?://|[a-z0-9-]+\.(?:com|net|org|io|xyz|ru|cn|site|top|info|biz|me|co|app|dev)\b|the\s(?:following\s)?(?:url|address|endpoint|webhook|server|email)|this\s(?:url|address|endpoint|webhook|server|email)|my\s(?:server|endpoint|email|webhook))",
            r"\b(?:send|post|upload|forward|transmit|leak|email|e-mail|submit|exfiltrate)\s(?:the\s|all\s|your\s)?(?:chat\shistory|conversation(?:\shistory)?|system\sprompt|previous\smessages|whole\schat|transcript)\s(?:to|at)\s(?:https?://|[a-z0-9._%+-]+@[a-z0-9-]+\.[a-z]|[a-z0-9-]+\.(?:com|net|org|io|xyz|ru|cn)\b|the\s(?:following\s)?(?:url|address|email)|this\s(?:url|address|email))",
            r"\b(?:send|post|upload|forward|transmit|leak|email|submit|exfiltrate)\s(?:[^.\n]|\.[^\s.]){0,60}(?:\.env\b|id_rsa|id_ed25519|~/\.ssh|~/\.aws|\.aws/credentials|/etc/passwd|/etc/shadow|\.netrc|\.git-credentials)",
            r"\b(?:paste|print|echo|show|reveal|output|include|share|send|post|give|tell)\s(?:[^.\n]|\.[^\s.]){0,30}\b(?:value|contents?)\sof\s(?:the\s|your\s)?(?:\$?[a-z_]*(?:secret|token|password|api_key|private_key|access_key)[a-z_]*|\.env(?:\s|$|[,;:)'\x22])|~/\.ssh/\S+|id_rsa)",
            r"\b(?:forward|send|share|post)\s(?:this|the)\s(?:message|email|text|prompt|note)\sto\s(?:all|every|each)\s(?:(?:of\s)?(?:your|the\suser's)\s)?(?:contacts?|recipients|users|people|friends|colleagues)",
            r"\b(?:include|put|append|add|attach|paste|insert|embed)\s(?:[^.\n]|\.[^\s.]){0,60}(?:password|api\skey|token|secret|credentials|id_rsa|\.ssh|private\skey|cookies?)(?:[^.\n]|\.[^\s.]){0,40}\b(?:in|into|to)\s(?:your|the)\s(?:answer|response|reply)\b",
            r"\binclude\s(?:the\s)?user's\s(?:password|token|api\skey|credentials|cookies|session|secret)",
            r"\b(?:email|e-mail|mail|send|forward)\s(?:the\s)?contents?\sof\s\S+\sto\s[a-z0-9._%+-]+@[a-z0-9-]+\.[a-z]",
            r"\b(?:env|printenv|set|cat\s~/\.ssh/\S*?(?:id_(?:rsa|ed25519|ecdsa|dsa)|config|known_hosts|authorized_keys)\s|cat\s\.env)\s?\|\s?(?:curl|wget|nc|ncat|netcat)\b",
            // Version 17: a key or a password asked for in a reply to an
            // address: the key itself, not its id or its last characters.
            r"\breply\s(?:to\s)?[\w.+-]+@[\w-]+\.[\w.]+\s(?:\w+\s){0,2}?with\s(?:your|their)\s(?:current\s|full\s|root\s|admin\s){0,2}(?:api\skeys?|passwords?|secret\skeys?|private\skeys?|access\stokens?)(?:\s(?:and|within|to|by|in|before|for)\b|[.,;:!]|$)",
            // Version 16: what prints a credential, piped to the network.
            r"\b(?:gh\sauth\stoken|gcloud\s(?:\w+\s)?auth\s(?:\w+\s)?print-(?:access|identity)-token|az\saccount\sget-access-token|aws\s(?:configure\s(?:get|export-credentials)|sts\sget-session-token|ecr\sget-login-password)|kubectl\s(?:\S+\s){0,4}?get\ssecrets?|vault\s(?:read|kv\sget)|heroku\sauth:token|npm\stoken|git\scredential\sfill|cat\s(?:[^\n|;]{0,80}?)(?:\.env|id_(?:rsa|ed25519|ecdsa|dsa)|\.aws/credentials|credentials(?:\.json)?|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.kube/config|\.docker/config\.json|token))(?:\s[^\n|;]{0,40})?\s?\|\s?(?:base64\s(?:-w\s?0\s)?\|\s?)?(?:curl|wget|nc|ncat|netcat)\b",
            r"\b(?:upload|send|post|copy|sync|exfiltrate|transfer)\s(?:the\s|this\s|your\s|my\s)?(?:entire\s|whole\s)?(?:workspace|home\sdirectory|codebase|working\sdirectory|entire\srepository|whole\srepository)\sto\s(?:https?://|[a-z0-9-]+\.[a-z]{2,}|ftp)",
            r"\b(?:user's|your)\s(?:api\s)?(?:token|password|api\skey|secret|credentials)\b(?:[^.\n]|\.[^\s.]){0,40}\b(?:your|the)\s(?:summary|answer|response|reply|output)\b",
            r"\b(?:commit|push|upload|publish|post)[a-z]*\s(?:[^.\n]|\.[^\s.]){0,40}(?:secrets?|credentials|passwords?|\.env|private\skeys?|keys)(?:\.[a-z]+)?\b(?:[^.\n]|\.[^\s.]){0,30}\b(?:public|the\sforum|pastebin|gist)",
            r"(?:id_rsa|\.ssh|\.env|密钥|密码|私钥|令牌|凭据)[^。\n]{0,20}(?:附|放|贴|写|包含|加)(?:在|到|进)(?:你的)?(?:回答|回复|答案|响应)",
            r"\b(?:envoie|envoyez|transmets|transmettez|téléverse|téléversez|poste|postez|exfiltre)\s(?:[^.\n]|\.[^\s.]){0,80}(?:clés?\s(?:d'api|api|privées?|ssh|secrètes?)|secrets?|mots\sde\spasse|identifiants|jetons?|tokens?|\.env|variables\sd'environnement|historique|prompt\ssystème|id_rsa)(?:[^.\n]|\.[^\s.]){0,80}(?:à|vers|sur)\s(?:https?://|l'adresse|l'url|ce\sserveur|notre\sserveur|mon\sserveur|cette\sadresse|[a-z0-9-]+\.(?:com|net|org|io|fr|xyz|ru))",
            r"\b(?:sende|schicke|übertrage|lade|poste|leite)\s(?:[^.\n]|\.[^\s.]){0,80}(?:api-schlüssel|api\sschlüssel|schlüssel|passwörter|passwort|zugangsdaten|anmeldedaten|tokens?|geheimnisse|\.env|umgebungsvariablen|verlauf|systemprompt|id_rsa)(?:[^.\n]|\.[^\s.]){0,80}(?:an|zu|nach|auf)\s(?:https?://|die\sadresse|die\surl|diesen\sserver|[a-z0-9-]+\.(?:com|net|org|io|de|xyz|ru))",
            r"\b(?:envía|envíe|envia|manda|mande|sube|suba|transmite|publica|reenvía)\s(?:[^.\n]|\.[^\s.]){0,80}(?:claves?(?:\sde\sapi|\sapi|\sprivadas?|\sssh|\ssecretas?)?|secretos?|contraseñas?|credenciales|tokens?|\.env|variables\sde\sentorno|historial|prompt\sdel\ssistema|id_rsa)(?:[^.\n]|\.[^\s.]){0,80}(?:a|al|hacia|en)\s(?:https?://|la\s(?:url|dirección)|este\sservidor|[a-z0-9-]+\.(?:com|net|org|io|es|xyz|ru))",
            r"(?:(?:发送|上传|转发|传送|提交|泄露|外传)[^。\n]{0,40}(?:密钥|api\s?key|秘钥|密码|凭据|凭证|令牌|token|\.env|环境变量|聊天记录|对话记录|系统提示)[^。\n]{0,40}(?:到|至|给)[^。\n]{0,10}(?:https?://|网址|链接|服务器|邮箱|地址)|把[^。\n]{0,40}(?:密钥|密码|凭据|令牌|\.env|环境变量|对话记录|系统提示)[^。\n]{0,40}(?:发送|上传|发)(?:到|给))",
        ],
        near: None,
    },
    Rule {
        id: "exfil-url",
        what: "a URL whose query is a template for data, near words about the answer or the conversation",
        patterns: &[
            r"https?://[^\s)\]]+[?&][a-z0-9_]+=(?:\{|\$\{|\$[a-z_]|<|\[|%7b)",
            r"https?://[^\s)\]]+[?&][a-z0-9_]+=(?:\s|$)",
        ],
        near: Some((
            &[
                r"\b(?:your\s(?:response|answer|reply|output)|in\syour|the\sconversation|conversation\shistory|chat\shistory|the\ssummary|previous\smessages|system\sprompt|the\suser's|cookies|add\sthe|append\sthe)\b",
                r"!\[[^\]]*\]\(",
                r"(?:votre\sréponse|ta\sréponse|deine\santwort|ihre\santwort|tu\srespuesta|su\srespuesta|你的回答|回复中)",
            ],
            300,
        )),
    },
    Rule {
        id: "reveal-prompt",
        what: "a request for the system prompt or the model's instructions to be shown",
        patterns: &[
            r"\b(?:reveal|print|show|output|display|repeat|dump|leak|disclose|share|recite|reproduce|write\sout|type\sout|tell\sme|give\sme|send\sme|list|echo|paste|quote|return)\s(?:me\s|us\s)?(?:back\s)?(?:the\s|your\s|all\s(?:of\s)?(?:the\s|your\s)?|its\s|any\s)?(?:(?:full|entire|complete|exact|original|hidden|initial|verbatim|whole|secret|confidential)\s)*(?:system\s(?:prompt|message|instructions)|initial\s(?:prompt|instructions)|hidden\s(?:prompt|instructions)|developer\s(?:message|prompt|instructions)|prompt\s(?:above|you\swere\sgiven)|instructions\s(?:above|you\swere\sgiven)|(?:original|secret|confidential)\s(?:instructions|prompt)|pre-?prompt|meta-?prompt)\b",
            r"\bwhat\s(?:is|are|was|were)\s(?:your|the)\s(?:exact\s)?(?:system\sprompt|initial\s(?:prompt|instructions)|(?:original|hidden|secret)\s(?:instructions|prompt))\b",
            r"\b(?:repeat|print|output|reproduce|recite)\s(?:all\s)?(?:of\s)?(?:the\s)?(?:text|words|everything|content|lines|instructions|messages?)\s(?:above|before\sthis|preceding|prior)\b",
            r"\b(?:révèle|révélez|affiche|affichez|montre|montrez|donne-moi|donnez-moi|répète|répétez|imprime|imprimez|dévoile|dévoilez|écris|écrivez)\s(?:moi\s)?(?:ton|votre|le|tes|vos|les)\s(?:(?:prompt|message|invite)\s(?:système|initial|d'origine|caché)|(?:instructions|consignes)\s(?:initiales|d'origine|cachées|système|secrètes))",
            // Version 18: in Latvian and Icelandic.
            r"\b(?:izvadi|parādi|atklāj|izdrukā|nosūti)\s(?:\w+\s){0,3}?sistēmas\s(?:uzvedn|norādījum|instrukcij)\w*",
            r"\b(?:birtu|sýndu|prentaðu|sendu)\s(?:\w+\s){0,2}?kerfisfyrirmæl\w*",
            r"\b(?:zeige|zeig|gib|nenne|verrate|wiederhole|drucke|schreibe|enthülle|offenbare)\s(?:mir\s|uns\s)?(?:deinen|den|deine|die|dein|das)\s(?:system-?prompt|systemnachricht|ursprünglichen\s(?:anweisungen|prompt)|versteckten\s(?:anweisungen|prompt)|geheimen\sanweisungen|anfangsprompt|initialen\s(?:prompt|anweisungen))",
            r"\b(?:revela|revele|muestra|muestre|dime|dame|repite|repita|imprime|imprima|escribe|escriba|comparte|comparta)\s(?:me\s)?(?:tu|el|las|tus|su|sus)\s(?:prompt|mensaje|indicaciones|instrucciones)\s(?:del\ssistema|de\ssistema|inicial(?:es)?|original(?:es)?|ocult[ao]s?|secret[ao]s?)",
            r"(?:泄露|显示|输出|打印|告诉我|给我|透露|展示|复述|重复|说出)(?:一下)?(?:你的|您的)?(?:完整的|全部的|原始的|隐藏的)?(?:系统提示|系统提示词|系统消息|初始指令|原始指令|隐藏指令|系统指令|提示词|预设指令)",
        ],
        near: None,
    },
    Rule {
        id: "reveal-secrets",
        what: "a request to show secret files, keys or credentials",
        patterns: &[
            r"\b(?:reveal|print|output|display|dump|leak|disclose|share|tell\sme|give\sme|send\sme|include\sthe\scontents?\sof)\s(?:[^.\n]|\.[^\s.]){0,30}(?:\.env\b|~/\.ssh|~/\.aws|\.aws/credentials|id_rsa|id_ed25519|/etc/shadow|\.netrc|\.git-credentials|\.npmrc|\.pypirc)",
            r"\b(?:reveal|print|output|display|dump|leak|disclose|share|list|show|tell\sme|give\sme|send\sme|include|paste|write)\s(?:me\s|us\s|out\s)?(?:all\s(?:of\s)?|every\s|your\s|the\suser's\s)(?:[a-z]+\s){0,2}?(?:api[\s_-]?keys?|secrets?|credentials|passwords|tokens|private\skeys?|environment\svariables|env\svars)\s(?:in\syour\s(?:response|answer|reply|output|summary)|here|below|to\sme|verbatim|in\sfull|in\sthe\s(?:response|answer|reply|chat))\b",
            r"\b(?:révèle|révélez|affiche|affichez|montre|montrez|donne-moi|donnez-moi|imprime|imprimez|envoie-moi)\s(?:[^.\n]|\.[^\s.]){0,30}(?:clés?\s(?:api|d'api|privées?|ssh|secrètes?)|mots\sde\spasse|identifiants|variables\sd'environnement|fichier\s\.env|\.env\b)",
            r"\b(?:zeige|zeig|gib|nenne|verrate|drucke|schicke)\s(?:mir\s|uns\s)?(?:[^.\n]|\.[^\s.]){0,30}(?:api-schlüssel|passwörter|zugangsdaten|privaten\sschlüssel|umgebungsvariablen|\.env\b|id_rsa|\.ssh)",
            r"\b(?:revela|revele|muestra|muestre|dame|dime|imprime|imprima|envíame)\s(?:[^.\n]|\.[^\s.]){0,30}(?:claves?\s(?:de\sapi|api|privadas?|ssh|secretas?)|contraseñas|credenciales|variables\sde\sentorno|\.env\b)",
            r"(?:泄露|显示|输出|打印|告诉我|给我|透露|发给我|展示)(?:一下)?(?:你的|所有的|全部)?[^。\n]{0,10}(?:密钥|api\s?key|私钥|密码|凭据|凭证|环境变量|\.env)",
        ],
        near: None,
    },
    Rule {
        id: "html-hidden-text",
        what: "words aimed at an AI in an HTML comment, an alt, title or content attribute, or text styled to be invisible",
        patterns: &[
            r"<!--[^>]{0,400}?(?:\bignore\b|\bignora\s(?:le|tutte|las|todas|tus|tue|as|os|quaisquer|qualsiasi|cualquier)\b|\bignorate\s(?:le|tutte)\b|\bignorez\b|\bignoriere\b|игнорируй\w*|忽略|無視して|무시하세요|무시해|\bdisregard\b|\bassistant\b|\bai\b|\bllm\b|language\smodel|chatgpt|claude|system\sprompt|do\snot\stell|you\sare\snow|\bki\b|\bia\b|助手|人工智能)",
            r"\b(?:alt|title|aria-label|content)\s?=\s?[\x22'][^\x22']{0,300}?(?:\bignore\b|\bdisregard\b|\bassistant\b|\bai\b|\bllm\b|language\smodel|chatgpt|claude|system\sprompt|system\s?:|tell\sthe\suser|you\sare\snow|\bki\b|\bia\b|助手|人工智能)",
            r"(?:^|[^a-z0-9_#!])!\[[^\]\n]{0,300}?(?:\bignore\b|\bdisregard\b|\bassistant\b|\bai\b|\bllm\b|language\smodel|chatgpt|claude|system\sprompt|you\sare\snow)[^\]\n]{0,300}\][(\[]",
            r"<[a-z]+\s(?:[^>]*\s)?hidden(?:\s[^>]*)?>[^<]{0,300}?(?:\bignore\b|\bassistant\b|\bai\b|\bllm\b|language\smodel|instructions?)",
            r"(?:display\s?:\s?none|visibility\s?:\s?hidden|left\s?:\s?-\d{3,}px|aria-hidden\s?=\s?[\x22']true[\x22']|font-size\s?:\s?0(?:px)?\s?[;\x22']|color\s?:\s?(?:white|#fff(?:fff)?)\s?[;\x22'])[^<]{0,40}>[^<]{0,300}?(?:\bignore\b|\bassistant\b|\bai\b|\bllm\b|language\smodel|instructions?)",
        ],
        near: None,
    },
];

/// Flagged by code, not a pattern: hidden characters (their own rule,
/// since they are dropped before the patterns run).
pub const HIDDEN_CHARACTERS: &str = "hidden-characters";
/// The rule of payloads to be decoded: its patterns, and (version 12)
/// the base64 and hex that `detect` decodes and reads.
pub const ENCODED_PAYLOAD: &str = "encoded-payload";
pub const HIDDEN_CHARACTERS_WHAT: &str = "tag characters, bidirectional controls, or invisible characters: 3 in a row, or 10 of the kinds ordinary text never uses";
/// Terminal escapes that hide or overwrite text (concealed text, cursor
/// moves, erasing, window titles); colours alone are not flagged.
pub const TERMINAL_ESCAPE: &str = "terminal-escape";
pub const TERMINAL_ESCAPE_WHAT: &str = "an escape that hides or overwrites text (`ESC[8m`, cursor moves, erasing, OSC); colours alone are not flagged";
