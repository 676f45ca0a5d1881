///Typed handles on the non-key fields of [`Event`], for updates and conditions.
#[derive(Clone, Copy, Debug)]
#[allow(dead_code)]
struct EventFields {
    ///The `kind` attribute.
    pub kind: ::dynashard::__private_v1::Field<Event, String>,
}
#[allow(non_local_definitions)]
const _: () = {
    #[allow(unused_imports)]
    use ::dynashard::__private_v1 as __dynashard;
    #[allow(unused_imports)]
    use __dynashard::NotATable as _;
    #[allow(dead_code)]
    const __DYNASHARD_DEFINITION: &__dynashard::TableDefinition = __dynashard::TableProbe::<
        Events,
    >::DEFINITION;
    #[allow(dead_code)]
    const __DYNASHARD_TABLE_DECLARED: bool = __dynashard::TableProbe::<Events>::DECLARED;
    #[allow(dead_code)]
    const __DYNASHARD_ATTRIBUTES: __dynashard::Option<&[&str]> = __dynashard::Some(
        &["id", "kind"],
    );
    #[allow(dead_code)]
    static __DYNASHARD_TABLE: __dynashard::TableDefinition = *__DYNASHARD_DEFINITION;
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "entity `Event` declares `sk`, but table `Events` has no sort key",
            label = "the table has no sort-key attribute to store this template in",
            note = "remove `sk = \"...\"` from `#[entity(...)]`, or declare a sort key on the table: `#[table(..., sk = \"sk\")]` on `Events`"
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
        source: "event#{id}",
        segments: &[
            __dynashard::Segment::Literal("event#"),
            __dynashard::Segment::Field("id"),
        ],
        role: __dynashard::KeyRole::Partition,
    };
    static __DYNASHARD_SK: __dynashard::KeyTemplate = __dynashard::KeyTemplate {
        attribute: match __DYNASHARD_DEFINITION.sort_key {
            __dynashard::Some(name) => name,
            __dynashard::None => "",
        },
        source: "event",
        segments: &[__dynashard::Segment::Literal("event")],
        role: __dynashard::KeyRole::Sort,
    };
    const __DYNASHARD_SHARD_TABLE: __dynashard::ShardSpec = __dynashard::ShardSpec {
        index: "",
        layout: __dynashard::Layout::Hash {
            shards: 4u32,
        },
        by: &["id"],
        directory: false,
        partition: __dynashard::None,
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `id` is stored as attribute `id`, which is a key attribute of table `Events`",
            label = "stored as `id`",
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
            || (!__dynashard::const_str_eq(__DYNASHARD_DEFINITION.partition_key, "id")
                && !match __DYNASHARD_DEFINITION.sort_key {
                    __dynashard::Some(sort_key) => {
                        __dynashard::const_str_eq(sort_key, "id")
                    }
                    __dynashard::None => false,
                })) as usize] as NotATableKeyAttribute>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `id` is stored as attribute `id`, which is the entity-type attribute of table `Events`",
            label = "stored as `id`",
            note = "dynashard writes each item's entity type (`Event`) in this attribute; give the field another attribute name with `#[serde(rename = \"...\")]`, or rename it, or set another `type_attribute = \"...\"` on the table"
        )]
        trait NotTheTypeAttribute {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl NotTheTypeAttribute for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (!(__DYNASHARD_TABLE_DECLARED)
            || (!__dynashard::const_str_eq(__DYNASHARD_DEFINITION.type_attribute, "id")))
            as usize] as NotTheTypeAttribute>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `kind` is stored as attribute `kind`, which is a key attribute of table `Events`",
            label = "stored as `kind`",
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
            || (!__dynashard::const_str_eq(__DYNASHARD_DEFINITION.partition_key, "kind")
                && !match __DYNASHARD_DEFINITION.sort_key {
                    __dynashard::Some(sort_key) => {
                        __dynashard::const_str_eq(sort_key, "kind")
                    }
                    __dynashard::None => false,
                })) as usize] as NotATableKeyAttribute>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `kind` is stored as attribute `kind`, which is the entity-type attribute of table `Events`",
            label = "stored as `kind`",
            note = "dynashard writes each item's entity type (`Event`) in this attribute; give the field another attribute name with `#[serde(rename = \"...\")]`, or rename it, or set another `type_attribute = \"...\"` on the table"
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
                "kind",
            ))) as usize] as NotTheTypeAttribute>::HOLDS
    };
    #[automatically_derived]
    impl Event {
        ///The primary key of a [`Event`] from its key fields (pk `event#{id}`, sk `event`).
        #[allow(dead_code)]
        pub fn key(
            id: <String as __dynashard::KeyPart>::Arg<'_>,
        ) -> __dynashard::Result<__dynashard::Key<Self>> {
            __dynashard::Ok(
                __dynashard::Key::from_primary(__dynashard::PrimaryKey {
                    pk: __DYNASHARD_SHARD_TABLE
                        .key_partition(
                            &{
                                let mut __writer = __DYNASHARD_PK.writer();
                                __writer.literal("event#");
                                __writer.part::<String>("id", id)?;
                                __writer.finish()?
                            },
                            &{
                                let mut __text = ::std::string::String::new();
                                __dynashard::RoutingText::push_routing_text(
                                    &id,
                                    &mut __text,
                                );
                                __text
                            },
                        )?,
                    sk: __dynashard::Some({
                        let mut __writer = __DYNASHARD_SK.writer();
                        __writer.literal("event");
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
        ///Typed handles on the non-key fields of `Event`.
        #[allow(dead_code)]
        pub const fn fields() -> EventFields {
            EventFields {
                kind: __dynashard::Field::new("kind"),
            }
        }
        ///Items of one partition (pk `event#{id}`, sk `event`, 4 shards merged in sort-key order), in sort-key order; narrow them with the sort-key conditions of [`dynashard::Query`].
        #[allow(dead_code, clippy::type_complexity)]
        pub fn query(
            id: <String as __dynashard::KeyPart>::Arg<'_>,
        ) -> __dynashard::Query<Self, __dynashard::Done> {
            let __boundaries = __DYNASHARD_SHARD_TABLE.current_boundaries();
            let __partition = (|| -> __dynashard::Result<__dynashard::String> {
                __dynashard::Ok({
                    let mut __writer = __DYNASHARD_PK.writer();
                    __writer.literal("event#");
                    __writer.part::<String>("id", id)?;
                    __writer.finish()?
                })
            })();
            #[allow(unused_variables)]
            let __shards = __partition
                .as_ref()
                .ok()
                .map(|__partition| {
                    __DYNASHARD_SHARD_TABLE
                        .shards(
                            __partition,
                            __boundaries.as_ref(),
                            __dynashard::Some(
                                __DYNASHARD_SHARD_TABLE
                                    .shard_of(
                                        &{
                                            let mut __text = ::std::string::String::new();
                                            __dynashard::RoutingText::push_routing_text(
                                                &id,
                                                &mut __text,
                                            );
                                            __text
                                        },
                                    ),
                            ),
                            __dynashard::None,
                            false,
                        )
                });
            let __query: __dynashard::Query<Self, __dynashard::Done> = __dynashard::Query::new(
                __dynashard::QueryTarget {
                    table: &__DYNASHARD_TABLE,
                    index: __dynashard::None,
                    type_name: "Event",
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
                .routed(
                    __DYNASHARD_SHARD_TABLE
                        .routing(__boundaries.clone(), __dynashard::None),
                )
        }
    }
    #[automatically_derived]
    impl __dynashard::Entity for Event {
        type Table = Events;
        const TYPE_NAME: &'static str = "Event";
        const ATTRIBUTES: __dynashard::Option<&'static [&'static str]> = __DYNASHARD_ATTRIBUTES;
        const SETS: &'static [__dynashard::SetAttribute] = &[];
        type KeyFields = (String,);
        const KEY_FIELDS: &'static [__dynashard::KeyField] = &[
            __dynashard::KeyField {
                attribute: "id",
                template: &__DYNASHARD_PK,
                position: 0usize,
                sharded_partition: true,
                store: __dynashard::None,
            },
        ];
        const REQUIRED: &'static [&'static str] = &["kind"];
        const BASE_TABLE_SHARDS: u32 = 4u32;
        fn primary_key(&self) -> __dynashard::Result<__dynashard::PrimaryKey> {
            __dynashard::Ok(__dynashard::PrimaryKey {
                pk: __DYNASHARD_SHARD_TABLE
                    .key_partition(
                        &{
                            let mut __writer = __DYNASHARD_PK.writer();
                            __writer.literal("event#");
                            __writer
                                .part::<
                                    String,
                                >(
                                    "id",
                                    <String as __dynashard::KeyPart>::as_arg(&self.id),
                                )?;
                            __writer.finish()?
                        },
                        &{
                            let mut __text = ::std::string::String::new();
                            __dynashard::RoutingText::push_routing_text(
                                &<String as __dynashard::KeyPart>::as_arg(&self.id),
                                &mut __text,
                            );
                            __text
                        },
                    )?,
                sk: __dynashard::Some({
                    let mut __writer = __DYNASHARD_SK.writer();
                    __writer.literal("event");
                    __writer.finish()?
                }),
            })
        }
        const SHARDS: &'static [__dynashard::ShardSpec] = &[__DYNASHARD_SHARD_TABLE];
    }
    #[automatically_derived]
    impl __dynashard::FromItem for Event {
        const TYPE_NAMES: &'static [&'static str] = &["Event"];
        fn from_item(
            item: __dynashard::Item,
            skip_other_types: bool,
        ) -> __dynashard::Result<__dynashard::Option<Self>> {
            __dynashard::from_item_checked::<Self>(item, skip_other_types)
        }
    }
};
