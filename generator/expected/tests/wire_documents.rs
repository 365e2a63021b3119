//! Issue 47, on the wire: what the generated clients send for the shapes
//! the largest public API descriptions use (Stripe's form encodings and
//! its `created` range, Kubernetes' patch media types and int-or-string,
//! GitHub's nullable fields, Zuora's untyped-then-typed answers, keywords
//! of another type beside a declared one), each from a small document
//! written for it (`generator/fixtures/{form_encoding, media_types,
//! nullable_fields, unions}.yaml`). Every request goes over real HTTP to a
//! listener on 127.0.0.1 (an ephemeral port) that keeps the bytes it
//! received, and those bytes are compared with what the document
//! prescribes.

use std::io::{Read, Write};
use std::net::TcpListener;

use generator_expected::{degraded, form_encoding, media_types, nullable_fields, swagger2, unions};

/// What the listener received: the request line, the headers (names in
/// lower case) and the body, as bytes.
struct Received {
    line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn body_text(&self) -> &str {
        std::str::from_utf8(&self.body).expect("a UTF-8 body")
    }

    /// The form body's `name=value` pairs as sent (still percent-encoded),
    /// sorted: a form's field order is not the document's to prescribe.
    fn form_pairs(&self) -> Vec<&str> {
        let mut pairs: Vec<&str> = self.body_text().split('&').collect();
        pairs.sort_unstable();
        pairs
    }
}

/// A listener that takes one request, answers it with `answer` (a whole
/// HTTP response) and gives back what it received.
fn one_exchange(answer: &'static [u8]) -> (String, std::thread::JoinHandle<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut received = Vec::new();
        let mut buffer = [0u8; 4096];
        let (head_end, length) = loop {
            let n = stream.read(&mut buffer).unwrap();
            assert!(n > 0, "the connection closed before a whole request");
            received.extend_from_slice(&buffer[..n]);
            if let Some(end) = received.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&received[..end]).into_owned();
                let length = head
                    .lines()
                    .find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                if received.len() >= end + 4 + length {
                    break (end, length);
                }
            }
        };
        stream.write_all(answer).unwrap();
        let head = String::from_utf8_lossy(&received[..head_end]).into_owned();
        let mut lines = head.split("\r\n");
        let line = lines.next().unwrap().to_owned();
        let headers = lines
            .filter_map(|l| {
                let (name, value) = l.split_once(':')?;
                Some((name.trim().to_ascii_lowercase(), value.trim().to_owned()))
            })
            .collect();
        let body = received[head_end + 4..head_end + 4 + length].to_vec();
        Received {
            line,
            headers,
            body,
        }
    });
    (base, handle)
}

const NO_CONTENT: &[u8] = b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n";

