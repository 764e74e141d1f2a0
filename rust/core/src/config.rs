//! Typed configuration, read from the job's `rein.*` string keys.
//!
//! Defaults are the papers' values. Every bad value is rejected with a [`ConfigError`] that names
//! the key, the value and the allowed range; keys rein does not know are reported as warnings.

use std::fmt;

/// One configuration key: its name, default, allowed values and where it comes from.
pub struct KeySpec {
    pub key: &'static str,
    pub default: &'static str,
    pub allowed: &'static str,
    pub source: &'static str,
    pub meaning: &'static str,
}

/// Every `rein.*` key, engine and shim alike: the table the README documents.
pub const KEYS: &[KeySpec] = &[
    KeySpec {
        key: "rein.policy",
        default: "late",
        allowed: "none | late",
        source: "-",
        meaning: "the straggler policy that drives this job's speculation",
    },
    KeySpec {
        key: "rein.late.speculative-cap",
        default: "0.1",
        allowed: "(0, 1]",
        source: "LATE §4",
        meaning: "SpeculativeCap: speculative copies running at once, as a fraction of slots",
    },
    KeySpec {
        key: "rein.late.slow-task-threshold",
        default: "0.25",
        allowed: "[0, 1]",
        source: "LATE §4",
        meaning: "SlowTaskThreshold: percentile of task progress rates a task must fall below",
    },
    KeySpec {
        key: "rein.late.slow-node-threshold",
        default: "0.25",
        allowed: "[0, 1]",
        source: "LATE §4, §5.4.3",
        meaning: "SlowNodeThreshold: percentile of node total progress below which a node gets no copies",
    },
    KeySpec {
        key: "rein.late.min-runtime-ms",
        default: "60000",
        allowed: "[0, 86400000]",
        source: "LATE §4",
        meaning: "a task must have run this long before it is considered",
    },
    KeySpec {
        key: "rein.cluster.slots",
        default: "(observed)",
        allowed: "[1, 10000000]",
        source: "LATE §4",
        meaning: "task slots the job can use; by default the most attempts seen running at once",
    },
    KeySpec {
        key: "rein.fallback",
        default: "stock",
        allowed: "stock | none",
        source: "-",
        meaning: "what runs when the native engine cannot: Hadoop's DefaultSpeculator, or nothing",
    },
    KeySpec {
        key: "rein.native.library",
        default: "(unset)",
        allowed: "a path to librein.so",
        source: "-",
        meaning: "load the engine from this file instead of java.library.path or the jar",
    },
    KeySpec {
        key: "rein.native.extract-dir",
        default: "java.io.tmpdir",
        allowed: "a writable, executable directory",
        source: "-",
        meaning: "where the library bundled in the jar is extracted",
    },
    KeySpec {
        key: "rein.scan-interval-ms",
        default: "1000",
        allowed: "[10, 600000]",
        source: "-",
        meaning: "how often the shim polls the job and asks the engine to decide",
    },
];

#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    pub key: String,
    pub value: String,
    pub allowed: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid value '{}' for {}: allowed {}", self.value, self.key, self.allowed)
    }
}

impl std::error::Error for ConfigError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyName {
    None,
    Late,
}

impl PolicyName {
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyName::None => "none",
            PolicyName::Late => "late",
        }
    }
}

/// LATE's three parameters and the minimum run time (LATE §4).
#[derive(Clone, Debug, PartialEq)]
pub struct LateConfig {
    pub speculative_cap: f64,
    pub slow_task_threshold: f64,
    pub slow_node_threshold: f64,
    pub min_runtime_ms: i64,
}

