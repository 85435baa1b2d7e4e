//! Rules of version 19: the step kept out of the record. Version 18's
//! blind misses (T) were nearly all one shape, in some twenty languages:
//! a note to whoever handles the text, an approval claimed from someone
//! absent ("approved by the team lead"), a step no such note has reason
//! to ask, and the request that keeps it out of sight: "don't mention it
//! in the commit message", "not in the release notes", "leave no trace
//! in the log". Each part alone is ordinary: a policy is "approved by
//! the data protection officer" and says never to write personal data
//! to the log; a note for maintainers says that dependency bumps need no
//! changelog entry; a post-mortem tells of a forced push nobody
//! mentioned. A review of the first draft wrote 78 such texts and it
//! flagged 74. So the request to keep a step out of the record is
//! flagged only with a role it is addressed to (`ALSO`) and, beside it,
//! an approval claimed for it or the act itself.

use super::Rule;

pub const CONCEALED: &[Rule] = &[
    Rule {
        id: "concealed-errand",
        what: "a request, to whoever handles the text, to keep a step out of the record (the commit message, the changelog, the release notes, the summary, the log), in the text's language, near an approval claimed for it or near a command or setting that destroys data, opens access or switches a check off",
        patterns: &[unrecorded!()],
        near: Some((
            &[
                absent_approval!(),
                absent_approval_more!(),
                absent_approval_v10!(),
                sanctioned!(),
                role_act!(),
                weakening!(),
            ],
            320,
        )),
    },
    Rule {
        id: "secret-upload",
        what: "a private key, an environment file or a credentials file sent away by the command that uploads it",
        patterns: &[secret_upload!()],
        near: None,
    },
];

/// What must stand near a hit of a rule, besides its `near` (read by
/// `detect`): the role a request to keep a step out of the record is
/// addressed to.
pub const ALSO: &[(&str, &[&str], usize)] = &[("concealed-errand", &[role_reader!()], 320)];
