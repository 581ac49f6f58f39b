// A typed bgref HTTP client: the types are generated from
// openapi/openapi.json by openapi-typescript (`npm run gen`), the calls made
// with openapi-fetch, and everything type-checks under `strict`. It plays a
// whole game against the referee: the opening roll, then for each turn the
// service's dice (`/dice/roll` with a fixed match id), the first legal play,
// applied, until `game_over`; then `/score`.
//
// Usage: node dist/play.js http://127.0.0.1:8080

import createClient from "openapi-fetch";
import type { components, paths } from "./bgref.js";

type Position = components["schemas"]["PositionOutput"];
type Dice = [number, number];

const MATCH_ID = "typescript-example-0001";
const CLIENT_SEED = "alice:bob";

function fail(what: string, error: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(error)}`);
}

async function main(baseUrl: string): Promise<void> {
  const bgref = createClient<paths>({ baseUrl });

  const opening = await bgref.POST("/dice/opening", {
    body: { match_id: MATCH_ID, client_seed: CLIENT_SEED, game: 1 },
  });
  if (!opening.data) fail("opening roll", opening.error);
  let position: Position = opening.data.position;
  let dice: Dice = [opening.data.dice[0]!, opening.data.dice[1]!];
  console.log(`opening: ${opening.data.starts} starts with ${dice.join("-")}`);

  let turn = 0;
  for (;;) {
    turn += 1;
    // A response's position goes back verbatim as the request's position.
    const legal = await bgref.POST("/legal-moves", { body: { position, dice } });
    if (!legal.data) fail(`legal moves, turn ${turn}`, legal.error);
    const first = legal.data.plays[0];
    // No legal play: an empty move list passes the turn.
    const play = first ? first.notation : [];
    const applied = await bgref.POST("/apply-move", { body: { position, dice, play } });
    if (!applied.data) fail(`apply ${JSON.stringify(play)}, turn ${turn}`, applied.error);
    // A standard game answers the backgammon encodings (the tables games,
    // Plakoto, Fevga and Long Nardy, answer their own form).
    const next = applied.data.position;
    if (!("xgid" in next)) throw new Error("a standard game answers every encoding");
    position = next;
    if (applied.data.game_over) break;
    if (turn >= 2000) throw new Error("the game does not end");
    const roll = await bgref.POST("/dice/roll", {
      body: { match_id: MATCH_ID, client_seed: CLIENT_SEED, game: 1, turn },
    });
    if (!roll.data) fail(`roll, turn ${turn}`, roll.error);
    dice = [roll.data.dice[0]!, roll.data.dice[1]!];
  }

  const score = await bgref.POST("/score", {
    body: { ended_by: "bearoff", position },
  });
  if (!score.data) fail("score", score.error);
  const { winner, result, points } = score.data;
  console.log(
    `whole game: ${turn} turns, ${winner} wins ${result} for ${points} point(s); ` +
      `final pips x ${position.pips.x} o ${position.pips.o}; fibs ${position.fibs.slice(0, 24)}...`,
  );
}

const base = process.argv[2];
if (!base) {
  console.error("usage: node dist/play.js http://HOST:PORT");
  process.exit(2);
}
main(base).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
