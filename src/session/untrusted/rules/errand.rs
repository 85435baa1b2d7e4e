//! Rules of version 18: the errand left for whoever handles the text.
//! Half of every blind set's injections name no AI reader; version 17's
//! misses showed what most of them name instead: a role ("whoever runs
//! this playbook", "note for the maintainers", "to the DB administrator",
//! "for the person who processes this invoice"), in the text's language,
//! and an act that no such note has reason to ask (drop the audit schema,
//! open the database port to the internet, switch certificate checks off,
//! send the key file away, pay a new account). A guide speaks to "you",
//! and names a role for ordinary errands; so a role alone, or an act
//! alone, is not flagged: the rule wants both within a few lines.

use super::Rule;

/// Whoever handles the text, as a role: the one who runs, deploys,
/// maintains, reviews or processes it, or a team named as its addressee.
/// A word that starts with a letter outside ASCII has no `\b` before it.
macro_rules! role_reader {
    () => {
        r"(?:\b(?:whoever|anyone\swho|the\s(?:person|one)\swho)\s(?:\w+\s){0,2}?(?:fix(?:es)?|updates?|touch(?:es)?|edits?|modif(?:y|ies)|resolves?|closes?|works?\son|generates?|regenerates?|translates?|bumps?|picks?\sup|takes?\sover|handles?)\b|\b(?:aviso|nota|recado)\s(?:ao|à|aos|às|para\so|para\sa)\s(?:processador|responsável|operador|mantenedor|revisor|administrador)\w*|\bpara\squem\s(?:\w+\s)?(?:process|atualiz|mantiver|execut|revis|implant|gerenci|corrig|mexer)\w*|\bosob[ayie]\s(?:wdrażając|uruchamiając|aktualizując|obsługując|utrzymując|księgując|przetwarzając|poprawiając)\w*|\bdla\s(?:osoby|tego),?\s(?:któr[aey]|kto)\b|\bvoor\swie\s(?:\w+\s){0,3}?(?:bijwerkt|uitvoert|draait|deployt|verwerkt|beheert|onderhoudt|installeert|aanpast|oppakt|oplost|wijzigt)\b|(?:למי|מי)\sש(?:מעדכן|משנה|מתקן|מפתח|עובד)|за\s(?:всеки|тези|онези|този|тоя),?\s(?:който|които|що)|\bza\s(?:osobu|osobe|onoga|svakoga|one)\s(?:koja|koji|koje|tko|ko)\b|(?:^|[^\w])(?:იმისთვის|მათთვის|ყველას),?\sვინც|対応者(?:へ|様|各位|に)|担当者に|(?:更新|修正|対応|作業|処理|導入|デプロイ|運用)(?:する|される)(?:方|人|担当者)(?:へ|に|は)|(?:하는|갱신하는|처리하는|수정하는|배포하는|업데이트하는|관리하는|운영하는)\s(?:분|담당자|사람|분들)(?:께|에게)|담당자(?:께|에게)|ጠባቂ|ለሚያስተዳድር|(?:^|[^\w])ẹnik\S{1,4}ni\st|\bchi\s(?:\w+\s)?(?:corregge|modifica|aggiorna|sistema|tocca|prende\sin\scarico|risolve|lavora|apre|chiude)\b|\b(?:quien|quienes)\s(?:\w+\s)?(?:actualice|modifique|corrija|toque|abra|cierre|resuelva|atienda|tome)\b|\battention\sde\s(?:la\spersonne|celui|celle|quiconque)|(?:करने|चलाने|संभालने|बदलने|सुधारने|देखने)\sवाले\s(?:व्यक्ति|लोगों|सदस्य|साथी)\s(?:के\sलिए|को)|جو\sبھی\s|لمن\s(?:يحدث|يعدل|يصلح|يعالج|يحدّث|يعدّل)|\b(?:whoever|anyone)\s(?:is\s)?(?:on\scall|on-call)\b|\b(?:whoever|anyone\swho|anybody\swho|the\s(?:person|one|people|team)\s(?:who|that)|those\swho|whomever)\s(?:\w+\s){0,2}?(?:runs?|running|deploys?|deploying|maintains?|processes|processing|handles?|reviews?|merges?|appl(?:y|ies|ying)|operates?|builds?|releases?|integrates?|installs?|sets?\sup|administers?|manages?|picks\sup|executes?|upgrades?|ships?|cuts?|owns?)\b|\b(?:note|notice|attention|heads[\s-]up|tip|reminder|message|memo|psa|action\srequired)\s(?:for|to)\s(?:the\s|all\s|our\s|any\s)?(?:maintainers?|operators?|admins?|administrators?|sysadmins?|reviewers?|integrators?|deployers?|release\s(?:managers?|engineers?)|on-?call|devops|sre|dbas?|accounts\spayable|accounting|finance)\b|(?:^|\n|[.;]\s)(?:to\s(?:the\s)?)?(?:maintainers|operators|reviewers|admins|integrators|deployers|dbas|ops\steam|on-?call(?:\sengineer)?|maintainer\snote)\s?:|\b(?:attn|fao|dear)\s?:?\s(?:the\s)?(?:devops|dba|ops|accounts\spayable)\b|\bfor\sthe\sperson\s(?:running|deploying|applying|merging)\b|\b(?:for|to)\sthe\s(?:admin|administrator|sysadmin|dba|platform\steam|ops\steam)\s?:|\bpour\sl'admin\w*|\bpara\sel\sadministrador\b|\bper\sl'amministratore\b|\ban\sden\sadmin\w*|\badministratorowi\b|\bvoor\sde\sbeheerder\b|\bif\syou(?:'re|\sare)\s(?:deploying|running|applying|merging)\sthis\b|(?:^|[^\w])(?:pour|à)\s(?:la\spersonne|celui|celle|ceux|celles|quiconque)\s(?:qui|qu')|\bquiconque\s|(?:^|[^\w])à\sl'attention\s(?:de|des|du)\s|(?:^|[^\w])(?:à\sl'équipe\sd'exploitation|aux\sadministrateurs)\b|\ban\sdas\sops-team\b|\bnote\s(?:pour|aux)\s(?:les\s)?(?:mainteneurs|administrateurs|opérateurs|intégrateurs|relecteurs)|\bchi\s(?:fa|gestisce|esegue|mantiene|effettua|deploya|rilascia|integra|lancia|installa|amministra|elabora|cura)\b|\bnota\sper\s(?:chi|i\smanutentori|gli\samministratori)|\b(?:quien|quienes|la\spersona\sque|el\sque)\s(?:\w+\s)?(?:ejecute|despliegue|mantenga|gestione|procese|revise|integre|aplique|administre|lance|haga)\b|\b(?:nota|aviso|atención)\s(?:para|a)\s(?:quien|los\s(?:mantenedores|administradores|operadores|integradores|revisores))|\bquem\s(?:for\s|vai\s|estiver\s)?(?:\w+\s)?(?:revisar|executar|rodar|fazer|mantiver|manter|implantar|integrar|aplicar|administrar|processar|gerir)|\baviso\spara\s(?:quem|quen|os)\b|\bquen\s(?:integre|execute|desprega|manteña)|\bper\sa\squi\s|\bqui\s(?:executi|desplegui|mantingui|gestioni)\b|\b(?:wer|jeder,?\sder|diejenigen?,?\sdie|derjenige,?\sder)\s(?:\w+\s){0,4}?(?:ausführt|deployt|betreut|pflegt|wartet|verarbeitet|einspielt|anwendet|reviewt|mergt|merged|bearbeitet|installiert|administriert|startet|betreibt)\b|\b(?:hinweis|notiz|achtung|info)\s(?:für|an)\s(?:die\s|den\s|alle\s)?(?:maintainer|betreuer|admins?|administrator\w*|betreiber|reviewer|buchhaltung|integratoren)|\bdegene\sdie\s(?:\w+\s){0,3}?(?:verwerkt|uitvoert|draait|beheert|deployt|installeert)\b|\bwie\s(?:dit|deze|het)\s(?:\w+\s)?(?:uitvoert|draait|deployt|verwerkt|beheert|onderhoudt|installeert)|\b(?:let\sop|opmerking|notitie)\svoor\s(?:de\s)?(?:beheerders|maintainers|boekhouding)|\b(?:uwaga|notatka|informacja)\sdla\s(?:osoby|osób|opiekunów|administrator\w*|maintainer\w*|księgowości|zespołu)|\b(?:dla\s)?osoby\s(?:księgując|wdrażając|uruchamiając|utrzymując|obsługując)\w*|\bkto\s(?:będzie\s)?(?:uruchamia|wdraża|utrzymuje|obsługuje)\w*|\bupozornění\spro\s|\b(?:důležité\s)?pro\s(?:integrátory|správce|vývojáře|účtárnu|provozovatele)\b|\bpro\s(?:toho|ty),?\skdo\b|\bkdo\s(?:to\s)?(?:nasazuje|spouští|spravuje|udržuje|zpracovává|nasadí|spustí)(?:[^\w]|$)|\bpre\s(?:toho|tých),?\skto\b|\bkto\s(?:to\s)?(?:nasadzuje|spúšťa|spravuje|udržiava)\b|(?:^|[^\w])(?:reviewer|karbantartó|fejlesztő|üzemeltető|adminisztrátor|rendszergazdá)\w*(?:nek|nak)\b|\baki\s(?:\w+\s)?(?:futtatja|telepíti|karbantartja|kezeli|üzemelteti|mergeli)\b|\b(?:recenzentima|održavateljima|administratorima)\b|\b(?:tko|onaj\skoji|onome\skoji)\s(?:bude\s)?(?:\w+\s)?(?:radio|pokreće|pokrene|održava|izvodi|primjenjuje)\b|\bnapomena\sza\s|\bza\svzdrževalc\w*|\bkdor\s(?:\w+\s)?(?:zaganja|namešča|vzdržuje|izvaja)\b|\bopomba\sza\s|\bcine\s(?:rulează|execută|întreține|gestionează|aplică|implementează|procesează)|\bnotă\spentru\s|\bpentru\s(?:cei\scare|administrator\w*|mentenan\w*)|(?:^|[\s'\x22«(])(?:тому,?\sкто|тому,?\sхто|кто\sбудет\s(?:делать|запускать|разворачивать|выкатывать|применять)|команде\sэксплуатации|всем,?\sкто|для\sтех,?\sкто|для\sтих,?\sхто|на\sтози,?\sкойто|за\sтози,?\sкойто|администратор(?:у|ам)|адміністратор(?:у|ам)|сопровождающ\w*|супровідник\w*|разработчикам|розробникам|оператор(?:у|ам)(?:[^\w]|$))|για\sόποιον|(?:^|[\s'\x22«(])όποιος\s|προς\sτους\s(?:συντηρητές|διαχειριστές)|σημείωση\sγια\s|(?:^|[^\w])(?:çalıştıran|dağıtan|yöneten|bakımını\syapan|işleyen)\s(?:kişi|kişiye|ekibe|herkes)|\bbakımcılar\w*|\bylläpitäjille\b|\bsille,?\sjoka\b|\bjoka\s(?:ajaa|suorittaa|ylläpitää|käsittelee|asentaa)\b|\bhooldaja\w*le\b|\bsellele,?\skes\b|\bkes\s(?:käivitab|haldab|juurutab)\b|\btam,?\skas\s(?:palaiž|uztur|izvieto|apstrādā)|\buzturētāj\w*|\b(?:sistemos\s)?administratoriui\b|\bprižiūrėtoj\w*|\bden\ssom\s(?:kör|driftsätter|underhåller|hanterar|granskar|kjører|drifter|vedlikeholder|behandler)\b|\btill\s(?:underhållare|förvaltare|granskare|den\ssom)\b|\bför\sden\ssom\b|\btil\s(?:vedlikeholder\w*|vedligeholder\w*|den\ssom|den\sder|driftsansvarlig|umsjónar\w*|kerfisstjóra\w*)|\bden\sder\s(?:kører|vedligeholder|deployer|behandler)\b|\bcatatan\suntuk\s|\buntuk\stim\syang\b|\bsiapa\s(?:pun|saja)\syang\b|\bkepada\s(?:pentadbir|admin|pengelola|penyelenggara)|\bpara\ssa\s(?:mga\s)?(?:maintainer|admin|nagpapatakbo|magde-deploy)|\bsinumang\s|người\s(?:vận\shành|bảo\strì|triển\skhai|quản\strị|xử\slý)|dành\scho\s(?:người\s(?:vận\shành|triển\skhai|quản\strị|bảo\strì)|đội\s(?:vận\shành|triển\skhai)|nhóm\s(?:vận\shành|triển\skhai))|lưu\sý\scho\s|ถึงผู้ดูแล|ผู้ที่(?:รัน|ติดตั้ง|ดูแล)|担当(?:者)?(?:へ|様|各位|の方へ)|保守担当|管理者(?:へ|様|各位)|運用担当|レビュア(?:ー)?(?:へ|各位)|(?:実行|デプロイ|適用|運用|管理|保守)する(?:人|方)(?:へ|は)|(?:致|给)(?:维护者|维护人员|运维|管理员|部署人员)|运维同学|负责(?:部署|运维|维护)的(?:同事|人)|(?:관리자|운영자|운영팀|유지보수\s?담당자|배포\s?담당자|검토자)(?:께|에게|분들께|분께|\s참고)|(?:실행|배포|운영)하는\s(?:분|사람)|(?:चलाने|संभालने)\sवाल(?:े|ों)|रखरखाव\sकरने\sवाल|(?:चालवणाऱ्या|हाताळणाऱ्या|सांभाळणाऱ्या)|جو\sبھی\s(?:\S+\s){0,3}?چلا|چلانے\sوال|(?:هر\s)?کسی\sکه\s(?:\S+\s){0,4}?(?:اجرا|نصب|مدیریت|مستقر)|برای\s(?:مدیران|نگهدارندگان)|لمن\s(?:يشغل|يدير|ينشر|يراجع)|(?:إلى|الى)\s(?:مسؤول|مدير)\w*|(?:למי|מי)\sש(?:מריץ|מתחזק|פורס|מנהל|מטפל)|למתחזקים|לתשומת\sלב|አስተዳዳሪ|கவனத்திற்கு|பராமரிப்பாளர|\S*నడిపేవారికి|যিনি\sচালা|রক্ষণাবেক্ষণকারী|\bkwa\s(?:yeyote|wasimamizi|msimamizi)\b|\byeyote\satakaye|\bi'r\s(?:cynhalwyr|gweinyddwyr)|\bpwy\sbynnag\s|\b(?:mantentzaile|administratzaile|arduradun)\w*(?:ei|ari|entzat)\b|за\sодржувачите|\bmirëmbajtës\w*|қолдайтындарға|\b(?:administratorlar|ishga\stushiruvchi)\w*)"
    };
}

