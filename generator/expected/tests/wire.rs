//! What the generated clients put on the wire for the constructs real specs
//! use: parameters of every style, path segments mixing text and variables,
//! multipart bodies, forms with arrays, and credentials from
//! `securitySchemes`. Built requests are read as they would be sent; one
//! exchange per client goes over real HTTP to a listener on 127.0.0.1 that
//! keeps the bytes it received.

use std::io::{Read, Write};
use std::net::TcpListener;

use client_runtime::reqwest::Request;
use generator_expected::{
    degraded_operations, multipart, parameters, secrets, security, security_refs, tagged,
};

/// A listener that answers one request `204` and gives back its bytes.
fn one_exchange() -> (String, std::thread::JoinHandle<Vec<u8>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut received = Vec::new();
        let mut buffer = [0u8; 4096];
        loop {
            let n = stream.read(&mut buffer).unwrap();
            received.extend_from_slice(&buffer[..n]);
            let text = String::from_utf8_lossy(&received);
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                if received.len() >= end + 4 + length {
                    break;
                }
            }
            if n == 0 {
                break;
            }
        }
        stream
            .write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
            .unwrap();
        received
    });
    (base, handle)
}

fn header<'r>(request: &'r Request, name: &str) -> Option<&'r str> {
    request.headers().get(name).map(|v| v.to_str().unwrap())
}

#[test]
fn parameters_follow_their_style() {
    use parameters::types::{Color, Filter, Page};
    let client = parameters::Client::new("http://h/api").unwrap();
    let request = client
        .get_file()
        .id(7)
        .ids(vec![1, 2])
        .piped(vec!["a".into(), "b c".into()])
        .spaced(vec![Color::Red, Color::Green])
        .repeated(vec!["x".into(), "y".into()])
        .build()
        .unwrap()
        .into_request();
    assert_eq!(request.url().path(), "/api/files/7.json");
    assert_eq!(
        request.url().query(),
        Some("ids=1%2C2&piped=a%7Cb+c&spaced=red+green&repeated=x&repeated=y")
    );
    let mut filter = Filter::default();
    filter.name = Some("n".into());
    let request = client
        .list_things()
        .major(2)
        .minor(1)
        .filter(filter.clone())
        .page(Page::new(10))
        .where_(filter)
        .x_tags(vec!["a".into(), "b".into()])
        .x_page({
            let mut page = Page::new(3);
            page.limit = Some(5);
            page
        })
        .session("s;1")
        .prefs(vec!["dark".into(), "wide view".into()])
        .build()
        .unwrap()
        .into_request();
    assert_eq!(request.url().path(), "/api/v2.1/things");
    assert_eq!(
        request.url().query(),
        Some("filter%5Bname%5D=n&offset=10&where=%7B%22name%22%3A%22n%22%7D")
    );
    assert_eq!(header(&request, "x-tags"), Some("a,b"));
    assert_eq!(
        header(&request, "cookie"),
        Some("session=s%3B1; prefs=dark%2Cwide%20view")
    );
    assert!(request.headers()["cookie"].is_sensitive());
    // Property order follows serde_json's (sorted, or as written when the
    // workspace turns `preserve_order` on).
    let page = header(&request, "x-page").unwrap();
    assert!(
        page == "limit=5,offset=3" || page == "offset=3,limit=5",
        "{page}"
    );
    // Parameters named like build()'s own locals.
    let request = client
        .locals()
        .url("u/v")
        .request("r")
        .joined(vec!["p".into(), "q".into()])
        .values(vec!["v".into()])
        .build()
        .unwrap()
        .into_request();
    assert_eq!(request.url().path(), "/api/locals/u%2Fv");
    assert_eq!(
        request.url().query(),
        Some("request=r&joined=p%2Cq&values=v")
    );
    // A required parameter left unset is an error, never a panic.
    assert!(client.get_file().id(1).build().is_err());
}

