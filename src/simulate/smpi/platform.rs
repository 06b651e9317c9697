//! SimGrid platforms: the built-in ones, generated for the number of hosts a simulation
//! needs, and any platform file with its host file. Parameters and their sources are in
//! docs/simulate.md; every number below that no public source gives is marked there as an
//! assumption.

use super::SmpiError;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Ranks of one host beyond which a built-in torus or dragonfly is padded: built-ins have at
/// least as many hosts as asked, and ranks use the first ones.
const XML_HEAD: &str = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \
                        \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n";

/// The network of a built-in platform: per-link bandwidth (bytes/s) and latency (s), and
/// the loopback link between ranks of one host.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkParams {
    /// Bandwidth of every network link, bytes per second.
    pub bw_bps: f64,
    /// Latency of every network link, seconds (a route adds its links' latencies).
    pub lat_s: f64,
    /// Bandwidth between two ranks of one host, bytes per second.
    pub loopback_bw_bps: f64,
    /// Latency between two ranks of one host, seconds.
    pub loopback_lat_s: f64,
}

/// A built-in platform.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Builtin {
    /// Two-level fat tree (k-ary, full bisection), InfiniBand-EDR-like links.
    FatTree,
    /// 3D torus, Cray XE6 Gemini-like (Hermit).
    Torus,
    /// Dragonfly, Cray XC40 Aries-like (Hazel Hen): 4 nodes per router, 16 routers per
    /// chassis, 6 chassis per group.
    Dragonfly,
    /// One host with this machine's measured ping-pong latency and bandwidth as its loopback
    /// (`simulate --calibrate`).
    Local(LinkParams),
}

/// Fat tree: 100 Gb/s links (InfiniBand EDR); 0.25 us per link (assumption).
pub const FAT_TREE: LinkParams = LinkParams {
    bw_bps: 12.5e9,
    lat_s: 0.25e-6,
    loopback_bw_bps: 10e9,
    loopback_lat_s: 0.3e-6,
};
/// Gemini: 4.68 GB/s per link and direction (Alverson, Roweth and Kaplan 2010), 0.1 us per
/// hop (assumption), shared memory 10 GB/s, 0.3 us (assumption).
pub const GEMINI: LinkParams = LinkParams {
    bw_bps: 4.68e9,
    lat_s: 0.1e-6,
    loopback_bw_bps: 10e9,
    loopback_lat_s: 0.3e-6,
};
/// Aries: 4.7 GB/s per optical link and direction (Alverson, Froese, Kaplan and Roweth
/// 2012), 0.1 us per hop (assumption), shared memory 10 GB/s, 0.3 us (assumption).
pub const ARIES: LinkParams = LinkParams {
    bw_bps: 4.7e9,
    lat_s: 0.1e-6,
    loopback_bw_bps: 10e9,
    loopback_lat_s: 0.3e-6,
};

/// Nodes per Aries router, routers per chassis, chassis per group (Alverson et al. 2012).
const ARIES_NODES: usize = 4;
const ARIES_ROUTERS: usize = 16;
const ARIES_CHASSIS: usize = 6;
/// Hosts in one dragonfly group: nodes per router × routers per chassis × chassis.
const DRAGONFLY_GROUP_HOSTS: usize = ARIES_NODES * ARIES_ROUTERS * ARIES_CHASSIS;
/// The most hosts the built-in dragonfly holds. SimGrid's dragonfly (3.32 to 4.1,
/// `DragonflyZone`) joins group g to the others through router g of each chassis and
/// indexes a router's in-chassis links by the target group, so it has at most as many
/// groups as routers per chassis; with more, its routing reads past that array and the
/// simulation dies of a segmentation fault (seen at 16,384 hosts, 43 groups; with P = 2 on
/// hosts 0 and 6,143 of 16 groups it runs, on hosts 0 and 6,144 of 17 it dies).
pub const DRAGONFLY_MAX_HOSTS: usize = ARIES_ROUTERS * DRAGONFLY_GROUP_HOSTS;

/// A platform ready for smpirun: its file, its host file, and the host of every rank.
#[derive(Debug, Clone)]
pub struct Platform {
    /// What the header records: the built-in's name and parameters, or the file's path.
    pub description: String,
    pub xml: PathBuf,
    /// Host per rank (index = rank), for as many ranks as were asked.
    pub rank_hosts: Vec<String>,
}

impl Builtin {
    /// `fat-tree`, `torus`, `dragonfly`; `local` is read with [`super::calibrate::local`].
    pub fn parse(name: &str) -> Option<Builtin> {
        match name {
            "fat-tree" | "fattree" => Some(Builtin::FatTree),
            "torus" => Some(Builtin::Torus),
            "dragonfly" => Some(Builtin::Dragonfly),
            _ => None,
        }
    }

    fn params(self) -> LinkParams {
        match self {
            Builtin::FatTree => FAT_TREE,
            Builtin::Torus => GEMINI,
            Builtin::Dragonfly => ARIES,
            Builtin::Local(p) => p,
        }
    }

