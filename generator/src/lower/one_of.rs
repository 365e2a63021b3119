//! `oneOf` / `anyOf`: one enum. Members that one property of constant
//! value tells apart fold into the variants of one tagged enum, string
//! enums into one string enum; other members are a variant each, holding
//! the member's type (tagged by a `discriminator` where it allows, else
//! untagged: the first that matches wins).

use super::*;

impl<'a> Lowerer<'a> {
    /// `oneOf` / `anyOf`: an enum with a variant per member; tagged when a
    /// `discriminator` names the property that tells them apart.
    pub(super) fn one_of(
        &mut self,
        schema: &Schema,
        members: &[ReferenceOr<Schema>],
        at: &Pointer,
        hint: &str,
        description: Option<String>,
    ) -> Result<TypeRef> {
        // The places of 3.1's null members are skipped (the whole is nullable).
        let members: Vec<(usize, &ReferenceOr<Schema>)> = members
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                !matches!(m, ReferenceOr::Item(s)
                    if s.schema_data.extensions.contains_key(crate::normalize::NULL_MEMBER))
            })
            .collect();
        if members.is_empty() {
            // Nothing to tell a type by (or only `null`): any JSON value,
            // in place, rather than the operation left out.
            self.warn(
                at,
                "a `oneOf`/`anyOf` without members (other than `null`); it is read as any JSON value (`serde_json::Value`)",
                "list at least one schema",
            );
            self.count(|d| &mut d.schemas, at);
            return Ok(TypeRef::Value);
        }
        if let Some(def) = self.tagged(schema, &members, at, hint, &description)? {
            return Ok(self.define(hint, def));
        }
        if let Some(def) = string_union(&members, &description) {
            return Ok(self.define(hint, def));
        }
        if let [(i, only)] = members[..] {
            return self.schema(only, &at.join(i), hint);
        }
        let discriminator = schema.schema_data.discriminator.as_ref();
        let mut scope = Scope::default();
        let mut variants = Vec::new();
        for (i, member) in members {
            let member_at = at.join(i);
            let (name, tag_value) = match member {
                ReferenceOr::Reference { reference } => {
                    let schema_name = ref_name(reference, "schemas", &member_at)?;
                    let tag_value = discriminator.map(|d| {
                        d.mapping
                            .iter()
                            .find(|(_, target)| *target == reference || *target == schema_name)
                            .map(|(value, _)| value.clone())
                            .unwrap_or_else(|| schema_name.to_owned())
                    });
                    (pascal(schema_name), tag_value)
                }
                ReferenceOr::Item(item) => {
                    let name = match &item.schema_kind {
                        SchemaKind::Type(Type::String(_)) => "String".to_owned(),
                        SchemaKind::Type(Type::Integer(_)) => "Integer".to_owned(),
                        SchemaKind::Type(Type::Number(_)) => "Number".to_owned(),
                        SchemaKind::Type(Type::Boolean(_)) => "Boolean".to_owned(),
                        SchemaKind::Type(Type::Array(_)) => "Array".to_owned(),
                        SchemaKind::Type(Type::Object(_)) => "Object".to_owned(),
                        _ => format!("Variant{i}"),
                    };
                    let name = item.schema_data.title.as_deref().map_or(name, pascal);
                    (name, None)
                }
            };
            let name = scope.claim(&name);
            let ty = self.schema(member, &member_at, &format!("{hint}{name}"))?;
            variants.push(Variant {
                name,
                tag_value,
                ty,
            });
        }
        // Tagged only when every variant has a tag value and is a struct
        // that does not itself declare the tag (serde takes the tag out
        // before the variant's fields are read).
        let tag = discriminator
            .map(|d| d.property_name.clone())
            .filter(|tag| {
                variants.iter().all(|v| {
                    v.tag_value.is_some()
                        && match &v.ty {
                            TypeRef::Named(name) => match self.types.get(name) {
                                Some(TypeDef::Struct { fields, .. }) => {
                                    fields.iter().all(|f| f.name != *tag)
                                }
                                _ => false,
                            },
                            _ => false,
                        }
                })
            });
        let tagged = tag.is_some();
        for variant in &mut variants {
            if !tagged {
                variant.tag_value = None;
            }
        }
        Ok(self.define(
            hint,
            TypeDef::OneOf {
                description,
                tag,
                variants,
            },
        ))
    }

    /// Members that are all inline objects with a required property of one
    /// constant string value each, the same property in every member and a
    /// different value in each (`{type: {enum: [a]}, ...}`, `{type: {enum:
    /// [b]}, ...}`): one enum tagged by that property, a variant per member
    /// holding its other properties. `None` when the members are not so. A
    /// member given by `$ref` is a type of its own, used elsewhere too, and
    /// keeps the tag among its fields: such a `oneOf` is not folded.
    fn tagged(
        &mut self,
        schema: &Schema,
        members: &[(usize, &ReferenceOr<Schema>)],
        at: &Pointer,
        hint: &str,
        description: &Option<String>,
    ) -> Result<Option<TypeDef>> {
        let mut objects = Vec::new();
        for &(i, member) in members {
            match member {
                ReferenceOr::Item(Schema {
                    schema_data,
                    schema_kind: SchemaKind::Type(Type::Object(object)),
                }) if !schema_data.nullable => objects.push((i, schema_data, object)),
                _ => return Ok(None),
            }
        }
        // The properties every member requires with one constant value,
        // values all different: the candidates for the tag.
        let constants = |object: &ObjectType| -> BTreeMap<String, String> {
            object
                .properties
                .iter()
                .filter(|(name, _)| object.required.contains(name))
                .filter_map(|(name, property)| Some((name.clone(), constant(property)?.to_owned())))
                .collect()
        };
        let mut candidates: BTreeMap<String, Vec<String>> = constants(objects[0].2)
            .into_iter()
            .map(|(name, value)| (name, vec![value]))
            .collect();
        for (_, _, object) in &objects[1..] {
            let these = constants(object);
            candidates.retain(|name, values| match these.get(name) {
                Some(value) if !values.contains(value) => {
                    values.push(value.clone());
                    true
                }
                _ => false,
            });
        }
        // The discriminator's property when it is one, else the first by name.
        let discriminator = schema
            .schema_data
            .discriminator
            .as_ref()
            .map(|d| &d.property_name)
            .filter(|name| candidates.contains_key(*name));
        let Some(tag) = discriminator.or(candidates.keys().next()).cloned() else {
            return Ok(None);
        };
        let mut scope = Scope::default();
        let mut variants = Vec::new();
        for ((i, data, object), tag_value) in objects.into_iter().zip(&candidates[&tag]) {
            let name = scope.claim(&pascal(tag_value));
            // The tag is the variant: not a field of it.
            let mut rest = object.clone();
            rest.properties.shift_remove(&tag);
            rest.required.retain(|r| *r != tag);
            let fields = self.fields(
                &rest,
                &at.join(i),
                &format!("{hint}{name}"),
                &BTreeMap::new(),
            )?;
            variants.push(TaggedVariant {
                name,
                tag_value: tag_value.clone(),
                description: data.description.clone(),
                fields,
            });
        }
        Ok(Some(TypeDef::Tagged {
            description: description.clone(),
            tag,
            variants,
        }))
    }
}

