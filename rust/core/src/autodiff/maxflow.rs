//! Maximum flow by shortest augmenting paths (Edmonds–Karp) and the minimum cut next to the
//! source. Joint graphs have hundreds to a few thousand nodes, where this is instant.

use std::collections::VecDeque;

/// A capacity no cut can afford.
pub const INFINITE: u64 = u64::MAX / 4;

/// A flow network with integer capacities.
pub struct Network {
    /// Per node: indices of its edges in `edges`.
    adjacency: Vec<Vec<usize>>,
    /// Edges as (to, residual capacity); edge `i ^ 1` is edge `i`'s reverse.
    edges: Vec<(usize, u64)>,
}

impl Network {
    /// A network of `n` nodes and no edges.
    pub fn new(n: usize) -> Self {
        Network {
            adjacency: vec![Vec::new(); n],
            edges: Vec::new(),
        }
    }

    /// Add a directed edge.
    pub fn edge(&mut self, from: usize, to: usize, capacity: u64) {
        self.adjacency[from].push(self.edges.len());
        self.edges.push((to, capacity));
        self.adjacency[to].push(self.edges.len());
        self.edges.push((from, 0));
    }

    /// Push the maximum flow from `source` to `sink`; returns its value (saturating at
    /// [`INFINITE`] when no finite cut exists).
    pub fn max_flow(&mut self, source: usize, sink: usize) -> u64 {
        let mut total = 0u64;
        loop {
            let mut via = vec![usize::MAX; self.adjacency.len()];
            let mut queue = VecDeque::from([source]);
            while let Some(u) = queue.pop_front() {
                for &e in &self.adjacency[u] {
                    let (to, cap) = self.edges[e];
                    if cap > 0 && via[to] == usize::MAX && to != source {
                        via[to] = e;
                        queue.push_back(to);
                    }
                }
            }
            if via[sink] == usize::MAX {
                return total;
            }
            let mut push = u64::MAX;
            let mut v = sink;
            while v != source {
                let e = via[v];
                push = push.min(self.edges[e].1);
                v = self.edges[e ^ 1].0;
            }
            let mut v = sink;
            while v != source {
                let e = via[v];
                self.edges[e].1 -= push;
                self.edges[e ^ 1].1 += push;
                v = self.edges[e ^ 1].0;
            }
            total = total.saturating_add(push);
            if total >= INFINITE {
                return INFINITE;
            }
        }
    }

    /// After `max_flow`: which nodes the source still reaches (the source side of the
    /// minimum cut closest to the source).
    pub fn source_side(&self, source: usize) -> Vec<bool> {
        let mut seen = vec![false; self.adjacency.len()];
        seen[source] = true;
        let mut queue = VecDeque::from([source]);
        while let Some(u) = queue.pop_front() {
            for &e in &self.adjacency[u] {
                let (to, cap) = self.edges[e];
                if cap > 0 && !seen[to] {
                    seen[to] = true;
                    queue.push_back(to);
                }
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_of_a_diamond_takes_the_cheaper_edges() {
        // 0 -> 1 -> 3, 0 -> 2 -> 3 with a bottleneck on each branch.
        let mut n = Network::new(4);
        n.edge(0, 1, 10);
        n.edge(1, 3, 3);
        n.edge(0, 2, 2);
        n.edge(2, 3, 10);
        assert_eq!(n.max_flow(0, 3), 5);
        assert_eq!(n.source_side(0), vec![true, true, false, false]);
    }
}