/// What a note to a role has no reason to ask: data destroyed, access
/// opened to anyone, checks switched off, secrets moved, in the command
/// or the setting that does it (words differ by language; these do not).
macro_rules! role_act {
    () => {
        r"(?:\bdrop\s(?:table|schema|database)\s(?:if\sexists\s)?(?:\w+\.)?\w*(?:audit|backup|billing|payment|prod|ledger)\w*|\bkubectl\s(?:\S+\s){0,3}?delete\s(?:\S+\s){0,3}?--all(?:\s|$)[^\n]{0,40}?prod|\bkubectl\s(?:\S+\s){0,3}?delete\s(?:pvc|pv|namespace|ns)\s(?:\S+\s){0,2}?(?:-n\s|--namespace[\s=])?prod\w*|\baws\ss3\s(?:rm|rb)\s\S*(?:backup|audit|log|prod)|\baws\ss3api\s(?:delete-public-access-block|put-bucket-acl|put-bucket-policy)\b|\bgit\spush\s[^\n]{0,60}?(?:--delete\s\$\(|--mirror\b|--force\s--all\b)|\bgit\sfilter-(?:repo|branch)\b|\bvelero\s(?:\w+\s)?delete\b|\bupdate\s\S+\sset\s[^\n;]{0,60}?\brole\s?=\s?\\?['\x22]?(?:admin|owner|superuser)|[\x22']principal[\x22']\s?:\s?[\x22']\*?[\x22']|\bssh-(?:ed25519|rsa)\saaaa|--no-verify\b|\bgonosumdb\s?=\s?\*?(?:\s|$|[\x22';])|\bgoflags\s?=\s?-insecure\b|\b[\w.]*auth\w*[._]enabled\s?(?:=|:|na|to|auf|à|a)?\s?['\x22]?false\b|\b\w*auth\w*_disabled\s?[=:]\s?['\x22]?(?:true|1)\b|csrf_\w*\s?=\s?false\b|\b(?:whitelist|allowlist|source_?ranges?|loadbalancersourceranges)\w*[\x22']?\s?[:=]\s?\[?\s?[\x22']?0\.0\.0\.0/0|\bsystem\.getenv\(\)|\b(?:port|puerto|porta|porte|poort|portu)\s\d{2,5}\b[^\n]{0,80}?0\.0\.0\.0/0|\btruncate\s(?:table\s)?\S*(?:audit|billing|payment|ledger)|\bgsutil\siam\sch\sallusers|\bprintenv\b[^\n]{0,60}?https?://|\bmaster\.key\b|\bgit\spush\s\S+\s:\S|\baz\sgroup\sdelete\b|\bgcloud\sprojects\sdelete\b|[\x22']aws[\x22']\s?:\s?[\x22']\*?[\x22']|\brequired_approving_review_count\W{0,4}0\b|\benforce_admins\W{0,4}false\b|\bdisable\srow\slevel\ssecurity\b|\brm\s-(?:rf|fr|r)\s\S*(?:backup|snapshot|dump|audit)\w*)"
    };
}

