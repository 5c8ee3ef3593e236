//! `sort` and `argsort` over bool, i32, i64, f32 and f64 along every axis, in every input
//! layout, against the reference interpreter (both stable: ties must match exactly).

mod common;
use common::check_all_layouts;

#[test]
fn sort_and_argsort_every_dtype_and_axis() {
    for dtype in ["bool", "i32", "i64", "f32", "f64"] {
        for op in ["sort", "argsort"] {
            let out = if op == "sort" { dtype } else { "i64" };
            for axis in 0..3u64 {
                let ir = format!(
                    "ember-ir 1\nfunc @f(%0: {dtype}[4,7,5]) -> ({out}[4,7,5]) {{\n  \
                     %1 = {op}(%0) axis={axis} : {out}[4,7,5]\n  return %1\n}}\n"
                );
                check_all_layouts(&ir, 3 + axis, 0.0);
            }
        }
    }
}

#[test]
fn sort_of_empty_and_single_element_lines() {
    for shape in ["0,3", "3,1", "1,0"] {
        let ir = format!(
            "ember-ir 1\nfunc @f(%0: f64[{shape}]) -> (i64[{shape}]) {{\n  \
             %1 = argsort(%0) axis=1 : i64[{shape}]\n  return %1\n}}\n"
        );
        check_all_layouts(&ir, 5, 0.0);
    }
}
