"""A bgref gRPC client in Python: calls the RPCs of bgref.v1.Referee and
bgref.v1.Render, then plays a whole refereed game (NewGame, then Act: the
referee rolls every die; the first legal play each turn), verifies its
transcript (VerifyGame), exports it (ExportGame), scores the final
position and checks every roll receipt against the revealed seed
(RevealSeed, VerifyDice). RollDice is not called: rolling outside a game
is for trusted callers.

Stubs come from proto/ with grpcio-tools (see README.md):

    python -m grpc_tools.protoc -I proto --python_out=gen --grpc_python_out=gen \
        proto/bgref/v1/*.proto

Usage: python play.py HOST:PORT [REVEAL_TOKEN]
"""

import hashlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen"))

import grpc  # noqa: E402

from bgref.v1 import common_pb2 as common  # noqa: E402
from bgref.v1 import cube_pb2 as cube  # noqa: E402
from bgref.v1 import dice_pb2 as dice  # noqa: E402
from bgref.v1 import games_pb2 as games  # noqa: E402
from bgref.v1 import moves_pb2 as moves  # noqa: E402
from bgref.v1 import referee_pb2_grpc  # noqa: E402
from bgref.v1 import render_pb2 as render  # noqa: E402
from bgref.v1 import render_pb2_grpc  # noqa: E402

MATCH_ID = "python-example-0001"
CLIENT_SEED = "alice:bob"
NAMES = {common.PLAYER_X: "x", common.PLAYER_O: "o"}


def every_rpc(referee, pictures):
    """One call of each stateless RPC, each answer checked."""
    variants = referee.ListVariants(moves.ListVariantsRequest())
    assert [v.name for v in variants.variants][0] == "standard", variants
    start = variants.variants[0].start
    assert start.pips.x == 167 and start.pips.o == 167, start

    legal = referee.LegalMoves(moves.LegalMovesRequest(
        position=common.PositionInput(position_id="4HPwATDgc/ABMA"), dice=[3, 1]))
    assert any(p.notation == "8/5 6/5" for p in legal.plays), legal
    applied = referee.ApplyMove(moves.ApplyMoveRequest(
        position=common.PositionInput(position_id="4HPwATDgc/ABMA"), dice=[3, 1],
        moves=moves.MoveList(moves=[moves.MoveInput(from_point=8, to_point=5),
                                    moves.MoveInput(from_point=6, to_point=5)])))
    assert applied.play.notation == "8/5 6/5", applied
    # A response position goes back verbatim.
    referee.LegalMoves(moves.LegalMovesRequest(
        position=common.PositionInput(position=applied.position), dice=[6, 5]))
    # So does its FIBS board string alone.
    referee.LegalMoves(moves.LegalMovesRequest(
        position=common.PositionInput(fibs=applied.position.fibs), dice=[6, 5]))

    keys = referee.GetKeys(dice.GetKeysRequest())
    assert keys.keys[0].algorithm == "ed25519", keys
    # Dice on demand are for a trusted caller holding the roll token (a game
    # server); without it the service refuses (players roll through Act).
    request = dice.OpeningRollRequest(
        match_id="python-example-opening", client_seed=CLIENT_SEED, game=1)
    roll_token = os.environ.get("BGREF_DICE_ROLL_TOKEN", "")
    if roll_token:
        opening = referee.OpeningRoll(
            request, metadata=[("authorization", f"Bearer {roll_token}")])
        assert opening.x_die != opening.o_die, opening
    else:
        try:
            referee.OpeningRoll(request)
            raise AssertionError("an opening roll without the roll token succeeded")
        except grpc.RpcError as err:
            assert err.code() in (grpc.StatusCode.UNAUTHENTICATED,
                                  grpc.StatusCode.PERMISSION_DENIED), err

    may_double = referee.ResolveCube(cube.ResolveCubeRequest(
        player=common.PLAYER_X, action=cube.CUBE_ACTION_DOUBLE))
    assert may_double.allowed and may_double.to_act == common.PLAYER_O, may_double
    scored = referee.ScoreGame(cube.ScoreGameRequest(
        ended_by=cube.ENDED_BY_PASS, winner=common.PLAYER_X,
        cube=cube.Cube(value=2, owner=cube.CUBE_OWNER_X),
        match=cube.MatchState(length=5, score=common.PerPlayer(x=2, o=3))))
    assert scored.points == 2 and scored.match.next_game == cube.GAME_KIND_CRAWFORD, scored

    picture = render.Picture(position=common.PositionInput(position=applied.position),
                             cube_value=2, cube_owner=cube.CUBE_OWNER_X, dice=[6, 5])
    svg = pictures.RenderSvg(render.RenderSvgRequest(picture=picture)).svg
    assert svg.startswith("<svg ") and "<title" in svg, svg[:200]
    png = pictures.RenderPng(render.RenderPngRequest(picture=picture)).png
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and png[12:16] == b"IHDR", png[:16]
    text = pictures.RenderText(render.RenderTextRequest(picture=picture)).text
    assert text.startswith(" GNU Backgammon  Position ID: " + applied.position.position_id), text
    print("answered: ListVariants LegalMoves ApplyMove GetKeys OpeningRoll ResolveCube "
          "ScoreGame RenderSvg RenderPng RenderText")


