//! Synthetic racks (`rein.topology.racks`): which rack each node is in, when the cluster does not
//! say or says something unhelpful. On a single-host MiniMRYarnCluster every NodeManager is
//! `localhost` on `/default-rack`, so rack-aware placement (Mantri §5.2) has nothing to work with
//! unless racks are given here; on a real cluster the racks YARN reports are used as they are.
//!
//! The value lists `node=rack` entries separated by commas or white space. A node is either
//! `host:port` (one NodeManager) or `host` (every NodeManager on that host); `host:port` wins.

use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    racks: BTreeMap<String, String>,
}

impl Topology {
    /// Parses the entries; `None` names what is wrong with the first bad one.
    pub fn parse(text: &str) -> Result<Topology, String> {
        let mut racks = BTreeMap::new();
        for entry in text.split(|c: char| c == ',' || c.is_whitespace()).filter(|e| !e.is_empty()) {
            let Some((node, rack)) = entry.split_once('=') else {
                return Err(format!("entry '{entry}' is not node=rack"));
            };
            let (node, rack) = (node.trim(), rack.trim());
            if node.is_empty() || rack.is_empty() || rack.contains('=') {
                return Err(format!("entry '{entry}' is not node=rack"));
            }
            if let Some(before) = racks.insert(node.to_owned(), rack.to_owned()) {
                if before != rack {
                    return Err(format!("node {node} is given two racks, {before} and {rack}"));
                }
            }
        }
        Ok(Topology { racks })
    }

    pub fn is_empty(&self) -> bool {
        self.racks.is_empty()
    }

    /// The rack configured for a node (`host:port`), by its full name or else its host.
    pub fn rack_of(&self, node: &str) -> Option<&str> {
        // Asked at every attempt's start; most clusters configure no topology for rein.
        if self.racks.is_empty() {
            return None;
        }
        self.racks.get(node).or_else(|| self.racks.get(node.rsplit_once(':')?.0)).map(String::as_str)
    }

    /// Every rack the topology names, in name order without repeats.
    pub fn racks(&self) -> impl Iterator<Item = &str> + '_ {
        let mut racks: Vec<&str> = self.racks.values().map(String::as_str).collect();
        racks.sort_unstable();
        racks.dedup();
        racks.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::Topology;

    #[test]
    fn nodes_by_port_then_by_host() {
        let t = Topology::parse("localhost:4001=/a, localhost:4002=/a\nlocalhost=/b  other:1=/c").unwrap();
        assert_eq!(t.rack_of("localhost:4001"), Some("/a"));
        assert_eq!(t.rack_of("localhost:4003"), Some("/b"));
        assert_eq!(t.rack_of("other:1"), Some("/c"));
        assert_eq!(t.rack_of("other:2"), None);
        assert_eq!(t.racks().collect::<Vec<_>>(), ["/a", "/b", "/c"]);
        assert!(Topology::parse("").unwrap().is_empty());
    }

    #[test]
    fn bad_entries_are_named() {
        for (text, says) in [
            ("localhost:1", "'localhost:1' is not node=rack"),
            ("a=/r,=/s", "'=/s'"),
            ("a=", "'a='"),
            ("a=/r=x", "'a=/r=x'"),
            ("a=/r a=/s", "node a is given two racks, /r and /s"),
        ] {
            let err = Topology::parse(text).unwrap_err();
            assert!(err.contains(says), "{text}: {err}");
        }
        assert!(Topology::parse("a=/r a=/r").is_ok());
    }
}