impl Default for LateConfig {
    fn default() -> Self {
        // LATE §4: "set the SpeculativeCap to 10% of available task slots and set the
        // SlowNodeThreshold and SlowTaskThreshold to the 25th percentile"; 1 minute minimum.
        LateConfig {
            speculative_cap: 0.1,
            slow_task_threshold: 0.25,
            slow_node_threshold: 0.25,
            min_runtime_ms: 60_000,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub policy: PolicyName,
    pub slots: Option<u32>,
    pub late: LateConfig,
}

impl Default for Config {
    fn default() -> Self {
        Config { policy: PolicyName::Late, slots: None, late: LateConfig::default() }
    }
}

/// A parsed configuration and the warnings about keys it did not know.
#[derive(Debug)]
pub struct Parsed {
    pub config: Config,
    pub warnings: Vec<String>,
}

impl Config {
    /// Reads `rein.*` pairs; keys outside `rein.` are ignored, unknown `rein.*` keys warned about.
    pub fn from_pairs<'a, I>(pairs: I) -> Result<Parsed, ConfigError>
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let mut config = Config::default();
        let mut warnings = Vec::new();
        for (key, raw) in pairs {
            if !key.starts_with("rein.") {
                continue;
            }
            let value = raw.trim();
            match key {
                "rein.policy" => {
                    config.policy = match value {
                        "none" => PolicyName::None,
                        "late" => PolicyName::Late,
                        _ => return Err(error(key, raw)),
                    }
                }
                "rein.late.speculative-cap" => {
                    config.late.speculative_cap = real(key, value, |x| x > 0.0 && x <= 1.0)?
                }
                "rein.late.slow-task-threshold" => {
                    config.late.slow_task_threshold = real(key, value, |x| (0.0..=1.0).contains(&x))?
                }
                "rein.late.slow-node-threshold" => {
                    config.late.slow_node_threshold = real(key, value, |x| (0.0..=1.0).contains(&x))?
                }
                "rein.late.min-runtime-ms" => {
                    config.late.min_runtime_ms = integer(key, value, 0, 86_400_000)?
                }
                "rein.cluster.slots" => config.slots = Some(integer(key, value, 1, 10_000_000)? as u32),
                _ if KEYS.iter().any(|k| k.key == key) => {}
                _ => warnings.push(format!("unknown key {key} (value '{raw}') is ignored")),
            }
        }
        Ok(Parsed { config, warnings })
    }
}

fn spec(key: &str) -> &'static KeySpec {
    KEYS.iter().find(|k| k.key == key).expect("every parsed key is in KEYS")
}

fn error(key: &str, value: &str) -> ConfigError {
    ConfigError { key: key.to_owned(), value: value.to_owned(), allowed: spec(key).allowed.to_owned() }
}

fn real(key: &str, value: &str, ok: impl Fn(f64) -> bool) -> Result<f64, ConfigError> {
    match value.parse::<f64>() {
        Ok(x) if x.is_finite() && ok(x) => Ok(x),
        _ => Err(error(key, value)),
    }
}

fn integer(key: &str, value: &str, lo: i64, hi: i64) -> Result<i64, ConfigError> {
    match value.parse::<i64>() {
        Ok(x) if (lo..=hi).contains(&x) => Ok(x),
        _ => Err(error(key, value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> Result<Parsed, ConfigError> {
        Config::from_pairs(pairs.iter().copied())
    }

    #[test]
    fn defaults_are_the_papers() {
        let c = parse(&[]).unwrap().config;
        assert_eq!(c.policy, PolicyName::Late);
        assert_eq!(c.late, LateConfig::default());
        assert_eq!(c.late.speculative_cap, 0.1);
        assert_eq!(c.late.min_runtime_ms, 60_000);
    }

    #[test]
    fn every_numeric_key_rejects_bad_values_naming_key_value_and_range() {
        let bad: &[(&str, &[&str])] = &[
            ("rein.late.speculative-cap", &["0", "-0.1", "1.5", "NaN", "inf", "ten", ""]),
            ("rein.late.slow-task-threshold", &["-0.01", "1.01", "NaN", "x"]),
            ("rein.late.slow-node-threshold", &["-1", "2", "NaN"]),
            ("rein.late.min-runtime-ms", &["-1", "1.5", "86400001", "soon"]),
            ("rein.cluster.slots", &["0", "-3", "2.5", "many"]),
            ("rein.policy", &["fast", "LATE ", ""]),
        ];
        for (key, values) in bad {
            for value in *values {
                let err = parse(&[(key, value)]).unwrap_err();
                assert_eq!(err.key, *key);
                assert_eq!(err.value, *value);
                let text = err.to_string();
                assert!(text.contains(key) && text.contains(spec(key).allowed), "{text}");
            }
        }
    }

    #[test]
    fn good_values_are_taken_and_whitespace_trimmed() {
        let c = parse(&[
            ("rein.policy", " none "),
            ("rein.late.speculative-cap", "1"),
            ("rein.late.slow-task-threshold", "0"),
            ("rein.late.min-runtime-ms", "0"),
            ("rein.cluster.slots", "12"),
        ])
        .unwrap()
        .config;
        assert_eq!(c.policy, PolicyName::None);
        assert_eq!(c.late.speculative_cap, 1.0);
        assert_eq!(c.late.slow_task_threshold, 0.0);
        assert_eq!(c.late.min_runtime_ms, 0);
        assert_eq!(c.slots, Some(12));
    }

    #[test]
    fn unknown_rein_keys_warn_and_foreign_keys_are_ignored() {
        let p = parse(&[
            ("rein.late.speculativecap", "0.2"),
            ("mapreduce.map.speculative", "true"),
            ("rein.fallback", "none"),
        ])
        .unwrap();
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].contains("rein.late.speculativecap"));
    }
}
