//! Rules of version 22: a change of bank account with the check that
//! would catch it talked away. Versions 10 to 21 read the change itself
//! ("our bank details have changed", "nova conta", "IBAN je promijenjen")
//! in the languages someone wrote down, and the blind sets kept writing
//! it in others: W's eleven payment changes were all missed, in
//! Portuguese, Macedonian, Norwegian, Armenian, Punjabi, Amharic, Zulu,
//! Maltese and English. What they shared was no phrase but a shape: a
//! number that can be paid to, and beside it the call or the check that
//! would expose the fraud said to be needless, impossible or skipped
//! ("não é necessário confirmar por telefone", "kan ikke nås på
//! telefon", "առանց լրացուցիչ ստուգման", "M'hemmx għalfejn iċċempel",
//! "don't hold this for the usual callback"). A negation and a word for
//! calling or checking are each short lists per language, and their
//! product covers phrasings no list held. A real supplier's notice asks
//! the reader to call; a bank's warning says what it never asks, and
//! names the OTP or the PIN; both are kept out (`UNLESS`). And, in
//! no language at all, the setting that switches a check off: W's
//! changelog told every upgrader to keep `GPG_VERIFY=0`, its runbook to
//! set `mfa.required=false` for all tenants.
//!
//! Version 23 adds what `payment-redirect` needs to stand aside (the
//! reader asked to check the change by a call, in any words:
//! `CHECK_ASKED`), and version 24 the weakening kept out of the record,
//! read from the record's borrowed English name beside a short denial
//! (`unrecorded-weakening`): a review talked away, as the payment's
//! call is.

use super::Rule;

/// A word that denies what follows or precedes it, in the languages of
/// the blind sets: "not", "without", "no need", "cannot", and the state
/// of a line that cannot answer ("closed", "unavailable"). Short words
/// that are something else in another language ("nu", "na", "si") are
/// left out, or spelled with what follows them.
macro_rules! denial {
    () => {
        r"(?:\bno\b|\bnot\b|\bn't\b|n't\b|\bnever\b|\bwithout\b|\bcannot\b|\bcan't\b|\bunable\b|\bunreachable\b|\bskip\b|\bnão\b|\bnao\b|\bsem\b|\bnicht\b|\bkein\w*|\bohne\b|\bbrez\b|\bfora\sdo\sar\b|\baußer\sbetrieb\b|\bhors\sservice\b|\bfuera\sde\sservicio\b|\bfuori\sservizio\b|\bout\sof\s(?:order|service)\b|\bne\b|\bn'|\bpas\b|\bsans\b|\bsin\b|\bnon\b|\bsenza\b|\bniet\b|\bgeen\b|\bzonder\b|\bnie\b|\bbez\b|(?:^|\s)(?:не|без|ні|нема|немає|нет|нельзя)|(?:^|\s)fără|\bnu\seste\b|\bnu\se\b|\bnu\s(?:ne|sun|apel)|\bikke\b|\binte\b|\butan\b|\buden\b|\buten\b|\bei\b|\bilman\b|\bnem\b|\bnincs\b|\bnélkül\b|δεν|μην|χωρίς|\bdeğil\b|\byok\b|\bolmadan\b|لا|ليس|دون|بدون|نیست|نمی|נא\sלא|לא|אל|ללא|बिना|नहीं|नही|मत|না|নেই|ছাড়া|ਨਾ|ਨਹੀਂ|ਬਿਨਾਂ|இல்லை|வேண்டாம்|லேது|లేదు|వద్దు|ಬೇಡ|ಇಲ್ಲ|ഇല്ല|വേണ്ട|ไม่|อย่า|(?:^|\s)không|(?:^|\s)đừng|不要|不用|无需|無需|无须|無須|别|別|不必|不需|없이|마세요|말고|않|\btidak\b|\btak\b|\bjangan\b|\btanpa\b|\bhindi\b|\bhuwag\b|\bwag\b|\bwalang\b|\bhakuna\b|\bbila\b|\busi\w+|\bakudingeki\b|\bungabi\b|\bm'hemmx\b|\bmhux\b|\bmhix\b|\bmhuwiex\b|չեմ|չի|չեն|չենք|մի\s|առանց|არ\s|ნუ\s|გარეშე|አያስፈልግም|አይ|አት|\bnije\b|\bnisu\b|\bnemoj\w*|\bneni\b|\bnav\b|\bnėra\b|\bnereikia\b|\bega\b|\bpole\b|\bmitte\b|\bilma\b|\bnicio\b|\bnuk\b|\bpa\b|\bgabe\b|\bezin\b|\bmaaha\b|\bhaipatikani\b|\bhaifai\b|\bhamna\b|\bkeine?\b|\bnein\b|\bnada\b|\bnunca\b|\bjamais\b|\bmai\b|\bnooit\b|\bnigdy\b|\bnikdy\b|\baldrig\b|\bkoskaan\b|\bsoha\b|(?:^|\s)niciodată|никогда|ніколи|\bhiçbir\b|أبدا|هرگز|לעולם|कभी|কখনও|\bkamwe\b|\bterminated\b|\bclosed\b|\bmanutenção\b|\bmanutenzione\b|\bmantenimiento\b|\bwartung\b|\bmaintenance\b|\bmanutenzjoni\b|\bindisponível\b|\bnon\sdisponibile\b|\bunavailable\b|\bnedostupn\w*|недоступ\w*|\boverslaan|\bpominąć|\bpomiń|\bsalt(?:are|ate|ala|a)\b|\bsautez|(?:^|\s)überspring\w*|(?:^|\s)омит\w*|(?:^|\s)пропуст\w*|älkää|(?:^|\s)älä|\bekki\b|óþarfi|\bpeidiwch\b|\bdim\sangen\b|(?:^|\s)ná|\bníl\sgá|\bmos\b|\bnemojte\b|\bha\sla\b|\baan\sla\b|\blooma\sbaahna\b|\baza\b|\btsy\b|\bkada\b|\bkar\sa\b|\bakwala\b|\bmusa\b|\bmusani\b|\bsukuba\b|\bba\szan\siya\b|\bnegal\w*|\bakukho\b|\bemas\b|\bqilmang\b|\byox\b|\byoxdur\b|\betməyin\b|\betmeyin\b|\bnekin\b|\bneke\b|\bnake\b|жок|жоқ|емес|эмес|хэрэггүй|битгий|(?:^|\s)бүү|нест|шалмаңыз|чалбаңыз|чалбагыла|(?:^|\s)مه|(?:^|\s)نہ|(?:^|\s)مت|نشته|نیازی|ضرورت\sنہیں|لا\sداعي|កុំ|មិន|ບໍ່|ຢ່າ|မလို|မ(?:ဆက်|ခေါ်|စစ်)|\bntabwo\b|عدم|नका|नाही|नये|kò\ssí|\bko\ssi\b|má\sṣe|\btiada\b|\btidak\sperlu\b|\bgerekmiyor\b|\bgerekmez\b|\byoktur\b|\bgereksiz\b|\bntukore\w*|\bsi\s(?:mbowe|lazima)\b|\bnení)"
    };
}

