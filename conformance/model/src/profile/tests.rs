use super::*;

const GOOD: &str = "\
base_url: http://127.0.0.1:8080
client_id: ${CID}
client_secret: ${CSECRET}
project_env: live
components:
  - name: Users
    tag: users
    uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11
    requires_auth: true
    auth_token: ${TOKEN}
    authorize:
      model_uuid: 5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01
      valid_body: { email: ada@example.com, password: \"${PW}\" }
      invalid_body: { email: 42 }
";

fn env(name: &str) -> Option<String> {
    match name {
        "CID" => Some("client".into()),
        "CSECRET" => Some("s3cret".into()),
        "TOKEN" => Some("tok".into()),
        "PW" => Some("correct-horse".into()),
        _ => None,
    }
}

fn parse(text: &str) -> Result<Profile, ProfileError> {
    Profile::from_yaml_str(text, "p.yaml", &env)
}

fn invalid(text: &str) -> (usize, String, String) {
    match parse(text) {
        Err(ProfileError::Invalid {
            line, key, message, ..
        }) => (line, key, message),
        other => panic!("expected an invalid profile, got {other:?}"),
    }
}

#[test]
fn parses_and_expands() {
    let p = parse(GOOD).expect("valid");
    assert_eq!(p.client_id, "client");
    assert_eq!(p.client_secret.expose(), "s3cret");
    assert_eq!(p.project_env, Some(ProjectEnv::Live));
    let c = &p.components[0];
    assert_eq!(c.auth_token.as_ref().map(Secret::expose), Some("tok"));
    let a = c.authorize.as_ref().expect("authorize");
    assert_eq!(a.valid_body["password"], "correct-horse");
    assert_eq!(
        a.invalid_body.as_ref().map(|b| b["email"].clone()),
        Some(42.into())
    );
    assert!(!format!("{p:?}").contains("s3cret"));
}

#[test]
fn every_value_from_the_environment_is_a_secret() {
    let p = parse(&GOOD.replace(
        "http://127.0.0.1:8080",
        "https://ops:pa%20ss@api.example.com",
    ))
    .expect("valid");
    let names: Vec<&str> = p.env.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["CID", "CSECRET", "PW", "TOKEN"]);
    let secrets = p.secrets();
    for s in ["client", "s3cret", "tok", "correct-horse", "pa%20ss"] {
        assert!(secrets.iter().any(|x| x == s), "{s} in {secrets:?}");
    }
    assert!(!p.to_string().contains("pa%20ss"), "{p}");
    assert!(p.to_string().contains("[redacted]"), "{p}");
    assert!(!format!("{p:?}").contains("correct-horse"));
}

#[test]
fn a_body_value_from_the_environment_can_be_a_number() {
    let text = GOOD.replace(
        "invalid_body: { email: 42 }",
        "invalid_body: { email: \"${PIN:json}\" }",
    );
    let env = |name: &str| match name {
        "PIN" => Some("8642".to_owned()),
        other => env(other),
    };
    let p = Profile::from_yaml_str(&text, "p.yaml", &env).expect("valid");
    let body = p.components[0]
        .authorize
        .as_ref()
        .and_then(|a| a.invalid_body.as_ref());
    assert_eq!(body.map(|b| b["email"].clone()), Some(8642.into()));
    assert!(p.secrets().iter().any(|s| s == "8642"));
    let bad = |name: &str| match name {
        "PIN" => Some("not json".to_owned()),
        other => env(other),
    };
    match Profile::from_yaml_str(&text, "p.yaml", &bad) {
        Err(ProfileError::Invalid { key, message, .. }) => {
            assert!(key.contains("invalid_body"), "{key}");
            assert!(
                message.contains("`PIN` does not hold a JSON value"),
                "{message}"
            );
            assert!(
                !message.contains("not json"),
                "the value is not repeated: {message}"
            );
        }
        other => panic!("expected an invalid profile, got {other:?}"),
    }
}

#[test]
fn secret_fields_and_an_empty_secret() {
    let p = parse(&GOOD.replace(
        "    auth_token: ${TOKEN}\n",
        "    auth_token: ${TOKEN}\n    secret_fields: [email]\n",
    ))
    .expect("valid");
    assert!(p.components[0].is_secret_field("Email"));
    assert!(!p.components[0].is_secret_field("password"));
    let (line, key, message) =
        invalid(&GOOD.replace("client_secret: ${CSECRET}", "client_secret: \"\""));
    assert_eq!((line, key.as_str()), (3, "client_secret"));
    assert!(message.contains("empty"), "{message}");
}

#[test]
fn unset_variable_names_key_and_line() {
    let text = GOOD.replace("${TOKEN}", "${NOT_SET_ANYWHERE}");
    let (line, key, message) = invalid(&text);
    assert_eq!(line, 10);
    assert_eq!(key, "components[0].auth_token");
    assert!(message.contains("NOT_SET_ANYWHERE"), "{message}");
}

#[test]
fn non_uuid_names_key_and_line() {
    let text = GOOD.replace("5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01", "not-a-uuid");
    let (line, key, message) = invalid(&text);
    assert_eq!(line, 12);
    assert!(key.ends_with("model_uuid"), "{key}");
    assert!(message.contains("not a uuid"));
}

#[test]
fn missing_key_is_named() {
    let text = GOOD.replace("    tag: users\n", "");
    let (line, key, _) = invalid(&text);
    assert_eq!(key, "components[0].tag");
    assert_eq!(line, 6);
    let text = GOOD.replace("client_id: ${CID}\n", "");
    let (_, key, _) = invalid(&text);
    assert_eq!(key, "client_id");
}

#[test]
fn other_mistakes() {
    let (_, key, _) = invalid(&GOOD.replace("project_env: live", "project_env: prod"));
    assert_eq!(key, "project_env");
    let (line, key, _) =
        invalid(&GOOD.replace("    tag: users\n", "    tag: users\n    colour: red\n"));
    assert_eq!((line, key.as_str()), (8, "components[0].colour"));
    let (_, key, message) = invalid(&GOOD.replace("    auth_token: ${TOKEN}\n", ""));
    assert!(message.contains("auth_token"), "{key}: {message}");
    let (_, key, _) = invalid(&GOOD.replace("http://127.0.0.1:8080", "ftp://x"));
    assert_eq!(key, "base_url");
    assert!(matches!(
        parse("base_url: [\n"),
        Err(ProfileError::Invalid { .. } | ProfileError::Syntax { .. })
    ));
}
