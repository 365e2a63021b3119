//! `--overlay`: the spec with a server's choices laid over it. The Flask
//! server of the conformance tests answers Authorize with 201 and both
//! operations with bodies of its own shape (`fixtures/overlays/flask.yaml`
//! says so as an OpenAPI Overlay); the bindings generated with it type
//! those answers (`Created` with the token a `Secret`, `Ok` with the
//! claim), compile, and a client team's code that reads them compiles too.
//! A stale overlay is refused with a message naming its action.

mod support;

use support::{dependencies, root, rustc};

const CLIENT: &str = r#"
#![deny(warnings)]
use bindings::{AuthClaimsResponse, AuthorizeResponse};

pub fn token(answer: &AuthorizeResponse) -> Option<&str> {
    match answer {
        AuthorizeResponse::Created(created) => {
            let _: &bindings::types::Claim = &created.body.claim;
            Some(created.body.token.expose())
        }
        _ => None,
    }
}

pub fn claimed_by(answer: &AuthClaimsResponse) -> Option<&str> {
    match answer {
        AuthClaimsResponse::Ok(ok) if ok.body.ok => {
            ok.body.claim.as_ref().map(|claim| claim.model.label.as_str())
        }
        _ => None,
    }
}
"#;

fn generate(overlays: &[&str]) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_generator"));
    command.arg(root().join("spec/openapi.yaml"));
    for overlay in overlays {
        command.arg("--overlay").arg(overlay);
    }
    command.output().unwrap()
}

#[test]
fn an_overlay_gives_bindings_that_fit_the_server() {
    let overlay = root().join("generator/fixtures/overlays/flask.yaml");
    let overlay = overlay.to_str().unwrap();
    let output = generate(&[overlay]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let code = String::from_utf8(output.stdout).unwrap();
    let squeezed: String = code.split_whitespace().collect();
    for needle in [
        "pubtypeAuthorizeResponse=CreatedAnswers<",
        "Created(rt::Decoded<CreatedBody,()>)",
        "pubtoken:::client_runtime::Secret,",
        "pubclaim:::std::option::Option<Claim>,",
        "pubstructClaimModel{",
    ] {
        assert!(squeezed.contains(needle), "`{needle}` missing");
    }
    // The plain spec gives none of it.
    let plain = generator::generate(&root().join("spec/openapi.yaml")).unwrap();
    assert!(!plain.contains("CreatedAnswers") && !plain.contains("pub struct Claim "));
    // The same overlay, the same bytes.
    assert_eq!(generate(&[overlay]).stdout, code.as_bytes());

    let dir = root()
        .join("target")
        .join(format!("overlay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bindings.rs"), &code).unwrap();
    std::fs::write(dir.join("client.rs"), CLIENT).unwrap();
    let externs = dependencies(&dir);
    let built = rustc(&dir, "bindings", "bindings.rs", &externs, &[]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let rmeta = format!(
        "--extern=bindings={}",
        dir.join("out/libbindings.rmeta").display()
    );
    let client = rustc(&dir, "client", "client.rs", &externs, &[rmeta]);
    assert!(
        client.status.success(),
        "{}",
        String::from_utf8_lossy(&client.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stale_overlay_is_refused_naming_its_action() {
    let dir = root()
        .join("target")
        .join(format!("overlay-stale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stale = dir.join("stale.yaml");
    std::fs::write(
        &stale,
        "overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: $.components.schemas.Pet\n    update: {type: object}\n",
    )
    .unwrap();
    let output = generate(&[stale.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("stale.yaml") && stderr.contains("/actions/0/target"),
        "{stderr}"
    );
    assert!(stderr.contains("selects nothing"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
