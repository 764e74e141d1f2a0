//! A minimal JSON object writer for the decision log: rein-core has no dependencies, and its
//! records are flat objects of numbers, strings, booleans and small nested objects.

use std::fmt::Write as _;

/// One JSON object under construction. Non-finite numbers are written as `null`.
pub struct Obj {
    out: String,
}

impl Obj {
    pub fn new() -> Obj {
        Obj { out: String::from("{") }
    }

    fn key(&mut self, k: &str) {
        if self.out.len() > 1 {
            self.out.push(',');
        }
        string(&mut self.out, k);
        self.out.push(':');
    }

    pub fn str(mut self, k: &str, v: &str) -> Obj {
        self.key(k);
        string(&mut self.out, v);
        self
    }

    pub fn opt_str(self, k: &str, v: Option<&str>) -> Obj {
        match v {
            Some(v) => self.str(k, v),
            None => self.raw(k, "null"),
        }
    }

    pub fn num(mut self, k: &str, v: f64) -> Obj {
        self.key(k);
        number(&mut self.out, v);
        self
    }

    pub fn opt_num(self, k: &str, v: Option<f64>) -> Obj {
        self.num(k, v.unwrap_or(f64::NAN))
    }

    pub fn int(mut self, k: &str, v: i64) -> Obj {
        self.key(k);
        let _ = write!(self.out, "{v}");
        self
    }

    pub fn opt_int(self, k: &str, v: Option<i64>) -> Obj {
        match v {
            Some(v) => self.int(k, v),
            None => self.raw(k, "null"),
        }
    }

    pub fn boolean(mut self, k: &str, v: bool) -> Obj {
        self.key(k);
        self.out.push_str(if v { "true" } else { "false" });
        self
    }

    pub fn strs<'a>(mut self, k: &str, vs: impl IntoIterator<Item = &'a str>) -> Obj {
        self.key(k);
        self.out.push('[');
        for (i, v) in vs.into_iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            string(&mut self.out, v);
        }
        self.out.push(']');
        self
    }

    /// A value that is already JSON (a nested object).
    pub fn raw(mut self, k: &str, json: &str) -> Obj {
        self.key(k);
        self.out.push_str(json);
        self
    }

    pub fn finish(mut self) -> String {
        self.out.push('}');
        self.out
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
        // Seven significant digits are plenty for estimates and keep lines short.
        let _ = write!(out, "{}", format!("{v:.6e}").parse::<f64>().unwrap_or(v));
    }
}

fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

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
            .finish();
        assert_eq!(s, r#"{"a":"x\"y\n","b":1.5,"c":null,"d":-3,"e":true,"f":["p","q"],"g":{},"h":null,"i":2,"j":0.1234568}"#);
    }
}
