//! The one path of the interface, `/v2/api/component/{ref}/auth`, and its two
//! methods. Routing is by hand: the raw (still percent-encoded) `ref` is
//! needed, and a path fault moves the prefix.

use hyper::Method;

use crate::behaviour::Route;
use crate::envelope::Failure;

/// The two operations of the interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operation {
    /// GET: the model that claimed the authentication.
    AuthClaims,
    /// POST: request authorization, issuing a token.
    Authorize,
}

/// Matches a request line: the operation and the raw `ref` segment, or the
/// 404 / 405 answer.
pub(crate) fn route<'a>(
    method: &Method,
    path: &'a str,
    rules: &Route,
) -> Result<(Operation, &'a str), Failure> {
    let raw_ref = path
        .strip_prefix(rules.prefix)
        .and_then(|p| p.strip_prefix("/component/"))
        .and_then(|p| p.strip_suffix("/auth"))
        .filter(|r| !r.contains('/'))
        .ok_or_else(|| {
            Failure::not_found("no such path; the interface is /v2/api/component/{ref}/auth")
        })?;
    let operation = match *method {
        Method::GET if rules.get_rejected => return Err(Failure::method_not_allowed("POST")),
        Method::POST if rules.post_rejected => return Err(Failure::method_not_allowed("GET")),
        Method::GET => Operation::AuthClaims,
        Method::POST => Operation::Authorize,
        _ => return Err(Failure::method_not_allowed("GET, POST")),
    };
    Ok((operation, raw_ref))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Fault;

    fn correct() -> Route {
        Route::default()
    }

    #[test]
    fn matches_the_interface_path_only() {
        let ok = route(&Method::GET, "/v2/api/component/users/auth", &correct());
        assert!(matches!(ok, Ok((Operation::AuthClaims, "users"))));
        let ok = route(
            &Method::POST,
            "/v2/api/component/Caf%C3%A9/auth",
            &correct(),
        );
        assert!(matches!(ok, Ok((Operation::Authorize, "Caf%C3%A9"))));
        for path in [
            "/",
            "/v2/api/component/users",
            "/v2/api/component/a/b/auth",
            "/component/users/auth",
        ] {
            assert!(route(&Method::GET, path, &correct()).is_err(), "{path}");
        }
        let put = route(&Method::PUT, "/v2/api/component/users/auth", &correct());
        assert!(matches!(
            put,
            Err(Failure::Error {
                header: Some((ref name, "GET, POST")),
                ..
            }) if name == hyper::header::ALLOW
        ));
    }

    #[test]
    fn path_faults_move_the_prefix() {
        let bare = &Fault::UnversionedPath.behaviour().route;
        assert!(route(&Method::GET, "/component/users/auth", bare).is_ok());
        assert!(route(&Method::GET, "/v2/api/component/users/auth", bare).is_err());
        let v1 = &Fault::WrongVersionPath.behaviour().route;
        assert!(route(&Method::GET, "/v1/api/component/users/auth", v1).is_ok());
    }
}
