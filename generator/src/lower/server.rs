//! The spec's first server: its URL template cut into text and variables.

use super::*;

impl<'a> Lowerer<'a> {
    pub(super) fn server(&mut self) -> Result<Option<Server>> {
        let Some(server) = self.doc.servers.first() else {
            return Ok(None);
        };
        let at = Pointer::root().join("servers").join(0);
        let mut variables: Vec<(String, String)> = Vec::new();
        let mut pieces = Vec::new();
        // `url` is the local that `server_url()` builds.
        let mut scope = Scope::new(&["url"]);
        let mut rest = server.url.as_str();
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}') else {
                return Err(LowerError::new(
                    &at.join("url"),
                    format!("the server URL `{}` has an unclosed `{{`", server.url),
                    "close the variable with `}`",
                ));
            };
            let name = &rest[open + 1..open + close];
            let declared = server
                .variables
                .as_ref()
                .is_some_and(|vars| vars.contains_key(name));
            if !declared {
                // Still a variable: `server_url()` takes it like the rest.
                self.warn(
                    &at.join("url"),
                    format!("the server URL uses the variable `{name}`, which is not declared; it is an argument of `server_url()` with no default"),
                    format!("declare `{name}` under `servers[0].variables`"),
                );
            }
            if open > 0 {
                pieces.push(UrlPiece::Literal(rest[..open].to_owned()));
            }
            let index = match variables.iter().position(|(n, _)| n == name) {
                Some(index) => index,
                None => {
                    variables.push((name.to_owned(), scope.claim(&snake(name))));
                    variables.len() - 1
                }
            };
            pieces.push(UrlPiece::Variable(index));
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            pieces.push(UrlPiece::Literal(rest.to_owned()));
        }
        Ok(Some(Server {
            url: server.url.clone(),
            description: server.description.clone(),
            variables,
            pieces,
        }))
    }
}
