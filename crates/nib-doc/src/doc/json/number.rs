//! Numbers printed the way JavaScript's `Number.prototype.toString` prints them.
//!
//! Pen writes files with `JSON.stringify`, so `100` stays `100` (never `100.0`), `1e21` becomes
//! `1e+21` and `0.0000001` becomes `1e-7`. Both JavaScript and Rust pick the shortest digit string
//! that reads back to the same `f64`; only the placement of the decimal point and the exponent
//! differ, and that placement is what this module reproduces (ECMA-262, Number::toString).

use std::fmt::Write;

/// Integers below this magnitude convert to `i64` exactly and print without the float machinery.
const EXACT_INTEGER_LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53

/// `value` as JavaScript prints it (`1e+308`, `0.1`, `14`), for messages.
pub fn js_number(value: f64) -> String {
    let mut text = String::new();
    write_js_number(&mut text, value);
    text
}

/// Appends `value` to `out` as JavaScript would print it. Non-finite values print as `null`,
/// which is what `JSON.stringify` writes for them.
pub fn write_js_number(out: &mut String, value: f64) {
    if !value.is_finite() {
        out.push_str("null");
        return;
    }
    if value == 0.0 {
        // JavaScript prints -0 as "0".
        out.push('0');
        return;
    }
    if value.fract() == 0.0 && value.abs() < EXACT_INTEGER_LIMIT {
        let _ = write!(out, "{}", value as i64);
        return;
    }
    if value < 0.0 {
        out.push('-');
    }
    // `{:e}` gives the shortest round-trip digits as `d.ddde±x`.
    let mut scientific = String::with_capacity(32);
    let _ = write!(scientific, "{:e}", value.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    place_decimal_point(out, &digits, exponent + 1);
}

/// Writes `0.d1d2d3… × 10^n` in JavaScript's layout: plain notation for `-6 < n <= 21`,
/// exponent notation otherwise.
fn place_decimal_point(out: &mut String, digits: &str, n: i32) {
    let k = digits.len() as i32;
    if k <= n && n <= 21 {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(digits);
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let e = n - 1;
        out.push('e');
        out.push(if e >= 0 { '+' } else { '-' });
        let _ = write!(out, "{}", e.abs());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(value: f64) -> String {
        let mut s = String::new();
        write_js_number(&mut s, value);
        s
    }

    #[test]
    fn integers_print_without_a_fraction() {
        assert_eq!(js(100.0), "100");
        assert_eq!(js(-1.0), "-1");
        assert_eq!(js(-0.0), "0");
        assert_eq!(js(9007199254740993.0), "9007199254740992");
        assert_eq!(js(1e20), "100000000000000000000");
        assert_eq!(js(123456789012345680000.0), "123456789012345680000");
    }

    #[test]
    fn fractions_use_the_shortest_round_trip_digits() {
        assert_eq!(js(0.5), "0.5");
        assert_eq!(js(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(js(-12.000000000000002), "-12.000000000000002");
        assert_eq!(js(2100.160669376255), "2100.160669376255");
        assert_eq!(js(0.000001), "0.000001");
        assert_eq!(js(0.41666698455810547), "0.41666698455810547");
    }

    #[test]
    fn exponents_follow_javascript_thresholds() {
        assert_eq!(js(1e21), "1e+21");
        assert_eq!(js(1.5e21), "1.5e+21");
        assert_eq!(js(1e-7), "1e-7");
        assert_eq!(js(1.5e-7), "1.5e-7");
        assert_eq!(js(9.213866198408551e-15), "9.213866198408551e-15");
        assert_eq!(js(1.1368683772161603e-13), "1.1368683772161603e-13");
        assert_eq!(js(5e-324), "5e-324");
        assert_eq!(js(f64::MAX), "1.7976931348623157e+308");
        assert_eq!(js(-2.5e-8), "-2.5e-8");
    }

    #[test]
    fn non_finite_values_print_as_null() {
        assert_eq!(js(f64::NAN), "null");
        assert_eq!(js(f64::INFINITY), "null");
    }
}
