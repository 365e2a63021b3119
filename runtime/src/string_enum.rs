//! What every string enum of a spec has besides its variants: the list of
//! its values, its text both ways, and serde through that text. Written once
//! here as [`impl_string_enum!`](crate::impl_string_enum), so generated code
//! holds only the enum and its wire names.

use std::str::FromStr;

/// Reads a string enum from its text, through its `FromStr` (whose error
/// lists the values it takes).
pub fn deserialize_str<'de, T, D>(deserializer: D) -> Result<T, D::Error>
where
    T: FromStr<Err = String>,
    D: serde::Deserializer<'de>,
{
    let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
    text.parse().map_err(serde::de::Error::custom)
}

/// The error of a string enum's `FromStr`: the text and what it can be.
pub fn not_one_of(text: &str, expected: &str) -> String {
    format!("`{text}` is not one of: {expected}")
}

/// Implements, for a fieldless enum, `ALL`, `as_str`, `Display`, `FromStr`
/// and serde `Serialize`/`Deserialize` as the given texts. Written with
/// `else |TEXT| ERROR` after the texts, only `ALL`, `as_str`, `Display` and a
/// `FromStr` whose error is `ERROR`: for a closed set its crate reads its
/// own way (the conformance runner's profile values, `${VAR}` expanded
/// first, the error naming the key).
///
/// ```
/// #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
/// pub enum Env {
///     Dev,
///     Live,
/// }
/// client_runtime::impl_string_enum!(Env { Dev = "dev", Live = "live" });
///
/// assert_eq!(Env::ALL, [Env::Dev, Env::Live]);
/// assert_eq!("live".parse::<Env>(), Ok(Env::Live));
/// assert_eq!(Env::Dev.to_string(), "dev");
/// ```
#[macro_export]
macro_rules! impl_string_enum {
    ($name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        $crate::impl_string_enum!($name { $($variant = $text),* } else |other| {
            $crate::string_enum::not_one_of(other, $crate::__join_texts!($($text),*))
        });

        impl $crate::serde::Serialize for $name {
            fn serialize<S: $crate::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> $crate::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                $crate::string_enum::deserialize_str(deserializer)
            }
        }
    };
    ($name:ident { $($variant:ident = $text:literal),* $(,)? } else |$other:pat_param| $error:expr) => {
        impl $name {
            /// Every value, in the order they are listed.
            pub const ALL: &'static [Self] = &[$(Self::$variant),*];

            /// The value as it is sent.
            pub const fn as_str(&self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)*
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = ::std::string::String;

            fn from_str(value: &str) -> ::std::result::Result<Self, Self::Err> {
                match value {
                    $($text => ::std::result::Result::Ok(Self::$variant),)*
                    $other => ::std::result::Result::Err(::std::string::String::from($error)),
                }
            }
        }
    };
}

/// `"a, b, c"` from the literals `"a"`, `"b"`, `"c"`.
#[doc(hidden)]
#[macro_export]
macro_rules! __join_texts {
    () => {
        ""
    };
    ($first:literal $(, $rest:literal)*) => {
        ::std::concat!($first $(, ", ", $rest)*)
    };
}

#[cfg(test)]
mod tests {
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Env {
        Dev,
        Live,
    }
    crate::impl_string_enum!(Env { Dev = "dev", Live = "li\"ve" });

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Place {
        Query,
        Body,
    }
    crate::impl_string_enum!(Place { Query = "query", Body = "body" } else |text| {
        format!("`{text}` is no place")
    });

    /// The text-only form: the caller's error, and no serde of its own.
    #[test]
    fn text_both_ways_with_the_callers_error() {
        assert_eq!(Place::ALL, [Place::Query, Place::Body]);
        assert_eq!(Place::Body.to_string(), "body");
        assert_eq!("query".parse::<Place>(), Ok(Place::Query));
        assert_eq!(
            "Body".parse::<Place>(),
            Err("`Body` is no place".to_owned())
        );
    }

    #[test]
    fn text_both_ways_and_through_serde() {
        assert_eq!(Env::ALL, [Env::Dev, Env::Live]);
        assert_eq!(Env::Live.as_str(), "li\"ve");
        assert_eq!(Env::Dev.to_string(), "dev");
        assert_eq!("dev".parse::<Env>(), Ok(Env::Dev));
        assert_eq!(
            "Dev".parse::<Env>(),
            Err("`Dev` is not one of: dev, li\"ve".to_owned())
        );
        assert_eq!(serde_json::to_string(&Env::Live).unwrap(), r#""li\"ve""#);
        assert_eq!(
            serde_json::from_str::<Env>(r#""li\"ve""#).unwrap(),
            Env::Live
        );
        let error = serde_json::from_str::<Env>(r#""x""#).unwrap_err();
        assert!(error.to_string().contains("`x` is not one of"), "{error}");
        assert!(serde_json::from_str::<Env>("1").is_err());
    }
}
