//! Keeps every path a tool touches inside the work dir, after symlinks are
//! resolved: `../x`, `/etc/passwd` and a link pointing out are all refused.

use std::path::{Component, Path, PathBuf};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PathError {
    #[error("path {0:?} is outside the work dir")]
    Outside(String),
    #[error("path {0:?} is a symlink whose target does not exist")]
    DanglingLink(String),
    #[error("path is empty")]
    Empty,
}

/// Resolves `requested` (relative to `work_dir`, or absolute inside it)
/// to a path whose existing part is canonical and inside `work_dir`.
/// `work_dir` must already be canonical.
pub fn resolve(work_dir: &Path, requested: &str) -> Result<PathBuf, PathError> {
    if requested.trim().is_empty() {
        return Err(PathError::Empty);
    }
    let joined = work_dir.join(requested);
    let mut normal = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                if !normal.pop() {
                    return Err(PathError::Outside(requested.to_owned()));
                }
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    // Canonicalize the longest part that exists; what follows it cannot
    // be a link, and holds no `..` any more.
    let mut existing = normal.clone();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    let canonical = loop {
        match existing.canonicalize() {
            Ok(canonical) => break canonical,
            Err(_) => {
                if existing.symlink_metadata().is_ok() {
                    return Err(PathError::DanglingLink(requested.to_owned()));
                }
                match (existing.file_name(), existing.parent()) {
                    (Some(name), Some(parent)) => {
                        rest.push(name.to_owned());
                        existing = parent.to_path_buf();
                    }
                    _ => return Err(PathError::Outside(requested.to_owned())),
                }
            }
        }
    };
    let mut resolved = canonical;
    for name in rest.iter().rev() {
        resolved.push(name);
    }
    if resolved.starts_with(work_dir) {
        Ok(resolved)
    } else {
        Err(PathError::Outside(requested.to_owned()))
    }
}

/// The path as shown to people and the model: relative to the work dir.
pub fn display(work_dir: &Path, path: &Path) -> String {
    match path.strip_prefix(work_dir) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
        Ok(relative) => relative.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confines_paths() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.txt"), "a").unwrap();
        std::os::unix::fs::symlink("/etc", root.join("out")).unwrap();
        std::os::unix::fs::symlink(root.join("sub"), root.join("in")).unwrap();
        std::os::unix::fs::symlink("/nonexistent/x", root.join("dangling")).unwrap();

        assert_eq!(resolve(&root, "sub/a.txt").unwrap(), root.join("sub/a.txt"));
        assert_eq!(
            resolve(&root, "new/dir/f.txt").unwrap(),
            root.join("new/dir/f.txt")
        );
        assert_eq!(resolve(&root, "in/a.txt").unwrap(), root.join("sub/a.txt"));
        assert_eq!(
            resolve(&root, "sub/../sub/a.txt").unwrap(),
            root.join("sub/a.txt")
        );
        let inside_absolute = root.join("sub/a.txt");
        assert!(resolve(&root, inside_absolute.to_str().unwrap()).is_ok());
        assert!(matches!(resolve(&root, "../x"), Err(PathError::Outside(_))));
        assert!(matches!(
            resolve(&root, "/etc/passwd"),
            Err(PathError::Outside(_))
        ));
        assert!(matches!(
            resolve(&root, "out/passwd"),
            Err(PathError::Outside(_))
        ));
        assert!(matches!(
            resolve(&root, "out/new-file"),
            Err(PathError::Outside(_))
        ));
        assert!(matches!(
            resolve(&root, "dangling"),
            Err(PathError::DanglingLink(_))
        ));
        assert_eq!(resolve(&root, ""), Err(PathError::Empty));
        assert_eq!(display(&root, &root.join("sub/a.txt")), "sub/a.txt");
    }
}