    /// The cluster's topology attributes and its host count, for at least `hosts` hosts.
    fn topology(self, hosts: usize) -> (String, usize) {
        let hosts = hosts.max(1);
        match self {
            Builtin::FatTree => {
                if hosts <= 32 {
                    (
                        format!("topology=\"FAT_TREE\" topo_parameters=\"1;{hosts};1;1\""),
                        hosts,
                    )
                } else {
                    let top = hosts.div_ceil(32);
                    (
                        format!("topology=\"FAT_TREE\" topo_parameters=\"2;32,{top};1,32;1,1\""),
                        32 * top,
                    )
                }
            }
            Builtin::Torus => {
                let [x, y, z] = torus_dims(hosts);
                (
                    format!("topology=\"TORUS\" topo_parameters=\"{x},{y},{z}\""),
                    x * y * z,
                )
            }
            Builtin::Dragonfly => {
                let groups = hosts.div_ceil(DRAGONFLY_GROUP_HOSTS);
                (
                    format!(
                        "topology=\"DRAGONFLY\" topo_parameters=\"{groups},1;{ARIES_CHASSIS},3;\
                         {ARIES_ROUTERS},1;{ARIES_NODES}\""
                    ),
                    groups * DRAGONFLY_GROUP_HOSTS,
                )
            }
            Builtin::Local(_) => (String::new(), 1),
        }
    }

    /// The platform file text for at least `hosts` hosts named `node-0`, `node-1`, ...
    pub fn xml(self, hosts: usize) -> (String, usize) {
        let p = self.params();
        let (topo, n) = self.topology(hosts);
        let mut s = String::from(XML_HEAD);
        // The cluster sits in a zone of its own: SimGrid 4 gives the platform's cluster a
        // parent zone and dies (segmentation fault in `add_netzone_torus`) on a bare
        // top-level `<cluster>`, which 3.32 accepted; with the zone both read the same
        // network (a route within the cluster never leaves it).
        s.push_str("  <zone id=\"world\" routing=\"Full\">\n");
        let _ = writeln!(
            s,
            "    <cluster id=\"c\" prefix=\"node-\" suffix=\"\" radical=\"0-{}\" speed=\"1Gf\" \
             bw=\"{}Bps\" lat=\"{}s\" loopback_bw=\"{}Bps\" loopback_lat=\"{}s\" {topo}/>",
            n - 1,
            p.bw_bps,
            p.lat_s,
            p.loopback_bw_bps,
            p.loopback_lat_s
        );
        s.push_str("  </zone>\n</platform>\n");
        (s, n)
    }

    /// Name and parameters for the header, e.g. `torus (8x8x8 hosts; 4.68 GB/s, 0.1 us per link)`.
    pub fn describe(self, hosts: usize, ranks_per_host: u32) -> String {
        let p = self.params();
        let name = match self {
            Builtin::FatTree => "fat-tree",
            Builtin::Torus => "torus",
            Builtin::Dragonfly => "dragonfly",
            Builtin::Local(_) => "local",
        };
        let (topo, n) = self.topology(hosts);
        // Rounded to what the parameters mean (0.1 us, not 0.09999999999999999).
        let r = |x: f64| format!("{}", (x * 1e3).round() / 1e3);
        format!(
            "{name} ({n} hosts, {ranks_per_host} rank(s) per host; {} GB/s, {} us per link; \
             loopback {} GB/s, {} us; {})",
            r(p.bw_bps / 1e9),
            r(p.lat_s * 1e6),
            r(p.loopback_bw_bps / 1e9),
            r(p.loopback_lat_s * 1e6),
            if topo.is_empty() {
                "one host".into()
            } else {
                topo.replace('"', "")
            }
        )
    }
}

/// Three torus dimensions, as equal as possible, each at least 2, whose product is at least
/// `n`. SimGrid 3.32 names a torus link by its two ends, so two dimensions of size 1 would
/// both declare the link from a host to itself, which it refuses ("declared several
/// times"): a torus for 1 or 2 hosts is padded to 2 × 2 × 2, and the ranks use the first.
pub fn torus_dims(n: usize) -> [usize; 3] {
    let x = ((n as f64).cbrt().ceil() as usize).max(2);
    let y = ((n.div_ceil(x) as f64).sqrt().ceil() as usize).max(2);
    let z = n.div_ceil(x * y).max(2);
    [x, y, z]
}

