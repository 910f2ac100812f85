//! Connected components of a graph on the vertices `0..n` by union–find: the rigid bodies of a
//! mass matrix's sparsity graph ([`crate::linear::MassFactor`]), the islands of a contact
//! problem (independent groups of bodies).

/// Union–find over `0..n` with path halving; of two roots the smaller becomes the parent, so a
/// component's root is its smallest vertex.
///
/// ```
/// use perp_core::graph::UnionFind;
/// let mut uf = UnionFind::new(5);
/// uf.union(3, 1);
/// uf.union(4, 3);
/// let c = uf.components();
/// // {0}, {1, 3, 4}, {2}: numbered by their smallest vertex.
/// assert_eq!(c.label, [0, 1, 2, 1, 1]);
/// assert_eq!(c.sizes, [1, 3, 1]);
/// ```
#[derive(Clone, Debug)]
pub struct UnionFind {
    parent: Vec<usize>,
}

/// The components of a [`UnionFind`]: `label[v]` is vertex v's component, numbered in the
/// order of their smallest vertices; `sizes[c]` is component c's vertex count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Components {
    /// Component of each vertex.
    pub label: Vec<usize>,
    /// Vertices per component.
    pub sizes: Vec<usize>,
}

impl UnionFind {
    /// `n` vertices, no edge.
    pub fn new(n: usize) -> UnionFind {
        UnionFind { parent: (0..n).collect() }
    }

    /// The root of `x`'s component (panics when `x ≥ n`, a programming error).
    pub fn root(&mut self, mut x: usize) -> usize {
        let p = &mut self.parent;
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }

    /// Joins the components of `a` and `b`.
    pub fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        if a != b {
            self.parent[a.max(b)] = a.min(b);
        }
    }

    /// Joins the component whose root is `r` with `b`'s and returns the joined component's
    /// root: a caller joining many vertices to one component keeps its root instead of
    /// finding it again at every [`UnionFind::union`]. `r` must be a root (as returned by
    /// [`UnionFind::root`] or by this method since the last change).
    ///
    /// ```
    /// use perp_core::graph::UnionFind;
    /// let mut uf = UnionFind::new(6);
    /// let mut r = uf.root(4);
    /// for v in [5, 2, 3] {
    ///     r = uf.join(r, v);
    /// }
    /// assert_eq!((r, uf.root(5)), (2, 2));
    /// assert_eq!(uf.components().sizes, [1, 1, 4]);
    /// ```
    pub fn join(&mut self, r: usize, b: usize) -> usize {
        debug_assert_eq!(self.parent[r], r, "join's first vertex is a root");
        let rb = self.root(b);
        if rb == r {
            return r;
        }
        let (lo, hi) = (r.min(rb), r.max(rb));
        self.parent[hi] = lo;
        lo
    }

    /// The components, numbered by their smallest vertex.
    pub fn components(mut self) -> Components {
        let n = self.parent.len();
        let (mut label, mut sizes) = (vec![usize::MAX; n], Vec::new());
        for v in 0..n {
            // The root is the smallest vertex: numbered when the scan first meets it.
            let r = self.root(v);
            if r == v {
                label[v] = sizes.len();
                sizes.push(0);
            }
            label[v] = label[r];
            sizes[label[v]] += 1;
        }
        Components { label, sizes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_joined_from_both_ends_is_one_component_numbered_zero() {
        let mut uf = UnionFind::new(6);
        for (a, b) in [(5, 4), (0, 1), (4, 3), (1, 2), (3, 2)] {
            uf.union(a, b);
        }
        assert_eq!(uf.components(), Components { label: vec![0; 6], sizes: vec![6] });
    }

    #[test]
    fn isolated_vertices_are_their_own_components_in_order() {
        let mut uf = UnionFind::new(4);
        uf.union(2, 2);
        let c = uf.components();
        assert_eq!((c.label, c.sizes), (vec![0, 1, 2, 3], vec![1; 4]));
    }
}
