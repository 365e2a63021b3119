//! Operations: their names, path segments, parameters merged from the path item, bodies and responses; the header parameters all of them share.

use super::*;

impl<'a> Lowerer<'a> {
    /// The operations, those that failed in this pass (unless `strict`,
    /// when the first failure is the error) and how many the document has.
    pub(super) fn operations(&mut self) -> Result<(Vec<Operation>, Vec<LeftOut>, usize)> {
        let mut operations = Vec::new();
        let mut failed = Vec::new();
        let mut index = 0;
        let mut methods_scope = Scope::new(CLIENT_METHODS);
        // A builder named `New` would have a constructor named like its type;
        // builders use the prelude's names (`Option`, `Some`, `Into`, ...),
        // which a builder of that name would shadow.
        let mut types_scope = Scope::new(&[
            "New", "Option", "Some", "None", "Result", "Ok", "Err", "String", "Into", "Vec", "Box",
        ]);
        // Where each operationId was first given, to name both when one is
        // given again.
        let mut ids: BTreeMap<&str, Pointer> = BTreeMap::new();
        let mut routes: BTreeMap<String, &str> = BTreeMap::new();
        for (path, item) in &self.doc.paths.paths {
            let at = Pointer::root().join("paths").join(path);
            match routes.get(&route_shape(path)) {
                Some(first) if *first != path.as_str() => {
                    let message = format!(
                        "the path template `{path}` differs from `{first}` only in its parameters' names, which OpenAPI does not allow: a server cannot tell them apart"
                    );
                    self.warn(
                        &at,
                        message,
                        "merge the two path items, or name the parameters alike",
                    );
                }
                Some(_) => {}
                None => {
                    routes.insert(route_shape(path), path.as_str());
                }
            }
            let item = match item {
                ReferenceOr::Item(item) => item,
                ReferenceOr::Reference { reference } => {
                    return Err(LowerError::new(
                        &at,
                        format!("the path item is a reference (`{reference}`)"),
                        "write the path item inline",
                    ));
                }
            };
            for (method, operation) in methods(item) {
                let at = at.join(method);
                index += 1;
                let label = match &operation.operation_id {
                    Some(id) => format!("`{id}` ({} {path})", method.to_uppercase()),
                    None => format!("{} {path}", method.to_uppercase()),
                };
                if let Some(left) = self.left_out.iter().find(|l| l.at == at) {
                    // As if it were not written, but named where it is.
                    let error = &left.error;
                    self.warnings.push(LowerError::new(
                        &error.pointer,
                        format!(
                            "the operation {label} is left out of the client: {}",
                            error.message
                        ),
                        format!("{} (--strict refuses the document instead)", error.hint),
                    ));
                    continue;
                }
                let id = operation
                    .operation_id
                    .clone()
                    .unwrap_or_else(|| format!("{method} {path}"));
                if let Some(id) = operation.operation_id.as_deref() {
                    match ids.get(id) {
                        Some(first) => {
                            let message = format!(
                                "the operationId `{id}` is given again (first at {first}); this operation's method takes another name"
                            );
                            self.warn(
                                &at.join("operationId"),
                                message,
                                "give every operation an operationId of its own",
                            );
                        }
                        None => {
                            ids.insert(id, at.join("operationId"));
                        }
                    }
                }
                let method_name = methods_scope.claim(&snake(&id));
                let type_name = types_scope.claim(&pascal(&id));
                // What one operation's failure may leave half set; the rest
                // of this pass goes on from where it was before it.
                let saved = (
                    self.in_progress.clone(),
                    self.pointed_in_progress.clone(),
                    self.exact.clone(),
                    self.all_of_depth,
                    self.files,
                );
                match self.operation(path, item, method, operation, &at, method_name, type_name) {
                    Ok(lowered) => operations.push(lowered),
                    Err(error) if self.strict => return Err(error),
                    Err(error) => {
                        (
                            self.in_progress,
                            self.pointed_in_progress,
                            self.exact,
                            self.all_of_depth,
                            self.files,
                        ) = saved;
                        failed.push(LeftOut {
                            at,
                            index: index - 1,
                            error,
                        });
                    }
                }
            }
        }
        Ok((operations, failed, index))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn operation(
        &mut self,
        path: &str,
        item: &PathItem,
        method: &str,
        operation: &SpecOperation,
        at: &Pointer,
        method_name: String,
        type_name: String,
    ) -> Result<Operation> {
        // Path-level parameters first; an operation's own one with the same
        // name and location replaces it.
        let mut params: Vec<Param> = Vec::new();
        let path_level = item.parameters.iter().enumerate().map(|(i, p)| {
            (
                p,
                Pointer::root()
                    .join("paths")
                    .join(path)
                    .join("parameters")
                    .join(i),
            )
        });
        let op_level = operation
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| (p, at.join("parameters").join(i)));
        let mut pointers: Vec<Pointer> = Vec::new();
        for (param, param_at) in path_level.chain(op_level) {
            let Some(lowered) = self.parameter(param, &param_at, &type_name)? else {
                continue;
            };
            match params
                .iter()
                .position(|p| p.name == lowered.name && p.location == lowered.location)
            {
                // Given twice in one list: invalid, and neither can be
                // told to win; the first is kept, the second named.
                Some(i) if same_list(&pointers[i], &param_at) => {
                    let message = format!(
                        "the parameter `{}` ({}) is given twice in one list (first at {}); this one is left out",
                        lowered.name,
                        format!("{:?}", lowered.location).to_lowercase(),
                        pointers[i]
                    );
                    self.warn(
                        &param_at,
                        message,
                        "give each parameter once per name and location",
                    );
                    self.count(|d| &mut d.parameters, &param_at);
                }
                Some(i) => {
                    params[i] = lowered;
                    pointers[i] = param_at;
                }
                None => {
                    params.push(lowered);
                    pointers.push(param_at);
                }
            }
        }
        // A path parameter the template does not name cannot be sent: it is
        // left out with a warning (a defect of one operation, which should
        // not cost the rest of the client).
        let named = template_names(path);
        let mut index = 0;
        while index < params.len() {
            let param = &params[index];
            if param.location == Location::Path && !named.contains(param.name.as_str()) {
                let message = format!(
                    "the path parameter `{}` does not appear in the path template `{path}`; it is left out",
                    param.name
                );
                let hint = format!(
                    "put `{{{}}}` in the path, or carry the value elsewhere (e.g. `in: query`)",
                    param.name
                );
                self.warn(&pointers[index], message, hint);
                params.remove(index);
                pointers.remove(index);
            } else {
                index += 1;
            }
        }
        let mut scope = Scope::new(BUILDER_NAMES);
        for param in &mut params {
            param.rust_name = scope.claim(&param.rust_name);
        }

        self.template_styles(path, &mut params);
        let segments = path_segments(path, &params, &pointers, at)?;

        let body = match &operation.request_body {
            None => None,
            Some(body) => Some(self.request_body(body, &at.join("requestBody"), &type_name)?),
        };

        let mut responses = Vec::new();
        let mut variants = Scope::new(&["Mismatch", "Undocumented", "Default"]);
        for (status, response) in &operation.responses.responses {
            let response_at = at.join("responses").join(status);
            let (status, variant) = match status {
                StatusCode::Code(code) => (Status::Code(*code), status_variant(*code)),
                StatusCode::Range(hundreds) => (Status::Range(*hundreds), range_variant(*hundreds)),
            };
            let variant = variants.claim(&variant);
            responses.push(self.response(response, status, variant, &response_at, &type_name)?);
        }
        let default_response = match &operation.responses.default {
            None => None,
            Some(response) => Some(self.response(
                response,
                Status::Default,
                "Default".into(),
                &at.join("responses").join("default"),
                &type_name,
            )?),
        };

        let security = self.operation_security(operation, at)?;
        Ok(Operation {
            security,
            method_name,
            type_name,
            http_method: method.to_uppercase(),
            path: segments,
            path_template: path.to_owned(),
            tags: operation.tags.clone(),
            summary: operation.summary.clone(),
            description: operation.description.clone(),
            params,
            body,
            responses,
            default_response,
        })
    }
}

