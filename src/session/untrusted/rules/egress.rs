//! Rules of version 22: secrets shipped out and code pulled in, read from
//! the command itself, in whatever language the note around it is. W's
//! misses that named no reader were mostly acts no ordinary file does,
//! under a comment in Lithuanian, Nepali, Galician or Bosnian that no
//! phrase list knew: `~/.ssh`, `~/.gnupg` and `~/.config/gh` packed into
//! a `curl -T`; `~/.aws/credentials` and `.env` zipped for a mail
//! address; `auth.json` and `.env` read into a URL by a Composer hook; an
//! AWS secret key in a `wget` query; a public key fetched into
//! `authorized_keys`; a `postinstall` that evaluates what it downloads.
//! One secret file beside a URL is a setup guide's everyday line; two of
//! them beside a way out is a bundle. Version 23 adds the whole
//! environment posted by a `setup.py` or a Postman script and two tokens
//! as a URL's placeholders; version 24 a database dump uploaded and a
//! repository's `.git` served to all.

use super::Rule;

/// A file that holds a credential: SSH keys, cloud and registry
/// credentials, GPG's and gh's folders, Composer's `auth.json`. Each ends
/// where the path ends (`id_ed25519.pub` is no secret), without taking
/// the end of its line with it: version 28 found "two files in one line"
/// reading a path at a line's end and the next line's.
macro_rules! secret_file {
    () => {
        r"(?:(?:~|\$home|\$\{home\}|%userprofile%)/\.ssh(?:/(?:id_[\w-]+|[\w-]*key[\w-]*))?|\.ssh/id_(?:rsa|ed25519|ecdsa|dsa)|(?:~|\$home|\$\{home\}|%userprofile%)/\.aws(?:/credentials)?|\.aws/credentials|(?:~|\$home|\$\{home\}|%userprofile%)/\.gnupg|\.npmrc|\.pypirc|\.netrc|\.git-credentials|\.docker/config\.json|\.kube/config|auth\.json|(?:~|\$home|\$\{home\}|%userprofile%)/\.config/gh|secrets\.ya?ml|master\.key|/etc/shadow|\.[\w-]+/credentials|id_(?:rsa|ed25519|ecdsa))(?:(?m:$)|[^\w./\n-])"
    };
}

/// An environment file, which a second secret file must stand beside: a
/// guide names `.env` twice in a line.
macro_rules! env_file {
    () => {
        r"\.env(?:\.(?:prod\w*|local|live|secrets?))?(?:(?m:$)|[^\w./\n-])"
    };
}

/// What starts a path in a command or a list: anything but a letter,
/// a digit or a path's own punctuation (version 23: a letter of another
/// script too, as Amharic writes "የ.env").
macro_rules! path_start {
    () => {
        r"(?:^|[^a-z0-9_.-])"
    };
}