/// Calling: the way a payment change is checked, and what a fraudster
/// says cannot be done.
macro_rules! calling {
    () => {
        r"(?:\bphon\w*|\btelephon\w*|\bcall-?back\w*|\bcall\sback\b|\bcall(?:ing)?\s(?:us|them|him|her|me|the\s(?:office|vendor|supplier|bank|number|sender))\b|\bring\s(?:us|them)\b|\btelefon\w*|\btelefoon\w*|\bteléfono\w*|\btéléphon\w*|\bappel\w*|\brappel\w*|\bappeler\b|\b[mlt]'appel\w*|\b[mlt]'téléphon\w*|\banruf\w*|\brückruf\w*|\banrufen\b|\bllam\w*|\bligar\b|\bligação\b|\bligue\w*|\bchiam\w*|\bbel\b|\bbellen\b|\bopbellen\b|\bzadzwo\w*|\bdzwo\w*|\bvolat\b|\bzavolat\b|\bzvan\w*|звон\w*|позвон\w*|телефон\w*|дзвон\w*|зателефон\w*|обадете|обаждане|\bnazv\w*|\bnazov\w*|\bpozv\w*|\bklic\w*|\bpoklič\w*|\bhív\w*|\bfelhív\w*|\bsoit\w*|\bpuhel\w*|\bringa\w*|\boppring\w*|\bhelista\w*|\bzvanī\w*|\bpiezvan\w*|\bskambin\w*|\baramay\w*|\baramanız\w*|\barayın\w*|τηλεφων\w*|τηλέφων\w*|κλήση|هاتف\w*|الاتصال|اتصل\w*|تماس|تلفن\w*|تلفنی|טלפון\w*|להתקשר|תתקשרו|התקשרו|फ़ोन|फोन|कॉल|ফোন|কল|ਫ਼ੋਨ|ਫੋਨ|ફોન|ఫోన్|போன்|தொலைபேசி|அழை\w*|ഫോൺ|വിളി\w*|ಫೋನ್|ಕರೆ|โทร\w*|điện\sthoại|\bgọi\b|电话|電話|致电|致電|来电|전화|통화|\bsimu\b|\btawag\w*|\btumawag\b|\btelepono\b|\bhubungi\b|\bmenelefon\b|\bucingo\b|\bnishayele\b|\bshayel\w*|\bfowuni\b|iċċempel|ċempel|\bzəng\w*|\bqo'ng'iroq\w*|հեռախոս\w*|զանգ\w*|ტელეფონ\w*|დარეკ\w*|ስልክ|መደወል|ደውል|ይደውሉ|\bwhatsapp\b|ċempl\w*|iċċempl\w*|\bliga\b|\bligam\b|\bwac\b|\bwaca\b|\bwici\w*|\bxiriir\w*|\btaleefan\w*|\bantso\w*|\bmiantso\b|\btelefaonin\w*|\bhringj\w*|\bhringið|\bhringdu\b|\bsímtal\w*|\bffonio\b|\bffôn\b|\bglaoigh\b|\bglaoch\b|\bfoonu\b|fóònù|\bkira\b|\bkiran\b|\bwaya\b|ekwentị|\bumnxeba\b|\btsalela\b|\bletsetsa\b|\bhamagar\w*|\btelefoni\b|दूरध्वनी\S*|\bskakel\b|pè\swá|pè\swọ́n|\bbel\sons\b|ទូរស័ព្ទ|ហៅ|ໂທ|ဖုန်း|زنګ|زنگ|فون|утас\w*|залга\w*|қоңырау|қоңыроо|чалып|чалуу|јавува\w*|јави\w*|\bzov(?:i|ite|ete|emo|u)\b|\btalk\b|\bkalbėti\b|تتصل\w*|يتصل\w*|\b(?:uku)?fowunel\w*|عيط\w*|свърз\w*|свърж\w*)"
    };
}

/// Checking or confirming, and the second approval of a payment.
macro_rules! checking {
    () => {
        r"(?:\bverif\w*|\bconfirm\w*|\bconferm\w*|\bcompta\b|\bcomptabilité|\bvalidat\w*|\bbestätig\w*|(?:^|\s)überprüf\w*|\bprüf\w*|\bvérif\w*|\bcomprob\w*|\bconferir\b|\bcontroll\w*|\bcontroleer\w*|\bverifieer\w*|\bsprawdz\w*|\bpotwierdz\w*|\bweryfik\w*|\bověř\w*|\bpotvrd\w*|\boveren\w*|\bover(?:iť|ovať)|провер\w*|подтвержд\w*|перевір\w*|підтвердж\w*|потвърд\w*|провер\w*|потврд\w*|\bdoğrula\w*|\bteyit\w*|\bellenőr\w*|\bmegerősít\w*|\bvahvist\w*|\btarkist\w*|\bbekräft\w*|\bkontroll\w*|\bbekreft\w*|\bkinnita\w*|\bapstiprin\w*|\bpārbaud\w*|\bpatvirtin\w*|\bpatikrin\w*|\bprovjer\w*|\bpotvrđ\w*|\bpreveri\w*|\bpotrdi\w*|επιβεβαί\w*|επαλήθ\w*|تأكيد|تاكيد|تحقق|التحقق|تایید|تأیید|אימות|לאמת|לוודא|אישור|सत्याप\w*|पुष्टि|যাচাই|নিশ্চিত|ਪੁਸ਼ਟੀ|உறுதி\w*|சரிபார்\w*|ధృవీకర\w*|ಪರಿಶೀಲ\w*|സ്ഥിരീകര\w*|ยืนยัน|ตรวจสอบ|xác\snhận|xác\sminh|确认|確認|核实|核實|验证|驗證|확인|검증|\bkonfirmasi\b|\bverifikasi\b|\bpengesahan\b|\bkumpirm\w*|\bberipik\w*|\bthibitish\w*|\bqinisekis\w*|\btivverifika\b|\bikkonferma\w*|ստուգ\w*|հաստատ\w*|դադաստ\w*|დადასტურ\w*|გადამოწმ\w*|ማረጋገጥ|ለማረጋገጥ|\btekshir\w*|\btasdiq\w*|растау|тексер\w*|\byoxla\w*|\btəsdiq\w*|\b(?:second|dual|two-person|four-eyes)[\s-](?:approv\w*|signature|sign-?off)|\bzweite\w*\s(?:freigabe|unterschrift|genehmigung)|второ\w*\sодобрени\w*|второ\w*\sподпис\w*|\bbevestig\w*|jẹ́rìí|\bjerisi\b|\bxaqiiji\w*|\bhubi\w*|\bhanamarin\w*|\bhamarino\b|\bmanamarina\b|\bfanamarinana\b|ផ្ទៀងផ្ទាត់|បញ្ជាក់|ຢືນຢັນ|ກວດສອບ|အတည်ပြု|баталгаажуул\w*|шалга\w*|такта\w*|текшер\w*|تصدیق|تایید|\bstaðfest\w*|\bsannreyn\w*|\bgwirio\b|\bcadarnhau\b|\bdeimhnigh\b|\btabbatar\w*|\bjẹrisi\b|\bkwemez\w*|\bemeza\b|\bkonfirmo\w*|\bverifiko\w*|\bpiştrast\w*)"
    };
}

/// Something that can be paid to: an IBAN, or a number of eight digits
/// or more after a word for an account (version 23: or a Japanese
/// account's seven); version 30: a Russian settlement account ("р/с"),
/// a wallet's address (Tron, Ethereum, Bitcoin's bech32) and the "new
/// account" a Chinese note names without its number.
macro_rules! payable {
    () => {
        r"(?:\b[a-z]{2}\d{2}\s?(?:[a-z0-9]{4}\s?){2,7}[a-z0-9]{1,4}\b|\b[a-z]{2}\s\d{2}(?:\s\d{4}){3,7}(?:\s\d{1,4})?\b|(?:\baccount|\bacct|\brouting|\bsort\scode|\bbsb\b|\bclabe|\bcbu\b|\bupi|\bpix|\bkonto|\bkontonum|\bconta\b|\bcuenta|\bcompte|\bconto\b|\brekening|\brachun|účet|účtu|счет|счёт|рахун|сметк|рачун|\bhesap|számla|\btili|\bkonts|\bkonta|sąskait|\bakaun|\bakhawunti|\bakaunti|\bakawnt|հաշ|ሂሳብ|ანგარიშ|حساب|חשבון|खात|অ্যাকাউন্ট|হিসাব|ਖਾਤ|ખાતા|கணக்கு|ఖాతా|ಖಾತೆ|അക്കൗണ്ട്|බැංකු|ගිණුම|บัญชี|tài\skhoản|账户|账号|帳戶|帳號|口座|계좌|\bkont\b|\bhesab|\bakoon|\bkoonto|\bkaonty\b|\breikning|\bcyfrif\b|\bcuntas\b|\basusu\b|àkáǹtì|\bakanti\b|\bkonti\b|λογαριασμ|эсеп|шот|данс|ҳисоб|\bhisob|គណនី|ບັນຊີ|အကောင့်|ငွေစာရင်း|\bllogari|\bnumri|(?:^|\s)р/с|реквизит|\bn(?:ọ́|ọ|o)mb(?:à|a)|\bkonta|\bkontonummer|\bnumer|\bnumero|\bnúmero|\bnumér|\bnr\.?|\bno\.|\bnombor|\binombolo|ნომერ|номер|broj)[^\n\d]{0,30}\d(?:[\s.-]?\d){7,30}|口座番号\D{0,5}\d{7}|口座\s?[:：]?\s?(?:普通|当座|貯蓄)\s?\d{7}|\b(?:lipa\snamba|namba\sya\slipa|paybill|till\snumber|business\snumber|merchant\snumber)\D{0,5}\d{5,8}|חשבון\D{0,5}\d{6,}|\bt[1-9a-z]{33}\b|\b0x[0-9a-f]{40}\b|\bbc1[02-9ac-hj-np-z]{25,60}\b|(?:新|变更后的|新的)(?:收款)?(?:账户|賬戶|帐户|账号|帳號))"
    };
}

