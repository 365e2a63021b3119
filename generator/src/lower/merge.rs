//! `allOf`: a member that alone gives the type, or objects merged into one struct.

use super::*;

impl<'a> Lowerer<'a> {
    /// `allOf`: one member is that member; objects are merged into one
    /// struct (properties in order, `required` the union); anything else is
    /// refused.
    pub(super) fn all_of(
        &mut self,
        schema: &Schema,
        members: &[ReferenceOr<Schema>],
        at: &Pointer,
        hint: &str,
    ) -> Result<TypeRef> {
        let at = at.join("allOf");
        if let [only] = members {
            return self.schema(only, &member_at(only, &at, 0), hint);
        }
        // Members that only annotate (a description, `nullable`) say
        // nothing about the type.
        let annotation = |m: &ReferenceOr<Schema>| matches!(m, ReferenceOr::Item(Schema { schema_kind: SchemaKind::Any(any), .. }) if is_empty_any(any));
        let nullable = members
            .iter()
            .any(|m| annotation(m) && matches!(m, ReferenceOr::Item(s) if s.schema_data.nullable));
        let typed: Vec<(usize, &ReferenceOr<Schema>)> = members
            .iter()
            .enumerate()
            .filter(|(_, m)| !annotation(m))
            .collect();
        // One typed member, or none an object (a string or enum narrowed by
        // more constraints): the value is of that member's type, the first
        // given by reference (an enum, say) or else the first.
        let objects = typed
            .iter()
            .filter(|(i, m)| self.is_object_schema(m, &member_at(m, &at, *i)))
            .count();
        if !typed.is_empty() && (typed.len() == 1 || objects == 0) {
            let (i, member) = typed
                .iter()
                .find(|(_, m)| matches!(m, ReferenceOr::Reference { .. }))
                .unwrap_or(&typed[0]);
            let ty = self.schema(member, &member_at(member, &at, *i), hint)?;
            return Ok(match ty {
                TypeRef::Optional(_) => ty,
                ty if nullable => TypeRef::Optional(Box::new(ty)),
                ty => ty,
            });
        }
        let mut merged = ObjectType::default();
        let mut origins = BTreeMap::new();
        // The merged properties are lowered one level deeper too: a property
        // that is again the `allOf` of a schema on the way (a schema that
        // extends itself in one of its properties) is counted, and refused
        // at the limit, rather than merged anew forever.
        self.all_of_depth += 1;
        let merged = self
            .merge(members, &at, &mut merged, &mut origins)
            .map(|()| merged);
        self.all_of_depth -= 1;
        let merged = match merged {
            Ok(merged) => merged,
            // A member that is no object (a `oneOf` beside a `$ref`): the
            // value is still JSON, read as such in place, and said so.
            Err(e) if e.message == NOT_AN_OBJECT => {
                self.warn(
                    &e.pointer,
                    format!("{NOT_AN_OBJECT}; the whole `allOf` is read as any JSON value (`serde_json::Value`)"),
                    e.hint,
                );
                self.count(|d| &mut d.schemas, &e.pointer);
                return Ok(if nullable {
                    TypeRef::Optional(Box::new(TypeRef::Value))
                } else {
                    TypeRef::Value
                });
            }
            Err(e) => return Err(e),
        };
        self.all_of_depth += 1;
        let description = schema.schema_data.description.clone();
        // The merge is written nowhere: point at the schema itself.
        let result = self.object(&merged, &at.parent(), hint, description, &origins);
        self.all_of_depth -= 1;
        result
    }

    /// Whether `member` (followed through references) is an object, or
    /// composes into one.
    pub(super) fn is_object_schema(&self, member: &ReferenceOr<Schema>, at: &Pointer) -> bool {
        let doc = self.doc;
        let Ok((schema, _)) = resolve(member, "schemas", at, || {
            doc.components.as_ref().map(|c| &c.schemas)
        }) else {
            return true; // refused, by name, where it is merged
        };
        match &schema.schema_kind {
            SchemaKind::Type(Type::Object(_)) | SchemaKind::AllOf { .. } => true,
            SchemaKind::Any(any) => {
                !any.properties.is_empty()
                    || !any.required.is_empty()
                    || any.additional_properties.is_some()
            }
            _ => false,
        }
    }

