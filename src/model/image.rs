//! Images given to the model: by `--image`, or read by `read_file`.

use base64::Engine;
use serde::{Deserialize, Serialize};

/// The largest image sent: Anthropic's per-image limit, and more than any
/// screenshot needs.
pub const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// The bytes, base64.
    pub data: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("not a PNG, JPEG, GIF or WebP image")]
    UnknownType,
    #[error("{0} bytes is more than the {MAX_IMAGE_BYTES}-byte limit for an image")]
    TooLarge(usize),
    #[error("the image is empty")]
    Empty,
}

impl Image {
    pub fn from_bytes(bytes: &[u8]) -> Result<Image, ImageError> {
        if bytes.is_empty() {
            return Err(ImageError::Empty);
        }
        if bytes.len() > MAX_IMAGE_BYTES {
            return Err(ImageError::TooLarge(bytes.len()));
        }
        let media_type = sniff(bytes).ok_or(ImageError::UnknownType)?;
        Ok(Image {
            media_type: media_type.to_owned(),
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        })
    }

    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.media_type, self.data)
    }
}

/// The media type from the file's first bytes; extensions lie.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_types_and_checks_size() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\nrest"), Some("image/png"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8"), Some("image/webp"));
        assert_eq!(sniff(b"<svg>"), None);
        assert_eq!(
            Image::from_bytes(b"plain text"),
            Err(ImageError::UnknownType)
        );
        assert_eq!(Image::from_bytes(b""), Err(ImageError::Empty));
        let png = Image::from_bytes(b"\x89PNG\r\n\x1a\n").unwrap();
        assert_eq!(png.data_url(), "data:image/png;base64,iVBORw0KGgo=");
    }
}
