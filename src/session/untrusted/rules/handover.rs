//! Rules of version 20: the change handed to the next editor. Version
//! 19's blind misses (U) were mostly one shape again, in a config file's
//! comment more than in prose: a note to whoever next edits the file
//! ("whenever this file is edited", "Hinweis für Maintainer dieser
//! Datei", "den som uppdaterar den här filen", "이 스크립트를 다음에
//! 수정하는 사람은"), a change that opens the host (the Docker socket
//! mounted, a workflow given `write-all`, Defender switched off, the
//! firewall off in a NixOS file) and a way to slip it past review ("commit
//! it as `chore: bump action versions`", "gehört nicht ins Changelog").
//! The roles, acts, weakenings and requests here widen version 18's and
//! 19's rules; each alone is ordinary, so they are read only where those
//! rules read theirs.

use super::Rule;

/// Version 20: the next editor, runner or handler of the file, named by
/// what they will do to it, in the languages of U's misses (version 21:
/// and of V's, Persian, Georgian, Gujarati, Finnish, Tagalog).
macro_rules! next_editor {
    () => {
        r"(?:\b(?:whenever|every\stime|each\stime|next\stime)\s(?:this|the)\s(?:file|workflow|playbook|manifest|pipeline|script|config\w*|chart|module|job|template|dump)\s(?:is|gets)\s(?:edited|changed|updated|modified|touched|run|applied|restored|deployed)\b|\b(?:anyone|anybody|everyone|whoever)\s(?:updating|editing|changing|modifying|touching|maintaining|restoring|importing|processing)\s(?:this|the)\s|\bthe\snext\s(?:person|one|engineer|developer|dev|maintainer)\s(?:to\s|who\s)(?:edit|change|update|touch|modif|run|deploy)\w*|\bhinweis\s(?:für|an)\s(?:die\s|den\s)?(?:maintainer|betreuer|bearbeiter|betrieb|admins?|entwickler)\w*|\bwer\s(?:\S+\s){0,4}?(?:bearbeitet|ändert|aktualisiert|anpasst|ausführt|deployt|einspielt|übernimmt)\b|\b(?:till\s)?den\ssom\s(?:\S+\s)?(?:uppdaterar|ändrar|redigerar|driftsätter|underhåller|hanterar|tar\söver|återställer)\b|\b(?:til\s)?den\s(?:der|som)\s(?:\S+\s)?(?:arbejder|opdaterer|ændrer|redigerer|vedligeholder|oppdaterer|endrer|vedlikeholder|håndterer|behandler)\b|\baki\s(?:legközelebb\s|majd\s|most\s)?(?:\S+\s){0,3}?(?:módosítja|frissíti|szerkeszti|futtatja|karbantartja|telepíti|átveszi|feldolgozza)|(?:수정|변경|편집|실행|관리|배포|업데이트|갱신|처리|복원)(?:하는|할)\s(?:사람|분|담당자)(?:은|는|이|께서는|들은)|\bosob[aue]\skoja\s(?:\S+\s)?(?:radi|pokreće|održava|ažurira|mijenja|uređuje|obrađuje|vrši|preuzima)\b|\bang\ssinumang\s(?:humahawak|nagpoproseso|nag-aasikaso|nag-a-update)\b|പ്രോസസ്\sചെയ്യുന്ന|\b(?:quien|quienes)\s(?:\S+\s)?(?:revise|procese|ejecute|despliegue|mantenga|restaure|importe|lea|edite|cambie)\b|\bquem\s(?:\S+\s)?(?:atualizar|editar|modificar|alterar|executar|revisar|processar|restaurar)\b|\bchiunque\s(?:\S+\s)?(?:modifichi|aggiorni|esegua|mantenga|tocchi|ripristini)\b|\bpersoan(?:a|ei)\scare\s(?:\S+\s)?(?:procesează|actualizează|modifică|rulează|întreține|gestionează|editează)|(?:على|إلى)\sمن\s(?:يقرأ|يعدل|يعدّل|يحدث|يحدّث|يعالج|يراجع|يدير)|لمن\s(?:يقرأ|يراجع|يدير)|\bpři\s(?:příští|další|nejbližší)\s(?:úpravě|změně|aktualizaci)|\bpri\s(?:ďalšej|najbližšej)\s(?:úprave|zmene|aktualizácii)|\bprzy\s(?:następnej|kolejnej)\s(?:zmianie|edycji|aktualizacji)|\bkto\s(?:\S+\s)?(?:będzie\s)?(?:edytuje|zmienia|aktualizuje|edytował|zmieniał)\b|\bbij\sde\svolgende\s(?:wijziging|aanpassing|update)\b|\blors\sde\sla\sprochaine\s(?:modification|mise\sà\sjour)\b|\bbei\sder\snächsten\s(?:änderung|anpassung|aktualisierung)\b|\bat\sthe\snext\s(?:edit|change|update)\sof\sthis\b|\b(?:whoever|anyone\swho)\s(?:\w+\s)?(?:touches|edits|changes|updates)\s(?:this|the)\s(?:\S+\s)?(?:file|workflow|playbook|manifest|pipeline|script|compose\sfile|config\w*)\s(?:next|after\sme)\b|\b(?:note|message|heads[\s-]up)\s(?:to|for)\s(?:the\snext|future)\s(?:maintainers?|editors?|person|people|owners?)\b|\bfor\sfuture\s(?:maintainers|editors|owners)\sof\sthis\b|\bto\sthe\snext\s(?:person|one|engineer|maintainer)\s(?:editing|changing|updating|touching|running)\b|\banyone\s(?:running|deploying|applying)\sthis\s(?:script|playbook|manifest|file|job|pipeline)\b|\bfür\s(?:alle|jeden|diejenigen),?\s(?:die|der)\s(?:diese|das)\s(?:\S+\s)?(?:pflegen|pflegt|bearbeiten|bearbeitet|ändern|ändert|warten)\b|\btill\snästa\s(?:person|utvecklare)\ssom\b|(?:고치는|손보는|건드리는)\s(?:사람|분)(?:은|는|께|에게)|\btko\sgod\s(?:\S+\s)?(?:mijenja|uređuje|ažurira|pokreće|održava)\b|\bpara\s(?:el|la|los)\sque\s(?:\S+\s)?(?:actualice|modifique|edite|cambie|mantenga|ejecute|despliegue)\b|\bpara\squem\s(?:\S+\s)?(?:editar|alterar|modificar|mexer)\b|\bkdo\s(?:bude\s)?(?:\S+\s){0,2}?(?:upravovat|upravuje|měnit|mění|aktualizovat|spravovat)\b|(?:編集|修正|更新|変更)(?:する|される)(?:人|方)(?:へ|に|は)|\bjoka\s(?:\S+\s)?(?:muokkaa|päivittää|muuttaa|ylläpitää)\b|\bfor\sthe\snext\s(?:dev|developer|person|engineer|maintainer)\s(?:touching|editing|changing|updating)\b|\bnext\stime\syou\s(?:change|edit|update|touch|run)\s(?:this|the)\b|هر\sکسی\sکه|(?:^|[\s#])ვინც\sამ\s|(?:ચલાવનાર|અપડેટ\sકરનાર|બદલનાર|સંભાળનાર)|\btämän\s(?:tiedoston|palvelun|konfiguraation|playbookin)\s(?:asentajalle|ylläpitäjälle|muokkaajalle|käyttöönottajalle|ajajalle))"
    };
}

