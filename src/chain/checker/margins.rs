//! Margins as a learning signal (`acres check --margins`): for each rule, the smallest
//! margin over a chunk's samples and where it is, signed and in the rule's unit: limit
//! minus value for an upper limit, value minus limit for a lower one (`obstacle`, `point`,
//! `corridor`), the nearer side for `step`. A negative margin is a broken limit. The rules
//! report every comparison to a [`Tally`], which keeps the margins and the first refusal.

use super::rules::{CheckResult, Reason};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// The smallest margin of one rule and the sample where it is.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Margin {
    pub margin: f64,
    pub index: usize,
}

/// Each rule's smallest margin over a chunk; a rule that did not run has none.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Margins([Option<Margin>; Margins::KEYS.len()]);

impl Margins {
    /// The rules with a margin, in the order they run; `start` is split by its unit.
    pub const KEYS: [&'static str; 16] = [
        "step",
        "speed",
        "start_position",
        "start_heading",
        "start_speed",
        "stop",
        "acceleration",
        "deceleration",
        "curvature",
        "curvature_rate",
        "steering_rate",
        "start_curvature",
        "lateral_acceleration",
        "obstacle",
        "point",
        "corridor",
    ];

    /// The margin of a rule (a key of [`Margins::KEYS`]).
    pub fn get(&self, key: &str) -> Option<&Margin> {
        let i = Self::KEYS.iter().position(|k| *k == key)?;
        self.0[i].as_ref()
    }

    fn add(&mut self, key: &str, index: usize, margin: f64) {
        let Some(i) = Self::KEYS.iter().position(|k| *k == key) else {
            return;
        };
        let slot = &mut self.0[i];
        // NaN never replaces a number; a number always replaces NaN.
        let better = match slot {
            None => true,
            Some(m) => margin < m.margin || (m.margin.is_nan() && !margin.is_nan()),
        };
        if better {
            *slot = Some(Margin { margin, index });
        }
    }
}

impl Serialize for Margins {
    /// A map from rule to `{"margin", "index"}`, the rules that ran only; a margin that is
    /// not finite is null.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for (key, m) in Self::KEYS.iter().zip(&self.0) {
            if let Some(m) = m {
                let margin = m.margin.is_finite().then_some(m.margin);
                map.serialize_entry(
                    key,
                    &serde_json::json!({"margin": margin, "index": m.index}),
                )?;
            }
        }
        map.end()
    }
}

/// What the rules report to: in the verdict mode the first refusal ends the check; with
/// margins every comparison is kept and the first refusal only remembered.
#[derive(Debug, Default)]
pub(super) struct Tally {
    margins: Option<Margins>,
    first: Option<CheckResult>,
}

/// The outcome of a rule: `Err` holds the refusal that ends the check.
pub(super) type Rule = Result<(), CheckResult>;

impl Tally {
    /// The tally of a plain verdict.
    pub fn verdict() -> Tally {
        Tally::default()
    }

    /// The tally that keeps every rule's margin.
    pub fn with_margins() -> Tally {
        Tally {
            margins: Some(Margins::default()),
            first: None,
        }
    }

    /// Whether every margin is wanted (else only the verdict).
    #[inline]
    pub fn wants_margins(&self) -> bool {
        self.margins.is_some()
    }

    /// `value ≤ limit` at sample `k`.
    #[inline]
    pub fn upper(&mut self, reason: Reason, key: &str, k: usize, value: f64, limit: f64) -> Rule {
        self.record(reason, key, k, value, limit, limit - value);
        self.settle()
    }

    /// `value ≥ limit` at sample `k`.
    #[inline]
    pub fn lower(&mut self, reason: Reason, key: &str, k: usize, value: f64, limit: f64) -> Rule {
        self.record(reason, key, k, value, limit, value - limit);
        self.settle()
    }

    /// `lo ≤ value ≤ hi` at sample `k`; a refusal names the side broken.
    #[inline]
    pub fn within(
        &mut self,
        reason: Reason,
        key: &str,
        k: usize,
        value: f64,
        lo: f64,
        hi: f64,
    ) -> Rule {
        let limit = if value < lo { lo } else { hi };
        self.record(reason, key, k, value, limit, (value - lo).min(hi - value));
        self.settle()
    }

    /// A rule with no margin (`direction`) broken at sample `k`.
    pub fn fail(&mut self, reason: Reason, k: usize, value: f64, limit: f64) -> Rule {
        self.refuse(CheckResult::refused(reason, k, value, limit));
        self.settle()
    }

    /// Keeps the margin (with margins) and, where it is negative, the refusal: the first
    /// rule's, at its smallest sample index. Never ends the check by itself.
    #[inline]
    pub fn record(
        &mut self,
        reason: Reason,
        key: &str,
        k: usize,
        value: f64,
        limit: f64,
        margin: f64,
    ) {
        if let Some(m) = &mut self.margins {
            m.add(key, k, margin);
        }
        if margin < 0.0 {
            self.refuse(CheckResult::refused(reason, k, value, limit));
        }
    }

    #[inline]
    fn refuse(&mut self, r: CheckResult) {
        let earlier = match &self.first {
            None => true,
            Some(f) => f.reason == r.reason && r.first_index < f.first_index,
        };
        if earlier {
            self.first = Some(r);
        }
    }

    /// In the verdict mode, ends the check with the refusal recorded so far.
    #[inline]
    pub fn settle(&mut self) -> Rule {
        match (&self.margins, &self.first) {
            (None, Some(r)) => Err(r.clone()),
            _ => Ok(()),
        }
    }

    /// The verdict, and the margins where they were kept.
    pub fn finish(self, ended: Rule) -> (CheckResult, Option<Margins>) {
        let result = match ended {
            Err(r) => r,
            Ok(()) => self.first.unwrap_or_else(CheckResult::ok),
        };
        (result, self.margins)
    }
}
