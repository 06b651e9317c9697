//! The clock synchronisation methods: one file each in this folder, and the registry that
//! names them and builds them with their parameters.

pub use super::method::{ClockSyncParams, MethodEntry};
use super::ClockSync;
use serde::{Deserialize, Serialize};

/// Declares each method's module and its [`ClockSyncMethod`] variant (with the doc comment
/// that is its `--clock-sync` help), and builds `ALL` and the entry lookup from the same list,
/// so a method cannot be half registered.
macro_rules! methods {
    ($($(#[doc = $doc:literal])* $variant:ident => $module:ident,)*) => {
        $(mod $module;)*

        /// The clock synchronisation methods, chosen by name on the command line and in configs.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
        #[serde(rename_all = "lowercase")]
        pub enum ClockSyncMethod {
            $($(#[doc = $doc])* $variant,)*
        }

        impl ClockSyncMethod {
            /// Every method, in the order of the registry (and of the table in the module
            /// documentation).
            pub const ALL: [ClockSyncMethod; [$(stringify!($variant)),*].len()] =
                [$(ClockSyncMethod::$variant),*];

            /// The method's registry entry, from the method's own file.
            fn entry(self) -> MethodEntry {
                match self {
                    $(ClockSyncMethod::$variant => $module::ENTRY,)*
                }
            }
        }
    };
}

// The registry: adding a method is its file in this folder (`impl ClockSync`, its `ENTRY`)
// and one entry here.
methods! {
    /// Offset only, min-RTT ping-pong against rank 0, O(P) (Niethammer et al. 2016, eq. 2-3, Hoefler et al. 2010, §3.1).
    Offset => offset,
    /// Offset only, SKaMPI's fixed-count bounds method against rank 0, O(P) (Hunold and Carpen-Amarie 2015, §6).
    Skampi => skampi,
    /// Offset only, O(log P) tree of min-RTT offsets (Hoefler et al. 2010, §3.2, Figure 7).
    Netgauge => netgauge,
    /// Linear drift model per peer against rank 0, O(P) (Jones and Koenig; Hunold and Carpen-Amarie 2015, §2, §6).
    Jk => jk,
    /// Hierarchical linear models merged with MERGE_LMS, SKaMPI intercepts (Hunold and Carpen-Amarie 2015, §6, Alg. 1-4).
    Hca => hca,
    /// HCA3 of ReproMPI/mpits: O(log P) top-down fits against the parent's global clock,
    /// SKaMPI-bounds fit points, regression intercepts.
    Hca3 => hca3,
    /// O(log P) top-down fits against the reference's global clock (HCA3 of ReproMPI/mpits),
    /// with low-RTT midpoint fit points and a final intercept pass.
    Treefit => treefit,
}

pub use hca::HcaSync;
pub use hca3::Hca3Sync;
pub use jk::JkSync;
pub use netgauge::NetgaugeSync;
pub use offset::OffsetSync;
pub use skampi::{skampi_offset, SkampiSync};
pub use treefit::TreefitSync;

impl ClockSyncMethod {
    /// The method's name on the command line, in configs and in records.
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// True for methods that estimate a slope (drift-aware), false for offset-only ones.
    pub fn models_drift(self) -> bool {
        self.entry().models_drift
    }
}

impl std::fmt::Display for ClockSyncMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The method `method` with the parameters it uses from `p`.
pub fn build(method: ClockSyncMethod, p: &ClockSyncParams) -> Box<dyn ClockSync + Send + Sync> {
    (method.entry().build)(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn every_method_is_registered_once() {
        // The registry against the folder: every method's file (this folder's files but
        // mod.rs, named for the method) is registered, and every registered method has its
        // file.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/clock/methods");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().to_string())
            .filter(|stem| stem != "mod")
            .collect();
        files.sort_unstable();
        let mut registered: Vec<String> = ClockSyncMethod::ALL
            .iter()
            .map(|m| m.name().to_string())
            .collect();
        registered.sort_unstable();
        assert_eq!(registered, files);
        assert_eq!(&ClockSyncMethod::ALL[..], ClockSyncMethod::value_variants());
        let mut names: Vec<&str> = ClockSyncMethod::ALL.iter().map(|m| m.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ClockSyncMethod::ALL.len());
    }

    #[test]
    fn names_agree_everywhere() {
        let p = ClockSyncParams::default();
        for m in ClockSyncMethod::ALL {
            assert_eq!(build(m, &p).name(), m.name());
            assert_eq!(m.to_possible_value().unwrap().get_name(), m.name());
            assert_eq!(
                serde_json::to_string(&m).unwrap(),
                format!("\"{}\"", m.name())
            );
            assert!(!build(m, &p).params().is_empty());
        }
    }

    #[test]
    fn params_default_when_missing() {
        let p: ClockSyncParams = serde_json::from_str(r#"{"fitpoints": 7}"#).unwrap();
        assert_eq!(p.fitpoints, 7);
        assert_eq!(p.nonimproving, 100);
        assert!(!p.hca_hierarchical_intercepts);
    }
}