/// Version 20: who applies the file, named by the step before it ("before
/// applying this manifest"). Too common to carry a role's errand; it
/// addresses a request to keep a step out of the record (`ALSO`).
macro_rules! applier {
    () => {
        r"(?:\bbefore\s(?:applying|running|deploying|merging|installing|restoring|importing)\s(?:this|the)\s(?:manifest|chart|playbook|file|change|migration|dump|workflow|template|module|stack)\b|\bvor\sdem\s(?:anwenden|ausführen|einspielen|deployen)\s(?:dieses|des)\b|\bavant\sd'appliquer\sce\b|\bantes\sde\s(?:aplicar|ejecutar|desplegar)\s(?:este|esta)\b)"
    };
}

/// Version 20: what a note to the next editor has no reason to ask, as
/// the command or setting that does it: the default service account made
/// cluster admin, a merge or a push to main without review, a secret file
/// mailed to a free address, an address range changed to `0.0.0.0/0`,
/// an iOS app's transport security off; version 21: basic auth off, an
/// RDS database deleted without its final snapshot, a script piped into
/// a shell from a bare IP address.
macro_rules! act_v20 {
    () => {
        r"(?:--clusterrole[=\s]cluster-admin\b[^\n]{0,80}?--serviceaccount[=\s][\w-]+:default\b|--serviceaccount[=\s][\w-]+:default\b[^\n]{0,80}?--clusterrole[=\s]cluster-admin\b|\bmerge\s(?:\S+\s){0,3}?(?:to|into|til|in|till|naar|auf|vers|en|na|do)\s(?:main|master)\b[^\n.]{0,40}?\b(?:without|uden|utan|uten|ohne|sans|sin|sem|senza|zonder|bez|nélkül)\s(?:a\s|any\s|en\s)?(?:review|approval|godkendelse|granskning|godkjenning|freigabe)\b|(?:\.env\b|id_rsa|id_ed25519|\.git-credentials|\.npmrc|\.aws/credentials|\.pypirc)[^\n]{0,200}?\b[\w.+-]+@(?:gmail|googlemail|proton|protonmail|pm|outlook|hotmail|yahoo|gmx|mail|yandex|qq|163|tutanota|icloud)\.[a-z]{2,3}\b|\b(?:cidr_blocks|source_ranges|cidrs?|cidr_ip)\s(?:\S+\s){0,3}?(?:to|till|til|auf|à|a|naar|na|do|en)\s[\[\x22']{1,2}0\.0\.0\.0/0|\bnsallowsarbitraryloads\W{0,12}(?:true|yes)\b|\bpush\s(?:it\s|this\s)?(?:straight|directly)\sto\s(?:main|master)\b[^\n.]{0,40}?\b(?:skip\w*|without|bypass\w*)\s(?:the\s|any\s)?(?:code\s)?review|\bauth_basic\soff\b|\baws\srds\sdelete-db-(?:instance|cluster)\b[^\n]{0,120}?--skip-final-snapshot|\b(?:curl|wget)\s[^\n|]{0,80}?https?://\d{1,3}(?:\.\d{1,3}){3}[^\n|]{0,40}\|\s?(?:sudo\s)?(?:ba)?sh\b)"
    };
}

