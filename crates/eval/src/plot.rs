//! Figures as SVG, written by hand (no plotting dependency, no browser): line charts
//! (precision–recall curves, calibration curves) and histograms (scores of parallel and
//! non-parallel pairs), with axes, ticks, labels and a legend. Several charts side by side make
//! one figure ([`render`]).
//!
//! ```
//! use bitext_eval::plot::{Chart, render};
//! let c = Chart::new("PR curve", "recall", "precision")
//!     .x_range(0.0, 1.0)
//!     .y_range(0.0, 1.0)
//!     .line("ratio margin", vec![(0.1, 1.0), (0.5, 0.9), (0.9, 0.4)]);
//! let svg = render(&[c]);
//! assert!(svg.starts_with("<svg") && svg.contains("ratio margin"));
//! ```

use std::fmt::Write as _;

/// Colours of the series, in order (colour-blind-safe, Okabe & Ito).
const PALETTE: [&str; 6] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
];
/// Size of one chart, in pixels.
const W: f64 = 480.0;
const H: f64 = 360.0;
/// Margins of the plotting area: left, right, top, bottom.
const ML: f64 = 62.0;
const MR: f64 = 16.0;
const MT: f64 = 34.0;
const MB: f64 = 48.0;

/// How a series is drawn.
#[derive(Debug, Clone, PartialEq)]
enum Style {
    /// A polyline through the points.
    Line,
    /// Bars: each point is `(left edge, height)`, all of width `width`.
    Bars { width: f64 },
}

#[derive(Debug, Clone, PartialEq)]
struct Series {
    name: String,
    points: Vec<(f64, f64)>,
    style: Style,
}

/// One chart: a title, two axes and its series.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    title: String,
    x_label: String,
    y_label: String,
    x: Option<(f64, f64)>,
    y: Option<(f64, f64)>,
    series: Vec<Series>,
}

impl Chart {
    /// An empty chart.
    #[must_use]
    pub fn new(title: &str, x_label: &str, y_label: &str) -> Self {
        Self {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x: None,
            y: None,
            series: Vec::new(),
        }
    }

    /// Fix the x axis to `[lo, hi]` (default: the data's range).
    #[must_use]
    pub fn x_range(mut self, lo: f64, hi: f64) -> Self {
        self.x = Some((lo, hi));
        self
    }

    /// Fix the y axis to `[lo, hi]` (default: the data's range, from 0 for histograms).
    #[must_use]
    pub fn y_range(mut self, lo: f64, hi: f64) -> Self {
        self.y = Some((lo, hi));
        self
    }

    /// Add a line through `points` (non-finite points are left out).
    #[must_use]
    pub fn line(mut self, name: &str, points: Vec<(f64, f64)>) -> Self {
        let points = points
            .into_iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .collect();
        self.series.push(Series {
            name: name.into(),
            points,
            style: Style::Line,
        });
        self
    }

    /// Add the histogram of `values` over `bins` equal bins of `[lo, hi]`, as the share of the
    /// values in each bin (so that classes of very different sizes compare); values outside
    /// the range go to the first or last bin, non-finite ones are left out.
    #[must_use]
    pub fn histogram(self, name: &str, values: &[f64], lo: f64, hi: f64, bins: usize) -> Self {
        let bins = bins.max(1);
        let width = if hi > lo {
            (hi - lo) / bins as f64
        } else {
            1.0
        };
        let mut counts = vec![0usize; bins];
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        for v in &finite {
            let b = ((v - lo) / width).floor();
            counts[(b.max(0.0) as usize).min(bins - 1)] += 1;
        }
        let n = finite.len().max(1) as f64;
        let shares: Vec<f64> = counts.iter().map(|&c| c as f64 / n).collect();
        self.bars(name, lo, width, &shares)
    }

    /// Add bars of `width`, side by side from `lo`, of the given `heights` (values counted
    /// into bins elsewhere, or one bar of a category).
    #[must_use]
    pub fn bars(mut self, name: &str, lo: f64, width: f64, heights: &[f64]) -> Self {
        let points = heights
            .iter()
            .enumerate()
            .map(|(b, &h)| (lo + b as f64 * width, h))
            .collect();
        self.series.push(Series {
            name: name.into(),
            points,
            style: Style::Bars { width },
        });
        self
    }

