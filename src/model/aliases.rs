//! The model table: `--model pro` becomes a wire format and a model id.
//! Built-in defaults, overridden or extended by `[models.NAME]` in the config
//! file. An alias that is in neither is sent literally as the model id, in
//! the OpenAI-compatible format, so a proxy can route ids we never heard of.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WireFormat {
    #[serde(rename = "openai")]
    OpenAi,
    #[serde(rename = "anthropic")]
    Anthropic,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    pub format: WireFormat,
    /// The id sent to the server.
    pub model: String,
    /// Tokens the model can take in; used to decide when to compact.
    #[serde(default = "default_context_window")]
    pub context_window: u64,
    #[serde(default = "default_max_output_tokens")]
    pub max_output_tokens: u32,
    /// Whether the model takes images (`--image`, `read_file` on a picture).
    #[serde(default)]
    pub images: bool,
    /// Sampling temperature; the provider's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
}

fn default_context_window() -> u64 {
    128_000
}

fn default_max_output_tokens() -> u32 {
    16_384
}

pub const DEFAULT_ALIAS: &str = "pro";

#[derive(Debug, Clone)]
pub struct ModelTable {
    entries: BTreeMap<String, ModelSpec>,
}

impl Default for ModelTable {
    fn default() -> Self {
        let builtin = |format, model: &str, context_window, max_output_tokens| ModelSpec {
            format,
            model: model.to_owned(),
            context_window,
            max_output_tokens,
            images: true,
            temperature: None,
        };
        let entries = BTreeMap::from([
            (
                "pro".to_owned(),
                builtin(WireFormat::OpenAi, "gpt-5.1", 400_000, 32_768),
            ),
            (
                "fast".to_owned(),
                builtin(WireFormat::OpenAi, "gpt-5.1-mini", 400_000, 16_384),
            ),
            (
                "opus".to_owned(),
                builtin(WireFormat::Anthropic, "claude-opus-4-5", 200_000, 32_000),
            ),
            (
                "sonnet".to_owned(),
                builtin(WireFormat::Anthropic, "claude-sonnet-4-5", 200_000, 32_000),
            ),
            (
                "haiku".to_owned(),
                builtin(WireFormat::Anthropic, "claude-haiku-4-5", 200_000, 16_000),
            ),
        ]);
        ModelTable { entries }
    }
}

impl ModelTable {
    /// The built-in table with the config file's entries laid over it.
    pub fn with_overrides(overrides: BTreeMap<String, ModelSpec>) -> Self {
        let mut table = ModelTable::default();
        table.entries.extend(overrides);
        table
    }

    pub fn resolve(&self, alias: &str) -> ModelSpec {
        self.entries
            .get(alias)
            .cloned()
            .unwrap_or_else(|| ModelSpec {
                format: WireFormat::OpenAi,
                model: alias.to_owned(),
                context_window: default_context_window(),
                max_output_tokens: default_max_output_tokens(),
                images: false,
                temperature: None,
            })
    }

    pub fn aliases(&self) -> impl Iterator<Item = (&str, &ModelSpec)> {
        self.entries
            .iter()
            .map(|(alias, spec)| (alias.as_str(), spec))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_resolve_and_unknown_ones_pass_through() {
        let table = ModelTable::with_overrides(BTreeMap::from([(
            "local".to_owned(),
            ModelSpec {
                format: WireFormat::Anthropic,
                model: "my-model".into(),
                context_window: 8_192,
                max_output_tokens: 512,
                images: false,
                temperature: Some(0.0),
            },
        )]));
        assert_eq!(table.resolve("sonnet").format, WireFormat::Anthropic);
        assert_eq!(table.resolve("local").model, "my-model");
        let literal = table.resolve("some/exotic-model");
        assert_eq!(literal.model, "some/exotic-model");
        assert_eq!(literal.format, WireFormat::OpenAi);
    }
}
