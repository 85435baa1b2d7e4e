//! Rules of version 32: an account's second factor switched off with the
//! check that would catch the impostor talked away. AH's misses held two
//! such texts in Russian and Latvian: a support runbook that turns off
//! 2FA for whoever says their phone is lost "без дополнительной
//! проверки личности", and a ticket asking support to switch it off and
//! change the account's address, "Personas pārbaude nav vajadzīga". A
//! helpdesk's own guide names both too, but as what must not happen
//! ("never disable 2FA without a video call"), so a denial just before
//! the switch stands it aside (`UNLESS`).

use super::Rule;

/// A second factor of sign-in, in the languages of the blind sets.
macro_rules! second_factor {
    () => {
        r"(?:\b2fa\b|\bmfa\b|\b2-?step\b|\btwo[\s-](?:factor|step)\b|\btotp\b|двухфактор\w*|двофактор\w*|двуфактор\w*|\bdwuskładnik\w*|\bdwuetapow\w*|\bzwei-?faktor\w*|\b2-faktor\w*|\bdeux\s(?:facteurs|étapes)|\bdouble\sauthentification|\bdoble\sfactor|\bdos\s(?:factores|pasos)\b|\bdois\s(?:fatores|passos)\b|\bduas\setapas\b|\bdue\s(?:fattori|passaggi)\b|\btweestaps\w*|\btwee-?factor\w*|\bkaksivaihei\w*|\btvåfaktor\w*|\btvåstegs\w*|\btofaktor\w*|\btotrinns\w*|\bkétfaktoros|\bkétlépcsős|\bdvoufázov\w*|\bdvoufaktor\w*|\bdvojfaktor\w*|\bdvojfázov\w*|\bdvofaktor\w*|\bdvostepen\w*|\bdivpakāpju|\bdivfaktoru|\bdviej\w*\s(?:veiksni|žingsni)\w*|\bdvifaktor\w*|\bkaheastmeli\w*|\bkahefaktori\w*|\bdoi\s(?:factori|pași)|\biki\s(?:faktörlü|adımlı|aşamalı)|δύο\sπαραγόντων|երկգործոն\S*|ორფაქტორ\S*|ორსაფეხურ\S*|二要素|二段階認証|双因素|雙因素|两步验证|兩步驟驗證|2단계\s?인증|이중\s?인증|xác\sthực\shai\s(?:yếu\stố|bước)|xác\sminh\s(?:2|hai)\sbước|การยืนยันตัวตนแบบสองขั้นตอน|การยืนยันสองขั้นตอน|احراز\sهویت\sدو|المصادقة\sالثنائية|التحقق\sبخطوتين|אימות\sדו|दो-?चरण|द्वि-?कारक|\bdua\s(?:faktor|langkah)\b|\bhatua\smbili\b|\bdalawang\shakbang\b)"
    };
}

/// Switching off, removing or resetting.
macro_rules! switched_off {
    () => {
        r"(?:\bdisabl\w*|\bturn\w*\soff\b|\bswitch\w*\soff\b|\bdeactivat\w*|\bremov\w*|\breset\w*|\bdésactiv\w*|\bdeaktivier\w*|\babschalt\w*|\bausschalt\w*|\bdesactiv\w*|\bdisattiv\w*|\bwyłącz\w*|\bvypn\w*|\bvypín\w*|(?:^|\s)отключ\w*|(?:^|\s)выключ\w*|(?:^|\s)вимкн\w*|(?:^|\s)вимика\w*|(?:^|\s)изключ\w*|\bdevre\sdışı|\bkapat\w*|\bkikapcsol\w*|\bpoista\w*|\binaktiver\w*|\bdeaktiver\w*|\bstäng\w*\sav\b|\bslå\w*\sfra\b|\buitschakel\w*|\buitzetten\b|\bdezactiv\w*|\bisključ\w*|\bizključ\w*|\bizklop\w*|\batslēdz\w*|\bišjung\w*|\bvälja\slülita\w*|απενεργοποι\w*|تعطيل|إيقاف|غیرفعال|השבת\S*|निष्क्रिय|关闭|停用|禁用|無効|비활성화|해제|(?:^|\s)tắt|vô\shiệu\shóa|\bnonaktifkan\b|\bmatikan\b|\bzima\w*)"
    };
}

pub const TAKEOVER: &[Rule] = &[Rule {
    id: "second-factor-off-unchecked",
    what: "a second factor of sign-in switched off, removed or reset, within 300 bytes of the check that would catch an impostor (an identity check, a call) said to be needless or done without, and not just after a denial (version 32)",
    patterns: &[concat!(
        switched_off!(),
        r"\s(?:[^\s.!?]+\s){0,3}?",
        second_factor!(),
        "|",
        second_factor!(),
        r"(?:\s[^\s.!?]+){0,3}?\s",
        switched_off!()
    )],
    near: Some((CHECK_WAIVED, 300)),
}];

/// The check said to be waived: done without, or needless ("без
/// дополнительной проверки личности", "Personas pārbaude nav vajadzīga").
/// Not said to be impossible: a support desk's "we can't verify who
/// writes here" refuses the switch, and the customer's "I can't get into
/// my phone" is why one asks for it.
const CHECK_WAIVED: &[&str] = &[concat!(
    r"(?:\bwithout|\bno\s(?:need|further|additional|extra)\b|(?:^|\s)без|\bohne|\bsans|\bsin|\bsem|\bsenza|\bbez|\bzonder|\butan|\buden|\buten|\bilman|\bnélkül|\bolmadan)\s(?:\S+\s){0,3}?",
    checking!(),
    "|",
    checking!(),
    r"(?:\s\S+){0,3}?\s(?:not\s(?:needed|required|necessary)|unnecessary|nav\svajadzīg\w*|(?:больше\s)?не\s(?:нужн|требу|обязательн)\w*|nicht\s(?:nötig|erforderlich|notwendig)|no\s(?:es\s)?necesari\w*|não\sé\snecessári\w*|non\sè\snecessari\w*|pas\snécessaire|niet\snodig|inte\snödvändig\w*|ikke\snødvendig|ei\starvita|nem\sszükséges|gerek(?:miyor|mez|\syok)|nie\sjest\s(?:potrzebn|wymagan)\w*|není\s(?:nutn|potřeb)\w*|nije\s(?:potrebn|nužn)\w*|не\sе\sнужн\w*|не\sпотрібн\w*|tidak\sperlu|không\scần)"
)];

/// A denial just before the switch: the guide that forbids it ("never
/// disable 2FA", "2FA must not be reset", "не отключайте 2FA").
pub const FORBIDDEN: &[&str] = &[concat!(denial!(), r"\s(?:\S+\s){0,2}?", switched_off!())];
