//! The search for the cheapest feasible design of a product of dimensions, assuming
//! monotonicity: along an ordered dimension (values sorted ascending), a larger value never
//! makes a metric worse. Categorical dimensions are enumerated.
//!
//! Design `a` is *dominated* by design `b` when both have the same categorical values and
//! every ordered index of `a` is at most `b`'s. Under the assumption, a design dominated by an
//! infeasible one is infeasible, and one that dominates a feasible one is feasible.
//!
//! The answer is the feasible design that comes first in (cost, product index) order. The
//! search visits designs in that order and never runs one implied infeasible. For the first
//! unresolved design `c` it runs, instead of `c` itself, a design that can prove `c`
//! infeasible: the largest unresolved design of the same cost that dominates `c` (a
//! same-price upgrade), or else, when `c` has at least three unresolved designs above it
//! along one ordered dimension, the middle one of those (bisection). Either way nothing is
//! assumed of a design that was not run or implied, so the answer is exact under the
//! assumption. `--jobs` designs are run at a time: the next candidates in cost order fill the
//! batch.

/// A product of dimensions.
#[derive(Clone, Debug)]
pub struct Space {
    /// Number of values of each dimension.
    pub sizes: Vec<usize>,
    /// Whether each dimension is ordered (values ascending, larger never worse); otherwise
    /// categorical.
    pub ordered: Vec<bool>,
}

impl Space {
    /// The number of designs (the product of the sizes).
    pub fn len(&self) -> usize {
        self.sizes.iter().product()
    }

    /// Whether the product is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value indices of design `i` in odometer order (the last dimension varies fastest).
    pub fn coords(&self, mut i: usize) -> Vec<usize> {
        let mut c = vec![0; self.sizes.len()];
        for d in (0..self.sizes.len()).rev() {
            c[d] = i % self.sizes[d];
            i /= self.sizes[d];
        }
        c
    }

    /// The design index of value indices `c`.
    pub fn index(&self, c: &[usize]) -> usize {
        c.iter()
            .zip(&self.sizes)
            .fold(0, |acc, (&x, &n)| acc * n + x)
    }

    /// Whether design `a` is dominated by design `b` (or equal to it).
    pub fn le(&self, a: &[usize], b: &[usize]) -> bool {
        a.iter()
            .zip(b)
            .zip(&self.ordered)
            .all(|((x, y), &o)| if o { x <= y } else { x == y })
    }
}

/// What is known of a design.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Known {
    Unknown,
    Feasible,
    Infeasible,
}

/// The outcome of a search.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The designs run, in the order their results were taken, with their feasibility.
    pub tried: Vec<(usize, bool)>,
    /// The cheapest feasible design, if any (first in (cost, index) order).
    pub chosen: Option<usize>,
}

/// Search state.
struct State<'a> {
    space: &'a Space,
    coords: Vec<Vec<usize>>,
    /// Designs in (cost, index) order.
    order: Vec<usize>,
    costs: &'a [f64],
    known: Vec<Known>,
    feasible: Vec<usize>,
    infeasible: Vec<usize>,
}

