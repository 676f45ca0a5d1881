//! One snapshot per derive and per shard strategy.

use proc_macro2::TokenStream;
use std::path::Path;
use syn::parse_quote;

/// `tokens` as formatted Rust, with this package's directory (in the paths of boundaries files)
/// written as `$CARGO_MANIFEST_DIR` before formatting, so that where the checkout is changes
/// nothing.
fn formatted(tokens: TokenStream) -> String {
    let text = tokens.to_string().replace(env!("CARGO_MANIFEST_DIR"), "$CARGO_MANIFEST_DIR");
    let file: syn::File = syn::parse_str(&text).expect("an expansion parses as items");
    prettyplease::unparse(&file)
}

/// Compares the expansion with the snapshot `name`; writes it when asked to, or when there is
/// none yet (and fails, so that a new snapshot is reviewed before it is kept).
fn snapshot(name: &str, tokens: TokenStream) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots").join(format!("{name}.expanded.rs"));
    let text = formatted(tokens);
    assert!(!text.contains("compile_error!"), "the sample `{name}` does not derive:\n{text}");
    let overwrite = std::env::var_os("SNAPSHOTS").is_some_and(|value| value == "overwrite");
    let stored = std::fs::read_to_string(&path).ok();
    if overwrite || stored.is_none() {
        std::fs::write(&path, &text).expect("the snapshot is written");
        assert!(overwrite, "wrote the new snapshot {}; review it and run again", path.display());
        return;
    }
    let stored = stored.unwrap_or_default();
    if stored != text {
        let line = stored.lines().zip(text.lines()).position(|(a, b)| a != b).unwrap_or(0);
        let show =
            |text: &str| text.lines().skip(line.saturating_sub(2)).take(6).collect::<Vec<_>>().join("\n");
        panic!(
            "the expansion `{name}` changed at line {}; review it and write it with SNAPSHOTS=overwrite\n\
             --- snapshot\n{}\n--- now\n{}",
            line + 1,
            show(&stored),
            show(&text)
        );
    }
}

#[test]
fn table() {
    snapshot(
        "table",
        crate::table::derive(parse_quote! {
            #[table(name = "Music", pk = "pk", sk = "sk", ttl = "expires")]
            #[gsi(ByTitle(pk = "title_pk", sk = "title_sk", projection = "keys_only"))]
            #[gsi(ByYear(pk = ["artist", "year:N"], sk = ["title"]))]
            #[lsi(ByLength(sk = "length_sk", projection = ["seconds"]))]
            struct Music;
        }),
    );
}

#[test]
fn entity_with_indexes_a_version_and_a_ttl() {
    snapshot(
        "entity",
        crate::entity::derive(parse_quote! {
            #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
            #[gsi(ByTitle(pk = "album", sk = "{title}"))]
            #[sparse_gsi(ByYear(pk = [artist, year], sk = [title]))]
            #[lsi(ByLength(sk = "{seconds}"))]
            struct Album {
                artist: String,
                title: String,
                year: Option<u16>,
                seconds: u32,
                #[version]
                version: u64,
                #[ttl]
                expires: Option<u64>,
            }
        }),
    );
}

/// An entity of `Music` whose `ByTitle` mapping is sharded by `shard`.
fn sharded(shard: syn::Attribute) -> TokenStream {
    crate::entity::derive(parse_quote! {
        #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
        #[gsi(ByTitle(pk = "album", sk = "{title}"))]
        #shard
        struct Album {
            artist: String,
            title: String,
            released: u64,
        }
    })
}

#[test]
fn hash_shards() {
    snapshot("shard_hash", sharded(parse_quote!(#[shard(ByTitle(hash = 8, by = title))])));
}

#[test]
fn random_shards() {
    snapshot("shard_random", sharded(parse_quote!(#[shard(ByTitle(random = 8))])));
}

#[test]
fn range_shards() {
    let shard =
        parse_quote!(#[shard(ByTitle(range = "snapshots/boundaries.json", by = title, overflow = 2))]);
    snapshot("shard_range", sharded(shard));
}

#[test]
fn dynamic_shards() {
    snapshot("shard_dynamic", sharded(parse_quote!(#[shard(ByTitle(dynamic, max = 32))])));
}

#[test]
fn time_bucket_shards() {
    snapshot(
        "shard_time_bucket",
        crate::entity::derive(parse_quote! {
            #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
            #[gsi(ByRelease(pk = "{artist}", sk = "{released}#{title}"))]
            #[shard(ByRelease(hash = 4, by = artist, bucket = "hour", at = released, directory))]
            struct Album {
                artist: String,
                title: String,
                released: u64,
            }
        }),
    );
}

#[test]
fn base_table_shards() {
    snapshot(
        "shard_base_table",
        crate::entity::derive(parse_quote! {
            #[entity(table = Events, pk = "event#{id}", sk = "event")]
            #[shard(hash = 4, by = id)]
            struct Event {
                id: String,
                kind: String,
            }
        }),
    );
}

#[test]
fn collection() {
    let derived = crate::collection::derive(parse_quote! {
        enum ArtistItems {
            Artist(Artist),
            Album(Album),
        }
    });
    snapshot("collection", crate::errors::into_tokens(derived));
}

#[test]
fn view() {
    let derived = crate::view::derive(parse_quote! {
        #[view(entity = Album)]
        struct AlbumTitle {
            title: String,
            #[serde(rename = "year")]
            released: u16,
        }
    });
    snapshot("view", crate::errors::into_tokens(derived));
}

#[test]
fn nested() {
    let derived = crate::nested::derive(parse_quote! {
        struct Address {
            city: String,
            #[serde(rename = "zip")]
            post_code: String,
            #[serde(skip)]
            cached: Option<u32>,
        }
    });
    snapshot("nested", crate::errors::into_tokens(derived));
}
