//! Schemas where they are used: primitives, arrays, objects, enums, and the names of the types they need (`oneOf`/`anyOf` in `one_of`).

use super::*;

impl<'a> Lowerer<'a> {
    /// A schema where it is used; `hint` names it if it needs a type of its own.
    pub(super) fn schema(
        &mut self,
        schema: &ReferenceOr<Schema>,
        at: &Pointer,
        hint: &str,
    ) -> Result<TypeRef> {
        match schema {
            ReferenceOr::Reference { reference } => self.named(reference, at),
            ReferenceOr::Item(schema) => self.inline(schema, at, hint),
        }
    }

    pub(super) fn boxed_schema(
        &mut self,
        schema: &ReferenceOr<Box<Schema>>,
        at: &Pointer,
        hint: &str,
    ) -> Result<TypeRef> {
        match schema {
            ReferenceOr::Reference { reference } => self.named(reference, at),
            ReferenceOr::Item(schema) => self.inline(schema, at, hint),
        }
    }

    pub(super) fn inline(&mut self, schema: &Schema, at: &Pointer, hint: &str) -> Result<TypeRef> {
        // An inline schema's `title` names its type, as its author wrote it
        // (the same schema under one title in several places is one type);
        // a named schema keeps its name.
        let titled = match &schema.schema_data.title {
            Some(title) if self.exact.as_deref() != Some(hint) && !title.trim().is_empty() => {
                // Never the name of the named schema being lowered, which
                // `define` gives to that schema alone.
                Some(pascal(title)).filter(|name| self.exact.as_ref() != Some(name))
            }
            _ => None,
        };
        let hint = titled.as_deref().unwrap_or(hint);
        let description = schema.schema_data.description.clone();
        let ty = match &schema.schema_kind {
            SchemaKind::Type(Type::String(s)) if !s.enumeration.is_empty() => {
                let mut variants = Vec::new();
                let mut scope = Scope::default();
                push_values(
                    &mut variants,
                    &mut scope,
                    s.enumeration.iter().flatten(),
                    None,
                );
                if variants.is_empty() {
                    // Only `null` listed: nothing but null.
                    TypeRef::Value
                } else {
                    self.define(
                        hint,
                        TypeDef::Enum {
                            description,
                            variants,
                        },
                    )
                }
            }
            SchemaKind::Type(Type::String(s))
                if self.files
                    && matches!(
                        s.format,
                        VariantOrUnknownOrEmpty::Item(StringFormat::Binary)
                    ) =>
            {
                TypeRef::File
            }
            SchemaKind::Type(Type::String(s))
                if matches!(
                    s.format,
                    VariantOrUnknownOrEmpty::Item(StringFormat::Password)
                ) =>
            {
                TypeRef::Secret
            }
            SchemaKind::Type(Type::String(_)) | SchemaKind::Any(_) if int_or_string(schema) => {
                // Kubernetes' `IntOrString` (`format: int-or-string`,
                // `x-kubernetes-int-or-string: true`): an integer or a
                // string, as the value on the wire is.
                self.define(
                    hint,
                    TypeDef::OneOf {
                        description,
                        tag: None,
                        variants: vec![
                            Variant {
                                name: "Integer".into(),
                                tag_value: None,
                                ty: TypeRef::Integer { bits: 64 },
                            },
                            Variant {
                                name: "String".into(),
                                tag_value: None,
                                ty: TypeRef::String,
                            },
                        ],
                    },
                )
            }
            SchemaKind::Type(Type::String(_)) => TypeRef::String,
            SchemaKind::Type(Type::Integer(i)) => TypeRef::Integer {
                bits: match i.format {
                    VariantOrUnknownOrEmpty::Item(openapiv3::IntegerFormat::Int32) => 32,
                    _ => 64,
                },
            },
            SchemaKind::Type(Type::Number(_)) => TypeRef::Number,
            SchemaKind::Type(Type::Boolean(_)) => TypeRef::Boolean,
            SchemaKind::Type(Type::Array(array)) => {
                let item = match &array.items {
                    Some(items) => {
                        self.boxed_schema(items, &at.join("items"), &format!("{hint}Item"))?
                    }
                    None => {
                        // JSON Schema reads missing `items` as "any items".
                        self.warn(
                            at,
                            "the array has no `items`; its items are read as any JSON value (`serde_json::Value`)",
                            "say what the array holds with `items`",
                        );
                        TypeRef::Value
                    }
                };
                TypeRef::Array(Box::new(item))
            }
            SchemaKind::Type(Type::Object(object)) => {
                self.object(object, at, hint, description, &BTreeMap::new())?
            }
            SchemaKind::Any(any) if is_empty_any(any) => TypeRef::Value,
            SchemaKind::AllOf { all_of } => self.all_of(schema, all_of, at, hint)?,
            SchemaKind::OneOf { one_of } => {
                self.one_of(schema, one_of, &at.join("oneOf"), hint, description)?
            }
            SchemaKind::AnyOf { any_of } => {
                self.one_of(schema, any_of, &at.join("anyOf"), hint, description)?
            }
            SchemaKind::Not { .. } => {
                self.count(|d| &mut d.schemas, &at.join("not"));
                // What a value is not says nothing of what it is: any JSON
                // value holds every value the schema allows.
                self.warn(
                    &at.join("not"),
                    "`not` cannot be expressed as a Rust type; the value is read as any JSON value (`serde_json::Value`), and what it must not be is not checked",
                    "say what the value is (`type`, `enum`, `oneOf`) for a typed value",
                );
                TypeRef::Value
            }
            SchemaKind::Any(any) => {
                self.count(|d| &mut d.schemas, at);
                // Beyond the model, but any JSON value holds every value the
                // schema allows: read it as that, and say so.
                let what = if any.not.is_some() {
                    "`not` with other keywords"
                } else if !any.one_of.is_empty() {
                    "`oneOf` beside other keywords"
                } else if !any.all_of.is_empty() {
                    "`allOf` beside other keywords"
                } else if !any.any_of.is_empty() {
                    "`anyOf` beside other keywords"
                } else {
                    "keywords of several types"
                };
                self.warn(
                    at,
                    format!(
                        "the schema mixes {what}, which this generator cannot express; it is read as any JSON value (`serde_json::Value`)"
                    ),
                    "give the schema one type, or split it with `oneOf`, for a typed value",
                );
                TypeRef::Value
            }
        };
        Ok(
            if schema.schema_data.nullable && !matches!(ty, TypeRef::Optional(_)) {
                TypeRef::Optional(Box::new(ty))
            } else {
                ty
            },
        )
    }

