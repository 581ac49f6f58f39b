//! `GET /render.svg`, `/render.png`, `/render.txt` and `bgref.v1.Render` through the
//! real binary: the two protocols give the same bytes, the SVG draws every
//! checker, and bad input is a 400 (INVALID_ARGUMENT) with the same slug.

use bgref_e2e::Server;
use bgref_service::proto;
use bgref_service::proto::render_client::RenderClient;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt as _;

/// A picture as a query string and as the proto message.
struct Case {
    query: &'static str,
    picture: proto::Picture,
}

fn xgid(text: &str) -> Option<proto::PositionInput> {
    Some(proto::PositionInput {
        encoding: Some(proto::position_input::Encoding::Xgid(text.to_owned())),
        turn: 0,
    })
}

fn position_id(id: &str, turn: proto::Player) -> Option<proto::PositionInput> {
    Some(proto::PositionInput {
        encoding: Some(proto::position_input::Encoding::PositionId(id.to_owned())),
        turn: turn as i32,
    })
}

/// Bar, borne-off checkers, a stack of six, both cube owners, a match with
/// dice, the FIBS encoding, a fixed perspective.
fn cases() -> Vec<Case> {
    vec![
        Case {
            query: "position_id=4HPwATDgc/ABMA",
            picture: proto::Picture {
                position: position_id("4HPwATDgc/ABMA", proto::Player::Unspecified),
                ..proto::Picture::default()
            },
        },
        Case {
            query: "xgid=XGID=-a----F-C---eE---c-e-----A:2:-1:-1:65:0:0:0:0:10",
            picture: proto::Picture {
                position: xgid("XGID=-a----F-C---eE---c-e-----A:2:-1:-1:65:0:0:0:0:10"),
                ..proto::Picture::default()
            },
        },
        Case {
            query: "position_id=4HPwATDgc/ABMA&turn=o&match_length=7&score_x=1&score_o=5\
                    &cube_value=2&cube_owner=x&dice=31",
            picture: proto::Picture {
                position: position_id("4HPwATDgc/ABMA", proto::Player::O),
                match_length: Some(7),
                score_x: Some(1),
                score_o: Some(5),
                cube_value: Some(2),
                cube_owner: proto::CubeOwner::X as i32,
                dice: vec![3, 1],
                ..proto::Picture::default()
            },
        },
        Case {
            query: "xgid=XGID=-a----F-C---eE---c-e-----A:2:-1:-1:65:0:0:0:0:10&perspective=x",
            picture: proto::Picture {
                position: xgid("XGID=-a----F-C---eE---c-e-----A:2:-1:-1:65:0:0:0:0:10"),
                perspective: proto::Player::X as i32,
                ..proto::Picture::default()
            },
        },
        Case {
            query: "position_id=4HPwATDgc/ABMA&turn=o&cube_value=2&cube_owner=x\
                    &name_x=Alice%20Smith&name_o=%3CBob%26%3E",
            picture: proto::Picture {
                position: position_id("4HPwATDgc/ABMA", proto::Player::O),
                cube_value: Some(2),
                cube_owner: proto::CubeOwner::X as i32,
                name_x: "Alice Smith".to_owned(),
                name_o: "<Bob&>".to_owned(),
                ..proto::Picture::default()
            },
        },
        Case {
            query: "fibs=board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5\
                    :0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0&variant=portes",
            picture: proto::Picture {
                variant: proto::Variant::Portes as i32,
                position: Some(proto::PositionInput {
                    encoding: Some(proto::position_input::Encoding::Fibs(
                        "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5\
                         :0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"
                            .to_owned(),
                    )),
                    turn: 0,
                }),
                ..proto::Picture::default()
            },
        },
    ]
}

async fn get(server: &Server, path: &str) -> (u16, String, String) {
    let (status, ct, body) = get_bytes(server, path).await;
    (status, ct, String::from_utf8(body).expect("a text answer"))
}

async fn get_bytes(server: &Server, path: &str) -> (u16, String, Vec<u8>) {
    let resp = reqwest::get(server.url(path)).await.expect("HTTP request");
    let status = resp.status().as_u16();
    let ct = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    (status, ct, resp.bytes().await.unwrap_or_default().to_vec())
}

async fn client(server: &Server) -> RenderClient<Channel> {
    RenderClient::new(server.channel().await)
}