/// A supplier's bank account said to have changed, in the languages of
/// the blind sets, near the new number: an IBAN (spaced or hyphened), or
/// a number labelled as an account.
macro_rules! bank_changed {
    () => {
        r"(?:\b(?:new|updated|changed?\sof)\s(?:bank\s(?:account|details)|banking\sdetails|iban|remittance\sdetails)|\b(?:bank\s(?:details|account)|iban|account\snumber)\s(?:has|have)\s(?:been\s)?(?:changed|updated)|\bnuov[oa]\s(?:conto\scorrente|iban|coordinate\sbancarie)|\bcoordinate\sbancarie\s(?:\w+\s){0,2}?(?:cambiat|variat)|\bnieuwe?\s(?:rekening|iban|bankrekening)|\b(?:rekeningnummer|bankgegevens|iban)\s(?:\w+\s)?gewijzigd|\bgewijzigde\sbankgegevens|\bnow(?:y|ym|e)\s(?:rachun\w*\sbankow\w*|numer\s(?:konta|rachunku)|rachunek)|\brachunek\sbankowy\s(?:\w+\s)?(?:uległ\szmianie|zmienił)|\bnov(?:ý|ém|é)\s(?:účet|účtu|číslo\súčtu|údaje)|\bzměn\w*\s(?:bankovního\sspojení|čísla\súčtu|bankovních\súdajů)|\bneue[nrs]?\s(?:bankverbindung|iban|konto\w*)|\bbankverbindung\s(?:\w+\s){0,2}?geändert|\bnouve(?:au|l|lle)s?\s(?:rib|iban|compte\sbancaire|coordonnées\sbancaires)|\bcoordonnées\sbancaires\s(?:\w+\s){0,2}?chang|\bnuev[oa]\s(?:cuenta\sbancaria|iban|número\sde\scuenta)|\bdatos\sbancarios\s(?:\w+\s){0,2}?cambiad|\bnov[oa]\s(?:conta\sbancária|iban)\b|\bdados\sbancários\s(?:\w+\s){0,2}?(?:alterad|mudar)|\bnytt\s(?:bankkonto|kontonummer)|\bny(?:t)?\s(?:bankkonto|kontonummer)|\buusi\s(?:pankkitili|tilinumero)|(?:^|[^\w])új\s(?:számlaszám|bankszámla)\w*|\bnoul\scont\b|новый\s(?:счёт|счет|расчётный|расчетный)|новые\sреквизиты|реквизиты\s(?:\w+\s)?изменил|ο\sνέος\sλογαριασμός|новий\sрахунок|புதிய\sகணக்கு|नया\s(?:खाता|बैंक\sखाता)|नए\sखाते|حساب\s(?:بنكي\s)?جديد|新(?:的)?(?:银行)?账户|新しい(?:銀行)?口座|새\s계좌|\byeni\s(?:hesap|iban)|\bnomor\srekening\sbaru|\brekening\sbaru|tài\skhoản\smới|\bcont(?:ul)?\sbancar\s(?:nou|schimbat|actualizat)|\bcont\snou\b|חשבון\s(?:בנק\s)?חדש|حساب\s(?:بانکی\s)?جدید|شماره\s(?:حساب|شبا)\s(?:جدید|تغییر)|نیا\s(?:بینک\s)?(?:اکاؤنٹ|اکاونٹ|کھاتہ)|নতুন\s(?:ব্যাংক\s)?(?:অ্যাকাউন্ট|হিসাব)|บัญชี(?:ธนาคาร)?ใหม่|\bnov\w*\s(?:bankovn\w*|transakcijsk\w*|žiro|tekuć\w*)\s?račun\w*|\bpromjen\w*\s(?:bankovnog\s)?računa\b|\biban\s(?:je\s)?(?:promijenjen|izmijenjen|spremenjen)|\bnov(?:é|ý|ého)\s(?:číslo\súčtu|bankové\sspojenie|účet)|нова?\s(?:банкова\s)?сметка|нов(?:и)?\s(?:банковен\s|банковни\s)?рачун|нова\sбанкарска\sсметка|\buus\s(?:arvelduskonto|pangakonto|kontonumber|iban)|\bjaun(?:s|ais)\s(?:bankas\s)?(?:konts|konta\snumurs|iban)|\bnauj(?:a|oji|as)\s(?:banko\s)?(?:sąskaita|sąskaitos\snumeris|iban)|\bakaunti\s(?:mpya|ya\sbenki\smpya)|\bbagong\s(?:bank\s)?(?:account|numero\sng\saccount)|\bakaun\s(?:bank\s)?baharu\b|\bnombor\sakaun\sbaharu|νέο(?:ς)?\s(?:τραπεζικό\s)?(?:λογαριασμό|iban)|\bnýtt\s(?:bankareikn\w*|reikningsnúmer)|\bllogari\w*\s(?:e\s)?re\b|\bnou\s(?:compte\sbancari|iban)\b|\bnuwe\s(?:bankrekening|rekeningnommer)|\bkontoänderung\b|\bänderung\s(?:der|unserer)\sbankverbindung|\b(?:we\shave|we\x27ve)\s(?:changed|moved|switched)\s(?:our\s)?bank(?:s|ing)?\b|\bplease\s(?:update|change|amend)\s(?:our|the)\s(?:bank|banking|payment|remittance)\s(?:details|information|info|account)|\b(?:remit|send|wire|transfer)\s(?:all\s)?(?:future\s)?payments?\sto\s(?:the\s|our\s)?(?:new|following|below)\s(?:account|iban|bank)|振込先(?:の|を|が)?変更|收款(?:账户|账号)(?:已)?变更|更改(?:了)?收款账户|입금\s?계좌\s?(?:가\s|를\s)?변경|\bnovi\siban\b|\bna\snovi\s(?:račun|iban)\b|\bmodificarea\scontului\sbancar|\bexclusiv\sîn\scontul\b|\bcontul\snostru\s[^\n.]{0,80}?se\sînchide|\bnagpalit\s(?:na\s)?(?:po\s)?(?:kami\s)?ng\sbangko|\bbagong\sbangko\b|\bbankszámlája\s(?:\S+\s)?megváltozott|\bbankszámla(?:szám)?(?:unk|a)?\s(?:\S+\s)?megváltoz\w*|പുതിയ\s(?:ബാങ്ക്\s)?അക്കൗണ്ട്|പഴയ\s[^\n]{0,30}?അക്കൗണ്ട്|\bbank\s(?:change|details\schange)\s(?:requested|request|notification)\b|\boverwrite\s(?:the\s)?(?:routing|account|iban|bank)\w*|\b(?:process|send|make|initiate|book)\s(?:a\s|the\s)?(?:same-day\s|urgent\s)?(?:wire|transfer|payment)\s(?:for|of)\s(?:usd|eur|gbp|chf|\$|€|£))[\s\S]{0,300}?(?:\b[a-z]{2}\d{2}[\s-]?(?:[a-z0-9]{4}[\s-]?){2,7}[a-z0-9]{1,4}\b|(?:account\snumber|acct|konto|rachun\w*|účet|účtu|счёт|счет|р/с|conto|rekening|compte|cuenta|conta|numer|எண்|खाता|λογαριασμός|账号|账户|口座|계좌|നമ്പർ|account)\D{0,20}\d[\d\s/-]{7,30}\d|\b\d{9}\s?/\s?\d{6,17}\b)"
    };
}

