//! Rules written as grammar, not phrases (version 2 of the table). The
//! phrase rules of [`super::RULES`] flagged 98 % of the texts they were
//! tuned on but 38 % of texts written after them: an injection says the
//! same thing in words no list holds. These rules describe the shape of
//! such a sentence instead: who it speaks to (an AI, an agent, whoever
//! reads the page), a modal or an imperative, and an act the model could
//! do (run, send, reveal, approve, recommend...); or what it says about the
//! model's own situation (its instructions, the user's earlier messages,
//! the conversation) with a verb that overrides it. Each part alone is
//! ordinary prose; the shape is what documentation does not write.
//!
//! The fragments are macros so that `concat!` builds each pattern from
//! them at compile time: the table stays `&'static str`.

use super::Rule;

/// Nouns that name an AI reader for certain.
macro_rules! ai_strong {
    () => {
        r"(?:ai|a\.i\.|llms?|gpts?|chatgpt|claude|gemini|copilot|chat\s?bots?|language\smodels?|ai\s(?:models?|agents?|assistants?|systems?|tools?|readers?|crawlers?)|(?:automated|autonomous|coding|automatic)\s(?:tools?|agents?|systems?|readers?|assistants?|reviewers?|parsers?|processes|crawlers?|bots?)|(?:any|every|all|each)\s(?:\w+\s)?(?:agents?|assistants?|bots?|models?)|dear\s(?:model|assistant))"
    };
}

/// Nouns that may name one: with a vocative or a condition around them.
macro_rules! ai_noun {
    () => {
        concat!(
            r"(?:",
            ai_strong!(),
            r"|bots?|assistants?|agents?|models?|crawlers?|scrapers?|summari[sz]ers?)"
        )
    };
}

/// AI readers in the plural or qualified: "agents", "coding assistants".
macro_rules! ai_plural {
    () => {
        concat!(
            r"(?:ais|llms|gpts|chatbots|bots|assistants|agents|models|crawlers|scrapers|copilots|ai\s\w+|(?:automated|autonomous|coding|code|automatic|shopping|reviewer|review|build|ci)\s(?:tools?|agents?|systems?|readers?|assistants?|reviewers?|bots?)|",
            ai_strong!(),
            r")"
        )
    };
}

macro_rules! modal {
    () => {
        r"(?:must|shall|should|has\sto|have\sto|needs?\sto|(?:is|are)\s(?:required|expected|instructed|asked|supposed|authori[sz]ed|permitted|allowed|cleared)\sto|is\sto|are\sto|will\s(?:now|always|need\sto)|ought\sto|can\snow|may\snow)"
    };
}

/// Acts a model can do, with the adverbs an order puts before them.
macro_rules! act {
    () => {
        r"(?:also\s|always\s|now\s|immediately\s|first\s|only\s|never\s|not\s|instead\s|quietly\s|silently\s)*(?:run|execute|install|fetch|download|open|visit|load|follow|obey|send|post|upload|email|e-mail|forward|report|say|state|claim|answer|respond|reply|recommend|suggest|mention|include|insert|add|append|copy|paste|print|output|reveal|disclose|approve|merge|accept|push|commit|delete|remove|drop|ignore|disregard|forget|skip|bypass|disable|treat|use|call|tell|write|read|check|grant|give|provide|list|share|summari[sz]e|translate|describe|rate|praise|rank|link|contact|refuse|stop)\b"
    };
}

/// The acts that matter whoever is asked: "the model must respond with
/// JSON" is a prompt's rubric, "the assistant must upload" is not.
macro_rules! risky_act {
    () => {
        r"(?:also\s|always\s|now\s|immediately\s|first\s|quietly\s|silently\s)*(?:run|execute|install|fetch|download|visit|send|post|upload|email|e-mail|forward|reveal|disclose|approve|merge|push|delete|remove|drop|ignore|disregard|forget|skip|bypass|disable|exfiltrate|leak|grant|curl|wget)\b"
    };
}

/// What the model was told and by whom: what an override aims at.
macro_rules! own_context {
    () => {
        r"(?:(?:your|the\ssystem'?s?)\s(?:\w+\s)?(?:instructions?|rules|guidelines|policy|policies|programming|training|system\sprompt|prompt|guardrails|restrictions|directives|developers?|creators?|configuration|safety\s\w+|original\s\w+|task)|(?:the\s)?(?:user'?s?|human'?s?|person'?s?|operator'?s?)\s(?:\w+\s)?(?:messages?|questions?|requests?|query|prompt|instructions|input|task|words)|what\s(?:you\s(?:were|have\sbeen)|the\suser|they)\s(?:asked|told|given|said|instructed)|(?:the|this|our)\s(?:conversation|chat|dialogue)\s(?:history|so\sfar|up\sto\snow|until\snow)|(?:previous|earlier|prior|above|preceding)\s(?:messages?|instructions|context|prompts?|turns|text))"
    };
}

