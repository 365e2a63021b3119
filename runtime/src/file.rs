//! A file as a value of a generated type (`format: binary` in a multipart
//! body): plain data, with no HTTP client needed.

use bytes::Bytes;
use serde::Serialize;

/// A file sent as one part of a `multipart/form-data` body: its bytes, and
/// the file name and media type to send with it (`application/octet-stream`
/// when none is given).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FilePart {
    pub bytes: Bytes,
    pub file_name: Option<String>,
    pub content_type: Option<String>,
}

impl FilePart {
    pub fn new(bytes: impl Into<Bytes>) -> Self {
        Self {
            bytes: bytes.into(),
            ..Self::default()
        }
    }

    pub fn file_name(mut self, name: impl Into<String>) -> Self {
        self.file_name = Some(name.into());
        self
    }

    pub fn content_type(mut self, media: impl Into<String>) -> Self {
        self.content_type = Some(media.into());
        self
    }
}

impl<T: Into<Bytes>> From<T> for FilePart {
    fn from(bytes: T) -> Self {
        Self::new(bytes)
    }
}

/// A file in a JSON value (a schema shared by a multipart and a JSON body):
/// its bytes as text, lossily.
impl Serialize for FilePart {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&String::from_utf8_lossy(&self.bytes))
    }
}

impl<'de> serde::Deserialize<'de> for FilePart {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|text| Self::new(text.into_bytes()))
    }
}
