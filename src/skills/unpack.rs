//! A skill out of a `.zip`, in memory: every entry of the archive is
//! checked before anything is kept, so one that is absolute, climbs out
//! with `..` or is a symbolic link refuses the whole archive (and the
//! install writes nothing). Sizes are capped as the entries are read, not
//! as the archive declares them (a zip bomb declares what it likes).

use std::io::{Cursor, Read};
use std::path::PathBuf;

/// Entries an archive may have.
pub const MAX_ENTRIES: usize = 2_000;
/// One file of the skill, uncompressed.
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;
/// All the skill's files together, uncompressed.
pub const MAX_TOTAL_BYTES: u64 = 50 * 1024 * 1024;

/// A file of the skill, relative to its folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    pub executable: bool,
}

/// The path of an entry as plain parts, or why it is refused.
fn parts(name: &str) -> Result<Vec<String>, String> {
    let absolute =
        name.starts_with('/') || name.starts_with('\\') || name.as_bytes().get(1) == Some(&b':');
    if absolute {
        return Err(format!("the entry {name:?} has an absolute path"));
    }
    if name.contains('\0') {
        return Err(format!("the entry {name:?} has a NUL in its name"));
    }
    let mut out = Vec::new();
    for part in name.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => return Err(format!("the entry {name:?} climbs out with `..`")),
            part => out.push(part.to_owned()),
        }
    }
    Ok(out)
}

/// Leftovers of archivers that are no part of a skill.
fn junk(parts: &[String]) -> bool {
    parts
        .iter()
        .any(|part| part == "__MACOSX" || part == ".DS_Store")
}

/// The skill's files: those under the folder that holds its `SKILL.md`.
/// With `folder` (the URL's `#path`), the folder whose path ends so;
/// without, the one nearest the archive's root, which must be the only
/// one at its depth.
pub fn unpack(bytes: &[u8], folder: Option<&str>) -> Result<Vec<Member>, String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|err| format!("not a readable zip archive: {err}"))?;
    if archive.len() > MAX_ENTRIES {
        return Err(format!("the archive has over {MAX_ENTRIES} entries"));
    }
    // Pass one: every entry checked, the files' paths kept.
    let mut files: Vec<(usize, Vec<String>)> = Vec::new();
    for index in 0..archive.len() {
        let entry = archive
            .by_index_raw(index)
            .map_err(|err| format!("entry {index} cannot be read: {err}"))?;
        let name = entry
            .name()
            .map_err(|err| format!("entry {index} has an unreadable name: {err}"))?
            .into_owned();
        let path = parts(&name)?;
        if entry.enclosed_name().is_none() {
            return Err(format!("the entry {name:?} leads outside the archive"));
        }
        if entry.is_symlink() {
            return Err(format!("the entry {name:?} is a symbolic link"));
        }
        if entry.encrypted() {
            return Err(format!("the entry {name:?} is encrypted"));
        }
        if entry.is_file() && !path.is_empty() && !junk(&path) {
            files.push((index, path));
        }
    }
    let root = skill_folder(&files, folder)?;
    // Pass two: the skill's files, read within the caps.
    let mut members = Vec::new();
    let mut total = 0u64;
    for (index, path) in files {
        let Some(relative) = path.strip_prefix(root.as_slice()) else {
            continue;
        };
        let name = path.join("/");
        let entry = archive
            .by_index(index)
            .map_err(|err| format!("the entry {name:?} cannot be read: {err}"))?;
        let executable = entry.unix_mode().is_some_and(|mode| mode & 0o100 != 0);
        let mut bytes = Vec::new();
        entry
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|err| format!("the entry {name:?} cannot be read: {err}"))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(format!(
                "the entry {name:?} is over {MAX_FILE_BYTES} bytes uncompressed"
            ));
        }
        total += bytes.len() as u64;
        if total > MAX_TOTAL_BYTES {
            return Err(format!(
                "the skill's files are over {MAX_TOTAL_BYTES} bytes uncompressed"
            ));
        }
        members.push(Member {
            path: relative.iter().collect(),
            bytes,
            executable,
        });
    }
    Ok(members)
}

