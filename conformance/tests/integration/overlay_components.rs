//! Bindings that fit every component: the reference server with variants
//! that answer successes in a shape of their own (`{status, data}`, the
//! model's fields under `data.model.fields`, different for each of its
//! three components) and read modelUuid from a header. `conformance
//! choices --overlay` infers the success shapes from every component's
//! answers; the generator lays the overlay over the spec; the bindings,
//! compiled into a program, call each component's Authorize and then its
//! Auth Claims with the token issued, and every answer decodes as a typed
//! `Ok`: the issued token a `Secret`, the model's fields a map holding the
//! component's own field.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use conformance_model::profile::Profile;
use reference_server::{Server, ServerOptions, Variant};

use crate::independent::{TempDir, built_externs};

const PROFILE: &str = include_str!("../../profiles/reference.yaml");

/// The program that calls every component: Authorize, then Auth Claims
/// with the token it issued, each answer a typed `Ok`.
fn program(url: &str, profile: &Profile) -> String {
    let mut calls = String::new();
    for c in &profile.components {
        let a = c
            .authorize
            .as_ref()
            .expect("every component takes Authorize");
        let body = serde_json::to_string(&a.valid_body).expect("JSON");
        let field = a.valid_body.keys().next().cloned().expect("a field");
        let token = c
            .auth_token
            .as_ref()
            .map(|t| {
                format!(
                    ".x_auth_token(client_runtime::Secret::new({:?}.to_owned()))",
                    t.expose()
                )
            })
            .unwrap_or_default();
        calls.push_str(&format!(
            r#"
        let body: bindings::types::AuthFields = client_runtime::serde_json::from_str({body:?}).unwrap();
        let answer = client.authorize().ref_({name:?}).x_model_uuid({model:?}){token}.body(body.clone()).send().await.unwrap();
        let AuthorizeResponse::Ok(ok) = &answer else {{ panic!("Authorize {name}: {{answer:?}}") }};
        let issued: &client_runtime::Secret = &ok.body.data.token;
        assert!(ok.body.data.model.fields.contains_key({field:?}), "{name}: {{answer:?}}");
        let answer = client.auth_claims().ref_({name:?}).x_auth_token(issued.clone()).body(body).send().await.unwrap();
        let AuthClaimsResponse::Ok(ok) = &answer else {{ panic!("Auth Claims {name}: {{answer:?}}") }};
        assert!(ok.body.data.model.fields.contains_key({field:?}), "{name}: {{answer:?}}");
        println!("{name}: Authorize Ok, Auth Claims Ok");
"#,
            name = c.name,
            model = a.model_uuid,
        ));
    }
    format!(
        r#"
#![deny(warnings)]
#[allow(dead_code, clippy::all)]
mod bindings;
use bindings::{{AuthClaimsResponse, AuthorizeResponse, Client, Defaults}};

fn main() {{
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {{
        let mut defaults = Defaults::default();
        defaults.x_client_id = Some({client_id:?}.into());
        defaults.x_client_secret = Some({secret:?}.into());
        let client = Client::new("{url}/v2/api").unwrap().with_defaults(defaults);
        {calls}
    }});
}}
"#,
        client_id = profile.client_id,
        secret = profile.client_secret.expose(),
    )
}

#[test]
fn bindings_from_the_overlay_decode_every_components_answers() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let server = runtime
        .block_on(Server::start(ServerOptions {
            variants: vec![Variant::WrappedSuccess, Variant::ModelUuidHeader],
            ..ServerOptions::default()
        }))
        .expect("the reference server starts");
    let url = server.base_url();
    let dir = TempDir::new("overlay-components");
    // The shipped profile, its choices left for `choices` to observe.
    let text = PROFILE
        .split("\nchoices:")
        .next()
        .expect("the profile")
        .replace(
            "base_url: http://127.0.0.1:8080",
            &format!("base_url: {url}"),
        );
    let profile_file = dir.0.join("profile.yaml");
    fs::write(&profile_file, &text).expect("write the profile");
    let profile = Profile::from_yaml_str(&text, "profile.yaml", &|_| None).expect("the profile");
    assert!(profile.components.len() >= 3);
    let overlay = dir.0.join("server.overlay.yaml");
    let choices = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(["choices", "--profile"])
        .arg(&profile_file)
        .arg("--overlay")
        .arg(&overlay)
        .stdin(Stdio::null())
        .output()
        .expect("run conformance choices");
    assert!(
        choices.status.success(),
        "conformance choices --overlay: {}",
        String::from_utf8_lossy(&choices.stderr)
    );
    let written = fs::read_to_string(&overlay).expect("the overlay is written");
    assert!(written.contains("additionalProperties"), "{written}");
    assert!(!written.contains("correct-horse") && !written.contains("demo-secret"));
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/openapi.yaml");
    let options = generator::Options {
        overlays: vec![overlay.clone()],
        ..Default::default()
    };
    let code = generator::generate_with_options(&spec, &options)
        .unwrap_or_else(|e| panic!("the generator refused the overlay: {e}\n{written}"))
        .code;
    fs::write(dir.0.join("bindings.rs"), &code).expect("write the bindings");
    fs::write(dir.0.join("main.rs"), program(&url, &profile)).expect("write the program");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut tried = Vec::new();
    for externs in built_externs(&dir.0) {
        let built = Command::new(&rustc)
            .args([
                "--edition=2024",
                "--crate-type=bin",
                "--crate-name=every_component",
            ])
            .args(["-C", "debuginfo=0", "--error-format=short"])
            .arg("-o")
            .arg(dir.0.join("every_component"))
            .args(&externs)
            .arg("main.rs")
            .current_dir(&dir.0)
            .output()
            .expect("rustc runs");
        assert!(
            built.status.success(),
            "the client does not compile:\n{}\n{written}",
            String::from_utf8_lossy(&built.stderr)
        );
        let ran = Command::new(dir.0.join("every_component"))
            .output()
            .expect("run the client");
        let said = String::from_utf8_lossy(&ran.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&ran.stderr).into_owned();
        if stderr.contains("no reactor running") {
            tried.push(stderr);
            continue;
        }
        assert!(ran.status.success(), "{said}{stderr}\n{written}");
        for c in &profile.components {
            assert!(
                said.contains(&format!("{}: Authorize Ok, Auth Claims Ok", c.name)),
                "{said}"
            );
        }
        runtime.block_on(server.shutdown());
        return;
    }
    panic!("no build of tokio in the deps folder is reqwest's: {tried:?}");
}
