//! FCLIB HDF5 reader (placeholder, being written).