def play_game(referee):
    """A whole refereed game: the referee rolls, each side plays its first
    legal play; returns the start, the transcript, the roll receipts and
    the last answer."""
    start = games.NewGameRequest(match_id=MATCH_ID, client_seed=CLIENT_SEED)
    answer = referee.NewGame(start)
    state, view = answer.state, answer.view
    # One secret seat per player: an app hands each player only its own.
    seats = {common.PLAYER_X: answer.seats.x, common.PLAYER_O: answer.seats.o}
    actions, receipts = [], []
    while view.phase != games.PHASE_GAME_OVER:
        assert len(actions) < 5000, "the game does not end"
        # Either player may throw the opening roll; then whoever is to act.
        player = view.to_act or common.PLAYER_X
        if view.phase in (games.PHASE_OPENING_ROLL, games.PHASE_ROLL_OR_DOUBLE):
            step = games.TranscriptStep(player=player, action=games.GAME_ACTION_ROLL)
        elif view.phase == games.PHASE_MOVE:
            step = games.TranscriptStep(player=player, action=games.GAME_ACTION_MOVE,
                                        notation=view.plays[0].notation)
        else:
            raise AssertionError(f"no move for phase {games.Phase.Name(view.phase)}")
        act = games.ActRequest(state=state, seat=seats[step.player], player=step.player,
                               action=step.action)
        if step.notation:
            act.notation = step.notation
        answer = referee.Act(act)
        if answer.HasField("roll"):
            receipts.append(answer.roll)
        state, view = answer.state, answer.view
        actions.append(step)
    return start, actions, receipts, answer


def check_game(referee, start, actions, receipts, last, token):
    """The transcript replays to the same view; the final position scores
    as the referee said; every roll matches the revealed seed."""
    verdict = referee.VerifyGame(
        games.VerifyGameRequest(start=start, actions=actions, state=last.state))
    assert verdict.valid and verdict.actions == len(actions), verdict
    assert verdict.state_matches, "the replay does not reach the players' last token"
    assert verdict.view == last.view, (verdict.view, last.view)
    mat = referee.ExportGame(games.ExportGameRequest(start=start, actions=actions)).mat
    assert "Game 1" in mat, mat[:300]
    position = last.view.position
    scored = referee.ScoreGame(cube.ScoreGameRequest(
        ended_by=cube.ENDED_BY_BEAROFF, position=common.PositionInput(position=position)))
    assert scored.winner == last.game_over.winner, (scored, last.game_over)
    assert scored.points == last.game_over.points, (scored, last.game_over)
    commitment = referee.GetCommitment(dice.GetCommitmentRequest(match_id=MATCH_ID))
    assert all(r.commitment == commitment.commitment for r in receipts), commitment
    if token:
        revealed = referee.RevealSeed(dice.RevealSeedRequest(match_id=MATCH_ID),
                                      metadata=[("authorization", f"Bearer {token}")])
        assert hashlib.sha256(bytes.fromhex(revealed.server_seed)).hexdigest() \
            == commitment.commitment
        verdict = referee.VerifyDice(dice.VerifyDiceRequest(
            match_id=MATCH_ID, server_seed=revealed.server_seed,
            commitment=commitment.commitment,
            rolls=[dice.ClaimedRoll(client_seed=r.client_seed, game=r.game, turn=r.turn,
                                    dice=list(r.dice)) for r in receipts]))
        assert verdict.valid, verdict
    else:
        try:
            referee.RevealSeed(dice.RevealSeedRequest(match_id=MATCH_ID))
            raise AssertionError("reveal without a token succeeded")
        except grpc.RpcError as err:
            assert err.code() in (grpc.StatusCode.UNAUTHENTICATED,
                                  grpc.StatusCode.PERMISSION_DENIED), err
    print(f"whole refereed game: {len(actions)} actions, {len(receipts)} rolls, "
          f"{NAMES[scored.winner]} wins {common.GameResult.Name(scored.result)} for "
          f"{scored.points} point(s); final pips x {position.pips.x} o {position.pips.o}; "
          "answered: NewGame Act VerifyGame ExportGame ScoreGame GetCommitment RevealSeed"
          + (f" VerifyDice ({len(receipts)} rolls valid)" if token else ""))


def main():
    target = sys.argv[1]
    token = sys.argv[2] if len(sys.argv) > 2 else ""
    with grpc.insecure_channel(target) as channel:
        referee = referee_pb2_grpc.RefereeStub(channel)
        every_rpc(referee, render_pb2_grpc.RenderStub(channel))
        start, actions, receipts, last = play_game(referee)
        check_game(referee, start, actions, receipts, last, token)


if __name__ == "__main__":
    main()
