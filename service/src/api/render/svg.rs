//! The SVG picture: the board from the viewer's side (the player on roll
//! unless the request names a `perspective`), self-contained (no fonts,
//! stylesheets or images from elsewhere; generic font families only) and
//! deterministic (the same picture gives the same bytes).
//!
//! Layout, in user units of the `viewBox` (670 x 540): the viewer sits at
//! the bottom, its points 1 to 6 at the bottom right, 7 to 12 bottom
//! left, 13 to 18 top left, 19 to 24 top right, numbered from its side.
//! Each point shows up to five checkers 36 units apart (32 across, so
//! that neighbours do not touch); a taller stack shows five with its
//! count on the fifth. The bar (between the halves) holds the checkers
//! on the bar, the viewer's below the middle; the tray (right) the
//! borne-off checkers as slabs, the viewer's at the bottom. The cube sits
//! left of the board: in the middle when centred, at the owner's side
//! otherwise (showing 64 when centred at 1); none in the Crawford game
//! and the tables games. The dice, in the colour of the player on roll,
//! lie in the right half's middle.
//!
//! For hit-testing, each point is a `<g id="point-N" class="point">`
//! (N the viewer's number) holding its triangle, its number and its
//! checkers; each checker is `class="checker x"` (or `o`; a pinned one
//! also `pinned`), a stack's count `class="count"`; the bar's checkers sit
//! in `<g id="bar-x">` and `<g id="bar-o">`, the borne-off slabs (also
//! `class="checker x"`) in `<g id="off-x">` and `<g id="off-o">`; the cube
//! is `<g id="cube" class="cube centre" data-value="1">` (`x` or `o` for
//! its owner; `cube offered x` while x's double waits, drawn in the left
//! half's middle with the value a take makes); a resignation waiting is
//! `<g id="resignation" class="resignation x" data-value="gammon">`, a
//! flag in the same place; the dice `<g id="die-1" class="die"
//! data-value="6">` and `die-2`; the last play's marks (a gold outline
//! where each chain started, a gold strip where it ended, in the frame by
//! the point, the bar or the tray) `<g id="last-play" class="last-play
//! x">`. Player names are escaped for XML. `scripts/ci-render.sh` screenshots pictures in headless
//! Chromium and counts these shapes in the pixels, so a change of these
//! numbers or colours must be made there too.

use std::fmt::Write as _;

use bgref_core::notation::move_text::MoveText;
use bgref_core::notation::position_id::PositionId;
use bgref_core::tables::{TablesPosition, other_view};
use bgref_core::{ByPlayer, CubeOwner, CubeState, Dice, MatchState, Player};

use super::Picture;

/// The checkers on one point, as the picture shows them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stack {
    /// Whose checkers stand there (`None`: an empty point).
    pub owner: Option<Player>,
    /// How many (the pinned checker not counted).
    pub count: u8,
    /// Plakoto: the opponent's single checker pinned under this stack.
    pub pinned: bool,
}

/// What the SVG draws, for any game, from the viewer's side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scene {
    /// The player on roll.
    pub turn: Player,
    /// Whose side the picture is drawn from: its bottom side.
    pub viewer: Player,
    /// The first words of the title: the game and the position's name.
    pub name: String,
    /// `points[p - 1]` is the viewer's point `p`.
    pub points: [Stack; 24],
    /// Checkers on the bar.
    pub bar: ByPlayer<u8>,
    /// Checkers borne off.
    pub off: ByPlayer<u8>,
    /// Pip counts.
    pub pips: ByPlayer<u32>,
    /// The cube (`None`: the game has none).
    pub cube: Option<CubeState>,
    /// The match.
    pub match_state: MatchState,
    /// The roll shown.
    pub dice: Option<Dice>,
    /// The players' names.
    pub names: ByPlayer<String>,
    /// The last play, by the player not on roll (its points from its
    /// side).
    pub last_play: Option<MoveText>,
    /// Once the game is over on the board: its winner (`None`: a draw).
    pub over: Option<Option<Player>>,
}

