//! `gather` and `scatter_add` over every dtype, every indexed axis position, one or two index
//! arrays broadcasting together, in every input layout, against the reference interpreter;
//! repeated positions add up in order; an index out of bounds is NumPy's `IndexError`.

mod common;
use common::{check_ir, random_array, run_jit, Layout, Rng};
use ember_core::interp::{Data, HostArray};
use ember_core::ir::DType;

const LAYOUTS: [Layout; 4] = [Layout::C, Layout::F, Layout::Reversed, Layout::Strided];

/// Indices in `[-size, size)`: negative ones count from the end, and repeats are likely.
fn indices(rng: &mut Rng, shape: &[usize], size: usize) -> HostArray {
    let n = shape.iter().product();
    let values = (0..n)
        .map(|_| rng.below(2 * size as u64) as i64 - size as i64)
        .collect();
    HostArray::new(shape.to_vec(), Data::I64(values)).unwrap()
}

fn dims(shape: &[usize]) -> String {
    shape
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// `data[4,5,3]` gathered (or updates scattered back) with index arrays `[2,1]` and `[3]`
/// (broadcasting to `[2,3]`) from `axis`.
fn case(op: &str, dtype: &str, axis: usize, count: usize) -> (String, Vec<Vec<usize>>) {
    let data = [4usize, 5, 3];
    let index_shapes: Vec<Vec<usize>> = [vec![2, 1], vec![3]][..count].to_vec();
    let b: Vec<usize> = if count == 1 { vec![2, 1] } else { vec![2, 3] };
    let moved = [&data[..axis], &b, &data[axis + count..]].concat();
    let params: Vec<String> = index_shapes
        .iter()
        .enumerate()
        .map(|(i, s)| format!("%{}: i64[{}]", i + 1, dims(s)))
        .collect();
    let operands: Vec<String> = (1..=count).map(|i| format!("%{i}")).collect();
    let r = count + 1;
    let ir = if op == "gather" {
        format!(
            "ember-ir 1\nfunc @f(%0: {dtype}[{}], {}) -> ({dtype}[{}]) {{\n  \
             %{r} = gather(%0, {}) axis={axis} : {dtype}[{}]\n  return %{r}\n}}\n",
            dims(&data),
            params.join(", "),
            dims(&moved),
            operands.join(", "),
            dims(&moved),
        )
    } else {
        format!(
            "ember-ir 1\nfunc @f(%0: {dtype}[{}], {}) -> ({dtype}[{}]) {{\n  \
             %{r} = scatter_add(%0, {}) axis={axis} shape=[{}] : {dtype}[{}]\n  \
             return %{r}\n}}\n",
            dims(&moved),
            params.join(", "),
            dims(&data),
            operands.join(", "),
            dims(&data),
            dims(&data),
        )
    };
    let first = if op == "gather" { data.to_vec() } else { moved };
    (ir, [vec![first], index_shapes].concat())
}

#[test]
fn gather_and_scatter_add_every_dtype_axis_and_layout() {
    let mut rng = Rng(0x5eed);
    for op in ["gather", "scatter_add"] {
        for (dtype, dt) in [
            ("bool", DType::Bool),
            ("i32", DType::I32),
            ("i64", DType::I64),
            ("f32", DType::F32),
            ("f64", DType::F64),
        ] {
            for count in 1..=2 {
                for axis in 0..=3 - count {
                    let (ir, shapes) = case(op, dtype, axis, count);
                    let data_shape = [4usize, 5, 3];
                    let mut inputs = vec![random_array(&mut rng, dt, &shapes[0])];
                    for (j, s) in shapes[1..].iter().enumerate() {
                        inputs.push(indices(&mut rng, s, data_shape[axis + j]));
                    }
                    for layout in LAYOUTS {
                        // Scatter-add accumulates in the updates' order, as the interpreter.
                        check_ir(&ir, &inputs, layout, 1, 0.0);
                    }
                }
            }
        }
    }
}

#[test]
fn an_index_out_of_bounds_is_numpys_index_error() {
    let (ir, _) = case("gather", "f64", 1, 1);
    let data = HostArray::new(vec![4, 5, 3], Data::F64(vec![0.0; 60])).unwrap();
    for bad in [5i64, -6] {
        let idx = HostArray::new(vec![2, 1], Data::I64(vec![0, bad])).unwrap();
        match run_jit(&ir, &[data.clone(), idx], Layout::C, 1) {
            Err(ember_codegen::Error::Index(m)) => {
                assert_eq!(
                    m,
                    format!("index {bad} is out of bounds for axis 1 with size 5")
                )
            }
            other => panic!("expected an IndexError, got {other:?}"),
        }
    }
}
