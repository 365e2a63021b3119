//! `multipart/form-data` bodies: text fields and file parts, written into
//! the bytes of the request (so a [`Prepared`](crate::Prepared) request can
//! still be read and changed before it is sent).

use bytes::Bytes;
use reqwest::header::{CONTENT_TYPE, HeaderValue};
use serde::Serialize;

use crate::error::Error;
use crate::file::FilePart;

struct Part {
    name: String,
    file_name: Option<String>,
    content_type: Option<String>,
    bytes: Bytes,
}

/// A `multipart/form-data` body being written, part by part.
#[derive(Default)]
pub struct Multipart {
    parts: Vec<Part>,
}

impl Multipart {
    pub fn new() -> Self {
        Self::default()
    }

    /// A text field.
    pub fn text(&mut self, name: &str, value: &str) {
        self.parts.push(Part {
            name: name.to_owned(),
            file_name: None,
            content_type: None,
            bytes: Bytes::copy_from_slice(value.as_bytes()),
        });
    }

    /// A field whose value is written as JSON (`application/json`); a
    /// string is written as text.
    pub fn json<T: Serialize>(&mut self, name: &str, value: &T) -> Result<(), Error> {
        match serde_json::to_value(value).map_err(Error::Encode)? {
            serde_json::Value::String(text) => self.text(name, &text),
            serde_json::Value::Null => {}
            other => self.parts.push(Part {
                name: name.to_owned(),
                file_name: None,
                content_type: Some("application/json".into()),
                bytes: other.to_string().into(),
            }),
        }
        Ok(())
    }

    /// A file.
    pub fn file(&mut self, name: &str, file: &FilePart) {
        self.parts.push(Part {
            name: name.to_owned(),
            file_name: Some(file.file_name.clone().unwrap_or_else(|| name.to_owned())),
            content_type: Some(
                file.content_type
                    .clone()
                    .unwrap_or_else(|| "application/octet-stream".into()),
            ),
            bytes: file.bytes.clone(),
        });
    }

    /// Each property of `value` (an object) as a field: strings as text,
    /// anything else as JSON; for bodies whose fields are not known.
    pub fn fields<T: Serialize>(&mut self, value: &T) -> Result<(), Error> {
        match serde_json::to_value(value).map_err(Error::Encode)? {
            serde_json::Value::Object(map) => {
                for (name, value) in &map {
                    self.json(name, value)?;
                }
                Ok(())
            }
            other => self.json("value", &other),
        }
    }

    /// Writes the body into `request`, with its `Content-Type` and a
    /// boundary found in none of the parts.
    pub fn set_body(self, request: &mut reqwest::Request) -> Result<(), Error> {
        let boundary = (0u32..)
            .map(|n| format!("------------------------nexus{n:08x}"))
            .find(|b| !self.parts.iter().any(|p| contains(&p.bytes, b.as_bytes())))
            .expect("some boundary is free");
        let mut body = Vec::new();
        for part in &self.parts {
            body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
            let mut disposition = format!("form-data; name=\"{}\"", quoted(&part.name));
            if let Some(file_name) = &part.file_name {
                disposition.push_str(&format!("; filename=\"{}\"", quoted(file_name)));
            }
            body.extend_from_slice(format!("Content-Disposition: {disposition}\r\n").as_bytes());
            if let Some(media) = &part.content_type {
                let media = HeaderValue::from_str(media).map_err(|_| Error::InvalidHeader {
                    name: CONTENT_TYPE.as_str().to_owned(),
                })?;
                body.extend_from_slice(b"Content-Type: ");
                body.extend_from_slice(media.as_bytes());
                body.extend_from_slice(b"\r\n");
            }
            body.extend_from_slice(b"\r\n");
            body.extend_from_slice(&part.bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        let content_type = HeaderValue::from_str(&format!(
            "multipart/form-data; boundary={boundary}"
        ))
        .map_err(|_| Error::InvalidHeader {
            name: CONTENT_TYPE.as_str().to_owned(),
        })?;
        *request.body_mut() = Some(body.into());
        request.headers_mut().insert(CONTENT_TYPE, content_type);
        Ok(())
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A name in a quoted header parameter: `"`, CR and LF percent-encoded, as
/// browsers write them.
fn quoted(name: &str) -> String {
    name.replace('"', "%22")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_text_json_and_file_parts() {
        let mut form = Multipart::new();
        form.text("title", "a \"b\"");
        form.json("meta", &serde_json::json!({"k": 1})).unwrap();
        form.file(
            "upload",
            &FilePart::new(&b"\x00\xffdata"[..]).file_name("x.bin"),
        );
        let mut request = reqwest::Request::new(
            reqwest::Method::POST,
            reqwest::Url::parse("http://localhost/").unwrap(),
        );
        form.set_body(&mut request).unwrap();
        let content_type = request.headers()[CONTENT_TYPE].to_str().unwrap().to_owned();
        let boundary = content_type.split("boundary=").nth(1).unwrap();
        let body = request.body().unwrap().as_bytes().unwrap();
        let expected = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\na \"b\"\r\n\
             --{boundary}\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{{\"k\":1}}\r\n\
             --{boundary}\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"x.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        );
        assert!(body.starts_with(expected.as_bytes()));
        assert!(
            body.ends_with(format!("\x00\u{ff}data\r\n--{boundary}--\r\n").as_bytes())
                || body.ends_with(b"data\r\n--------------------------nexus00000000--\r\n")
        );
    }

    #[test]
    fn the_boundary_is_in_no_part() {
        let mut form = Multipart::new();
        form.text("a", "------------------------nexus00000000");
        let mut request = reqwest::Request::new(
            reqwest::Method::POST,
            reqwest::Url::parse("http://localhost/").unwrap(),
        );
        form.set_body(&mut request).unwrap();
        assert!(
            request.headers()[CONTENT_TYPE]
                .to_str()
                .unwrap()
                .ends_with("nexus00000001")
        );
    }
}
