//! A row's fields as typed cells, straight from its serde form: what the typed-column
//! formats (Parquet) write. A row's fields become [`Cell`]s by a serde serializer that keeps
//! each primitive as it is, so a row is not written out as JSON text and parsed back (which
//! cost Parquet most of its time: every second formatted as decimal digits, then read back).
//!
//! The cells are those the row's JSON would read back as, so the two paths agree: `None`,
//! unit and NaN or an infinity are null; integers are `Int` (an unsigned one beyond `i64` is
//! `Float`, as a JSON reader takes it); a unit variant is its name; a nested value (a
//! sequence, a map, a struct, a variant with data) is its compact JSON text.

use serde::ser::{self, Serialize};
// A nested value's compact JSON text is built by serde_json's own value serializer.
use serde_json::value::Serializer as Json;

/// One cell of a row, as a typed column holds it.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// An empty option, unit, or a float that is not finite (JSON's `null`).
    Null,
    /// A boolean.
    Bool(bool),
    /// A whole number.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// A string, or a nested value as its compact JSON text.
    Text(String),
}

/// Gives the fields of `row` (a struct, or a map with string keys, such as a struct with
/// flattened fields) to `out` in serde order, as (name, cell).
///
/// Errors: a row that is not a struct or a map, or the row's own serialize error.
pub fn write_cells<T: Serialize + ?Sized>(
    row: &T,
    out: &mut dyn FnMut(&str, Cell),
) -> Result<(), serde_json::Error> {
    row.serialize(Fields { out, key: None })
}

/// Not a row: what [`write_cells`] refuses.
fn not_a_row() -> serde_json::Error {
    ser::Error::custom("a row must be a struct or a map of named fields")
}

/// The serializer of a whole row: takes a struct or a map, gives each field's cell to `out`.
struct Fields<'o> {
    out: &'o mut dyn FnMut(&str, Cell),
    /// A map's key, between `serialize_key` and `serialize_value`.
    key: Option<String>,
}

/// Refuses every serialize method but the struct and map ones: a row is named fields.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $method(self, $(_: $arg),*) -> Result<(), serde_json::Error> {
            Err(not_a_row())
        })*
    };
}

impl ser::Serializer for Fields<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = ser::Impossible<(), serde_json::Error>;
    type SerializeTuple = ser::Impossible<(), serde_json::Error>;
    type SerializeTupleStruct = ser::Impossible<(), serde_json::Error>;
    type SerializeTupleVariant = ser::Impossible<(), serde_json::Error>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = ser::Impossible<(), serde_json::Error>;

    refuse! {
        serialize_bool(bool), serialize_i8(i8), serialize_i16(i16), serialize_i32(i32),
        serialize_i64(i64), serialize_u8(u8), serialize_u16(u16), serialize_u32(u32),
        serialize_u64(u64), serialize_f32(f32), serialize_f64(f64), serialize_char(char),
        serialize_str(&str), serialize_bytes(&[u8]), serialize_none(), serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    }

    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), serde_json::Error> {
        v.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), serde_json::Error> {
        v.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), serde_json::Error> {
        Err(not_a_row())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, serde_json::Error> {
        Err(not_a_row())
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, serde_json::Error> {
        Err(not_a_row())
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, serde_json::Error> {
        Err(not_a_row())
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, serde_json::Error> {
        Err(not_a_row())
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self, serde_json::Error> {
        Ok(self)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, serde_json::Error> {
        Ok(self)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, serde_json::Error> {
        Err(not_a_row())
    }
}

impl ser::SerializeStruct for Fields<'_> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        v: &T,
    ) -> Result<(), serde_json::Error> {
        (self.out)(name, v.serialize(CellOf)?);
        Ok(())
    }

    fn end(self) -> Result<(), serde_json::Error> {
        Ok(())
    }
}

impl ser::SerializeMap for Fields<'_> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), serde_json::Error> {
        // A JSON object's keys are strings: a number key becomes its digits there too.
        self.key = Some(match serde_json::to_value(k)? {
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        });
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), serde_json::Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| ser::Error::custom("a map value without its key"))?;
        (self.out)(&key, v.serialize(CellOf)?);
        Ok(())
    }

    fn end(self) -> Result<(), serde_json::Error> {
        Ok(())
    }
}

/// The serializer of one field's value into its [`Cell`].
struct CellOf;