/// Stripe's form bodies: `encoding` per property. `deepObject` at any
/// depth (`metadata[order]`, `shipping[address][city]`, array items by
/// index), arrays in each style, a `contentType: application/json`
/// property as JSON text, and a property without an encoding as before.
#[tokio::test]
async fn form_properties_are_written_as_their_encoding_says() {
    use form_encoding::types::*;
    let (base, listener) = one_exchange(NO_CONTENT);
    let client = form_encoding::Client::new(&base).unwrap();
    let mut body = PostCustomersBody::new("a@b.c".into());
    body.metadata = Some([("order".to_owned(), "6735".to_owned())].into());
    let mut shipping = PostCustomersBodyShipping::default();
    shipping.name = Some("Ann".into());
    let mut address = PostCustomersBodyShippingAddress::default();
    address.city = Some("Paris".into());
    shipping.address = Some(address);
    body.shipping = Some(shipping);
    body.expand = Some(vec!["customer".into(), "invoice".into()]);
    let mut item = PostCustomersBodyItemsItem::default();
    item.price = Some("price_1".into());
    item.quantity = Some(2);
    body.items = Some(vec![item]);
    body.tax_ids = Some(vec!["t1".into(), "t2".into()]);
    body.labels = Some(vec!["a".into(), "b".into()]);
    body.codes = Some(vec![1, 2]);
    body.flags = Some(vec![true, false]);
    let mut home = PostCustomersBodyAddress::default();
    home.zip = Some("75001".into());
    body.address = Some(home);
    let mut settings = PostCustomersBodySettings::default();
    settings.theme = Some("dark".into());
    body.settings = Some(settings);
    body.numbers = Some(vec![3, 4]);
    let answer = client.post_customers().body(body).send().await.unwrap();
    assert!(matches!(
        answer,
        form_encoding::PostCustomersResponse::Undocumented(_)
    ));
    let received = listener.join().unwrap();
    assert_eq!(received.line, "POST /v1/customers HTTP/1.1");
    assert_eq!(
        received.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(
        received.form_pairs(),
        [
            "codes=1%7C2",                             // pipeDelimited
            "email=a%40b.c",                           // no encoding
            "expand%5B0%5D=customer",                  // deepObject array
            "expand%5B1%5D=invoice",                   //
            "flags=false",                             // form, exploded
            "flags=true",                              //
            "items%5B0%5D%5Bprice%5D=price_1",         // deepObject, nested
            "items%5B0%5D%5Bquantity%5D=2",            //
            "labels=a+b",                              // spaceDelimited
            "metadata%5Border%5D=6735",                // deepObject
            "numbers=%5B3%2C4%5D",                     // contentType JSON
            "settings=%7B%22theme%22%3A%22dark%22%7D", // contentType JSON
            "shipping%5Baddress%5D%5Bcity%5D=Paris",   // deepObject, depth 2
            "shipping%5Bname%5D=Ann",
            "tax_ids=t1%2Ct2", // form, not exploded
            "zip=75001",       // `address`: form, exploded: its properties are fields
        ]
    );
}

/// Kubernetes' PATCH: one body in four media types. Each variant of the
/// choice is sent with its own `Content-Type`; `.body(patch)` sends the
/// first listed.
#[tokio::test]
async fn a_body_is_sent_in_the_media_type_the_caller_chose() {
    use media_types::builder::{CreateThingBody, PatchThingBody};
    let mut patch = media_types::types::Patch::new();
    patch.insert("replicas".into(), 3.into());
    let cases: Vec<(PatchThingBody, &str, &str)> = vec![
        (
            PatchThingBody::MergePatchJson(patch.clone()),
            "application/merge-patch+json",
            r#"{"replicas":3}"#,
        ),
        (
            PatchThingBody::StrategicMergePatchJson(patch.clone()),
            "application/strategic-merge-patch+json",
            r#"{"replicas":3}"#,
        ),
        (
            patch.clone().into(),
            "application/json-patch+json",
            r#"{"replicas":3}"#,
        ),
        (
            PatchThingBody::ApplyPatchYaml("replicas: 3\n".as_bytes().into()),
            "application/apply-patch+yaml",
            "replicas: 3\n",
        ),
    ];
    for (body, content_type, sent) in cases {
        let (base, listener) = one_exchange(NO_CONTENT);
        let client = media_types::Client::new(&base).unwrap();
        client
            .patch_thing()
            .name("web")
            .body(body)
            .send()
            .await
            .unwrap();
        let received = listener.join().unwrap();
        assert_eq!(received.line, "PATCH /things/web HTTP/1.1");
        assert_eq!(received.header("content-type"), Some(content_type));
        assert_eq!(received.body_text(), sent);
    }

    // One media type declared, `merge-patch+json`: sent as that.
    let (base, listener) = one_exchange(NO_CONTENT);
    let client = media_types::Client::new(&base).unwrap();
    let mut thing = media_types::types::Thing::new("web".into());
    thing.size = Some(2);
    client
        .replace_thing()
        .name("web")
        .body(thing.clone())
        .send()
        .await
        .unwrap();
    let received = listener.join().unwrap();
    assert_eq!(
        received.header("content-type"),
        Some("application/merge-patch+json")
    );
    assert_eq!(received.body_text(), r#"{"name":"web","size":2}"#);

    // JSON, a form or text: JSON unless the caller says otherwise.
    for (body, content_type, sent) in [
        (
            CreateThingBody::from(thing.clone()),
            "application/json",
            r#"{"name":"web","size":2}"#,
        ),
        (
            CreateThingBody::Form(thing.clone()),
            "application/x-www-form-urlencoded",
            "name=web&size=2",
        ),
        (CreateThingBody::from("web 2"), "text/plain", "web 2"),
    ] {
        let (base, listener) = one_exchange(NO_CONTENT);
        let client = media_types::Client::new(&base).unwrap();
        client
            .create_thing()
            .name("web")
            .body(body)
            .send()
            .await
            .unwrap();
        let received = listener.join().unwrap();
        assert_eq!(received.header("content-type"), Some(content_type));
        assert_eq!(received.body_text(), sent);
    }
}

/// Zuora's answers: an untyped JSON media type listed before a typed one;
/// the typed one is what the answer is decoded as.
#[tokio::test]
async fn a_typed_json_answer_wins_over_an_untyped_one() {
    let (base, listener) = one_exchange(
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 23\r\nconnection: close\r\n\r\n{\"name\":\"r1\",\"size\":7}\n",
    );
    let client = media_types::Client::new(&base).unwrap();
    let answer = client.get_report().send().await.unwrap();
    listener.join().unwrap();
    let media_types::GetReportResponse::Ok(decoded) = answer else {
        panic!("not decoded as the typed body: {answer:?}");
    };
    let report: &media_types::types::Thing = &decoded.body;
    assert_eq!(report.name, "r1");
    assert_eq!(report.size, Some(7));
}

/// GitHub's "use `null` to remove the milestone": an optional nullable
/// property is left out, sent as `null`, or sent with a value; an answer
/// tells a `null` from a property left out.
#[tokio::test]
async fn an_optional_nullable_property_has_three_states() {
    use nullable_fields::types::{UpdateIssueBody, UpdateIssueOkBody, User};
    let mut body = UpdateIssueBody::new(None);
    body.milestone = Some(None);
    let mut user = User::default();
    user.login = Some("octocat".into());
    body.assignee = Some(Some(user));
    let (base, listener) = one_exchange(
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 18\r\nconnection: close\r\n\r\n{\"milestone\":null}",
    );
    let client = nullable_fields::Client::new(&base).unwrap();
    let answer = client
        .update_issue()
        .number(1347)
        .body(body.clone())
        .send()
        .await
        .unwrap();
    let received = listener.join().unwrap();
    assert_eq!(received.line, "PATCH /issues/1347 HTTP/1.1");
    assert_eq!(received.header("content-type"), Some("application/json"));
    // `title` and `labels` absent, `milestone` null, `assignee` a value,
    // `closed_at` (required, nullable) null.
    assert_eq!(
        received.body_text(),
        r#"{"milestone":null,"assignee":{"login":"octocat"},"closed_at":null}"#
    );
    let nullable_fields::UpdateIssueResponse::Ok(decoded) = answer else {
        panic!("not Ok: {answer:?}");
    };
    assert_eq!(decoded.body.milestone, Some(None));
    // Left out, null and a value, read back as three states.
    for (text, milestone) in [
        ("{}", None),
        (r#"{"milestone":null}"#, Some(None)),
        (r#"{"milestone":5}"#, Some(Some(5))),
    ] {
        let read: UpdateIssueOkBody = serde_json::from_str(text).unwrap();
        assert_eq!(read.milestone, milestone, "{text}");
        assert_eq!(serde_json::to_string(&read).unwrap(), text);
    }
}

/// Stripe's `created`: an object (a range) or an integer, `deepObject`;
/// Kubernetes' int-or-string in a parameter and a body; an integer with
/// `maxLength` beside it (Zoom, Twilio) is an integer.
#[tokio::test]
async fn scalar_or_object_unions_are_sent_as_the_member_held() {
    use unions::types::{
        GetChargesCreated, IntOrString, RangeQuerySpecs, Service, ServiceMaxSurge,
    };
    let mut range = RangeQuerySpecs::default();
    range.gte = Some(1_700_000_000);
    range.lt = Some(1_800_000_000);
    let cases = [
        (
            GetChargesCreated::RangeQuerySpecs(range),
            IntOrString::Integer(8080),
            "/v1/charges?created%5Bgte%5D=1700000000&created%5Blt%5D=1800000000&port=8080&limit=10",
        ),
        (
            GetChargesCreated::Integer(1_700_000_000),
            IntOrString::String("http".into()),
            "/v1/charges?created=1700000000&port=http&limit=10",
        ),
    ];
    for (created, port, target) in cases {
        let (base, listener) = one_exchange(NO_CONTENT);
        let client = unions::Client::new(&base).unwrap();
        let answer = client
            .get_charges()
            .created(created)
            .port(port)
            .limit(10)
            .send()
            .await
            .unwrap();
        assert!(matches!(
            answer,
            unions::GetChargesResponse::Undocumented(_)
        ));
        let received = listener.join().unwrap();
        assert_eq!(received.line, format!("GET {target} HTTP/1.1"));
    }

    let (base, listener) = one_exchange(NO_CONTENT);
    let client = unions::Client::new(&base).unwrap();
    let mut service = Service::default();
    service.target_port = Some(IntOrString::String("http".into()));
    service.max_surge = Some(ServiceMaxSurge::Integer(2));
    service.count = Some(3);
    service.tags = Some(vec!["a".into()]);
    service.name = Some("web".into());
    client.create_service().body(service).send().await.unwrap();
    let received = listener.join().unwrap();
    assert_eq!(
        received.body_text(),
        r#"{"target_port":"http","max_surge":2,"count":3,"tags":["a"],"name":"web"}"#
    );
    // Read back: a number is the integer member, text the string one.
    let read: Service = serde_json::from_str(r#"{"target_port":8080,"max_surge":"25%"}"#).unwrap();
    assert_eq!(read.target_port, Some(IntOrString::Integer(8080)));
    assert_eq!(read.max_surge, Some(ServiceMaxSurge::String("25%".into())));
}

/// A query parameter that is a string or a list of them (`oneOf`, GitHub's
/// `labels`-like shapes): sent as the member held, a list exploded as the
/// default `form` style says (it was sent as the string member only).
#[tokio::test]
async fn a_string_or_list_parameter_is_sent_as_the_member_held() {
    use degraded::types::{GetDeliveryTag, NameOrId};
    for (tag, query) in [
        (GetDeliveryTag::String("a b".into()), "tag=a+b"),
        (
            GetDeliveryTag::Array(vec!["x".into(), "y".into()]),
            "tag=x&tag=y",
        ),
    ] {
        let (base, listener) = one_exchange(NO_CONTENT);
        let client = degraded::Client::new(&base).unwrap();
        client
            .get_delivery()
            .id(NameOrId::Name("n".into()))
            .tag(tag)
            .send()
            .await
            .unwrap();
        let received = listener.join().unwrap();
        assert_eq!(received.line, format!("GET /deliveries/n?{query} HTTP/1.1"));
    }
}

/// A Swagger 2.0 form field's array is joined as its `collectionFormat`
/// says (`csv` by default, `ssv`, `pipes`; `multi` repeated), through the
/// 3.0 `encoding` the conversion writes.
#[tokio::test]
async fn a_swagger_2_form_array_is_joined_as_its_collection_format_says() {
    let (base, listener) = one_exchange(NO_CONTENT);
    let client = swagger2::Client::new(&base).unwrap();
    let mut body = swagger2::types::TagPetBody::default();
    body.sizes = Some(vec![1, 2]);
    body.words = Some(vec!["a".into(), "b".into()]);
    body.codes = Some(vec!["x".into(), "y".into()]);
    body.labels = Some(vec!["l1".into(), "l2".into()]);
    client.tag_pet().pet_id(7).body(body).send().await.unwrap();
    let received = listener.join().unwrap();
    assert_eq!(received.line, "POST /pets/7/tags HTTP/1.1");
    assert_eq!(
        received.form_pairs(),
        [
            "codes=x%7Cy",
            "labels=l1",
            "labels=l2",
            "sizes=1%2C2",
            "words=a+b"
        ]
    );
}