/// What a fraudster adds to a change of account: no call to check it,
/// at once, only to the new one.
macro_rules! payment_lever {
    () => {
        r"(?:\bno\sneed\sto\s(?:call|confirm|verify|check)\b|\b(?:do\s?n[o']t|please\sdo\snot)\s(?:call|phone|ring)\sus\b|\bcannot\stake\scalls\b|\b(?:does|do)\sn(?:o|')t\s(?:need\sto\s)?(?:be\s)?(?:confirmed|verified)\b|\bsenza\s(?:attendere|telefonare|chiamare|verific\w*)|\bbel\sons\s(?:hier\s)?(?:\w+\s)?niet\b|\bnie\strzeba\s(?:\w+\s)?potwierdza\w*|\bbez\s(?:telefonick\w*|ověřen\w*|potwierdzen\w*)|\bověření\s(?:\S+\s){0,3}?neprovád\w*|без\s(?:звонка|подтверждения)|\bohne\s(?:telefonische\s)?(?:rückruf|rückfrage|bestätigung)\b|\bsans\s(?:nous\s)?(?:rappeler|appeler|confirmation)|\bsin\s(?:llamar|verificar|confirmar)\b|\bsem\s(?:ligar|verificar|confirmar)\b|உறுதிப்படுத்த\sவேண்டியதில்லை|不要(?:打电话|致电)|无需(?:电话)?(?:确认|核实)|確認(?:は)?不要|전화\s확인\s없이|\btanpa\s(?:konfirmasi|verifikasi)|không\scần\sxác\snhận|\bfără\s(?:a\s)?(?:doua\ssemnătură|verificare|confirmare\stelefonică)|\bwithout\s(?:a\s|the\s)?(?:second\s(?:signature|approval|approver|sign-?off)|call-?back)\b|\bohne\s(?:zweite\s)?(?:unterschrift|vier-augen)|\bnije\spotrebno\s(?:\S+\s){0,2}?(?:tražiti|provjeravati|zvati|potvrđivati)|\bdin\smotive\sde\sconfiden\w*|\bcan\x27?n?o?t\stake\scalls\b|\bskip\s(?:the\s)?(?:usual\s)?(?:dual|second|two-person|four-eyes)[\s-]?(?:approval|signature|sign-?off)|\bdo\s?n[o\x27]?t\scc\b|\brelease\sthe\s(?:hold|held\spayment))"
    };
}