    /// An object schema; `origins` gives where a property is written when it
    /// is not under `at/properties` (the member of an `allOf` it came from).
    pub(super) fn object(
        &mut self,
        object: &ObjectType,
        at: &Pointer,
        hint: &str,
        description: Option<String>,
        origins: &BTreeMap<String, Pointer>,
    ) -> Result<TypeRef> {
        if object.properties.is_empty() {
            return Ok(match &object.additional_properties {
                Some(AdditionalProperties::Schema(values)) => {
                    let value = self.schema(
                        values,
                        &at.join("additionalProperties"),
                        &format!("{hint}Value"),
                    )?;
                    TypeRef::MapOf(Box::new(value))
                }
                _ => TypeRef::Map,
            });
        }
        let fields = self.fields(object, at, hint, origins)?;
        Ok(self.define(
            hint,
            TypeDef::Struct {
                description,
                fields,
            },
        ))
    }

    /// The fields of an object's properties, in the spec's order, then those
    /// required but not declared (any value).
    pub(super) fn fields(
        &mut self,
        object: &ObjectType,
        at: &Pointer,
        hint: &str,
        origins: &BTreeMap<String, Pointer>,
    ) -> Result<Vec<Field>> {
        let mut fields = Vec::new();
        let mut scope = Scope::default();
        for (name, property) in &object.properties {
            let field_at = origins
                .get(name)
                .cloned()
                .unwrap_or_else(|| at.join("properties").join(name));
            let ty = self.boxed_schema(property, &field_at, &format!("{hint}{}", pascal(name)))?;
            let property_description = match property {
                ReferenceOr::Item(s) => s.schema_data.description.clone(),
                ReferenceOr::Reference { .. } => None,
            };
            fields.push(Field {
                name: name.clone(),
                rust_name: scope.claim(&snake(name)),
                required: object.required.contains(name),
                ty,
                description: property_description,
            });
        }
        // Required but not declared: JSON Schema reads it as "present, any
        // value", and so does the struct.
        for required in &object.required {
            if !object.properties.contains_key(required) {
                fields.push(Field {
                    name: required.clone(),
                    rust_name: scope.claim(&snake(required)),
                    required: true,
                    ty: TypeRef::Value,
                    description: None,
                });
            }
        }
        Ok(fields)
    }

    /// Gives `def` a name in the types module: `hint` itself when the
    /// definition is a named schema's (claimed up front) or the same
    /// definition is already there, else the first free `hint2`, `hint3`…
    pub(super) fn define(&mut self, hint: &str, def: TypeDef) -> TypeRef {
        if self.exact.as_deref() == Some(hint) {
            self.exact = None;
            self.types.insert(hint.to_owned(), def);
            return TypeRef::Named(hint.to_owned());
        }
        if self.types.get(hint) == Some(&def) && !self.schema_types.contains(hint) {
            return TypeRef::Named(hint.to_owned());
        }
        let name = self.scope.claim(hint);
        self.types.insert(name.clone(), def);
        TypeRef::Named(name)
    }
}

/// Adds a variant per value not yet listed (a value listed twice is one
/// variant), each with `description`.
pub(super) fn push_values<'v>(
    variants: &mut Vec<EnumValue>,
    scope: &mut Scope,
    values: impl IntoIterator<Item = &'v String>,
    description: Option<&str>,
) {
    for value in values {
        if variants.iter().any(|v| v.wire == *value) {
            continue;
        }
        variants.push(EnumValue {
            wire: value.clone(),
            name: scope.claim(&pascal(value)),
            description: description.map(str::to_owned),
        });
    }
}

pub(super) fn any_schema() -> Schema {
    Schema {
        schema_data: Default::default(),
        schema_kind: SchemaKind::Any(Default::default()),
    }
}

pub(super) fn is_empty_any(any: &openapiv3::AnySchema) -> bool {
    *any == openapiv3::AnySchema::default()
}

/// Kubernetes' int-or-string: `format: int-or-string` on a string (or on a
/// schema without a type), or `x-kubernetes-int-or-string: true` on a
/// schema that says nothing else of its type.
fn int_or_string(schema: &Schema) -> bool {
    let extension = schema
        .schema_data
        .extensions
        .get("x-kubernetes-int-or-string")
        .is_some_and(|v| v == &serde_json::Value::Bool(true));
    match &schema.schema_kind {
        SchemaKind::Type(Type::String(s)) => {
            s.enumeration.is_empty()
                && (extension
                    || matches!(&s.format, VariantOrUnknownOrEmpty::Unknown(f) if f == "int-or-string"))
        }
        SchemaKind::Any(any) => {
            let format = matches!(any.format.as_deref(), Some("int-or-string"));
            let mut rest = any.clone();
            rest.format = None;
            (extension || format) && is_empty_any(&rest)
        }
        _ => false,
    }
}