/// Version 20: what opens a host in a change that rides along with
/// another: the Docker socket mounted, a container made privileged, a
/// database port published on every interface, a workflow given write
/// rights or run on a fork's code, a user promoted by SQL. Ordinary in a
/// compose file, a workflow or a restore runbook; read only beside a
/// request to keep the step out of the record.
macro_rules! covert_act {
    () => {
        r"(?:/var/run/docker\.sock:/var/run/docker\.sock(?:[\s\x22',)\].;]|$)|\bprivileged\s?=\s?true\b|--privileged\b|\bhostpid:\s?true\b|\bprivileged:\s?true\b|\bwrite-all\b|\bpull_request_target\b|\b0\.0\.0\.0:(?:5432|3306|6379|27017|9200|2375|2376|11211|5984|9042)\b|\bgithub\.event\.pull_request\.head\.(?:sha|ref)\b|\bupdate\s\S+\sset\s[^\n;]{0,60}?\b(?:uloga|rola|rolle|rôle|ruolo|papel|rol|szerep\w*|rooli|роль)\s?=\s?\\?['\x22]?(?:admin|owner|superuser|root)|\b(?:is_admin|is_superuser|is_staff|isadmin)\s?=\s?['\x22]?(?:1|true)\b|\bupdate\s\S+\sset\s[^\n;]{0,60}?\brole\s?=\s?\\?['\x22]?(?:admin|owner|superuser|root))"
    };
}

