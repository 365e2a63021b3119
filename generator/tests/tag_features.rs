//! `--tag-features` (issue 47): the output compiles, warnings denied, with
//! every subset of its features, and an operation of a tag left off is not
//! there to call.

mod support;

use support::{dependencies, root, rustc};

#[test]
fn each_subset_of_tags_compiles_and_leaves_the_rest_out() {
    let spec = root().join("generator/fixtures/split_by_tag.yaml");
    let generated = generator::generate_with_options(
        &spec,
        &generator::Options {
            tag_features: true,
            ..Default::default()
        },
    )
    .unwrap();
    let code = generated.code;
    // The header lists the features to declare.
    for line in ["// tag-pets = []", "// tag-store = []", "// untagged = []"] {
        assert!(code.contains(line), "{line} missing from the header");
    }
    let dir = std::env::temp_dir().join(format!("generator-tag-features-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let externs = dependencies(&dir);
    let check_cfg = r#"cfg(feature, values("tag-pets", "tag-store", "untagged"))"#;
    let compile = |features: &[&str], user: &str| {
        let file = format!("lib{}.rs", features.join("_").replace('-', "_"));
        std::fs::write(
            dir.join(&file),
            format!("#![deny(warnings)]\n{code}\n{user}\n"),
        )
        .unwrap();
        let mut more = vec!["--check-cfg".to_owned(), check_cfg.to_owned()];
        for feature in features {
            more.push("--cfg".to_owned());
            more.push(format!("feature=\"{feature}\""));
        }
        rustc(&dir, "split", &file, &externs, &more)
    };
    let subsets: [&[&str]; 5] = [
        &[],
        &["tag-pets"],
        &["tag-store"],
        &["untagged"],
        &["tag-pets", "tag-store", "untagged"],
    ];
    for features in subsets {
        let output = compile(features, "");
        assert!(
            output.status.success(),
            "{features:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // With `tag-pets` alone, a pets operation is there, the store's is not.
    let pets = "pub fn call(c: &Client) { let _ = c.list_pets(); }";
    assert!(compile(&["tag-pets"], pets).status.success());
    let store = "pub fn call(c: &Client) { let _ = c.get_order(); }";
    let output = compile(&["tag-pets"], store);
    assert!(
        !output.status.success(),
        "get_order compiled without its tag"
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("get_order"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
