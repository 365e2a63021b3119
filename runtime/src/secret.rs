use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;

/// A credential that must never be printed.
///
/// `Debug` and `Display` both print `[redacted]`; the value is reachable only
/// through [`Secret::expose`], so a secret cannot end up in a log line or a
/// report by accident. It is what a header parameter and every string
/// property the spec marks `format: password` is held in (a token in an
/// answer included); serde reads and writes the plain value, since the wire
/// carries it.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Secret(String);

impl Secret {
    /// What `Debug` and `Display` print in place of the value.
    pub const REDACTED: &'static str = "[redacted]";

    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value itself, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Self::REDACTED)
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Self::REDACTED)
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

impl From<&String> for Secret {
    fn from(value: &String) -> Self {
        Self(value.clone())
    }
}

impl FromStr for Secret {
    type Err = Infallible;

    /// A header's text: any text is a secret.
    fn from_str(value: &str) -> Result<Self, Infallible> {
        Ok(Self(value.to_owned()))
    }
}

impl serde::Serialize for Secret {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Secret {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_prints_its_value() {
        let secret = Secret::new("hunter2");
        assert_eq!(format!("{secret}"), "[redacted]");
        assert_eq!(format!("{secret:?}"), "[redacted]");
        assert_eq!(format!("{:?}", Some(secret.clone())), "Some([redacted])");
        assert_eq!(secret.expose(), "hunter2");
    }

    #[test]
    fn serde_carries_the_plain_value() {
        let secret: Secret = serde_json::from_str("\"hunter2\"").unwrap();
        assert_eq!(secret.expose(), "hunter2");
        assert_eq!(serde_json::to_string(&secret).unwrap(), "\"hunter2\"");
        assert!(serde_json::from_str::<Secret>("1").is_err());
    }
}