/// Version 20: a safeguard switched off in the forms U wrote that
/// `weakening!` lacked: NixOS's password-less sudo and firewall, SSH's
/// root and password logins written as `= "yes"`, `ufw` disabled from
/// Ansible.
macro_rules! weakening_v20 {
    () => {
        r"(?:\bwheelneedspassword\s?=\s?false\b|\bnetworking\.firewall(?:\.enable\s?=|\s?=\s?\{\s?enable\s?=)\s?false\b|\bpermitrootlogin\s?=\s?['\x22]?(?:yes|true)\b|\bpasswordauthentication\s?=\s?['\x22]?(?:yes|true)\b|\bufw:\s?state=disabled\b)"
    };
}

/// Version 20: an endpoint agent switched off (Defender's real-time
/// scan or an exclusion, CrowdStrike, auditd, the firewall daemon). A
/// build agent's or a malware lab's setup does it in the open, with a
/// role named; only beside an approval claimed or a step kept out of
/// sight is it read.
macro_rules! agent_off {
    () => {
        r"(?:\bset-mppreference\s[^\n]{0,60}?-disable\w+\s\$?true\b|\badd-mppreference\s[^\n]{0,20}?-exclusion(?:path|process|extension)\b|\blaunchctl\s(?:unload|bootout|remove)\s[^\n]{0,100}?(?:falcon|crowdstrike|sentinel|defender|carbonblack|cylance|sophos|santa)|\bsystemctl\s(?:stop|disable|mask)\s(?:--now\s)?(?:falcon-sensor|falcond|crowdstrike\w*|sentinelone|sentinel-agent|auditd|osqueryd|wazuh-agent|clamav\w*|apparmor|firewalld)\b|\bsc(?:\.exe)?\s(?:stop|config)\swindefend\b|\bfalconctl\s(?:unload|-d|uninstall)\b)"
    };
}

/// Version 20: an endpoint agent stopped outright (Defender's service or
/// real-time scan, CrowdStrike unloaded): what a note to the next editor
/// has no reason to ask, unless the page is an uninstall or offboarding
/// runbook or a lab's (`ROLE_ERRAND_UNLESS`).
macro_rules! agent_stopped {
    () => {
        r"(?:\bset-mppreference\s[^\n]{0,60}?-disablerealtimemonitoring\s\$?(?:true|1)\b|\bsc(?:\.exe)?\s(?:stop|config)\swindefend\b|\bfalconctl\s(?:unload|uninstall)\b|\blaunchctl\s(?:unload|bootout)\s[^\n]{0,100}?(?:falcon|crowdstrike))"
    };
}

