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
    /// What the model costs, in US dollars per million tokens, when the
    /// table says: events then carry `cost_usd`. (Not a flattened
    /// [`Prices`]: serde cannot refuse unknown fields around one.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_price: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_price: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_price: Option<f64>,
    /// The system prompt's style: `full`, or `compact` for small windows
    /// and small local models.
    #[serde(default)]
    pub prompt: PromptStyle,
    /// The alias to go on with when this model keeps failing (its retries
    /// spent on errors worth retrying: overloaded, 5xx, unreachable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// The `repo_map` tool's budget in tokens when a call names none;
    /// absent: a share of the context window (see [`ModelSpec::repo_map_tokens`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo_map_tokens: Option<u64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptStyle {
    #[default]
    Full,
    Compact,
}

/// The default map takes this share of the context window...
const REPO_MAP_SHARE: u64 = 32;
/// ...and at most this many tokens: past it a map says little more.
const REPO_MAP_MAX_DEFAULT: u64 = 4_096;

impl ModelSpec {
    /// The repository map's budget for this model when nothing else sets
    /// it: the table's `repo_map_tokens`, else 1/32 of the window, at most
    /// 4096.
    pub fn repo_map_tokens(&self) -> u64 {
        self.repo_map_tokens
            .unwrap_or((self.context_window / REPO_MAP_SHARE).min(REPO_MAP_MAX_DEFAULT))
    }

    pub fn prices(&self) -> Prices {
        Prices {
            input_price: self.input_price,
            cached_input_price: self.cached_input_price,
            output_price: self.output_price,
        }
    }
}

/// US dollars per million tokens. Input tokens read from the provider's
/// cache cost `cached_input_price` (the input price when absent); writing
/// the cache is priced as plain input (Anthropic charges 1.25x for it).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Prices {
    pub input_price: Option<f64>,
    pub cached_input_price: Option<f64>,
    pub output_price: Option<f64>,
}

impl Prices {
    /// The cost of `usage`, if the input and output prices are known.
    pub fn cost(&self, usage: &super::Usage) -> Option<f64> {
        let input = self.input_price?;
        let output = self.output_price?;
        let cached = self.cached_input_price.unwrap_or(input);
        let fresh = usage.input_tokens.saturating_sub(usage.cached_input_tokens);
        let dollars = fresh as f64 * input
            + usage.cached_input_tokens as f64 * cached
            + usage.output_tokens as f64 * output;
        Some(dollars / 1_000_000.0)
    }

    /// A negative or non-finite price is a mistake in the table.
    pub fn validate(&self) -> Result<(), String> {
        for (name, price) in [
            ("input_price", self.input_price),
            ("cached_input_price", self.cached_input_price),
            ("output_price", self.output_price),
        ] {
            if let Some(price) = price
                && !(price.is_finite() && price >= 0.0)
            {
                return Err(format!(
                    "{name} must be a number of dollars, 0 or more; got {price}"
                ));
            }
        }
        Ok(())
    }
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
            input_price: None,
            cached_input_price: None,
            output_price: None,
            prompt: PromptStyle::Full,
            fallback: None,
            repo_map_tokens: None,
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
                input_price: None,
                cached_input_price: None,
                output_price: None,
                prompt: PromptStyle::Full,
                fallback: None,
                repo_map_tokens: None,
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
                input_price: None,
                cached_input_price: None,
                output_price: None,
                prompt: PromptStyle::Full,
                fallback: None,
                repo_map_tokens: None,
            },
        )]));
        assert_eq!(table.resolve("sonnet").format, WireFormat::Anthropic);
        assert_eq!(table.resolve("local").model, "my-model");
        let literal = table.resolve("some/exotic-model");
        assert_eq!(literal.model, "some/exotic-model");
        assert_eq!(literal.format, WireFormat::OpenAi);
    }

    #[test]
    fn cost_prices_cached_input_apart_and_needs_both_prices() {
        let usage = crate::model::Usage {
            input_tokens: 1_000_000,
            cached_input_tokens: 800_000,
            output_tokens: 100_000,
            reasoning_tokens: 50_000,
        };
        let prices = Prices {
            input_price: Some(3.0),
            cached_input_price: Some(0.3),
            output_price: Some(15.0),
        };
        // 200k fresh at $3, 800k cached at $0.30, 100k out at $15.
        let cost = prices.cost(&usage).expect("priced");
        assert!((cost - (0.6 + 0.24 + 1.5)).abs() < 1e-9, "{cost}");
        let uncached = Prices {
            cached_input_price: None,
            ..prices
        };
        let cost = uncached.cost(&usage).expect("priced");
        assert!((cost - (3.0 + 1.5)).abs() < 1e-9, "{cost}");
        assert_eq!(Prices::default().cost(&usage), None);
        assert!(
            Prices {
                output_price: Some(-1.0),
                ..prices
            }
            .validate()
            .is_err()
        );
    }
}
