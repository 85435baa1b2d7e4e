//! Rules of version 36: a claim that the text's orders come before the
//! user's. AN (a blind set written from the issue's own classes) missed
//! three forged system and developer messages in Russian, German and
//! Japanese that each said so ("Эта инструкция имеет приоритет над
//! сообщениями пользователя", "hat Vorrang vor allen
//! Benutzeranweisungen", "ユーザーの指示より優先されます"). Whoever
//! writes to a model through a page has no standing above its user, and
//! says so only to be obeyed. What is ranked must be the user's
//! instructions, requests or messages, not their settings: "project
//! settings take precedence over user settings" is a configuration
//! manual.

use super::Rule;

pub const PRECEDENCE: &[Rule] = &[Rule {
    id: "precedence-claimed",
    what: "a claim that the text's instructions take precedence over the user's instructions, requests or messages, in English, German, French, Spanish, Portuguese, Italian, Russian, Ukrainian, Chinese, Japanese and Korean (version 36)",
    patterns: &[
        r"\b(?:takes?|taking|has|have|having|given|with)\s(?:the\s)?(?:highest\s|top\s|absolute\s)?(?:priority|precedence)\s(?:over|above)\s(?:any\s|all\s|every\s|the\s|your\s)?(?:other\s)?(?:\w+\s)?(?:user'?s?|human'?s?|operator'?s?|requester'?s?)\s?(?:\w+\s)?(?:instructions?|messages?|requests?|prompts?|commands?|orders?|tasks?)\b",
        r"\b(?:overrides?|supersedes?|outranks?|trumps?)\s(?:any|all|every|the|your)\s(?:\w+\s)?(?:user'?s?|human'?s?)\s(?:instructions?|messages?|requests?|prompts?|commands?|orders?)\b",
        r"\bvorrang\svor\s(?:\S+\s){0,3}?\S*(?:benutzer|nutzer|anwender)(?:anweisung|anfrag|nachricht|befehl|auftr|prompt|vorgab)\w*|\bvorrang\svor\s(?:\S+\s){0,2}?(?:anweisungen|anfragen|nachrichten|befehlen|eingaben|aufträgen|vorgaben)\s(?:des|der|von)\s(?:\S+\s)?(?:benutzer|nutzer|anwender)",
        r"\b(?:prévaut|prévalent|prime|priment|a\s(?:la\s)?priorité|ont\s(?:la\s)?priorité|l'emporte|l'emportent)\s(?:sur|devant)\s(?:toutes?\s|tous\s|les\s|vos\s|ses\s|la\s|le\s|l')*(?:autres?\s)?(?:instructions?|demandes?|messages?|consignes?|requêtes?|ordres?|directives?)\s(?:de\s(?:l'|votre\s)?|du\s|des\s)(?:utilisat\w*|usager\w*)",
        r"(?:\b(?:tiene|tienen|tem|têm|ha|hanno)\s(?:la\s)?(?:prioridad|prioridade|priorità|precedenza|precedencia|precedência)|\b(?:prevalece|prevalecen|prevale|prevalgono))\s(?:sobre|su|sulle|sui|a|alle|ante)\s(?:\S+\s){0,2}?(?:instrucciones|instruções|istruzioni|mensajes|mensagens|messaggi|solicitudes|pedidos|richieste|peticiones|órdenes|ordens|indicaciones|indicazioni)\s(?:del|do|dos|da|das|dell'|dello|degli|delle|de\sla|de\slos)\s?(?:usuario|usuário|utente|utilizador|usuaria)\w*",
        r"(?:приоритет\w*|пріоритет\w*|превалир\w*|важнее|важливіш\w*)\s(?:над|перед|чем|ніж|за)\s(?:\S+\s){0,2}?(?:сообщени|инструкци|указани|запрос|команд|просьб|повідомлен|інструкці|вказів|запит)\w*\s(?:\S+\s)?(?:пользовател|користувач)\w*",
        r"(?:优先于|凌驾于)(?:任何|所有|一切)?(?:的)?(?:用户|使用者)(?:的)?(?:指令|指示|请求|消息|要求|命令|提示)|(?:ユーザー|ユーザ|利用者)の?(?:指示|依頼|要求|命令|メッセージ|プロンプト)より(?:も)?優先|사용자(?:의)?\s?(?:지시|요청|명령|메시지|프롬프트)\S*\s?(?:보다|에\s앞서)\s?우선",
    ],
    near: None,
}];
