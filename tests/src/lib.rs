//! Helpers for the black-box tests.