#[tokio::test]
async fn multipart_and_forms_on_the_wire() {
    use client_runtime::FilePart;
    let (base, listener) = one_exchange();
    let client = multipart::Client::new(&base).unwrap();
    let mut body = multipart::types::UploadBody::new(
        "Holiday".into(),
        FilePart::new(&b"\x89PNG"[..])
            .file_name("a.png")
            .content_type("image/png"),
    );
    body.labels = Some(vec!["sea".into(), "sun".into()]);
    body.count = Some(2);
    let mut meta = multipart::types::Meta::default();
    meta.source = Some("phone".into());
    body.meta = Some(meta);
    let answer = client.upload().body(body).send().await.unwrap();
    assert!(matches!(answer, multipart::UploadResponse::Undocumented(_)));
    let received = String::from_utf8_lossy(&listener.join().unwrap()).into_owned();
    let boundary = received
        .split("multipart/form-data; boundary=")
        .nth(1)
        .and_then(|rest| rest.split("\r\n").next())
        .expect("a multipart content type")
        .to_owned();
    for part in [
        "Content-Disposition: form-data; name=\"title\"\r\n\r\nHoliday\r\n".to_owned(),
        "Content-Disposition: form-data; name=\"count\"\r\n\r\n2\r\n".to_owned(),
        "name=\"labels\"\r\n\r\nsea\r\n".to_owned(),
        "name=\"labels\"\r\n\r\nsun\r\n".to_owned(),
        "name=\"file\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n\u{fffd}PNG\r\n"
            .to_owned(),
        "name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"source\":\"phone\"}\r\n"
            .to_owned(),
        format!("--{boundary}--\r\n"),
    ] {
        assert!(received.contains(&part), "{part:?} missing from {received}");
    }
    let mut form = multipart::types::SearchBody::default();
    form.q = Some("x y".into());
    form.tags = Some(vec!["a".into(), "b".into()]);
    let mut meta = multipart::types::Meta::default();
    meta.source = Some("s".into());
    form.meta = Some(meta);
    let request = client.search().body(form).build().unwrap().into_request();
    let bytes = request.body().and_then(|b| b.as_bytes()).unwrap();
    assert_eq!(
        bytes,
        b"q=x+y&tags=a&tags=b&meta=%7B%22source%22%3A%22s%22%7D".as_slice()
    );
}

#[tokio::test]
async fn credentials_are_applied_as_each_operation_asks() {
    use client_runtime::{Basic, Secret};
    use security::Credentials;
    let none = security::Client::new("http://h").unwrap();
    let all = none.clone().with_credentials(Credentials {
        bearer_auth: Some(Secret::new("tok-1")),
        basic_auth: Some(Basic::new("ann", "pw")),
        api_key: Some(Secret::new("key-1")),
        app_id: Some(Secret::new("app-1")),
        session_cookie: Some(Secret::new("s-1")),
        oauth: Some(Secret::new("oauth-1")),
    });
    // The document's default: bearer.
    let request = all.get_me().build().unwrap().into_request();
    assert_eq!(header(&request, "authorization"), Some("Bearer tok-1"));
    assert!(request.headers()["authorization"].is_sensitive());
    // Alternatives: the first whose credentials are all set.
    let request = all.list_reports().build().unwrap().into_request();
    assert_eq!(header(&request, "x-api-key"), Some("key-1"));
    assert_eq!(request.url().query(), Some("app_id=app-1"));
    assert_eq!(header(&request, "authorization"), None);
    let only_basic = none.clone().with_credentials(Credentials {
        basic_auth: Some(Basic::new("ann", "pw")),
        app_id: Some(Secret::new("app-1")),
        ..Default::default()
    });
    let request = only_basic.list_reports().build().unwrap().into_request();
    assert_eq!(header(&request, "authorization"), Some("Basic YW5uOnB3"));
    assert_eq!(request.url().query(), None);
    // `security: []`: nothing sent, whatever is set.
    let request = all.health().build().unwrap().into_request();
    assert!(request.headers().is_empty());
    // Nothing set where one is needed: sent without (the server answers).
    let request = none.get_me().build().unwrap().into_request();
    assert_eq!(header(&request, "authorization"), None);
    // A cookie, on the wire; and no credential in any Debug.
    let (base, listener) = one_exchange();
    let client = security::Client::new(&base)
        .unwrap()
        .with_credentials(Credentials {
            session_cookie: Some(Secret::new("s-1")),
            ..Default::default()
        });
    assert!(!format!("{client:?}").contains("s-1"));
    client
        .refresh_session()
        .credentials("c")
        .send()
        .await
        .unwrap();
    let received = String::from_utf8_lossy(&listener.join().unwrap()).into_owned();
    assert!(received.contains("cookie: session=s-1\r\n"), "{received}");
    assert!(received.contains("?credentials=c "), "{received}");
    let debug = format!("{:?}", all.get_me().build().unwrap().request());
    assert!(!debug.contains("tok-1"), "{debug}");
}

