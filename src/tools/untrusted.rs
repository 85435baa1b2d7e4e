//! How a tool says that its output was written by a third party (a web
//! page, what a command downloaded, later an MCP server's answer): it sets
//! [`ToolOutput::untrusted`](super::ToolOutput) to an [`Origin`], and the
//! session frames that output for the model and screens it
//! (`session::untrusted`). The tool itself never frames anything.

/// Where third-party output came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// What produced it: the tool's name (`web_fetch`, `exec`), or for a
    /// tool from outside, its server (`mcp:NAME`).
    pub source: String,
    /// Where it came from: a URL, a command line.
    pub origin: String,
    /// The last `note_len` bytes of the output are the tool's own words (a
    /// command's exit code, "only the first N bytes were read"), which the
    /// session keeps outside the frame.
    pub note_len: usize,
}

impl Origin {
    /// The whole output is third-party.
    pub fn new(source: impl Into<String>, origin: impl Into<String>) -> Self {
        Origin {
            source: source.into(),
            origin: origin.into(),
            note_len: 0,
        }
    }

    /// All but the last `note_len` bytes are third-party.
    pub fn with_note(mut self, note_len: usize) -> Self {
        self.note_len = note_len;
        self
    }
}