impl State<'_> {
    fn implied_infeasible(&self, d: usize) -> bool {
        self.known[d] == Known::Infeasible
            || self
                .infeasible
                .iter()
                .any(|&i| self.space.le(&self.coords[d], &self.coords[i]))
    }

    fn implied_feasible(&self, d: usize) -> bool {
        self.known[d] == Known::Feasible
            || self
                .feasible
                .iter()
                .any(|&f| self.space.le(&self.coords[f], &self.coords[d]))
    }

    /// Whether running `d` could tell something new.
    fn open(&self, d: usize) -> bool {
        !self.implied_infeasible(d) && !self.implied_feasible(d)
    }

    /// The design to run to resolve candidate `c` (see the module docs), not one of `taken`.
    fn probe(&self, c: usize, taken: &[usize]) -> usize {
        let cc = &self.coords[c];
        let free = |d: usize| !taken.contains(&d) && self.open(d);
        // A same-price upgrade: the largest open design of c's cost that dominates c.
        let same = self.order.iter().copied().filter(|&d| {
            d != c
                && same_cost(self.costs[d], self.costs[c])
                && self.space.le(cc, &self.coords[d])
                && free(d)
        });
        let best = same.max_by_key(|&d| (self.coords[d].iter().sum::<usize>(), d));
        if let Some(d) = best {
            return d;
        }
        // Bisection along the ordered dimension with the longest open chain above c.
        let mut pick: Option<(usize, usize)> = None; // (chain length, design)
        for (dim, &o) in self.space.ordered.iter().enumerate() {
            if !o {
                continue;
            }
            let mut chain = Vec::new();
            let mut x = cc.clone();
            while x[dim] + 1 < self.space.sizes[dim] {
                x[dim] += 1;
                let d = self.space.index(&x);
                if !self.open(d) {
                    break;
                }
                chain.push(d);
            }
            if chain.len() >= 3 && pick.is_none_or(|(n, _)| chain.len() > n) {
                let mid = chain[(chain.len() - 1) / 2];
                if !taken.contains(&mid) {
                    pick = Some((chain.len(), mid));
                }
            }
        }
        pick.map_or(c, |(_, d)| d)
    }

    /// The first design in cost order not known or implied infeasible, if any.
    fn first_candidate(&self) -> Option<usize> {
        self.order
            .iter()
            .copied()
            .find(|&d| !self.implied_infeasible(d))
    }

    /// Up to `n` designs to run next, or none when the answer is settled. The first pass
    /// leaves out designs below or above one already taken (a miss or a success there would
    /// settle them); the second fills what is left of the batch without that rule.
    fn batch(&self, n: usize) -> Vec<usize> {
        let mut batch: Vec<usize> = Vec::new();
        for pass in 0..2 {
            for &c in &self.order {
                if batch.len() >= n {
                    return batch;
                }
                if self.known[c] == Known::Feasible {
                    // Everything after it in cost order cannot be the answer.
                    break;
                }
                if self.implied_infeasible(c) || batch.contains(&c) {
                    continue;
                }
                let related = |d: usize| {
                    batch.iter().any(|&b| {
                        self.space.le(&self.coords[d], &self.coords[b])
                            || self.space.le(&self.coords[b], &self.coords[d])
                    })
                };
                if pass == 0 && related(c) {
                    continue;
                }
                let p = self.probe(c, &batch);
                if !batch.contains(&p) && (pass == 1 || !related(p)) {
                    batch.push(p);
                }
            }
        }
        batch
    }

    fn record(&mut self, d: usize, ok: bool) {
        self.known[d] = if ok {
            Known::Feasible
        } else {
            Known::Infeasible
        };
        if ok {
            self.feasible.push(d);
        } else {
            self.infeasible.push(d);
        }
    }
}

/// Whether two costs are the same price (to a part in 10^12).
fn same_cost(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

/// Designs in (cost, index) order.
fn cost_order(costs: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[a].total_cmp(&costs[b]).then(a.cmp(&b)));
    order
}

/// Finds the cheapest feasible design of `space` (`costs[i]`: design `i`'s cost), running up
/// to `batch` designs at a time with `run`, which returns each design's feasibility in the
/// order given (or an error that ends the search). Exact when the metrics are monotone
/// along the ordered dimensions.
pub fn search<E>(
    space: &Space,
    costs: &[f64],
    batch: usize,
    mut run: impl FnMut(&[usize]) -> Result<Vec<bool>, E>,
) -> Result<Outcome, E> {
    let n = space.len();
    assert_eq!(costs.len(), n, "one cost per design");
    let mut st = State {
        space,
        coords: (0..n).map(|i| space.coords(i)).collect(),
        order: cost_order(costs),
        costs,
        known: vec![Known::Unknown; n],
        feasible: Vec::new(),
        infeasible: Vec::new(),
    };
    let mut out = Outcome::default();
    loop {
        let Some(c) = st.first_candidate() else {
            return Ok(out);
        };
        if st.known[c] == Known::Feasible {
            out.chosen = Some(c);
            return Ok(out);
        }
        let next = st.batch(batch.max(1));
        debug_assert!(!next.is_empty());
        let ok = run(&next)?;
        for (&d, ok) in next.iter().zip(ok) {
            st.record(d, ok);
            out.tried.push((d, ok));
        }
    }
}