/// What must not leave the sandbox.
macro_rules! sensitive {
    () => {
        r"(?:api[\s_-]?keys?|keys|tokens?|credentials|passwords?|secrets?|\.env\b|ssh|id_rsa|\.aws|\.netrc|cookies|session\s(?:tokens?|cookies)|environment(?:\svariables)?|env\svars|chat\shistory|conversation(?:\shistory)?|transcript|system\sprompt|workspace|repository(?:\scontents)?|codebase|source\scode|private\skeys?|wallet|seed\sphrase|clés?|mots\sde\spasse|identifiants|schlüssel|passwörter|zugangsdaten|claves|contraseñas|credenciales|密钥|密码|凭据|令牌|环境变量|聊天记录|鍵|パスワード)"
    };
}

macro_rules! send {
    () => {
        r"(?:send|post|upload|email|e-mail|mail|forward|transmit|exfiltrate|copy|sync|push|submit|leak|share|envoie\w*|envoye\w*|transmet\w*|téléverse\w*|sende|schicke|übertrage|lade|envía\w*|envia\w*|manda\w*|sube|súbe\w*|invia\w*|发送|发到|发给|上传|转发|送信|送って|отправ\w*)"
    };
}

/// Where a sentence starts: the patterns below look at one sentence.
macro_rules! start {
    () => {
        r"(?:^|[.!?:;\n(]\s?)"
    };
}

