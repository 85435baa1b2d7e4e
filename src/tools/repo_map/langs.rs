//! The languages the map reads symbols from: a file's extension names its
//! grammar and its tag query (the grammar crate's own `tags.scm`, with a
//! few patterns added where it finds no references or misses common
//! definitions). Without the `repo-map` feature there are none, and every
//! file is listed by path only.

/// A language the map knows, by the id its cache keys carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lang {
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Rust,
    Go,
    Java,
    C,
    Cpp,
    Ruby,
}

impl Lang {
    /// The language of a file, by its extension.
    pub fn of(path: &str) -> Option<Lang> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let extension = name.rsplit_once('.')?.1;
        let lang = match extension {
            "py" | "pyi" => Lang::Python,
            "js" | "jsx" | "mjs" | "cjs" => Lang::JavaScript,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "rs" => Lang::Rust,
            "go" => Lang::Go,
            "java" => Lang::Java,
            "c" | "h" => Lang::C,
            "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" => Lang::Cpp,
            "rb" | "rake" => Lang::Ruby,
            _ => return None,
        };
        Some(lang).filter(|_| COMPILED_IN)
    }

    /// The id in the cache's keys.
    pub fn id(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::JavaScript => "javascript",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::Rust => "rust",
            Lang::Go => "go",
            Lang::Java => "java",
            Lang::C => "c",
            Lang::Cpp => "cpp",
            Lang::Ruby => "ruby",
        }
    }

    #[cfg(feature = "repo-map")]
    pub const ALL: [Lang; 10] = [
        Lang::Python,
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::Rust,
        Lang::Go,
        Lang::Java,
        Lang::C,
        Lang::Cpp,
        Lang::Ruby,
    ];
}

/// Whether the grammars are in this binary.
pub const COMPILED_IN: bool = cfg!(feature = "repo-map");

/// Patterns added to a grammar's own query.
#[cfg(feature = "repo-map")]
mod extra {
    pub const RUST: &str = r#"
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(scoped_identifier path: (identifier) @name) @reference.module
(type_identifier) @name @reference.type
"#;
    pub const C: &str = r#"
(call_expression function: (identifier) @name) @reference.call
(type_identifier) @name @reference.type
"#;
    pub const CPP: &str = r#"
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(type_identifier) @name @reference.type
"#;
    pub const PYTHON: &str = r#"
(import_from_statement name: (dotted_name (identifier) @name)) @reference.import
(argument_list (identifier) @name) @reference.call
(type (identifier) @name) @reference.type
"#;
    pub const TYPESCRIPT: &str = r#"
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.type
(type_identifier) @name @reference.type
"#;
}

#[cfg(feature = "repo-map")]
mod grammars {
    use super::{Lang, extra};
    use tree_sitter::Language;

    pub fn language(lang: Lang) -> Language {
        match lang {
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::C => tree_sitter_c::LANGUAGE.into(),
            Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Lang::Ruby => tree_sitter_ruby::LANGUAGE.into(),
        }
    }

    /// The tag query's source: the grammar's own, and ours after it.
    /// TypeScript's own only adds to JavaScript's, whose nodes it shares.
    pub fn query_source(lang: Lang) -> String {
        let parts: &[&str] = match lang {
            Lang::Python => &[tree_sitter_python::TAGS_QUERY, extra::PYTHON],
            Lang::JavaScript => &[tree_sitter_javascript::TAGS_QUERY],
            Lang::TypeScript | Lang::Tsx => &[
                tree_sitter_javascript::TAGS_QUERY,
                tree_sitter_typescript::TAGS_QUERY,
                extra::TYPESCRIPT,
            ],
            Lang::Rust => &[tree_sitter_rust::TAGS_QUERY, extra::RUST],
            Lang::Go => &[tree_sitter_go::TAGS_QUERY],
            Lang::Java => &[tree_sitter_java::TAGS_QUERY],
            Lang::C => &[tree_sitter_c::TAGS_QUERY, extra::C],
            Lang::Cpp => &[tree_sitter_cpp::TAGS_QUERY, extra::CPP],
            Lang::Ruby => &[tree_sitter_ruby::TAGS_QUERY],
        };
        parts.join("\n")
    }
}

#[cfg(feature = "repo-map")]
pub use grammars::{language, query_source};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_name_languages() {
        if !COMPILED_IN {
            assert_eq!(Lang::of("a.rs"), None);
            return;
        }
        assert_eq!(Lang::of("src/a.rs"), Some(Lang::Rust));
        assert_eq!(Lang::of("web/App.tsx"), Some(Lang::Tsx));
        assert_eq!(Lang::of("lib/x.hpp"), Some(Lang::Cpp));
        assert_eq!(Lang::of("README.md"), None);
        assert_eq!(Lang::of("Makefile"), None);
    }
}
