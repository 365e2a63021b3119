use super::*;
use crate::init::workflow;

fn users() -> ComponentAnswer {
    ComponentAnswer::parse(
            "{name: Users, tag: users, uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11, requires_auth: true, auth_token: \"${USERS_TOKEN}\", authorize: {model_uuid: 5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01, valid_body: {email: ada@example.com, password: \"${USERS_PASSWORD}\"}, second_model: {model_uuid: 7c3e8a34-8a47-4f0e-b3a6-2a9d2f9c7e02, valid_body: {email: bo@example.com, password: \"${USERS_PASSWORD_2}\"}}}, secret_fields: [password]}",
            "--component 1",
        )
        .unwrap()
}

#[test]
fn the_profile_reads_every_secret_from_the_environment() {
    let answers = Answers {
        base_url: "http://127.0.0.1:8080".into(),
        client_id: "ci".into(),
        client_secret_env: "CLIENT_SECRET".into(),
        components: vec![users()],
        action: "acme/component-auth-conformance@v0.1.0".into(),
        source: String::new(),
        start: "./start.sh".into(),
    };
    answers.check().unwrap();
    assert_eq!(
        answers.variables(),
        [
            "CLIENT_SECRET",
            "USERS_TOKEN",
            "USERS_PASSWORD",
            "USERS_PASSWORD_2"
        ]
    );
    let env = |name: &str| match name {
        "BASE_URL" => Some("http://127.0.0.1:8080".to_owned()),
        _ => Some(format!("value-of-{name}")),
    };
    let profile = conformance_model::profile::Profile::from_yaml_str(
        &answers.profile_yaml(None).unwrap(),
        "p.yaml",
        &env,
    )
    .unwrap();
    assert_eq!(profile.client_secret.expose(), "value-of-CLIENT_SECRET");
    assert_eq!(
        profile.components[0].auth_token.as_ref().unwrap().expose(),
        "value-of-USERS_TOKEN"
    );
    // The second model, which `--component` takes as a profile does.
    let second = profile.components[0].authorize.as_ref().unwrap();
    let second = second.second_model.as_ref().unwrap();
    assert_eq!(second.valid_body["password"], "value-of-USERS_PASSWORD_2");
    let workflow = answers
        .workflow_yaml(&workflow::Paths {
            profile: "conformance/profile.yaml",
            baseline: "conformance/known-failures.yaml",
            folder: ".",
            ca_cert: None,
        })
        .unwrap();
    assert!(
        workflow.contains("          USERS_PASSWORD: ${{ secrets.CONFORMANCE_USERS_PASSWORD }}\n")
    );
    let parsed: serde_yaml::Value = serde_yaml::from_str(&workflow).unwrap();
    assert!(parsed["jobs"]["conformance"].is_mapping());
}

#[test]
fn a_bad_answer_says_what_was_expected() {
    for (text, expected) in [
        ("{name: A, tag: a}", "missing field `uuid`"),
        ("{name: A, tag: a, uuid: x}", "`uuid` is not a uuid"),
        (
            "{name: A, tag: a, uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11, requires_auth: true}",
            "expected `auth_token: \"${VAR}\"`",
        ),
        (
            "{name: A, tag: a, uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11, authorize: {model_uuid: 5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01}}",
            "missing field `valid_body`",
        ),
        ("{name: A, colour: red}", "expected one of `name`, `tag`"),
        (
            "{name: A, tag: a, uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11, token_env: T}",
            "is now the profile's `auth_token",
        ),
        (
            "{name: A, tag: a, uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11, requires_auth: true, auth_token: tok-123}",
            "`auth_token` is written out",
        ),
    ] {
        let e = ComponentAnswer::parse(text, "--component 1").unwrap_err().0;
        assert!(
            e.starts_with("--component 1: ") && e.contains(expected),
            "{e}"
        );
    }
    let mut written = users();
    let body = &mut written.0.authorize.as_mut().unwrap().valid_body;
    body.insert("password".into(), "hunter2".into());
    body.insert("apiKey".into(), "k-123".into());
    body.insert("otp".into(), 123456.into());
    body.insert("email".into(), "a@b.c".into());
    let taken = written.protect();
    let names: Vec<&str> = taken.iter().map(|p| p.variable.as_str()).collect();
    assert_eq!(names, ["USERS_PASSWORD", "USERS_APIKEY", "USERS_OTP"]);
    let body = &written.0.authorize.as_ref().unwrap().valid_body;
    assert_eq!(body["otp"], "${USERS_OTP:json}");
    assert_eq!(body["email"], "a@b.c");
}

#[test]
fn credentials_are_known_by_their_usual_names() {
    for name in [
        "password",
        "passwd",
        "api_key",
        "apiKey",
        "API-KEY",
        "client_secret",
        "otp",
        "pin",
        "PIN",
        "Authorization",
        "x-api-key",
        "sessionToken",
        "user_password",
        "secret",
    ] {
        assert!(looks_like_credential(name), "{name}");
    }
    for name in [
        "email", "login", "account", "spinner", "shipping", "username", "name",
    ] {
        assert!(!looks_like_credential(name), "{name}");
    }
}

#[test]
fn an_action_reference_is_real_or_refused() {
    check_action("acme/component-auth-conformance@v0.1.0").unwrap();
    check_action("acme/component-auth-conformance@0123456789abcdef0123456789abcdef01234567")
        .unwrap();
    for var in ["PATH", "LD_PRELOAD", "GITHUB_ENV", "CONFORMANCE_ARGS"] {
        assert!(reserved(var).is_some(), "{var}");
    }
    assert!(reserved("USERS_TOKEN").is_none());
    for bad in [
        "OWNER/component-auth-conformance@v0.1.0",
        "acme/component-auth-conformance",
        "acme@v1",
        "acme/x@v 1",
    ] {
        assert!(check_action(bad).is_err(), "{bad}");
    }
}
