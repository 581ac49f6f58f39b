//! Cube and scoring operations (filled in by the cube work).
