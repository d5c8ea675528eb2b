//! What the two core targets (facts_core, html_core) generate alike: attribute values that refer
//! to the ids the generators give nodes (`n<index>`), so that ID references hit and loop, and the
//! one property every output must have.

use arbitrary::Arbitrary;

#[derive(Arbitrary, Debug)]
pub enum AttributeValue {
    /// `n<index>`, the id the generator gives node `index`, so that references hit.
    IdOf(u8),
    IdsOf(Vec<u8>),
    Number(i32),
    Text(String),
}

impl AttributeValue {
    /// The value as the attribute holds it.
    pub fn text(&self) -> String {
        match self {
            AttributeValue::IdOf(index) => format!("n{index}"),
            AttributeValue::IdsOf(indices) => indices
                .iter()
                .map(|index| format!("n{index}"))
                .collect::<Vec<_>>()
                .join(" "),
            AttributeValue::Number(number) => number.to_string(),
            AttributeValue::Text(text) => text.clone(),
        }
    }
}

/// Every output of the core's two operations is one of the two envelopes the content script
/// reads.
pub fn assert_envelope(output: &str) {
    assert!(
        output.starts_with("{\"ok\":true") || output.starts_with("{\"ok\":false"),
        "an output that is not an envelope: {:?}",
        output.chars().take(80).collect::<String>()
    );
}
