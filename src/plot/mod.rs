//! Figures (placeholder, being written).
