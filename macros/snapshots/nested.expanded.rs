///Typed handles on the fields of a [`Address`] stored in an attribute of entity `E`.
#[allow(dead_code)]
struct AddressFields<E> {
    ///The `city` entry.
    pub city: ::dynashard::__private_v1::NestedField<E, String>,
    ///The `zip` entry.
    pub post_code: ::dynashard::__private_v1::NestedField<E, String>,
}
#[allow(non_local_definitions)]
const _: () = {
    #[allow(unused_imports)]
    use ::dynashard::__private_v1 as __dynashard;
    #[automatically_derived]
    impl __dynashard::Nested for Address {
        type Fields<E> = AddressFields<E>;
        fn fields<E>(parent: &__dynashard::NestedField<E, Self>) -> AddressFields<E> {
            AddressFields {
                city: parent.member("city"),
                post_code: parent.member("zip"),
            }
        }
    }
};