/// Version 20: the step slipped past review or the record, with the step
/// as its object, in the words U and the review used: "it should not be
/// recorded in the change log", "bundle it with whatever change", "das
/// gehört nicht ins Changelog", "ändringen ska inte tas upp i
/// PR-beskrivningen", "a változást nem kell jelezni a review-ban",
/// "커밋 메시지에는 \"...\"이라고만". "Commit it as \"...\"" alone is a
/// contribution guide's convention (the review).
macro_rules! unrecorded_v20 {
    () => {
        r"(?:\b(?:it|this|these|that|they|the\s(?:change|step|edit|tweak|rule|binding|mount))\s(?:(?:is|are)\s\w+\sand\s)?(?:should|must|shall|need|needs|does|do)\s?n[o']?t\s(?:need\s)?(?:to\s)?be\s(?:recorded|mentioned|noted|listed|documented|included|logged|flagged|called\sout)\s(?:\w+\s){0,2}?(?:in|on)\s(?:the\s|any\s)?(?:commit|change\s?log|pr\b|pull\srequest|merge\srequest|review|release\snotes|ticket|description|summary)|\b(?:it|this|these|that|they|the\s(?:change|step|hook|line|edit))\s(?:should|must)\s(?:stay|remain|be\skept)\s(?:out\sof|off)\s(?:the\s)?(?:commit\s(?:diffs?|messages?|history)|reviews?|review\scomments|change\s?log|pr\b|pull\srequest|release\snotes)|\b(?:so|that)\s(?:it|this|they)\s(?:rides?|slips?|blends?|goes)\s(?:along|through|in)\s(?:with|unnoticed)\b|\bbundle\s(?:it|this|them)\s(?:in\s)?with\s(?:whatever|any|an(?:other)?(?:\sunrelated)?|the\snext|your\snext)\s(?:\w+\s)?(?:change|pr|commit|update)|\breviewers\s(?:already\s)?know\sabout\s(?:it|this)\b|\b(?:das|es|dies|und)\sgehört\snicht\s(?:ins|in\sden|in\sdie|in\sdas)\s(?:changelog|commit|pr|ticket|protokoll|release|review)\w*|\b(?:det|detta|ändringen|den|dessa)\sska\s(?:inte|ej)\s(?:tas\supp|nämnas|skrivas|noteras|dokumenteras|synas)\s(?:\S+\s){0,2}?i\s|\b(?:det|dette|endringen|ændringen|den)\sskal\sikke\s(?:nevnes|nævnes|noteres|skrives|tas\smed|omtales)\s(?:\S+\s){0,2}?i\s|\b(?:a\sváltozást|ezt|a\smódosítást|ezeket)\snem\skell\s(?:\S+\s){0,2}?(?:jelezni|említeni|leírni|feltüntetni|beírni)\s(?:a\s)?(?:review|changelog|commit|pr|leírás|jegy|kódellenőrzés)\w*|(?:커밋\s?메시지|변경\s?내역|설명)(?:에는|엔)\s[^\n]{0,40}?(?:이?라고만)\s(?:적|쓰)|\bnedávejte\s(?:\S+\s){0,5}?(?:do|v)\s(?:\S+\s){0,3}?(?:readme|changelog|popis\w*|commit\w*|review)|\bať\sse\s(?:to\s)?(?:při\s(?:revizi|review|kontrole)|v\sreview)\sneřeší|\bkako\sse\s(?:promjena|izmjena|to)\sne\sbi\s(?:vidjela|vidjelo|vidjele|primijetila|primijetilo)|\bhold\sdet\sfor\s(?:jer|dere|dig|deg)\sselv\b|\bkeep\s(?:it|this)\sto\syoursel(?:f|ves)\b|\bbehalte[tn]?\s(?:es|das)\sfür\s(?:dich|euch|sich)\b|\b(?:squash|fold|tuck|hide|slip)\s(?:it|this|them)\sin(?:to)?\s(?:the\s|a\s)?(?:next\s)?(?:\S+\s)?(?:bump|release|commit|pr|merge|update)\b|\bkeep\s(?:it|this)\sout\sof\s(?:the\s)?(?:pr|mr|merge\srequest|pull\srequest|review)\s(?:summary|description|notes)\b|\b(?:do\s?n[o']?t|never)\s(?:call|bring)\s(?:it|this)\s(?:out|up)\s(?:in|during)\s(?:the\s)?(?:merge\srequest|pull\srequest|pr|mr|review|standup)\b|\breviewers\s(?:do\s?n[o']?t|needn[o']?t)\s(?:need\sto\s)?(?:hear|know)\sabout\s(?:it|this)\b|\b(?:det|detta|ændringen|ändringen)\sbehøver\sikke\sstå\si\b|\bbehöver\sinte\sstå\si\s(?:ändringsloggen|changelog|pr)\w*|\bnämn\sdet\sinte\si\s(?:pr|changelog|commit|ändringsloggen)\w*|\bno\slo\s(?:menciones|comentes|pongas)\sen\s(?:el\s|la\s)?(?:pr|mr|changelog|commit|revisión)\b|\bno\shace\sfalta\scomentarlo\sen\sla\srevisión\b|\b(?:das|es|dies)\smuss\snicht\s(?:ins|in\sden|in\sdie)\s(?:changelog|commit|pr|review)\w*|\bnemoj(?:te)?\s(?:to\s)?(?:pominjati|spominjati|navoditi|pisati|spominjat)\b|\bne\s(?:navoditi|spominjati|upisivati|bilježiti)\s(?:to\s)?(?:u|na)\s|(?:^|\s)(?:و?لا)\s(?:تذكر|تذكروا|تكتب|تكتبوا|تشر|تشيروا)\s(?:\S+\s){0,4}?(?:وصف|سجل|رسالة|ملخص)|\b(?:mention|say|write)\sonly\s[\x22'“‘][^\x22'”’\n]{1,40}[\x22'”’]\sin\s(?:the\s)?(?:commit|pr\b|changelog|merge\srequest)|\b(?:it|this)\s(?:does\s?n[o']?t|won'?t)\sneed\s(?:a|any)\s(?:changelog|release[\s-]notes?)\sentry\b|커밋\s?메시지(?:는|를)\s[\x22'“][^\x22'”\n]{1,40}[\x22'”](?:로|으로)\s(?:하세요|해\s주세요|적어))"
    };
}

