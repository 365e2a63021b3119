//! The one path of the interface, `/v2/api/component/{ref}/auth`, and its two
//! methods. Routing is by hand: the raw (still percent-encoded) `ref` is
//! needed, and a path fault moves the prefix.

use hyper::Method;

use crate::envelope::Failure;
use crate::fault::Fault;

/// The two operations of the interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operation {
    /// GET: the model that claimed the authentication.
    AuthClaims,
    /// POST: request authorization, issuing a token.
    Authorize,
}

/// The version prefix the interface is served under (section 9).
const PREFIX: &str = "/v2/api";

/// Matches a request line: the operation and the raw `ref` segment, or the
/// 404 / 405 answer.
pub(crate) fn route<'a>(
    method: &Method,
    path: &'a str,
    fault: Option<Fault>,
) -> Result<(Operation, &'a str), Failure> {
    let prefix = match fault {
        Some(Fault::UnversionedPath) => "",
        Some(Fault::WrongVersionPath) => "/v1/api",
        _ => PREFIX,
    };
    let raw_ref = path
        .strip_prefix(prefix)
        .and_then(|p| p.strip_prefix("/component/"))
        .and_then(|p| p.strip_suffix("/auth"))
        .filter(|r| !r.contains('/'))
        .ok_or_else(|| {
            Failure::not_found("no such path; the interface is /v2/api/component/{ref}/auth")
        })?;
    let operation = match (method, fault) {
        (&Method::GET, Some(Fault::ClaimsMethodRejected)) => {
            return Err(Failure::method_not_allowed("POST"));
        }
        (&Method::POST, Some(Fault::AuthorizeMethodRejected)) => {
            return Err(Failure::method_not_allowed("GET"));
        }
        (&Method::GET, _) => Operation::AuthClaims,
        (&Method::POST, _) => Operation::Authorize,
        _ => return Err(Failure::method_not_allowed("GET, POST")),
    };
    Ok((operation, raw_ref))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_interface_path_only() {
        let ok = route(&Method::GET, "/v2/api/component/users/auth", None);
        assert!(matches!(ok, Ok((Operation::AuthClaims, "users"))));
        let ok = route(&Method::POST, "/v2/api/component/Caf%C3%A9/auth", None);
        assert!(matches!(ok, Ok((Operation::Authorize, "Caf%C3%A9"))));
        for path in [
            "/",
            "/v2/api/component/users",
            "/v2/api/component/a/b/auth",
            "/component/users/auth",
        ] {
            assert!(route(&Method::GET, path, None).is_err(), "{path}");
        }
        let put = route(&Method::PUT, "/v2/api/component/users/auth", None);
        assert!(matches!(
            put,
            Err(Failure::Error {
                allow: Some("GET, POST"),
                ..
            })
        ));
    }

    #[test]
    fn path_faults_move_the_prefix() {
        let bare = Some(Fault::UnversionedPath);
        assert!(route(&Method::GET, "/component/users/auth", bare).is_ok());
        assert!(route(&Method::GET, "/v2/api/component/users/auth", bare).is_err());
        let v1 = Some(Fault::WrongVersionPath);
        assert!(route(&Method::GET, "/v1/api/component/users/auth", v1).is_ok());
    }
}