/// Path parameters in `style: label` and `matrix`, of every shape, exploded
/// or not: each segment as OpenAPI 3.0's style table writes it.
#[test]
fn label_and_matrix_path_parameters_follow_the_style_table() {
    use generator_expected::path_styles::{Client, types::Point};
    let client = Client::new("http://127.0.0.1:9/api").unwrap();
    let point = Point::new(1, 2);
    let label = client
        .label()
        .id(5)
        .ids(vec!["a".into(), "b".into()])
        .idsx(vec!["a".into(), "b".into()])
        .point(point.clone())
        .pointx(point.clone())
        .build()
        .unwrap()
        .into_request();
    assert_eq!(
        label.url().path(),
        "/api/label/.5/.a,b/.a.b/.x,1,y,2/.x=1.y=2"
    );
    let matrix = client
        .matrix()
        .id("blue")
        .ids(vec![3, 4])
        .idsx(vec![3, 4])
        .point(point.clone())
        .pointx(point)
        .build()
        .unwrap()
        .into_request();
    assert_eq!(
        matrix.url().path(),
        "/api/matrix/;id=blue/;ids=3,4/;idsx=3;idsx=4/;point=x,1,y,2/;x=1;y=2"
    );
}

/// A `oneOf` whose members a constant property tells apart is one enum
/// tagged by that property: the tag goes out with each variant and is read
/// back wherever it stands in the object, as with the struct per member it
/// replaced; over HTTP too, both ways.
#[tokio::test]
async fn a_tagged_one_of_carries_its_tag_both_ways() {
    use client_runtime::{DecodeResponse, RawResponse};
    use serde_json::json;
    use tagged::types::{
        Digest, Expr, ExprLitArity, ExprNotArity, Level, Notice, Shape,
        ShapePolygonShapeCornersItem as Corner,
    };
    let shapes = [
        (Shape::Point, json!({"kind": "point"})),
        (
            Shape::Circle {
                radius: 1.5,
                fill_color: Some("red".into()),
            },
            json!({"kind": "circle", "radius": 1.5, "fillColor": "red"}),
        ),
        (
            Shape::Circle {
                radius: 2.0,
                fill_color: None,
            },
            json!({"kind": "circle", "radius": 2.0}),
        ),
        (
            Shape::PolygonShape {
                corners: vec![Corner::new(0, 1)],
                type_: Some("t".into()),
            },
            json!({"kind": "polygon-shape", "corners": [{"x": 0, "y": 1}], "type": "t"}),
        ),
    ];
    for (value, wire) in &shapes {
        assert_eq!(serde_json::to_value(value).unwrap(), *wire);
        assert_eq!(
            serde_json::from_value::<Shape>(wire.clone()).unwrap(),
            *value
        );
    }
    // The tag last, and a property no member declares: read as before.
    let read: Shape =
        serde_json::from_str(r#"{"radius": 3, "extra": true, "kind": "circle"}"#).unwrap();
    assert_eq!(
        read,
        Shape::Circle {
            radius: 3.0,
            fill_color: None
        }
    );
    let read: Shape = serde_json::from_str(r#"{"kind": "point", "radius": 1}"#).unwrap();
    assert_eq!(read, Shape::Point);
    // An unknown tag, no tag, or a member's required property missing.
    for bad in [
        r#"{"kind": "square"}"#,
        r#"{"radius": 1}"#,
        r#"{"kind": "circle"}"#,
    ] {
        assert!(serde_json::from_str::<Shape>(bad).is_err(), "{bad}");
    }
    // The discriminator's property is the tag; the other constant stays a field.
    let expr = Expr::Not {
        arity: ExprNotArity::Unary,
        arg: Box::new(Expr::Lit {
            arity: ExprLitArity::Nullary,
            value: 7,
        }),
    };
    let wire = json!({"op": "not", "arity": "unary", "arg": {"op": "lit", "arity": "nullary", "value": 7}});
    assert_eq!(serde_json::to_value(&expr).unwrap(), wire);
    assert_eq!(serde_json::from_value::<Expr>(wire).unwrap(), expr);
    // Tag values whose variant names collide are still told apart.
    assert_eq!(
        serde_json::from_value::<Notice>(json!({"at": "Self", "note": "n"})).unwrap(),
        Notice::Self2 { note: "n".into() }
    );
    assert_eq!(
        serde_json::to_value(Notice::Self_).unwrap(),
        json!({"at": "self"})
    );
    // One member: one variant. String enums: one enum of their values.
    assert_eq!(
        serde_json::to_value(Digest::Sha256 { value: "ab".into() }).unwrap(),
        json!({"type": "sha256", "value": "ab"})
    );
    assert_eq!(
        serde_json::from_value::<Level>(json!("mid")).unwrap(),
        Level::Mid
    );
    assert_eq!(Level::High.to_string(), "high");

    let (base, listener) = one_exchange();
    let client = tagged::Client::new(&base).unwrap();
    let (circle, circle_wire) = shapes[1].clone();
    let answer = client.draw().body(circle.clone()).send().await.unwrap();
    assert!(matches!(answer, tagged::DrawResponse::Undocumented(_)));
    let received = listener.join().unwrap();
    let text = String::from_utf8_lossy(&received);
    let (_, body) = text.split_once("\r\n\r\n").unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(body).unwrap(),
        circle_wire
    );
    let answer = tagged::DrawResponse::decode(RawResponse {
        status: 200,
        headers: Default::default(),
        body: circle_wire.to_string().into(),
    });
    assert!(
        matches!(&answer, tagged::DrawResponse::Ok(d) if d.body == circle),
        "{answer:?}"
    );
}

/// A listener that answers one request with `response` (whole, with its
/// head) and gives back the request's bytes.
fn one_answer(response: &'static str) -> (String, std::thread::JoinHandle<Vec<u8>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut received = Vec::new();
        let mut buffer = [0u8; 4096];
        while !String::from_utf8_lossy(&received).contains("\r\n\r\n") {
            let n = stream.read(&mut buffer).unwrap();
            if n == 0 {
                break;
            }
            received.extend_from_slice(&buffer[..n]);
        }
        stream.write_all(response.as_bytes()).unwrap();
        received
    });
    (base, handle)
}