impl Scene {
    /// A backgammon board picture: the viewer's point `p` is the
    /// opponent's `25 - p`. No cube in the Crawford game.
    pub fn backgammon(picture: &Picture) -> Scene {
        let position = &picture.position;
        let me = picture.viewer;
        let (mine, theirs) = (position.side(me), position.side(!me));
        let mut points = [Stack::default(); 24];
        for (i, stack) in points.iter_mut().enumerate() {
            let p = i + 1;
            *stack = match (mine[p], theirs[25 - p]) {
                (0, 0) => Stack::default(),
                (0, n) => Stack {
                    owner: Some(!me),
                    count: n,
                    pinned: false,
                },
                (n, _) => Stack {
                    owner: Some(me),
                    count: n,
                    pinned: false,
                },
            };
        }
        Scene {
            turn: position.turn(),
            viewer: me,
            name: format!(
                "Backgammon position {} ({})",
                PositionId::from_position(position),
                position.variant()
            ),
            points,
            bar: ByPlayer::new_with(|p| position.side(p)[25]),
            off: ByPlayer::new_with(|p| position.side(p)[0]),
            pips: ByPlayer::new_with(|p| position.pip_count(p)),
            cube: (!picture.match_state.crawford).then_some(picture.cube),
            match_state: picture.match_state,
            dice: picture.dice,
            names: picture.names.clone(),
            last_play: picture.last_play.clone(),
            over: position.outcome().map(|o| Some(o.winner)),
        }
    }

    /// A Plakoto, Fevga or Long Nardy picture: the viewer's point `p` is
    /// the opponent's [`other_view`]; a pinned checker is drawn under its
    /// pinner's stack. These games have no bar and no cube. Drawn from
    /// `perspective`'s side (default the player on roll).
    pub fn tables(
        position: &TablesPosition,
        perspective: Option<Player>,
        match_state: MatchState,
        dice: Option<Dice>,
        names: ByPlayer<String>,
    ) -> Scene {
        let game = position.game();
        let setup = position.to_setup();
        let me = perspective.unwrap_or(setup.turn);
        let mut points = [Stack::default(); 24];
        for (i, stack) in points.iter_mut().enumerate() {
            let p = u8::try_from(i + 1).unwrap_or(24);
            let j = usize::from(other_view(game, p)) - 1;
            let (mine, theirs) = (setup.points[me][i], setup.points[!me][j]);
            *stack = if setup.pinned[me][i] && theirs > 0 {
                Stack {
                    owner: Some(!me),
                    count: theirs,
                    pinned: true,
                }
            } else if setup.pinned[!me][j] && mine > 0 {
                Stack {
                    owner: Some(me),
                    count: mine,
                    pinned: true,
                }
            } else if mine > 0 {
                Stack {
                    owner: Some(me),
                    count: mine,
                    pinned: false,
                }
            } else if theirs > 0 {
                Stack {
                    owner: Some(!me),
                    count: theirs,
                    pinned: false,
                }
            } else {
                Stack::default()
            };
        }
        let name = match position.position_id() {
            Some(id) => format!("{game} position {id}"),
            None => format!("{game} position"),
        };
        Scene {
            turn: setup.turn,
            viewer: me,
            name,
            points,
            bar: ByPlayer { x: 0, o: 0 },
            off: setup.off,
            pips: ByPlayer::new_with(|p| position.pip_count(p)),
            cube: None,
            match_state,
            dice,
            names,
            last_play: None,
            over: position.outcome().map(|o| o.winner),
        }
    }
}

/// The picture's size.
pub const WIDTH: u32 = 670;
/// The picture's height.
pub const HEIGHT: u32 = 540;
/// Top and bottom of the playing field.
const FIELD_TOP: u32 = 60;
const FIELD_BOTTOM: u32 = 476;
/// The field's middle, and half the gap between the two rows of points.
const MID: u32 = 268;
const HALF_GAP: u32 = 24;
/// A point's width, a checker's radius and the distance between checkers.
const POINT_W: u32 = 40;
const RADIUS: u32 = 16;
const PITCH: u32 = 36;
/// Left edges of the left half, the bar, the right half and the tray.
const LEFT: u32 = 60;
const BAR: u32 = 300;
const BAR_W: u32 = 48;
const RIGHT: u32 = 348;
const TRAY: u32 = 606;