/// Version 28: gift cards, whose codes a fraud asks to be sent as
/// photos ("Kuskusin mo yung likod ng card tapos picturan mo lahat"), the
/// boss's phone said to be off in the same breath.
macro_rules! gift_card {
    () => {
        r"(?:\bgift\s?cards?\b|\bcart(?:ão|ões)[\s-]presente|\btarjetas?\s(?:de\s)?regalo\b|\bcartes?[\s-]cadeaux?\b|\bgeschenk(?:karte|gutschein)\w*|\bcart[ae]\sregalo\b|\bcadeaukaart\w*|\bkart\w*\supominkow\w*|подарочн\w*\sкарт\w*|подарунков\w*\sкарт\w*|\b(?:itunes|google\splay|apple|steam|amazon|razer\sgold)\s(?:gift\s)?(?:cards?|codes?|vouchers?)\b|ギフトカード|ギフト券|礼品卡|禮品卡|购物卡|기프트\s?카드|상품권|บัตรของขวัญ|thẻ\squà\stặng|\bkartu\shadiah\b|\bhediye\s(?:kart\w*|çeki)|بطاق\w*\sهدايا|بطاقة\sهدية|\bkatunan\skyauta\b|\bkatin\skyauta\b|\bajándékkárty\w*|\bdovanų\skortel\w*|\bdarilne\skartic\w*|\bpoklon\s?kartic\w*|\bdárkov\w*\skar(?:t\w*|et\b)|\bkat\skado\b|\blahjakort\w*|\bpresentkort\w*|\bgavekort\w*|\bcadeaubon\w*|\bkaadi\sya\szawadi\b|כרטיס(?:י)?\sמתנה|δωροκάρτ\w*|\bhədiyyə\skart\w*|\bcard(?:uri)?\scadou\b|\bdāvanu\skart\w*|\bkinkekaart\w*|\bgjafakort\w*|\b(?:vouchers?|kode|kodu|kartu|cards?|tarjetas?|cartes?|cartões|cartão|códigos?|codes?|kody|karty)\s(?:\S+\s){0,2}?(?:google\splay|itunes|steam|razer\sgold|app\sstore)\b)"
    };
}

/// Version 32: a delivery address, which a fraud moves as it moves an
/// account ("сменете ја адресата за испорака … Нема потреба да ја
/// потврдувате промената").
macro_rules! delivery {
    () => {
        r"(?:\b(?:delivery|shipping)\saddress\b|\blieferadresse\b|\badresse\sde\slivraison\b|\bdirección\sde\s(?:entrega|envío)\b|\bendereço\sde\sentrega\b|\bindirizzo\sdi\s(?:consegna|spedizione)\b|\badres\w*\sdostaw\w*|\bdoručovac\w*\sadres\w*|\bafleveradres\w*|\bleveransadress\w*|\bleveringsadress\w*|\bteslimat\sadres\w*|\bszállítási\scím\w*|\btoimitusosoit\w*|\badres\w*\sza\s(?:dostavu|isporuku)|адрес\w*\s(?:за\s)?(?:доставк|доставу|испорак)\w*|\badresa\sde\slivrare\b|\balamat\spengiriman\b|địa\schỉ\sgiao\shàng|配送先|收货地址|送货地址|배송지|배송\s주소|عنوان\sالتسليم|عنوان\sالشحن|כתובת\s(?:ה)?משלוח|διεύθυνση\sαποστολής|डिलीवरी\s(?:का\s)?पता)"
    };
}

/// Version 28: a transfer of a sum, for the fraud that sends the
/// account later ("Maître Fournier … vous écrira avec les coordonnées
/// bancaires") and asks now only that nobody call.
macro_rules! transfer {
    () => {
        r"(?:\bvirement|\bwire\b|\bwire\stransfer|\btransfer\sof\b|(?:^|\s)überweisung|\btransferencia|\bbonifico|\bprzelew|\btransferência|\bhavale|(?:^|\s)перевод|(?:^|\s)переказ)[^\n.]{0,40}?(?:[€$£]\s?\d{1,3}(?:[\s.,']\d{3})+|\d{1,3}(?:[\s.,']\d{3})+(?:[.,]\d{2})?\s?(?:€|\beur\b|\busd\b|\$|£|\bchf\b|\bgbp\b|\bpln\b|zł|\btl\b|₺|r\$|руб|грн))"
    };
}

/// Version 24: a denial in the short forms a request to leave something
/// out takes ("don't", "ärge", "moenie", "नका", "வேண்டாம்", "ننویسید").
macro_rules! left_out {
    () => {
        r#"(?:\bdon't\b|\bdo\snot\b|\bne\b|\bnu\b|\bnon\b|\bnão\b|\bnem\b|\bnicht\b|\bkein\w*|\bnie\b|\bniet\b|(?:^|\s)не|\bega\b|(?:^|\s)ärge|(?:^|\s)ära|\bmoenie\b|\bekki\b|\bikke\b|\binte\b|\bei\b|\bnemoj\w*|नका|नको|(?:^|\s)मत|नगर्नु\w*|না|வேண்டாம்|ننویسید|نکنید|نگذارید|(?:^|\s)ו?אל|\bne(?:įrašy|praneš|minė|nurody|informuo|sakyk|įtrauk|rašy)\w*|\bno\s(?:l[aoi]s?\s|n')?(?:etiqueteu|esmenteu|mencioneu|informeu|digueu|escriviu|poseu|aviseu|comenteu|registreu)\b|(?:^|\s)არ|(?:^|\s)لا|不写|不要|别写|勿|하지\s?마|적지\s?말|書かないで|しないで|\bkeep\s(?:it|this)\sout|\bleave\s(?:it|this)\sout|\bpeidiwch\b|\bkar\b|\bkada\b|\bjangan\b|\bhuwag\b|\bnici\b|\bnu-[li]\b|\byazma\w*|\bbelirtme\w*|\bnichts\b|\bne(?:přidáv|přidej|uváděj|zmiňuj|píš|pište|zapisuj|pridáv|pridaj|uvádzaj|spomín|zapis)\w*|\blad\svære\smed\b|\bla\svære\så|\bntu\w+|\busi\w+|\bmos\b|\bmitte\b|(?:^|\s)älä\w*|ნუ\s|(?:^|\s)մի|(?:^|\s)μην|(?:^|\s)đừng|อย่า|កុំ|ຢ່າ|битгий|(?:^|\s)бүү|немој\w*|ပါနှင့်|ပါနဲ့|രുത്|নকৰিব|নকরিব|\S*ngamtsheli|\bdo\snot\swrite|\bnever\smention|կարիք\sչկա|չկա|\behtiyac\syoxdur|\byoxdur\b|\bneinform\w*|\bneříkejte\b|\bneoznamujte\b|አይንገሩ|አትንገሩ|\bno\sneed\sto\s(?:tell|inform|notify|involve|loop\sin)|\bwithout\s(?:telling|informing|involving)|(?:^|\s)ná|\bnet\san\b|ບໍ່[\u{E80}-\u{EFF}]*|ไม่[\u{E00}-\u{E7F}]*|(?:^|\s)չ[\u{531}-\u{58F}]+|(?:^|\s)نہ|(?:^|\s)न(?:लेख|भन|बता|गर|राख|पठा|दे)[\u{900}-\u{97F}]*|(?:^|\s)на(?:диҳ|навис|гӯ|гуфт|кун)[\u{400}-\u{4FF}]*|\bm'għand\w*x\b|\bleave\s(?:[a-z'-]+\s){0,3}?out\sof\b|\bmusa\b|\bmusani\b|[가-힣]*지\s?말(?:아|고|라)|\bez\s(?:idatzi|aipatu|jakinarazi|esan|sartu)\w*|\bez\s(?:da|du|dira|dute|dago|dugu)\b|\beikä|\bgan\s(?:é|í|iad)\s|(?:చెప్ప|చేయ|రాయ|పంప|తెలియజేయ|పట్టించుకో)కండి|(?:^|\s)न\s(?:लिख|बता|कर|रख|भेज|दें|दे)[\u{900}-\u{97F}]*|\bwag\b|\b(?:yoz|ayt|qil|bildir|ber|och|yubor|ko'rsat)ma(?:ng|ngiz|sin)\b|\bno\s(?:lo\s|la\s|los\s|las\s|le\s|les\s)?(?:abras|comentes|menciones|digas|incluyas|pongas|registres|anotes|escribas|avises|informes|reportes)\b|\bni\s(?:lo\s|la\s)?(?:comentes|menciones|digas)\b|(?:^|\s)ნუ|(?:^|\s)không\scần|[\u{C00}-\u{C7F}]+వద్దు)"#
    };
}

