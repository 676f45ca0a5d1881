#[allow(non_local_definitions)]
const _: () = {
    #[allow(unused_imports)]
    use ::dynashard::__private_v1 as __dynashard;
    #[allow(dead_code)]
    fn __dynashard_members_share_one_table<
        A: __dynashard::Entity,
        B: __dynashard::Entity<Table = A::Table>,
    >() {}
    #[allow(dead_code)]
    fn __dynashard_collection_checks() {
        let _ = <Album as __dynashard::Entity>::TYPE_NAME;
        __dynashard_members_share_one_table::<Artist, Album>();
    }
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "variants `Artist` and `Album` of collection `ArtistItems` hold entities with the same entity-type name",
            label = "same entity-type name as variant `Artist`",
            note = "a collection tells its items apart by entity-type name; give one of the entities another name with `#[entity(..., name = \"...\")]`"
        )]
        trait EntityTypeNamesDiffer {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl EntityTypeNamesDiffer for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!__dynashard::const_str_eq(
            <Artist as __dynashard::Entity>::TYPE_NAME,
            <Album as __dynashard::Entity>::TYPE_NAME,
        )) as usize] as EntityTypeNamesDiffer>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "variant `Artist` of collection `ArtistItems` holds an entity whose base table is sharded",
            label = "sharded with `#[shard(hash = .., by = ..)]`",
            note = "the entity's items are spread over several partitions, and a collection reads one; remove the entity from the collection, or shard one of its indexes instead of its base table"
        )]
        trait BaseTableIsNotSharded {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl BaseTableIsNotSharded for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (<Artist as __dynashard::Entity>::BASE_TABLE_SHARDS <= 1)
            as usize] as BaseTableIsNotSharded>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "variant `Album` of collection `ArtistItems` holds an entity whose base table is sharded",
            label = "sharded with `#[shard(hash = .., by = ..)]`",
            note = "the entity's items are spread over several partitions, and a collection reads one; remove the entity from the collection, or shard one of its indexes instead of its base table"
        )]
        trait BaseTableIsNotSharded {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl BaseTableIsNotSharded for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (<Album as __dynashard::Entity>::BASE_TABLE_SHARDS <= 1)
            as usize] as BaseTableIsNotSharded>::HOLDS
    };
    #[automatically_derived]
    impl ArtistItems {
        /// A scan of every item of the members' entity types in the table, each decoded as
        /// its variant, in no particular order; run it with `Db::stream`.
        #[allow(dead_code)]
        pub fn scan() -> __dynashard::Scan<Self> {
            __dynashard::Scan::collection()
        }
    }
    #[automatically_derived]
    impl __dynashard::Collection for ArtistItems {
        type Table = <Artist as __dynashard::Entity>::Table;
    }
    #[automatically_derived]
    impl __dynashard::FromItem for ArtistItems {
        const TYPE_NAMES: &'static [&'static str] = &[
            <Artist as __dynashard::Entity>::TYPE_NAME,
            <Album as __dynashard::Entity>::TYPE_NAME,
        ];
        fn from_item(
            item: __dynashard::Item,
            skip_other_types: bool,
        ) -> __dynashard::Result<__dynashard::Option<Self>> {
            let attribute = <<Artist as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION
                .type_attribute;
            let found = match item.get(attribute) {
                __dynashard::Some(__dynashard::AttributeValue::S(name)) => {
                    __dynashard::Some(name.clone())
                }
                _ => __dynashard::None,
            };
            if let __dynashard::Some(found) = found.as_deref() {
                if found == <Artist as __dynashard::Entity>::TYPE_NAME {
                    return __dynashard::from_item::<Artist>(item)
                        .map(|entity| __dynashard::Some(ArtistItems::Artist(entity)));
                }
                if found == <Album as __dynashard::Entity>::TYPE_NAME {
                    return __dynashard::from_item::<Album>(item)
                        .map(|entity| __dynashard::Some(ArtistItems::Album(entity)));
                }
            }
            if skip_other_types {
                return __dynashard::Ok(__dynashard::None);
            }
            __dynashard::Err(__dynashard::Error::UnknownEntityType {
                expected: <Self as __dynashard::FromItem>::TYPE_NAMES,
                found,
            })
        }
    }
};
