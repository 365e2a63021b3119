//! Request bodies: the best media type offered, and the type it is sent as.

use super::*;

impl<'a> Lowerer<'a> {
    pub(super) fn request_body(
        &mut self,
        body: &ReferenceOr<RequestBody>,
        at: &Pointer,
        op_type: &str,
    ) -> Result<Body> {
        let doc = self.doc;
        let (body, at) = resolve(body, "requestBodies", at, || {
            doc.components.as_ref().map(|c| &c.request_bodies)
        })?;
        let content_at = at.join("content");
        // Every media type the client can write, the best first: JSON,
        // then a form, then multipart, bytes, text; in document order
        // within a kind.
        let mut offered: Vec<(&String, &openapiv3::MediaType, MediaKind)> = body
            .content
            .iter()
            .filter_map(|(m, t)| media_kind(m).map(|kind| (m, t, kind)))
            .collect();
        offered.sort_by_key(|(_, _, kind)| *kind);
        if offered.is_empty() {
            let Some(first) = body.content.keys().next() else {
                return Err(LowerError::new(
                    &at,
                    "the request body lists no media type",
                    "describe the body under `content`, e.g. as `application/json`",
                ));
            };
            let listed: Vec<String> = body.content.keys().map(|m| format!("`{m}`")).collect();
            let at = content_at.join(first);
            if !first.bytes().all(|b| (b' '..=b'~').contains(&b)) || first.contains('*') {
                return Err(LowerError::new(
                    &at,
                    format!(
                        "the request body's media type {} is not supported by this generator, and `{first}` cannot be sent as a `Content-Type`",
                        listed.join(", ")
                    ),
                    "offer the body as `application/json`, `application/x-www-form-urlencoded`, `application/octet-stream` or `text/plain`",
                ));
            }
            // A structure this generator cannot write (XML, a multipart
            // other than form data): the caller writes the bytes, sent
            // with the first media type listed.
            self.warn(
                &at,
                format!(
                    "the request body's media type {} cannot be written by this client; the body is raw bytes the caller supplies, sent as `{first}`",
                    listed.join(", ")
                ),
                "offer the body as `application/json`, a form or `multipart/form-data` for a typed body",
            );
            self.count(|d| &mut d.bodies, &at);
            return Ok(Body {
                media: BodyMedia::Binary {
                    content_type: first.clone(),
                },
                choice: None,
                required: body.required,
                description: body.description.clone(),
            });
        }
        let mut variants: Vec<(String, BodyMedia)> = Vec::new();
        let mut names = Scope::default();
        for (index, (media, media_type, kind)) in offered.into_iter().enumerate() {
            let lowered = match self.body_media(media, media_type, kind, &content_at, op_type) {
                Ok(lowered) => lowered,
                Err(error) if index == 0 => return Err(error),
                // Another media type than the best one that cannot be
                // written (a form whose schema is not an object, a dangling
                // `$ref` under it): not offered, said and counted; the
                // operation keeps the others.
                Err(error) => {
                    let at = error.pointer.clone();
                    self.warn(
                        &at,
                        format!(
                            "the request body's media type `{media}` is not offered to the caller: {}",
                            error.message
                        ),
                        error.hint.clone(),
                    );
                    self.count(|d| &mut d.encodings, &at);
                    continue;
                }
            };
            // The same media type written twice (`application/json` and
            // `application/json; charset=utf-8` with one schema) is one
            // choice.
            if variants.iter().any(|(_, m)| *m == lowered) {
                continue;
            }
            variants.push((names.claim(&media_variant(media)), lowered));
        }
        let media = variants[0].1.clone();
        let choice = (variants.len() > 1).then(|| BodyChoice {
            name: format!("{op_type}Body"),
            variants,
        });
        Ok(Body {
            media,
            choice,
            required: body.required,
            description: body.description.clone(),
        })
    }

