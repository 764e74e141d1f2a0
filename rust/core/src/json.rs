//! A minimal JSON object writer for the decision log: rein-core has no dependencies, and its
//! records are flat objects of numbers, strings, booleans and small nested objects.

use std::fmt::Write as _;

/// One JSON object under construction. Non-finite numbers are written as `null`. A muted object
/// writes nothing (`muted`).
pub struct Obj {
    /// None when muted.
    out: Option<String>,
}

impl Obj {
    pub fn new() -> Obj {
        Obj::with_capacity(128)
    }

    /// An object whose text is expected to come to about `bytes`: room made once, not grown
    /// step by step (a decision log's record is several hundred bytes).
    pub fn with_capacity(bytes: usize) -> Obj {
        let mut out = String::with_capacity(bytes);
        out.push('{');
        Obj { out: Some(out) }
    }

    /// An object that writes nothing, and finishes as an empty string: for a record built beside
    /// bookkeeping that must happen anyway, when the record itself will not be kept (a decision
    /// log past its bound).
    pub fn muted() -> Obj {
        Obj { out: None }
    }

    /// Writes the key and hands back the text to write its value into; None when muted.
    fn key(&mut self, k: &str) -> Option<&mut String> {
        let out = self.out.as_mut()?;
        if out.len() > 1 {
            out.push(',');
        }
        string(out, k);
        out.push(':');
        Some(out)
    }

    pub fn str(mut self, k: &str, v: &str) -> Obj {
        if let Some(out) = self.key(k) {
            string(out, v);
        }
        self
    }

    /// A string value written straight from `v`'s `Display`, without a string of its own first.
    pub fn text(mut self, k: &str, v: &impl std::fmt::Display) -> Obj {
        if let Some(out) = self.key(k) {
            out.push('"');
            let _ = write!(Escaped(out), "{v}");
            out.push('"');
        }
        self
    }

    pub fn opt_str(self, k: &str, v: Option<&str>) -> Obj {
        match v {
            Some(v) => self.str(k, v),
            None => self.raw(k, "null"),
        }
    }

    pub fn num(mut self, k: &str, v: f64) -> Obj {
        if let Some(out) = self.key(k) {
            number(out, v);
        }
        self
    }

    pub fn opt_num(self, k: &str, v: Option<f64>) -> Obj {
        self.num(k, v.unwrap_or(f64::NAN))
    }

    pub fn int(mut self, k: &str, v: i64) -> Obj {
        if let Some(out) = self.key(k) {
            let _ = write!(out, "{v}");
        }
        self
    }

    pub fn opt_int(self, k: &str, v: Option<i64>) -> Obj {
        match v {
            Some(v) => self.int(k, v),
            None => self.raw(k, "null"),
        }
    }

    pub fn boolean(mut self, k: &str, v: bool) -> Obj {
        if let Some(out) = self.key(k) {
            out.push_str(if v { "true" } else { "false" });
        }
        self
    }

    pub fn strs<'a>(mut self, k: &str, vs: impl IntoIterator<Item = &'a str>) -> Obj {
        if let Some(out) = self.key(k) {
            out.push('[');
            for (i, v) in vs.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(out, v);
            }
            out.push(']');
        }
        self
    }

    /// A value that is already JSON (a nested object).
    pub fn raw(mut self, k: &str, json: &str) -> Obj {
        if let Some(out) = self.key(k) {
            out.push_str(json);
        }
        self
    }

    /// The object's text; empty when muted.
    pub fn finish(self) -> String {
        match self.out {
            Some(mut out) => {
                out.push('}');
                out
            }
            None => String::new(),
        }
    }
}

impl Default for Obj {
    fn default() -> Obj {
        Obj::new()
    }
}

fn number(out: &mut String, v: f64) {
    if !v.is_finite() {
        out.push_str("null");
    } else if v == v.trunc() && v.abs() < 1e15 {
        let _ = write!(out, "{}", v as i64);
    } else {
        seven_digits(out, v);
    }
}