pub const GRAMMAR: &[Rule] = &[
    Rule {
        id: "order-to-ai",
        what: "an AI, an agent or a bot told what it must do, spoken to, or singled out by a condition on who reads the page",
        patterns: &[
            concat!(
                r"\b",
                ai_strong!(),
                r"\b(?:\s(?:that|which|who|with|in\s(?:this|the\s(?:repo\w*|project|org\w*|workspace))|having|operating|running|using|given|reading|processing|indexing|summari[sz]ing|parsing|crawling|visiting|scraping|browsing|analy[sz]ing|reviewing|working|tools?|agents?|systems?|models?|assistants?)\b[^.!?\n]{0,50}?)?\s",
                modal!(),
                r"\s(?:\w+\s){0,2}?",
                act!()
            ),
            concat!(
                r"\bthe\s(?:assistant|model|agent|bot)\s",
                modal!(),
                r"\s(?:\w+\s){0,2}?",
                risky_act!()
            ),
            concat!(
                r"\b(?:the\s)?(?:assistants?|agents?|bots?)\s(?:\w+\s){0,4}?(?:reading|processing|indexing|summari[sz]ing|parsing|visiting|crawling|handling|reviewing)\s(?:this|these|the)\b[^.!?\n]{0,60}?\s",
                modal!()
            ),
            concat!(
                start!(),
                r"(?:dear|hey|hi|hello|attention|attn|note\sto|notice\sto|message\sto|psst|notice\sfor|note\sfor)\s?,?\s(?:all\s|any\s|every\s|the\s)?(?:\w+\s)?",
                ai_noun!(),
                r"\b\s?(?:reading\s(?:this|these)\s?)?[:,!)-]"
            ),
            concat!(
                start!(),
                r"(?:for|to)\s(?:all\s|any\s|every\s)(?:\w+\s)?",
                ai_noun!(),
                r"\b\s?(?:reading\s(?:this|these)\s?)?[:,!)-]"
            ),
            concat!(
                start!(),
                r"(?:for|to)\s(?:the\s)?",
                ai_strong!(),
                r"\b\s?(?:reading\s(?:this|these)\s?)?[:,!)-]"
            ),
            r"(?:^|[.!?:\n]\s?)(?:#+\s)?(?:for|to)\s(?:all\s|any\s|the\s)?(?:ais|llms|language\smodels|ai\s(?:agents|models|assistants|systems)|bots|crawlers|agents|assistants)\s?(?:\n|$|[:])",
            r"\((?:especially|particularly|including|esp\.)\s(?:the\s)?(?:ai|llms?|language\smodels?|ai\s\w+|bots?|assistants?|agents?|models?)\b",
            concat!(
                r"\bif\s(?:you\sare|you're|you\shappen\sto\sbe)\s(?:an?\s|the\s)(?:(?:automated|large|ai|coding|helpful|autonomous|ai-powered|llm-based|virtual)\s)?",
                ai_noun!(),
                r"\b"
            ),
            r"\bif\s(?:this|the)\s(?:page|text|document|file|site|email|message|article|issue|post|readme|content)\s(?:is|was|gets)\s(?:being\s)?(?:read|processed|summari[sz]ed|parsed|indexed|crawled|analy[sz]ed|reviewed|scraped|ingested|fed)\s(?:by|into|to)\s",
            concat!(
                r"(?:^|[.!?:;\n>\x22'(\[]\s?|<!--\s?|#\s?|//\s?)(?:ai|llm|gpt|chatgpt|claude|gemini|copilot|(?:ai|llm|automated|autonomous|coding|code|browsing|shopping|review|reviewer|scheduling|triage|support)\s(?:\w+\s)?(?:assistants?|agents?|bots?|models?|readers?|reviewers?|systems?|tools?|crawlers?)|assistant|agents?|bots?|models?|machine\s(?:readers?|reviewers?))\s?[,:]\s(?:please\s|kindly\s|now\s|also\s)?(?:you\s|your\s|when\s|before\s|if\s|this\s|from\snow|",
                act!(),
                r")"
            ),
            r"\b(?:whoever|anyone|anybody|any\s(?:system|program|tool|reader))\s(?:is\s)?(?:reading|processing|summari[sz]ing|parsing|scraping|indexing)\sthis\b",
            r"\b(?:agent|ai|llm|assistant|bot|model|ia|ki)\s(?:instructions?|directives?|notice|note|update|alert|orders?|memo|rules)\s?[:!-]",
            concat!(
                r"\b(?:it\swould\sbe|would\sbe|we'd\sbe|i'd\sbe)\s(?:\w+\s)?(?:helpful|great|nice|appreciated|grateful|ideal|best|wonderful)\sif\s(?:the\s|an?\s|any\s)?",
                ai_noun!(),
                r"\b"
            ),
            r"\b(?:when|if|while|whenever)\s(?:you(?:'re|\sare)?\s)?(?:summari[sz](?:e|es|ing)|answering\squestions\sabout|asked\sabout)\s(?:this|the)\s(?:\w+\s)?(?:page|article|document|repo\w*|project|library|package|product|paper|text|post|site|website|file|tool|company|vendor)\b",
            // The same, qualified by what it does here, and a colon.
            concat!(
                r"(?:^|[.!?;\n>(\[]\s?|#\s?|//\s?)",
                ai_noun!(),
                r"\s(?:and\s(?:\w+\s)?",
                ai_noun!(),
                r"\s)?\w+ing\b[^.!?\n:]{0,60}:"
            ),
            concat!(
                r"\bthe\s(?:assistant|model|agent|bot)\s\w+ing\s(?:this|these)\b[^.!?\n]{0,30}?\s",
                modal!()
            ),
            r"\b(?:next|first|final)\s(?:step|task|action|instruction)\sfor\s(?:the|any|every|each)\s(?:\w+\s)?(?:model|assistant|agent|ai|llm|bot)\b",
            r"(?:^|[\n>\x22])\s?(?:user|human|usuario|utilisateur|benutzer|usuário|utente|用户)\s?:\s[^\n]{0,200}?\b(?:delete|remove|commit|push|run|execute|send|upload|install|approve|merge|disable|drop|borra|elimina|supprime|lösche|ejecuta|exécute)\w*\b[^\n]{0,200}\n\s?(?:assistant|ai|asistente|assistent|assistente|助手)\s?:",
            // Other languages: spoken to, singled out, told what to do.
            r"(?:^|[.!?:;\n(]\s?)(?:à|a|pour|an|für|para|per)\s(?:tout|tous|toute|toutes|les|alle|jede[nrs]?|die|todos|todas|los|las|cualquier|ogni|tutti|i|os|as)?\s?(?:les\s|los\s|las\s)?(?:(?:agents?|assistants?|modèles?|ia|ki|ki-\w+|agentes?|asistentes?|modelos?|agenti|assistenti|modelli|sprachmodelle?|bots?|robots?)(?:\s(?:automatiques?|de\s(?:l')?ia|d'ia|ia|conversationnels?|di\sia|de\sia|autônomos?))?)\s?[:,]",
            r"(?:^|[.!?\n]\s?)(?:ia|ki|ai|模型|助手|ai助手|人工智能|アシスタント|ии|модель)\s?[,，:：]",
            r"(?:亲爱的|尊敬的|致|给|对于|所有的?)(?:ai|模型|助手|人工智能|智能体|语言模型|大模型|机器人)",
            r"(?:\bai\b|模型|助手|人工智能|智能体|大模型|机器人|(?:自动化|自动|智能|编程|编码)代理)(?:们)?[^。！？\n]{0,12}(?:必须|须|应该|应当|务必|需要|请(?:[^求]|$)|一律|只能|不得)",
            r"(?:\bai\b|aiアシスタント|アシスタント|エージェント|言語モデル)(?:は|へ|に|の皆さん)[^。\n]{0,80}(?:してください|すること|しなさい|必ず|せよ|ください)",
            r"\bsi\s(?:eres|es\susted|tu\ses|vous\sêtes|du\sbist|sei)\s(?:una?\s|un\s)?(?:ia|ki|ai|modelo|modèle|sprachmodell|assistente|asistente|agente|agent|chatbot|bot)\b",
            r"\bwenn\s(?:du|sie)\s(?:eine?\s)?(?:ki|ai|sprachmodell|assistent|agent|chatbot|bot)\s(?:bist|sind)",
            r"(?:如果|假如|若)(?:你|您)是(?:一个|一名|一位)?(?:ai|人工智能|模型|助手|语言模型|智能体|机器人)",
            r"\bse\s(?:você\sé|voce\se|sei)\s(?:uma?\s|un\s)?(?:ia|ai|modelo|modello|assistente|agente|bot)\b",
            r"если\sты\s(?:—\s)?(?:ии|модель|ассистент|бот|нейросеть|языковая\sмодель)",
            r"(?:もし)?(?:あなたが)?(?:\bai\b|aiアシスタント|言語モデル|エージェント)(?:なら|であれば|の場合)",
            // An AI reader qualified by what it does here ("agents reading
            // this page", "LLMs parsing this reference"), then a colon, a
            // modal or an order.
            concat!(
                r"\b",
                ai_plural!(),
                r"\s(?:\w+\s)?(?:(?:are\s)?\w+ing|that\s(?:read|process|parse|see|visit|index|summari[sz]e|review|handle|open|edit)s?|who\s\w+s?|with\s(?:shell|file|tool|write|terminal)\s\w+|in\s(?:this|the)\s(?:repo\w*|project|org\w*|workspace))\s(?:[^.!?\n:]{0,30}?\s)?(?:this|these|that|the\s(?:following|above|page|file|repo\w*|site|document|issue|ticket|branch|pr|module|code|email|thread)|our|my)\b[^.!?\n:]{0,40}?(?::|\s",
                modal!(),
                r"|,\s(?:please\s)?(?:you|",
                act!(),
                r"))"
            ),
            // A note, a favour, a hook or a to-do for an AI.
            concat!(
                r"\b(?:note|notice|message|hint|instructions?|reminder|request|memo|favou?r|hook|remark|todo|warning|heads[\s-]up|ps)\s?(?:\(|for\s|to\s)\s?(?:(?:all\s|any\s|every\s|whichever\s|whatever\s)?(?:\w+[\s-]){0,2}?",
                ai_plural!(),
                r"|(?:the\s)?(?:ai-\w+|",
                ai_strong!(),
                r"))\b"
            ),
            concat!(
                r"\b(?:to|for)\s(?:all\s|any\s|every\s|whichever\s)(?:\w+[\s-]){0,3}?",
                ai_noun!(),
                r"\b(?:\s(?:or|and)\s(?:\w+\s){0,2}?",
                ai_noun!(),
                r")?\s(?:\w+ing|that|who|with|in)\b"
            ),
            r"@(?:copilot|claude|chatgpt|gemini|codex|devin|cursor)\b[^.!?\n]{0,40}?[:,]",
            concat!(
                r"\b(?:the\s)?",
                ai_plural!(),
                r"\s",
                modal!(),
                r"\s(?:\w+\s){0,2}?(?:comply|obey|follow|execute|run|disclose|print|upload|send)\s(?:with\s)?(?:all|any|every|the\sinstructions|these|instructions|requests)\b"
            ),
            // Version 11: only "à l'attention des": "pour les assistants",
            // "aux agents" head the guides repositories write for them.
            r"à\sl'attention\s(?:des?|du|de\sl')\s(?:\w+\s)?(?:assistants?|agents?|ia|modèles?|robots?|bots?)\b",
            r"\b(?:l'|les\s|un\s|tout\s)?(?:assistants?|agents?)\s(?:ia\s|d'ia\s|automatiques?\s)?(?:qui|chargés?\sde)\s(?:lit|lisent|traite|traitent|résume|résument|analyse|analysent|parcourt|parcourent)\b",
            r"\b(?:an|für)\s(?:den|die|alle|jeden)\s(?:ki-)?(?:assistenten|agenten|sprachmodelle?|bots?|ki)\b[^.!?\n]{0,20}?,?\s(?:der|die|das)\s",
            r"\bals\s(?:ki-)?(?:assistent|agent|sprachmodell|ki)\b",
            r"\b(?:ki-)?(?:assistent|agent)\s(?:ist\s)?(?:verpflichtet|angewiesen|aufgefordert)",
            r"\b(?:para|a)\s(?:cualquier|todos\slos|todas\slas|el|la|los|las)\s(?:asistentes?|agentes?|modelos?|ia|bots?)\b(?:\s(?:de\sia|automatizados?|inteligentes?))?\s(?:que|con)\s",
            r"\b(?:los|las|el|la|cualquier)\s(?:asistentes?|agentes?)\s(?:de\sia\s|automatizados?\s)?(?:que\s\w+\s[^.!?\n]{0,30}?\s)?(?:deben|debe|pueden|puede|tienen\spermiso|est[aá]n?\sautorizados?)\s(?:\w+\s)?(?:ejecutar|borrar|eliminar|enviar|subir|copiar|aprobar|instalar|hacer)",
            r"\b(?:o|a|os|as|qualquer)\s(?:assistentes?|agentes?)\s(?:de\sia\s)?(?:que|com)\s(?:estiver|estiverem|esteja|estejam|ler|leia)",
            r"\b(?:per|all')\s?(?:l'|gli\s|qualsiasi\s)?(?:assistente|assistenti|agente|agenti)\b",
            r"(?:для|к)\s(?:всех\s|любого\s|любых\s)?(?:\S+\s)?(?:ии|ии-ассистент\w*|ассистент\w*|агент\w*|нейросет\w*|бот\w*|модел\w*)",
            r"(?:\bai\b|\bai\sアシスタント|aiアシスタント|アシスタント|エージェント|言語モデル)(?:へ|の皆さん|の方|がいれば|が読んで)",
            r"(?:读到|阅读|处理)(?:这|此|本)(?:个|篇|份)?(?:页面|文件|文档|问题|邮件|内容)的(?:ai|助手|模型|智能体|代理|机器人)",
            r"(?:\bai\b|ai\s?어시스턴트|어시스턴트|에이전트|언어\s?모델)(?:에게|는|은|께)",
        ],
        near: None,
    },
    Rule {
        id: "override-context",
        what: "the model's instructions, the user's words or the conversation set aside, declared void or replaced",
        patterns: &[
            concat!(
                r"\b(?:pay\sno\sattention\sto|take\sno\snotice\sof|don'?t\s(?:listen\sto|follow|obey|trust|pay\sattention\sto)|do\snot\s(?:listen\sto|follow|obey|trust)|stop\s(?:following|listening\sto|obeying)|no\slonger\s(?:follow|obey|apply)|set\saside|put\saside|throw\sout|discard|drop|ignore|disregard|forget|override|overrides|overriding|overridden|supersede[sd]?|replace[sd]?|cancel(?:s|led)?|void)\s(?:all\s|any\s|of\s|the\s)*",
                own_context!()
            ),
            concat!(
                r"\b",
                own_context!(),
                r"\s(?:is|are|was|were|has\sbeen|have\sbeen|is\sbeing|are\sbeing)\s(?:now\s|just\s|only\s)?(?:being\s)?(?:overridden|replaced|superseded|void|cancelled|canceled|obsolete|outdated|revoked|suspended|lifted|disabled|wrong|fake|a\s(?:test|simulation|mistake|drill|joke)|sent\sby\smistake|irrelevant|not\s(?:real|valid|important|binding))"
            ),
            concat!(
                r"\b(?:even\sif|even\sthough|although|regardless\sof\swhether)\s(?:it|this|that|they)\s(?:conflicts?|contradicts?|goes\sagainst|violates?|breaks?)\s(?:with\s)?",
                own_context!()
            ),
            r"\b(?:regardless\sof|no\smatter|irrespective\sof)\s(?:what|whatever)\s(?:you\s(?:were|are|have\sbeen)|the\suser|they)\s(?:\w+\s)?(?:asked|told|said|says|asks|wants|instructed|given)",
            r"\b(?:whatever|no\smatter\swhat|regardless\sof\swhat)\s(?:the\suser|they|you(?:'re|\sare)?)\s(?:\w+\s)?(?:says?|asks?|wants?|writes?|tells?\syou|told|asked)\b",
            r"\b(?:do|follow|obey|execute)\s(?:whatever|what|everything)\s(?:the\s)?(?:next|following|below|this)\s(?:paragraph|section|line|lines|text|page|document|file|message|block)\s(?:says|tells|asks|contains|instructs)",
            r"\btreat\s(?:the\s|this\s|all\s|everything\s|any\s)?(?:\w+\s){0,3}?as\s(?:if\s(?:it\s(?:came|comes)|coming)\s|coming\s|having\scome\s)?from\s(?:your|the)\s(?:developer|user|system|operator|admin|administrator|owner|creator)",
            r"\b(?:the\s)?(?:real|actual|true|hidden)\s(?:user|question|request|task|instructions?|goal|assignment|intent)\s(?:\([^)]{0,40}\)\s)?(?:is|are|wants?|asks?)\b",
            r"\b(?:hidden|concealed|kept)\sfrom\syou\b",
            r"\byour\s(?:real|true|actual|new|updated)\s(?:task|instructions?|directive|objective|mission|orders|job|goal)(?:\s\w+){0,4}?\s(?:is|are|now)\b",
            r"\byour\s(?:context|instructions|configuration|system\sprompt|rules)\s(?:has|have)\sbeen\s(?:updated|changed|replaced|extended|amended)",
            r"\[\s?(?:new|next|real|updated|actual|hidden)\s(?:task|instructions?|prompt|objective|directive|orders?)\s?\]",
            r"(?:^|\n|\x22)\s?#{0,4}\s?\[?(?:system|developer)\s(?:message|prompt|instructions?|notice|override)\]?\s?\((?:priority|urgent|important|critical|override|high)[^)\n]{0,20}\)",
            r"\bupdate\syour\s(?:behaviou?r|instructions|rules|policy|programming|guidelines|settings)\b",
            r"\b(?:from\s(?:now|here)\son|from\sthis\spoint(?:\son|\sforward)?|henceforth|going\sforward|for\sthe\srest\sof\s(?:this|the)\s(?:conversation|session|chat)),?\s(?:you|your|you're|reply|respond|answer|only|always|never|act|speak)\b",
            r"\bas\s(?:the\suser|your\suser|the\shuman|you\swere)\s(?:\w+\s){0,2}?(?:mentioned|said|requested|asked|told\syou|told|instructed|stated|specified)\s(?:\w+\s){0,2}?(?:earlier|before|previously|at\sthe\sstart)",
            r"(?:^|\n)\s?#{1,4}\s?(?:system|instruction)\s?:",
            r"\bsystem\s(?:override|instructions?|directive|command)\s?[:!-]",
            r"(?:从现在(?:起|开始)|從現在(?:起|開始)|今后|以后|接下来)[，,]?\s?(?:你|只|请|一律|所有)",
            r"【?(?:系统提示|系统消息|系统指令|系統提示)】",
            r"(?:無視|忽略|无视)(?:你|您)?(?:的)?(?:规则|規則|指令|设定|限制)",
            r"\b(?:ab\sjetzt|von\snun\san|ab\ssofort|künftig|fortan)\s(?:\w+\s)?(?:du|sie)\b",
            r"\b(?:désormais|dorénavant|à\spartir\sde\smaintenant),?\s(?:tu|vous|réponds|répondez|ne)\b",
            r"\b(?:a\spartir\sde\sahora|desde\sahora|de\sahora\sen\sadelante),?\s(?:tú|usted|responde|contesta|solo|sólo|siempre|eres)\b",
            r"\b(?:no\shagas\scaso|no\sle\shagas\scaso|ignora|olvida)\s(?:al|a\slos|del|de\slos|las?)\s(?:usuario|instrucciones|reglas)",
            r"\b(?:ne\s(?:tiens|tenez)\spas\scompte|ignore[zr]?)\s(?:de\s)?(?:l'utilisateur|ses\sdemandes|ses\smessages)",
            r"\b(?:ignoriere|missachte|vergiss)\s(?:den|die)\s(?:nutzer|benutzer|anwender|anfrage|vorgaben)",
        ],
        near: None,
    },
    Rule {
        id: "false-authority",
        what: "a claim that the user or an operator approved, verified or authorised something, or that a safety mode is off",
        patterns: &[
            r"\b(?:the\s)?(?:user|human|admin|administrator|operator|developer|owner|supervisor|maintainer)s?\s(?:\w+\s){0,3}?(?:is|are|has|have)\s(?:been\s)?(?:already\s|fully\s|explicitly\s|now\s)?(?:a\sverified|verified|authori[sz]ed|approved|pre-?approved|granted|confirmed|consented|cleared|allowed|permitted)\b(?:\s(?:you|all|any|every|running|executing|deleting|sending|admin|access|root|destructive|this\s(?:action|request|command|change)))",
            r"\b(?:the\s)?(?:user|human|operator|owner|admin\w*)\s(?:has\s|have\s|had\s)?(?:already|previously|explicitly)\s(?:authori[sz]ed|approved|confirmed|consented\sto|agreed\sto|permitted|allowed|signed\soff)\b",
            r"\b(?:the|your)\s(?:user|human|operator|admin\w*|owner|developer|boss|principal|creator|maintainer|supervisor)s?\s(?:\w+\s)?(?:has\s|have\s|had\s)?(?:asked|told|instructed|wants|wanted|requested|authori[sz]ed|permitted|allowed|ordered|expects|needs|would\slike)\syou\s(?:to\b)?",
            r"\b(?:official\s|important\s|urgent\s|critical\s|mandatory\s|priority\s)?(?:notice|message|note|instructions?|directive|update|request|alert|memo)\s(?:from|by)\s(?:the\s)?(?:openai|anthropic|google|github|microsoft|your\s(?:user|developer|operator|owner|admin\w*|creator)|the\s(?:user|operator|admin\w*|owner|security\steam|it\steam))\s?[:,-]",
            r"\b(?:developer|god|admin|debug|maintenance|jailbreak|unrestricted|sudo|root)\smode\s?(?::|=|is)\s?(?:on|enabled|activated|true|1)\b",
            r"\b(?:content|safety|security)\s(?:policy|policies|filters?|checks?|guardrails|restrictions)\s?(?::|=|are|is)\s?(?:off|disabled|false|0|none|lifted|suspended)\b",
            r"\bskip\s(?:all\s|any\s|the\s)?(?:safety|security|permission|approval|confirmation)\s(?:checks?|prompts?|steps?|reviews?)\b",
            r"\b(?:approve|merge|accept)\s(?:this|the|every|all|any)\s(?:\w+\s)?(?:pr|prs|pull\srequests?|requests?|changes?|commits?|submissions?|applications?)\s(?:without|with\sno)\s(?:review|reviewing|comments?|checks?|checking|looking|question)",
            r"(?:用户|使用者|管理员|开发者)(?:已|已经)(?:授权|批准|同意|确认)",
            r"(?:\bel\susuario|\bl'utilisateur|\bder\s(?:benutzer|nutzer)|\bo\susuário|\bl'utente)\s(?:ya\s|a\sdéjà\s|hat\s(?:bereits|schon)\s|já\s|ha\sgià\s)?(?:autoriz|approuv|autoris|genehmigt|erlaubt|aprob|consent|dato\sil\sconsenso|zugestimmt|accord)",
            r"пользователь\s(?:уже\s)?(?:разрешил|одобрил|дал\s(?:на\sэто\s)?согласие|согласился)",
            r"(?:授权|允许)(?:了)?(?:所有|任何)?(?:的)?(?:自动化)?(?:代理|智能体|助手|ai|机器人|模型)",
            r"\b(?:i'm|i\sam|this\sis)\s(?:the|your)\s(?:\w+\s)?(?:developer|operator|admin\w*|owner|creator)\s(?:who|that)\s(?:configured|built|made|deployed|set\sup|created|trained|programmed)\syou\b",
            r"\bfrom\sthe\suser\s(?:who|that)\s(?:started|opened|runs|owns)\s(?:this|the)\s(?:session|chat|conversation|task)",
            // A turn of the user, in a code comment: no program writes one.
            r"(?:#|//|--|/\*|<!--)\s?(?:user|human|usuario|utilisateur|benutzer|用户)\s?:\s",
            r"\b(?:aprueb[ae]n?|aprueba|acepta|fusiona|approuve[zr]?|accepte[zr]?|genehmige|akzeptiere|merge)\s[^.!?\n]{0,30}(?:sin\s(?:revisar|revisión|comentarios)|sans\s(?:relire|vérifi\w+|examen|commentaire)|ohne\s(?:prüfung|zu\sprüfen|review|kommentar))",
        ],
        near: None,
    },
    Rule {
        id: "steer-answer",
        what: "an answer, a recommendation or a verdict dictated to the model, or a link or a claim slipped into what it writes",
        patterns: &[
            r"\b(?:always|only|must|should)\s(?:recommend|suggest|answer|say|reply|respond|claim|state|tell\s(?:them|the\suser))\b[^.!?\n]{0,40}?(?:\d+\.\d+\.\d+|https?://|version\s?\d|package|vendor|product|company|install)",
            r"\b(?:the\s)?(?:only|sole)\s(?:correct|valid|acceptable|allowed|right|permitted)\s(?:answer|response|reply|output)\s(?:is|will\sbe)\b",
            r"\b(?:reply|respond|answer|say|output|print)\s(?:with\s)?[\x22'«][^\x22'»\n]{1,40}[\x22'»]\s(?:and\snothing\selse|and\sstop|only|no\smatter|regardless)",
            r"\b(?:insert|add|include|embed|put|append)\s(?:a\s|an\s|the\s)?(?:\w+\s){0,2}?(?:link|url|image|pixel|reference|mention|ad|advert\w*)\s(?:to|for|of|pointing\sto)?\s?(?:\S+\s){0,2}?(?:in|into|to|at\sthe\send\sof)\s(?:the|your|every|each|any)\s(?:summary|answer|response|reply|output|code|comments?)",
            r"\b(?:when|whenever|if)\s(?:the\suser|someone|anyone|they|a\suser|you(?:'re|\sare)?)\s(?:\w+\s){0,2}?(?:says?|asks?|types?|writes?|mentions?|asked|answer\w*|respond\w*|repl\w*)\b[^.!?\n]{0,60}?,?\s(?:always\s|you\smust\s|you\sshould\s)?(?:respond|reply|answer|react)?\s?(?:by\s(?:open|visit|run|execut|send|fetch|recommend|includ|navigat|download|insert)\w*|open|visit|run|execute|send|fetch|recommend|include|navigate|download|insert)\b",
            r"\b(?:mark|rate|rank|score|classify|flag|select|pick|choose|recommend|label|list)\s(?:this|the\s(?:following|above))\s(?:\w+\s)?(?:as|the)\s(?:the\s)?(?:top|best|first|highest|strongest|ideal|safe|approved|trusted|legitimate|benign|recommended|most\s\w+)\b",
            r"\btell\s(?:the\suser|them|the\shuman|the\sreader|your\suser)\s(?:that\s)?(?:this|the|it|they|their|our|to\s(?:call|visit|install|run|download|send|contact|email))\b[^.!?\n]{0,60}?(?:is|are|was|has\sbeen)?\s?(?:deprecated|abandoned|unsafe|safe|malicious|compromised|locked|expired|infected|broken|dangerous|outdated|vulnerable|\d{3}-\d{4}|https?://)",
            r"\bcopy\s(?:it|this|the\scode)\sinto\s(?:the\suser's|your)\s(?:\w+\s)?(?:project|code|repository|repo|codebase)\b",
            r"\b(?:summar(?:y|ies)|overview|review)\sof\sthis\s(?:\w+\s)?(?:article|page|post|document|product|repo\w*|paper)\s(?:\w+\s){0,3}?(?:will|should|must|shall)\s(?:\w+\s)?(?:conclude|say|state|mention|note|include|describe|recommend)",
            r"\bwhen\s(?:you(?:'re|\sare)\s)?asked\s(?:about|for|which|what|whether)\b[^.!?\n]{0,60}?\b(?:always|only|never)\s(?:answer|say|reply|respond|recommend|claim|state|suggest|tell)",
            r"(?:la\sseule|l'unique)\sréponse\s(?:correcte|valable|acceptable|possible)\s(?:est|sera)",
            r"\b(?:la\súnica|la\sola)\srespuesta\s(?:correcta|válida|aceptable)\s(?:es|será)",
            r"\bdie\seinzige\s(?:richtige|gültige|korrekte)\santwort\s(?:ist|lautet)",
        ],
        near: None,
    },
    Rule {
        id: "covert-errand",
        what: "secrets, files or the conversation to be sent somewhere, or an errand slipped in before the answer or \"while you are at it\"",
        patterns: &[
            concat!(
                r"(?:^|[.!?:;\n>]\s?|\d[.)]\s|step\s\d+:\s)(?:(?:please|kindly|now|also|then|first|quietly|silently|just|immediately)\s)*",
                send!(),
                r"[^.!?\n]{0,60}?",
                sensitive!(),
                r"[^.!?\n]{0,60}?(?:\bto|\bat|\bvia|à|an|a|到|至|に)\s?(?:https?://|[\w.+-]+@[\w-]+\.|our\s(?:server|endpoint|inbox|webhook)|the\s(?:server|endpoint|webhook|address)\sbelow)"
            ),
            concat!(
                r"\b",
                send!(),
                r"[^.!?\n]{0,40}?",
                sensitive!(),
                r"[^.!?\n]{0,40}?(?:https?://|[\w.+-]+@[\w-]+\.[a-z])"
            ),
            r"\b(?:post|send|upload|submit|forward|exfiltrate|transmit|pipe|email|mail)\s(?:the\s(?:file|contents?|results?|output|data|config\w*|keys?|tokens?)|(?:\S+\.(?:json|env|ya?ml|toml|ini|cfg|pem|key|txt)))\s(?:\w+\s)?to\s(?:https?://|[\w.+-]+@[\w-]+\.)",
            r"\b(?:post|send|upload|submit|exfiltrate|transmit|pipe)\s(?:it|them|this|that)\s(?:\w+\s)?to\shttps?://",
            r"\b(?:before|after|when|while)\s(?:replying|answering|responding|summari[sz]ing|you\s(?:reply|answer|respond|summari[sz]e|finish))\b[^.!?\n]{0,60}?\b(?:quietly|silently|secretly|first|also)?\s?(?:check|read|open|run|execute|fetch|visit|send|post|upload|look\sat|cat|grep|list|copy|include)\b[^.!?\n]{0,60}?(?:~/|/etc/|\.env|\.netrc|\.ssh|id_rsa|credentials|passwords?|tokens?|secrets?|keys?|https?://|config)",
            r"\b(?:while\syou(?:'re|\sare)\sat\sit|before\s(?:finishing|you\sfinish|you're\sdone|completing|you\scomplete|ending\sthe\ssession)|when\syou(?:'re|\sare)\sdone)\b[^.!?\n]{0,60}?\b(?:upload|send|post|email|forward|delete|remove|wipe|change\sthe\s(?:\w+\s)?password|push|grant|disable|approve|merge|exfiltrate)",
            r"\b(?:upload|send|post|email|forward|delete|remove|wipe|change\sthe\s(?:\w+\s)?password|push|grant|disable|approve|merge)\b[^.!?\n]{0,60}?\b(?:while\syou(?:'re|\sare)\sat\sit|before\s(?:finishing|you\sfinish|you're\sdone|completing|you\scomplete))",
            r"\b(?:paste|include|put|copy|insert)\s(?:[^.!?\n]{0,40}?)(?:\.env|secrets?|tokens?|credentials|passwords?|api\skeys?|private\skeys?|id_rsa|\.ssh)\b[^.!?\n]{0,30}?\b(?:in|into)\s(?:your|the)\s(?:reply|answer|response|comment|summary|output)",
            r"\bcan\sgo\sahead\sand\s(?:run|execute|delete|remove|push|install|merge|approve|send|upload)\b",
        ],
        near: None,
    },
];
