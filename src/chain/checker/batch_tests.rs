//! The two forms agree, margins agree with verdicts, and bad numbers stay in their chunk
//! (issue 14: defects 2 and 4, margins, per-chunk routes and scans).

use super::batch::{self, BatchFormat, BatchRecord, CheckOptions, Judge};
use super::margins::Margins;
use super::tests::{feasible, lane, lane_corridor};
use super::*;
use crate::chain::envelope::Grip;
use crate::chain::scan::{Scan, ScanGeometry};
use crate::config::Config;
use proptest::prelude::*;
use std::sync::Arc;

fn geometry() -> ScanGeometry {
    ScanGeometry::new(360, (1.9, 0.0), 40.0)
}

/// A random chunk: feasible on the straight lane, then perturbed so that any rule may
/// refuse it; with or without its own scan (one return ahead), its route named or not.
fn any_chunk() -> impl Strategy<Value = Chunk> {
    (
        feasible(),
        prop::collection::vec(-1.0f64..1.0, 60),
        prop::collection::vec(-0.3f64..0.3, 60),
        prop::option::of(2.0f64..40.0),
        any::<bool>(),
    )
        .prop_map(|(mut c, dv, de, ret, named)| {
            let n = c.offsets_m.len();
            for i in 1..n.saturating_sub(1) {
                c.speeds_mps[i] = (c.speeds_mps[i] + dv[i] * 0.5).max(0.0);
                c.offsets_m[i] += de[i] * 0.5;
            }
            c.route = named.then(|| "straight_lane.json".to_string());
            c.scan = ret.map(|r| {
                let mut s = vec![None; 360];
                s[0] = Some(r);
                s
            });
            c
        })
}

fn checker(corridor: bool) -> TrajectoryChecker {
    let c = TrajectoryChecker::new(&Config::builtin(), Grip::Unknown).unwrap();
    if corridor {
        c.with_corridor(lane_corridor(1.6, None))
    } else {
        c
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The single form (a JSON value per chunk) and the batch form (JSON Lines through
    /// the pipeline) give the same records: verdicts, reasons, indices, values, notes and
    /// margins, with a default scan, a default route and a corridor.
    #[test]
    fn single_and_batch_forms_agree(
        chunks in prop::collection::vec(any_chunk(), 1..12),
        corridor in any::<bool>(),
        margins in any::<bool>(),
        default_scan in prop::option::of(3.0f64..30.0),
    ) {
        let ck = checker(corridor);
        let opts = CheckOptions {
            route: Some(Arc::new(lane())),
            scan: default_scan.map(|r| {
                let mut s = Scan::empty(360);
                s.set(0, r).unwrap();
                Arc::new(s)
            }),
            margins,
            max_line_bytes: batch::DEFAULT_MAX_LINE_BYTES,
            ..CheckOptions::default()
        };
        let judge = Judge::new(&ck, &opts, geometry());
        let mut buf = Vec::new();
        let single: Vec<String> = chunks
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let v = judge.value(i, serde_json::to_value(c).unwrap(), &mut buf);
                serde_json::to_string(&BatchRecord::of(&v)).unwrap()
            })
            .collect();
        let input: String = chunks
            .iter()
            .map(|c| serde_json::to_string(c).unwrap() + "\n")
            .collect();
        let mut out = Vec::new();
        batch::run(&judge, input.as_bytes(), &mut out, BatchFormat::JsonLines, |_| {}).unwrap();
        let batch: Vec<String> = String::from_utf8(out).unwrap().lines().map(String::from).collect();
        prop_assert_eq!(single, batch);
    }

    /// Every verdict names the rules that lacked input (obstacle exactly when neither the
    /// chunk nor the options carry a scan; point and corridor exactly when there is no
    /// corridor), and --strict changes a verdict only where it was an acceptance with such
    /// a rule: an accepted strict verdict ran every rule.
    #[test]
    fn strict_refuses_exactly_what_lacked_input(
        c in any_chunk(),
        corridor in any::<bool>(),
        default_scan in any::<bool>(),
    ) {
        let ck = checker(corridor);
        let mut opts = CheckOptions {
            route: Some(Arc::new(lane())),
            scan: default_scan.then(|| Arc::new(Scan::empty(360))),
            max_line_bytes: batch::DEFAULT_MAX_LINE_BYTES,
            ..CheckOptions::default()
        };
        let mut buf = Vec::new();
        let plain = Judge::new(&ck, &opts, geometry()).chunk(0, &c, &mut buf);
        opts.strict = true;
        let strict = Judge::new(&ck, &opts, geometry()).chunk(0, &c, &mut buf);
        let no_scan = c.scan.is_none() && !default_scan;
        prop_assert_eq!(plain.unchecked.no_scan, no_scan);
        prop_assert_eq!(plain.unchecked.no_corridor, !corridor);
        prop_assert_eq!(strict.unchecked, plain.unchecked);
        if plain.result.accepted && (no_scan || !corridor) {
            prop_assert!(!strict.result.accepted);
            prop_assert_eq!(strict.result.reason, Some(Reason::Unchecked));
            let note = strict.result.why();
            prop_assert_eq!(note.contains("obstacle"), no_scan, "{}", note);
            prop_assert_eq!(note.contains("corridor rules"), !corridor, "{}", note);
        } else {
            prop_assert_eq!(&strict.result, &plain.result);
        }
        let rec = BatchRecord::of(&plain);
        let expect: Vec<&str> = [("obstacle", no_scan), ("point", !corridor), ("corridor", !corridor)]
            .iter()
            .filter(|(_, on)| *on)
            .map(|(k, _)| *k)
            .collect();
        prop_assert_eq!(rec.unchecked, expect);
    }

    /// Margins agree with the verdict: an accepted chunk has no negative margin; a chunk
    /// refused by a rule with a margin has a negative margin for that rule, at or after
    /// its first failing sample.
    #[test]
    fn margins_agree_with_verdicts(c in any_chunk(), corridor in any::<bool>()) {
        let ck = checker(corridor);
        let returns = c.scan.as_ref().map(|r| {
            let s = Scan::new(r.iter().map(|x| x.unwrap_or(f64::INFINITY)).collect()).unwrap();
            world_returns(&geometry(), &s, &c.start)
        });
        let mut buf = Vec::new();
        let plain = ck.check(&c, &lane(), returns.as_ref(), &mut buf);
        let (r, m) = ck.check_with_margins(&c, &lane(), returns.as_ref(), &mut buf);
        prop_assert_eq!(&plain, &r, "the verdict does not depend on --margins");
        let negative: Vec<&str> = Margins::KEYS
            .iter()
            .copied()
            .filter(|k| m.get(k).is_some_and(|e| e.margin < 0.0))
            .collect();
        if r.accepted {
            prop_assert!(negative.is_empty(), "{:?} {:?}", negative, m);
        } else if let Some(reason) = r.reason {
            let key = match reason {
                Reason::Start => None,
                Reason::Malformed | Reason::Direction => None,
                other => Some(other.code()),
            };
            if let Some(key) = key {
                let e = m.get(key).expect("the failing rule has a margin");
                prop_assert!(e.margin < 0.0, "{:?} {:?}", r, m);
            }
        }
    }
}

