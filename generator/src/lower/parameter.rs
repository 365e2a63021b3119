//! Parameters: their types, and how each is written on the wire (its style).

use super::*;

impl<'a> Lowerer<'a> {
    pub(super) fn parameter(
        &mut self,
        param: &ReferenceOr<Parameter>,
        at: &Pointer,
        op_type: &str,
    ) -> Result<Option<Param>> {
        // Errors about the parameter point at where it is written.
        let doc = self.doc;
        let (param, at) = resolve(param, "parameters", at, || {
            doc.components.as_ref().map(|c| &c.parameters)
        })?;
        let at = &at;
        let path_style = match param {
            Parameter::Path {
                parameter_data,
                style,
            } => {
                let explode = parameter_data.explode.unwrap_or(false);
                match style {
                    openapiv3::PathStyle::Label => Some(PathStyle::Label { explode }),
                    openapiv3::PathStyle::Matrix => Some(PathStyle::Matrix { explode }),
                    openapiv3::PathStyle::Simple => None,
                }
            }
            _ => None,
        };
        let (data, location, query_style) = match param {
            Parameter::Path { parameter_data, .. } => (parameter_data, Location::Path, None),
            Parameter::Query {
                parameter_data,
                style,
                ..
            } => (parameter_data, Location::Query, Some(style)),
            Parameter::Header { parameter_data, .. } => (parameter_data, Location::Header, None),
            Parameter::Cookie { parameter_data, .. } => (parameter_data, Location::Cookie, None),
        };
        let cookie_name = |name: &str| {
            !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_graphic() && !b"()<>@,;:\\\"/[]?={}".contains(&b))
        };
        // A name that cannot be sent costs the parameter, not the
        // operation: it is left out, and said so.
        if location == Location::Cookie && !cookie_name(&data.name) {
            self.warn(
                &at.join("name"),
                format!("`{}` is not a valid cookie name; the parameter is left out (the operation is sent without it)", data.name),
                "use letters, digits and `-` only",
            );
            self.count(|d| &mut d.parameters, &at.join("name"));
            return Ok(None);
        }
        if location == Location::Header
            && http::HeaderName::from_bytes(data.name.as_bytes()).is_err()
        {
            self.warn(
                &at.join("name"),
                format!("`{}` is not a valid HTTP header name; the parameter is left out (the operation is sent without it)", data.name),
                "use letters, digits and `-` only",
            );
            self.count(|d| &mut d.parameters, &at.join("name"));
            return Ok(None);
        }
        if location == Location::Path && !data.required {
            // OpenAPI: a path parameter's `required` MUST be true; it is
            // read as required (a path cannot be sent without it).
            self.warn(
                at,
                format!("the path parameter `{}` does not say `required: true`, which every path parameter must; it is read as required", data.name),
                "add `required: true`",
            );
        }
        let (ty, secret, json) = self.parameter_type(data, at, op_type, location)?;
        let style = if json {
            ParamStyle::Json
        } else {
            self.parameter_style(&ty, data.explode, query_style)
        };
        Ok(Some(Param {
            name: data.name.clone(),
            rust_name: snake(&data.name),
            location,
            required: data.required || location == Location::Path,
            secret,
            ty,
            description: data.description.clone(),
            style,
            path_style,
        }))
    }

    /// How a value of `ty` is written: one string; an array as the query
    /// style says (joined by `,` in a header or path); anything else
    /// through `serde_json`, an object's properties as the style says
    /// (`deepObject`, `form`, `simple`; exploded or not).
    pub(super) fn parameter_style(
        &self,
        ty: &TypeRef,
        explode: Option<bool>,
        query_style: Option<&QueryStyle>,
    ) -> ParamStyle {
        if self.is_scalar(ty, 0) {
            return ParamStyle::Scalar;
        }
        if let TypeRef::Array(item) = ty
            && self.is_scalar(item, 0)
        {
            let Some(style) = query_style else {
                return ParamStyle::Array(ArrayStyle::Joined(','));
            };
            let explode = explode.unwrap_or(matches!(style, QueryStyle::Form));
            return ParamStyle::Array(match (style, explode) {
                (QueryStyle::Form, false) => ArrayStyle::Joined(','),
                (QueryStyle::SpaceDelimited, false) => ArrayStyle::Joined(' '),
                (QueryStyle::PipeDelimited, false) => ArrayStyle::Joined('|'),
                // Exploded, every style writes `name=a&name=b`.
                _ => ArrayStyle::Repeat,
            });
        }
        ParamStyle::Object(match query_style {
            Some(QueryStyle::DeepObject) => ObjectStyle::DeepObject,
            Some(_) if explode.unwrap_or(true) => ObjectStyle::Exploded,
            Some(_) => ObjectStyle::Joined,
            None if explode.unwrap_or(false) => ObjectStyle::Exploded,
            None => ObjectStyle::Joined,
        })
    }

    /// A parameter's type, whether it is a secret, and whether its
    /// `content` says it is sent as JSON text.
    pub(super) fn parameter_type(
        &mut self,
        data: &ParameterData,
        at: &Pointer,
        op_type: &str,
        location: Location,
    ) -> Result<(TypeRef, bool, bool)> {
        let (schema, schema_at, json) = match &data.format {
            ParameterSchemaOrContent::Schema(schema) => (schema, at.join("schema"), false),
            ParameterSchemaOrContent::Content(content) => {
                let Some((media, media_type)) = content.iter().next() else {
                    return Err(LowerError::new(
                        &at.join("content"),
                        format!("the parameter `{}` lists no media type", data.name),
                        "describe the parameter with `schema`, or one media type under `content`",
                    ));
                };
                let media_at = at.join("content").join(media);
                match &media_type.schema {
                    Some(schema) => (schema, media_at.join("schema"), is_json(media)),
                    None => return Ok((TypeRef::String, false, false)),
                }
            }
        };
        let secret = matches!(
            schema,
            ReferenceOr::Item(Schema {
                schema_kind: SchemaKind::Type(Type::String(s)),
                ..
            }) if matches!(s.format, VariantOrUnknownOrEmpty::Item(StringFormat::Password))
        );
        let ty = match self.schema(
            schema,
            &schema_at,
            &format!("{op_type}{}", pascal(&data.name)),
        )? {
            // A parameter's secret is held by `secret` above, written as text.
            TypeRef::Secret => TypeRef::String,
            ty => ty,
        };
        let is_query = location == Location::Query;
        let allowed = |this: &Self, ty: &TypeRef| {
            let scalar_items = match ty {
                TypeRef::Array(item) => this.is_scalar(item, 0),
                _ => false,
            };
            this.is_scalar(ty, 0) || (is_query && scalar_items)
        };
        // `nullable` says nothing a parameter can send: an absent value is
        // the only null there is, and every optional parameter can be absent.
        let ty = match ty {
            TypeRef::Optional(inner) => *inner,
            ty => ty,
        };
        let ty = match ty {
            // A named nullable primitive: the value it aliases.
            TypeRef::Named(name) if self.nullable.contains(&name) => match self.types.get(&name) {
                Some(TypeDef::Alias { ty, .. }) => ty.clone(),
                _ => TypeRef::Named(name),
            },
            ty => ty,
        };
        if json {
            return Ok((ty, secret, true));
        }
        // A `oneOf`/`anyOf` whose members are each one value or an object
        // (Stripe's `created`: a range object or an integer, `deepObject`)
        // is kept whole: the runtime writes the member the caller chose as
        // the style says (an object's properties, or the one value). Other
        // unions are sent as the first member that fits, with a warning at
        // each member that cannot be sent.
        let ty = match &ty {
            TypeRef::Named(name) if !allowed(self, &ty) => {
                let variants = match self.types.get(name) {
                    Some(TypeDef::OneOf {
                        tag: None,
                        variants,
                        ..
                    }) => variants.clone(),
                    _ => Vec::new(),
                };
                let object_like = |this: &Self, ty: &TypeRef| {
                    matches!(ty, TypeRef::Map | TypeRef::MapOf(_))
                        || matches!(ty, TypeRef::Named(n) if matches!(
                            this.types.get(n),
                            Some(TypeDef::Struct { .. })
                        ))
                };
                let fitting = variants.iter().position(|v| allowed(self, &v.ty));
                if !variants.is_empty()
                    && variants
                        .iter()
                        .all(|v| allowed(self, &v.ty) || object_like(self, &v.ty))
                {
                    ty.clone()
                } else if let Some(fitting) = fitting {
                    let members = union_members(self.doc, schema, &schema_at);
                    for (index, variant) in variants.iter().enumerate() {
                        if allowed(self, &variant.ty) && index == fitting {
                            continue;
                        }
                        let member_at = members
                            .as_ref()
                            .and_then(|(base, indices)| Some(base.join(indices.get(index)?)))
                            .unwrap_or_else(|| schema_at.clone());
                        self.warn(
                            &member_at,
                            format!(
                                "the parameter `{}` is one of several types; this member (`{}`) cannot be sent: the parameter is sent as the member `{}`",
                                data.name, variant.name, variants[fitting].name
                            ),
                            "give the parameter members that are each one value or an object",
                        );
                        self.count(|d| &mut d.parameters, &member_at);
                    }
                    let member = variants[fitting].ty.clone();
                    if !self.schema_types.contains(name) {
                        // Defined for this parameter alone: not needed now.
                        self.types.remove(name);
                    }
                    member
                } else {
                    ty.clone()
                }
            }
            _ => ty,
        };
        Ok((ty, secret, false))
    }

    /// Whether values of `ty` print as one string.
    pub(super) fn is_scalar(&self, ty: &TypeRef, depth: usize) -> bool {
        crate::model::is_scalar(&self.types, ty, depth)
    }
}