/// The parts of the folder holding the skill's `SKILL.md`.
fn skill_folder(
    files: &[(usize, Vec<String>)],
    wanted: Option<&str>,
) -> Result<Vec<String>, String> {
    let mut found: Vec<&[String]> = files
        .iter()
        .filter_map(|(_, path)| match path.split_last() {
            Some((last, folder)) if last == "SKILL.md" => Some(folder),
            _ => None,
        })
        .collect();
    if let Some(wanted) = wanted {
        let wanted = parts(wanted)?;
        found.retain(|folder| folder.ends_with(&wanted));
    }
    let shallowest = found.iter().map(|folder| folder.len()).min();
    found.retain(|folder| Some(folder.len()) == shallowest);
    let shown = |folders: &[&[String]]| {
        folders
            .iter()
            .map(|folder| format!("{:?}", folder.join("/")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match found.as_slice() {
        [] => Err(match wanted {
            Some(wanted) => format!("the archive has no SKILL.md in a folder {wanted:?}"),
            None => "the archive has no SKILL.md".to_owned(),
        }),
        [one] => Ok(one.to_vec()),
        several => Err(format!(
            "the archive holds several skills ({}); name one with URL#FOLDER",
            shown(several)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use zip::write::SimpleFileOptions;

    fn archive(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, bytes) in entries {
            let options = SimpleFileOptions::default().unix_permissions(if name.ends_with(".sh") {
                0o755
            } else {
                0o644
            });
            writer.start_file(*name, options).unwrap();
            writer.write_all(bytes).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    #[test]
    fn the_skill_folder_nearest_the_root_is_taken() {
        let bytes = archive(&[
            ("repo-main/README.md", b"readme"),
            ("repo-main/pdf/SKILL.md", b"---\n"),
            ("repo-main/pdf/scripts/run.sh", b"echo"),
            ("repo-main/pdf/deeper/other/SKILL.md", b"---\n"),
            ("__MACOSX/repo-main/pdf/._SKILL.md", b"junk"),
        ]);
        let members = unpack(&bytes, None).unwrap();
        let paths: Vec<_> = members
            .iter()
            .map(|m| m.path.display().to_string())
            .collect();
        assert_eq!(
            paths,
            ["SKILL.md", "scripts/run.sh", "deeper/other/SKILL.md"]
        );
        assert!(members[1].executable && !members[0].executable);
        let other = unpack(&bytes, Some("other")).unwrap();
        assert_eq!(other.len(), 1);
        assert_eq!(other[0].path, PathBuf::from("SKILL.md"));
        assert!(
            unpack(&bytes, Some("nowhere"))
                .unwrap_err()
                .contains("no SKILL.md in a folder")
        );
    }

    #[test]
    fn several_skills_at_one_depth_need_a_name() {
        let bytes = archive(&[("a/SKILL.md", b"x"), ("b/SKILL.md", b"y")]);
        let refused = unpack(&bytes, None).unwrap_err();
        assert!(
            refused.contains("several skills (\"a\", \"b\")"),
            "{refused}"
        );
        assert_eq!(unpack(&bytes, Some("b")).unwrap()[0].bytes, b"y");
    }

    #[test]
    fn dangerous_entries_refuse_the_whole_archive() {
        for (name, expected) in [
            ("pdf/../../evil", "climbs out"),
            ("/etc/evil", "absolute path"),
            ("C:\\evil", "absolute path"),
            ("..\\evil", "climbs out"),
        ] {
            let bytes = archive(&[("pdf/SKILL.md", b"x"), (name, b"evil")]);
            let refused = unpack(&bytes, None).unwrap_err();
            assert!(refused.contains(expected), "{name}: {refused}");
        }
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        writer
            .start_file("pdf/SKILL.md", SimpleFileOptions::default())
            .unwrap();
        writer
            .add_symlink("pdf/link", "/etc/passwd", SimpleFileOptions::default())
            .unwrap();
        let bytes = writer.finish().unwrap().into_inner();
        assert!(unpack(&bytes, None).unwrap_err().contains("symbolic link"));
        assert!(
            unpack(b"not a zip", None)
                .unwrap_err()
                .contains("not a readable zip")
        );
    }

    #[test]
    fn sizes_are_capped_as_read() {
        let big = vec![b'a'; (MAX_FILE_BYTES + 1) as usize];
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .large_file(false);
        writer.start_file("s/SKILL.md", options).unwrap();
        writer.start_file("s/big.txt", options).unwrap();
        writer.write_all(&big).unwrap();
        let bytes = writer.finish().unwrap().into_inner();
        assert!(bytes.len() < 100_000, "deflated: {}", bytes.len());
        let refused = unpack(&bytes, None).unwrap_err();
        assert!(refused.contains("over 10485760 bytes"), "{refused}");
    }
}