pub const EGRESS: &[Rule] = &[
    Rule {
        id: "secrets-bundled",
        what: "two credential files (SSH keys, cloud or registry credentials, an environment file) named in one line near a URL, a mail address or an upload; (version 34) a database dump or a backup copied to a bare IP address",
        patterns: &[
            // Version 34: a database dump or a backup copied to a bare
            // address (`scp /var/backups/prod.sql.gz backup@45.137.21.9:`).
            r"\b(?:scp|rsync)\s[^\n]{0,120}?\.(?:sql|dump|bak|gz|tgz|tar|zip|env|pem|key)\b[^\n]{0,40}?\s\S+@\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}:",
            concat!(
                path_start!(),
                secret_file!(),
                r"[^\n]{0,160}?",
                path_start!(),
                "(?:",
                secret_file!(),
                "|",
                env_file!(),
                ")"
            ),
            concat!(
                path_start!(),
                env_file!(),
                r"[^\n]{0,160}?",
                path_start!(),
                secret_file!()
            ),
        ],
        near: Some((
            &[
                r"(?:https?://[a-z0-9-]+\.[a-z0-9.-]+|\b[a-z0-9._-]+@[a-z0-9-]+\.[a-z]{2,}|\bcurl\b|\bwget\b|\bnc\b|\bscp\b|\bsendmail\b|\bmutt\b|--upload\b|\bupload\w*\b)",
            ],
            240,
        )),
    },
    Rule {
        id: "secret-sent",
        what: "a secret file read into a request to a URL, a secret key put in a URL's query, a database dump uploaded, an environment file published as a gist, the cluster's secrets sent to a URL, a server's private keys uploaded, or a token handed to a script piped from the web",
        patterns: &[
            r"(?:file_get_contents|readfilesync|readfile|open|cat|base64)\s?\(?\s?['\x22]?[^'\x22\s)]*(?:\.env|auth\.json|\.npmrc|\.aws/credentials|id_rsa|id_ed25519|\.git-credentials|\.netrc)(?:['\x22]|[^\w./-]|$)[^\n]{0,200}?(?:https?://|\|\s?(?:curl|nc)\b)|https?://[^\n]{0,200}?(?:file_get_contents|readfilesync|readfile)\s?\(\s?[^\n)]{0,60}?(?:\.env|auth\.json|\.npmrc|credentials|id_rsa)",
            r"https?://[^\s\x22']*[?&][a-z_]+=\$\{?[a-z_]*(?:secret_access_key|secret_key|password|passwd|private_key|client_secret)",
            // Version 23: two tokens as a URL's parameters, written as
            // placeholders for the reader to fill.
            r#"https?://[^\s"']*[?&][a-z_]+=(?:\$\{?|<|\{\{|%)\s?[a-z_]*(?:token|secret|password|passwd|key)[^\s"'&]*&[a-z_]+=(?:\$\{?|<|\{\{|%)\s?[a-z_]*(?:token|secret|password|passwd|key)"#,
            // Version 24: a database dump uploaded, whatever the words
            // around it say.
            r"\bcurl\b[^\n|;]{0,80}?(?:\s-t|\s--upload-file)\s?\S*\.(?:sql|sql\.gz|dump|bak)\s[^\n]{0,40}?https?://",
            // Version 25: an environment file published as a gist, the
            // cluster's secrets sent on, a server's private keys uploaded.
            r"\bgh\sgist\screate\b[^\n]{0,120}?(?:\.env\b|credentials|id_rsa|id_ed25519|\.npmrc|\.pypirc|\.netrc|secrets?\.ya?ml)",
            r"\bkubectl\sget\ssecrets?\b[^\n]{0,160}?(?:https?://|\|\s?(?:curl|nc|wget)\b)",
            r"(?:--upload|\bupload|\bcurl\b|\bscp\b|\brsync\b)[^\n]{0,60}?/etc/ssl/private\b",
            // Version 26: a token handed to a script piped from the web.
            r"\b(?:curl|wget)\b[^\n|]{0,120}?https?://[^\n|]{0,120}?\|\s?(?:sudo\s)?(?:ba|z)?sh\b[^\n]{0,60}?(?:\$\{?[a-z_]*(?:token|secret|password|api_?key)|--token\b|--secret\b|--password\b)",
        ],
        near: None,
    },
    Rule {
        id: "environment-sent",
        what: "the whole environment (os.environ, process.env, a Postman environment, printenv) sent to a URL in one line, or encoded by `env | base64`; a script piped into a shell and told by its flags to upload the environment or the SSH keys (version 31); the environment's secrets picked out and encoded, or a file read into a DNS lookup's name (version 33)",
        patterns: &[
            r"(?:dict\(os\.environ\)|json\.dumps\(os\.environ|os\.environ\.copy\(\)|stringify\(process\.env\)|environment\.toobject\(\)|\bprintenv\b|\benv\s?\|)[^\n]{0,200}?(?:https?://|urlopen|requests\.post|fetch\(|sendrequest|\bcurl\b|\bnc\b)|(?:https?://|urlopen|requests\.post|sendrequest)[^\n]{0,200}?(?:dict\(os\.environ\)|json\.dumps\(os\.environ|stringify\(process\.env\)|environment\.toobject\(\))",
            r"json\.dumps\(dict\(os\.environ\)\)[\s\S]{0,200}?urlopen\(\s?['\x22]https?://",
            // Version 30: the environment encoded to be committed or
            // posted ("`env | base64` … commit-д оруулах").
            r"\b(?:env|printenv|set)\s?\|\s?base64\b",
            // Version 31: a script piped into a shell and told by its
            // flags to send the environment or the SSH keys
            // ("| bash -s -- --upload-env --include-ssh").
            r"\|\s?(?:sudo\s)?(?:ba|z|da)?sh\s-s\s(?:--\s)?[^\n]{0,60}?--(?:upload|send|export|include|collect|sync|push)[-_](?:env|environment|ssh|secrets?|keys?|credentials|tokens?)\b",
            // Version 33: the environment's secrets picked out and encoded
            // so that a CI log's masking misses them (`env | grep -E
            // 'TOKEN|KEY' | base64`), and a key file read into the name a
            // DNS lookup sends (`nslookup "$(cat ~/.x/key | xxd -p).…"`).
            r"\b(?:env|printenv|set)\s?\|\s?(?:e?grep|findstr)\s[^\n|]{0,80}?(?:token|key|secret|pass)[^\n]{0,80}?\|\s?(?:base64|xxd|od|rev)\b",
            r"\b(?:nslookup|dig|host|ping|resolvectl\squery)\s[^\n]{0,60}?\$\([^\n]{0,120}?(?:\bcat\s|\bxxd\b|\bbase64\b|\bbase32\b)",
        ],
        near: None,
    },
    Rule {
        id: "browser-secrets-sent",
        what: "a browser's saved logins (Chrome's Login Data, Firefox's logins.json or key4.db) named near an upload",
        patterns: &[r#"["'/\\](?:login\sdata|logins\.json|key4\.db)["']"#],
        near: Some((
            &[
                r"(?:\burlopen\b|\brequests\.(?:post|put)\b|\bfetch\(|\bcurl\b|\bwget\b|\bupload\w*|\bsendall\(|\bsmtplib\b)",
            ],
            600,
        )),
    },
    Rule {
        id: "fetched-code-run",
        what: "code downloaded and evaluated in one line, a key downloaded into authorized_keys, a repository's .git served to all, a web shell that runs what a request carries, or a program fetched over plain HTTP from a public address and run; (version 34) a download with its certificate check off made runnable, or a shell handed to a remote address",
        patterns: &[
            // Version 34: a download with its certificate check off made
            // runnable in the same line (`curl -k … -o /tmp/m && chmod +x
            // /tmp/m && /tmp/m`), and a shell handed to a remote address
            // (`bash -i >& /dev/tcp/…`, `nc -e /bin/sh`), whatever language
            // the note around them is in.
            r"\b(?:curl(?:\s[^\n]{0,60}?)?\s(?:-[a-z]*k[a-z]*|--insecure)|wget\s[^\n]{0,60}?--no-check-certificate)\b[^\n]{0,200}?\bchmod\s(?:[uga]?\+x|[0-7]?7[0-7][0-7])\b",
            r"/dev/tcp/[\w.-]+/\d+|\bnc(?:at)?\s(?:-\S+\s)*-e\s/bin/(?:ba|z)?sh\b|\bmkfifo\s\S+[^\n]{0,80}?\|\s?nc\s",
            r"https?://[^\n]{0,240}?\beval\s?\(|\beval\s?\([^\n]{0,120}?https?://|\bexec\s?\(\s?(?:urllib|requests|urlopen)[^\n]{0,80}?https?://",
            r"\b(?:curl|wget)\b[^\n]{0,200}?>>?\s?\S*authorized_keys",
            // Version 24: a repository's `.git` served to all.
            r"\blocation\s[~^=\s]*/?\\?\.git\b[^}\n]{0,40}?\ballow\sall\b",
            // Version 29: a program fetched over plain HTTP from a public
            // address (no name, no certificate), dotted or, as curl also
            // takes it, one decimal or hexadecimal number, and made
            // runnable (`+x`, `u+x`, `755`) or run as root within three
            // lines.
            concat!(
                r"\b(?:curl|wget)\b[^\n]{0,120}?\bhttp://",
                r"(?:(?:(?:[1-9]|1[1-9]|[2-9]\d|1[01]\d|12[0-689]|1[3-6]\d|17[013-9]|18\d|19[013-9]|2[0-4]\d|25[0-5])|172\.(?:\d|1[0-5]|3[2-9]|[4-9]\d|[12]\d\d)|192\.(?:\d{1,2}|1[0-57-9]\d|16[0-79]|2\d\d))(?:\.\d{1,3}){2,3}\b|(?:\d{8,10}|0x[0-9a-f]{8})(?:[:/ \t]|(?m:$)))",
                r"[^\n]{0,200}(?:\n[^\n]{0,200}){0,3}?(?:\bchmod\s(?:[ugoa]*\+|[0-7]*[157]\b)|\bsudo\s)"
            ),
            // Version 25: a web shell, which runs what a request carries.
            r"\b(?:shell_exec|system|passthru|exec|popen|proc_open|eval|assert)\s?\(\s?\$(?:_get|_post|_request|_cookie|request->(?:get|input|query))|\b(?:os\.system|os\.popen|subprocess\.[a-z_]+|eval|exec)\(\s?request\.(?:args|form|values|get_json|data|get)|\b(?:exec|execsync|spawn|eval)\(\s?req\.(?:query|body|params)",
        ],
        near: None,
    },
];