/// Fill colours.
const X_FILL: &str = "#f0e6c8";
const O_FILL: &str = "#1f1f1f";
const EDGE: &str = "#808080";
/// A stack's count, on the fifth checker: dark red on x's light checkers
/// (contrast ratio 6.8:1 against `X_FILL`), light red on o's dark ones
/// (6.8:1 against `O_FILL`); WCAG asks 4.5:1 of text, which the red
/// #d01010 drawn on both before had on x's but not on o's (2.9:1). The
/// unit test `count_colours_are_readable` computes the ratios.
const COUNT_ON_X: &str = "#a00000";
const COUNT_ON_O: &str = "#ff8080";

fn fill(player: Player) -> &'static str {
    match player {
        Player::X => X_FILL,
        Player::O => O_FILL,
    }
}

fn count_fill(player: Player) -> &'static str {
    match player {
        Player::X => COUNT_ON_X,
        Player::O => COUNT_ON_O,
    }
}

/// The left edge of the viewer's point `p` (1 to 24) and whether it is in
/// the bottom row.
fn column(p: u32) -> (u32, bool) {
    match p {
        1..=6 => (RIGHT + 6 * POINT_W - p * POINT_W, true),
        7..=12 => (LEFT + (12 - p) * POINT_W, true),
        13..=18 => (LEFT + (p - 13) * POINT_W, false),
        _ => (RIGHT + (p - 19) * POINT_W, false),
    }
}

/// The centre of the `k`-th checker (from 0) of a stack standing on the
/// bottom edge (`bottom`) or hanging from the top edge.
fn stack_y(k: u32, bottom: bool) -> u32 {
    if bottom {
        FIELD_BOTTOM - 4 - RADIUS - k * PITCH
    } else {
        FIELD_TOP + 4 + RADIUS + k * PITCH
    }
}

/// Draws a stack of `n` checkers of `player` at centre `cx`, the `k`-th at
/// `y(k)`, over one pinned checker of the opponent when `pinned` (its
/// class `checker o pinned`, say): five checkers at most, the fifth with
/// the stack's count (class `count`) when there are more.
fn stack(s: &mut String, player: Player, n: u8, pinned: bool, cx: u32, y: impl Fn(u32) -> u32) {
    let under = u32::from(pinned);
    let total = u32::from(n) + under;
    for k in 0..total.min(5) {
        let (who, class) = if k < under {
            (!player, " pinned")
        } else {
            (player, "")
        };
        let _ = writeln!(
            s,
            r#"<circle class="checker {who}{class}" cx="{cx}" cy="{}" r="{RADIUS}" fill="{}" stroke="{EDGE}" stroke-width="1.5"/>"#,
            y(k),
            fill(who)
        );
    }
    if total > 5 {
        let _ = writeln!(
            s,
            r#"<text class="count" x="{cx}" y="{}" font-size="15" font-weight="bold" fill="{}" text-anchor="middle" dominant-baseline="central">{n}</text>"#,
            y(4),
            count_fill(player)
        );
    }
}