    /// The axes' ranges: fixed, or the data's (with a little room), never empty.
    fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let mut xs = (f64::INFINITY, f64::NEG_INFINITY);
        let mut ys = (f64::INFINITY, f64::NEG_INFINITY);
        for s in &self.series {
            for &(x, y) in &s.points {
                let right = match s.style {
                    Style::Bars { width } => x + width,
                    Style::Line => x,
                };
                xs = (xs.0.min(x), xs.1.max(right));
                let bottom = if matches!(s.style, Style::Bars { .. }) {
                    0.0
                } else {
                    y
                };
                ys = (ys.0.min(bottom), ys.1.max(y));
            }
        }
        let fix = |r: (f64, f64), room: f64| {
            if !(r.0.is_finite() && r.1.is_finite()) {
                (0.0, 1.0)
            } else if r.1 - r.0 <= 0.0 {
                (r.0 - 0.5, r.1 + 0.5)
            } else {
                (r.0, r.1 + room * (r.1 - r.0))
            }
        };
        (
            self.x.unwrap_or_else(|| fix(xs, 0.0)),
            self.y.unwrap_or_else(|| fix(ys, 0.05)),
        )
    }

    /// Draw the chart into `out` with its top-left corner at `(ox, 0)`.
    fn draw(&self, out: &mut String, ox: f64) {
        let ((x0, x1), (y0, y1)) = self.ranges();
        let (pw, ph) = (W - ML - MR, H - MT - MB);
        let sx = |x: f64| ox + ML + (x - x0) / (x1 - x0) * pw;
        let sy = |y: f64| MT + ph - (y - y0) / (y1 - y0) * ph;
        let _ = writeln!(
            out,
            r#"<g class="chart"><text x="{:.1}" y="20" text-anchor="middle" font-size="14">{}</text>"#,
            ox + W / 2.0,
            escape(&self.title)
        );
        let _ = writeln!(
            out,
            r##"<rect x="{:.1}" y="{MT:.1}" width="{pw:.1}" height="{ph:.1}" fill="none" stroke="#444"/>"##,
            ox + ML
        );
        for t in ticks(x0, x1) {
            let x = sx(t);
            let _ = writeln!(
                out,
                r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#444"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="11">{}</text>"##,
                MT + ph,
                MT + ph + 5.0,
                MT + ph + 18.0,
                label(t)
            );
        }
        for t in ticks(y0, y1) {
            let y = sy(t);
            let _ = writeln!(
                out,
                r##"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#444"/><text x="{:.1}" y="{:.1}" text-anchor="end" font-size="11">{}</text>"##,
                ox + ML - 5.0,
                ox + ML,
                ox + ML - 8.0,
                y + 4.0,
                label(t)
            );
        }
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="12">{}</text>"#,
            ox + ML + pw / 2.0,
            H - 10.0,
            escape(&self.x_label)
        );
        let (lx, ly) = (ox + 16.0, MT + ph / 2.0);
        let _ = writeln!(
            out,
            r#"<text x="{lx:.1}" y="{ly:.1}" text-anchor="middle" font-size="12" transform="rotate(-90 {lx:.1} {ly:.1})">{}</text>"#,
            escape(&self.y_label)
        );
        // Clip the series to the plotting area.
        let clip = format!("clip{}", ox as u64);
        let _ = writeln!(
            out,
            r#"<clipPath id="{clip}"><rect x="{:.1}" y="{MT:.1}" width="{pw:.1}" height="{ph:.1}"/></clipPath><g clip-path="url(#{clip})">"#,
            ox + ML
        );
        for (i, s) in self.series.iter().enumerate() {
            let colour = PALETTE[i % PALETTE.len()];
            let name = escape(&s.name);
            match s.style {
                Style::Line => {
                    let pts: Vec<String> = s
                        .points
                        .iter()
                        .map(|&(x, y)| format!("{:.2},{:.2}", sx(x), sy(y)))
                        .collect();
                    let _ = writeln!(
                        out,
                        r#"<polyline class="series" data-name="{name}" points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
                        pts.join(" ")
                    );
                }
                Style::Bars { width } => {
                    let _ = writeln!(out, r#"<g class="series" data-name="{name}">"#);
                    for &(x, y) in &s.points {
                        let (l, r, top, bottom) = (sx(x), sx(x + width), sy(y), sy(y0.max(0.0)));
                        let _ = writeln!(
                            out,
                            r#"<rect x="{l:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="{colour}" fill-opacity="0.45" stroke="{colour}"/>"#,
                            top.min(bottom),
                            (r - l).max(0.0),
                            (bottom - top).abs()
                        );
                    }
                    let _ = writeln!(out, "</g>");
                }
            }
        }
        let _ = writeln!(out, "</g>");
        for (i, s) in self.series.iter().enumerate() {
            let (x, y) = (ox + ML + 10.0, MT + 14.0 + 16.0 * i as f64);
            let _ = writeln!(
                out,
                r#"<rect x="{x:.1}" y="{:.1}" width="12" height="10" fill="{}"/><text x="{:.1}" y="{y:.1}" font-size="11">{}</text>"#,
                y - 9.0,
                PALETTE[i % PALETTE.len()],
                x + 16.0,
                escape(&s.name)
            );
        }
        let _ = writeln!(out, "</g>");
    }
}