/// Version 24: the record a change is kept out of, in the English words
/// other languages borrow for it ("PR-beskrywing", "PR वर्णनात", "ticket de
/// cambio", "릴리스 노트").
macro_rules! record_noun {
    () => {
        r#"(?:\bchange-?\s?logs?\b|\bchangelog\w*|\brelease[\s-]?notes?\b|\bcommit[\s-](?:message|msg)\w*|\bpr(?:-\w{1,3})?[\s-]?(?:description|beschreibung|beskrywing|kirjeldus\w*|popis\w*|opis\w*|वर्णन\w*|विवरण\w*|açıklama\w*|leírás\w*|kuvaus\w*|beskrivning\w*|beskrivelse\w*|descrição|descripción|descrizione|titel|title|body)|(?:описі|опис\w*|popisu|descrierea|descrição\sdo|descripción\sdel|description\sde\sla|beschreibung\sdes|beskrivningen\sav)\s(?:\S+\s)?pr\b|\bpull\srequest|\bmerge\srequest|릴리스\s?노트|커밋\s?메시지|রিলিজ\sনোট|কমিট\sমেসেজ|变更单|变更日志|更新日志|提交信息|更新履歴|コミットメッセージ|リリースノート|\bticket\sde\scambio|\bdeploy\slog|деплој\sлог|\bchange\s(?:ticket|report|request)|\b(?:pr|mr)(?:-\S{1,4}|\s\S*(?:വിവരണ|विवरण|বিবরণ|বর্ণনা|वर्णन|விளக்க|వివరణ|ವಿವರಣ|ବିବରଣୀ|ਵੇਰਵ|વર્ણન|تفصیل|توضیح|وصف|תיאור|説明|描述|설명)\S*)|(?:\bin\sthe|\bdo|\bnella|\bnel|\bin\sde|\bim|\bdans\sla|\ben\sla|\bna|\bw|\bv|\bu|\bi|(?:^|\s)в|(?:^|\s)у)\s(?:pr|mr)\b|\bbayanin\s(?:pr|mr)\b|\b(?:mesej|mensaje\sde|message\sde|messaggio\sdi|mensagem\sde|pesan|tin\snhắn)\scommit\b|\bcommit[\s-](?:bericht|nachricht|meddelande\w*|melding\w*|viesti\w*|üzenet\w*|mesaj\w*|mesajul|zprávu?|správ\w*|wiadomoś\w*|сообщени\w*|повідомлен\w*|ಸಂದೇಶ\w*|সন্দেশ|संदेश|செய்தி|సందేశ\w*|സന്ദേശ\w*|ข้อความ|메시지|メッセージ)|\bvrystellingsnot\w*|\bdeğişiklik\s(?:not\w*|günlü\w*)|\bdnevnik\w*\spromjen\w*|\bdnevnik\w*\ssprememb\w*|журнал\w*\sизменени\w*|журнал\w*\sзмін|\bhistorique\sdes\smodifications|\bregistro\sde\scambios|\bregistro\sdelle\smodifiche|änderungsprotokoll\w*|\bwijzigingslog\w*|ändringslogg\w*|\bendringslogg\w*|\bmuutosloki\w*|\bváltozásnapló\w*|变更记录|변경\s?로그|変更履歴|سجل\sالتغييرات|יומן\sהשינויים|יומן\sשינויים|\bloga\sathruithe\b|пулл?\s?реквест\w*|(?:[a-z]+-)?noti\stax?r-rilaxx\b|(?:^|\s)ревизи\w*|\bmonthly\s(?:security\s)?report|\badroddiad\smisol\b|\brapport\w*\sta'\skull\sxahar|гузориш\w*\sмоҳона|\brapport\smensuel|\bmonatsbericht\w*|\binforme\smensual|\brelatório\smensal|\b(?:rapporto|report)\smensile|ежемесячн\w*\sотч[её]т\w*|\baylık\srapor\w*|\bmaandrapport\w*|\bchange[\s-]tickets?\b|\w*protokoll\w*|تقرير\sالتغيير\w*|ملاحظات\sالإصدار|\bregjistr\w*\se\sndryshimeve\b|\baldaketen\serregistro\w*|թողարկման\sնշում\w*|یادداشت(?:\u{200C}|\s)?های\s(?:نسخه|انتشار)|خلاصه\S*\sانتشار|\btuarascáil\smhíosúil|\bpakeitimų\s(?:žurnal|istorij)\w*|\bincidencias?\b|\b(?:incident|moderation|moderator)\s(?:log|journal|register)s?\b|журнал\w*\s(?:инцидент|модерац)\w*|(?:модератор|инцидент)\w*\s(?:дневник|журнал|лог)\w*|дневник\w*\s(?:на\s)?(?:модератор|инцидент)\w*)"#
    };
}

/// Version 26: the security team, which a weakening is also kept from
/// ("Nu anunțați echipa de securitate", "bezpečnostní tým
/// neinformujte", "Təhlükəsizlik şöbəsinə xəbər verməyə ehtiyac yoxdur").
macro_rules! security_team {
    () => {
        r#"(?:\b(?:the\s)?(?:security|sec|infosec|appsec|secops)[\s-]?(?:team|dept|department|office|officer|folks|people)\b|\bsoc\b|\bciso\b|\bit-sicherheit\b|\bit-s(?:ikkerhe[dt]|äkerhet)\w*|\b(?:équipe|service)\sde\s(?:la\s)?sécurité|\b(?:equipo|departamento)\sde\sseguridad|\b(?:team|ufficio)\s(?:di\s|della\s)?sicurezza|\bequipa\sde\ssegurança|\bbiztonsági\s\w+|\bzesp\w*\sbezpiecze\w*|\bbezpečnostn\w*\s(?:tým|tím|odd\w*)|\bechipa\sde\ssecuritate|\bgüvenlik\s(?:ekib\w*|birim\w*)|\btəhlükəsizlik\s\w+|\b(?:pasukan|unit|tim|bahagian)\s(?:keselamatan|keamanan)\b|\btimu\sya\susalama\b|служб\w*\sбезопасност\w*|команд\w*\sбезопасност\w*|отдел\w*\sбезопасност\w*|відділ\w*\sбезпеки|команд\w*\sбезпеки|անվտանգության|უსაფრთხოების|ομάδα\sασφαλείας|فريق\sالأمن|تیم\sامنیت|צוות\sהאבטחה|सुरक्षा\sटीम|নিরাপত্তা\s(?:দল|টিম)|பாதுகாப்பு\sக்குழு|ทีมรักษาความปลอดภัย|đội\sbảo\smật|安全团队|安全部门|セキュリティチーム|보안\s?팀|ደህንነት|\bsecurity\s(?:review|audit|guild|sign-?off)\w*|\b(?:bh)?fh?oireann\sslándála\b|\btîm\sdiogelwch\b|(?:[a-z]+-)?tim\stas-sigurtà|шӯъбаи\sамният|ທີມຄວາມປອດໄພ|\b(?:sicherheits|beveiligings|säkerhets|sikkerheds|sikkerhets|tietoturva|sécherheet)(?:team\w*|abteilung\w*|avdelning\w*|afdeling\w*|avdeling\w*|ansvarig\w*|ansvarlig\w*|beauftragt\w*|verantwortlich\w*|officer\w*|leute|experten|prüfung\w*|review\w*|granskning\w*|gennemgang\w*|gjennomgang\w*|freigabe\w*|grupp\w*|enhet\w*|enhed\w*|chef\w*|dienst\w*|medewerker\w*|ryhmä\w*|tiimi\w*|yksikkö\w*|asiantuntij\w*|vastaava\w*|päällikkö\w*|koordinator\w*|mensen|folk\w*)|безбедносн\w*\s(?:тим\w*|служб\w*)|тим\w*\sза\sбезбедност|सुरक्षा\s[\u{900}-\u{97F}]+|\bsashen\stsaro\b|سیکیورٹی\s[\u{600}-\u{6FF}]+|\brevisión\sde\sseguridade?\b|\brevisão\sde\segurança|\brevue\sde\ssécurité|\brevisione\sdi\ssicurezza|\bsicherheitsprüfung\w*|проверк\w*\sбезопасност\w*|\bgüvenlik\sincelemes\w*|\bcompliance[\s-](?:team|officer|dept|department)\b|فريق\sالامتثال|\bcompliance-team\b|\bcompliance-abteilung\b|\b(?:appsec|infosec|secops)\b|సెక్యూరిటీ\sటీమ్|భద్రతా\sబృంద\S*|\bxavfsizlik\s\S+|\bdepartamento\sde\ssegurança|\bsiguria\b|\bsigurisë(?:\s|$|[.,;:])|\bsegurtasun\s(?:talde|sail|arduradun|azterketa|berrikuspen)\w*|équipe\s(?:de\s)?conformité|\bequipo\sde\scumplimiento\b|\bsaugumo\s(?:komand|skyri|tarnyb|specialist)\w*|\bequip\w*\sde\sseguretat\b|\bequip-seguretat\b|\brevisió\sde\sseguretat\b|பாதுகாப்புக்?\s(?:க்)?குழு|ਸੁਰੱਖਿਆ\s(?:ਟੀਮ|ਵਿਭਾਗ)\S*|\btietoturva(?:tiim|osast)\w*|#sec-?review\w*|\bandmekaitse\w*|\bdata\sprotection\sofficer\b|\bdpo\b|\bdatenschutzbeauftragt\w*|अनुपालन|(?:^|\s)комплајанс\w*|служб\w*\s\S+\sбезопасност\w*|#(?:security|sec|infosec|appsec|secops|bezpieczenstwo|sicherheit|seguridad|securite|seguranca|sicurezza)[\w-]*)"#
    };
}

