//! The measurements of the test rigs (docs/formats.md "Measurements"): one CSV row per
//! stop, follow or steering-step test, as `acres envelope measure` writes them and
//! `acres envelope calibrate` reads them (`data/stops/measurements.csv`).

use crate::chain::envelope::GroundClass;
use crate::plant::vehicle::GroundState;
use serde::{Deserialize, Serialize};

/// The kind of a measurement row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestKind {
    Stop,
    Follow,
    Steer,
}

/// One measurement: a row of `data/stops/*.csv`. Columns that do not belong to the kind
/// of test are empty.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Measurement {
    pub test: TestKind,
    pub class: GroundClass,
    pub state: GroundState,
    /// The speed commanded (stop, steer) or the route's speed (follow), m/s.
    pub speed_mps: f64,
    pub overshoot_mps: Option<f64>,
    pub stop_distance_m: Option<f64>,
    pub decel_mps2: Option<f64>,
    pub tail_m: Option<f64>,
    pub stop_time_s: Option<f64>,
    pub gap_m: Option<f64>,
    pub margin_used_m: Option<f64>,
    pub collided: Option<bool>,
    pub wheel_lift: Option<bool>,
    pub max_lateral_accel_mps2: Option<f64>,
}

/// The CSV columns, in order.
pub const COLUMNS: [&str; 14] = [
    "test",
    "class",
    "state",
    "speed_mps",
    "overshoot_mps",
    "stop_distance_m",
    "decel_mps2",
    "tail_m",
    "stop_time_s",
    "gap_m",
    "margin_used_m",
    "collided",
    "wheel_lift",
    "max_lateral_accel_mps2",
];

impl Measurement {
    /// A row of `test` with no result columns.
    pub fn base(test: TestKind, class: GroundClass, state: GroundState, speed_mps: f64) -> Self {
        Measurement {
            test,
            class,
            state,
            speed_mps,
            overshoot_mps: None,
            stop_distance_m: None,
            decel_mps2: None,
            tail_m: None,
            stop_time_s: None,
            gap_m: None,
            margin_used_m: None,
            collided: None,
            wheel_lift: None,
            max_lateral_accel_mps2: None,
        }
    }

    /// The row as CSV fields, in the order of [`COLUMNS`].
    pub fn fields(&self) -> Vec<String> {
        let f = |x: Option<f64>| x.map(|v| format!("{v}")).unwrap_or_default();
        let b = |x: Option<bool>| x.map(|v| v.to_string()).unwrap_or_default();
        let kind = match self.test {
            TestKind::Stop => "stop",
            TestKind::Follow => "follow",
            TestKind::Steer => "steer",
        };
        vec![
            kind.into(),
            self.class.name().into(),
            match self.state {
                GroundState::Dry => "dry".into(),
                GroundState::Wet => "wet".into(),
            },
            format!("{}", self.speed_mps),
            f(self.overshoot_mps),
            f(self.stop_distance_m),
            f(self.decel_mps2),
            f(self.tail_m),
            f(self.stop_time_s),
            f(self.gap_m),
            f(self.margin_used_m),
            b(self.collided),
            b(self.wheel_lift),
            f(self.max_lateral_accel_mps2),
        ]
    }
}

/// An error of a measurement file or of the calibration: it names the file, the row
/// (its line) and the column, or the class.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    #[error("{file}: line {line}, column `{column}`: {message}")]
    Cell {
        file: String,
        line: u64,
        column: String,
        message: String,
    },
    #[error("{file}: {message}")]
    File { file: String, message: String },
}

/// Reads the measurement rows of a CSV file (named `file` in errors).
pub fn read_csv(
    file: &str,
    mut input: impl std::io::Read,
) -> Result<Vec<Measurement>, CalibrationError> {
    let ferr = |message: String| CalibrationError::File {
        file: file.to_string(),
        message,
    };
    // Read whole (a measurement file is small) so that a row's line is counted in the
    // file itself: the csv reader's own count skips blank lines.
    let mut data = Vec::new();
    input
        .read_to_end(&mut data)
        .map_err(|e| ferr(e.to_string()))?;
    // Records come in order: each line number counts on from the last one's (counting
    // from the start for every row was quadratic: 207,000 rows took over 30 s).
    let (mut counted_to, mut newlines) = (0usize, 0u64);
    let mut line_of = |byte: u64| {
        // The position may be that of blank lines before the record.
        let mut end = (byte as usize).clamp(counted_to, data.len());
        while end < data.len() && matches!(data[end], b'\n' | b'\r') {
            end += 1;
        }
        newlines += memchr::memchr_iter(b'\n', &data[counted_to..end]).count() as u64;
        counted_to = end;
        newlines + 1
    };
    let mut rd = csv::Reader::from_reader(data.as_slice());
    let headers = rd.headers().map_err(|e| ferr(e.to_string()))?.clone();
    let mut idx = [0usize; 14];
    for (k, c) in COLUMNS.iter().enumerate() {
        if headers.iter().filter(|h| h == c).count() > 1 {
            return Err(ferr(format!("column `{c}` appears twice in the header")));
        }
        idx[k] = headers.iter().position(|h| h == *c).ok_or_else(|| {
            ferr(format!(
                "missing column `{c}` (the columns: {})",
                COLUMNS.join(", ")
            ))
        })?;
    }
    let mut out = Vec::new();
    for rec in rd.records() {
        let rec = rec.map_err(|e| ferr(e.to_string()))?;
        let line = rec.position().map_or(0, |p| line_of(p.byte()));
        out.push(parse_row(file, line, &rec, &idx)?);
    }
    if out.is_empty() {
        return Err(ferr("no measurements".into()));
    }
    Ok(out)
}

