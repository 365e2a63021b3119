//! Additive spec changes break no code: the spec with an optional property
//! added to a response schema, an optional parameter, an optional header
//! every operation takes and a new operation is generated, and a
//! downstream crate that builds, matches and calls the bindings compiles
//! against both the old and the new output; with a *required* property
//! added instead, it does not (the check can fail). The generator's own
//! reading of the change (`generator::compat`, what `--check` prints)
//! agrees: additive, then breaking.
//!
//! Compiled by `rustc` against the runtime and serde built beside this test
//! (the generator's dev-dependencies), metadata only, as `cargo check`
//! does: no second build of any dependency.

mod support;

use std::process::{Command, Output};

use generator::compat::Change;
use serde_json::{Value, json};
use support::{dependencies, root, rustc};

/// Code a client team writes today: stubs built with `new`, fields set and
/// read, structs destructured with `..`, every answer matched, a request
/// built with its builder, `Defaults` with `..Default::default()`.
const DOWNSTREAM: &str = r#"
#![deny(warnings)]
use bindings::types::{
    AuthClaimsResult, AuthorizeResult, Component, ErrorResponse, Model, ProjectEnv,
    ValidationError, ValidationErrorResponse,
};
use bindings::{AuthorizeHeaders, AuthorizeResponse, Client, Defaults};

pub fn stub_authorize() -> AuthorizeResult {
    let component = Component::new("c".into(), "Users".into(), "users".into(), true);
    let model = Model::new("m".into(), Default::default());
    AuthorizeResult::new(200, true, ProjectEnv::Dev, component, model, "tok".into())
}

pub fn stub_claims() -> AuthClaimsResult {
    let mut claims = AuthClaimsResult::new(200, true, ProjectEnv::Live, stub_authorize().component);
    claims.model = Some(stub_authorize().model);
    claims
}

pub fn stub_errors() -> (ErrorResponse, ValidationErrorResponse) {
    let failure = ValidationError::new("pin".into(), "required".into(), "missing".into());
    (
        ErrorResponse::new(400, "bad".into(), "r-1".into(), false),
        ValidationErrorResponse::new(417, vec![failure], false),
    )
}

pub fn said(answer: &AuthorizeResponse) -> String {
    match answer {
        AuthorizeResponse::Ok(ok) => {
            let AuthorizeResult { token, component: Component { name, .. }, .. } = &ok.body;
            format!("{name}: {}", token.expose().len())
        }
        AuthorizeResponse::BadRequest(e)
        | AuthorizeResponse::Unauthorized(e)
        | AuthorizeResponse::NotFound(e)
        | AuthorizeResponse::PayloadTooLarge(e) => {
            let ErrorResponse { message, .. } = &e.body;
            message.clone()
        }
        AuthorizeResponse::ExpectationFailed(e) => e.body.errors.len().to_string(),
        AuthorizeResponse::Undocumented(raw) => raw.status.to_string(),
        AuthorizeResponse::Mismatch { reason, .. } => reason.clone(),
    }
}

pub fn project(headers: &AuthorizeHeaders) -> Option<&str> {
    headers.x_project_uuid.as_deref()
}

pub fn client() -> Result<Client, client_runtime::Error> {
    Ok(Client::new("http://127.0.0.1:9/v2/api")?.with_defaults(Defaults {
        x_client_id: Some("billing".into()),
        x_project_env: Some(ProjectEnv::Dev),
        ..Defaults::default()
    }))
}

pub async fn call(client: &Client) -> client_runtime::Result<AuthorizeResponse> {
    client.authorize().ref_("users").model_uuid("m").send().await
}
"#;