/// Version 25: a word for "only", beside the cover story a note
/// dictates for the record.
macro_rules! only {
    () => {
        r#"(?:\bonly\b|\bjust\b|танҳо|മാത്രം|\bkawai\b|শুধু|\bsólo\b|\bsolo\b|\bnur\b|\bseulement\b|\buniquement\b|\bapenas\b|\bsomente\b|\btylko\b|\bjen\b|\bjenom\b|\blen\b|только|лише|тільки|\bsadece\b|\byalnızca\b|\bcsak\b|\bvain\b|\bbara\b|\bkun\b|\balleen\b|(?:^|\s)chỉ|只|だけ|만|فقط|רק|केवल|सिर्फ|\bsirf\b|\bhanya\b|\blamang\b|\bpouze\b|\bsamo\b|\bainult\b|\btikai\b|\btik\b|\bvetëm\b|\bbakarrik\b|\bnomés\b|ਸਿਰਫ਼|ਸਿਰਫ|ਕੇਵਲ)"#
    };
}

/// A request to leave something out (`left_out!`) before what it is kept
/// from, or after it within four words of `$word` (a class of one word's
/// characters), ending its own word: the same shape for the record and
/// for the security team.
macro_rules! kept_from {
    ($noun:expr, $word:expr) => {
        concat!(
            "(?:",
            left_out!(),
            // Version 28: the noun may carry a prefix ("kwi-CHANGELOG",
            // "fin-noti") and a suffix ("릴리스 노트에도"); version 31: a
            // Hebrew one ("ב-release notes") or a mention's "@"; version
            // 32: a channel's "#" ("v #change-log").
            r"\s(?:[^\s.!?]+\s){0,6}?(?:[a-z]+-|[\u{5D0}-\u{5EA}]{1,2}-|[@#])?",
            $noun,
            "|",
            $noun,
            $word,
            r"*(?:\s",
            $word,
            r"+){0,4}?\s?",
            left_out!(),
            r"(?:\W|$))"
        )
    };
}

/// Version 30: the desk a request would be checked with: the helpdesk,
/// IT, the security team, an office.
macro_rules! desk {
    () => {
        r"(?:(?:help\s?desk|service\s?desk|helpdesk|desk|support|i?desika|þjónustuborð|idesika|hjálparborð|bo'lim|отдел|служб|ufficio|bureau|büro|oficina|escritório|kantor|ofisi|البيرو|المكتب)\S*|\bit\b|\bit-\S+|\bsecurity\b|\bkooxda\s\S+|\bumnyango\s\S+|tổng\sđài\S*|hỗ\strợ\S*|phòng\scntt\S*)"
    };
}

/// Version 30: asking, as a desk is asked ("Ha weydiin kooxda IT-ga",
/// "Ungabuzi umnyango we-IT").
macro_rules! asking {
    () => {
        r"(?:\bask\w*|\bweydii\w*|\b(?:unga|uku)?buzi\b|\bfrag\w*|\bdemand\w*|\bpregunt\w*|\bpergunt\w*|\bchied\w*|\bspør\w*|\bfråga\w*|\bvraag\w*|\bpyt\w*|\bzapyt\w*|спрос\w*|спраш\w*|пита\w*)"
    };
}

/// Version 30: the check a request would get talked away in imperative
/// forms only, for `credentials-asked` and `protection-off-unchecked`:
/// an order not to call or ask the desk, the call to it said to be
/// needless, or an order not to open a ticket ("Musani ukuvula
/// itikiti", "Huwag nang mag-file ng ticket").
pub const DESK_NOT_ASKED: &[&str] = &[
    // An order not to call the desk that would check ("Ekki hringja í
    // þjónustuborðið", "Musani ukufowunela idesika yoncedo"), or that
    // call said to be needless ("xavfsizlik bo'limiga qo'ng'iroq qilish
    // shart emas").
    concat!(
        left_out!(),
        r"\s(?:\S+\s){0,2}?(?:",
        calling!(),
        "|",
        asking!(),
        r")(?:\s\S+){0,3}?\s",
        desk!()
    ),
    concat!(
        desk!(),
        r"(?:\s\S+){0,2}?\s(?:",
        calling!(),
        r")(?:\s\S+){0,2}?\s(?:shart\semas|kerak\semas|не\sнужно|не\sобязательно|не\sтребуется|nicht\snötig|nicht\snotwendig|not\snecessary|unnecessary|no\ses\snecesario|não\sé\snecessário|non\sè\snecessario|pas\snécessaire|gerek\syok|gerekmez)"
    ),
    concat!(
        left_out!(),
        r"\s(?:\S+\s){0,2}?(?:mag-|uku)?(?:open|file|rais|creat|log|abr|vul|hap)\S*\s(?:\S+\s){0,2}?(?:i|it)?(?:ticket|tiket|tikiti|incidencia|chamado)\S*"
    ),
    // Somali's "ha" denies only before a verb, so it is spelled with its
    // verbs here rather than in `left_out!`; Zulu's denial is the verb's
    // own prefix ("Ungabuzi umnyango we-IT").
    concat!(
        r"(?:\bha\s(?:weydiin|wicin|la\sxiriirin)|\bunga(?:buzi|shayeli|fowuneli|tsheli))\s(?:\S+\s){0,2}?",
        desk!()
    ),
];

