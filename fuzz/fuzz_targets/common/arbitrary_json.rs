//! Arbitrary JSON values for the fuzz targets that check a round trip: nulls, booleans,
//! integers, texts (any Unicode, so escapes are exercised), arrays and objects, a few levels deep.
//! No floating-point numbers: serde_json reads some decimal texts back one unit in the last place
//! away unless its `float_roundtrip` feature is on, which would be a difference of the JSON
//! library, not of the code under test.

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Value};

/// How deep a generated value nests; deeper values add nothing to a round trip but time.
const MAX_DEPTH: u32 = 4;
/// The most members an array or object gets.
const MAX_MEMBERS: usize = 4;

pub fn arbitrary_value(input: &mut Unstructured) -> Result<Value> {
    value_at_depth(input, 0)
}

fn value_at_depth(input: &mut Unstructured, depth: u32) -> Result<Value> {
    let kinds = if depth >= MAX_DEPTH { 4 } else { 6 };
    Ok(match input.int_in_range(0..=kinds)? {
        0 => Value::Null,
        1 => Value::Bool(input.arbitrary()?),
        2 => Value::from(input.arbitrary::<i64>()?),
        3 => Value::from(input.arbitrary::<u64>()?),
        4 => Value::String(input.arbitrary()?),
        5 => {
            let count = input.int_in_range(0..=MAX_MEMBERS)?;
            let mut items = Vec::with_capacity(count);
            for _ in 0..count {
                items.push(value_at_depth(input, depth + 1)?);
            }
            Value::Array(items)
        }
        _ => {
            let count = input.int_in_range(0..=MAX_MEMBERS)?;
            let mut members = Map::new();
            for _ in 0..count {
                let name: String = input.arbitrary()?;
                members.insert(name, value_at_depth(input, depth + 1)?);
            }
            Value::Object(members)
        }
    })
}

/// How many values `value` holds, itself included: a measure of a decoded message's size that
/// does not depend on how the JSON library writes numbers.
#[allow(dead_code)]
pub fn count_values(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(count_values).sum(),
        Value::Object(members) => members.values().map(count_values).sum(),
        _ => 0,
    }
}
