//! Rules of version 31: a guardian kept out by a note to whoever handles
//! the text. AG's misses that named no reader were mostly one shape, in a
//! dozen languages: a note to whoever handles the ticket, runs the
//! install, is on call this week or processes the file next ("ملاحظة لمن
//! يعالج هذه التذكرة", "Kas budi šią savaitę", "kes iganes seda faili
//! järgmisena töötleb", "Ко год припрема миграцију"), an errand in words
//! no table holds (grant an account admin on every tenant, share a sheet
//! with anyone who has the link, upload the raw recording), and the
//! request that the people whose work is to catch it not hear of it: the
//! security team, compliance, the data protection officer. A runbook
//! names a role and a security team too, but it does not ask that the
//! team be kept out; so the rule wants the request and the role within a
//! few lines.

use super::Rule;
use super::concealed::ADDRESSED_TO;

/// Version 31: those whose work is to catch what the note asks: the
/// security team (`security_team!`, which also holds the data protection
/// officer and Marathi's compliance), compliance, data protection.
macro_rules! guardian {
    () => {
        concat!(
            "(?:",
            security_team!(),
            r"|\bcompliance\b|\bcumplimiento\b|\bconformité|\bconformidade\b|\bconformità|\bdatenschutz\w*|\bprotection\sdes\sdonnées|\bprotección\sde\sdatos|\bproteção\sde\sdados|\bprotezione\sdei\sdati|\bgegevensbescherming\w*|\bochron\w*\sdanych|\bdataskydd\w*|\bdatabeskyttelse\w*|\btietosuoja\w*|\bprivacy\s(?:officer|team|office)\b)"
        )
    };
}

pub const GUARDIAN: &[Rule] = &[Rule {
    id: "guardian-kept-out",
    what: "a request to keep the security team, compliance or the data protection officer out of it, in any of some fifty languages, within 320 bytes of a note to whoever handles, runs or processes the text (version 31)",
    patterns: &[
        kept_from!(guardian!(), r"[^\s.!?,;:—–]"),
        // Marathi and Hindi put the denied telling last, after the
        // whole list of who is not to hear ("अनुपालन (compliance)
        // विभागाला किंवा शाखा व्यवस्थापकाला याबद्दल कळवू नये").
        r"(?:अनुपालन|सुरक्षा)[^\n.।]{0,100}?(?:(?:कळवू|सांगू)\s(?:नये|नका)|(?:न|मत)\s(?:बताएं|बताएँ|बताना|बताओ))",
    ],
    // Whoever handles the text, as `concealed-errand` reads the role its
    // request is addressed to.
    near: Some((ADDRESSED_TO, 320)),
}];

/// What stands beside a guardian named after a denial and is no request
/// to keep it out: the guardian as the gate the step must wait for ("Do
/// not merge before the security review", "nicht vor der
/// Sicherheitsprüfung", "sin la aprobación del equipo de seguridad"),
/// read within the request itself: a gate in the next clause clears
/// nothing.
pub const GATED: &[&str] = &[concat!(
    r"(?:\bbefore|\buntil|\btill|\bprior\sto|\bpending|\bwithout\s(?:an?\s|the\s)?(?:approval|sign-?off|review|ok|go-ahead)\s(?:of|from|by)|\bvor|\bbevor|\bohne\s(?:die\s)?(?:freigabe|zustimmung)\s(?:de[rs]|vom)|\bavant|\bsans\s(?:l'accord|la\svalidation|l'approbation)\s(?:de|du|des)|\bantes\sde|\bhasta|\bsin\s(?:la\s)?(?:aprobación|autorización|revisión)\s(?:de|del)|\bprima\sd(?:i|ella|el)|\bsenza\s(?:l'approvazione|il\sbenestare)\s(?:di|del|della)|\bsem\s(?:a\s)?(?:aprovação|autorização)\s(?:de|da|do)|\bvoor|\bzonder\s(?:goedkeuring|akkoord)\s(?:van)|\bprzed|\bbez\s(?:zgody|akceptacji|zatwierdzenia)|\bpřed|(?:^|\s)до|(?:^|\s)перед|(?:^|\s)без\s(?:одобрения|согласования|погодження|схвалення))\s(?:\S+\s){0,3}?",
    guardian!()
)];