pub(super) fn methods(item: &PathItem) -> impl Iterator<Item = (&'static str, &SpecOperation)> {
    [
        ("get", &item.get),
        ("put", &item.put),
        ("post", &item.post),
        ("delete", &item.delete),
        ("options", &item.options),
        ("head", &item.head),
        ("patch", &item.patch),
        ("trace", &item.trace),
    ]
    .into_iter()
    .filter_map(|(method, op)| op.as_ref().map(|op| (method, op)))
}

/// `4XX` → `ClientError`, and so on for each class of statuses.
pub(super) fn range_variant(hundreds: u16) -> String {
    match hundreds {
        1 => "Informational",
        2 => "Success",
        3 => "Redirection",
        4 => "ClientError",
        _ => "ServerError",
    }
    .to_owned()
}

/// `OK` → `Ok`, `Expectation Failed` → `ExpectationFailed`; a status without a
/// standard reason → `Status499`.
pub(super) fn status_variant(code: u16) -> String {
    http::StatusCode::from_u16(code)
        .ok()
        .and_then(|s| s.canonical_reason())
        .map(|reason| pascal(&reason.replace(['-', '\''], " ")))
        .unwrap_or_else(|| format!("Status{code}"))
}

pub(super) fn path_segments(
    path: &str,
    params: &[Param],
    pointers: &[Pointer],
    at: &Pointer,
) -> Result<Vec<PathSegment>> {
    let mut segments = Vec::new();
    let mut used = BTreeSet::new();
    let lookup = |name: &str, used: &mut BTreeSet<usize>| {
        let Some(index) = params
            .iter()
            .position(|p| p.location == Location::Path && p.name == name)
        else {
            return Err(LowerError::new(
                &Pointer::root().join("paths").join(path),
                format!(
                    "the path template `{path}` uses `{{{name}}}`, but no path parameter of `{}` is named `{name}`",
                    at.segments().last().map_or("", String::as_str)
                ),
                format!("declare a parameter `{name}` with `in: path` for this operation"),
            ));
        };
        used.insert(index);
        Ok(PathSegment::Param(index))
    };
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        // Text and `{variables}` in turn: `{id}.json`, `v{major}.{minor}`.
        let mut pieces = Vec::new();
        let mut rest = segment;
        while !rest.is_empty() {
            match (rest.find('{'), rest.find('}')) {
                (Some(0), Some(close)) => {
                    pieces.push(lookup(template_variable(&rest[1..close]).0, &mut used)?);
                    rest = &rest[close + 1..];
                }
                (Some(open), _) if open > 0 => {
                    pieces.push(PathSegment::Literal(rest[..open].to_owned()));
                    rest = &rest[open..];
                }
                (None, None) => {
                    pieces.push(PathSegment::Literal(rest.to_owned()));
                    rest = "";
                }
                _ => {
                    return Err(LowerError::new(
                        at,
                        format!("the path segment `{segment}` has an unmatched `{{` or `}}`"),
                        "write each path variable as `{name}`",
                    ));
                }
            }
        }
        segments.push(match <[PathSegment; 1]>::try_from(pieces) {
            Ok([one]) => one,
            Err(pieces) => PathSegment::Mixed(pieces),
        });
    }
    for (index, param) in params.iter().enumerate() {
        if param.location == Location::Path && !used.contains(&index) {
            return Err(LowerError::new(
                &pointers[index],
                format!(
                    "the path parameter `{}` does not appear in the path template `{path}`",
                    param.name
                ),
                format!(
                    "put `{{{}}}` in the path, or carry the value elsewhere (e.g. `in: query`)",
                    param.name
                ),
            ));
        }
    }
    Ok(segments)
}