#[tokio::test]
async fn http_and_grpc_give_the_same_bytes() {
    let server = Server::start(&[]).await;
    let mut grpc = client(&server).await;
    for case in cases() {
        let (status, ct, svg) = get(&server, &format!("/render.svg?{}", case.query)).await;
        assert_eq!(status, 200, "{}: {svg}", case.query);
        assert_eq!(ct, "image/svg+xml");
        let over_grpc = grpc
            .render_svg(proto::RenderSvgRequest {
                picture: Some(case.picture.clone()),
            })
            .await
            .unwrap_or_else(|e| panic!("{}: {e:?}", case.query))
            .into_inner()
            .svg;
        assert_eq!(svg, over_grpc, "{}", case.query);

        let (status, ct, png) = get_bytes(&server, &format!("/render.png?{}", case.query)).await;
        assert_eq!((status, ct.as_str()), (200, "image/png"), "{}", case.query);
        // The PNG signature, then IHDR: 670 x 540, 8-bit RGBA.
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(&png[16..26], [0, 0, 2, 158, 0, 0, 2, 28, 8, 6]);
        let over_grpc = grpc
            .render_png(proto::RenderPngRequest {
                picture: Some(case.picture.clone()),
            })
            .await
            .unwrap_or_else(|e| panic!("{}: {e:?}", case.query))
            .into_inner()
            .png;
        assert_eq!(png, over_grpc, "{}", case.query);

        let (status, ct, text) = get(&server, &format!("/render.txt?{}", case.query)).await;
        assert_eq!(status, 200, "{}: {text}", case.query);
        assert_eq!(ct, "text/plain; charset=utf-8");
        let over_grpc = grpc
            .render_text(proto::RenderTextRequest {
                picture: Some(case.picture),
            })
            .await
            .unwrap()
            .into_inner()
            .text;
        assert_eq!(text, over_grpc, "{}", case.query);
    }
}

#[tokio::test]
async fn the_svg_is_self_contained_and_draws_every_checker() {
    let server = Server::start(&[]).await;
    // o on roll with 6-5; x has one on the bar and six on its 6 point, o
    // one borne off; the cube at 4 on o's side.
    let (status, _, svg) = get(
        &server,
        "/render.svg?xgid=XGID=-a----F-C---eE---c-e-----A:2:-1:-1:65:0:0:0:0:10",
    )
    .await;
    assert_eq!(status, 200, "{svg}");
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 670 540\""));
    assert!(svg.contains(
        "<title id=\"title\">Backgammon position 4OfgA0Dgc/ABEA (standard): o on roll, pips o 143 \
         x 150, cube 4 owned by o, money game, o rolled 6-5</title>"
    ));
    for outside in ["href", "url(", "@import", "<image", "<style", "@font-face"] {
        assert!(!svg.contains(outside), "{outside} in {svg}");
    }
    let checkers = |fill: &str| svg.matches(&format!("r=\"16\" fill=\"{fill}\"")).count();
    // x: 15 on the board and bar, drawn up to five a point (the six-stack
    // shows five and its count); o: 14 on the board.
    assert_eq!(checkers("#f0e6c8"), 14);
    assert_eq!(checkers("#1f1f1f"), 14);
    assert!(svg.contains(">6</text>"));
    // One slab in the tray for o's borne-off checker.
    assert_eq!(svg.matches("width=\"40\" height=\"8\"").count(), 1);
    // The same request gives the same bytes.
    let (_, _, again) = get(
        &server,
        "/render.svg?xgid=XGID=-a----F-C---eE---c-e-----A:2:-1:-1:65:0:0:0:0:10",
    )
    .await;
    assert_eq!(svg, again);
}

#[tokio::test]
async fn the_text_board_is_gnubgs() {
    let server = Server::start(&[]).await;
    let (status, _, text) = get(&server, "/render.txt?position_id=4HPwATDgc/ABMA&turn=o").await;
    assert_eq!(status, 200, "{text}");
    // gnubg 1.07's output (tests/gnubg/render_text.py checks more cases
    // against gnubg itself).
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], " GNU Backgammon  Position ID: 4HPwATDgc/ABMA");
    assert_eq!(
        lines[2],
        " +13-14-15-16-17-18------19-20-21-22-23-24-+     O: x"
    );
    assert_eq!(
        lines[8],
        "v|                  |BAR|                  |     (Cube: 1)"
    );
    assert_eq!(
        lines[12],
        " | O           X    |   | X              O |     On roll"
    );
    assert_eq!(lines[16], "The pip counts are: o 167, x 167.");
}