    /// Merges the object members of an `allOf` into `merged`, noting in
    /// `origins` where each property is written.
    pub(super) fn merge(
        &mut self,
        members: &[ReferenceOr<Schema>],
        at: &Pointer,
        merged: &mut ObjectType,
        origins: &mut BTreeMap<String, Pointer>,
    ) -> Result<()> {
        if self.all_of_depth > MAX_ALL_OF_DEPTH {
            return Err(LowerError::new(
                at,
                "`allOf` refers back to itself",
                "an `allOf` member may not include the schema it is part of",
            ));
        }
        let doc = self.doc;
        for (i, member) in members.iter().enumerate() {
            let member_at = at.join(i);
            let (schema, schema_at) = resolve(member, "schemas", &member_at, || {
                doc.components.as_ref().map(|c| &c.schemas)
            })?;
            // Keywords the normaliser moved from beside `allOf` into a
            // member of their own are written in the schema itself.
            let schema_at = if schema
                .schema_data
                .extensions
                .contains_key(crate::normalize::SIBLINGS)
            {
                at.parent()
            } else {
                schema_at
            };
            match &schema.schema_kind {
                SchemaKind::Type(Type::Object(object)) => {
                    for (name, property) in &object.properties {
                        if !merged.properties.contains_key(name) {
                            merged.properties.insert(name.clone(), property.clone());
                            origins.insert(name.clone(), schema_at.join("properties").join(name));
                        }
                    }
                    for required in &object.required {
                        if !merged.required.contains(required) {
                            merged.required.push(required.clone());
                        }
                    }
                    if merged.additional_properties.is_none() {
                        merged.additional_properties = object.additional_properties.clone();
                    }
                }
                SchemaKind::AllOf { all_of } => {
                    self.all_of_depth += 1;
                    let result = self.merge(all_of, &schema_at.join("allOf"), merged, origins);
                    self.all_of_depth -= 1;
                    result?;
                }
                SchemaKind::Any(any) if is_empty_any(any) => {}
                // `required` (or `properties`) with no `type`, beside the
                // other members: part of the object.
                SchemaKind::Any(any) if !any.properties.is_empty() || !any.required.is_empty() => {
                    for (name, property) in &any.properties {
                        if !merged.properties.contains_key(name) {
                            merged.properties.insert(name.clone(), property.clone());
                            origins.insert(name.clone(), schema_at.join("properties").join(name));
                        }
                    }
                    for required in &any.required {
                        if !merged.required.contains(required) {
                            merged.required.push(required.clone());
                        }
                    }
                }
                _ => {
                    return Err(LowerError::new(
                        &schema_at,
                        NOT_AN_OBJECT,
                        "merge only object schemas with `allOf`, or use the member's type directly",
                    ));
                }
            }
        }
        // A property required by one member and declared by none is declared
        // by the merge as any JSON value, as JSON Schema reads it.
        let missing: Vec<String> = merged
            .required
            .iter()
            .filter(|r| !merged.properties.contains_key(*r))
            .cloned()
            .collect();
        for name in missing {
            merged
                .properties
                .insert(name, ReferenceOr::Item(Box::new(any_schema())));
        }
        Ok(())
    }
}

/// Why an `allOf` cannot be merged into one struct.
const NOT_AN_OBJECT: &str =
    "`allOf` of a schema that is not an object is not supported by this generator";

/// How deep `allOf` may nest (through references) before it is refused as
/// circular.
pub(super) const MAX_ALL_OF_DEPTH: usize = 32;

/// Where the `i`th member of the `allOf` at `at` is written: the schema
/// itself for the keywords the normaliser moved from beside `allOf` into a
/// member of their own (an `allOf: []` beside `required` has no member 0).
fn member_at(member: &ReferenceOr<Schema>, at: &Pointer, i: usize) -> Pointer {
    match member {
        ReferenceOr::Item(schema)
            if schema
                .schema_data
                .extensions
                .contains_key(crate::normalize::SIBLINGS) =>
        {
            at.parent()
        }
        _ => at.join(i),
    }
}