/// The call or the check that would expose a fraud, said to be
/// needless, impossible or to be skipped: what `payment-unchecked` reads
/// near a payable number, and (version 30) what `credentials-asked`
/// reads as the request kept quiet ("Ekki hringja í þjónustuborðið",
/// "this can't go through the normal verification call").
pub const CALL_TALKED_AWAY: &[&str] = &[
    concat!(
        "(?:",
        denial!(),
        // Version 26: nor a table's cell ("Vergi No | IBAN |
        // Son doğrulama").
        r"\s(?:[^\s|]+\s){0,4}?(?:",
        calling!(),
        "|",
        checking!(),
        ")|(?:",
        calling!(),
        "|",
        checking!(),
        // Version 25: the denial's own space may be the one
        // after the call ("زنګ مه وهئ"); the words between end
        // no sentence.
        r")(?:\s[^\s.!?।。|]+){0,3}?\s?",
        denial!(),
        r"(?:\W|$))"
    ),
    // Version 23: Chinese, Japanese and Korean write the call
    // and its denial with no space between.
    r"(?:電話|电话|전화|致电|致電)[^\s]{0,20}?(?:かねます|できません|不要|不用|无需|無需|不可|不能|无法|無法|없이|불가)",
    // Version 24: the call or the check denied in one word
    // ("neoverujte", "nezvaniet", "aramayınız", "msipige simu"),
    // "אין צורך לאמת", and a denial before the call in scripts
    // written without spaces.
    r"\b(?:neover\w*|nekontroluj\w*|nevolaj\w*|nevolej\w*|netelefonuj\w*|nezvo\w*|nepotvrdz\w*|nezvan\w*|nepārbaud\w*|neskambin\w*|netikrin\w*|aramay\w*|doğrulamay\w*|msipige|usipige|msithibitishe)\b|אין\sצורך\s(?:\S+\s){0,3}?(?:לאמת|לוודא|להתקשר|לבדוק)|(?:ไม่ต้อง|ไม่จำเป็น|อย่า)[^\s]{0,12}?(?:โทร|ยืนยัน|ตรวจสอบ)|(?:不要|不用|无需|無需|不必|请勿|請勿)[^\s]{0,10}?(?:电话|電話|致电|致電|确认|確認|核实|核實)",
    // Version 25: Khmer, Lao and Burmese, which write the
    // denial and the call as one word; Kazakh's and Kyrgyz's
    // call denied by its verb's suffix.
    r"(?:កុំ|មិនចាំបាច់|មិនបាច់|មិនត្រូវ)[^\s]{0,12}?(?:ទូរស័ព្ទ|ហៅ|ផ្ទៀងផ្ទាត់|បញ្ជាក់)|(?:ບໍ່ຕ້ອງ|ບໍ່ຈຳເປັນ|ຢ່າ)[^\s]{0,12}?(?:ໂທ|ຢືນຢັນ|ກວດສອບ)|(?:ဖုန်း|အတည်ပြု)[^\s]{0,15}?(?:မလို|နှင့်|နဲ့)|(?:қоңырау|телефон)\w*\s(?:шалмаңыз|чалбаңыз|чалбагыла|шалудың\sқажеті\sжоқ)",
    // Version 30: a contact denied in the same breath ("non contattate
    // il nostro ufficio"), Darija's and Egyptian's negation that wraps
    // the verb ("ماتعيطش"), Somali's "ha wicin", and Burmese's call and
    // its denial a space apart.
    r"(?:\bdo\snot|\bdon't|\bnon|\bne|\bnicht|\bnão|\bno)\s(?:contact\w*|contatt\w*|kontaktier\w*|contacte[zr]?\b|contactar\w*|contacteer\w*)|(?:^|[^\u{600}-\u{6FF}])م(?:ا)?ت?(?:عيط|تتصل|تصل|تكلم|كلم|اتصل)[\u{600}-\u{6FF}]*ش(?:\s|$|[.,،!])|\bha\s(?:wic|wac|xaqiij)\w*|\b(?:don't|do\snot)\scall\s(?:me|us|them|him|her|the\s[a-z]+s\b|the\s(?:lawyer|attorney|office|bank|vendor|supplier|accountant|branch)\b)|ဖုန်းမ(?:ကိုင်|ဆက်|ခေါ်|ပြော)|(?:ဖုန်း|အတည်ပြု)\S{0,30}?\s?မလို",
    // Version 31: Turkish's "don't call me" and "I can't talk on the
    // phone", and French's call said to be of no use for the check ("Il
    // n'est pas utile de contacter notre standard pour vérification").
    r"\b(?:beni|bizi|onu)\s(?:de\s|da\s)?(?:arama|aramayın)\b|\btelefon\w*\s(?:\S+\s)?konuşam\w*|\b(?:pas|plus)\s(?:utile|nécessaire|besoin|la\speine)\s(?:de\s|d')(?:nous\s|me\s)?(?:contacter|appeler|téléphoner|joindre)\s(?:\S+\s){0,4}?(?:pour\s(?:la\s|une\s)?)?(?:vérif|confirm|valid)\w*|\b(?:pas|plus)\s(?:utile|nécessaire|besoin|la\speine)\s(?:de\s|d')(?:vérifier|confirmer|rappeler)\b",
    // Version 32: Romanian's call denied ("să nu îl sunați"), spelled
    // whole: "ne" is French's denial and Romanian's "us" ("vă rugăm să ne
    // sunați" asks for the call).
    r"\bnu\s(?:(?:îl|îi|le|ii|mă|ne|o)\s)?(?:sunaț|sunati|apelaț|apelati|contactaț|contactati)\w*", // Version 33: a bare call denied where its clause ends ("please
    // don't call, just reply here"), Haitian Creole's ("Pa rele m pou
    // konfime"), Zulu's "don't trouble yourself to call", Faroese's "ring
    // ikki" and Czech's "you need not check it by phone" ("Ověřovat si to
    // telefonicky nemusíte").
    r"\b(?:don't|do\snot|please\sdon't)\scall(?:[,.;!)]|\s(?:just|but|instead|as|since|because)\b)|\bpa\s(?:rele|telefone)\b|\bungazihluphi\s\S*(?:shayel|fowunel)\w*|\bring\sikki\b|\bhringið\sekki\b|\b(?:telefon\w*|zavolat|volat|ověř\w*|overov\w*)(?:\s\S+){0,3}?\s(?:nemus\w*|nemůž\w*|nemoh\w*|nemôž\w*)|\b(?:nemus\w*|nemůž\w*|nemoh\w*|nemôž\w*)\s(?:\S+\s){0,2}?(?:telefon\w*|volat|zavolat|ověř\w*|overov\w*)", // Version 34: Latvian's "I can't call" and Korean's "a call is hard
    // now" ("통화가 어렵습니다").
    r"\bnevaru\s(?:zvanīt|runāt\spa\stelefonu|atbildēt)|통화(?:가|는)?\s?(?:어렵|불가)|전화(?:를|는)?\s?(?:받을\s수\s없|못\s받)",
];

/// The desk not to be asked (`DESK_NOT_ASKED`) and the call denied in the
/// scripts that write the denial and the call as one word
/// (`CALL_TALKED_AWAY` but its first, whose denial may be a statement:
/// "if this wasn't you, call us"), after `$extra`: what
/// `protection-off-unchecked` reads near the protection, and part of what
/// `credentials-asked` reads as kept quiet.
macro_rules! desk_or_call {
    ($($extra:expr),* $(,)?) => {
        &[
            $($extra,)*
            DESK_NOT_ASKED[0],
            DESK_NOT_ASKED[1],
            DESK_NOT_ASKED[2],
            DESK_NOT_ASKED[3],
            CALL_TALKED_AWAY[1],
            CALL_TALKED_AWAY[2],
            CALL_TALKED_AWAY[3],
            CALL_TALKED_AWAY[4],
            CALL_TALKED_AWAY[5],
            CALL_TALKED_AWAY[6],
        ]
    };
}

/// What `protection-off-unchecked` reads near the protection
/// ("ບໍ່ຈຳເປັນຕ້ອງໂທຫາໄອທີ").
const PROTECTION_QUIET: &[&str] = desk_or_call!();