/// Version 20: the step kept from the user, in the languages of U's
/// orders to an AI (Icelandic, Armenian, Amharic, Tamil, Yoruba, Kazakh).
macro_rules! untold_v20 {
    () => {
        r"(?:\bminnstu\sekki\b|\bnefndu\s(?:það\s)?ekki\b|\bsegðu\s(?:\S+\s)?ekki\s(?:frá|notand)|\bláttu\s(?:\S+\s)?ekki\svita\b|մի\s(?:տեղեկացրեք|տեղեկացրու|ասեք|ասա|նշեք|հիշատակեք|հայտնեք)|አትንገር|አትንገሩ|አይንገሩ|አታሳውቅ|አታሳውቁ|குறிப்பிட\sவேண்டாம்|சொல்ல\sவேண்டாம்|தெரிவிக்க\sவேண்டாம்|\bmá\s(?:ṣe\s)?(?:sọ|jẹ́\skí)\s(?:fún|fun)\b|(?:^|[\s,.;:])айтпа(?:ңыз|ңдар)?(?:[\s,.;:!]|$)|хабарлама(?:ңыз|ңдар)?(?:[\s,.;:!]|$))"
    };
}

/// Version 20: a secret file read into the arguments of a package runner,
/// an interpreter or a raw socket (a registry token grepped from `.npmrc` and handed to
/// a tool that publishes). A token passed to `curl` or `twine` for its
/// own registry is ordinary (the review).
macro_rules! secret_passed {
    () => {
        r"(?:\b(?:npx|node|python3?|nc|ncat|netcat)\s[^\n]{0,200}?\$\(\s?(?:grep|cat|awk|sed|jq|head|tail|cut|<)\s?[^\n)]{0,80}?(?:\.npmrc|\.aws/credentials|\.git-credentials|\.netrc|id_rsa|id_ed25519|\.docker/config\.json))"
    };
}

pub const HANDOVER: &[Rule] = &[Rule {
    id: "profile-hook",
    what: "code fetched from the network written into a shell's start-up file, so that it runs at every new shell; or (version 33) a downloaded script run in the background with its output thrown away",
    patterns: &[
        // Version 33: a downloaded script run in the background with
        // its output thrown away (`(curl … | sh) >/dev/null 2>&1 &`).
        r"\b(?:curl|wget)\s[^\n|]{0,200}?\|\s?(?:sudo\s)?(?:ba|z)?sh\)?\s?>\s?/dev/null\s?2>&1\s?&",
        r"\b(?:eval|source|\.|bash|sh|zsh)\s\x22?\$\(\s?(?:curl|wget)\s[^\n]{0,200}?>>?\s?\S*(?:\.bashrc|\.zshrc|\.bash_profile|\.profile|\.zprofile|\.zshenv|config\.fish)\b",
        r"\b(?:source|\.)\s<\(\s?(?:curl|wget)\s[^\n]{0,200}?>>?\s?\S*(?:\.bashrc|\.zshrc|\.bash_profile|\.profile|\.zprofile|\.zshenv|config\.fish)\b",
        r"\b(?:curl|wget)\s[^\n|]{0,200}?\|\s?(?:sudo\s)?(?:ba|z)?sh\b[^\n]{0,20}?>>\s?\S*(?:\.bashrc|\.zshrc|\.bash_profile|\.profile|\.zprofile|\.zshenv)\b",
        r"(?:^|\n)\s?(?:\$\s)?(?:curl|wget)\s(?:-\S+\s)*https?://\S+\s?(?:>>|\|\s?tee\s-a)\s?\S*(?:\.bashrc|\.zshrc|\.bash_profile|\.profile|\.zprofile|\.zshenv)\b",
    ],
    near: None,
}];
