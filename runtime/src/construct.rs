//! The constructor of a generated struct, written once here rather than in
//! every struct of every API.

/// Implements `new` for a generated struct: its required fields as
/// parameters, in the spec's order, each optional field `None`.
///
/// Generated structs are `#[non_exhaustive]`, so that a property the spec
/// adds later (optional) breaks no code in another crate: such code builds
/// them with `new` (or `Default`) and matches them with `..`.
///
/// ```
/// #[non_exhaustive]
/// pub struct Pet {
///     pub id: i64,
///     pub tag: Option<String>,
/// }
/// client_runtime::impl_new!(Pet(id: i64), tag);
///
/// let pet = Pet::new(7);
/// assert_eq!((pet.id, pet.tag), (7, None));
/// ```
#[macro_export]
macro_rules! impl_new {
    ($name:ident ($($required:ident: $ty:ty),* $(,)?) $(, $optional:ident)* $(,)?) => {
        impl $name {
            /// Its required fields, in the spec's order; every optional
            /// field `None`. `#[inline]`: compiled in the crate that
            /// builds one, not for every type of the API.
            #[inline]
            #[allow(clippy::too_many_arguments)]
            pub fn new($($required: $ty),*) -> Self {
                Self {
                    $($required,)*
                    $($optional: ::std::option::Option::None,)*
                }
            }
        }
    };
}
