//! The SVG board as a PNG (`GET /render.png`, gRPC `RenderPng`): resvg
//! rasterises [`super::svg()`]'s picture, its text set in DejaVu Sans
//! (regular and bold) embedded in the binary, so no system font is read
//! and every replica paints the same pixels.

use std::sync::{Arc, OnceLock};

use resvg::{tiny_skia, usvg};

use crate::error::{ApiError, ErrorKind};

/// The embedded fonts, loaded once; the SVG's `sans-serif` is DejaVu Sans.
fn fonts() -> Arc<usvg::fontdb::Database> {
    static FONTS: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = usvg::fontdb::Database::new();
            db.load_font_data(dejavu::sans::regular().to_vec());
            db.load_font_data(dejavu::sans::bold().to_vec());
            db.set_sans_serif_family("DejaVu Sans");
            Arc::new(db)
        })
        .clone()
}

/// `svg` (one of [`super::svg()`]'s pictures) rasterised at its own size, as
/// PNG bytes (8-bit RGBA).
///
/// # Errors
/// `internal` (500) if resvg cannot read the picture or the PNG cannot be
/// written: the pictures are this service's own, so neither happens.
pub fn rasterise(svg: &str) -> Result<Vec<u8>, ApiError> {
    let failed = |what: &str, err: &dyn std::fmt::Display| {
        ApiError::new(
            ErrorKind::Internal,
            "internal",
            format!("the board could not be {what}: {err}"),
        )
    };
    let options = usvg::Options {
        font_family: "DejaVu Sans".to_owned(),
        fontdb: fonts(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| failed("read", &e))?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| failed("sized", &"an empty picture"))?;
    resvg::render(
        &tree,
        tiny_skia::Transform::identity(),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().map_err(|e| failed("encoded", &e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::render::RenderInput;

    /// The picture's size, opaque, and its board and text painted: the
    /// green of the board's felt, the dark and light checkers, and the
    /// light glyphs of the top line's text (o's pips, "money game") on the
    /// dark frame.
    #[test]
    fn the_board_is_painted_with_its_text() {
        let start = RenderInput {
            position: Some(crate::api::input::PositionInput {
                position_id: Some("4HPwATDgc/ABMA".into()),
                ..Default::default()
            }),
            ..RenderInput::default()
        };
        let svg = crate::api::render::svg(&start).unwrap().0;

        let png = rasterise(&svg).unwrap();
        if let Some(dir) = std::env::var_os("BGREF_PNG_OUT") {
            std::fs::write(std::path::Path::new(&dir).join("start.png"), &png).unwrap();
        }
        let pixmap = tiny_skia::Pixmap::decode_png(&png).unwrap();
        assert_eq!((pixmap.width(), pixmap.height()), (670, 540));
        let pixels = pixmap.pixels();
        assert!(pixels.iter().all(|p| p.alpha() == 255), "opaque");
        let count = |f: &dyn Fn(i32, i32, i32) -> bool| {
            pixels
                .iter()
                .filter(|p| f(p.red().into(), p.green().into(), p.blue().into()))
                .count()
        };
        // More than a few of each: felt, checker black, checker white.
        assert!(count(&|r, g, b| g > r + 30 && g > b + 20) > 10_000, "felt");
        assert!(count(&|r, g, b| r < 50 && g < 50 && b < 50) > 5_000, "dark");
        assert!(
            count(&|r, g, b| r > 220 && g > 210 && b > 180) > 5_000,
            "light"
        );
        // The top line's text: painted glyphs make light pixels on the
        // dark frame above the point numbers.
        let text = (0..30u32)
            .flat_map(|y| (60..610u32).map(move |x| (x, y)))
            .filter(|&(x, y)| pixmap.pixel(x, y).is_some_and(|p| p.red() > 150))
            .count();
        assert!(text > 100, "text painted: {text} light pixels");
    }
}
