//! The names MCP tools are offered under: `mcp__<server>__<tool>`, in the
//! characters every provider accepts in a tool name (`[A-Za-z0-9_-]`, at
//! most 64). Two tools whose names come out the same, or a name too long,
//! get a suffix made from a hash of the original pair, so the outcome
//! depends only on the set of tools, never on which server answered first.

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};

pub const PREFIX: &str = "mcp__";
/// OpenAI's limit on a function name, the tightest of the providers'.
pub const MAX_LEN: usize = 64;
/// `_` and eight hex digits.
const SUFFIX_LEN: usize = 9;

/// `part` with every character outside `[A-Za-z0-9_-]` written as `_`.
pub fn sanitize(part: &str) -> String {
    part.chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' => c,
            _ => '_',
        })
        .collect()
}

/// Whether `name` has the shape of an MCP tool's offered name, so that
/// `--blocked-tools` and the approval policy can name tools whose servers
/// have not started yet.
pub fn is_mcp_name(name: &str) -> bool {
    name.len() > PREFIX.len()
        && name.len() <= MAX_LEN
        && name.starts_with(PREFIX)
        && sanitize(name) == name
}

/// The offered name of each `(server, tool)` pair, in the same order.
/// A pair whose plain name fits and is not claimed by a pair sorting
/// before it keeps it; the others get the hashed form.
pub fn assign(pairs: &[(String, String)]) -> Vec<String> {
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by(|&a, &b| pairs[a].cmp(&pairs[b]));
    let mut names: Vec<Option<String>> = vec![None; pairs.len()];
    let mut taken: BTreeSet<String> = BTreeSet::new();
    // Plain names first: a hashed name can never take one away.
    for &index in &order {
        let plain = plain(&pairs[index]);
        if plain.len() <= MAX_LEN && taken.insert(plain.clone()) {
            names[index] = Some(plain);
        }
    }
    for &index in &order {
        if names[index].is_some() {
            continue;
        }
        let (server, tool) = &pairs[index];
        let digest = Sha256::digest(format!("{server}\0{tool}").as_bytes());
        let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
        let stem = plain(&pairs[index]);
        // Eight digits tell any two real tools apart; the loop only
        // guards the impossible case with the next eight.
        let mut found = None;
        for chunk in hex.as_bytes().chunks(SUFFIX_LEN - 1) {
            let suffix = format!("_{}", String::from_utf8_lossy(chunk));
            let cut = stem.len().min(MAX_LEN - suffix.len());
            let name = format!("{}{suffix}", &stem[..cut]);
            if taken.insert(name.clone()) {
                found = Some(name);
                break;
            }
        }
        names[index] = found;
    }
    names
        .into_iter()
        .zip(pairs)
        .map(|(name, pair)| name.unwrap_or_else(|| plain(pair)))
        .collect()
}

fn plain((server, tool): &(String, String)) -> String {
    format!("{PREFIX}{}__{}", sanitize(server), sanitize(tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(server, tool)| (server.to_string(), tool.to_string()))
            .collect()
    }

    #[test]
    fn plain_names_keep_their_characters_and_others_become_underscores() {
        let names = assign(&pairs(&[("everything", "get-sum"), ("my server", "a.b/c")]));
        assert_eq!(names, ["mcp__everything__get-sum", "mcp__my_server__a_b_c"]);
        assert!(names.iter().all(|name| is_mcp_name(name)));
    }

    #[test]
    fn collisions_are_resolved_the_same_way_whatever_the_order() {
        let list = pairs(&[("s", "a.b"), ("s", "a_b"), ("s", "a b")]);
        let names = assign(&list);
        let unique: BTreeSet<_> = names.iter().collect();
        assert_eq!(unique.len(), 3, "{names:?}");
        // `a b` sorts first, so it keeps the plain name.
        assert_eq!(names[2], "mcp__s__a_b");
        assert!(names[0].starts_with("mcp__s__a_b_") && names[0].len() == 20);
        let mut reversed = list.clone();
        reversed.reverse();
        let mut again = assign(&reversed);
        again.reverse();
        assert_eq!(again, names);
        // A tool already named like a hashed name keeps its plain name.
        let mut with_lookalike = list.clone();
        with_lookalike.push(("s".into(), names[0]["mcp__s__".len()..].to_owned()));
        let more = assign(&with_lookalike);
        assert_eq!(more[3], names[0]);
        assert_ne!(more[0], names[0]);
        assert_eq!(more.iter().collect::<BTreeSet<_>>().len(), 4);
    }

    #[test]
    fn long_names_are_cut_to_64_with_a_hash() {
        let long = "x".repeat(80);
        let names = assign(&pairs(&[("srv", &long), ("srv", &format!("{long}y"))]));
        assert!(names.iter().all(|name| name.len() == MAX_LEN), "{names:?}");
        assert_ne!(names[0], names[1]);
        assert!(names.iter().all(|name| is_mcp_name(name)));
    }

    #[test]
    fn only_prefixed_names_in_the_safe_characters_are_mcp_names() {
        assert!(is_mcp_name("mcp__memory__read_graph"));
        assert!(!is_mcp_name("mcp__"));
        assert!(!is_mcp_name("exec"));
        assert!(!is_mcp_name("mcp__a b__c"));
        assert!(!is_mcp_name(&format!("mcp__{}", "a".repeat(60))));
    }
}