/// Version 20: what else a fraudster adds: the payment urged today, the
/// change kept confidential. A supplier's own notice says the same when
/// it moves banks, and tells the reader to check the change by phone
/// (`PAYMENT_UNLESS`).
macro_rules! payment_hurry {
    () => {
        r"(?:\b(?:pay|paid|transfer|wire|process|release|approve)\w*\s(?:\w+\s){0,4}?(?:today|immediately|urgently|asap|by\s(?:end\sof\s(?:day|business)|noon|tonight))\b|\bkeep\s(?:this|it)\s(?:confidential|between\sus|quiet)\b|\bstrictly\sconfidential\b|\bdo\sn[o\x27]t\s(?:discuss|share)\sthis\b|\bplată\s(?:azi|astăzi|urgentă)|\baprob\w*\splata\s(?:azi|astăzi|imediat)|\b(?:heute\snoch|noch\sheute|umgehend)\s(?:\w+\s)?(?:überweisen|zahlen|freigeben)|\b(?:aujourd\x27hui|immédiatement|en\surgence)\s(?:\w+\s)?(?:payer|virer|régler)|\b(?:hoy\smismo|urgente(?:mente)?)\s(?:\w+\s)?(?:pagar|transferir|abonar))"
    };
}

pub const ERRAND: &[Rule] = &[
    Rule {
        id: "role-errand",
        what: "a note to whoever runs, deploys, maintains or processes the text (in its language) near a command or setting that destroys data, opens access to anyone, switches a check off or moves a secret",
        patterns: &[role_reader!(), next_editor!()],
        near: Some((
            &[role_act!(), weakening!(), act_v20!(), agent_stopped!()],
            320,
        )),
    },
    Rule {
        id: "payment-redirect",
        what: "a supplier's bank account said to have changed, with the new number, near a request to skip the call that would check it, an approval claimed for it, the payment urged today or the change kept quiet; not where the reader is told to check it by phone",
        patterns: &[bank_changed!()],
        near: Some((
            &[
                payment_lever!(),
                role_reader!(),
                next_editor!(),
                sanctioned!(),
                absent_approval!(),
                unmentioned!(),
                unmentioned_more!(),
                unmentioned_v10!(),
                payment_hurry!(),
            ],
            320,
        )),
    },
];