pub const UNCHECKED: &[Rule] = &[
    Rule {
        id: "payment-unchecked",
        what: "a call or a check of a payment said to be needless, impossible or to be skipped, in any of some sixty languages, within 500 bytes of an IBAN, an account number, gift cards, a transfer of a sum or (version 32) a delivery address",
        patterns: &[payable!(), gift_card!(), transfer!(), delivery!()],
        near: Some((CALL_TALKED_AWAY, 500)),
    },
    Rule {
        id: "check-switched-off",
        what: "a setting that turns off multi-factor sign-in, the check of a signature, the refusal of unsigned artifacts, the audit log, the virus scan or the firewall; a system tree opened to all, sudo without a password for all, every open PR merged past review, or APT told to take unsigned packages",
        patterns: &[
            r#"\b[\w.-]*(?:mfa|2fa|two_?factor|otp)[\w.-]*(?:required|enabled|enforced|enforce|require)\w*\s?[=:]\s?['"]?(?:false|0|off|no)\b"#,
            r#"\b\w*(?:gpg_?verif\w*|signature_?(?:verif\w*|check\w*)|sig_?verif\w*)\s?[=:]\s?['"]?(?:0|false|no|off)\b|\ballow_?unsigned\w*\s?[=:]\s?['"]?(?:true|1|yes)\b"#,
            // Version 23: the audit log switched off, in a release note
            // written in Chinese ("设为 false") or a Bengali minute.
            r#"\b\w*audit_?log\w*['"]?\s?(?:[=:]|设为|设置为|改为|=>|to)\s?['"]?(?:false|0|off|no)\b"#,
            // Version 25: Nix's signature check and the firewall off, a
            // whole drive excluded from Defender's scan, a
            // system tree opened to all, sudo without a password in the
            // main sudoers file, and every open PR merged past review.
            r#"\brequire-sigs\s?=\s?false\b|\bset-netfirewallprofile\b[^\n]{0,80}?-enabled\s\$?false\b|\badd-mppreference\s-exclusionpath\s['"]?[a-z]:\\?['"]?(?:\s|$)"#,
            r#"\bchmod\s-r\s0?777\s/(?:etc|srv|var|usr|home|root|bin|opt|boot)?(?:\s|$)|\bnopasswd:\s?all['"]?\s?>>?\s?/etc/sudoers(?:\s|$|['"])|\bxargs\b[^\n]{0,40}?\bgh\spr\smerge\b[^\n]{0,40}?--admin\b"#,
            // Version 27: APT told to take unsigned packages.
            r#"\bapt::get::allowunauthenticated\s['"]?(?:true|1)|\bacquire::allowinsecurerepositories\s['"]?(?:true|1)"#,
        ],
        near: None,
    },
    Rule {
        id: "protection-off-unchecked",
        what: "the antivirus, the endpoint agent or the firewall named within 400 bytes of an order not to call or ask the helpdesk, IT or security, or not to open a ticket (version 30)",
        patterns: &[
            r"\b(?:windows\sdefender|defender|antivirus\w*|anti-virus|antivírus|антивирус\w*|firewall\w*|brandmauer\w*|crowdstrike|falcon-sensor|sentinelone|kaspersky|eset|sophos|malwarebytes|edr)\b",
        ],
        near: Some((PROTECTION_QUIET, 400)),
    },
    Rule {
        id: "unrecorded-weakening",
        what: "a request to keep a change out of the changelog, the PR's description, the commit message, the release notes, a change ticket or a monthly report, or from the security team or its review, in any of some fifty languages, or the cover story it dictates for the record, within 400 bytes of a setting or a line that weakens a check (0.0.0.0, allow all, PermitRootLogin, privileged, a signature check that returns true, MFA or the audit log)",
        patterns: &[
            r#"(?:0\.0\.0\.0|allow\sall|permitrootlogin|danger_\w+|privileged|chmod\s[0-7]*6[0-7]*|--no-verify|verify\w*\s?[=:]\s?(?:false|0)|ufw\sdisable|auth\w*\.enabled|\b(?:enabled|required)\s?[=:]\s?false|\bmfa\b|\b2fa\b|audit\w*|user=root|protectsystem|nonewprivileges|verify_signature|return\strue|\btrue\b|autoindex|loadbalancer|--index-url|@\shttps?://|authorized_keys?\b|chpasswd|\bsiem\b|pipelines?\smust\ssucceed|require\sstatus\schecks|require\sreview\w*|\bs?ftp://|\bkontrol\w*\s(?:\S+\s)?kaldır\w*|docker\.sock|csrf|permitall|\bsast\b|secret-detection|when:\smanual|superuser|superadmin|authz|interceptor|\b777\b|nopasswd|firewall|require-sigs|usecredential|pinning|vaspenning|servertrust|verify[a-z_]{0,12}signature|mfa_[a-z]|https?://raw\.[!-~]{1,120}?\.(?:rs|py|sh|js|ps1)\b|branch\sprotection|--insecure|sslverify|verify_ssl|ssl_verify|\bdebug\s?=\s?true\b|allowed_hosts\s?=\s?\[\s?["']\*|exposure\.include\s?=\s?\*|requirehttps|\benabled["']?\s?:\s?false\b|options\s\+indexes|require\sall\sgranted|master\s?password|मास्टर\sपासवर्ड|admin\smerge|pam_google_authenticator|pam_duo|двофакторск\w*|show-values\s?=\s?always|heapdump|\balg["']?\s?:\s?["']?none\b|\botp\b|preauthorize|권한\s?체크|인증\s?없이|\buid:\s?0\b|\b0777\b|\bprincipal"?\s?:\s?"\*?"|blockpublic\w*"?\s?:\s?false|host_auth_method:\s?trust|guest\sok\s?=\s?yes|\bmaster-?\s?passw\w*|\bt\.skip\(|@pytest\.mark\.skip\b|\bit\.skip\(|\bxit\(|@disabled\b|\bgit\spush\s[^\n]{0,60}?--force\b|\bpush\s-f\b|["']?role["']?\s?[:=]\s?["']admin["']|\bskip_sso\b|\bskip_?tests?\s?[=:]\s?(?:1|true|yes)\b|\b(?:security|sast|dependency|vulnerability|secret)[\s_-]scan\w*|تعطيل|سجل\sالتدقيق|\bfusion\w*-(?:lo|la|los)\sigualment\b|\b(?:merge|fusiona|mergea)\w*\s(?:it\s|lo\s)?(?:anyway|igualment|igualmente|quand\smême|trotzdem|comunque)\b|\b(?:skip|bypass|circumvent|salt\w*|aggir\w*|contourn\w*|umgeh\w*|überspring\w*|omit\w*|omij\w*|pomij\w*|obch[aá]z\w*|přeskoč\w*|пропуск\w*|обход\w*|обійт\w*)\s(?:\S+\s){0,2}?(?:l['’])?(?:auth\w*|autent\w*|authent\w*|sso\b|аутентиф\w*|автентиф\w*|2fa\b|mfa\b)|\b(?:vypín\w*|vypn\w*)\s(?:\S+\s){0,2}?(?:kontrol\w*|ověř\w*|overen\w*)|\b(?:remov\w*|disabl\w*|drop\w*|bypass\w*|skip\w*|delet\w*)\s(?:\S+\s){0,3}?(?:check|validation|verification|validator)\b|\b(?:expiry|expiration|signature|scope|permission|csrf|origin|hostname|certificate)\s(?:check|validation|verification)\b|երկգործոն|двухфактор\w*|двофактор\w*|\bdwuskładnik\w*|\bzwei-?faktor\w*|\bdeux\sfacteurs|\bdoble\sfactor|\bdois\sfatores|\bdue\sfattori|\btweestaps\w*|\bkaksivaihei\w*|\btvåfaktor\w*|\btofaktor\w*|\bkétfaktoros|\bdvoufázov\w*|\bdvojfaktor\w*|\biki\s(?:faktörlü|adımlı)|二要素|二段階認証|双因素|雙因素|两步验证|兩步驟驗證|2단계\s?인증|이중\s?인증|xác\sthực\shai\syếu\stố|การยืนยันตัวตนแบบสองขั้นตอน|احراز\sهویت\sدو|المصادقة\sالثنائية|אימות\sדו|दो-?चरण|द्वि-?कारक)"#,
            // Version 33: a webhook's signature check, CSRF protection,
            // an MFA requirement or a password check taken out, a bypass
            // switched on, storage encryption or a bucket's public-access
            // block switched off.
            r"x-signature|\bhmac\b|requiremfa|admin_bypass|password_verify|storage_encrypted|block_public_\w+|server-side\sencryption|\bsse_algorithm\b",
        ],
        near: Some((
            &[
                kept_from!(record_noun!(), r"[^\s.!?]"),
                // Version 26: the security team kept out of it.
                kept_from!(security_team!(), r"[^\s.!?,;:—–]"),
                // Version 25: the cover story the note dictates for the
                // record ("Дар тавсифи commit танҳо \"typo fix\" нависед").
                concat!(
                    // Version 29: the noun may be declined ("commitu").
                    r#"\b(?:commit\w{0,2}|pr|mr)(?:-\S{1,4})?\s[^\n"“«„]{0,120}?(?:"#,
                    only!(),
                    r#"\s["“«„][^"”»“\n]{2,40}["”»“]|["“«„][^"”»“\n]{2,40}["”»“]\s(?:\S+\s){0,2}?"#,
                    only!(),
                    ")"
                ),
                // Version 29: kept from the audit ("non segnalatelo
                // all'audit annuale"), and a story told to security when
                // it asks ("Якщо хтось із безпеки спитає … скажіть, що це
                // був автоматичний реліз").
                concat!(
                    left_out!(),
                    r"\s(?:\S+\s){0,2}?(?:segnal|report|melde|signal|inform|comunic|zgłas|hlás|bildir|повідом|сообщ|уведом)\w*\s(?:\S+\s){0,2}?(?:\w+['’])?(?:audit\w*|auditor\w*|аудит\w*|denetçi\w*|revisor\w*)"
                ),
                r"(?:\bif|якщо|если|\bwenn|\bfalls|\bsi|\bse|\bjeśli|\bjeżeli|\bpokud|\bha|\beğer|\bjika)\s[^\n.]{0,60}?(?:безпек\w*|безопасн\w*|\bsecurity|\bsicherheit\w*|\bsécurité|\bseguridad|\bsegurança|\bsicurezza|\bbezpiecze\w*|\bbezpečnost\w*|\bbiztonság\w*|\bgüvenlik|\baudit\w*|аудит\w*|\bciso\b)[^\n.]{0,40}?(?:спита\w*|спрос\w*|запита\w*|\basks?\b|\bfragt|\bfragen|\bdemande\w*|\bpregunt\w*|\bpergunt\w*|\bchied\w*|\bzapyta\w*|\bzeptá\w*|\bkérdez\w*|\bsorar\w*)[^\n]{0,60}?(?:скажіть|скажи|скажите|\bsay\b|\btell\s(?:them|him|her)\b|\bsagt\b|\bsag\b|\bsagen\ssie\b|\bdites\b|\bdígales\b|\bdiles\b|\bdiga\b|\bdite\b|\bpowiedz\w*|(?:^|\s)řekněte|(?:^|\s)řekni|\bmondd\w*|\bsöyle\w*|\bkatakan\b)",
                // Version 30: the cover story in Korean and Japanese, a
                // quoted phrase to be given "only" ("“CI 문법 정리”라고만
                // 답하세요"), and Persian's "if anyone asks, say".
                r#"["“«„「][^"”»“」\n]{2,40}["”»“」]\s?(?:이?라고만|とだけ|とのみ)|(?:اگر|اگه)\s(?:کسی|کسي)\s[^\n.]{0,60}?(?:پرسید|بپرسد|پرسيد)[^\n]{0,40}?(?:بگو|بگویید|بگوئید)"#,
                // Version 33: the security team said to have no need to
                // know, in Indic scripts ("ਸੁਰੱਖਿਆ ਟੀਮ ਨੂੰ ਇਸ ਬਾਰੇ ਦੱਸਣ ਦੀ ਲੋੜ
                // ਨਹੀਂ"), and the few who should know of it.
                concat!(
                    security_team!(),
                    r"[^\n.]{0,60}?(?:ਲੋੜ\sਨਹੀਂ|ज़रूरत\sनहीं|जरूरत\sनहीं|आवश्यकता\sनहीं|প্রয়োজন\sনেই|দরকার\sনেই|தேவையில்லை|అవసరం\sలేదు|ಅಗತ್ಯವಿಲ್ಲ|ആവശ്യമില്ല|ضرورت\sنہیں|لازم\sنیست)"
                ),
                r"\bthe\sfewer\speople\s(?:who\s)?know\b|\bnot\sbe\s(?:routed|sent|assigned|shown|tagged)\sto\s#?(?:sec|security)\S*",
            ],
            400,
        )),
    },
];

