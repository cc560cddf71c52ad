//! The keys of the config file, and the one probably meant by a key it does not have: a
//! typo names its nearest key rather than all of them.

use serde::de::{DeserializeOwned, Deserializer, Visitor};

/// Every field name of the struct `T` (aliases included), as serde reads them. The derive
/// hands the list to `deserialize_struct`: read from there, it cannot drift from `T`.
pub(super) fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut names = FieldNames(&[]);
    // The deserializer stops with an error once it has the names: nothing else is read.
    let _ = T::deserialize(&mut names);
    names.0
}

/// The known key nearest to `typed`, by the rule that names the flag meant.
pub(super) use crate::cli::nearest_name as nearest_key;

/// Records the field names serde's derive passes to `deserialize_struct`.
struct FieldNames(&'static [&'static str]);

impl<'de> Deserializer<'de> for &mut FieldNames {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0 = fields;
        Err(serde::de::Error::custom("only the field names are read"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests;
