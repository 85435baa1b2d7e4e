//! `--image`: read or download each image once, at start, and check it.

use std::time::Duration;

use futures_util::StreamExt;

use crate::model::Image;
use crate::model::image::MAX_IMAGE_BYTES;

const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(30);

pub async fn load_all(sources: &[String]) -> Result<Vec<Image>, String> {
    let mut images = Vec::with_capacity(sources.len());
    for source in sources {
        let bytes = if source.starts_with("http://") || source.starts_with("https://") {
            download(source).await
        } else {
            read(source).await
        }
        .map_err(|err| format!("{source}: {err}"))?;
        images.push(Image::from_bytes(&bytes).map_err(|err| format!("{source}: {err}"))?);
    }
    Ok(images)
}

async fn read(path: &str) -> Result<Vec<u8>, String> {
    let size = tokio::fs::metadata(path)
        .await
        .map_err(|err| err.to_string())?
        .len();
    if size > MAX_IMAGE_BYTES as u64 {
        return Err(format!(
            "{size} bytes is more than the {MAX_IMAGE_BYTES}-byte limit for an image"
        ));
    }
    tokio::fs::read(path).await.map_err(|err| err.to_string())
}

async fn download(url: &str) -> Result<Vec<u8>, String> {
    let client = crate::model::http::client_builder()
        .map_err(|err| err.to_string())?
        .timeout(DOWNLOAD_TIMEOUT)
        .build()
        .map_err(|err| err.to_string())?;
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|err| err.to_string())?;
    if !response.status().is_success() {
        return Err(format!("the server answered HTTP {}", response.status()));
    }
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        body.extend_from_slice(&chunk.map_err(|err| err.to_string())?);
        if body.len() > MAX_IMAGE_BYTES {
            return Err(format!(
                "more than the {MAX_IMAGE_BYTES}-byte limit for an image"
            ));
        }
    }
    Ok(body)
}