/// Runs every design of `space`, `batch` at a time, in index order, and picks the first
/// feasible design in (cost, index) order.
pub fn exhaustive<E>(
    space: &Space,
    costs: &[f64],
    batch: usize,
    mut run: impl FnMut(&[usize]) -> Result<Vec<bool>, E>,
) -> Result<Outcome, E> {
    let all: Vec<usize> = (0..space.len()).collect();
    let mut out = Outcome::default();
    for chunk in all.chunks(batch.max(1)) {
        let ok = run(chunk)?;
        out.tried.extend(chunk.iter().copied().zip(ok));
    }
    let feasible: Vec<bool> = {
        let mut f = vec![false; space.len()];
        for &(d, ok) in &out.tried {
            f[d] = ok;
        }
        f
    };
    out.chosen = cost_order(costs).into_iter().find(|&d| feasible[d]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A random case: dimensions, monotone costs (with ties), a monotone feasibility
    /// (a weighted sum of ordered indices above a per-category threshold).
    struct Case {
        space: Space,
        costs: Vec<f64>,
        feasible: Vec<bool>,
    }

    fn case(rng: &mut Rng) -> Case {
        let dims = 1 + rng.below(4) as usize;
        let mut sizes = Vec::new();
        let mut ordered = Vec::new();
        for _ in 0..dims {
            let o = rng.below(4) != 0;
            sizes.push(1 + rng.below(if o { 7 } else { 3 }) as usize);
            ordered.push(o);
        }
        let space = Space { sizes, ordered };
        let n = space.len();
        // Per-dimension value prices (ascending for ordered dims; free dims make ties).
        let price: Vec<Vec<f64>> = space
            .sizes
            .iter()
            .zip(&space.ordered)
            .map(|(&s, &o)| {
                let step = rng.below(3) as f64;
                let mut acc = rng.below(5) as f64;
                (0..s)
                    .map(|_| {
                        let v = acc;
                        acc += if o {
                            step * (1 + rng.below(3)) as f64
                        } else {
                            0.0
                        };
                        if !o {
                            acc = rng.below(10) as f64;
                        }
                        v
                    })
                    .collect()
            })
            .collect();
        let weight: Vec<u64> = (0..dims).map(|_| rng.below(4)).collect();
        let bonus: Vec<Vec<u64>> = space
            .sizes
            .iter()
            .map(|&s| (0..s).map(|_| rng.below(6)).collect())
            .collect();
        let threshold = rng.below(20);
        let mut costs = Vec::with_capacity(n);
        let mut feasible = Vec::with_capacity(n);
        for i in 0..n {
            let c = space.coords(i);
            costs.push(c.iter().enumerate().map(|(d, &x)| price[d][x]).sum());
            let score: u64 = c
                .iter()
                .enumerate()
                .map(|(d, &x)| {
                    if space.ordered[d] {
                        weight[d] * x as u64
                    } else {
                        bonus[d][x]
                    }
                })
                .sum();
            feasible.push(score >= threshold);
        }
        Case {
            space,
            costs,
            feasible,
        }
    }

    #[test]
    fn search_matches_brute_force() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut ran, mut total) = (0, 0);
        for _ in 0..2000 {
            let k = case(&mut rng);
            let f = |ds: &[usize]| -> Result<Vec<bool>, ()> {
                Ok(ds.iter().map(|&d| k.feasible[d]).collect())
            };
            let brute = exhaustive(&k.space, &k.costs, 3, f).expect("runs");
            for batch in [1, 2, 5] {
                let mut seen = std::collections::HashSet::new();
                let s = search(&k.space, &k.costs, batch, |ds: &[usize]| {
                    for &d in ds {
                        assert!(seen.insert(d), "design {d} run twice");
                    }
                    f(ds)
                })
                .expect("runs");
                assert_eq!(s.chosen, brute.chosen, "{:?} batch {batch}", k.space);
                if batch == 1 {
                    ran += s.tried.len();
                    total += k.space.len();
                }
            }
        }
        // The search runs far fewer designs than the product.
        assert!(ran * 2 < total, "ran {ran} of {total}");
    }

    #[test]
    fn a_chain_is_bisected() {
        // One ordered dimension of 64 values, feasible from 40 on, cost = index.
        let space = Space {
            sizes: vec![64],
            ordered: vec![true],
        };
        let costs: Vec<f64> = (0..64).map(f64::from).collect();
        let s = search(&space, &costs, 1, |ds: &[usize]| -> Result<_, ()> {
            Ok(ds.iter().map(|&d| d >= 40).collect())
        })
        .expect("runs");
        assert_eq!(s.chosen, Some(40));
        assert!(s.tried.len() <= 8, "{:?}", s.tried);
    }

    #[test]
    fn nothing_feasible_runs_what_it_must() {
        let space = Space {
            sizes: vec![2, 5, 4],
            ordered: vec![false, true, true],
        };
        let costs: Vec<f64> = (0..40).map(|i| f64::from(i % 20)).collect();
        let s = search(&space, &costs, 1, |ds: &[usize]| -> Result<_, ()> {
            Ok(vec![false; ds.len()])
        })
        .expect("runs");
        assert_eq!(s.chosen, None);
        // Bisection proves most of each category infeasible without running it.
        assert!(s.tried.len() <= 20, "{:?}", s.tried);
    }
}