    /// One media type of a request body, lowered.
    fn body_media(
        &mut self,
        media: &str,
        media_type: &openapiv3::MediaType,
        kind: MediaKind,
        content_at: &Pointer,
        op_type: &str,
    ) -> Result<BodyMedia> {
        let media_at = content_at.join(media);
        Ok(match kind {
            MediaKind::Json | MediaKind::Form => {
                let ty = match &media_type.schema {
                    Some(schema) => {
                        self.schema(schema, &media_at.join("schema"), &format!("{op_type}Body"))?
                    }
                    None if kind == MediaKind::Json => TypeRef::Value,
                    None => TypeRef::MapOf(Box::new(TypeRef::String)),
                };
                if kind == MediaKind::Json {
                    // Sent as declared: `application/merge-patch+json` is a
                    // different request from `application/json`. A media
                    // type that cannot be a header value is sent as JSON.
                    let content_type = if media.bytes().all(|b| (b' '..=b'~').contains(&b)) {
                        media.to_owned()
                    } else {
                        "application/json".to_owned()
                    };
                    BodyMedia::Json { ty, content_type }
                } else if self.is_form(&ty) {
                    let encoding = self.form_encoding(media_type, &media_at);
                    BodyMedia::Form { ty, encoding }
                } else {
                    return Err(LowerError::new(
                        &media_at.join("schema"),
                        "a form body must be an object",
                        "describe the body with `type: object` and its properties, or send it as `application/json`",
                    ));
                }
            }
            MediaKind::Multipart => {
                if !media_type.encoding.is_empty() {
                    // Not written as the document says: said, and counted.
                    let encoding_at = media_at.join("encoding");
                    self.warn(
                        &encoding_at,
                        "the multipart body's `encoding` (each part's content type and headers) is not applied: text fields are sent as text, files as their own content type, the rest as JSON",
                        "leave the parts to their default content types, or build the request with `build()` and change it",
                    );
                    self.count(|d| &mut d.encodings, &encoding_at);
                }
                BodyMedia::Multipart(match &media_type.schema {
                    Some(schema) => {
                        // `format: binary` strings in it are files.
                        let outer = std::mem::replace(&mut self.files, true);
                        let ty = self.schema(
                            schema,
                            &media_at.join("schema"),
                            &format!("{op_type}Body"),
                        );
                        self.files = outer;
                        ty?
                    }
                    None => TypeRef::Map,
                })
            }
            MediaKind::Binary | MediaKind::Text => {
                if !media.bytes().all(|b| (b' '..=b'~').contains(&b)) {
                    return Err(LowerError::new(
                        &media_at,
                        "the media type is not a valid `Content-Type` header value",
                        "write the media type in printable ASCII, e.g. `application/octet-stream`",
                    ));
                }
                let wildcard = media.contains('*');
                if kind == MediaKind::Binary {
                    BodyMedia::Binary {
                        content_type: if wildcard {
                            "application/octet-stream".into()
                        } else {
                            media.to_owned()
                        },
                    }
                } else {
                    BodyMedia::Text {
                        content_type: if wildcard {
                            "text/plain".into()
                        } else {
                            media.to_owned()
                        },
                    }
                }
            }
        })
    }

    /// How the properties of a form body are written, from its
    /// `encoding`: a `style` (with `explode`) as in the query, or JSON
    /// text for a `contentType` that is JSON. What cannot be written as
    /// the document says (`allowReserved`, per-property headers, another
    /// `contentType`) is named by a warning and counted.
    fn form_encoding(
        &mut self,
        media_type: &openapiv3::MediaType,
        media_at: &Pointer,
    ) -> Vec<FormEncoding> {
        let mut encoding = Vec::new();
        for (property, entry) in &media_type.encoding {
            let entry_at = media_at.join("encoding").join(property);
            if entry.allow_reserved {
                self.warn(
                    &entry_at.join("allowReserved"),
                    format!("`allowReserved` of the form field `{property}` is not applied: reserved characters are percent-encoded"),
                    "servers decode both; remove `allowReserved` to silence this",
                );
                self.count(|d| &mut d.encodings, &entry_at.join("allowReserved"));
            }
            if !entry.headers.is_empty() {
                self.warn(
                    &entry_at.join("headers"),
                    format!("the `headers` of the form field `{property}` cannot be sent: a field of a URL-encoded form has no headers"),
                    "remove them, or send the body as `multipart/form-data`",
                );
                self.count(|d| &mut d.encodings, &entry_at.join("headers"));
            }
            let style = match &entry.style {
                Some(QueryStyle::Form) => FormStyle::Form,
                Some(QueryStyle::SpaceDelimited) => FormStyle::SpaceDelimited,
                Some(QueryStyle::PipeDelimited) => FormStyle::PipeDelimited,
                Some(QueryStyle::DeepObject) => FormStyle::DeepObject,
                None => match entry.content_type.as_deref() {
                    Some(media) if is_json(media) => FormStyle::Json,
                    None => continue,
                    Some(media) => {
                        if !media.trim().to_ascii_lowercase().starts_with("text/plain") {
                            self.warn(
                                &entry_at.join("contentType"),
                                format!("the form field `{property}` is declared as `{media}`, which a URL-encoded form cannot carry as such; it is sent as its text"),
                                "declare it `application/json` or `text/plain`",
                            );
                            self.count(|d| &mut d.encodings, &entry_at.join("contentType"));
                        }
                        continue;
                    }
                },
            };
            encoding.push(FormEncoding {
                property: property.clone(),
                style,
                explode: entry.explode,
            });
        }
        encoding
    }

