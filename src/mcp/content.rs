//! What the model reads of a tool's answer: its text as it is, and a line
//! for each thing that is not text (an image, audio, a binary resource, a
//! link), so the model knows it was there without being handed base64.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

/// The answer's content as one text, the parts one per line. An answer
/// with nothing but structured content gives that content's JSON.
pub fn to_text(result: &CallToolResult) -> String {
    let mut parts: Vec<String> = result.content.iter().map(block).collect();
    if parts.is_empty()
        && let Some(structured) = &result.structured_content
    {
        parts.push(structured.to_string());
    }
    parts.join("\n")
}

fn block(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(image) => format!(
            "[image: {}, {} bytes, not shown]",
            image.mime_type,
            decoded_len(&image.data)
        ),
        ContentBlock::Audio(audio) => format!(
            "[audio: {}, {} bytes, not shown]",
            audio.mime_type,
            decoded_len(&audio.data)
        ),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("[resource {uri}]\n{text}")
            }
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => format!(
                "[resource {uri}: {}, {} bytes, not shown]",
                mime_type.as_deref().unwrap_or("binary"),
                decoded_len(blob)
            ),
            other => format!("[resource {}, not shown]", other_kind(other)),
        },
        ContentBlock::ResourceLink(link) => {
            format!("[resource link: {} ({})]", link.uri, link.name)
        }
        // The types are non-exhaustive: a kind of content a later
        // protocol adds is named, not dropped.
        other => format!("[{} content, not shown]", other_kind(other)),
    }
}

/// The `type` of something a later protocol adds, or `unknown`.
fn other_kind(value: &impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|value| value["type"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The size of what base64 `data` encodes.
fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|&byte| byte == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(json: serde_json::Value) -> CallToolResult {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn text_passes_and_other_content_is_summarised() {
        let answer = result(serde_json::json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
            {"type": "resource", "resource": {"uri": "file:///b", "blob": "AAAAAA==", "mimeType": "application/zip"}},
            {"type": "resource_link", "uri": "file:///c", "name": "c"},
        ]}));
        assert_eq!(
            to_text(&answer),
            "hello\n[image: image/png, 5 bytes, not shown]\n[audio: audio/wav, 3 bytes, not shown]\n\
             [resource file:///a.txt]\ninside\n[resource file:///b: application/zip, 4 bytes, not shown]\n\
             [resource link: file:///c (c)]"
        );
    }

    #[test]
    fn structured_content_stands_in_for_missing_text() {
        let answer = result(serde_json::json!({"content": [], "structuredContent": {"t": 21}}));
        assert_eq!(to_text(&answer), r#"{"t":21}"#);
        let both = result(serde_json::json!({
            "content": [{"type": "text", "text": "21 degrees"}],
            "structuredContent": {"t": 21}
        }));
        assert_eq!(to_text(&both), "21 degrees");
    }
}
