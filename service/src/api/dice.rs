//! Dice operations (filled in by the dice work).
