pub mod analysis;
pub mod export;
pub mod plan;
pub mod plot;
pub mod records;
pub mod units;