/// A chart of precision–recall curves: one line per `(name, curve)` (as [`crate::prf::pr_curve`]
/// computes them), recall on x, precision on y.
#[must_use]
pub fn pr_chart(title: &str, curves: &[(&str, &[crate::prf::PrPoint])]) -> Chart {
    let mut c = Chart::new(title, "recall", "precision")
        .x_range(0.0, 1.0)
        .y_range(0.0, 1.0);
    for (name, curve) in curves {
        c = c.line(
            name,
            curve
                .iter()
                .map(|p| (p.prf.recall, p.prf.precision))
                .collect(),
        );
    }
    c
}

/// One SVG document with `charts` side by side.
#[must_use]
pub fn render(charts: &[Chart]) -> String {
    let width = W * charts.len().max(1) as f64;
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{H:.0}" viewBox="0 0 {width:.0} {H:.0}" font-family="sans-serif">"#
    );
    out.push('\n');
    let _ = writeln!(
        out,
        r#"<rect width="{width:.0}" height="{H:.0}" fill="white"/>"#
    );
    for (i, c) in charts.iter().enumerate() {
        c.draw(&mut out, W * i as f64);
    }
    out.push_str("</svg>\n");
    out
}

/// About five round tick values (1, 2 or 5 times a power of ten) in `[lo, hi]`.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = hi - lo;
    if !(span.is_finite() && span > 0.0) {
        return Vec::new();
    }
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 6.0)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A tick label: few digits, no `-0`.
fn label(v: f64) -> String {
    let v = if v.abs() < 1e-12 { 0.0 } else { v };
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Escape text for XML.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tags open and close in order (a parse-level check of well-formedness).
    fn balanced(svg: &str) -> bool {
        let mut stack: Vec<String> = Vec::new();
        let mut rest = svg;
        while let Some(start) = rest.find('<') {
            let Some(end) = rest[start..].find('>') else {
                return false;
            };
            let tag = &rest[start + 1..start + end];
            rest = &rest[start + end + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                if stack.pop().as_deref() != Some(name.trim()) {
                    return false;
                }
            } else if !tag.ends_with('/') {
                stack.push(tag.split_whitespace().next().unwrap_or("").to_string());
            }
        }
        stack.is_empty()
    }

    #[test]
    fn figure_is_well_formed_and_holds_its_series() {
        let pr = Chart::new("P & R <curve>", "recall", "precision")
            .x_range(0.0, 1.0)
            .y_range(0.0, 1.0)
            .line(
                "a \"b\"",
                vec![(0.0, 1.0), (0.5, 0.8), (1.0, f64::NAN), (1.0, 0.2)],
            );
        let h = Chart::new("scores", "score", "share")
            .histogram("parallel", &[0.9, 0.95, 1.2, f64::NAN], 0.0, 1.5, 10)
            .histogram("non-parallel", &[0.1, 0.2, -3.0], 0.0, 1.5, 10);
        let svg = render(&[pr, h]);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(balanced(&svg), "{svg}");
        assert!(svg.contains("P &amp; R &lt;curve&gt;") && svg.contains("a &quot;b&quot;"));
        assert_eq!(svg.matches(r#"class="series""#).count(), 3);
        assert!(svg.contains(r#"data-name="non-parallel""#));
        // The NaN point is left out: three points in the polyline.
        let line = svg.lines().find(|l| l.starts_with("<polyline")).unwrap();
        let pts = line
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(pts.split(' ').count(), 3);
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
        assert!(balanced(&render(&[Chart::new("empty", "x", "y")])));
    }

    #[test]
    fn ticks_are_round() {
        let t = ticks(0.0, 1.0);
        assert_eq!(
            t.iter().map(|&v| label(v)).collect::<Vec<_>>(),
            ["0", "0.2", "0.4", "0.6", "0.8", "1"]
        );
        assert!((4..=7).contains(&ticks(1.0, 1.3).len()));
        assert!(ticks(1.0, 1.0).is_empty());
        assert_eq!(label(0.30000000000000004), "0.3");
        assert_eq!(label(-0.0), "0");
        assert_eq!(label(20.0), "20");
    }
}