/// Speeds, distances and times are magnitudes: a negative one is a sign error in the rig's
/// export, and a deceleration of 0 stops nothing; and each lies within its physical bound
/// (docs/formats.md "Bounds"). The column index and why, where not.
fn magnitudes(m: &Measurement) -> Result<(), (usize, String)> {
    use crate::formats::bounds as b;
    // (column, value, a magnitude ≥ 0, the bound of |value|, unit)
    let columns = [
        (3, Some(m.speed_mps), true, b::MAX_SPEED_MPS, "m/s"),
        (4, m.overshoot_mps, false, b::MAX_SPEED_MPS, "m/s"),
        (5, m.stop_distance_m, true, b::MAX_POSITION_M, "m"),
        (6, m.decel_mps2, false, b::MAX_ACCEL_MPS2, "m/s²"),
        (7, m.tail_m, true, b::MAX_POSITION_M, "m"),
        (8, m.stop_time_s, true, b::MAX_TIME_S, "s"),
        (9, m.gap_m, false, b::MAX_POSITION_M, "m"),
        (10, m.margin_used_m, true, b::MAX_POSITION_M, "m"),
        (
            13,
            m.max_lateral_accel_mps2,
            false,
            b::MAX_ACCEL_MPS2,
            "m/s²",
        ),
    ];
    for (k, v, magnitude, ..) in columns {
        if let Some(v) = v.filter(|v| magnitude && *v < 0.0) {
            return Err((k, format!("{v:?} is negative; a magnitude ≥ 0 is expected")));
        }
    }
    if let Some(a) = m.decel_mps2.filter(|a| *a <= 0.0) {
        return Err((
            6,
            format!("{a:?} m/s² is not a deceleration (> 0 expected)"),
        ));
    }
    for (k, v, _, max, unit) in columns {
        if let Some(v) = v.filter(|v| v.abs() > max) {
            let (v, max) = (b::show(v), b::show(max));
            return Err((k, format!("{v} is beyond {max} {unit}")));
        }
    }
    Ok(())
}

/// One measurement row; `idx` gives the position of each of [`COLUMNS`].
fn parse_row(
    file: &str,
    line: u64,
    rec: &csv::StringRecord,
    idx: &[usize; 14],
) -> Result<Measurement, CalibrationError> {
    let cell = |k: usize, message: String| CalibrationError::Cell {
        file: file.to_string(),
        line,
        column: COLUMNS[k].to_string(),
        message,
    };
    let text = |k: usize| rec.get(idx[k]).unwrap_or("").trim();
    let num = |k: usize| -> Result<Option<f64>, CalibrationError> {
        let t = text(k);
        if t.is_empty() {
            return Ok(None);
        }
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(cell(k, format!("`{t}` is not a finite number"))),
        }
    };
    let flag = |k: usize| -> Result<Option<bool>, CalibrationError> {
        match text(k) {
            "" => Ok(None),
            "true" => Ok(Some(true)),
            "false" => Ok(Some(false)),
            t => Err(cell(k, format!("`{t}` is not true or false"))),
        }
    };
    let test = match text(0) {
        "stop" => TestKind::Stop,
        "follow" => TestKind::Follow,
        "steer" => TestKind::Steer,
        t => return Err(cell(0, format!("`{t}` is not stop, follow or steer"))),
    };
    let class: GroundClass = text(1).parse().map_err(|e: String| cell(1, e))?;
    let state = match text(2) {
        "dry" => GroundState::Dry,
        "wet" => GroundState::Wet,
        t => return Err(cell(2, format!("`{t}` is not dry or wet"))),
    };
    let speed = num(3)?.ok_or_else(|| cell(3, "a number is needed".into()))?;
    let m = Measurement {
        test,
        class,
        state,
        speed_mps: speed,
        overshoot_mps: num(4)?,
        stop_distance_m: num(5)?,
        decel_mps2: num(6)?,
        tail_m: num(7)?,
        stop_time_s: num(8)?,
        gap_m: num(9)?,
        margin_used_m: num(10)?,
        collided: flag(11)?,
        wheel_lift: flag(12)?,
        max_lateral_accel_mps2: num(13)?,
    };
    // The columns each kind needs.
    let need: &[usize] = match test {
        TestKind::Stop => &[4, 5, 6, 7],
        TestKind::Follow => &[9, 10],
        TestKind::Steer => &[12],
    };
    for &k in need {
        if text(k).is_empty() {
            return Err(cell(k, format!("a {} test needs a value", text(0))));
        }
    }
    magnitudes(&m).map_err(|(k, message)| cell(k, message))?;
    Ok(m)
}
