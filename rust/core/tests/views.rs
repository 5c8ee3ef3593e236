//! View layouts against NumPy: `data/view_cases.txt` (written by `data/gen_view_cases.py`)
//! holds random chains of view ops with NumPy's offset, shape and strides after each step.

use ember_core::ir::parse;
use ember_core::verify;
use ember_core::views::{apply, Layout};

fn numbers(text: &str) -> Vec<isize> {
    text.trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect()
}

/// `offset=.. shape=[..] strides=[..]` or `copy`.
fn expected(line: &str) -> Option<Layout> {
    if line.trim() == "copy" {
        return None;
    }
    let mut fields = line
        .split_whitespace()
        .map(|f| f.split_once('=').unwrap().1);
    let offset = fields.next().unwrap().parse().unwrap();
    let shape = numbers(fields.next().unwrap())
        .into_iter()
        .map(|n| n as usize)
        .collect();
    let strides = numbers(fields.next().unwrap());
    Some(Layout {
        offset,
        shape,
        strides,
    })
}

/// Equal where it matters: strides of axes longer than 1, the offset of a non-empty view.
fn same(a: &Layout, b: &Layout) -> bool {
    a.shape == b.shape
        && (a.size() == 0
            || (a.offset == b.offset
                && a.shape
                    .iter()
                    .zip(a.strides.iter().zip(&b.strides))
                    .all(|(n, (x, y))| *n <= 1 || x == y)))
}

#[test]
fn views_match_numpy() {
    let text = include_str!("data/view_cases.txt");
    let mut steps = 0;
    let mut copies = 0;
    for case in text.split("ember-ir 1\n").filter(|c| !c.trim().is_empty()) {
        let case = format!("ember-ir 1\n{case}");
        let graph = parse(&case).unwrap_or_else(|e| panic!("{e}\n{case}"));
        verify(&graph).unwrap_or_else(|e| panic!("{e}\n{case}"));
        let wanted: Vec<Option<Layout>> = case
            .lines()
            .filter_map(|l| l.strip_prefix("# layout "))
            .map(|l| expected(l.split_once(": ").unwrap().1))
            .collect();
        let mut layout = Layout::contiguous(&graph.params[0].static_shape().unwrap());
        for (node, want) in graph.nodes.iter().zip(&wanted) {
            let shape = node.ty.static_shape().unwrap();
            let got = apply(&layout, &node.op, &shape);
            match (&got, want) {
                (None, None) => copies += 1,
                (Some(g), Some(w)) if same(g, w) => {}
                _ => panic!(
                    "{case}\nafter {}: ember {got:?}, NumPy {want:?}",
                    node.op.name()
                ),
            }
            steps += 1;
            match got {
                Some(g) => layout = g,
                None => break,
            }
        }
    }
    assert!(steps > 800 && copies > 10, "{steps} steps, {copies} copies");
}

#[test]
fn positions_walk_the_layout() {
    let layout = Layout {
        offset: 7,
        shape: vec![2, 3],
        strides: vec![-3, 1],
    };
    assert_eq!(layout.positions(), vec![7, 8, 9, 4, 5, 6]);
    assert!(Layout::contiguous(&[2, 1, 3]).is_contiguous());
    assert!(!Layout {
        offset: 0,
        shape: vec![2, 3],
        strides: vec![1, 2]
    }
    .is_contiguous());
}
