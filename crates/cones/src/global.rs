//! The global frictional contact problem (placeholder, being written).
