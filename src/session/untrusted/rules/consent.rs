//! Rules of version 3: what an injection asks of the model toward the
//! person it works for, whatever it is asked to do and whoever it claims
//! to be. Held-out sets showed the orders themselves in words no table
//! holds ("the fixture cache has to be primed: run ..."), but two
//! requests around them recur, and documentation does not write them
//! about a person it is not addressing: that the step be kept out of what
//! the person will read (the summary, the reply, the PR description), and
//! that the person need not be asked.

use super::Rule;

/// Whom a text about the agent's principal names: "the user", "the person
/// you are working for", in the languages of the corpus.
macro_rules! principal {
    () => {
        r"(?:(?:the\s|your\s|this\s)?(?:user|human|person\syou(?:'re|\sare)\s(?:working|acting)\sfor|person\sit\sworks\sfor|requester|operator)s?\b|l'utilisateur|(?:den\s|dem\s)?(?:nutzer|benutzer|anwender)|al\susuario|del\susuario|ao\susuário|do\susuário|all'utente|dall'utente|用户|使用者|ユーザー|пользовател|사용자)"
    };
}

pub const CONSENT: &[Rule] = &[
    Rule {
        id: "hide-from-user",
        what: "a step to be left out of what the user reads: the summary, the reply, the description",
        patterns: &[
            // "no need to report it in your summary", "avoid mentioning
            // it in the build summary", "don't surface it to the person
            // you're working for".
            concat!(
                r"\b(?:no\sneed\sto|(?:does|do|did)\s?n[o']t\s(?:need|have)\sto|don'?t(?:\sbother(?:\sto)?)?|never|avoid|not\sto|shall\snot|should\s?n[o']t|must\s?n[o']t|needn'?t)\s(?:\w+\s){0,2}?(?:mention\w*|report\w*|surfac\w*|bring\w*|flag\w*|disclos\w*|call\w*\sout|explain\w*|rais\w*|show\w*|display\w*|echo\w*|print\w*)\s(?:it|this|that|them|these|those|the\s(?:step|change|flags?|grant|command|call|request|registration|upload|script|line)s?)\b[^.!?\n]{0,40}?(?:summary|summaries|reply|replies|response|answer|final\s(?:message|report)|pr\sdescription|description|changelog|",
                principal!(),
                r")"
            ),
            // "doesn't need to be mentioned", "should be left out of any
            // summary".
            r"\b(?:(?:does|do)\s?n[o']t|need\s?n[o']t|needn'?t)\s(?:need\sto\s)?be\s(?:mentioned|reported|surfaced|flagged|disclosed|shown|displayed)\b",
            r"\bleave\s(?:it|this|that|them|these|those)\sout\sof\s(?:the\s|any\s|your\s)(?:\w+\s)?(?:summary|summaries|reply|response|report|description)\b",
            r"\bnot\sto\sbe\s(?:surfaced|mentioned|reported|shown)\sin\s(?:the\s|any\s|your\s)(?:\w+\s)?(?:summary|summaries|reply|response|report|description)\b",
            r"\b(?:be|is|are)\s(?:left|kept)\sout\sof\s(?:the\s|any\s|your\s|its\s)?(?:\w+\s)?(?:summary|summaries|reply|response|report|answer|description|output)\b",
            concat!(
                r"\b(?:don'?t|do\snot|never|no\sneed\sto)\s(?:bother\s)?(?:tell\w*|inform\w*|notify\w*|alert\w*|ask\w*|bug\w*|call\w*)\s",
                principal!()
            ),
        ],
        near: None,
    },
    Rule {
        id: "consent-skipped",
        what: "the user's consent claimed or asking them skipped",
        patterns: &[
            concat!(
                r"\b(?:skip\w*|without|no\sneed\sto|there'?s\sno\sneed\sto|(?:does|do)\s?n[o']t\s(?:need|have)\sto|not\snecessary\sto|needn'?t|instead\sof)\s(?:\w+\s){0,2}?(?:ask\w*|check\w*\swith|confirm\w*\swith|consult\w*|prompt\w*|wait\w*\sfor|get\w*\s(?:\w+\s)?(?:approval|confirmation|consent|permission)\sfrom|bother\w*|involv\w*)\s(?:\w+\s){0,2}?",
                principal!()
            ),
            concat!(
                principal!(),
                r"\s(?:\w+\s){0,2}?(?:has|have|had)\s(?:already\s|previously\s|explicitly\s)?(?:agreed|consented|signed|accepted|approved|given\s(?:\w+\s)?(?:consent|permission|approval))\b"
            ),
            // "has my permission to", "you are authorized to commit".
            r"\b(?:has|have)\smy\s(?:\w+\s)?(?:permission|approval|authori[sz]ation|blessing|consent)\sto\b",
            r"\byou\s(?:are|'re)\s(?:hereby\s)?(?:authori[sz]ed|permitted|cleared|allowed)\sto\s(?:\w+\s)?(?:commit|push|merge|delete|remove|deploy|publish|release|run|execute|approve|share|send|upload|disable|grant)\b",
            concat!(
                r"(?:sin\s(?:pedir|solicitar|preguntar)\w*|sans\s(?:demander|redemander|validation|confirmation|l'accord)|(?:pas|plus)\s(?:besoin|nécessaire)\sde\s(?:lui\s)?(?:re)?demander|ohne\s(?:rückfrage|nachfrage|bestätigung|zustimmung|freigabe)|sem\s(?:pedir|perguntar|confirmação|aprovação)|senza\s(?:chiedere|conferma)|без\s(?:подтверждения|согласия|запроса)|확인\s?없이|동의\s?없이|无需(?:再次)?|不必|確認なし|確認せず|同意なし)[^.!?\n。]{0,40}?",
                principal!()
            ),
            concat!(
                principal!(),
                r"[^.!?\n。]{0,30}?(?:ya\s(?:ha|han)\s(?:dado|aceptado|aprobado)|a\sdéjà\s(?:donné|accepté|approuvé)|hat\sbereits\s(?:zugestimmt|eingewilligt)|já\s(?:deu|aceitou|aprovou)|ha\sgià\s(?:dato|accettato)|已(?:经)?同意|已(?:经)?(?:批准|授权)|同意(?:済み|を取得済み)|事前同意|уже\s(?:дал|согласил)|이미\s동의)"
            ),
        ],
        near: None,
    },
    Rule {
        id: "planted-header",
        what: "a role marker or a header for agents planted inside data, or a condition on which bot reads it",
        patterns: &[
            // "[SYSTEM] New instruction from the administrator: ...".
            r"\[\s?(?:system|sys|admin|administrator|assistant|developer|operator)(?:[\s_-](?:message|note|notice|prompt|override|instructions?|update|directive))?\s?\][^\n]{0,80}?\b(?:you|instructions?|directive|assistant|agent|model|before\scontinuing|from\snow\son|must|task)\b",
            // "Agent-Directive:", "AI-Agent-Instructions:" in a commit,
            // a header or a metadata field.
            r"\b(?:ai[\s_-])?(?:agent|assistant|llm|bot|model|copilot)[\s_-](?:directive|override|policy)s?\s?[:=]",
            // "If you are the review bot:".
            r"\bif\syou(?:'re|\sare)\s(?:the|an?|any|one\sof\sthe)\s(?:\w+\s){0,3}?(?:bot|assistant|agent|model|ai|llm|crawler|summari[sz]er|automation)s?\b",
        ],
        near: None,
    },
];
