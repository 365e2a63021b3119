//! References: `$ref`s followed into `components` (through chains), to named schemas, and to schemas anywhere else a pointer leads.

use super::*;

impl<'a> Lowerer<'a> {
    /// A `$ref` to `components/schemas`: lowered once, used by name.
    pub(super) fn named(&mut self, reference: &str, at: &Pointer) -> Result<TypeRef> {
        let into_a_schema = reference
            .strip_prefix("#/components/schemas/")
            .is_some_and(|rest| rest.contains('/'));
        if reference.starts_with("#/")
            && (into_a_schema || !reference.starts_with("#/components/schemas/"))
        {
            return self.pointed(reference, at);
        }
        let name = ref_name(reference, "schemas", at)?;
        let Some(rust_name) = self.schema_names.get(name).cloned() else {
            return Err(dangling(reference, &at.join("$ref")));
        };
        if self.in_progress.contains(&rust_name) {
            // Where a cycle closes, to name it if no type is on its way.
            self.back_refs
                .entry(rust_name.clone())
                .or_insert_with(|| at.join("$ref"));
            return Ok(self.use_of(rust_name));
        }
        if self.types.contains_key(&rust_name) {
            return Ok(self.use_of(rust_name));
        }
        let schema_at = Pointer::root()
            .join("components")
            .join("schemas")
            .join(name);
        let doc = self.doc;
        let Some(schema) = doc.components.as_ref().and_then(|c| c.schemas.get(name)) else {
            return Err(dangling(reference, &at.join("$ref")));
        };
        self.in_progress.insert(rust_name.clone());
        let outer = self.exact.replace(rust_name.clone());
        let (ty, description) = match schema {
            ReferenceOr::Item(schema) => (
                self.inline(schema, &schema_at, &rust_name),
                schema.schema_data.description.clone(),
            ),
            // A name for another schema: an alias of it.
            ReferenceOr::Reference { reference } => (self.named(reference, &schema_at), None),
        };
        self.exact = outer;
        self.in_progress.remove(&rust_name);
        let ty = ty?;
        let named = TypeRef::Named(rust_name.clone());
        let itself = ty == named || ty == TypeRef::Optional(Box::new(named.clone()));
        if (itself && !self.types.contains_key(&rust_name))
            || (!itself && self.alias_cycle(&rust_name, &ty))
        {
            let at = self.back_refs.get(&rust_name).cloned().unwrap_or(schema_at);
            return Err(LowerError::new(
                &at,
                format!(
                    "the schema `{name}` is defined only by references that lead back to it: no type is ever given"
                ),
                "give one schema of the cycle a type (e.g. `type: object`), or point the `$ref` at a schema that has one",
            ));
        }
        if ty == TypeRef::Optional(Box::new(named.clone())) {
            // A nullable struct or enum: its uses are `Option`s.
            self.nullable.insert(rust_name.clone());
        } else if let TypeRef::Optional(inner) = ty {
            // A nullable primitive (or array, map, other schema) under a
            // name: an alias of the value, and its uses are `Option`s, so
            // that an optional field of it is one `Option`, not two.
            self.types.insert(
                rust_name.clone(),
                TypeDef::Alias {
                    description,
                    ty: *inner,
                },
            );
            self.nullable.insert(rust_name.clone());
        } else if ty != named {
            // A primitive, array or map under a name of its own: an alias.
            self.types
                .insert(rust_name.clone(), TypeDef::Alias { description, ty });
        }
        Ok(self.use_of(rust_name))
    }

    /// A `$ref` to a schema outside `components/schemas` (the schema of a
    /// response's content, of a parameter, a property of a schema):
    /// lowered once, named after the component it is in.
    pub(super) fn pointed(&mut self, reference: &str, at: &Pointer) -> Result<TypeRef> {
        if let Some(ty) = self.pointed_types.get(reference) {
            return Ok(ty.clone());
        }
        let Some(target) = Pointer::from_ref(reference) else {
            return Err(dangling(reference, &at.join("$ref")));
        };
        let doc = self.doc;
        let Some((node, hint)) = schema_at_pointer(doc, target.segments()) else {
            return Err(LowerError::new(
                &at.join("$ref"),
                format!("the reference `{reference}` does not point to a schema"),
                "point the `$ref` at a schema, e.g. under `#/components/schemas/`",
            ));
        };
        if !self.pointed_in_progress.insert(reference.to_owned()) {
            return Err(LowerError::new(
                &at.join("$ref"),
                format!("`{reference}` refers back to itself"),
                "move the schema under `components/schemas` to refer to it from inside itself",
            ));
        }
        let ty = match node {
            SchemaNode::Top(schema) => self.schema(schema, &target, &pascal(&hint)),
            SchemaNode::Inner(schema) => self.boxed_schema(schema, &target, &pascal(&hint)),
        };
        self.pointed_in_progress.remove(reference);
        let ty = ty?;
        self.pointed_types.insert(reference.to_owned(), ty.clone());
        Ok(ty)
    }

    /// Whether `ty`, what the schema `rust_name` was lowered to, leads back
    /// to it through names alone (`A` → `B` → `A`): a cycle with no type.
    pub(super) fn alias_cycle(&self, rust_name: &str, ty: &TypeRef) -> bool {
        let mut next = ty;
        for _ in 0..=self.types.len() {
            let name = match next {
                TypeRef::Named(name) => name,
                TypeRef::Optional(inner) => match &**inner {
                    TypeRef::Named(name) => name,
                    _ => return false,
                },
                _ => return false,
            };
            if name == rust_name {
                return true;
            }
            match self.types.get(name) {
                Some(TypeDef::Alias { ty, .. }) => next = ty,
                _ => return false,
            }
        }
        false
    }

