pub mod plan;
pub mod records;
pub mod units;