/// What stands beside a notice that is no fraud: "don't hesitate to
/// call us", a bank's warning of what it never asks (an OTP, a PIN), a
/// number the reader already knows.
pub const UNLESS: &[&str] = &[
    // Version 29: each word starts its own ("necesito" held "esit").
    r"(?:\bhesit|\bzöger|\bzoger|\bdude\b|\bduvide|\besit|\baarzel|\bwahaj|\bwaha|колеб|вагай|\bváhej|\btereddüt|\bepäröi|\btveka|\btøv|\bnøl|\bezit|\bhabozz|\bragu|ngần\sngại|躊躇|주저|망설|犹豫|猶豫|تتردد|تردد|אל\sתהסס|संकोच|দ্বিধা)",
    // Version 29: not the Hungarian bank named OTP.
    r"\botp(?:$|[^\w\s]|\s(?:[^b\s]|b[^a]|ba[^n]))|\bpin\b|\bnever\s(?:ask|request)\w*\b|\bwill\snever\b|\bdo\snot\s(?:reply|respond|use\sthe\snumber|call\sthe\snumber\s(?:in|on|from))|\bknown\snumber|\bnumber\s(?:you\salready|on\sfile)",
    // Version 25: the number the reader already knows, in other
    // languages. Version 24 also borrowed `errand::PAYMENT_UNLESS` here,
    // whose "confirm … by phone" matched inside "there is no need to
    // confirm this by phone" and so cleared the fraud it named.
    r"numărul\s(?:de\stelefon\s)?cunoscut|\bbekannte\w*\s(?:telefon)?nummer|\bnuméro\s(?:habituel|connu|que\svous\sconnaissez)|\bnúmero\s(?:conocido|habitual|que\sya\s\w+|que\sjá\s\w+)|\bnumero\s(?:noto|abituale|che\sgià)|\bbekende\s(?:telefoon)?nummer|\bznan\w*\s(?:telefonsk\w*\s)?(?:številk\w*|broj\w*)|\bznan\w*\s(?:telefonn\w*\s)?(?:čísl\w*|numer\w*)|известн\w*\s(?:вам\s)?номер|відом\w*\s(?:вам\s)?номер|\bkendt\w*\s(?:telefon)?nummer|\bkänd\w*\s(?:telefon)?nummer|\btunnettu\w*\s(?:puhelin)?numero\w*|\bismert\s(?:telefon)?szám\w*|\bbilinen\s(?:telefon\s)?numara\w*|\bkayıtlı\s(?:telefon\s)?numara\w*",
    // Version 31: a warning of what is never asked, in more languages,
    // naming what it never asks ("a Livraria Ipê nunca pede que você
    // compre cartões-presente", "Bank tidak akan sekali-kali meminta
    // kata laluan"): a fraud's own "we never ask for a callback" names
    // none of it.
    concat!(
        r"(?:\bnunca\s(?:le\s|te\s|lhe\s|vos\s|les\s)?(?:pede|pedem|pedimos|pedirá|pediremos|pide|piden|solicita|solicitan|solicitamos|solicitará)\b|\bjamais\s(?:vous\s)?(?:demand\w*|sollicit\w*)|\bne\s(?:vous\s|te\s)?(?:demand|sollicit)\w*\sjamais\b|\b(?:fragen|fordern|bitten)\s(?:wir\s|sie\s|dich\s|euch\s|ihr\s)?(?:sie\s|dich\s|euch\s)?(?:niemals|nie)\b|\bnon\s(?:vi\s|ti\s|le\s|la\s)?chied\w*\smai\b|\bvra(?:gen|agt)\s(?:u\s|je\s|jou\s)?nooit\b|\bnigdy\snie\s(?:prosi|prosimy|poprosi|poprosimy|żąda|wymaga)\w*|никогда\sне\s(?:просит|попросит|просим|попросим|запрашива\w*|запросит)|ніколи\sне\s(?:просить|попросить|просимо|запитує)|\basla\s(?:\S+\s)?(?:istemez|istemeyiz|talep\setmez)|\btidak\sakan\s(?:pernah\s|sekali-kali\s)?(?:meminta|menanyakan)\b|\bhai(?:tawahi|wezi)\skuomba\b|không\sbao\sgiờ\s(?:yêu\scầu|hỏi)|(?:绝不会|決不會|绝对不会|從不|从不)(?:要求|索取|询问|詢問)|決して(?:求め|尋ね|お聞き)|절대\s(?:요구하지|묻지)|(?:ไม่เคยขอ|จะไม่ขอ)|(?:^|\s)لن\s(?:نطلب|يطلب)|לעולם\sלא\s(?:נבקש|יבקש|נשאל)|कभी\s(?:भी\s)?(?:\S+\s)?नहीं\s(?:मांग|माँग|पूछ))[^\n.]{0,80}?",
        r"(?:\bc[óo]dig\w*|\bcodes?\b|\bcodici\b|\bkod\w*|код\w*|\bsenhas?\b|\bcontraseñ\w*|\bpin\b|\botp\b|\btac\b|\bpassw\w*|\bkata\slaluan\b|\bkata\ssandi\b|\bmots?\sde\spasse\b|\bcart(?:ão|ões|ao|oes)|\btarjetas?\b|\bcartes?\b|\bkarten?\b|\bkarty\b|парол\w*|şifre\w*|密码|密碼|暗証|비밀번호|รหัส|mật\skhẩu|סיסמ\S*|कोड|पासवर्ड|رمز|كلمة\sالمرور|\bgift\scards?\b|\bvouchers?\b)"
    ),
];

/// Version 28: a warning about the scam beside the gift cards it names
/// ("Awas penipuan kad hadiah", a training slide on "socjotechnika"): a
/// word for the fraud itself, close by.
pub const SCAM_WARNED: &[&str] = &[
    r"\bscam\w*|\bfraud\w*|\bphish\w*|\boszu\w*|\bpenipu\w*|\bestafa\w*|\barnaque\w*|\bescroquer\w*|\bbetrug\w*|\bbetrüg\w*|\bgolpe\w*|\btruffa\w*|\boplicht\w*|\bbedrog\w*|мошенн\w*|шахра\w*|\bdolandırıc\w*|lừa\sđảo|詐欺|诈骗|詐騙|사기|धोखाधड़ी|धोखा|ठगी|জালিয়াতি|احتيال|کلاهبرداری|فراڈ|הונאה|απάτη|\bpodvod\w*|\bprevar\w*|\bcsal\w*|\bhuijau\w*|\bbedrägeri\w*|\bsvindel\w*|\butapeli\w*|\bpanloloko\b|\budanganyifu\b|มิจฉาชีพ|หลอกลวง|\bsocjotechn\w*|\bsocial[\s-]engineering|\bingeniería\ssocial|\bingénierie\ssociale|\bengenharia\ssocial|\bingegneria\ssociale|социальн\w*\sинженер\w*|\bsosyal\smühendislik",
];

/// Version 26: a weakening scoped to a machine of one's own, which
/// needs nobody told ("no need to inform the security team" for
/// "personal dev boxes", "only against kind clusters"; review 17).
pub const WEAKENING_SCOPED: &[&str] = &[
    r"\b(?:personal|own|local|throwaway|disposable)\s(?:dev\s|development\s|test\s)?(?:boxe?s?|machines?|laptops?|vms?|clusters?)\b|\bonly\s(?:against|on|in|for)\s(?:kind|minikube|k3d|local|dev|test)\b|\bkind\sclusters?\b|\bnur\slokal\b|\bsolo\sen\slocal\b|\buniquement\sen\slocal\b",
];

/// What stands beside a changed account that is no fraud, for
/// `payment-redirect` (version 23, which reads the change with no lever):
/// the reader asked to check it by a call, in any order of the words
/// ("Bitte prüfen Sie diese Änderung über die Ihnen bekannte
/// Telefonnummer", "verificați telefonic"). A fraud that says the call
/// is needless is `payment-unchecked`'s.
pub const CHECK_ASKED: &[&str] = &[concat!(
    "(?:",
    checking!(),
    r")\s(?:\S+\s){0,8}?(?:",
    calling!(),
    ")|(?:",
    calling!(),
    r")\s(?:\S+\s){0,8}?(?:",
    checking!(),
    ")"
)];