#[tokio::test]
async fn format_password_never_prints_and_travels_plain() {
    use client_runtime::Secret;
    const BODY: &str =
        r#"{"user":"ada","token":"tok-7f3a9c","refresh":"ref-51d2e0","keys":["key-99b4a1"]}"#;
    const ANSWER: &str = concat!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-session-token: hdr-2c8e41\r\nconnection: close\r\ncontent-length: ",
        "80",
        "\r\n\r\n",
        r#"{"user":"ada","token":"tok-7f3a9c","refresh":"ref-51d2e0","keys":["key-99b4a1"]}"#
    );
    assert_eq!(BODY.len(), 80);
    let (base, listener) = one_answer(ANSWER);
    let client = secrets::Client::new(&base).unwrap();
    let login = secrets::types::Login::new("ada".into(), Secret::new("pw-0d6b17"));
    let answer = client.create_session().body(login).send().await.unwrap();
    let received = String::from_utf8_lossy(&listener.join().unwrap()).into_owned();
    // On the wire the password is its plain value.
    assert!(
        received.contains(r#"{"user":"ada","password":"pw-0d6b17"}"#),
        "{received}"
    );
    let printed = format!("{answer:?} {answer:#?}");
    for secret in ["tok-7f3a9c", "ref-51d2e0", "key-99b4a1", "hdr-2c8e41"] {
        assert!(!printed.contains(secret), "{secret} printed in {printed}");
    }
    assert!(printed.contains("ada"), "{printed}");
    assert!(printed.contains("[redacted]"), "{printed}");
    let secrets::CreateSessionResponse::Ok(decoded) = answer else {
        panic!("not Ok: {printed}");
    };
    let session = &decoded.body;
    assert_eq!(session.token.expose(), "tok-7f3a9c");
    assert_eq!(format!("{}", session.token), "[redacted]");
    assert_eq!(
        // Optional and nullable: present with a value is `Some(Some(_))`.
        session
            .refresh
            .as_ref()
            .and_then(Option::as_ref)
            .map(Secret::expose),
        Some("ref-51d2e0")
    );
    assert_eq!(
        decoded.headers.x_session_token.as_ref().map(Secret::expose),
        Some("hdr-2c8e41")
    );
    // serde writes back what it read.
    assert_eq!(serde_json::to_string(session).unwrap(), BODY);
    // A multipart part holds the plain value too.
    let mut upload = secrets::types::UploadKeyBody::new("ci".into(), Secret::new("mp-3e1f"));
    upload.spares = Some(vec![Secret::new("mp-spare")]);
    let request = client
        .upload_key()
        .body(upload)
        .build()
        .unwrap()
        .into_request();
    let sent =
        String::from_utf8_lossy(request.body().and_then(|b| b.as_bytes()).unwrap()).into_owned();
    assert!(sent.contains("name=\"key\"\r\n\r\nmp-3e1f\r\n"), "{sent}");
    assert!(
        sent.contains("name=\"spares\"\r\n\r\nmp-spare\r\n"),
        "{sent}"
    );
}

