//! Small-angle series of `sin`, `cos`, `tan` and `atan`, exact to a few parts in 10⁸
//! where they are used, with libm beyond. The vehicle's angles are mostly small (a
//! slip angle, the road wheel, the body's roll), and each libm call costs tens of
//! nanoseconds in a physics step that costs about 150.

/// The series' bound: |x| below it takes the series.
const SMALL: f64 = 0.2;

/// `sin x`; the series to x⁵ (the next term is under 2.6e-9 |x|).
pub fn sin(x: f64) -> f64 {
    if x.abs() < SMALL {
        let x2 = x * x;
        x * (1.0 - x2 / 6.0 * (1.0 - x2 / 20.0 * (1.0 - x2 / 42.0)))
    } else {
        x.sin()
    }
}

/// `cos x`; the series to x⁶ (the next term is under 6.4e-11).
pub fn cos(x: f64) -> f64 {
    if x.abs() < SMALL {
        let x2 = x * x;
        1.0 - x2 / 2.0 * (1.0 - x2 / 12.0 * (1.0 - x2 / 30.0))
    } else {
        x.cos()
    }
}

/// `tan x`; the series to x⁷ (the next term is under 1.1e-8 |x|... relative 6e-8).
pub fn tan(x: f64) -> f64 {
    if x.abs() < SMALL {
        let x2 = x * x;
        x * (1.0 + x2 * (1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (17.0 / 315.0))))
    } else {
        x.tan()
    }
}

/// `atan x`; below |x| = 0.1 the series to x⁵ (the next term is under 1.5e-8 |x|).
pub fn atan(x: f64) -> f64 {
    if x.abs() < 0.1 {
        let x2 = x * x;
        x * (1.0 - x2 * (1.0 / 3.0 - x2 * 0.2))
    } else {
        x.atan()
    }
}

#[cfg(test)]
mod tests {
    /// Each series against libm on a fine grid through its switch.
    #[test]
    fn the_series_meet_libm() {
        for k in -4000..=4000 {
            let x = k as f64 * 1e-4;
            let close = |a: f64, b: f64, rel: f64| (a - b).abs() <= rel * b.abs().max(1e-300);
            assert!(close(super::sin(x), x.sin(), 3e-9), "sin {x}");
            assert!(close(super::cos(x), x.cos(), 1e-10), "cos {x}");
            assert!(close(super::tan(x), x.tan(), 1e-7), "tan {x}");
            assert!(close(super::atan(x), x.atan(), 2e-7), "atan {x}");
        }
    }
}