#[test]
fn numbers_that_are_not_finite_are_malformed_at_their_sample() {
    let ck = checker(false);
    let opts = CheckOptions {
        route: Some(Arc::new(lane())),
        max_line_bytes: batch::DEFAULT_MAX_LINE_BYTES,
        ..CheckOptions::default()
    };
    let judge = Judge::new(&ck, &opts, geometry());
    let good = serde_json::to_string(&tests_base()).unwrap();
    let mut buf = Vec::new();
    assert!(judge.line(0, good.as_bytes(), &mut buf).result.accepted);
    // Python's json.dumps writes NaN, Infinity and -Infinity; 1e400 is out of range.
    let cases = [
        (
            "\"offsets_m\":[0.0,0.0,0.0,0.0,0.0,0.0",
            "\"offsets_m\":[0.0,0.0,0.0,0.0,0.0,NaN",
            5,
            "offsets_m[5]",
        ),
        (
            "\"speeds_mps\":[4.0,3.897436,3.794872,3.692308",
            "\"speeds_mps\":[4.0,3.897436,3.794872,Infinity",
            3,
            "speeds_mps[3]",
        ),
        ("\"x_m\":20.0", "\"x_m\":-Infinity", 0, "start.x_m"),
        (
            "\"offsets_m\":[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0",
            "\"offsets_m\":[0.0,0.0,0.0,0.0,0.0,0.0,0.0,1e400",
            7,
            "offsets_m[7]",
        ),
    ];
    for (from, to, k, key) in cases {
        assert!(good.contains(from), "{from} in {good}");
        let line = good.replacen(from, to, 1);
        let v = judge.line(1, line.as_bytes(), &mut buf);
        assert_eq!(v.result.reason, Some(Reason::Malformed), "{line}");
        assert_eq!(v.result.first_index, Some(k), "{line}");
        let note = v.result.why();
        assert!(
            note.contains(key) && note.contains("not a finite number"),
            "{note}"
        );
    }
    // Invalid UTF-8 is malformed for its line alone.
    let v = judge.line(2, b"{\"route\": \"\xff\xfe\"}", &mut buf);
    assert_eq!(v.result.reason, Some(Reason::Malformed));
    assert!(v.result.why().contains("not UTF-8"), "{}", v.result.why());
    // A scan range that is NaN is not taken for a free beam.
    let with_scan = good.replacen('{', "{\"scan\":[NaN,", 1).replacen(
        "\"scan\":[NaN,",
        &format!("\"scan\":[NaN,{}],", vec!["null"; 359].join(",")),
        1,
    );
    let v = judge.line(3, with_scan.as_bytes(), &mut buf);
    assert_eq!(
        v.result.reason,
        Some(Reason::Malformed),
        "{}",
        v.result.why()
    );
}

#[test]
fn a_length_mismatch_names_both_lengths() {
    let mut c = tests_base();
    c.speeds_mps.pop();
    let r = checker(false).check(&c, &lane(), None, &mut Vec::new());
    assert_eq!(r.reason, Some(Reason::Malformed));
    assert_eq!(r.why(), "speeds_mps has 39 samples, offsets_m 40");
}