/// Members that are all inline string enums: one string enum of all their
/// values (each described by its member's description); `None` otherwise.
fn string_union(
    members: &[(usize, &ReferenceOr<Schema>)],
    description: &Option<String>,
) -> Option<TypeDef> {
    let mut variants = Vec::new();
    let mut scope = Scope::default();
    for (_, member) in members {
        let ReferenceOr::Item(Schema {
            schema_data,
            schema_kind: SchemaKind::Type(Type::String(string)),
        }) = member
        else {
            return None;
        };
        if schema_data.nullable
            || string.enumeration.is_empty()
            || string.enumeration.iter().any(Option::is_none)
        {
            return None;
        }
        push_values(
            &mut variants,
            &mut scope,
            string.enumeration.iter().flatten(),
            schema_data.description.as_deref(),
        );
    }
    Some(TypeDef::Enum {
        description: description.clone(),
        variants,
    })
}

/// The one value a property may have: an inline string enum of one value.
fn constant(property: &ReferenceOr<Box<Schema>>) -> Option<&str> {
    let ReferenceOr::Item(schema) = property else {
        return None;
    };
    match &schema.schema_kind {
        SchemaKind::Type(Type::String(string)) if !schema.schema_data.nullable => {
            match &string.enumeration[..] {
                [Some(value)] => Some(value),
                _ => None,
            }
        }
        _ => None,
    }
}
