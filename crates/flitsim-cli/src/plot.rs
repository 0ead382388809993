//! SVG plots from the CLI (plotters, SVG backend: no system fonts needed).

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::sweep::SweepRow;

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// One panel titled `(caption, y axis label)` over `[0, x_max] x [0, y_max]`: a line with
/// point markers over `pts`, plus the `y = x` reference line if `diagonal`.
fn panel(area: &Area, (caption, y_desc): (&str, &str), (x_max, y_max): (f64, f64), pts: &[(f64, f64)], color: RGBColor, diagonal: bool) {
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
    let _ = chart.draw_series(LineSeries::new(pts.to_vec(), &color));
    let _ = chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())));
}

/// Two panels: latency vs offered load (unsaturated points) and accepted vs offered.
pub fn load_latency_svg(title: &str, rows: &[SweepRow]) -> String {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1000, 420)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let root = root.titled(title, ("sans-serif", 18)).unwrap_or(root);
        let (left, right) = root.split_horizontally(500);
        let x_max = rows.iter().map(|r| r.load).fold(0.0f64, f64::max).max(0.05) * 1.05;
        let lat: Vec<(f64, f64)> = rows.iter().filter(|r| !r.saturated).map(|r| (r.offered, r.latency_mean)).collect();
        let lat_max = lat.iter().map(|p| p.1).fold(1.0f64, f64::max) * 1.1;
        panel(&left, ("latency vs offered load (unsaturated points)", "mean packet latency (cycles)"), (x_max, lat_max), &lat, BLUE, false);
        let acc: Vec<(f64, f64)> = rows.iter().map(|r| (r.offered, r.accepted)).collect();
        let acc_max = rows.iter().map(|r| r.accepted.max(r.offered)).fold(0.05f64, f64::max) * 1.1;
        panel(&right, ("accepted vs offered", "accepted (flits/node/cycle)"), (x_max, acc_max), &acc, RED, true);
        let _ = root.present();
    }
    svg
}
