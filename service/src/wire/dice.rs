//! Dice shapes (filled in by the dice work).