/// Where the members of a `oneOf`/`anyOf` parameter schema are written
/// (inline, or one `$ref` to `components/schemas`), and the index in the
/// file of each member lowering kept (3.1's `null` members are skipped).
fn union_members(
    doc: &OpenAPI,
    schema: &ReferenceOr<Schema>,
    at: &Pointer,
) -> Option<(Pointer, Vec<usize>)> {
    let (schema, at) = match schema {
        ReferenceOr::Item(schema) => (schema, at.clone()),
        ReferenceOr::Reference { reference } => {
            let name = reference.strip_prefix("#/components/schemas/")?;
            let schema = doc.components.as_ref()?.schemas.get(name)?.as_item()?;
            (
                schema,
                Pointer::root()
                    .join("components")
                    .join("schemas")
                    .join(name),
            )
        }
    };
    let (keyword, members) = match &schema.schema_kind {
        SchemaKind::OneOf { one_of } => ("oneOf", one_of),
        SchemaKind::AnyOf { any_of } => ("anyOf", any_of),
        _ => return None,
    };
    let kept = members
        .iter()
        .enumerate()
        .filter(|(_, m)| {
            !matches!(m, ReferenceOr::Item(s)
                if s.schema_data.extensions.contains_key(crate::normalize::NULL_MEMBER))
        })
        .map(|(i, _)| i)
        .collect();
    Some((at.join(keyword), kept))
}
