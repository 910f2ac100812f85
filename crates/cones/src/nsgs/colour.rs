//! The colouring of the contact graph for [`Nsgs::colouring`](super::Nsgs::colouring): the
//! contacts of one colour share no nonzero block of W, so their local solves run in parallel.

use crate::delassus::Blocks;

/// Contacts per chunk of a colour's parallel local solves (fixed: the chunking does not
/// depend on the thread count).
pub(super) const COLOUR_CHUNK: usize = 64;

/// A colour of fewer contacts is swept inline (same arithmetic): a local solve costs about
/// a microsecond, entering the pool a few.
pub(super) const COLOUR_MIN: usize = 128;

/// A greedy colouring of the contact graph of `blocks` (contacts `i ≠ j` conflict when
/// `W_ij` or `W_ji` has a stored entry), in index order: contact i takes the smallest colour
/// none of its lower-numbered neighbours has (Jones–Plassmann-style greedy; any proper
/// colouring makes the contacts of one colour independent in a Gauss–Seidel sweep, as in
/// parallel Gauss–Seidel solvers, e.g. Adams 2001, "A distributed memory unstructured
/// Gauss–Seidel algorithm for multigrid smoothers"). Writes the contacts sorted by
/// (colour, index) into `order` and the class boundaries into `starts`
/// (`order[starts[c]..starts[c + 1]]` has colour c). Deterministic: depends on the pattern
/// only.
pub(crate) fn colour_contacts(blocks: &Blocks, order: &mut Vec<usize>, starts: &mut Vec<usize>) {
    let d = blocks.d;
    let nc = blocks.csr.rows() / d;
    let ip = blocks.csr.indptr();
    let ip = ip.raw_storage();
    let idx = blocks.csr.indices();
    // Symmetric neighbour lists (sorted, deduplicated).
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for i in 0..nc {
        for &col in &idx[ip[d * i]..ip[d * i + d]] {
            let j = col / d;
            if j != i {
                edges.push((i, j));
                edges.push((j, i));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    let mut first = vec![0usize; nc + 1];
    for &(i, _) in &edges {
        first[i + 1] += 1;
    }
    for i in 0..nc {
        first[i + 1] += first[i];
    }
    let mut colour = vec![usize::MAX; nc];
    let mut seen: Vec<usize> = Vec::new();
    let mut colours = 0;
    for i in 0..nc {
        for &(_, j) in &edges[first[i]..first[i + 1]] {
            if j < i {
                seen[colour[j]] = i;
            }
        }
        let c = (0..colours).find(|&c| seen[c] != i).unwrap_or(colours);
        if c == colours {
            colours += 1;
            seen.push(usize::MAX);
        }
        colour[i] = c;
    }
    starts.clear();
    starts.resize(colours + 1, 0);
    for &c in &colour {
        starts[c + 1] += 1;
    }
    for c in 0..colours {
        starts[c + 1] += starts[c];
    }
    let mut next = starts[..colours].to_vec();
    order.clear();
    order.resize(nc, 0);
    for (i, &c) in colour.iter().enumerate() {
        order[next[c]] = i;
        next[c] += 1;
    }
}
