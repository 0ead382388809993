//! SVG plots from the CLI (plotters, SVG backend: no system fonts needed).

use plotters::prelude::*;

use crate::sweep::SweepRow;

/// Two panels: latency vs offered load (unsaturated points) and accepted vs offered.
pub fn load_latency_svg(title: &str, rows: &[SweepRow]) -> String {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1000, 420)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let root = root.titled(title, ("sans-serif", 18)).unwrap_or(root);
        let (left, right) = root.split_horizontally(500);
        let xmax = rows.iter().map(|r| r.load).fold(0.0f64, f64::max).max(0.05) * 1.05;
        let ok: Vec<&SweepRow> = rows.iter().filter(|r| !r.saturated).collect();
        let ymax = ok.iter().map(|r| r.latency_mean).fold(1.0f64, f64::max) * 1.1;
        if let Ok(mut chart) = ChartBuilder::on(&left)
            .margin(12)
            .caption("latency vs offered load", ("sans-serif", 14))
            .x_label_area_size(36)
            .y_label_area_size(52)
            .build_cartesian_2d(0.0..xmax, 0.0..ymax)
        {
            let _ = chart
                .configure_mesh()
                .x_desc("offered load (flits/node/cycle)")
                .y_desc("mean packet latency (cycles)")
                .draw();
            let pts: Vec<(f64, f64)> = ok.iter().map(|r| (r.offered, r.latency_mean)).collect();
            let _ = chart.draw_series(LineSeries::new(pts.clone(), &BLUE));
            let _ = chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, BLUE.filled())));
        }
        let amax = rows.iter().map(|r| r.accepted.max(r.offered)).fold(0.05f64, f64::max) * 1.1;
        if let Ok(mut chart) = ChartBuilder::on(&right)
            .margin(12)
            .caption("accepted vs offered", ("sans-serif", 14))
            .x_label_area_size(36)
            .y_label_area_size(52)
            .build_cartesian_2d(0.0..xmax, 0.0..amax)
        {
            let _ = chart
                .configure_mesh()
                .x_desc("offered load (flits/node/cycle)")
                .y_desc("accepted (flits/node/cycle)")
                .draw();
            let pts: Vec<(f64, f64)> = rows.iter().map(|r| (r.offered, r.accepted)).collect();
            let _ = chart.draw_series(LineSeries::new(vec![(0.0, 0.0), (xmax, xmax)], &RGBColor(180, 180, 180)));
            let _ = chart.draw_series(LineSeries::new(pts.clone(), &RED));
            let _ = chart.draw_series(rows.iter().map(|r| {
                let c = if r.saturated { RED.filled() } else { RED.mix(0.9).filled() };
                Circle::new((r.offered, r.accepted), 3, c)
            }));
        }
        let _ = root.present();
    }
    svg
}
