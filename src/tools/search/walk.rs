//! Which files a search is given: those under the root that rg would
//! search, narrowed by a glob over their path and a ripgrep file type. Any
//! tool that looks at the work dir file by file starts here, so it skips
//! what `grep` and `glob` skip.

use std::path::Path;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::types::{Types, TypesBuilder};
use ignore::{DirEntry, WalkBuilder, WalkParallel};

use super::SearchError;

/// The root and the rules of one walk.
pub(crate) struct Walk<'a> {
    root: &'a Path,
    filter: Option<PathFilter>,
    types: Option<Types>,
}

impl<'a> Walk<'a> {
    /// Looks at the root, once for the whole tool call (the walker takes
    /// its own look, which `ignore` does not let us hand it): a root that
    /// is not there is the model's to fix, not a problem noted in passing.
    /// Called before the patterns are read, so a search of a missing path
    /// says so whatever else is wrong with it.
    pub(crate) fn new(root: &'a Path) -> Result<Walk<'a>, SearchError> {
        std::fs::metadata(root).map_err(|source| SearchError::Root {
            path: root.display().to_string(),
            source,
        })?;
        Ok(Walk {
            root,
            filter: None,
            types: None,
        })
    }

    /// Only the files whose path matches `filter` and that are of `types`.
    pub(super) fn only(self, filter: Option<PathFilter>, types: Option<Types>) -> Walk<'a> {
        Walk {
            filter,
            types,
            ..self
        }
    }

    /// A walker over every core. The walker takes the types by value, so
    /// they are cloned, once a search.
    pub(crate) fn parallel(&self) -> WalkParallel {
        let hidden = self.filter.as_ref().is_some_and(|filter| filter.hidden);
        let mut builder = WalkBuilder::new(self.root);
        // rg honours .gitignore only inside a git checkout; a work dir that is
        // not one (yet) should still skip the build output it names.
        builder
            .require_git(false)
            .git_global(crate::state::walk::git_global())
            .hidden(!hidden);
        if hidden {
            builder.filter_entry(|entry| entry.file_name() != ".git");
        }
        if let Some(types) = &self.types {
            builder.types(types.clone());
        }
        builder.build_parallel()
    }

    /// Whether `entry` is a file the search is given; folders are walked,
    /// not given.
    pub(crate) fn wants(&self, entry: &DirEntry) -> bool {
        entry.file_type().is_some_and(|kind| kind.is_file())
            && self
                .filter
                .as_ref()
                .is_none_or(|filter| filter.matches(self.root, entry.path()))
    }
}

/// The ripgrep file type `name` (`rust`, `py`); an unknown name is
/// answered with the types the model may have meant.
pub(super) fn file_types(name: &str) -> Result<Types, SearchError> {
    let mut builder = TypesBuilder::new();
    builder.add_defaults();
    let known = builder.definitions();
    if !known.iter().any(|def| def.name() == name) {
        let extension = format!("*.{name}");
        let meant: Vec<&str> = known
            .iter()
            .filter(|def| def.globs().contains(&extension))
            .map(|def| def.name())
            .collect();
        let hint = if meant.is_empty() {
            "; types are ripgrep's, e.g. rust, py, js, ts, go, java, c, cpp, md, json, yaml, toml, sh"
                .to_owned()
        } else {
            format!("; did you mean {}?", meant.join(" or "))
        };
        return Err(SearchError::FileType {
            name: name.to_owned(),
            hint,
        });
    }
    builder.select(name);
    builder.build().map_err(|err| SearchError::FileType {
        name: name.to_owned(),
        hint: format!(": {err}"),
    })
}

/// A glob over paths relative to the search root, with gitignore's rule: a
/// pattern without `/` matches the file name at any depth, one with `/`
/// matches from the root; `*` stays within one folder, `**` crosses them.
pub(super) struct PathFilter {
    /// `None` matches everything (`*`, `**`): no glob to run per file.
    set: Option<GlobSet>,
    /// The pattern has no `/`: it is matched against the file name alone.
    name_only: bool,
    /// The pattern names a hidden entry (`.github/**`), so hidden entries
    /// are walked.
    hidden: bool,
}

impl PathFilter {
    pub(super) fn new(pattern: &str) -> Result<PathFilter, SearchError> {
        let invalid = |message: String| SearchError::Glob {
            pattern: pattern.to_owned(),
            message,
        };
        let relative = pattern.strip_prefix("./").unwrap_or(pattern);
        if relative.trim().is_empty() {
            return Err(invalid("the pattern is empty".to_owned()));
        }
        if relative.starts_with('/') {
            return Err(invalid(
                "globs are matched against paths relative to the searched folder; give the folder as path and a relative pattern such as src/**/*.rs".to_owned(),
            ));
        }
        let name_only = !relative.contains('/');
        let glob = GlobBuilder::new(relative)
            .literal_separator(true)
            .build()
            .map_err(|err| invalid(err.kind().to_string()))?;
        let set = match relative {
            "*" | "**" | "**/*" => None,
            _ => Some(
                GlobSetBuilder::new()
                    .add(glob)
                    .build()
                    .map_err(|err| invalid(err.kind().to_string()))?,
            ),
        };
        let hidden = relative
            .split('/')
            .any(|part| part.starts_with('.') && part != "." && part != "..");
        Ok(PathFilter {
            set,
            name_only,
            hidden,
        })
    }

    fn matches(&self, root: &Path, path: &Path) -> bool {
        let Some(set) = &self.set else {
            return true;
        };
        let name = || path.file_name().is_some_and(|name| set.is_match(name));
        if self.name_only {
            return name();
        }
        match path.strip_prefix(root) {
            Ok(relative) if !relative.as_os_str().is_empty() => set.is_match(relative),
            // The root itself is a file: its name is what can match.
            _ => name(),
        }
    }
}
