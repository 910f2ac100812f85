//! Siconos FrictionContact readers (placeholder, being written).