/// A float as JSON reads it back: finite ones as they are, the others null.
fn float(v: f64) -> Cell {
    if v.is_finite() {
        Cell::Float(v)
    } else {
        Cell::Null
    }
}

impl ser::Serializer for CellOf {
    type Ok = Cell;
    type Error = serde_json::Error;
    type SerializeSeq = Nested<<Json as ser::Serializer>::SerializeSeq>;
    type SerializeTuple = Nested<<Json as ser::Serializer>::SerializeTuple>;
    type SerializeTupleStruct = Nested<<Json as ser::Serializer>::SerializeTupleStruct>;
    type SerializeTupleVariant = Nested<<Json as ser::Serializer>::SerializeTupleVariant>;
    type SerializeMap = Nested<<Json as ser::Serializer>::SerializeMap>;
    type SerializeStruct = Nested<<Json as ser::Serializer>::SerializeStruct>;
    type SerializeStructVariant = Nested<<Json as ser::Serializer>::SerializeStructVariant>;

    fn serialize_bool(self, v: bool) -> Result<Cell, serde_json::Error> {
        Ok(Cell::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Cell, serde_json::Error> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Cell, serde_json::Error> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Cell, serde_json::Error> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Cell, serde_json::Error> {
        Ok(Cell::Int(v))
    }
    fn serialize_i128(self, v: i128) -> Result<Cell, serde_json::Error> {
        Ok(i64::try_from(v).map_or(Cell::Float(v as f64), Cell::Int))
    }
    fn serialize_u8(self, v: u8) -> Result<Cell, serde_json::Error> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Cell, serde_json::Error> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Cell, serde_json::Error> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Cell, serde_json::Error> {
        Ok(i64::try_from(v).map_or(Cell::Float(v as f64), Cell::Int))
    }
    fn serialize_u128(self, v: u128) -> Result<Cell, serde_json::Error> {
        Ok(i64::try_from(v).map_or(Cell::Float(v as f64), Cell::Int))
    }
    fn serialize_f32(self, v: f32) -> Result<Cell, serde_json::Error> {
        // JSON writes an f32 as its own shortest decimal, which reads back as that f64.
        Ok(float(v.to_string().parse().unwrap_or(f64::NAN)))
    }
    fn serialize_f64(self, v: f64) -> Result<Cell, serde_json::Error> {
        Ok(float(v))
    }
    fn serialize_char(self, v: char) -> Result<Cell, serde_json::Error> {
        Ok(Cell::Text(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Cell, serde_json::Error> {
        Ok(Cell::Text(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Cell, serde_json::Error> {
        Ok(text(Json.serialize_bytes(v)?))
    }
    fn serialize_none(self) -> Result<Cell, serde_json::Error> {
        Ok(Cell::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Cell, serde_json::Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Cell, serde_json::Error> {
        Ok(Cell::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Cell, serde_json::Error> {
        Ok(Cell::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Cell, serde_json::Error> {
        Ok(Cell::Text(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Cell, serde_json::Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<Cell, serde_json::Error> {
        Ok(text(
            Json.serialize_newtype_variant(name, index, variant, v)?,
        ))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, serde_json::Error> {
        Json.serialize_seq(len).map(Nested)
    }
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, serde_json::Error> {
        Json.serialize_tuple(len).map(Nested)
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, serde_json::Error> {
        Json.serialize_tuple_struct(name, len).map(Nested)
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, serde_json::Error> {
        Json.serialize_tuple_variant(name, index, variant, len)
            .map(Nested)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, serde_json::Error> {
        Json.serialize_map(len).map(Nested)
    }
    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, serde_json::Error> {
        Json.serialize_struct(name, len).map(Nested)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, serde_json::Error> {
        Json.serialize_struct_variant(name, index, variant, len)
            .map(Nested)
    }
}

/// A nested value's JSON as a text cell (`null` stays null, as JSON reads it back).
fn text(v: serde_json::Value) -> Cell {
    match v {
        serde_json::Value::Null => Cell::Null,
        v => Cell::Text(v.to_string()),
    }
}

/// A nested value being built by serde_json's value serializer; its end is a text cell.
struct Nested<S>(S);

/// Forwards one compound serializer trait to serde_json's, ending in a [`Cell`].
macro_rules! nested {
    ($trait:ident, $method:ident($($name:ident: $ty:ty),*)) => {
        impl<S: ser::$trait<Ok = serde_json::Value, Error = serde_json::Error>> ser::$trait
            for Nested<S>
        {
            type Ok = Cell;
            type Error = serde_json::Error;
            fn $method<T: Serialize + ?Sized>(
                &mut self,
                $($name: $ty,)*
                v: &T,
            ) -> Result<(), serde_json::Error> {
                self.0.$method($($name,)* v)
            }
            fn end(self) -> Result<Cell, serde_json::Error> {
                self.0.end().map(text)
            }
        }
    };
}

nested!(SerializeSeq, serialize_element());
nested!(SerializeTuple, serialize_element());
nested!(SerializeTupleStruct, serialize_field());
nested!(SerializeTupleVariant, serialize_field());
nested!(SerializeStruct, serialize_field(key: &'static str));
nested!(SerializeStructVariant, serialize_field(key: &'static str));

impl<S: ser::SerializeMap<Ok = serde_json::Value, Error = serde_json::Error>> ser::SerializeMap
    for Nested<S>
{
    type Ok = Cell;
    type Error = serde_json::Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), serde_json::Error> {
        self.0.serialize_key(k)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), serde_json::Error> {
        self.0.serialize_value(v)
    }
    fn end(self) -> Result<Cell, serde_json::Error> {
        self.0.end().map(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(serde::Serialize)]
    enum Kind {
        Plain,
        With(u8),
    }

    #[derive(serde::Serialize)]
    struct Inner {
        host: &'static str,
    }

    #[derive(serde::Serialize)]
    struct Row {
        n: u32,
        big: u64,
        t_s: f64,
        nan: f64,
        gone: Option<f64>,
        flag: bool,
        name: String,
        kind: Kind,
        with: Kind,
        list: Vec<u8>,
        map: BTreeMap<&'static str, f64>,
        #[serde(flatten)]
        inner: Inner,
    }

    /// The cells a row's JSON reads back as, the way Parquet read them before.
    fn through_json(row: &Row) -> Vec<(String, Cell)> {
        let v: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&serde_json::to_string(row).unwrap()).unwrap();
        v.into_iter()
            .map(|(k, v)| {
                let cell = match v {
                    serde_json::Value::Null => Cell::Null,
                    serde_json::Value::Bool(b) => Cell::Bool(b),
                    serde_json::Value::Number(n) => n
                        .as_i64()
                        .map_or(Cell::Float(n.as_f64().unwrap()), Cell::Int),
                    serde_json::Value::String(s) => Cell::Text(s),
                    other => Cell::Text(other.to_string()),
                };
                (k, cell)
            })
            .collect()
    }

    #[test]
    fn cells_are_what_the_row_s_json_reads_back_as() {
        let row = Row {
            n: 3,
            big: u64::MAX,
            t_s: 1.0,
            nan: f64::NAN,
            gone: None,
            flag: true,
            name: "r\"0".into(),
            kind: Kind::Plain,
            with: Kind::With(2),
            list: vec![1, 2],
            map: [("b", 0.5), ("a", 2.0)].into_iter().collect(),
            inner: Inner { host: "h" },
        };
        let mut cells = Vec::new();
        write_cells(&row, &mut |k, c| cells.push((k.to_string(), c))).unwrap();
        assert_eq!(cells[0], ("n".into(), Cell::Int(3)));
        assert_eq!(cells[1], ("big".into(), Cell::Float(u64::MAX as f64)));
        assert_eq!(cells[2], ("t_s".into(), Cell::Float(1.0)));
        assert_eq!(cells[3], ("nan".into(), Cell::Null));
        assert_eq!(
            cells[8],
            ("with".into(), Cell::Text(r#"{"With":2}"#.into()))
        );
        assert_eq!(cells[11], ("host".into(), Cell::Text("h".into())));
        // The JSON map sorts its keys (serde_json without preserve_order): compare sorted.
        let mut json = through_json(&row);
        json.sort_by(|a, b| a.0.cmp(&b.0));
        cells.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(cells, json);
    }

    #[test]
    fn a_value_that_is_not_named_fields_is_refused() {
        let err = write_cells(&3u8, &mut |_, _| {}).unwrap_err();
        assert!(err.to_string().contains("struct or a map"), "{err}");
    }
}
