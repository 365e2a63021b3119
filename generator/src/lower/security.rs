//! `securitySchemes` and each operation's `security`: which credentials the client holds and when each is applied.

use super::*;

impl<'a> Lowerer<'a> {
    /// The security schemes the client can apply, each with its field in
    /// `Credentials`; any other kind (`http` `digest`, say) is left out with
    /// a warning, and so are the requirements that name it.
    pub(super) fn security_schemes(&mut self) -> Vec<SecurityScheme> {
        let Some(components) = &self.doc.components else {
            return Vec::new();
        };
        let mut scope = Scope::default();
        let mut schemes = Vec::new();
        for (name, scheme) in &components.security_schemes {
            let at = Pointer::root()
                .join("components")
                .join("securitySchemes")
                .join(name);
            let ReferenceOr::Item(scheme) = scheme else {
                self.warn(
                    &at,
                    "a security scheme given by reference is not applied",
                    "write the scheme inline under `securitySchemes`",
                );
                continue;
            };
            let (kind, description) = match scheme {
                openapiv3::SecurityScheme::APIKey {
                    location,
                    name: key,
                    description,
                    ..
                } => {
                    let location = match location {
                        openapiv3::APIKeyLocation::Header => Location::Header,
                        openapiv3::APIKeyLocation::Query => Location::Query,
                        openapiv3::APIKeyLocation::Cookie => Location::Cookie,
                    };
                    let valid = match location {
                        Location::Header => http::HeaderName::from_bytes(key.as_bytes()).is_ok(),
                        Location::Cookie => {
                            !key.is_empty()
                                && key
                                    .bytes()
                                    .all(|b| b.is_ascii_graphic() && !b";=,\"".contains(&b))
                        }
                        _ => true,
                    };
                    if !valid {
                        self.warn(
                            &at.join("name"),
                            format!("the API key's name `{key}` cannot be sent in a {location:?}; the scheme is not applied"),
                            "use letters, digits and `-` only",
                        );
                        continue;
                    }
                    (
                        SchemeKind::ApiKey {
                            location,
                            name: key.clone(),
                        },
                        description,
                    )
                }
                openapiv3::SecurityScheme::HTTP {
                    scheme: http_scheme,
                    description,
                    ..
                } => match http_scheme.to_ascii_lowercase().as_str() {
                    "bearer" => (SchemeKind::Bearer, description),
                    "basic" => (SchemeKind::Basic, description),
                    "mutualtls" if scheme_is_mutual_tls(scheme) => {
                        // Nothing to send per request: the certificate is
                        // the transport's.
                        self.warn(
                            &at,
                            "mutual TLS is the transport's client certificate; nothing is sent per request",
                            "give the client a transport with the certificate (`Client::with_transport`)",
                        );
                        continue;
                    }
                    other => {
                        // Still a credential the client can send: the whole
                        // `Authorization` value, written by the caller.
                        self.warn(
                            &at.join("scheme"),
                            format!("the HTTP authentication scheme `{other}` is not written by this client; its credential is the whole `Authorization` header value, which the caller supplies (e.g. `{} ...`)", pascal(other)),
                            "use `bearer` or `basic` for a credential the client writes itself",
                        );
                        (
                            SchemeKind::ApiKey {
                                location: Location::Header,
                                name: "Authorization".into(),
                            },
                            description,
                        )
                    }
                },
                openapiv3::SecurityScheme::OAuth2 { description, .. }
                | openapiv3::SecurityScheme::OpenIDConnect { description, .. } => {
                    (SchemeKind::Bearer, description)
                }
            };
            schemes.push(SecurityScheme {
                name: name.clone(),
                rust_name: scope.claim(&snake(name)),
                kind,
                description: description.clone(),
            });
        }
        schemes
    }

    /// The operation's `security` (else the document's): alternatives of
    /// schemes the client applies; one naming a scheme it does not apply is
    /// left out, and a scheme that is not declared is ignored with a warning.
    pub(super) fn operation_security(
        &mut self,
        operation: &SpecOperation,
        at: &Pointer,
    ) -> Result<Vec<Vec<usize>>> {
        let (requirements, at) = match &operation.security {
            Some(requirements) => (requirements, at.join("security")),
            None => match &self.doc.security {
                Some(requirements) => (requirements, Pointer::root().join("security")),
                None => return Ok(Vec::new()),
            },
        };
        let declared = |name: &str| {
            self.doc
                .components
                .as_ref()
                .is_some_and(|c| c.security_schemes.contains_key(name))
        };
        let mut alternatives = Vec::new();
        'requirements: for (i, requirement) in requirements.iter().enumerate() {
            let mut schemes = Vec::new();
            for name in requirement.keys() {
                match self.schemes.iter().position(|s| s == name) {
                    Some(index) => schemes.push(index),
                    None if declared(name) => continue 'requirements,
                    None => {
                        // An undeclared scheme cannot be applied: it is
                        // ignored, and the rest of the requirement kept.
                        self.warn(
                            &at.join(i).join(name),
                            format!(
                                "the security requirement names `{name}`, which is not declared; it is ignored"
                            ),
                            format!("declare `{name}` under `components/securitySchemes`"),
                        );
                    }
                }
            }
            alternatives.push(schemes);
        }
        Ok(alternatives)
    }
}

/// Whether `scheme` stands for a 3.1 `type: mutualTLS` (see
/// [`crate::normalize`], which writes it so for `openapiv3`).
fn scheme_is_mutual_tls(scheme: &openapiv3::SecurityScheme) -> bool {
    matches!(scheme, openapiv3::SecurityScheme::HTTP { extensions, .. } if extensions.contains_key(crate::normalize::MUTUAL_TLS))
}
