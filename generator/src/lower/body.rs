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
        // The best media type offered: JSON, then a form, then bytes, then
        // text; the first of its kind in document order.
        let Some((media, media_type, kind)) = body
            .content
            .iter()
            .filter_map(|(m, t)| media_kind(m).map(|kind| (m, t, kind)))
            .min_by_key(|(_, _, kind)| *kind)
        else {
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
                required: body.required,
                description: body.description.clone(),
            });
        };
        let media_at = content_at.join(media);
        let media = match kind {
            MediaKind::Json | MediaKind::Form => {
                let ty = match &media_type.schema {
                    Some(schema) => {
                        self.schema(schema, &media_at.join("schema"), &format!("{op_type}Body"))?
                    }
                    None if kind == MediaKind::Json => TypeRef::Value,
                    None => TypeRef::MapOf(Box::new(TypeRef::String)),
                };
                if kind == MediaKind::Json {
                    BodyMedia::Json(ty)
                } else if self.is_form(&ty) {
                    BodyMedia::Form(ty)
                } else {
                    return Err(LowerError::new(
                        &media_at.join("schema"),
                        "a form body must be an object",
                        "describe the body with `type: object` and its properties, or send it as `application/json`",
                    ));
                }
            }
            MediaKind::Multipart => BodyMedia::Multipart(match &media_type.schema {
                Some(schema) => {
                    // `format: binary` strings in it are files.
                    let outer = std::mem::replace(&mut self.files, true);
                    let ty =
                        self.schema(schema, &media_at.join("schema"), &format!("{op_type}Body"));
                    self.files = outer;
                    ty?
                }
                None => TypeRef::Map,
            }),
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
                            media.clone()
                        },
                    }
                } else {
                    BodyMedia::Text {
                        content_type: if wildcard {
                            "text/plain".into()
                        } else {
                            media.clone()
                        },
                    }
                }
            }
        };
        Ok(Body {
            media,
            required: body.required,
            description: body.description.clone(),
        })
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

pub(super) fn is_json(media: &str) -> bool {
    let essence = media.split(';').next().unwrap_or("").trim();
    essence == "application/json" || essence.ends_with("+json")
}
