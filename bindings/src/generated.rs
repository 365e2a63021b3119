// DRAFT, hand-written: the shape the generator will emit. Replaced by generator output.
#![allow(clippy::all)]

pub mod types {
    /// The environment a request is made in.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::serde::Serialize, ::serde::Deserialize)]
    pub enum ProjectEnv {
        #[serde(rename = "dev")]
        Dev,
        #[serde(rename = "live")]
        Live,
    }
    impl ProjectEnv {
        pub const fn as_str(&self) -> &'static str {
            match self { Self::Dev => "dev", Self::Live => "live" }
        }
    }
    impl ::std::fmt::Display for ProjectEnv {
        fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result { f.write_str(self.as_str()) }
    }
    impl ::std::str::FromStr for ProjectEnv {
        type Err = ::std::string::String;
        fn from_str(s: &str) -> ::std::result::Result<Self, Self::Err> {
            match s { "dev" => Ok(Self::Dev), "live" => Ok(Self::Live), other => Err(format!("`{other}` is not one of: dev, live")) }
        }
    }
    /// Fields defined by the auth section of the component's settings.
    pub type AuthFields = ::serde_json::Map<::std::string::String, ::serde_json::Value>;
    /// The 400 envelope.
    #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
    pub struct ErrorResponse {
        pub code: i64,
        pub message: ::std::string::String,
        pub request_id: ::std::string::String,
        pub status: bool,
    }
    #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
    pub struct ValidationErrorResponse {
        pub code: i64,
        pub errors: ::std::vec::Vec<ValidationError>,
        pub status: bool,
    }
    #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
    pub struct ValidationError {
        pub field: ::std::string::String,
        pub message: ::std::string::String,
        pub rule: ::std::string::String,
    }
    #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
    pub struct Component {
        pub name: ::std::string::String,
        pub requires_auth: bool,
        pub tag: ::std::string::String,
        pub uuid: ::std::string::String,
    }
    #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
    pub struct Model {
        pub fields: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
        pub uuid: ::std::string::String,
    }
    #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
    pub struct AuthClaimsResult {
        pub code: i64,
        pub component: Component,
        pub env: ProjectEnv,
        #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
        pub model: ::std::option::Option<Model>,
        pub status: bool,
    }
    #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
    pub struct AuthorizeResult {
        pub code: i64,
        pub component: Component,
        pub env: ProjectEnv,
        pub model: Model,
        pub status: bool,
        pub token: ::std::string::String,
    }
}