/// Writes a built-in platform for `procs` ranks at `ranks_per_host` into `dir`.
///
/// Errors: [`SmpiError::Platform`] when a dragonfly would need more than
/// [`DRAGONFLY_MAX_HOSTS`] hosts, before anything runs; [`SmpiError::Io`].
pub fn builtin(
    b: Builtin,
    procs: u32,
    ranks_per_host: u32,
    dir: &Path,
) -> Result<Platform, SmpiError> {
    let rph = if matches!(b, Builtin::Local(_)) {
        procs
    } else {
        ranks_per_host
    };
    let hosts = (procs as usize).div_ceil(rph as usize);
    if b == Builtin::Dragonfly && hosts > DRAGONFLY_MAX_HOSTS {
        return Err(SmpiError::Platform(format!(
            "--platform dragonfly holds at most {DRAGONFLY_MAX_HOSTS} hosts ({ARIES_ROUTERS} \
             groups of {}: SimGrid's dragonfly has at most as many groups as routers per \
             chassis), and P = {procs} at {rph} rank(s) per host needs {hosts}; use \
             --ranks-per-host {} or more, or --platform torus or fat-tree",
            DRAGONFLY_GROUP_HOSTS,
            (procs as usize).div_ceil(DRAGONFLY_MAX_HOSTS)
        )));
    }
    let (text, _) = b.xml(hosts);
    let xml = dir.join("platform.xml");
    super::write_file(&xml, text.as_bytes())?;
    Ok(Platform {
        description: b.describe(hosts, rph),
        xml,
        rank_hosts: (0..procs as usize)
            .map(|r| format!("node-{}", r / rph as usize))
            .collect(),
    })
}

/// A platform file with its host file (`name` or `name:N` per line, as smpirun reads it):
/// the host of each of the first `procs` ranks.
///
/// Errors: [`SmpiError::Platform`] when a file is missing or has too few hosts.
pub fn from_files(xml: &Path, hostfile: &Path, procs: u32) -> Result<Platform, SmpiError> {
    if !xml.is_file() {
        return Err(SmpiError::Platform(format!(
            "platform file {} not found",
            xml.display()
        )));
    }
    let text = std::fs::read_to_string(hostfile).map_err(|e| {
        SmpiError::Platform(format!("cannot read host file {}: {e}", hostfile.display()))
    })?;
    let rank_hosts = unroll_hostfile(&text);
    if rank_hosts.len() < procs as usize {
        return Err(SmpiError::Platform(format!(
            "host file {} gives {} rank slot(s), fewer than P = {procs}",
            hostfile.display(),
            rank_hosts.len()
        )));
    }
    let xml = std::fs::canonicalize(xml).unwrap_or_else(|_| xml.to_path_buf());
    Ok(Platform {
        description: xml.display().to_string(),
        xml,
        rank_hosts: rank_hosts.into_iter().take(procs as usize).collect(),
    })
}

/// Rank slots of a host file: `name` is one slot, `name:N` N slots; blank lines and `#`
/// comments skipped.
pub fn unroll_hostfile(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        match line.split_once(':') {
            Some((h, n)) => {
                let n: usize = n.trim().parse().unwrap_or(1);
                out.extend(std::iter::repeat_n(h.trim().to_string(), n));
            }
            None => out.push(line.to_string()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torus_holds_every_host_nearly_cubic() {
        for n in [1, 2, 7, 64, 100, 512, 16384] {
            let [x, y, z] = torus_dims(n);
            assert!(x * y * z >= n, "{n}");
            assert!(x >= 2 && y >= 2 && z >= 2, "{n}: {x}x{y}x{z}");
            assert!(x * y * z < (n + x * y + x + 1).max(9), "{n}: {x}x{y}x{z}");
        }
        assert_eq!(torus_dims(2), [2, 2, 2]);
        assert_eq!(torus_dims(512), [8, 8, 8]);
    }

    #[test]
    fn builtins_have_enough_hosts() {
        for b in [Builtin::FatTree, Builtin::Torus, Builtin::Dragonfly] {
            for hosts in [2, 33, 1000] {
                let (xml, n) = b.xml(hosts);
                assert!(n >= hosts);
                assert!(xml.contains(&format!("radical=\"0-{}\"", n - 1)));
                // SimGrid 4 needs the cluster inside a zone (see `xml`).
                let (zone, cluster) = (xml.find("<zone ").unwrap(), xml.find("<cluster ").unwrap());
                assert!(
                    zone < cluster && cluster < xml.find("</zone>").unwrap(),
                    "{xml}"
                );
            }
        }
        let (_, n) = Builtin::Dragonfly.xml(385);
        assert_eq!(n, 2 * 384);
    }

    #[test]
    fn a_dragonfly_beyond_simgrids_group_limit_is_refused_before_it_runs() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        assert_eq!(DRAGONFLY_MAX_HOSTS, 6144);
        assert!(builtin(Builtin::Dragonfly, 6144, 1, dir).is_ok());
        let err = builtin(Builtin::Dragonfly, 16384, 1, dir)
            .unwrap_err()
            .to_string();
        assert!(err.contains("at most 6144 hosts"), "{err}");
        assert!(err.contains("--ranks-per-host 3 or more"), "{err}");
        assert!(builtin(Builtin::Dragonfly, 16384, 3, dir).is_ok());
        assert!(builtin(Builtin::Torus, 16384, 1, dir).is_ok());
    }

    #[test]
    fn host_files_unroll_counts() {
        assert_eq!(
            unroll_hostfile("a:2\n# c\nb\n\n"),
            vec!["a".to_string(), "a".into(), "b".into()]
        );
    }
}
