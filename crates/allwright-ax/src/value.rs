//! The values of states and properties in the outputs: booleans, numbers and strings, the only
//! kinds the structured snapshot allows ("mixed" is a string).

/// A state or property value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Number(f64),
    String(String),
}

impl Value {
    /// The value as the text tree writes it inside quotes.
    pub fn to_text(&self) -> String {
        match self {
            Value::Bool(value) => value.to_string(),
            Value::Number(value) => format_number(*value),
            Value::String(value) => value.clone(),
        }
    }
}

/// Numbers as JSON and YAML write them: integers without a fraction, others in the shortest
/// form that reads back the same; non-finite numbers (which JSON cannot carry) as 0.
pub fn format_number(value: f64) -> String {
    if !value.is_finite() {
        return "0".to_string();
    }
    if value.fract() == 0.0 && value.abs() < 1e15 {
        return format!("{}", value as i64);
    }
    format!("{value}")
}