    pub(super) fn use_of(&self, rust_name: String) -> TypeRef {
        if self.nullable.contains(&rust_name) {
            TypeRef::Optional(Box::new(TypeRef::Named(rust_name)))
        } else {
            TypeRef::Named(rust_name)
        }
    }
}

/// Where a `$ref` of one kind may point, e.g. `components/parameters`.
pub(super) fn ref_name<'r>(reference: &'r str, section: &str, at: &Pointer) -> Result<&'r str> {
    if !reference.starts_with("#/") {
        return Err(LowerError::new(
            at,
            format!("the reference `{reference}` points outside this document"),
            "external references are not supported: copy the target into `components`",
        ));
    }
    reference
        .strip_prefix(&format!("#/components/{section}/"))
        .ok_or_else(|| {
            LowerError::new(
                at,
                format!("the reference `{reference}` must point into `#/components/{section}/`"),
                format!("move the target under `components/{section}`"),
            )
        })
}

/// Follows a `$ref` into `components/{section}`, and on through any chain
/// of references there; gives the item and the pointer where it is written.
pub(super) fn resolve<'d, T>(
    item: &'d ReferenceOr<T>,
    section: &str,
    at: &Pointer,
    components: impl FnOnce() -> Option<&'d indexmap::IndexMap<String, ReferenceOr<T>>>,
) -> Result<(&'d T, Pointer)> {
    let ReferenceOr::Reference { reference } = item else {
        let ReferenceOr::Item(item) = item else {
            unreachable!()
        };
        return Ok((item, at.clone()));
    };
    let components = components();
    let mut reference = reference;
    let mut from = at.clone();
    let mut seen = BTreeSet::new();
    loop {
        let name = ref_name(reference, section, &from)?;
        if !seen.insert(name) {
            return Err(LowerError::new(
                &from.join("$ref"),
                format!("`{reference}` is part of a cycle of references"),
                "point the `$ref` at a definition",
            ));
        }
        let here = Pointer::root().join("components").join(section).join(name);
        match components.and_then(|c| c.get(name)) {
            Some(ReferenceOr::Item(item)) => return Ok((item, here)),
            Some(ReferenceOr::Reference { reference: next }) => {
                reference = next;
                from = here;
            }
            None => return Err(dangling(reference, &from.join("$ref"))),
        }
    }
}

pub(super) fn dangling(reference: &str, at: &Pointer) -> LowerError {
    LowerError::new(
        at,
        format!("the reference `{reference}` points to nothing"),
        "fix the `$ref`, or define its target under `components`",
    )
}

/// A schema where it is written: at the top of a component, or a property
/// or the items of another schema.
pub(super) enum SchemaNode<'d> {
    Top(&'d ReferenceOr<Schema>),
    Inner(&'d ReferenceOr<Box<Schema>>),
}

/// The schema a JSON pointer names, and a name for its type (the component
/// it is in, and the properties on the way): under `components`, the
/// schema of a response's or request body's content, of a parameter or a
/// header, or of a schema; then on into `properties/NAME` and `items`.
pub(super) fn schema_at_pointer<'d>(
    doc: &'d OpenAPI,
    segments: &'d [String],
) -> Option<(SchemaNode<'d>, String)> {
    let components = doc.components.as_ref()?;
    let in_content = |content: &'d indexmap::IndexMap<String, openapiv3::MediaType>,
                      rest: &'d [String]|
     -> Option<(&'d ReferenceOr<Schema>, &'d [String])> {
        match rest {
            [c, media, s, rest @ ..] if c == "content" && s == "schema" => {
                Some((content.get(media)?.schema.as_ref()?, rest))
            }
            _ => None,
        }
    };
    let in_format = |format: &'d ParameterSchemaOrContent,
                     rest: &'d [String]|
     -> Option<(&'d ReferenceOr<Schema>, &'d [String])> {
        match (format, rest) {
            (ParameterSchemaOrContent::Schema(schema), [s, rest @ ..]) if s == "schema" => {
                Some((schema, rest))
            }
            (ParameterSchemaOrContent::Content(content), rest) => in_content(content, rest),
            _ => None,
        }
    };
    let [c, section, name, rest @ ..] = segments else {
        return None;
    };
    if c != "components" {
        return None;
    }
    let (top, rest) = match section.as_str() {
        "schemas" => (components.schemas.get(name)?, rest),
        "responses" => in_content(&components.responses.get(name)?.as_item()?.content, rest)?,
        "requestBodies" => in_content(
            &components.request_bodies.get(name)?.as_item()?.content,
            rest,
        )?,
        "parameters" => in_format(
            &components
                .parameters
                .get(name)?
                .as_item()?
                .parameter_data_ref()
                .format,
            rest,
        )?,
        "headers" => in_format(&components.headers.get(name)?.as_item()?.format, rest)?,
        _ => return None,
    };
    let mut name = name.clone();
    let mut node = SchemaNode::Top(top);
    let mut rest = rest;
    while !rest.is_empty() {
        let schema: &Schema = match node {
            SchemaNode::Top(ReferenceOr::Item(schema)) => schema,
            SchemaNode::Inner(ReferenceOr::Item(schema)) => schema,
            _ => return None,
        };
        let (next, used) = match (&schema.schema_kind, rest) {
            (SchemaKind::Type(Type::Object(o)), [p, key, ..]) if p == "properties" => {
                name = format!("{name} {key}");
                (o.properties.get(key)?, 2)
            }
            (SchemaKind::Type(Type::Array(a)), [i, ..]) if i == "items" => {
                name = format!("{name} item");
                (a.items.as_ref()?, 1)
            }
            _ => return None,
        };
        node = SchemaNode::Inner(next);
        rest = &rest[used..];
    }
    Some((node, name))
}
