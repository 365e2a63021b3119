//! Responses: their JSON bodies and documented headers.

use super::*;

impl<'a> Lowerer<'a> {
    pub(super) fn response(
        &mut self,
        response: &ReferenceOr<SpecResponse>,
        status: Status,
        variant: String,
        at: &Pointer,
        op_type: &str,
    ) -> Result<Response> {
        let doc = self.doc;
        let (response, at) = resolve(response, "responses", at, || {
            doc.components.as_ref().map(|c| &c.responses)
        })?;
        // The first JSON media type whose schema says something: a typed
        // one wins over an untyped one (`schema: {}`, or none) listed
        // before it (Zuora lists `application/json; charset=utf-8` untyped
        // before the typed `application/json`).
        let typed = |media_type: &openapiv3::MediaType| match &media_type.schema {
            Some(ReferenceOr::Item(Schema {
                schema_kind: SchemaKind::Any(any),
                schema_data,
            })) => !is_empty_any(any) || schema_data.nullable,
            Some(_) => true,
            None => false,
        };
        let json = || response.content.iter().filter(|(m, _)| is_json(m));
        let chosen = json().find(|(_, t)| typed(t)).or_else(|| json().next());
        let body = match chosen {
            None => None,
            Some((media, media_type)) => Some(match &media_type.schema {
                Some(schema) => self.schema(
                    schema,
                    &at.join("content").join(media).join("schema"),
                    &format!("{op_type}{variant}Body"),
                )?,
                None => TypeRef::Value,
            }),
        };
        let mut headers = Vec::new();
        let mut header_names = Scope::default();
        for (name, header) in &response.headers {
            if name.eq_ignore_ascii_case("content-type") {
                continue; // OpenAPI: "it SHALL be ignored"
            }
            let header_at = at.join("headers").join(name);
            if http::HeaderName::from_bytes(name.as_bytes()).is_err() {
                // No response can carry it: the header alone is left out.
                self.warn(
                    &header_at,
                    format!("`{name}` is not a valid HTTP header name; the header is left out"),
                    "use letters, digits and `-` only",
                );
                self.count(|d| &mut d.headers, &header_at);
                continue;
            }
            let (header, header_at) = self.header(header, &header_at)?;
            let ty = match &header.format {
                ParameterSchemaOrContent::Schema(schema) => self.schema(
                    schema,
                    &header_at.join("schema"),
                    &format!("{op_type}{}", pascal(name)),
                )?,
                ParameterSchemaOrContent::Content(_) => {
                    // Its text is always there to read.
                    self.warn(
                        &header_at.join("content"),
                        format!("the header `{name}` is described with `content`; it is read as its text, not decoded"),
                        "describe the header with `schema`, or decode the text yourself",
                    );
                    self.count(|d| &mut d.headers, &header_at.join("content"));
                    TypeRef::String
                }
            };
            let ty = if self.is_scalar(&ty, 0) || ty == TypeRef::Secret {
                ty
            } else {
                self.count(|d| &mut d.headers, &header_at.join("schema"));
                // Its text is always there to read: give that, and say so.
                self.warn(
                    &header_at.join("schema"),
                    format!("the header `{name}` is not one string, number, boolean or enum; it is read as its text"),
                    "split the value yourself, or give the header a single type",
                );
                TypeRef::String
            };
            headers.push(ResponseHeader {
                name: name.clone(),
                rust_name: header_names.claim(&snake(name)),
                required: header.required,
                ty,
                description: header.description.clone(),
            });
        }
        Ok(Response {
            status,
            variant,
            description: response.description.clone(),
            body,
            headers,
        })
    }

    /// A response header, and the pointer where it is written.
    pub(super) fn header(
        &self,
        header: &'a ReferenceOr<Header>,
        at: &Pointer,
    ) -> Result<(&'a Header, Pointer)> {
        let doc = self.doc;
        resolve(header, "headers", at, || {
            doc.components.as_ref().map(|c| &c.headers)
        })
    }
}
