//! How nib shows numbers it computed: lengths to the hundredth of a pixel (layout works in f32;
//! further digits are float noise), and whole numbers without a `.0`, as JavaScript — and so
//! Pen — prints them. One place, so a huge value is handled the same everywhere.

use serde_json::Value;

/// `value` rounded to hundredths.
pub fn hundredths(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// A length for messages: `16`, `16.5`, `16.25` (hundredths, printed as JavaScript does).
pub fn pixels_text(value: f32) -> String {
    crate::doc::json::js_number(hundredths(f64::from(value)))
}

/// A number as JSON the way a file writes it: `14`, not `14.0`; an integer only where it is
/// exact (below 2^53), so a huge value never wraps.
pub fn json_number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 { Value::from(n as i64) } else { serde_json::json!(n) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_print_as_javascript_would_and_huge_ones_do_not_wrap() {
        assert_eq!(pixels_text(16.0), "16");
        assert_eq!(pixels_text(16.504), "16.5");
        assert_eq!(pixels_text(-0.004), "0");
        assert_eq!(pixels_text(3.0e38), "3.0000000054977558e+38");
        assert_eq!(json_number(14.0), serde_json::json!(14));
        assert_eq!(json_number(1e300), serde_json::json!(1e300));
    }
}