#[test]
fn additive_spec_changes_break_no_downstream_code() {
    let dir = root()
        .join("target")
        .join(format!("compat-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(root().join("spec/openapi.yaml")).unwrap();
    let base: Value = serde_yaml::from_str(&text).unwrap();
    let additive = additive(&base);
    let mut breaking = base.clone();
    breaking["components"]["schemas"]["AuthorizeResult"]["properties"]["expires_at"] =
        json!({"type": "string"});
    breaking["components"]["schemas"]["AuthorizeResult"]["required"]
        .as_array_mut()
        .unwrap()
        .push("expires_at".into());

    let externs = dependencies(&dir);
    let mut outputs = Vec::new();
    for (name, spec) in [
        ("base", &base),
        ("additive", &additive),
        ("breaking", &breaking),
    ] {
        let spec_path = dir.join(format!("{name}.json"));
        std::fs::write(&spec_path, serde_json::to_string_pretty(spec).unwrap()).unwrap();
        let code = generator::generate(&spec_path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let crate_dir = dir.join(name);
        std::fs::create_dir_all(&crate_dir).unwrap();
        std::fs::write(crate_dir.join("bindings.rs"), &code).unwrap();
        std::fs::write(crate_dir.join("downstream.rs"), DOWNSTREAM).unwrap();
        let built = rustc(&crate_dir, "bindings", "bindings.rs", &externs, &[]);
        assert!(
            built.status.success(),
            "{name}: the generated crate does not compile:\n{}",
            String::from_utf8_lossy(&built.stderr)
        );
        let rmeta = crate_dir.join("out/libbindings.rmeta");
        let bindings = [format!("--extern=bindings={}", rmeta.display())];
        let downstream = rustc(
            &crate_dir,
            "downstream",
            "downstream.rs",
            &externs,
            &bindings,
        );
        outputs.push((name, code, downstream));
    }
    let stderr = |output: &Output| String::from_utf8_lossy(&output.stderr).into_owned();
    for (name, _, downstream) in &outputs[..2] {
        assert!(
            downstream.status.success(),
            "{name}: downstream code does not compile:\n{}",
            stderr(downstream)
        );
    }
    let (_, _, broken) = &outputs[2];
    assert!(
        !broken.status.success() && stderr(broken).contains("downstream.rs:12:5: error[E0061]"),
        "a required field must break `AuthorizeResult::new`:\n{}",
        stderr(broken)
    );

    // The generator's reading of each change, as `--check` prints it.
    let base_code = &outputs[0].1;
    let change = generator::compat::classify(base_code, &outputs[1].1).unwrap();
    let Change::Additive(added) = &change else {
        panic!("{change:?}")
    };
    for needle in [
        "optional field `types::AuthorizeResult.expires_at` added",
        "optional field `types::ErrorResponse.details` added",
        "optional field `Defaults.x_request_trace` added",
        "`builder::Authorize::trace` added",
        "`Client::revoke_auth` added",
    ] {
        assert!(added.iter().any(|a| a == needle), "{needle}: {added:?}");
    }
    let change = generator::compat::classify(base_code, &outputs[2].1).unwrap();
    let Change::Breaking(reasons) = &change else {
        panic!("{change:?}")
    };
    assert!(
        reasons
            .iter()
            .any(|r| r == "required field `types::AuthorizeResult.expires_at` added"),
        "{reasons:?}"
    );
    let checked = Command::new(env!("CARGO_BIN_EXE_generator"))
        .arg(dir.join("additive.json"))
        .arg("--check")
        .arg(dir.join("base/bindings.rs"))
        .output()
        .unwrap();
    assert_eq!(checked.status.code(), Some(1));
    let said = stderr(&checked);
    assert!(
        said.contains("the change is additive") && said.contains("expires_at"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The spec with an optional property in a success body and in the error
/// envelope, an optional query parameter of Authorize, an optional header
/// of every operation, and a new operation.
fn additive(base: &Value) -> Value {
    let mut spec = base.clone();
    let schemas = &mut spec["components"]["schemas"];
    schemas["AuthorizeResult"]["properties"]["expires_at"] =
        json!({"type": "string", "description": "When the token expires."});
    schemas["ErrorResponse"]["properties"]["details"] = json!({"type": "string"});
    let path = &mut spec["paths"]["/component/{ref}/auth"];
    path["post"]["parameters"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "trace", "in": "query", "schema": {"type": "string"}}));
    path["parameters"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "X-Request-Trace", "in": "header", "schema": {"type": "string"}}));
    let parameters = path["parameters"].clone();
    spec["paths"]["/component/{ref}/auth/revoke"] = json!({
        "parameters": parameters,
        "post": {
            "operationId": "revokeAuth",
            "summary": "Revoke",
            "responses": {
                "204": {"description": "Revoked."},
                "400": {"$ref": "#/components/responses/BadRequest"}
            }
        }
    });
    spec
}
