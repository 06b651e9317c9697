//! Exporters (placeholder, being written).
