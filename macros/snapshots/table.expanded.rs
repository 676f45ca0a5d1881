#[allow(non_local_definitions)]
const _: () = {
    #[allow(unused_imports)]
    use ::dynashard::__private_v1 as __dynashard;
    #[automatically_derived]
    impl Music {
        ///The index `ByTitle`, for the operations that name one (resharding, boundaries).
        pub const BY_TITLE: __dynashard::Index<Self> = __dynashard::Index::new(
            "ByTitle",
        );
        ///The index `ByYear`, for the operations that name one (resharding, boundaries).
        pub const BY_YEAR: __dynashard::Index<Self> = __dynashard::Index::new("ByYear");
        ///The index `ByLength`, for the operations that name one (resharding, boundaries).
        pub const BY_LENGTH: __dynashard::Index<Self> = __dynashard::Index::new(
            "ByLength",
        );
    }
    #[automatically_derived]
    impl __dynashard::Table for Music {
        const DEFINITION: __dynashard::TableDefinition = __dynashard::TableDefinition {
            name: "Music",
            partition_key: "pk",
            sort_key: __dynashard::Some("sk"),
            type_attribute: "_type",
            indexes: &[
                __dynashard::IndexDefinition {
                    name: "ByTitle",
                    local: false,
                    partition_key: &[
                        __dynashard::KeyAttribute {
                            name: "title_pk",
                            kind: __dynashard::ScalarKind::String,
                        },
                    ],
                    sort_key: &[
                        __dynashard::KeyAttribute {
                            name: "title_sk",
                            kind: __dynashard::ScalarKind::String,
                        },
                    ],
                    projection: __dynashard::IndexProjection::KeysOnly,
                    warm_throughput: __dynashard::None,
                },
                __dynashard::IndexDefinition {
                    name: "ByYear",
                    local: false,
                    partition_key: &[
                        __dynashard::KeyAttribute {
                            name: "artist",
                            kind: __dynashard::ScalarKind::String,
                        },
                        __dynashard::KeyAttribute {
                            name: "year",
                            kind: __dynashard::ScalarKind::Number,
                        },
                    ],
                    sort_key: &[
                        __dynashard::KeyAttribute {
                            name: "title",
                            kind: __dynashard::ScalarKind::String,
                        },
                    ],
                    projection: __dynashard::IndexProjection::All,
                    warm_throughput: __dynashard::None,
                },
                __dynashard::IndexDefinition {
                    name: "ByLength",
                    local: true,
                    partition_key: &[
                        __dynashard::KeyAttribute {
                            name: "pk",
                            kind: __dynashard::ScalarKind::String,
                        },
                    ],
                    sort_key: &[
                        __dynashard::KeyAttribute {
                            name: "length_sk",
                            kind: __dynashard::ScalarKind::String,
                        },
                    ],
                    projection: __dynashard::IndexProjection::Include(
                        &["seconds", "_type"],
                    ),
                    warm_throughput: __dynashard::None,
                },
            ],
            billing: __dynashard::Billing::PayPerRequest,
            shard_metadata: __dynashard::None,
            ttl: __dynashard::Some("expires"),
            stream: __dynashard::None,
            deletion_protection: false,
            point_in_time_recovery: false,
            warm_throughput: __dynashard::None,
            tags: &[],
        };
    }
};
