//! SVG plots from the CLI (plotters, SVG backend: no system fonts needed).

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::sweep::SweepRow;

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// Series colours, in order (cycled past the last).
const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

/// One panel titled `(caption, y axis label)` over `[0, x_max] x [0, y_max]`: a line with
/// point markers per series (labelled in a legend when there are several), plus the
/// `y = x` reference line if `diagonal`.
fn panel(area: &Area, (caption, y_desc): (&str, &str), (x_max, y_max): (f64, f64), series: &[(String, Vec<(f64, f64)>)], diagonal: bool) {
    let chart = ChartBuilder::on(area)
        .margin(12)
        .caption(caption, ("sans-serif", 14))
        .x_label_area_size(36)
        .y_label_area_size(52)
        .build_cartesian_2d(0.0..x_max, 0.0..y_max);
    let Ok(mut chart): Result<ChartContext<'_, SVGBackend<'_>, Cartesian2d<RangedCoordf64, RangedCoordf64>>, _> = chart else { return };
    let _ = chart.configure_mesh().x_desc("offered load (flits/node/cycle)").y_desc(y_desc).draw();
    if diagonal {
        let _ = chart.draw_series(LineSeries::new(vec![(0.0, 0.0), (x_max, x_max)], &RGBColor(180, 180, 180)));
    }
    for (i, (label, pts)) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        if let Ok(s) = chart.draw_series(LineSeries::new(pts.to_vec(), &color)) {
            if !label.is_empty() {
                s.label(label.as_str()).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
            }
        }
        let _ = chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())));
    }
    if series.len() > 1 {
        let corner = legend_corner(series, (x_max, y_max));
        let _ = chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).position(corner.position()).draw();
    }
}

/// A corner of a panel's plotting area, where its legend goes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Corner {
    UpperLeft,
    UpperRight,
    LowerRight,
    LowerLeft,
}

impl Corner {
    fn position(self) -> SeriesLabelPosition {
        match self {
            Corner::UpperLeft => SeriesLabelPosition::UpperLeft,
            Corner::UpperRight => SeriesLabelPosition::UpperRight,
            Corner::LowerRight => SeriesLabelPosition::LowerRight,
            Corner::LowerLeft => SeriesLabelPosition::LowerLeft,
        }
    }
}

/// The corner whose legend box covers the fewest points (the first of upper left, upper
/// right, lower right, lower left on a tie). The box is sized as plotters draws it in a
/// panel's plotting area (about 424 x 320 pixels): 20 pixels a series high, 30 plus 7 a
/// character wide.
fn legend_corner(series: &[(String, Vec<(f64, f64)>)], (x_max, y_max): (f64, f64)) -> Corner {
    let chars = series.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0) as f64;
    let w = ((30.0 + 7.0 * chars) / 424.0).min(1.0);
    let h = ((10.0 + 20.0 * series.len() as f64) / 320.0).min(1.0);
    let covered = |c: Corner| {
        let (left, low) = match c {
            Corner::UpperLeft => (true, false),
            Corner::UpperRight => (false, false),
            Corner::LowerRight => (false, true),
            Corner::LowerLeft => (true, true),
        };
        let inside = |&(x, y): &(f64, f64)| {
            let (fx, fy) = (x / x_max, y / y_max);
            (if left { fx <= w } else { fx >= 1.0 - w }) && (if low { fy <= h } else { fy >= 1.0 - h })
        };
        series.iter().flat_map(|(_, p)| p.iter()).filter(|p| inside(p)).count()
    };
    [Corner::UpperLeft, Corner::UpperRight, Corner::LowerRight, Corner::LowerLeft]
        .into_iter()
        .min_by_key(|&c| covered(c))
        .expect("four corners")
}

/// Two panels: latency vs offered load (unsaturated points) and accepted vs offered, one
/// line per `(label, rows)` series.
pub fn load_latency_svg(title: &str, series: &[(String, Vec<SweepRow>)]) -> String {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1000, 420)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let root = root.titled(title, ("sans-serif", 18)).unwrap_or(root);
        let (left, right) = root.split_horizontally(500);
        let rows = || series.iter().flat_map(|(_, r)| r.iter());
        let x_max = rows().map(|r| r.load.max(r.offered)).fold(0.0f64, f64::max).max(0.05) * 1.05;
        let lat: Vec<(String, Vec<(f64, f64)>)> = series
            .iter()
            .map(|(l, rs)| (l.clone(), rs.iter().filter(|r| !r.saturated).map(|r| (r.offered, r.latency_mean)).collect()))
            .collect();
        let lat_max = lat.iter().flat_map(|(_, p)| p.iter()).map(|p| p.1).fold(1.0f64, f64::max) * 1.1;
        panel(&left, ("latency vs offered load (unsaturated points)", "mean packet latency (cycles)"), (x_max, lat_max), &lat, false);
        let acc: Vec<(String, Vec<(f64, f64)>)> =
            series.iter().map(|(l, rs)| (l.clone(), rs.iter().map(|r| (r.offered, r.accepted)).collect())).collect();
        let acc_max = rows().map(|r| r.accepted.max(r.offered)).fold(0.05f64, f64::max) * 1.1;
        panel(&right, ("accepted vs offered", "accepted (flits/node/cycle)"), (x_max, acc_max), &acc, true);
        let _ = root.present();
    }
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(label: &str, pts: &[(f64, f64)]) -> (String, Vec<(f64, f64)>) {
        (label.to_string(), pts.to_vec())
    }

    #[test]
    fn the_legend_goes_where_no_point_is() {
        let rising = [(0.1, 10.0), (0.3, 12.0), (0.5, 20.0), (0.7, 95.0)];
        assert_eq!(legend_corner(&[line("a", &rising), line("b", &rising)], (0.8, 100.0)), Corner::UpperLeft);
        // Flat latencies near the top of the panel: the upper corners hold points.
        let flat = [(0.05, 95.0), (0.2, 96.0), (0.4, 97.0), (0.6, 98.0), (0.79, 99.0)];
        let c = legend_corner(&[line("a", &flat), line("b", &flat)], (0.8, 100.0));
        assert!(matches!(c, Corner::LowerRight), "{c:?}");
        // Accepted against offered up the diagonal: upper left is empty.
        let diagonal = [(0.0, 0.0), (0.2, 0.2), (0.4, 0.4), (0.6, 0.6), (0.8, 0.8)];
        assert_eq!(legend_corner(&[line("x", &diagonal), line("y", &diagonal)], (0.8, 0.8)), Corner::UpperLeft);
    }
}
