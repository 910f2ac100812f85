//! Conversions between problem formats (`perp convert IN OUT`).
