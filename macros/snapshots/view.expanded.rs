#[allow(non_local_definitions)]
const _: () = {
    #[allow(unused_imports)]
    use ::dynashard::__private_v1 as __dynashard;
    #[allow(dead_code, non_snake_case)]
    fn __dynashard_view_fields_of_AlbumTitle(entity: &Album) {
        let _: &String = &entity.title;
        let _: &u16 = &entity.released;
    }
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `title` of view `AlbumTitle` is read from attribute `title`, which entity `Album` does not write",
            label = "read from `title`",
            note = "a view's fields are stored as the entity's are: give `AlbumTitle` the same serde renames as `Album`"
        )]
        trait ViewAttributeIsTheEntitys {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl ViewAttributeIsTheEntitys for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (match <Album as __dynashard::Entity>::ATTRIBUTES {
            __dynashard::Some(attributes) => __dynashard::contains(attributes, "title"),
            __dynashard::None => true,
        }) as usize] as ViewAttributeIsTheEntitys>::HOLDS
    };
    const _: () = {
        #[diagnostic::on_unimplemented(
            message = "field `released` of view `AlbumTitle` is read from attribute `year`, which entity `Album` does not write",
            label = "read from `year`",
            note = "a view's fields are stored as the entity's are: give `AlbumTitle` the same serde renames as `Album`"
        )]
        trait ViewAttributeIsTheEntitys {
            const HOLDS: ();
        }
        #[diagnostic::do_not_recommend]
        impl ViewAttributeIsTheEntitys for [(); 1] {
            const HOLDS: () = ();
        }
        <[(); (match <Album as __dynashard::Entity>::ATTRIBUTES {
            __dynashard::Some(attributes) => __dynashard::contains(attributes, "year"),
            __dynashard::None => true,
        }) as usize] as ViewAttributeIsTheEntitys>::HOLDS
    };
    #[automatically_derived]
    impl __dynashard::View for AlbumTitle {
        type Entity = Album;
        const ATTRIBUTES: &'static [&'static str] = &["title", "year"];
    }
    #[automatically_derived]
    impl __dynashard::FromItem for AlbumTitle {
        const TYPE_NAMES: &'static [&'static str] = &[
            <Album as __dynashard::Entity>::TYPE_NAME,
        ];
        fn from_item(
            item: __dynashard::Item,
            skip_other_types: bool,
        ) -> __dynashard::Result<__dynashard::Option<Self>> {
            __dynashard::view_from_item::<Album, Self>(item, skip_other_types)
        }
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<0usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    0usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<1usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    1usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<2usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    2usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<3usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    3usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<4usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    4usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<5usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    5usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<6usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    6usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<7usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    7usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<8usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    8usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<9usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    9usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<10usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    10usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<11usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    11usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<12usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    12usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<13usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    13usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<14usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    14usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<15usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    15usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<16usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    16usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<17usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    17usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<18usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    18usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<19usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    19usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<20usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    20usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<21usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    21usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<22usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    22usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<23usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    23usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
    #[automatically_derived]
    impl __dynashard::CoveredBy<__dynashard::IndexSlot<24usize>> for AlbumTitle {
        type Verdict = __dynashard::Verdict<
            {
                __dynashard::slot_covers(
                    <<Album as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF,
                    24usize,
                    __dynashard::Some(&["title", "year"]),
                )
            },
        >;
    }
};