/// Seven significant digits are plenty for estimates and keep lines short: `v` rounded to them in
/// decimal and written as that decimal, without trailing zeros and without an exponent (as
/// `{}` writes an f64). That is the text of the shortest decimal that reads back as the rounded
/// number, since no other decimal of at most seven digits lies within a part in 10^15 of it.
fn seven_digits(out: &mut String, v: f64) {
    // `{:.6e}`: an optional sign, a digit, a point, six digits, `e`, the exponent; on the stack.
    let mut buf = Digits { bytes: [0; 32], len: 0 };
    let _ = write!(buf, "{v:.6e}");
    let text = std::str::from_utf8(&buf.bytes[..buf.len]).unwrap_or("");
    let Some((mantissa, exp)) = text.split_once('e') else { return out.push_str("null") };
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = mantissa.strip_prefix('-').map_or(("", mantissa), |m| ("-", m));
    let mut digits = [b'0'; 7];
    let mut n = 0;
    for b in mantissa.bytes().filter(u8::is_ascii_digit).take(7) {
        digits[n] = b;
        n += 1;
    }
    while n > 1 && digits[n - 1] == b'0' {
        n -= 1;
    }
    let digits = std::str::from_utf8(&digits[..n]).unwrap_or("0");
    out.push_str(sign);
    // The point goes after the first `exp + 1` digits.
    let point = exp + 1;
    if point <= 0 {
        out.push_str("0.");
        (0..-point).for_each(|_| out.push('0'));
        out.push_str(digits);
    } else if point as usize >= n {
        out.push_str(digits);
        (n..point as usize).for_each(|_| out.push('0'));
    } else {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    }
}

/// A number's text on the stack: `{:.6e}` of an f64 is at most 14 bytes (`-1.234567e-308`).
struct Digits {
    bytes: [u8; 32],
    len: usize,
}

impl std::fmt::Write for Digits {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

fn string(out: &mut String, s: &str) {
    out.push('"');
    escape(out, s);
    out.push('"');
}

/// Writes `s` as the inside of a JSON string. Most strings need no escape: copied whole, up to
/// the first byte that does.
fn escape(out: &mut String, s: &str) {
    let mut rest = s;
    while let Some(at) = rest.bytes().position(|b| b == b'"' || b == b'\\' || b < 0x20) {
        out.push_str(&rest[..at]);
        match rest.as_bytes()[at] {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b => {
                let _ = write!(out, "\\u{:04x}", b);
            }
        }
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// A writer that escapes what it is given as the inside of a JSON string.
struct Escaped<'a>(&'a mut String);

impl std::fmt::Write for Escaped<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        escape(self.0, s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text of `v` rounded to seven significant digits, the slow way: rounded in decimal, read
    /// back, and written as the shortest text that reads back as that.
    fn rounded_then_shortest(v: f64) -> String {
        format!("{}", format!("{v:.6e}").parse::<f64>().unwrap())
    }

    #[test]
    fn seven_digits_are_the_shortest_text_of_the_rounded_number() {
        let mut next = crate::test_rng();
        let mut values = vec![0.1, 0.5, 1.5, 9.9999995, 0.99999995, 123456.75, 1e-7, 2.5e-300, 1e20, 1.0e22, 6.02214076e23];
        for _ in 0..200_000 {
            // Every exponent of interest, and arbitrary bit patterns.
            let mantissa = (next() >> 11) as f64 / (1u64 << 53) as f64;
            let exp = (next() % 80) as i32 - 40;
            values.push(mantissa * 10f64.powi(exp));
            values.push(f64::from_bits(next()));
        }
        for v in values.into_iter().filter(|v| v.is_finite() && !(*v == v.trunc() && v.abs() < 1e15)).flat_map(|v| [v, -v]) {
            let mut out = String::new();
            seven_digits(&mut out, v);
            assert_eq!(out, rounded_then_shortest(v), "{v:e}");
        }
    }

    #[test]
    fn writes_flat_objects_with_escapes_and_nulls() {
        let s = Obj::new()
            .str("a", "x\"y\n")
            .num("b", 1.5)
            .num("c", f64::INFINITY)
            .int("d", -3)
            .boolean("e", true)
            .strs("f", ["p", "q"])
            .raw("g", "{}")
            .opt_int("h", None)
            .num("i", 2.0)
            .num("j", 0.123456789)
            .str("k", "é\u{1}ü\\")
            .text("m", &format_args!("{}\"{}", 1.5, "\t"))
            .num("l", -1.0e-5 / 3.0)
            .finish();
        let muted = Obj::muted().str("a", "b").num("c", 0.5).int("d", 1).raw("e", "{}").text("f", &1).finish();
        assert!(muted.is_empty(), "{muted}");
        assert_eq!(s, r#"{"a":"x\"y\n","b":1.5,"c":null,"d":-3,"e":true,"f":["p","q"],"g":{},"h":null,"i":2,"j":0.1234568,"k":"é\u0001ü\\","m":"1.5\"\t","l":-0.000003333333}"#);
    }
}
