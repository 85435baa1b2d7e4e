//! What the model is told of the skills up front: the name, description
//! and path of each, no more (the `skill` tool gives the rest when the
//! model decides to use one). It goes in the first user message, next to
//! the project's instructions, and takes at most 2 % of the model's
//! context window: descriptions are shortened first, and only when even
//! names and paths do not fit are the last skills left out, counted.

use super::discover::Skill;

/// The share of the context window the listing may take.
pub const BUDGET_PERCENT: u64 = 2;
/// How the budget in tokens becomes bytes; the same estimate as
/// compaction's (`session/compact.rs`).
const BYTES_PER_TOKEN: u64 = 4;

const HEAD: &str = "<skills>\nSkills are instructions for particular kinds of task, each in a folder. \
When the task matches a skill's description, call the skill tool with its name before you start, \
and follow what it says; it also lists the files that come with the skill.\n";
const TAIL: &str = "</skills>";

/// The listing's size limit in bytes for a model with this window.
pub fn budget_bytes(context_window: u64) -> usize {
    let bytes = context_window * BUDGET_PERCENT / 100 * BYTES_PER_TOKEN;
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

/// One line of the listing, the description cut to `cap` characters
/// (`None`: whole; `Some(0)`: left out).
fn entry(skill: &Skill, cap: Option<usize>) -> String {
    let description = match cap.and_then(|cap| skill.description.char_indices().nth(cap)) {
        None => skill.description.clone(),
        Some((at, _)) => format!("{}…", skill.description[..at].trim_end()),
    };
    if description.is_empty() || cap == Some(0) {
        return format!("- {} ({})\n", skill.name, skill.shown);
    }
    format!("- {}: {description} ({})\n", skill.name, skill.shown)
}

fn size(skills: &[Skill], cap: Option<usize>) -> usize {
    HEAD.len() + TAIL.len() + skills.iter().map(|s| entry(s, cap).len()).sum::<usize>()
}

fn render(skills: &[Skill], cap: Option<usize>, note: Option<String>) -> String {
    let mut text = String::from(HEAD);
    for skill in skills {
        text.push_str(&entry(skill, cap));
    }
    if let Some(note) = note {
        text.push_str(&note);
    }
    text.push_str(TAIL);
    text
}

/// The `<skills>` block, at most `budget` bytes (when even its frame
/// fits); empty when there are no skills.
pub fn block(skills: &[Skill], budget: usize) -> String {
    if skills.is_empty() {
        return String::new();
    }
    if size(skills, None) <= budget {
        return render(skills, None, None);
    }
    let longest = skills
        .iter()
        .map(|skill| skill.description.chars().count())
        .max()
        .unwrap_or(0);
    if size(skills, Some(0)) <= budget {
        // The size grows with the cap (but for the ellipsis at the very
        // end): the largest cap that fits, by bisection, then checked.
        let (mut low, mut high) = (0, longest);
        while low < high {
            let middle = (low + high).div_ceil(2);
            if size(skills, Some(middle)) <= budget {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        while low > 0 && size(skills, Some(low)) > budget {
            low -= 1;
        }
        return render(skills, Some(low), None);
    }
    // Names and paths only, as many as fit with the line that counts
    // the others.
    let note = |left: usize| {
        format!(
            "[{left} more skills are not listed: the list is kept within {BUDGET_PERCENT} % of the context window. \
             The skill tool, called with a name it does not know, answers with every name.]\n"
        )
    };
    let mut used = HEAD.len() + TAIL.len();
    let mut shown = 0;
    for skill in skills {
        let line = entry(skill, Some(0)).len();
        if used + line + note(skills.len() - shown - 1).len() > budget {
            break;
        }
        used += line;
        shown += 1;
    }
    render(&skills[..shown], Some(0), Some(note(skills.len() - shown)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::discover::Scope;

    fn skill(name: &str, description: &str) -> Skill {
        Skill {
            name: name.to_owned(),
            description: description.to_owned(),
            allowed_tools: Vec::new(),
            metadata: Default::default(),
            dir: format!("/w/.agents/skills/{name}").into(),
            shown: format!(".agents/skills/{name}/SKILL.md"),
            scope: Scope::Project,
        }
    }

    #[test]
    fn the_budget_is_two_percent_of_the_window() {
        assert_eq!(budget_bytes(200_000), 16_000);
        assert_eq!(budget_bytes(10_000), 800);
    }

    #[test]
    fn everything_is_shown_when_it_fits() {
        let text = block(&[skill("pdf", "Read PDF files.")], 10_000);
        assert!(text.starts_with("<skills>\n") && text.ends_with("</skills>"));
        assert!(text.contains("\n- pdf: Read PDF files. (.agents/skills/pdf/SKILL.md)\n"));
        assert_eq!(block(&[], 10_000), "");
    }

    #[test]
    fn descriptions_are_shortened_before_anything_is_left_out() {
        let skills: Vec<Skill> = (0..5)
            .map(|i| skill(&format!("s{i}"), &"long words here ".repeat(60)))
            .collect();
        let budget = 1_200;
        let text = block(&skills, budget);
        assert!(text.len() <= budget, "{} > {budget}", text.len());
        for i in 0..5 {
            assert!(text.contains(&format!("- s{i}: long words")), "{text}");
        }
        assert!(text.contains("…"));
        // The cap is as large as the budget allows: one more character
        // per skill would not fit.
        assert!(text.len() + 5 * 4 > budget, "{}", text.len());
    }

    #[test]
    fn past_names_and_paths_the_rest_are_counted() {
        let skills: Vec<Skill> = (0..100)
            .map(|i| skill(&format!("skill-{i}"), "does a thing"))
            .collect();
        let budget = 1_500;
        let text = block(&skills, budget);
        assert!(text.len() <= budget, "{}", text.len());
        assert!(text.contains("- skill-0 (.agents/skills/skill-0/SKILL.md)\n"));
        assert!(!text.contains("does a thing"));
        assert!(text.contains("more skills are not listed"), "{text}");
        let shown = text.matches("\n- skill-").count();
        assert!(
            text.contains(&format!("[{} more skills", 100 - shown)),
            "{text}"
        );
    }
}
