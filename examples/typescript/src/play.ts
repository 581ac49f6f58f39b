// A typed bgref HTTP client: the types are generated from
// openapi/openapi.json by openapi-typescript (`npm run gen`), the calls made
// with openapi-fetch, and everything type-checks under `strict`. It plays a
// whole refereed game: `POST /games` starts it, then `POST /games/act` with
// the state token for every action (the referee rolls every die; each side
// plays its first legal play) until the game is over; `POST /games/verify`
// replays the transcript to the same view, `POST /score` scores the final
// position, and `GET /render.txt` draws it.
//
// Usage: node dist/play.js http://127.0.0.1:8080

import createClient from "openapi-fetch";
import type { components, paths } from "./bgref.js";

type Step = components["schemas"]["TranscriptStep"];

const MATCH_ID = "typescript-example-0001";
const CLIENT_SEED = "alice:bob";

function fail(what: string, error: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(error)}`);
}

async function main(baseUrl: string): Promise<void> {
  const bgref = createClient<paths>({ baseUrl });

  const start = { match_id: MATCH_ID, client_seed: CLIENT_SEED };
  const game = await bgref.POST("/games", { body: start });
  if (!game.data) fail("new game", game.error);
  let { state, view } = game.data;
  // One secret seat per player: an app hands each player only its own.
  const seats = game.data.seats;
  const actions: Step[] = [];
  let rolls = 0;
  let score: components["schemas"]["ScoreGameResponse"] | null | undefined;

  while (view.phase !== "game_over") {
    if (actions.length >= 5000) throw new Error("the game does not end");
    // Either player may throw the opening roll; then whoever is to act.
    const player = view.to_act ?? "x";
    let step: Step;
    if (view.phase === "opening_roll" || view.phase === "roll_or_double") {
      step = { player, action: "roll" };
    } else if (view.phase === "move") {
      const first = view.plays[0];
      if (!first) throw new Error("a move is due but no play is listed");
      step = { player, action: "move", play: first.notation };
    } else {
      throw new Error(`no move for phase ${view.phase}`);
    }
    // Each action carries its player's seat (an app hands each player only its own).
    const answer = await bgref.POST("/games/act", {
      body: { state, seat: seats[player], ...step },
    });
    if (!answer.data) fail(`act ${JSON.stringify(step)}`, answer.error);
    if (answer.data.roll) rolls += 1;
    score = answer.data.game_over;
    ({ state, view } = answer.data);
    actions.push(step);
  }
  if (!score) throw new Error("the game ended without a score");
  console.log(`refereed game: ${actions.length} actions, ${rolls} rolls by the referee`);

  // The transcript replays, every action legal, to the same view.
  const verdict = await bgref.POST("/games/verify", { body: { start, actions, state } });
  if (!verdict.data) fail("verify", verdict.error);
  if (!verdict.data.valid || verdict.data.actions !== actions.length) {
    fail("the transcript does not verify", verdict.data);
  }
  if (verdict.data.state_matches !== true) {
    fail("the replay does not reach the players' last token", verdict.data);
  }
  if (JSON.stringify(verdict.data.view) !== JSON.stringify(view)) {
    fail("the replay ends elsewhere", { replay: verdict.data.view, played: view });
  }

  // A response's position goes back verbatim as a request's position. The
  // view answers the tables games' own form too (Plakoto, Fevga, Long
  // Nardy); a standard game's carries the backgammon encodings.
  const position = view.position;
  if (!("xgid" in position)) fail("a standard game's position", position);
  const scored = await bgref.POST("/score", { body: { ended_by: "bearoff", position } });
  if (!scored.data) fail("score", scored.error);
  const { winner, result, points } = scored.data;
  if (winner !== score.winner || points !== score.points) {
    fail("the score differs from the referee's", { scored: scored.data, referee: score });
  }

  const board = await bgref.GET("/render.txt", {
    params: { query: { position_id: position.position_id, turn: position.board.turn } },
    parseAs: "text",
  });
  if (board.data === undefined) fail("render", board.error);
  if (!board.data.startsWith(` GNU Backgammon  Position ID: ${position.position_id}`)) {
    fail("the text board", board.data);
  }
  console.log(
    `whole game: ${winner} wins ${result} for ${points} point(s); ` +
      `final pips x ${position.pips.x} o ${position.pips.o}; transcript verified`,
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
