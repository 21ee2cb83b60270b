//! Closed forms used to validate the models: the Lambert W function and Desnoyers' write
//! amplification of greedy garbage collection under uniform random overwrites.

/// The principal branch `W₀(x)` of the Lambert W function (the `w ≥ -1` solving `w·eʷ = x`)
/// for `x ≥ -1/e`, by Halley iteration from a branch-point series start. Returns `NaN` for
/// `x < -1/e` (outside the domain) and for non-finite input.
pub fn lambert_w0(x: f64) -> f64 {
    let inv_e = (-1.0f64).exp();
    if !x.is_finite() || x < -inv_e - 1e-15 {
        return f64::NAN;
    }
    if x <= -inv_e {
        return -1.0;
    }
    if x == 0.0 {
        return 0.0;
    }
    // Start: series about the branch point for negative x, log form for large x.
    let mut w = if x < 1.0 {
        let p = (2.0 * (std::f64::consts::E * x + 1.0)).sqrt();
        -1.0 + p - p * p / 3.0 + 11.0 / 72.0 * p * p * p
    } else {
        let l = x.ln();
        l - l.max(1.0).ln().max(0.0)
    };
    for _ in 0..64 {
        let ew = w.exp();
        let f = w * ew - x;
        let wp1 = w + 1.0;
        if wp1.abs() < 1e-300 {
            break;
        }
        let denom = ew * wp1 - (w + 2.0) * f / (2.0 * wp1);
        let step = f / denom;
        w -= step;
        if step.abs() <= 1e-15 * (1.0 + w.abs()) {
            break;
        }
    }
    w
}

/// Write amplification of greedy garbage collection under uniform random single-page
/// overwrites (Desnoyers, "Analytic modeling of SSD write performance", SYSTOR 2012), for a
/// device whose fraction `spare_factor` of physical pages is spare:
///
/// `α = T/U = 1/(1 − S_f)`, `A = α / (α + W₀(−α·e^{−α}))`.
///
/// Equivalently the cleaned block's valid fraction `v` solves `v = e^{−α(1−v)}` and
/// `A = 1/(1 − v)`. Returns `+∞` for a spare factor of 0 and `NaN` outside `[0, 1)`.
pub fn desnoyers_greedy_wa(spare_factor: f64) -> f64 {
    if !(0.0..1.0).contains(&spare_factor) {
        return f64::NAN;
    }
    if spare_factor == 0.0 {
        return f64::INFINITY;
    }
    let alpha = 1.0 / (1.0 - spare_factor);
    alpha / (alpha + lambert_w0(-alpha * (-alpha).exp()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lambert_w_solves_its_equation() {
        for &x in &[-0.367_879, -0.3, -0.1, -1e-6, 1e-6, 0.5, 1.0, 10.0, 1e6] {
            let w = lambert_w0(x);
            assert!(
                (w * w.exp() - x).abs() <= 1e-12 * (1.0 + x.abs()),
                "x={x} w={w}"
            );
            assert!(w >= -1.0);
        }
        assert_eq!(lambert_w0(0.0), 0.0);
        assert!((lambert_w0(std::f64::consts::E) - 1.0).abs() < 1e-14);
        assert_eq!(lambert_w0(-(-1.0f64).exp()), -1.0);
        assert!(lambert_w0(-0.5).is_nan());
    }

    #[test]
    fn desnoyers_matches_fixed_point_and_known_values() {
        for &sf in &[0.05, 0.1, 0.2, 0.3, 0.5] {
            let a = desnoyers_greedy_wa(sf);
            let alpha = 1.0 / (1.0 - sf);
            let v = 1.0 - 1.0 / a;
            assert!((v - (-alpha * (1.0 - v)).exp()).abs() < 1e-12, "sf={sf}");
        }
        // Over-provisioning ratio 0.3 (α = 1.3): 2.36 (Xiang & Kurkoski, arXiv:1110.4245).
        let sf = 1.0 - 1.0 / 1.3;
        assert!((desnoyers_greedy_wa(sf) - 2.36).abs() < 0.01);
        // Large spare factors approach 1, small ones blow up like 1/(2·S_f).
        assert!(desnoyers_greedy_wa(0.9) < 1.01);
        assert!((desnoyers_greedy_wa(0.01) * 0.02 - 1.0).abs() < 0.02);
        assert!(desnoyers_greedy_wa(0.0).is_infinite());
        assert!(desnoyers_greedy_wa(1.0).is_nan());
    }
}