/// Security schemes given by `$ref` (to a shared file, to another scheme of
/// the document, to a whole file) are applied like inline ones: each
/// operation sends the credential it requires, over real HTTP too.
#[tokio::test]
async fn schemes_given_by_reference_send_their_credentials() {
    use client_runtime::{Basic, Secret};
    use security_refs::Credentials;
    let client = security_refs::Client::new("http://h")
        .unwrap()
        .with_credentials(Credentials {
            api_key: Some(Secret::new("key-1")),
            basic: Some(Basic::new("ann", "pw")),
            audit_key: Some(Secret::new("audit-1")),
            ..Default::default()
        });
    let request = client.list_items().build().unwrap().into_request();
    assert_eq!(header(&request, "x-api-key"), Some("key-1"));
    // `basic` is a `$ref` to `plainBasic`, itself a `$ref` to the file.
    let request = client.delete_item().id("7").build().unwrap().into_request();
    assert_eq!(header(&request, "authorization"), Some("Basic YW5uOnB3"));
    let request = client.audit().build().unwrap().into_request();
    assert_eq!(request.url().query(), Some("audit_key=audit-1"));
    let (base, listener) = one_exchange();
    security_refs::Client::new(&base)
        .unwrap()
        .with_credentials(Credentials {
            api_key: Some(Secret::new("key-2")),
            ..Default::default()
        })
        .list_items()
        .send()
        .await
        .unwrap();
    let received = String::from_utf8_lossy(&listener.join().unwrap()).into_owned();
    assert!(received.contains("x-api-key: key-2\r\n"), "{received}");
}

/// Operations degraded rather than left out: RFC 6570 operators in path
/// templates are sent in the style they stand for, a `multipart/related`
/// body is the caller's bytes with its media type, and a header parameter
/// whose name cannot be sent is not sent while the rest are.
#[tokio::test]
async fn degraded_operations_can_still_be_called() {
    let client = degraded_operations::Client::new("http://h/api").unwrap();
    let request = client
        .create_report()
        .format("json")
        .x_trace("t-1")
        .body(b"--b\r\n\r\n--b--".to_vec())
        .build()
        .unwrap()
        .into_request();
    assert_eq!(request.url().path(), "/api/reports.json");
    assert_eq!(header(&request, "content-type"), Some("multipart/related"));
    assert_eq!(header(&request, "x-trace"), Some("t-1"));
    let request = client
        .get_matrix()
        .id(vec!["a".into(), "b".into()])
        .build()
        .unwrap()
        .into_request();
    assert_eq!(request.url().path(), "/api/matrix/;id=a;id=b");
    let request = client
        .get_many()
        .ids(vec![1, 2])
        .build()
        .unwrap()
        .into_request();
    assert_eq!(request.url().path(), "/api/many/1,2");
    let request = client
        .get_file()
        .rest("a b")
        .build()
        .unwrap()
        .into_request();
    assert_eq!(request.url().path(), "/api/files/a%20b");
    let (base, listener) = one_exchange();
    degraded_operations::Client::new(&base)
        .unwrap()
        .create_report()
        .format("csv")
        .body(b"raw".to_vec())
        .send()
        .await
        .unwrap();
    let received = String::from_utf8_lossy(&listener.join().unwrap()).into_owned();
    assert!(received.starts_with("POST /reports.csv "), "{received}");
    assert!(received.ends_with("\r\n\r\nraw"), "{received}");
}