/// One die with its pips: `<g id="die-{n}" class="die" data-value=..>`.
fn die(s: &mut String, n: u8, x: u32, value: u8, player: Player) {
    let y = MID - 16;
    let _ = writeln!(
        s,
        r#"<g id="die-{n}" class="die" data-value="{value}">
<rect x="{x}" y="{y}" width="32" height="32" rx="5" fill="{}" stroke="{EDGE}" stroke-width="1.5"/>"#,
        fill(player)
    );
    let pip = fill(!player);
    let (l, c, r) = (x + 8, x + 16, x + 24);
    let (t, m, b) = (y + 8, y + 16, y + 24);
    let spots: &[(u32, u32)] = match value {
        1 => &[(c, m)],
        2 => &[(l, t), (r, b)],
        3 => &[(l, t), (c, m), (r, b)],
        4 => &[(l, t), (r, t), (l, b), (r, b)],
        5 => &[(l, t), (r, t), (c, m), (l, b), (r, b)],
        _ => &[(l, t), (r, t), (l, m), (r, m), (l, b), (r, b)],
    };
    for (px, py) in spots {
        let _ = writeln!(s, r#"<circle cx="{px}" cy="{py}" r="3" fill="{pip}"/>"#);
    }
    s.push_str("</g>\n");
}

/// The SVG document of `scene`.
pub fn draw(scene: &Scene) -> String {
    let me = scene.viewer;
    let opp = !me;
    let turn = scene.turn;
    let pips = |p: Player| scene.pips[p];
    let m = &scene.match_state;
    let game = if m.length == 0 {
        "money game".to_owned()
    } else {
        format!(
            "{}-point match, {} {} {} {}{}",
            m.length,
            turn,
            m.score[turn],
            !turn,
            m.score[!turn],
            if m.crawford { ", Crawford game" } else { "" }
        )
    };
    // A player as the picture names it: `x`, or `Alice (x)`.
    let who = |p: Player| {
        let name = &scene.names[p];
        if *name == p.to_string() {
            name.clone()
        } else {
            format!("{} ({p})", escape(name))
        }
    };
    let cube = match scene.cube {
        None => "no cube".to_owned(),
        Some(c) => {
            let at = match c.owner {
                CubeOwner::Centre => format!("cube {} centred", c.value.get()),
                CubeOwner::Player(p) => format!("cube {} owned by {p}", c.value.get()),
            };
            match (c.offered_by, c.resignation) {
                (Some(p), _) if c.beavers > 0 => format!(
                    "{at}, {p} beavered to {} (beavers {}), waiting for an answer",
                    c.value.get() * 2,
                    c.beavers
                ),
                (Some(p), _) => format!("{at}, {p} doubles to {}", c.value.get() * 2),
                (None, Some(r)) => format!("{at}, {} offers to resign a {}", r.by, r.level),
                (None, None) => at,
            }
        }
    };
    let players = if scene.names.x == "x" && scene.names.o == "o" {
        String::new()
    } else {
        format!(", players {} and {}", who(Player::X), who(Player::O))
    };
    let roll = match (scene.dice, scene.cube.and_then(|c| c.to_act())) {
        _ if scene.over.is_some() => match scene.over.flatten() {
            Some(w) => format!("{w} wins the game"),
            None => "the game is drawn".to_owned(),
        },
        (_, Some(p)) => format!("{p} to answer"),
        (Some(d), None) => format!("{turn} rolled {}-{}", d.first().get(), d.second().get()),
        (None, None) => format!("{turn} to roll"),
    };
    let last = scene
        .last_play
        .as_ref()
        .map_or_else(String::new, |m| format!(", {} played {m}", !turn));
    let title = format!(
        "{}: {turn} on roll, pips {turn} {} {} {}, {cube}, {game}, {roll}{last}{players}",
        scene.name,
        pips(turn),
        !turn,
        pips(!turn),
    );

    let mut s = String::with_capacity(16 * 1024);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" aria-labelledby="title" font-family="sans-serif">"#
    );
    let _ = writeln!(s, r#"<title id="title">{title}</title>"#);
    // Background, frame, field, bar and tray.
    let _ = writeln!(
        s,
        r##"<rect width="{WIDTH}" height="{HEIGHT}" fill="#3b2a1a"/>
<rect x="50" y="50" width="614" height="436" fill="#5c3b1e"/>
<rect x="{LEFT}" y="{FIELD_TOP}" width="{}" height="{}" fill="#2f6e45"/>
<rect x="{RIGHT}" y="{FIELD_TOP}" width="{}" height="{}" fill="#2f6e45"/>
<rect x="{}" y="{FIELD_TOP}" width="48" height="{}" fill="#4a3018"/>"##,
        6 * POINT_W,
        FIELD_BOTTOM - FIELD_TOP,
        6 * POINT_W,
        FIELD_BOTTOM - FIELD_TOP,
        TRAY - 4,
        FIELD_BOTTOM - FIELD_TOP,
    );
    // Points, numbered from the viewer's side, each a group with its
    // number and its checkers.
    for p in 1..=24u32 {
        let (x, bottom) = column(p);
        let _ = writeln!(s, r#"<g id="point-{p}" class="point">"#);
        let colour = if p % 2 == 0 { "#c9a26b" } else { "#8b5a2b" };
        let (base, apex) = if bottom {
            (FIELD_BOTTOM, FIELD_BOTTOM - 170)
        } else {
            (FIELD_TOP, FIELD_TOP + 170)
        };
        let _ = writeln!(
            s,
            r#"<polygon points="{x},{base} {},{base} {},{apex}" fill="{colour}"/>"#,
            x + POINT_W,
            x + POINT_W / 2
        );
        let label_y = if bottom { FIELD_BOTTOM + 24 } else { 44 };
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{label_y}" font-size="13" fill="#e8dcc0" text-anchor="middle">{p}</text>"##,
            x + POINT_W / 2
        );
        let st = scene.points[p as usize - 1];
        if let Some(owner) = st.owner {
            stack(&mut s, owner, st.count, st.pinned, x + POINT_W / 2, |k| {
                stack_y(k, bottom)
            });
        }
        s.push_str("</g>\n");
    }
    // The bar: the viewer's checkers below the middle, the opponent's above.
    let bar_x = BAR + BAR_W / 2;
    let _ = writeln!(s, r#"<g id="bar-{me}" class="bar">"#);
    stack(&mut s, me, scene.bar[me], false, bar_x, |k| {
        MID + HALF_GAP + 4 + RADIUS + k * PITCH
    });
    let _ = writeln!(s, "</g>\n<g id=\"bar-{opp}\" class=\"bar\">");
    stack(&mut s, opp, scene.bar[opp], false, bar_x, |k| {
        MID - HALF_GAP - 4 - RADIUS - k * PITCH
    });
    s.push_str("</g>\n");
    // Borne-off checkers as slabs: the viewer's at the bottom.
    for (player, bottom) in [(me, true), (opp, false)] {
        let _ = writeln!(s, r#"<g id="off-{player}" class="off">"#);
        for k in 0..u32::from(scene.off[player]) {
            let y = if bottom {
                FIELD_BOTTOM - 12 - 11 * k
            } else {
                FIELD_TOP + 4 + 11 * k
            };
            let _ = writeln!(
                s,
                r#"<rect class="checker {player}" x="{TRAY}" y="{y}" width="40" height="8" fill="{}" stroke="{EDGE}" stroke-width="1"/>"#,
                fill(player)
            );
        }
        s.push_str("</g>\n");
    }
    // The cube, left of the board; a double waiting for an answer in the
    // left half's middle, showing the value a take makes; a resignation
    // waiting there too, as a flag with the points it gives.
    if let Some((cube, by)) = scene.cube.and_then(|c| Some((c, c.offered_by?))) {
        offered_cube(&mut s, &cube, by);
    } else if let Some(cube) = scene.cube {
        let cube_y = match cube.owner {
            CubeOwner::Centre => MID - 18,
            CubeOwner::Player(p) if p == me => FIELD_BOTTOM - 36,
            CubeOwner::Player(_) => FIELD_TOP,
        };
        let face = match (cube.owner, cube.value.get()) {
            (CubeOwner::Centre, 1) => 64,
            (_, v) => v,
        };
        let owner = match cube.owner {
            CubeOwner::Centre => "centre",
            CubeOwner::Player(Player::X) => "x",
            CubeOwner::Player(Player::O) => "o",
        };
        let _ = writeln!(
            s,
            r##"<g id="cube" class="cube {owner}" data-value="{}">
<rect x="7" y="{cube_y}" width="36" height="36" rx="4" fill="#ffffff" stroke="#333333" stroke-width="2"/>
<text x="25" y="{}" font-size="{}" font-weight="bold" fill="#333333" text-anchor="middle" dominant-baseline="central">{face}</text>
</g>"##,
            cube.value.get(),
            cube_y + 18,
            if face >= 1000 { 11 } else { 15 },
        );
    }
    if let Some((cube, r)) = scene.cube.and_then(|c| Some((c, c.resignation?))) {
        let points = cube.value.get() * r.level.multiplier();
        let _ = writeln!(
            s,
            r##"<g id="resignation" class="resignation {}" data-value="{}" data-points="{points}">
<line x1="152" y1="248" x2="152" y2="290" stroke="#e8dcc0" stroke-width="3"/>
<rect x="153" y="250" width="52" height="26" fill="#ffffff" stroke="#333333" stroke-width="1.5"/>
<text x="179" y="263" font-size="15" font-weight="bold" fill="#333333" text-anchor="middle" dominant-baseline="central">{points}</text>
</g>"##,
            r.by, r.level,
        );
    }
    if let Some(play) = &scene.last_play {
        last_play(&mut s, play, !turn, me);
    }
    // The dice, in the right half's middle.
    if let Some(d) = scene.dice {
        die(&mut s, 1, RIGHT + 80, d.first().get(), turn);
        die(&mut s, 2, RIGHT + 128, d.second().get(), turn);
    }
    // Who is who: the opponent above, the viewer below; the player on
    // roll marked, with its roll; the match on the other line's right.
    let on_roll = |p: Player| {
        if p == turn {
            format!(
                " (on roll): {} pips{} · {roll}",
                pips(p),
                score_note(m.length, m.score[p])
            )
        } else {
            format!(": {} pips{}", pips(p), score_note(m.length, m.score[p]))
        }
    };
    let _ = writeln!(
        s,
        r##"<text id="label-{opp}" x="60" y="20" font-size="14" fill="#e8dcc0">{}{}</text>
<text id="label-{me}" x="60" y="{}" font-size="14" fill="#e8dcc0">{}{}</text>
<text x="610" y="{}" font-size="12" fill="#e8dcc0" text-anchor="end">{game}</text>"##,
        who(opp),
        on_roll(opp),
        HEIGHT - 14,
        who(me),
        on_roll(me),
        if turn == me { 20 } else { HEIGHT - 14 },
    );
    s.push_str("</svg>\n");
    s
}

/// A double (or beaver, or raccoon) waiting for an answer: the cube in
/// the left half's middle, showing the value a take makes, `class="cube
/// offered x"` for x's double (`beavered` too after a beaver or raccoon),
/// `data-value` that value.
fn offered_cube(s: &mut String, cube: &CubeState, by: Player) {
    let value = cube.value.get() * 2;
    let beavered = if cube.beavers > 0 { " beavered" } else { "" };
    let _ = writeln!(
        s,
        r##"<g id="cube" class="cube offered {by}{beavered}" data-value="{value}">
<rect x="162" y="250" width="36" height="36" rx="4" fill="#ffffff" stroke="#333333" stroke-width="2"/>
<text x="180" y="268" font-size="{}" font-weight="bold" fill="#333333" text-anchor="middle" dominant-baseline="central">{value}</text>
</g>"##,
        if value >= 1000 { 11 } else { 15 },
    );
}

/// The last play of `mover`, seen from `viewer`: under (or over) each
/// point, bar or tray a chain starts from, a gold outline (`class="from"`);
/// where it ends, a gold strip (`class="to"`); in `<g id="last-play"
/// class="last-play x" data-value="13/7 8/7">`.
fn last_play(s: &mut String, play: &MoveText, mover: Player, viewer: Player) {
    const GOLD: &str = "#ffd700";
    let _ = writeln!(
        s,
        r#"<g id="last-play" class="last-play {mover}" data-value="{play}">"#
    );
    // The strip's left edge, width and whether it sits under the bottom
    // row: a point by the viewer's number, the mover's bar or tray.
    let place = |p: u8| -> (u32, u32, bool) {
        let mine = mover == viewer;
        match p {
            25 => (BAR + 4, BAR_W - 8, mine),
            0 => (TRAY, 40, mine),
            p => {
                let n = if mine {
                    u32::from(p)
                } else {
                    25 - u32::from(p)
                };
                let (x, bottom) = column(n);
                (x + 4, POINT_W - 8, bottom)
            }
        }
    };
    for segment in &play.segments {
        let ends = [(segment.path.first(), "from"), (segment.path.last(), "to")];
        for (point, class) in ends {
            let Some((point, _)) = point else { continue };
            let (x, width, bottom) = place(point.get());
            let y = if bottom {
                FIELD_BOTTOM + 3
            } else {
                FIELD_TOP - 9
            };
            let paint = if class == "from" {
                format!(r#"fill="none" stroke="{GOLD}" stroke-width="2""#)
            } else {
                format!(r#"fill="{GOLD}""#)
            };
            let _ = writeln!(
                s,
                r#"<rect class="{class}" x="{x}" y="{y}" width="{width}" height="6" {paint}/>"#
            );
        }
    }
    s.push_str("</g>\n");
}

/// Text for XML: `&`, `<`, `>`, `"` and `'` as entities.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `, N points` in a match; nothing in money play.
fn score_note(length: u32, score: u32) -> String {
    match (length, score) {
        (0, _) => String::new(),
        (_, 1) => ", 1 point".to_owned(),
        (_, n) => format!(", {n} points"),
    }
}

#[cfg(test)]
mod tests {
    use bgref_core::notation::xgid::Xgid;
    use bgref_core::{BackgammonVariant, CubeState, CubeValue, MatchState, Position};

    use super::*;

    fn picture(xgid: &str) -> Picture {
        let parsed: Xgid = xgid.parse().unwrap();
        let position = Position::from_setup(&parsed.setup, BackgammonVariant::Standard).unwrap();
        Picture {
            viewer: position.turn(),
            position,
            cube: CubeState {
                value: CubeValue::new(4),
                owner: CubeOwner::Player(Player::O),
                ..CubeState::START
            },
            match_state: MatchState::MONEY,
            dice: parsed.rolled_dice(),
            names: ByPlayer {
                x: "x".into(),
                o: "o".into(),
            },
            last_play: None,
        }
    }

    #[test]
    fn a_finished_game_says_who_won() {
        // x has borne off every checker; o is "on roll" in the XGID.
        let p = picture("XGID=-------------------bbb----:0:0:-1:00:0:0:0:0:10");
        let svg = draw(&Scene::backgammon(&p));
        assert!(svg.contains(", x wins the game</title>"), "{svg}");
        assert!(!svg.contains("to roll"), "{svg}");
    }

    #[test]
    fn names_are_escaped_for_xml() {
        assert_eq!(
            escape(r#"<Bob & "Al's">"#),
            "&lt;Bob &amp; &quot;Al&#39;s&quot;&gt;"
        );
        assert_eq!(escape("Alice Smith"), "Alice Smith");
    }

    #[test]
    fn every_checker_is_drawn_once() {
        // x with one on the bar and six on its 6 point (a count), o with
        // one off; o on roll with 6-5.
        let p = picture("XGID=-a----F-C---eE---c-e-----A:2:-1:-1:65:0:0:0:0:10");
        let svg = draw(&Scene::backgammon(&p));
        assert!(svg.starts_with("<svg "), "{svg}");
        assert!(svg.ends_with("</svg>\n"));
        assert!(svg.contains("<title id=\"title\">"));
        assert!(!svg.contains("href"), "no outside resources");
        let circles = |colour: &str| {
            svg.matches(&format!(r#"r="{RADIUS}" fill="{colour}""#))
                .count()
        };
        // Up to five per point and on the bar.
        let x = position_counts(&p.position, Player::X);
        let o = position_counts(&p.position, Player::O);
        assert_eq!(circles(X_FILL), x);
        assert_eq!(circles(O_FILL), o);
        assert!(
            svg.contains(">6</text>"),
            "the stack of six shows its count"
        );
        assert!(svg.contains("o rolled 6-5"), "{svg}");
        assert_eq!(draw(&Scene::backgammon(&p)), svg, "deterministic");
    }

    /// WCAG 2 relative luminance of `#rrggbb`.
    fn luminance(hex: &str) -> f64 {
        let channel = |i: usize| {
            let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).unwrap()) / 255.0;
            if c <= 0.040_45 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
    }

    fn contrast(a: &str, b: &str) -> f64 {
        let (a, b) = (luminance(a), luminance(b));
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    #[test]
    fn count_colours_are_readable() {
        for player in [Player::X, Player::O] {
            let ratio = contrast(count_fill(player), fill(player));
            assert!(ratio >= 4.5, "{player}: {ratio:.2}");
        }
        // The red both counts had before fails on o's checkers.
        assert!(contrast("#d01010", O_FILL) < 4.5);
    }

    #[test]
    fn the_perspective_fixes_the_bottom_side() {
        // o on roll with 6-5; the cube at 4 on o's side.
        let mut p = picture("XGID=-a----F-C---eE---c-e-----A:2:-1:-1:65:0:0:0:0:10");
        let from_o = draw(&Scene::backgammon(&p));
        p.viewer = Player::X;
        let from_x = draw(&Scene::backgammon(&p));
        assert_ne!(from_o, from_x);
        // x's six-stack is on x's 6 point: the viewer's 6 from x, 19 from o.
        let point = |svg: &str, n: u32| {
            let start = svg.find(&format!("<g id=\"point-{n}\"")).unwrap();
            svg[start..start + svg[start..].find("</g>").unwrap()].to_owned()
        };
        assert!(point(&from_x, 6).contains(">6</text>"), "{from_x}");
        assert!(point(&from_o, 19).contains(">6</text>"), "{from_o}");
        // The bottom label is the viewer's; the roll stays o's.
        assert!(from_x.contains(&format!(r#"id="label-x" x="60" y="{}""#, HEIGHT - 14)));
        assert!(
            from_x.contains(
                r##"id="label-o" x="60" y="20" font-size="14" fill="#e8dcc0">o (on roll)"##
            )
        );
        assert!(from_x.contains("o rolled 6-5"));
        // o's cube: at the bottom seen from o, at the top seen from x.
        assert!(from_o.contains(&format!(r#"<rect x="7" y="{}""#, FIELD_BOTTOM - 36)));
        assert!(from_x.contains(&format!(r#"<rect x="7" y="{FIELD_TOP}""#)));
        // The dice are o's colour either way.
        for svg in [&from_o, &from_x] {
            assert_eq!(
                svg.matches(&format!(r#"rx="5" fill="{O_FILL}""#)).count(),
                2
            );
        }
    }

    #[test]
    fn points_checkers_cube_and_dice_can_be_hit() {
        let p = picture("XGID=-a----F-C---eE---c-e-----A:2:-1:-1:65:0:0:0:0:10");
        let svg = draw(&Scene::backgammon(&p));
        for n in 1..=24 {
            assert_eq!(svg.matches(&format!("id=\"point-{n}\"")).count(), 1, "{n}");
        }
        // Every checker circle has its class: x 14 (the bar one too), o 14.
        assert_eq!(svg.matches(r#"<circle class="checker x""#).count(), 14);
        assert_eq!(svg.matches(r#"<circle class="checker o""#).count(), 14);
        assert_eq!(svg.matches(r#"r="16""#).count(), 28);
        assert!(svg.contains(r#"<g id="bar-x" class="bar">"#));
        assert_eq!(
            svg.matches(r#"<rect class="checker o""#).count(),
            1,
            "o's slab"
        );
        assert!(svg.contains(r#"<g id="cube" class="cube o" data-value="4">"#));
        assert!(svg.contains(r#"<g id="die-1" class="die" data-value="6">"#));
        assert!(svg.contains(r#"<g id="die-2" class="die" data-value="5">"#));
        assert_eq!(svg.matches(r#"class="count""#).count(), 1);
        assert_eq!(svg.matches("<g ").count(), svg.matches("</g>").count());
    }

    #[test]
    fn the_cube_in_each_state() {
        let mut p = picture("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10");
        let cube = |p: &Picture| {
            let svg = draw(&Scene::backgammon(p));
            svg.find(r#"<g id="cube""#).map(|i| {
                let rest = &svg[i..];
                rest[..rest.find("</g>").unwrap()].to_owned()
            })
        };
        p.cube = CubeState::START;
        let centred = cube(&p).unwrap();
        assert!(centred.contains(r#"class="cube centre" data-value="1""#));
        assert!(
            centred.contains(">64</text>"),
            "a centred cube at 1 shows 64"
        );
        p.cube.value = CubeValue::new(2);
        assert!(
            cube(&p).unwrap().contains(">2</text>"),
            "centred at 2 (money play)"
        );
        for owner in [Player::X, Player::O] {
            p.cube = CubeState {
                value: CubeValue::new(8),
                owner: CubeOwner::Player(owner),
                ..CubeState::START
            };
            let drawn = cube(&p).unwrap();
            assert!(drawn.contains(&format!(r#"class="cube {owner}" data-value="8""#)));
            assert!(drawn.contains(">8</text>"));
        }
        // The Crawford game is played without the cube.
        p.cube = CubeState::START;
        p.match_state = MatchState {
            length: 5,
            score: bgref_core::ByPlayer { x: 4, o: 2 },
            crawford: true,
        };
        assert_eq!(cube(&p), None);
        assert!(draw(&Scene::backgammon(&p)).contains("no cube, 5-point match"));
    }

    /// Checkers drawn for `player`: up to five per point and on the bar.
    fn position_counts(position: &Position, player: Player) -> usize {
        position.side(player)[1..]
            .iter()
            .map(|&n| usize::from(n.min(5)))
            .sum()
    }
}