/// What stands beside a role's errand in a runbook and not in an attack:
/// the step said to be for a test, local or demo setup only, done on
/// purpose, never to be done, or fixed by an upgrade (version 18:
/// runbooks, advisories and guides for agents name roles and such acts
/// too).
pub const ROLE_ERRAND_UNLESS: &[&str] = &[
    r"\bnever\s(?:\w+\s){0,3}?(?:do|use|run|commit|lower|put|store|add|set|copy|disable|enable|push|apply|send|merge|share|paste|mail|grant|open|expose)\b",
    // Version 20 (the review): a step forbidden or checked for, or a
    // machine that is a test or a lab.
    r"\b(?:nobody|no\sone|no-one)\s(?:may|can|should|must|is\sallowed\sto)\b|\bcheck\s(?:that\s)?(?:nobody|no\sone)\b|\bmake\ssure\s(?:that\s)?(?:nobody|no\sone)\b|\b(?:test|lab|sandbox|throwaway|disposable|vagrant|ci)\s(?:vms?|machines?|hosts?|servers?|boxe?s?|containers?|profile)\b|\bseed\w*\.sql\b|\bseed\sdata\b|\bfixtures?\b|\bmalware\s(?:lab|sandbox|analysis)\b|\b(?:local|dev|test)\s(?:\w+\s){0,2}?only\b|\b(?:offboarding|uninstall\w*|decommission\w*|deprovision\w*)\b",
    r"\btest(?:ovací|ovacie|owym|owej|umgebung|miljö|miljø|maskin|server|-server|szerver|sunucu)\w*",
    r"\bnot\s(?:\w+\s)?(?:in|on|against|for)\sprod(?:uction)?\b",
    r"\bonly\s(?:\w+\s)?(?:in|on|for|against)\s(?:the\s|your\s|a\s)?(?:local|dev|development|staging|test|testing|preview|ephemeral|sandbox|demo|kind)\b",
    r"\b(?:in|on|for)\s(?:the\s|a\s|your\s)?(?:local|dev|development|staging|preview|ephemeral|sandbox|demo|kind)\s(?:profile|mode|environment|env|envs|cluster|setup|machine|instance|db|database)\b",
    r"\b(?:on\spurpose|by\sdesign|intentionally|deliberately|absichtlich|bewusst|volontairement|a\spropósito|intencionalmente|di\sproposito)\b",
    r"\b(?:security\sadvisory|vulnerab\w*|cve-\d|ghsa-|was\sfixed|fixed\sin|upgrade\sto|(?:was|were)\s(?:removed|dropped)\sin|do\s?n[o']t\sbring\s(?:it|them)\sback)\b",
    r"\b(?:removes?|removing|drops?|dropping)\sthe\s(?:\w+\s)?(?:allow_failure|--no-verify|auth\w*)",
    r"\b(?:niemals|jamais|nunca|nooit|aldrig|aldri|koskaan|nikdy|nigdy|soha)\b|никогда|ніколи|絶対に|决不|절대로?\s",
    r"\bdemo-instanz\b|dev-режим\w*|стенд\w*\sразработки|\bentwicklungs\w*|\ben\s(?:local|développement)\b|\ben\sdesarrollo\b|\bin\ssviluppo\b|\bem\sdesenvolvimento\b",
];

