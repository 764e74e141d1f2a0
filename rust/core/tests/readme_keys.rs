//! The README's key table is made from `config::KEYS`; this test fails when they drift apart.
//! Regenerate with: `REIN_BLESS=1 cargo test -p rein-core --test readme_keys`.

use rein_core::config::KEYS;

const BEGIN: &str = "<!-- keys:begin (generated from rust/core/src/config.rs) -->\n";
const END: &str = "<!-- keys:end -->";

fn table() -> String {
    let mut t = String::from(BEGIN);
    t.push_str("| key | default | allowed | source | meaning |\n|---|---|---|---|---|\n");
    for k in KEYS {
        t.push_str(&format!(
            "| `{}` | `{}` | {} | {} | {} |\n",
            k.key,
            k.default,
            k.allowed.replace('|', "\\|"),
            k.source,
            k.meaning
        ));
    }
    t
}

#[test]
fn readme_key_table_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    let readme = std::fs::read_to_string(path).expect("README.md");
    let (Some(b), Some(e)) = (readme.find(BEGIN), readme.find(END)) else {
        panic!("README.md lacks the key-table markers");
    };
    let current = &readme[b..e];
    if std::env::var_os("REIN_BLESS").is_some() {
        std::fs::write(path, format!("{}{}{}", &readme[..b], table(), &readme[e..])).unwrap();
        return;
    }
    assert!(current == table(), "README.md's key table is stale; regenerate with REIN_BLESS=1 cargo test -p rein-core --test readme_keys");
}