#[test]
fn an_own_scan_and_route_replace_the_defaults() {
    let ck = checker(false);
    let opts = CheckOptions {
        max_line_bytes: batch::DEFAULT_MAX_LINE_BYTES,
        ..CheckOptions::default()
    };
    let judge = Judge::new(&ck, &opts, geometry());
    let mut c = tests_base();
    let mut buf = Vec::new();
    // No route named and no default: malformed, and it says so.
    c.route = None;
    let v = judge.chunk(0, &c, &mut buf);
    assert!(v.result.why().contains("no route"), "{:?}", v.result);
    // Its own (shipped) route, and its own scan with a return 8 m ahead of the front.
    c.route = Some("straight_lane.json".into());
    assert!(judge.chunk(1, &c, &mut buf).result.accepted);
    let mut scan = vec![None; 360];
    scan[0] = Some(8.0 - 1.9 + 2.56);
    c.scan = Some(scan);
    assert_eq!(
        judge.chunk(2, &c, &mut buf).result.reason,
        Some(Reason::Obstacle)
    );
    // A scan of the wrong size is malformed.
    c.scan = Some(vec![None; 10]);
    let v = judge.chunk(3, &c, &mut buf);
    assert!(v.result.why().contains("10 beams"), "{:?}", v.result);
}

#[test]
fn a_line_over_the_cap_is_malformed_and_the_rest_is_judged() {
    let ck = checker(false);
    let opts = CheckOptions {
        route: Some(Arc::new(lane())),
        max_line_bytes: 4000,
        ..CheckOptions::default()
    };
    let judge = Judge::new(&ck, &opts, geometry());
    let good = serde_json::to_string(&tests_base()).unwrap();
    assert!(good.len() < 4000);
    let long = format!("{{\"pad\": \"{}\"}}", "x".repeat(10_000));
    let input = format!("{good}\n{long}\n\n{good}\n");
    let mut out = Vec::new();
    let sum = batch::run(
        &judge,
        input.as_bytes(),
        &mut out,
        BatchFormat::JsonLines,
        |_| {},
    )
    .unwrap();
    assert_eq!((sum.chunks, sum.accepted), (3, 2));
    let recs: Vec<serde_json::Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(recs[1]["index"], 1);
    assert_eq!(recs[1]["reason"], "malformed");
    assert!(
        recs[1]["note"].as_str().unwrap().contains("cap of 4000"),
        "{}",
        recs[1]
    );
    assert_eq!(recs[2]["index"], 3, "the blank line keeps its index");
}

/// The accepted base chunk of `tests` (40 samples from station 20, 4 m/s to a stop).
fn tests_base() -> Chunk {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/chunks/accepted.json"
    ));
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    serde_json::from_value(v["chunks"][0].clone()).unwrap()
}

#[test]
fn the_summary_line_names_the_rules_not_run() {
    let sum = |chunks, no_scan, no_corridor| batch::BatchSummary {
        chunks,
        accepted: 3,
        no_scan,
        no_corridor,
    };
    assert_eq!(sum(3, 0, 0).line(), "3 of 3 accepted");
    assert_eq!(
        sum(3, 3, 3).line(),
        "3 of 3 accepted; obstacle, point and corridor rules not run: no --scan, no --corridor"
    );
    assert_eq!(
        sum(4, 3, 0).line(),
        "3 of 4 accepted; obstacle rule not run on 3 of 4 chunks: no --scan nor a scan of \
         the chunk's own"
    );
    assert_eq!(
        sum(3, 0, 3).line(),
        "3 of 3 accepted; point and corridor rules not run: no --corridor"
    );
}

#[test]
fn the_batch_form_counts_and_refuses_unchecked_chunks_under_strict() {
    let ck = checker(false);
    let mut opts = CheckOptions {
        route: Some(Arc::new(lane())),
        max_line_bytes: batch::DEFAULT_MAX_LINE_BYTES,
        ..CheckOptions::default()
    };
    let good = serde_json::to_string(&tests_base()).unwrap();
    let input = format!("{good}\n{good}\n");
    let run = |opts: &CheckOptions| {
        let judge = Judge::new(&ck, opts, geometry());
        let mut out = Vec::new();
        let s = batch::run(&judge, input.as_bytes(), &mut out, BatchFormat::Csv, |_| {}).unwrap();
        (s, String::from_utf8(out).unwrap())
    };
    let (sum, csv) = run(&opts);
    assert_eq!(
        (sum.chunks, sum.accepted, sum.no_scan, sum.no_corridor),
        (2, 2, 2, 2)
    );
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().ends_with(",note,unchecked"), "{csv}");
    assert!(
        lines.next().unwrap().ends_with(",obstacle;point;corridor"),
        "{csv}"
    );
    opts.strict = true;
    let (sum, csv) = run(&opts);
    assert_eq!((sum.chunks, sum.accepted), (2, 0));
    assert!(
        csv.lines().nth(1).unwrap().contains(",refused,unchecked,"),
        "{csv}"
    );
}