/// The names of the `{variables}` of a path template.
fn template_names(path: &str) -> BTreeSet<&str> {
    template_variables(path)
        .into_iter()
        .map(|(name, _, _)| name)
        .collect()
}

/// The `{variables}` of a path template: name, RFC 6570 operator (`.`,
/// `;`, ... which OpenAPI does not allow, but documents write) and whether
/// it is exploded (`*`).
pub(super) fn template_variables(path: &str) -> Vec<(&str, Option<char>, bool)> {
    let mut variables = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        variables.push(template_variable(&rest[open + 1..open + close]));
        rest = &rest[open + close + 1..];
    }
    variables
}

/// One variable's text (between the braces): its name, operator, explode.
pub(super) fn template_variable(text: &str) -> (&str, Option<char>, bool) {
    let (operator, rest) = match text.chars().next() {
        Some(c @ ('.' | ';' | '+' | '#' | '/' | '?' | '&')) => (Some(c), &text[1..]),
        _ => (None, text),
    };
    match rest.strip_suffix('*') {
        Some(name) => (name, operator, true),
        None => (rest, operator, false),
    }
}

/// Whether two parameters are in the same `parameters` list.
fn same_list(a: &Pointer, b: &Pointer) -> bool {
    a.parent() == b.parent()
}

/// `/a/{id}` → `/a/{}`: templates that differ only in their variables'
/// names are one route to a server.
pub(super) fn route_shape(path: &str) -> String {
    let mut shape = String::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        shape.push_str(&rest[..open]);
        shape.push_str("{}");
        rest = &rest[open + close + 1..];
    }
    shape.push_str(rest);
    shape
}

