//! (in progress)

/// This module's scenes.
pub fn catalog() -> Vec<super::SceneInfo> {
    Vec::new()
}
