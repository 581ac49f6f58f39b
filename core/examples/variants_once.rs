//! Runs a move generator once over 2 000 positions of seeded random games
//! (the same as `benches/variants.rs`) and all 21 rolls; for instruction
//! counts under callgrind, which do not depend on the machine's load:
//! `valgrind --tool=callgrind --toggle-collect='*legal_plays*' target/release/examples/variants_once plakoto`
//! (the argument: `standard`, `tavla-forbidden-in-home` (the standard
//! positions through Tavla's hit-and-run generator; collect
//! `'*HitAndRun>::legal_plays'` for it: it calls the standard generator's
//! `legal_plays`, and a nested match toggles collection off again),
//! `plakoto`, `fevga`, `fevga-needs-checker-ahead` or `long-nardy`).

use bgref_core::Dice;
use bgref_core::tables::{Game, HitAndRun, PrimeRule, TablesRules};

#[path = "support/random_games.rs"]
mod random_games;

const POSITIONS: usize = 2000;

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "standard".into());
    let (mut pairs, mut plays) = (0usize, 0usize);
    if name == "standard" {
        for pos in &random_games::standard_positions(POSITIONS) {
            for dice in Dice::ALL_21 {
                plays += pos.legal_plays(dice).len();
                pairs += 1;
            }
        }
    } else if name == "tavla-forbidden-in-home" {
        for pos in &random_games::standard_positions(POSITIONS) {
            for dice in Dice::ALL_21 {
                plays += HitAndRun::ForbiddenInHome.legal_plays(pos, dice).len();
                pairs += 1;
            }
        }
    } else if name == "fevga-needs-checker-ahead" {
        let rules = TablesRules {
            primes: Some(PrimeRule::NeedsCheckerAhead),
            ..TablesRules::DEFAULT
        };
        for pos in &random_games::tables_positions(Game::Fevga, POSITIONS) {
            let pos = pos.with_rules(rules);
            for dice in Dice::ALL_21 {
                plays += pos.legal_plays(dice).len();
                pairs += 1;
            }
        }
    } else {
        let game: Game = name.parse().expect("a game name");
        for pos in &random_games::tables_positions(game, POSITIONS) {
            for dice in Dice::ALL_21 {
                plays += pos.legal_plays(dice).len();
                pairs += 1;
            }
        }
    }
    println!("{name}: {pairs} (position, roll) pairs, {plays} plays");
}
