"""A bgref gRPC client in Python: calls every RPC of bgref.v1.Referee once,
then plays a whole game against the referee (dice from the service,
the first legal play each turn) and scores it.

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
from bgref.v1 import moves_pb2 as moves  # noqa: E402
from bgref.v1 import referee_pb2_grpc  # noqa: E402

MATCH_ID = "python-example-0001"
CLIENT_SEED = "alice:bob"
NAMES = {common.PLAYER_X: "x", common.PLAYER_O: "o"}


def every_rpc(referee, token):
    """One call of each RPC, each answer checked."""
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

    commitment = referee.GetCommitment(dice.GetCommitmentRequest(match_id=MATCH_ID))
    keys = referee.GetKeys(dice.GetKeysRequest())
    assert keys.keys[0].algorithm == "ed25519", keys
    roll = referee.RollDice(dice.RollDiceRequest(
        match_id=MATCH_ID, client_seed=CLIENT_SEED, game=1, turn=1))
    assert len(roll.dice) == 2 and roll.key_id == keys.keys[0].key_id, roll
    opening = referee.OpeningRoll(dice.OpeningRollRequest(
        match_id=MATCH_ID, client_seed=CLIENT_SEED, game=1))
    assert opening.x_die != opening.o_die, opening

    may_double = referee.ResolveCube(cube.ResolveCubeRequest(
        player=common.PLAYER_X, action=cube.CUBE_ACTION_DOUBLE))
    assert may_double.allowed and may_double.to_act == common.PLAYER_O, may_double
    scored = referee.ScoreGame(cube.ScoreGameRequest(
        ended_by=cube.ENDED_BY_PASS, winner=common.PLAYER_X,
        cube=cube.Cube(value=2, owner=cube.CUBE_OWNER_X),
        match=cube.MatchState(length=5, score=common.PerPlayer(x=2, o=3))))
    assert scored.points == 2 and scored.match.next_game == cube.GAME_KIND_CRAWFORD, scored

    if token:
        revealed = referee.RevealSeed(dice.RevealSeedRequest(match_id=MATCH_ID),
                                      metadata=[("authorization", f"Bearer {token}")])
        assert hashlib.sha256(bytes.fromhex(revealed.server_seed)).hexdigest() \
            == commitment.commitment
        verdict = referee.VerifyDice(dice.VerifyDiceRequest(
            match_id=MATCH_ID, server_seed=revealed.server_seed,
            commitment=commitment.commitment,
            rolls=[dice.ClaimedRoll(client_seed=CLIENT_SEED, game=1, turn=1,
                                    dice=list(roll.dice))]))
        assert verdict.valid, verdict
    else:
        try:
            referee.RevealSeed(dice.RevealSeedRequest(match_id=MATCH_ID))
            raise AssertionError("reveal without a token succeeded")
        except grpc.RpcError as err:
            assert err.code() in (grpc.StatusCode.UNAUTHENTICATED,
                                  grpc.StatusCode.PERMISSION_DENIED), err
    print("every RPC answered: ListVariants LegalMoves ApplyMove GetCommitment GetKeys "
          "RollDice OpeningRoll ResolveCube ScoreGame RevealSeed"
          + (" VerifyDice" if token else ""))


def play_game(referee):
    """From the opening roll to the score, the first legal play each turn."""
    opening = referee.OpeningRoll(dice.OpeningRollRequest(
        match_id=MATCH_ID, client_seed=CLIENT_SEED, game=1))
    position = opening.position
    rolled = list(opening.dice)
    turn = 0
    while True:
        turn += 1
        legal = referee.LegalMoves(moves.LegalMovesRequest(
            position=common.PositionInput(position=position), dice=rolled))
        if legal.plays:
            request = moves.ApplyMoveRequest(
                position=common.PositionInput(position=position), dice=rolled,
                notation=legal.plays[0].notation)
        else:  # No legal play: the turn passes.
            request = moves.ApplyMoveRequest(
                position=common.PositionInput(position=position), dice=rolled,
                moves=moves.MoveList())
        applied = referee.ApplyMove(request)
        position = applied.position
        if applied.HasField("game_over"):
            break
        assert turn < 2000, "the game does not end"
        rolled = list(referee.RollDice(dice.RollDiceRequest(
            match_id=MATCH_ID, client_seed=CLIENT_SEED, game=1, turn=turn)).dice)
    scored = referee.ScoreGame(cube.ScoreGameRequest(
        ended_by=cube.ENDED_BY_BEAROFF, position=common.PositionInput(position=position)))
    assert scored.winner == applied.game_over.winner, (scored, applied.game_over)
    print(f"whole game: {turn} turns, {NAMES[scored.winner]} wins "
          f"{common.GameResult.Name(scored.result)} for {scored.points} point(s); "
          f"final pips x {position.pips.x} o {position.pips.o}")


def main():
    target = sys.argv[1]
    token = sys.argv[2] if len(sys.argv) > 2 else ""
    with grpc.insecure_channel(target) as channel:
        referee = referee_pb2_grpc.RefereeStub(channel)
        every_rpc(referee, token)
        play_game(referee)


if __name__ == "__main__":
    main()
