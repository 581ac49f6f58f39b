//! Cube and scoring shapes (filled in by the cube work).
