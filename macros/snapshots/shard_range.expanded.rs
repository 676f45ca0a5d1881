///Typed handles on the non-key fields of [`Album`], for updates and conditions.
#[derive(Clone, Copy, Debug)]
#[allow(dead_code)]
struct AlbumFields {
    ///The `released` attribute.
    pub released: ::dynashard::__private_v1::Field<Album, u64>,
}
#[allow(non_local_definitions)]
const _: () = {
    #[allow(unused_imports)]
    use ::dynashard::__private_v1 as __dynashard;
    #[allow(unused_imports)]
    use __dynashard::NotATable as _;
    #[allow(dead_code)]
    const __DYNASHARD_DEFINITION: &__dynashard::TableDefinition = __dynashard::TableProbe::<
        Music,
    >::DEFINITION;
    #[allow(dead_code)]
    const __DYNASHARD_TABLE_DECLARED: bool = __dynashard::TableProbe::<Music>::DECLARED;
    #[allow(dead_code)]
    const __DYNASHARD_ATTRIBUTES: __dynashard::Option<&[&str]> = __dynashard::Some(
        &["artist", "title", "released"],
    );
    #[allow(dead_code)]
    static __DYNASHARD_TABLE: __dynashard::TableDefinition = *__DYNASHARD_DEFINITION;
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "entity `Album` declares `sk`, but table `Music` has no sort key",
            label = "the table has no sort-key attribute to store this template in",
            note = "remove `sk = \"...\"` from `#[entity(...)]`, or declare a sort key on the table: `#[table(..., sk = \"sk\")]` on `Music`"
        )]
        trait TableHasSortKey {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl TableHasSortKey for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || (__DYNASHARD_DEFINITION.sort_key.is_some()))
            as usize] as TableHasSortKey>::HOLDS
    };
    static __DYNASHARD_PK: __dynashard::KeyTemplate = __dynashard::KeyTemplate {
        attribute: __DYNASHARD_DEFINITION.partition_key,
        source: "{artist}",
        segments: &[__dynashard::Segment::Field("artist")],
        role: __dynashard::KeyRole::Partition,
    };
    static __DYNASHARD_SK: __dynashard::KeyTemplate = __dynashard::KeyTemplate {
        attribute: match __DYNASHARD_DEFINITION.sort_key {
            __dynashard::Some(name) => name,
            __dynashard::None => "",
        },
        source: "album#{title}",
        segments: &[
            __dynashard::Segment::Literal("album#"),
            __dynashard::Segment::Field("title"),
        ],
        role: __dynashard::KeyRole::Sort,
    };
    #[allow(dead_code)]
    const __DYNASHARD_GSI_0: &__dynashard::IndexDefinition = match __dynashard::find_index(
        __DYNASHARD_DEFINITION.indexes,
        "ByTitle",
    ) {
        __dynashard::Some(index) => index,
        __dynashard::None => {
            &__dynashard::IndexDefinition {
                name: "ByTitle",
                local: false,
                partition_key: &[
                    __dynashard::KeyAttribute {
                        name: "",
                        kind: __dynashard::ScalarKind::String,
                    },
                ],
                sort_key: &[
                    __dynashard::KeyAttribute {
                        name: "",
                        kind: __dynashard::ScalarKind::String,
                    },
                ],
                projection: __dynashard::IndexProjection::All,
                warm_throughput: __dynashard::None,
            }
        }
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "entity `Album` maps index `ByTitle`, but table `Music` declares no index `ByTitle`",
            label = "not an index of table `Music`",
            note = "declare the index on the table, e.g. `#[gsi(ByTitle(pk = \"...\", sk = \"...\"))]` on `Music`, or correct the name in `#[gsi(ByTitle(...))]`"
        )]
        trait IndexIsDeclared {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl IndexIsDeclared for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || (__dynashard::find_index(__DYNASHARD_DEFINITION.indexes, "ByTitle")
                .is_some())) as usize] as IndexIsDeclared>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "index `ByTitle` of table `Music` is a local index, mapped with `#[gsi(...)]`",
            label = "declared local",
            note = "map a global index with `#[gsi(ByTitle(pk = \"...\", sk = \"...\"))]` and a local one with `#[lsi(ByTitle(sk = \"...\"))]`"
        )]
        trait IndexIsOfTheMappedKind {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl IndexIsOfTheMappedKind for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED) || (__DYNASHARD_GSI_0.local == false))
            as usize] as IndexIsOfTheMappedKind>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "index `ByTitle` of table `Music` has a multi-attribute key, which key templates cannot fill",
            label = "mapped with key templates",
            note = "map it with field lists instead: `#[gsi(ByTitle(pk = [field, ...], sk = [field, ...]))]`"
        )]
        trait IndexHasSingleAttributeKeys {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl IndexHasSingleAttributeKeys for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || ((__DYNASHARD_GSI_0.partition_key.len() == 1
                && __DYNASHARD_GSI_0.sort_key.len() <= 1)))
            as usize] as IndexHasSingleAttributeKeys>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "index `ByTitle` of table `Music` declares a number or binary key attribute, but key templates write strings",
            label = "mapped with key templates",
            note = "declare the index's key attributes as strings (`\"attribute\"` or `\"attribute:S\"`), or map the index with field lists: `#[gsi(ByTitle(pk = [field], sk = [field]))]`"
        )]
        trait IndexHasStringKeys {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl IndexHasStringKeys for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || (!(__DYNASHARD_GSI_0.partition_key.len() == 1
                && __DYNASHARD_GSI_0.sort_key.len() <= 1)
                || (__dynashard::same_kind(
                    __DYNASHARD_GSI_0.partition_key[0].kind,
                    __dynashard::ScalarKind::String,
                )
                    && (__DYNASHARD_GSI_0.sort_key.is_empty()
                        || __dynashard::same_kind(
                            __DYNASHARD_GSI_0.sort_key[0].kind,
                            __dynashard::ScalarKind::String,
                        ))))) as usize] as IndexHasStringKeys>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "index `ByTitle` of table `Music` has no sort key, so the mapping cannot give `sk`",
            label = "the index has no sort-key attribute to store this template in",
            note = "remove `sk = \"...\"` from `#[gsi(ByTitle(...))]`, or declare a sort key on the index: `#[gsi(ByTitle(pk = \"...\", sk = \"...\"))]` on `Music`"
        )]
        trait IndexHasSortKey {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl IndexHasSortKey for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || (!(__DYNASHARD_GSI_0.partition_key.len() == 1
                && __DYNASHARD_GSI_0.sort_key.len() <= 1)
                || !__DYNASHARD_GSI_0.sort_key.is_empty()))
            as usize] as IndexHasSortKey>::HOLDS
    };
    static __DYNASHARD_GSI_0_PK: __dynashard::KeyTemplate = __dynashard::KeyTemplate {
        attribute: __dynashard::attribute_name(__DYNASHARD_GSI_0.partition_key, 0),
        source: "album",
        segments: &[__dynashard::Segment::Literal("album")],
        role: __dynashard::KeyRole::Partition,
    };
    static __DYNASHARD_GSI_0_SK: __dynashard::KeyTemplate = __dynashard::KeyTemplate {
        attribute: __dynashard::attribute_name(__DYNASHARD_GSI_0.sort_key, 0),
        source: "{title}",
        segments: &[__dynashard::Segment::Field("title")],
        role: __dynashard::KeyRole::Sort,
    };
    fn __dynashard_range_0() -> &'static __dynashard::RangeShards {
        const _: &[u8] = include_bytes!("$CARGO_MANIFEST_DIR/snapshots/boundaries.json");
        static SHARDS: ::std::sync::OnceLock<__dynashard::RangeShards> = ::std::sync::OnceLock::new();
        SHARDS
            .get_or_init(|| {
                __dynashard::RangeShards::new(
                    __dynashard::Boundaries::from_checked(&["", "g", "n", "t"]),
                )
            })
    }
    const __DYNASHARD_SHARD_0: __dynashard::ShardSpec = __dynashard::ShardSpec {
        index: "ByTitle",
        layout: __dynashard::Layout::Range {
            boundaries: __dynashard::BoundarySource::Declared(__dynashard_range_0),
            normalization: __dynashard::Normalization::NfkdLower,
            overflow: 2u32,
        },
        by: &["title"],
        directory: false,
        partition: __dynashard::Some("album"),
    };
    #[allow(dead_code)]
    const fn __dynashard_names(
        attributes: &[__dynashard::KeyAttribute],
        name: &str,
    ) -> bool {
        let mut position = 0;
        while position < attributes.len() {
            if __dynashard::const_str_eq(attributes[position].name, name) {
                return true;
            }
            position += 1;
        }
        false
    }
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `artist` is stored as attribute `artist`, which is a key attribute of table `Music`",
            label = "stored as `artist`",
            note = "dynashard writes the table's key attributes itself, from the `pk` and `sk` templates of `#[entity(...)]`; give the field another attribute name with `#[serde(rename = \"...\")]`, or rename it"
        )]
        trait NotATableKeyAttribute {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl NotATableKeyAttribute for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || (!__dynashard::const_str_eq(
                __DYNASHARD_DEFINITION.partition_key,
                "artist",
            )
                && !match __DYNASHARD_DEFINITION.sort_key {
                    __dynashard::Some(sort_key) => {
                        __dynashard::const_str_eq(sort_key, "artist")
                    }
                    __dynashard::None => false,
                })) as usize] as NotATableKeyAttribute>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `artist` is stored as attribute `artist`, which is the entity-type attribute of table `Music`",
            label = "stored as `artist`",
            note = "dynashard writes each item's entity type (`Album`) in this attribute; give the field another attribute name with `#[serde(rename = \"...\")]`, or rename it, or set another `type_attribute = \"...\"` on the table"
        )]
        trait NotTheTypeAttribute {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl NotTheTypeAttribute for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || (!__dynashard::const_str_eq(
                __DYNASHARD_DEFINITION.type_attribute,
                "artist",
            ))) as usize] as NotTheTypeAttribute>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `artist` is stored as attribute `artist`, which is a key attribute of index `ByTitle`",
            label = "stored as `artist`",
            note = "dynashard writes index `ByTitle`'s key attributes itself, from the templates of `#[gsi(ByTitle(...))]`; give the field another attribute name with `#[serde(rename = \"...\")]`, or rename it"
        )]
        trait NotAnIndexKeyAttribute {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl NotAnIndexKeyAttribute for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || (!((__DYNASHARD_GSI_0.partition_key.len() == 1
                && __DYNASHARD_GSI_0.sort_key.len() <= 1)
                && (__dynashard::same_kind(
                    __DYNASHARD_GSI_0.partition_key[0].kind,
                    __dynashard::ScalarKind::String,
                )
                    && (__DYNASHARD_GSI_0.sort_key.is_empty()
                        || __dynashard::same_kind(
                            __DYNASHARD_GSI_0.sort_key[0].kind,
                            __dynashard::ScalarKind::String,
                        ))))
                || (!__dynashard_names(__DYNASHARD_GSI_0.partition_key, "artist")
                    && !__dynashard_names(__DYNASHARD_GSI_0.sort_key, "artist"))))
            as usize] as NotAnIndexKeyAttribute>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `title` is stored as attribute `title`, which is a key attribute of table `Music`",
            label = "stored as `title`",
            note = "dynashard writes the table's key attributes itself, from the `pk` and `sk` templates of `#[entity(...)]`; give the field another attribute name with `#[serde(rename = \"...\")]`, or rename it"
        )]
        trait NotATableKeyAttribute {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl NotATableKeyAttribute for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || (!__dynashard::const_str_eq(__DYNASHARD_DEFINITION.partition_key, "title")
                && !match __DYNASHARD_DEFINITION.sort_key {
                    __dynashard::Some(sort_key) => {
                        __dynashard::const_str_eq(sort_key, "title")
                    }
                    __dynashard::None => false,
                })) as usize] as NotATableKeyAttribute>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `title` is stored as attribute `title`, which is the entity-type attribute of table `Music`",
            label = "stored as `title`",
            note = "dynashard writes each item's entity type (`Album`) in this attribute; give the field another attribute name with `#[serde(rename = \"...\")]`, or rename it, or set another `type_attribute = \"...\"` on the table"
        )]
        trait NotTheTypeAttribute {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl NotTheTypeAttribute for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || (!__dynashard::const_str_eq(
                __DYNASHARD_DEFINITION.type_attribute,
                "title",
            ))) as usize] as NotTheTypeAttribute>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `title` is stored as attribute `title`, which is a key attribute of index `ByTitle`",
            label = "stored as `title`",
            note = "dynashard writes index `ByTitle`'s key attributes itself, from the templates of `#[gsi(ByTitle(...))]`; give the field another attribute name with `#[serde(rename = \"...\")]`, or rename it"
        )]
        trait NotAnIndexKeyAttribute {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl NotAnIndexKeyAttribute for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || (!((__DYNASHARD_GSI_0.partition_key.len() == 1
                && __DYNASHARD_GSI_0.sort_key.len() <= 1)
                && (__dynashard::same_kind(
                    __DYNASHARD_GSI_0.partition_key[0].kind,
                    __dynashard::ScalarKind::String,
                )
                    && (__DYNASHARD_GSI_0.sort_key.is_empty()
                        || __dynashard::same_kind(
                            __DYNASHARD_GSI_0.sort_key[0].kind,
                            __dynashard::ScalarKind::String,
                        ))))
                || (!__dynashard_names(__DYNASHARD_GSI_0.partition_key, "title")
                    && !__dynashard_names(__DYNASHARD_GSI_0.sort_key, "title"))))
            as usize] as NotAnIndexKeyAttribute>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `released` is stored as attribute `released`, which is a key attribute of table `Music`",
            label = "stored as `released`",
            note = "dynashard writes the table's key attributes itself, from the `pk` and `sk` templates of `#[entity(...)]`; give the field another attribute name with `#[serde(rename = \"...\")]`, or rename it"
        )]
        trait NotATableKeyAttribute {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl NotATableKeyAttribute for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || (!__dynashard::const_str_eq(
                __DYNASHARD_DEFINITION.partition_key,
                "released",
            )
                && !match __DYNASHARD_DEFINITION.sort_key {
                    __dynashard::Some(sort_key) => {
                        __dynashard::const_str_eq(sort_key, "released")
                    }
                    __dynashard::None => false,
                })) as usize] as NotATableKeyAttribute>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `released` is stored as attribute `released`, which is the entity-type attribute of table `Music`",
            label = "stored as `released`",
            note = "dynashard writes each item's entity type (`Album`) in this attribute; give the field another attribute name with `#[serde(rename = \"...\")]`, or rename it, or set another `type_attribute = \"...\"` on the table"
        )]
        trait NotTheTypeAttribute {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl NotTheTypeAttribute for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || (!__dynashard::const_str_eq(
                __DYNASHARD_DEFINITION.type_attribute,
                "released",
            ))) as usize] as NotTheTypeAttribute>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `released` is stored as attribute `released`, which is a key attribute of index `ByTitle`",
            label = "stored as `released`",
            note = "dynashard writes index `ByTitle`'s key attributes itself, from the templates of `#[gsi(ByTitle(...))]`; give the field another attribute name with `#[serde(rename = \"...\")]`, or rename it"
        )]
        trait NotAnIndexKeyAttribute {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl NotAnIndexKeyAttribute for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || (!((__DYNASHARD_GSI_0.partition_key.len() == 1
                && __DYNASHARD_GSI_0.sort_key.len() <= 1)
                && (__dynashard::same_kind(
                    __DYNASHARD_GSI_0.partition_key[0].kind,
                    __dynashard::ScalarKind::String,
                )
                    && (__DYNASHARD_GSI_0.sort_key.is_empty()
                        || __dynashard::same_kind(
                            __DYNASHARD_GSI_0.sort_key[0].kind,
                            __dynashard::ScalarKind::String,
                        ))))
                || (!__dynashard_names(__DYNASHARD_GSI_0.partition_key, "released")
                    && !__dynashard_names(__DYNASHARD_GSI_0.sort_key, "released"))))
            as usize] as NotAnIndexKeyAttribute>::HOLDS
    };
    #[automatically_derived]
    impl Album {
        ///The primary key of a [`Album`] from its key fields (pk `{artist}`, sk `album#{title}`).
        #[allow(dead_code)]
        pub fn key(
            artist: <String as __dynashard::KeyPart>::Arg<'_>,
            title: <String as __dynashard::KeyPart>::Arg<'_>,
        ) -> __dynashard::Result<__dynashard::Key<Self>> {
            __dynashard::Ok(
                __dynashard::Key::from_primary(__dynashard::PrimaryKey {
                    pk: {
                        let mut __writer = __DYNASHARD_PK.writer();
                        __writer.part::<String>("artist", artist)?;
                        __writer.finish()?
                    },
                    sk: __dynashard::Some({
                        let mut __writer = __DYNASHARD_SK.writer();
                        __writer.literal("album#");
                        __writer.part::<String>("title", title)?;
                        __writer.finish()?
                    }),
                }),
            )
        }
        /// A scan of every item of this entity type in its table, in no particular order;
        /// run it with `Db::stream`.
        #[allow(dead_code)]
        pub fn scan() -> __dynashard::Scan<Self> {
            __dynashard::Scan::entity()
        }
        ///Typed handles on the non-key fields of `Album`.
        #[allow(dead_code)]
        pub const fn fields() -> AlbumFields {
            AlbumFields {
                released: __dynashard::Field::new("released"),
            }
        }
        ///Items of one partition (pk `{artist}`, sk `album#{title}`), in sort-key order; narrow them with the sort-key conditions of [`dynashard::Query`].
        #[allow(dead_code, clippy::type_complexity)]
        pub fn query(
            artist: <String as __dynashard::KeyPart>::Arg<'_>,
        ) -> __dynashard::Query<Self, __dynashard::End<String>> {
            let __partition = (|| -> __dynashard::Result<__dynashard::String> {
                __dynashard::Ok({
                    let mut __writer = __DYNASHARD_PK.writer();
                    __writer.part::<String>("artist", artist)?;
                    __writer.finish()?
                })
            })();
            #[allow(unused_variables)]
            let __shards = __dynashard::None::<__dynashard::Shards>;
            let __query: __dynashard::Query<Self, __dynashard::End<String>> = __dynashard::Query::new(
                __dynashard::QueryTarget {
                    table: &__DYNASHARD_TABLE,
                    index: __dynashard::None,
                    type_name: "Album",
                    partition_attribute: __DYNASHARD_PK.attribute,
                    sort_attribute: __dynashard::Some(__DYNASHARD_SK.attribute),
                    sort_template: __dynashard::Some(&__DYNASHARD_SK),
                },
                __partition,
            );
            let __query = match __shards {
                __dynashard::Some(shards) => __query.sharded(shards),
                __dynashard::None => __query,
            };
            __query
        }
        ///Items of index `ByTitle` in one partition (pk `album`, sk `{title}`), in sort-key order; narrow them with the sort-key conditions of [`dynashard::Query`].
        #[allow(dead_code, clippy::type_complexity)]
        pub fn query_by_title() -> __dynashard::Query<
            __dynashard::IndexItem<
                Self,
                {
                    __dynashard::covers(
                        __DYNASHARD_DEFINITION,
                        __DYNASHARD_GSI_0,
                        __DYNASHARD_ATTRIBUTES,
                    )
                },
                {
                    __dynashard::index_slot(
                        __DYNASHARD_DEFINITION.indexes,
                        __DYNASHARD_GSI_0.name,
                    )
                },
            >,
            __dynashard::Normalized,
        > {
            let __boundaries = __DYNASHARD_SHARD_0.current_boundaries();
            let __partition = (|| -> __dynashard::Result<__dynashard::String> {
                __dynashard::Ok({
                    let mut __writer = __DYNASHARD_GSI_0_PK.writer();
                    __writer.literal("album");
                    __writer.finish()?
                })
            })();
            #[allow(unused_variables)]
            let __shards = __partition
                .as_ref()
                .ok()
                .map(|__partition| {
                    __DYNASHARD_SHARD_0
                        .shards(
                            __partition,
                            __boundaries.as_ref(),
                            __dynashard::None,
                            __dynashard::None,
                            false,
                        )
                });
            let __query: __dynashard::Query<
                __dynashard::IndexItem<
                    Self,
                    {
                        __dynashard::covers(
                            __DYNASHARD_DEFINITION,
                            __DYNASHARD_GSI_0,
                            __DYNASHARD_ATTRIBUTES,
                        )
                    },
                    {
                        __dynashard::index_slot(
                            __DYNASHARD_DEFINITION.indexes,
                            __DYNASHARD_GSI_0.name,
                        )
                    },
                >,
                __dynashard::Normalized,
            > = __dynashard::Query::new(
                __dynashard::QueryTarget {
                    table: &__DYNASHARD_TABLE,
                    index: __dynashard::Some(__DYNASHARD_GSI_0),
                    type_name: "Album",
                    partition_attribute: __DYNASHARD_GSI_0_PK.attribute,
                    sort_attribute: __dynashard::Some(__DYNASHARD_GSI_0_SK.attribute),
                    sort_template: __dynashard::None,
                },
                __partition,
            );
            let __query = match __shards {
                __dynashard::Some(shards) => __query.sharded(shards),
                __dynashard::None => __query,
            };
            __query
                .routed(
                    __DYNASHARD_SHARD_0
                        .routing(__boundaries.clone(), __dynashard::Some(0usize)),
                )
        }
    }
    #[automatically_derived]
    impl __dynashard::Entity for Album {
        type Table = Music;
        const TYPE_NAME: &'static str = "Album";
        const ATTRIBUTES: __dynashard::Option<&'static [&'static str]> = __DYNASHARD_ATTRIBUTES;
        const SETS: &'static [__dynashard::SetAttribute] = &[];
        type KeyFields = (String, String);
        const KEY_FIELDS: &'static [__dynashard::KeyField] = &[
            __dynashard::KeyField {
                attribute: "artist",
                template: &__DYNASHARD_PK,
                position: 0usize,
                sharded_partition: false,
                store: __dynashard::None,
            },
            __dynashard::KeyField {
                attribute: "title",
                template: &__DYNASHARD_SK,
                position: 0usize,
                sharded_partition: false,
                store: __dynashard::None,
            },
        ];
        const REQUIRED: &'static [&'static str] = &["released"];
        fn primary_key(&self) -> __dynashard::Result<__dynashard::PrimaryKey> {
            __dynashard::Ok(__dynashard::PrimaryKey {
                pk: {
                    let mut __writer = __DYNASHARD_PK.writer();
                    __writer
                        .part::<
                            String,
                        >(
                            "artist",
                            <String as __dynashard::KeyPart>::as_arg(&self.artist),
                        )?;
                    __writer.finish()?
                },
                sk: __dynashard::Some({
                    let mut __writer = __DYNASHARD_SK.writer();
                    __writer.literal("album#");
                    __writer
                        .part::<
                            String,
                        >(
                            "title",
                            <String as __dynashard::KeyPart>::as_arg(&self.title),
                        )?;
                    __writer.finish()?
                }),
            })
        }
        fn write_index_keys(
            &self,
            #[allow(unused_variables)]
            __keys: &mut __dynashard::IndexKeys<'_>,
        ) -> __dynashard::Result<()> {
            {
                {
                    let __value = __keys
                        .partition(
                            &__DYNASHARD_SHARD_0,
                            &{
                                let mut __writer = __DYNASHARD_GSI_0_PK.writer();
                                __writer.literal("album");
                                __writer.finish()?
                            },
                            &self.title,
                            __dynashard::None,
                        )?;
                    __keys.set(__DYNASHARD_GSI_0_PK.attribute, __value)?;
                }
                {
                    let __value = __keys
                        .range_sort_key(&__DYNASHARD_SHARD_0, "title", &self.title)?;
                    __keys.set(__DYNASHARD_GSI_0_SK.attribute, __value)?;
                }
            }
            __dynashard::Ok(())
        }
        fn index_key_updates(
            __key: &__dynashard::Key<Self>,
            __changes: &__dynashard::FieldChanges,
        ) -> __dynashard::Result<__dynashard::Vec<__dynashard::IndexKeyUpdate>> {
            #[allow(unused_mut)]
            let mut __keys = __dynashard::IndexKeys::of_update(
                __key.pk(),
                __key.sk(),
                &__DYNASHARD_TABLE,
            );
            if __changes.creates() {
                let __dynashard_value_title: String = match __changes
                    .value::<String>("ByTitle", "title")
                {
                    __dynashard::Some(value) => value?,
                    __dynashard::None => {
                        return __dynashard::Err(
                            __dynashard::FieldChanges::missing("ByTitle", "title"),
                        );
                    }
                };
                {
                    {
                        let __value = __keys
                            .partition(
                                &__DYNASHARD_SHARD_0,
                                &{
                                    let mut __writer = __DYNASHARD_GSI_0_PK.writer();
                                    __writer.literal("album");
                                    __writer.finish()?
                                },
                                &__dynashard_value_title,
                                __dynashard::None,
                            )?;
                        __keys.set(__DYNASHARD_GSI_0_PK.attribute, __value)?;
                    }
                    {
                        let __value = __keys
                            .range_sort_key(
                                &__DYNASHARD_SHARD_0,
                                "title",
                                &__dynashard_value_title,
                            )?;
                        __keys.set(__DYNASHARD_GSI_0_SK.attribute, __value)?;
                    }
                }
            }
            __dynashard::Ok(__keys.into_updates())
        }
        const SHARDS: &'static [__dynashard::ShardSpec] = &[__DYNASHARD_SHARD_0];
    }
    #[automatically_derived]
    impl __dynashard::FromItem for Album {
        const TYPE_NAMES: &'static [&'static str] = &["Album"];
        fn from_item(
            item: __dynashard::Item,
            skip_other_types: bool,
        ) -> __dynashard::Result<__dynashard::Option<Self>> {
            __dynashard::from_item_checked::<Self>(item, skip_other_types)
        }
    }
};
