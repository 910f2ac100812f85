//! Lemke on the Stewart–Trinkle pyramid LCP (placeholder, being written).