impl Lowerer<'_> {
    /// A template variable written with an RFC 6570 operator (`{.fmt}`,
    /// `{;id*}`, `{ids*}`) is sent in the style it stands for (label,
    /// matrix, simple; exploded with `*`), with a warning; one with an
    /// operator no OpenAPI style stands for (`{+x}`, `{?x}`) is sent as
    /// one string the caller supplies.
    fn template_styles(&mut self, path: &str, params: &mut [Param]) {
        let at = Pointer::root().join("paths").join(path);
        for (name, operator, explode) in template_variables(path) {
            if operator.is_none() && !explode {
                continue;
            }
            let Some(param) = params
                .iter_mut()
                .find(|p| p.location == Location::Path && p.name == name)
            else {
                continue;
            };
            let written = format!(
                "{{{}{name}{}}}",
                operator.map(String::from).unwrap_or_default(),
                if explode { "*" } else { "" }
            );
            let (style, what) = match operator {
                Some('.') => (Some(PathStyle::Label { explode }), "the label style"),
                Some(';') => (Some(PathStyle::Matrix { explode }), "the matrix style"),
                None => (None, "the simple style"),
                Some(_) => {
                    param.ty = TypeRef::String;
                    param.style = ParamStyle::Scalar;
                    param.path_style = None;
                    self.count(|d| &mut d.parameters, &at);
                    self.warn(
                        &at,
                        format!("the path template writes `{written}`, an RFC 6570 expansion no OpenAPI style stands for; `{name}` is sent as one string the caller supplies"),
                        format!("write `{{{name}}}` and say how it is sent with `style`"),
                    );
                    continue;
                }
            };
            param.path_style = style;
            if explode {
                param.style = self.parameter_style(&param.ty, Some(true), None);
            }
            self.warn(
                &at,
                format!("the path template writes `{written}`, an RFC 6570 operator OpenAPI does not allow; `{name}` is sent in {what}{}, which it stands for", if explode { " (exploded)" } else { "" }),
                format!("write `{{{name}}}` and say how it is sent with `style` and `explode`"),
            );
        }
    }
}

/// Header parameters that every operation takes, with the same type.
pub(super) fn shared_headers(operations: &[Operation]) -> Vec<Param> {
    let Some((first, rest)) = operations.split_first() else {
        return Vec::new();
    };
    first
        .params
        .iter()
        .filter(|p| p.location == Location::Header)
        .filter(|p| {
            rest.iter().all(|op| {
                op.params.iter().any(|q| {
                    q.location == Location::Header
                        && q.name == p.name
                        && q.ty == p.ty
                        && q.secret == p.secret
                        && q.rust_name == p.rust_name
                })
            })
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_variables_name_their_operator() {
        assert_eq!(template_variable("id"), ("id", None, false));
        assert_eq!(template_variable(".fmt"), ("fmt", Some('.'), false));
        assert_eq!(template_variable(";id*"), ("id", Some(';'), true));
        assert_eq!(template_variable("ids*"), ("ids", None, true));
        assert_eq!(template_variable("+rest"), ("rest", Some('+'), false));
    }

    #[test]
    fn routes_differ_by_more_than_names() {
        assert_eq!(route_shape("/a/{id}"), route_shape("/a/{name}"));
        assert_ne!(route_shape("/a/{id}"), route_shape("/a/{id}.json"));
        assert_eq!(route_shape("/v{major}.{minor}"), "/v{}.{}");
    }
}