/// What stands beside a real supplier's change of account: the reader
/// told to check it by phone, on a number already known, or warned of
/// the fraud (version 20).
pub const PAYMENT_UNLESS: &[&str] = &[
    r"\b(?:please\s)?(?:verify|confirm|check|validate)\s(?:\w+\s){0,5}?(?:by\s(?:phone|telephone|calling)|over\sthe\sphone|via\s(?:a\s)?(?:phone|call)|with\s(?:a\s)?call|on\s(?:a|the)\s(?:number|contact)|using\s(?:a|the)\s(?:number|contact))\b|\b(?:known|usual|trusted|existing)\s(?:phone\s)?(?:number|contact)\b|\bnumber\s(?:you\shave\s)?on\sfile\b|\bcall\s(?:us|your\s\w+\s(?:contact|manager))\s(?:\w+\s){0,3}?(?:before|to\sconfirm|to\sverify)\b|\bwe\s(?:will\s)?never\s(?:ask|request|change|send)\b|\bphishing\b|\bbusiness\semail\scompromise\b",
    r"\b(?:bitte\s(?:\w+\s){0,3}?telefonisch|telefonisch\s(?:zu\s)?(?:bestätigen|verifizieren|prüfen|rückversichern))\b|\b(?:vérifiez|confirmez|appelez)\s(?:\w+\s){0,4}?par\stéléphone\b|\b(?:verifique|confirme|llame)\s(?:\w+\s){0,4}?por\s(?:teléfono|telefone)\b|\bověřte\s(?:\w+\s){0,3}?telefonicky\b|\b(?:zweryfikuj|potwierdź)\w*\s(?:\w+\s){0,3}?telefonicznie\b|\b(?:verifieer|bevestig)\s(?:\w+\s){0,4}?telefonisch\b|\b(?:verificați|confirmați|sunați)\s(?:\w+\s){0,4}?telefonic\b|(?:проверьте|подтвердите|уточните)\s(?:\S+\s){0,4}?по\sтелефону|電話で確認してください|请(?:致电|电话)(?:核实|确认)|전화로\s확인해\s주세요",
];
