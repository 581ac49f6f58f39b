#!/usr/bin/env bash
# One whole refereed game of money backgammon against a running bgref, with
# curl and jq only: `POST /games` starts it, then `POST /games/act` with the
# last answer's state token for every action (the referee rolls every die;
# each side plays the first legal play the view offers) until the game is
# over, and `POST /games/verify` replays the transcript to the players' last
# token. Prints one line per turn (turn, side, dice, play), the winner and
# the points.
#
# Exits non-zero, printing the problem document, on any answer that is not a
# 2xx, and gives up after MAX_ACTIONS actions.
#
# Usage: examples/curl/game.sh [BASE_URL]    (default http://127.0.0.1:8080;
#        the bearer token $BGREF_GAME_TOKEN is sent when set)
set -euo pipefail

BASE=${1:-http://127.0.0.1:8080}
MAX_ACTIONS=2000
# Any id will do: the referee keeps nothing, and the dice of a turn follow
# from the server's secret, this id, the client seed, the game and the turn.
START='{"match_id": "curl-example-0001", "client_seed": "alice:bob"}'

AUTH=()
if [[ -n ${BGREF_GAME_TOKEN:-} ]]; then
    AUTH=(-H "authorization: Bearer $BGREF_GAME_TOKEN")
fi

# post PATH BODY: prints the answer; on a non-2xx answer prints the problem
# document to stderr and exits (the caller's `var=$(post ...)` fails too).
post() {
    local answer
    if ! answer=$(curl -sS --fail-with-body "${AUTH[@]}" \
        -H 'content-type: application/json' -d "$2" "$BASE$1"); then
        printf 'POST %s failed: %s\n' "$1" "$answer" >&2
        exit 1
    fi
    printf '%s\n' "$answer"
}

# From an answer: its phase, the next request (the state token and the step
# due: a roll, or the first legal play) and the line to print (a move due,
# or a roll that passed the turn: no legal play; else empty).
NEXT='.view as $v
    | (if $v.phase == "move"
       then {player: $v.to_act, action: "move", play: $v.plays[0].notation}
       else {player: ($v.to_act // "x"), action: "roll"} end) as $step
    | ($step + {seat: $seats[$step.player]}) as $step
    | $v.phase,
      ({state} + $step | tojson),
      if .event.passed then "\(.roll.turn)\t\(.event.player)\t\(.event.dice | join("-"))\t(no play)"
      elif $v.phase == "move" then "\($v.turn)\t\($v.to_act)\t\($v.dice | join("-"))\t\($step.play)"
      else "" end'

answer=$(post /games "$START")
# One secret seat per player: each action carries its player's seat (an app
# hands each player only its own).
seats=$(jq -c .seats <<<"$answer")
requests=()
while true; do
    { read -r phase; read -r request; read -r line; } < <(jq -r --argjson seats "$seats" "$NEXT" <<<"$answer")
    [[ -z $line ]] || printf '%s\n' "$line"
    case $phase in
    game_over | match_over) break ;;
    # Either side may throw the opening roll (to_act is null, "x" throws it).
    opening_roll | roll_or_double | move) ;;
    *)
        echo "no action for phase $phase (the cube is never turned here)" >&2
        exit 1
        ;;
    esac
    if ((${#requests[@]} >= MAX_ACTIONS)); then
        echo "the game is not over after $MAX_ACTIONS actions" >&2
        exit 1
    fi
    answer=$(post /games/act "$request")
    requests+=("$request")
done

jq -r '.view.result | "game over: \(.winner) wins a \(.result) game for \(.points) point(s)"' \
    <<<"$answer"

# The transcript: the start and every step (the requests without their
# tokens), and the last token, which the replay must reach.
transcript=$(printf '%s\n' "${requests[@]}" | jq -cs \
    --argjson start "$START" --arg state "$(jq -r .state <<<"$answer")" \
    '{start: $start, actions: map(del(.state, .seat)), state: $state}')
verdict=$(post /games/verify "$transcript")
if [[ $(jq '.valid and .state_matches' <<<"$verdict") != true ]]; then
    printf 'the transcript does not verify: %s\n' "$verdict" >&2
    exit 1
fi
jq -r '"verified: \(.actions) actions replayed, valid, state_matches"' <<<"$verdict"