/// A bad query over HTTP, and the same mistake over gRPC.
async fn refused(
    server: &Server,
    grpc: &mut RenderClient<Channel>,
    query: &str,
    picture: proto::Picture,
    slug: &str,
    field: Option<&str>,
) {
    for path in ["/render.svg", "/render.png", "/render.txt"] {
        let (status, ct, body) = get(server, &format!("{path}?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(ct, "application/problem+json");
        let problem: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(problem["type"], slug, "{query}: {body}");
        if let Some(field) = field {
            assert_eq!(problem["field"], field, "{query}: {body}");
        }
    }
    let svg = grpc
        .render_svg(proto::RenderSvgRequest {
            picture: Some(picture.clone()),
        })
        .await
        .expect_err(query);
    let png = grpc
        .render_png(proto::RenderPngRequest {
            picture: Some(picture),
        })
        .await
        .expect_err(query);
    for status in [svg, png] {
        assert_eq!(status.code(), Code::InvalidArgument, "{query}: {status:?}");
        assert_eq!(
            status.get_details_error_info().expect("ErrorInfo").reason,
            slug,
            "{query}"
        );
    }
}

#[tokio::test]
async fn bad_input_is_a_400_with_its_slug_over_both_protocols() {
    let server = Server::start(&[]).await;
    let mut grpc = client(&server).await;
    let start = || position_id("4HPwATDgc/ABMA", proto::Player::Unspecified);
    let with = |picture: proto::Picture| proto::Picture {
        position: start(),
        ..picture
    };
    refused(
        &server,
        &mut grpc,
        "xgid=nonsense",
        proto::Picture {
            position: xgid("nonsense"),
            ..proto::Picture::default()
        },
        "invalid-position",
        Some("xgid"),
    )
    .await;
    refused(
        &server,
        &mut grpc,
        "cube_value=2",
        proto::Picture {
            cube_value: Some(2),
            ..proto::Picture::default()
        },
        "invalid-position",
        Some("position"),
    )
    .await;
    refused(
        &server,
        &mut grpc,
        "position_id=4HPwATDgc/ABMA&dice=67",
        with(proto::Picture {
            dice: vec![6, 7],
            ..proto::Picture::default()
        }),
        "invalid-dice",
        Some("dice[1]"),
    )
    .await;
    refused(
        &server,
        &mut grpc,
        "position_id=4HPwATDgc/ABMA&cube_value=3",
        with(proto::Picture {
            cube_value: Some(3),
            ..proto::Picture::default()
        }),
        "invalid-cube",
        Some("cube_value"),
    )
    .await;
    refused(
        &server,
        &mut grpc,
        "position_id=4HPwATDgc/ABMA&cube_owner=o",
        with(proto::Picture {
            cube_owner: proto::CubeOwner::O as i32,
            ..proto::Picture::default()
        }),
        "invalid-cube",
        Some("cube_owner"),
    )
    .await;
    refused(
        &server,
        &mut grpc,
        "position_id=4HPwATDgc/ABMA&perspective=z",
        with(proto::Picture {
            perspective: 7,
            ..proto::Picture::default()
        }),
        "invalid-request",
        Some("perspective"),
    )
    .await;
    refused(
        &server,
        &mut grpc,
        "position_id=4HPwATDgc/ABMA&match_length=5&score_o=5",
        with(proto::Picture {
            match_length: Some(5),
            score_o: Some(5),
            ..proto::Picture::default()
        }),
        "invalid-match",
        Some("score_o"),
    )
    .await;
    // HTTP only: text where a number goes, and an unknown parameter.
    for (query, slug, field) in [
        (
            "position_id=4HPwATDgc/ABMA&match_length=seven",
            "invalid-match",
            Some("match_length"),
        ),
        (
            "position_id=4HPwATDgc/ABMA&dice=6-5",
            "invalid-dice",
            Some("dice"),
        ),
        (
            "position_id=4HPwATDgc/ABMA&crawford=yes",
            "invalid-match",
            Some("crawford"),
        ),
        (
            "positionid=4HPwATDgc/ABMA",
            "invalid-query",
            Some("positionid"),
        ),
    ] {
        let (status, _, body) = get(&server, &format!("/render.svg?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        let problem: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(problem["type"], slug, "{query}: {body}");
        assert_eq!(problem["field"].as_str(), field, "{query}: {body}");
    }
}

/// Plakoto x's checker on x's 20 point pinned under two of o's; o on roll.
const PLAKOTO: &str = r#"{"points":[-12,0,0,0,0,1,0,0,0,-1,0,0,0,0,0,0,0,0,0,-2,0,0,0,13],"turn":"o","pins":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0]}"#;

fn plakoto_board() -> proto::Board {
    let mut points = vec![0; 24];
    for (i, n) in [(0, -12), (5, 1), (9, -1), (19, -2), (23, 13)] {
        points[i] = n;
    }
    let mut pins = vec![0; 24];
    pins[19] = 1;
    proto::Board {
        points,
        bar: None,
        off: None,
        turn: proto::Player::O as i32,
        pins,
    }
}

#[tokio::test]
async fn the_tables_games_are_drawn_by_the_svg_only() {
    let server = Server::start(&[]).await;
    let mut grpc = client(&server).await;
    let query = format!(
        "variant=plakoto&dice=53&board={}",
        PLAKOTO
            .replace('{', "%7B")
            .replace('}', "%7D")
            .replace('"', "%22")
    );
    let (status, ct, svg) = get(&server, &format!("/render.svg?{query}")).await;
    assert_eq!(status, 200, "{svg}");
    assert_eq!(ct, "image/svg+xml");
    let picture = proto::Picture {
        variant: proto::Variant::Plakoto as i32,
        position: Some(proto::PositionInput {
            encoding: Some(proto::position_input::Encoding::Board(plakoto_board())),
            turn: 0,
        }),
        dice: vec![5, 3],
        ..proto::Picture::default()
    };
    let over_grpc = grpc
        .render_svg(proto::RenderSvgRequest {
            picture: Some(picture.clone()),
        })
        .await
        .unwrap()
        .into_inner()
        .svg;
    assert_eq!(svg, over_grpc);
    assert!(
        svg.contains("<title id=\"title\">plakoto position: o on roll, pips o 313 x 338, no cube")
    );
    let checkers = |fill: &str| svg.matches(&format!("r=\"16\" fill=\"{fill}\"")).count();
    // x: five of 13, one, and the pinned one; o: five of 12, two, one.
    assert_eq!(checkers("#f0e6c8"), 7);
    assert_eq!(checkers("#1f1f1f"), 8);
    assert!(
        !svg.contains("#ffffff\" stroke=\"#333333\""),
        "no cube in plakoto"
    );

    // Fevga by Position ID; no cube; no gnubg text board.
    let fevga = "position_id=AACA/z8AAID/Pw&variant=fevga";
    let (status, _, svg) = get(&server, &format!("/render.svg?{fevga}")).await;
    assert_eq!(status, 200, "{svg}");
    assert!(svg.contains("fevga position AACA/z8AAID/Pw: x on roll"));
    let fevga_picture = proto::Picture {
        variant: proto::Variant::Fevga as i32,
        position: position_id("AACA/z8AAID/Pw", proto::Player::Unspecified),
        ..proto::Picture::default()
    };
    for (query, picture, text, slug, field) in [
        (
            format!("{fevga}&cube_value=2"),
            proto::Picture {
                cube_value: Some(2),
                ..fevga_picture.clone()
            },
            false,
            "invalid-cube",
            "cube_value",
        ),
        (
            fevga.to_owned(),
            fevga_picture.clone(),
            true,
            "unsupported-variant",
            "variant",
        ),
        (
            query.clone(),
            picture,
            true,
            "unsupported-variant",
            "variant",
        ),
    ] {
        let path = if text { "/render.txt" } else { "/render.svg" };
        let (status, ct, body) = get(&server, &format!("{path}?{query}")).await;
        assert_eq!(status, 400, "{path}?{query}: {body}");
        assert_eq!(ct, "application/problem+json");
        let problem: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (problem["type"].as_str(), problem["field"].as_str()),
            (Some(slug), Some(field))
        );
        let status = if text {
            grpc.render_text(proto::RenderTextRequest {
                picture: Some(picture),
            })
            .await
            .expect_err(path)
        } else {
            grpc.render_svg(proto::RenderSvgRequest {
                picture: Some(picture),
            })
            .await
            .expect_err(path)
        };
        assert_eq!(status.code(), Code::InvalidArgument);
        assert_eq!(status.get_details_error_info().unwrap().reason, slug);
    }
}

/// The inner text of the element that starts with `open` (up to its
/// first `</g>`).
fn group<'a>(svg: &'a str, open: &str) -> Option<&'a str> {
    let start = svg.find(open)?;
    let rest = &svg[start..];
    Some(&rest[..rest.find("</g>")?])
}

#[tokio::test]
async fn the_perspective_is_fixed_whoever_is_on_roll() {
    let server = Server::start(&[]).await;
    // o on roll with 6-5: x one on the bar and six on its 6 point; the
    // cube at 4 on o's side.
    let xgid = "xgid=XGID=-a----F-C---eE---c-e-----A:2:-1:-1:65:0:0:0:0:10";
    let svg = |query: String| {
        let server = &server;
        async move {
            let (status, _, body) = get(server, &format!("/render.svg?{query}")).await;
            assert_eq!(status, 200, "{query}: {body}");
            body
        }
    };
    let turned = svg(xgid.to_owned()).await;
    let from_o = svg(format!("{xgid}&perspective=o")).await;
    let from_x = svg(format!("{xgid}&perspective=x")).await;
    assert_eq!(turned, from_o, "the default is the side on roll");
    assert_ne!(from_x, from_o);
    // x's six: x's 6 point is the viewer's 6 from x, its 19 from o.
    for (picture, point) in [(&from_x, 6), (&from_o, 19)] {
        let stack = group(picture, &format!("<g id=\"point-{point}\"")).unwrap();
        assert_eq!(stack.matches("class=\"checker x\"").count(), 5, "{stack}");
        assert!(stack.contains("class=\"count\""), "{stack}");
    }
    // x's checker on the bar is below the middle from x, above from o.
    for (picture, y) in [(&from_x, 268 + 24 + 4 + 16), (&from_o, 268 - 24 - 4 - 16)] {
        let bar = group(picture, "<g id=\"bar-x\"").unwrap();
        assert!(bar.contains(&format!("cy=\"{y}\"")), "{bar}");
    }
    // o's cube: at the top (y 60) from x, at the bottom (y 440) from o.
    assert!(
        group(&from_x, "<g id=\"cube\" class=\"cube o\" data-value=\"4\"")
            .unwrap()
            .contains("y=\"60\"")
    );
    assert!(
        group(&from_o, "<g id=\"cube\" class=\"cube o\" data-value=\"4\"")
            .unwrap()
            .contains("y=\"440\"")
    );
    // The dice are o's either way.
    for picture in [&from_x, &from_o] {
        assert!(picture.contains("<g id=\"die-1\" class=\"die\" data-value=\"6\">"));
        assert!(picture.contains("<g id=\"die-2\" class=\"die\" data-value=\"5\">"));
    }

    // The text board numbers the points from the perspective's side.
    let (_, _, text) = get(&server, &format!("/render.txt?{xgid}")).await;
    let (_, _, text_x) = get(&server, &format!("/render.txt?{xgid}&perspective=x")).await;
    let numbers = |t: &str| t.lines().nth(2).unwrap()[..20].to_owned();
    assert_eq!(numbers(&text), " +13-14-15-16-17-18-");
    assert_eq!(numbers(&text_x), " +12-11-10--9--8--7-");
}

#[tokio::test]
async fn no_cube_in_the_crawford_game() {
    let server = Server::start(&[]).await;
    let start = "position_id=4HPwATDgc/ABMA&match_length=5&score_x=4&score_o=2";
    let (_, _, svg) = get(&server, &format!("/render.svg?{start}&crawford=true")).await;
    assert!(!svg.contains("id=\"cube\""), "{svg}");
    assert!(
        svg.contains("no cube, 5-point match, x 4 o 2, Crawford game"),
        "{svg}"
    );
    let (_, _, svg) = get(&server, &format!("/render.svg?{start}&crawford=false")).await;
    assert!(
        svg.contains("<g id=\"cube\" class=\"cube centre\" data-value=\"1\">"),
        "{svg}"
    );
}

/// Issue 29, item 4: the players' names (escaped in the SVG, as gnubg
/// prints them in the text board), a double waiting for an answer (also
/// after a beaver), a resignation waiting, the last play; the same bytes
/// over both
/// protocols; the text board refuses what gnubg's cannot show; mistakes
/// are refused by name.
#[tokio::test]
async fn names_pending_doubles_resignations_and_the_last_play_are_drawn() {
    let server = Server::start(&[]).await;
    let mut grpc = client(&server).await;
    let start = || position_id("4HPwATDgc/ABMA", proto::Player::X);
    let svg_of = |query: &str| format!("/render.svg?position_id=4HPwATDgc/ABMA&{query}");
    let both = async |grpc: &mut RenderClient<Channel>, query: &str, picture: proto::Picture| {
        let (status, _, svg) = get(&server, &svg_of(query)).await;
        assert_eq!(status, 200, "{query}: {svg}");
        let over_grpc = grpc
            .render_svg(proto::RenderSvgRequest {
                picture: Some(picture),
            })
            .await
            .unwrap_or_else(|e| panic!("{query}: {e:?}"))
            .into_inner()
            .svg;
        assert_eq!(svg, over_grpc, "{query}");
        svg
    };

    // Names: in the labels and the title, escaped.
    let svg = both(
        &mut grpc,
        "name_x=Alice%20Smith&name_o=%3CBob%26%3E",
        proto::Picture {
            position: start(),
            name_x: "Alice Smith".into(),
            name_o: "<Bob&>".into(),
            ..proto::Picture::default()
        },
    )
    .await;
    assert!(
        svg.contains(">Alice Smith (x) (on roll): 167 pips"),
        "{svg}"
    );
    assert!(svg.contains(">&lt;Bob&amp;&gt; (o): 167 pips"), "{svg}");
    assert!(
        svg.contains("players Alice Smith (x) and &lt;Bob&amp;&gt; (o)</title>"),
        "{svg}"
    );
    let (status, _, text) = get(
        &server,
        "/render.txt?position_id=4HPwATDgc/ABMA&name_x=Alice%20Smith&name_o=Bob",
    )
    .await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("     O: Alice Smith\n"), "{text}");
    assert!(text.contains("     X: Bob\n"), "{text}");
    assert!(
        text.ends_with("The pip counts are: Alice Smith 167, Bob 167.\n"),
        "{text}"
    );

    // x doubles to 2: the cube in the left half's middle, not at the side.
    let svg = both(
        &mut grpc,
        "cube_offered_by=x",
        proto::Picture {
            position: start(),
            cube_offered_by: proto::Player::X as i32,
            ..proto::Picture::default()
        },
    )
    .await;
    let cube = group(&svg, r#"<g id="cube""#).expect("a cube");
    assert!(
        cube.starts_with(r#"<g id="cube" class="cube offered x" data-value="2">"#),
        "{cube}"
    );
    assert!(cube.contains(r#"<rect x="162" y="250""#), "{cube}");
    assert_eq!(svg.matches(r#"id="cube""#).count(), 1);
    assert!(svg.contains("cube 1 centred, x doubles to 2,"), "{svg}");
    // Money play: x redoubles its cube of 2 and o beavers: the cube is at
    // 4 already, a take makes 8.
    let svg = both(
        &mut grpc,
        "cube_value=4&cube_offered_by=o&cube_beavers=1&cube_owner=x",
        proto::Picture {
            position: start(),
            cube_value: Some(4),
            cube_owner: proto::CubeOwner::X as i32,
            cube_offered_by: proto::Player::O as i32,
            cube_beavers: Some(1),
            ..proto::Picture::default()
        },
    )
    .await;
    let cube = group(&svg, r#"<g id="cube""#).expect("a cube");
    assert!(
        cube.starts_with(r#"<g id="cube" class="cube offered o beavered" data-value="8">"#),
        "{cube}"
    );
    // o offers to resign a gammon with the cube at 2 (x's): 4 points.
    let svg = both(
        &mut grpc,
        "cube_value=2&cube_owner=x&resignation_by=o&resignation_level=gammon",
        proto::Picture {
            position: start(),
            cube_value: Some(2),
            cube_owner: proto::CubeOwner::X as i32,
            resignation_by: proto::Player::O as i32,
            resignation_level: proto::GameResult::Gammon as i32,
            ..proto::Picture::default()
        },
    )
    .await;
    let flag = group(&svg, r#"<g id="resignation""#).expect("a resignation");
    assert!(
        flag.starts_with(
            r#"<g id="resignation" class="resignation o" data-value="gammon" data-points="4">"#
        ),
        "{flag}"
    );
    assert!(svg.contains("o offers to resign a gammon"), "{svg}");

    // The last play (x's, o on roll): from x's bar and 13 point, to its
    // 22 and 7 points, seen from o: x's bar at the top, its 22 point o's 3.
    let svg = both(
        &mut grpc,
        "turn=o&last_play=bar/22%2013/7*",
        proto::Picture {
            position: position_id("4HPwATDgc/ABMA", proto::Player::O),
            last_play: "bar/22 13/7*".into(),
            ..proto::Picture::default()
        },
    )
    .await;
    let marks = group(&svg, r#"<g id="last-play""#).expect("the last play");
    assert!(
        marks.starts_with(r#"<g id="last-play" class="last-play x" data-value="bar/22 13/7*">"#),
        "{marks}"
    );
    for mark in [
        r#"<rect class="from" x="304" y="51""#,
        r#"<rect class="to" x="472" y="479""#,
        r#"<rect class="from" x="64" y="479""#,
        r#"<rect class="to" x="264" y="51""#,
    ] {
        assert!(marks.contains(mark), "{mark} in {marks}");
    }
    assert!(svg.contains(", x played bar/22 13/7*"), "{svg}");

    // The text board has no last play, pending double or resignation.
    for query in [
        "last_play=8/5",
        "cube_offered_by=x",
        "resignation_by=o&resignation_level=single",
    ] {
        let (status, _, body) = get(
            &server,
            &format!("/render.txt?position_id=4HPwATDgc/ABMA&{query}"),
        )
        .await;
        assert_eq!(status, 400, "{body}");
        let problem: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(problem["type"], "invalid-request", "{body}");
        let field = query.split('=').next().unwrap();
        assert_eq!(problem["field"], field, "{body}");
    }
    let status = grpc
        .render_text(proto::RenderTextRequest {
            picture: Some(proto::Picture {
                position: start(),
                cube_offered_by: proto::Player::X as i32,
                ..proto::Picture::default()
            }),
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);

    // Mistakes, by name.
    for (query, picture, slug, field) in [
        (
            "position_id=4HPwATDgc/ABMA&cube_value=2&cube_owner=x&cube_offered_by=o",
            proto::Picture {
                position: start(),
                cube_value: Some(2),
                cube_owner: proto::CubeOwner::X as i32,
                cube_offered_by: proto::Player::O as i32,
                ..proto::Picture::default()
            },
            "invalid-cube",
            "cube_offered_by",
        ),
        (
            "position_id=4HPwATDgc/ABMA&resignation_by=x",
            proto::Picture {
                position: start(),
                resignation_by: proto::Player::X as i32,
                ..proto::Picture::default()
            },
            "invalid-cube",
            "resignation_level",
        ),
        (
            "position_id=4HPwATDgc/ABMA&cube_beavers=1",
            proto::Picture {
                position: start(),
                cube_beavers: Some(1),
                ..proto::Picture::default()
            },
            "invalid-cube",
            "cube_beavers",
        ),
        (
            "position_id=4HPwATDgc/ABMA&cube_offered_by=x&resignation_by=o&resignation_level=single",
            proto::Picture {
                position: start(),
                cube_offered_by: proto::Player::X as i32,
                resignation_by: proto::Player::O as i32,
                resignation_level: proto::GameResult::Single as i32,
                ..proto::Picture::default()
            },
            "invalid-cube",
            "resignation_by",
        ),
        (
            "position_id=4HPwATDgc/ABMA&last_play=8/5/",
            proto::Picture {
                position: start(),
                last_play: "8/5/".into(),
                ..proto::Picture::default()
            },
            "invalid-play",
            "last_play",
        ),
        (
            "position_id=4HPwATDgc/ABMA&name_x=Al:ice",
            proto::Picture {
                position: start(),
                name_x: "Al:ice".into(),
                ..proto::Picture::default()
            },
            "invalid-label",
            "name_x",
        ),
    ] {
        let (status, _, body) = get(&server, &format!("/render.svg?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        let problem: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (&problem["type"], &problem["field"]),
            (&serde_json::json!(slug), &serde_json::json!(field)),
            "{query}: {body}"
        );
        let status = grpc
            .render_svg(proto::RenderSvgRequest {
                picture: Some(picture),
            })
            .await
            .expect_err(query);
        assert_eq!(
            status.get_details_error_info().expect("ErrorInfo").reason,
            slug,
            "{query}"
        );
    }
}