    /// Whether `ty` can be sent as `application/x-www-form-urlencoded`: an
    /// object (a struct, a map, or a `oneOf` of objects); a property that
    /// is not one flat value or a list of them is sent as its JSON text.
    pub(super) fn is_form(&self, ty: &TypeRef) -> bool {
        match ty {
            TypeRef::MapOf(_) | TypeRef::Map | TypeRef::Value => true,
            TypeRef::Named(name) => matches!(
                self.types.get(name),
                Some(TypeDef::Struct { .. } | TypeDef::OneOf { .. } | TypeDef::Tagged { .. })
                    | Some(TypeDef::Alias {
                        ty: TypeRef::MapOf(_) | TypeRef::Map,
                        ..
                    })
            ),
            _ => false,
        }
    }
}

/// What a request body's media type is sent as, in order of preference;
/// `None` when it cannot be sent (XML, `multipart/mixed`, ...). Every
/// other media type is bytes: what a body is is said by its type, not by
/// a list of the types this generator has met.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum MediaKind {
    Json,
    Form,
    Multipart,
    Binary,
    Text,
}

pub(super) fn media_kind(media: &str) -> Option<MediaKind> {
    let essence = media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let (top, sub) = essence.split_once('/')?;
    if is_json(media) || (top == "application" && (sub == "json" || sub.ends_with("+json"))) {
        Some(MediaKind::Json)
    } else if essence == "application/x-www-form-urlencoded" {
        Some(MediaKind::Form)
    } else if essence == "multipart/form-data" {
        Some(MediaKind::Multipart)
    } else if top == "text" {
        Some(MediaKind::Text)
    } else if top == "multipart" || sub == "xml" || sub.ends_with("+xml") {
        // A structure this generator cannot write (XML, other multiparts):
        // sending the schema's value as bytes would not be what it says.
        None
    } else {
        // Anything else is a file's bytes, sent with its content type:
        // `application/pdf`, `image/png`, `application/pkix-cert`,
        // `application/x-pem-file`, a vendor's own `application/vnd.x`.
        Some(MediaKind::Binary)
    }
}

/// The name of a body choice's variant for a media type: `Json`, `Form`,
/// `Multipart`, `Text`, or its subtype (`MergePatchJson`, `ApplyPatchYaml`,
/// `Pdf`).
fn media_variant(media: &str) -> String {
    let essence = media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let sub = essence
        .split_once('/')
        .map_or(essence.as_str(), |(_, sub)| sub);
    match sub {
        "json" => "Json".into(),
        "x-www-form-urlencoded" => "Form".into(),
        "form-data" => "Multipart".into(),
        "plain" => "Text".into(),
        "octet-stream" => "Bytes".into(),
        _ => match pascal(sub) {
            name if name.is_empty() => "Media".into(),
            name => name,
        },
    }
}

pub(super) fn is_json(media: &str) -> bool {
    let essence = media.split(';').next().unwrap_or("").trim();
    essence == "application/json" || essence.ends_with("+json")
}
