//! The pass manager and the passes: folding respects dtypes, the pipeline verifies between
//! passes, and a differential test checks that optimised random graphs compute bit-identical
//! results (NaN and -0.0 included) on the reference interpreter.

use ember_core::interp::{self, HostArray};
use ember_core::ir::{parse, print, BinaryOp, DType, Graph, Op, Scalar, Type, UnaryOp, ValueId};
use ember_core::passes::{run_passes, run_pipeline, Options, Pass, PIPELINE};

fn optimise(text: &str) -> String {
    let graph = parse(text).unwrap();
    print(&run_pipeline(&graph, false).unwrap().0)
}

#[test]
fn folding_rounds_to_the_result_dtype() {
    let text = "ember-ir 1\nfunc @f() -> (f32[], f64[]) {\n  %0 = const() value=0.1 : f32[]\n  %1 = const() value=0.2 : f32[]\n  %2 = add(%0, %1) : f32[]\n  %3 = const() value=0.1 : f64[]\n  %4 = const() value=0.2 : f64[]\n  %5 = add(%3, %4) : f64[]\n  return %2, %5\n}\n";
    let out = optimise(text);
    // 0.1f32 + 0.2f32 rounds to the f32 nearest 0.3, not to 0.30000000000000004.
    assert!(out.contains("value=0.30000001192092896 : f32[]"), "{out}");
    assert!(out.contains("value=0.30000000000000004 : f64[]"), "{out}");
}

#[test]
fn folding_wraps_integers_and_keeps_weakness() {
    let text = "ember-ir 1\nfunc @f() -> (u8[], i64[] weak, f64[] weak) {\n  %0 = const() value=200 : u8[]\n  %1 = mul(%0, %0) : u8[]\n  %2 = const() value=7 : i64[] weak\n  %3 = floordiv(%2, %2) : i64[] weak\n  %4 = const() value=2.0 : f64[] weak\n  %5 = pow(%4, %2) : f64[] weak\n  return %1, %3, %5\n}\n";
    let out = optimise(text);
    assert!(out.contains("value=64 : u8[]"), "{out}");
    assert!(out.contains("value=1 : i64[] weak"), "{out}");
    assert!(out.contains("value=128.0 : f64[] weak"), "{out}");
}

#[test]
fn folding_reports_a_negative_integer_power() {
    let text = "ember-ir 1\nfunc @f() -> (i32[]) {\n  %0 = const() value=2 : i32[]\n  %1 = const() value=-1 : i32[]\n  %2 = pow(%0, %1) : i32[]\n  return %2\n}\n";
    let err = run_pipeline(&parse(text).unwrap(), false).unwrap_err();
    assert!(
        err.to_string()
            .contains("Integers to negative integer powers"),
        "{err}"
    );
}

#[test]
fn stages_are_named_and_printed() {
    let text = "ember-ir 1\nfunc @f(%0: f32[2]) -> (f32[2]) {\n  %1 = neg(%0) : f32[2]\n  %2 = neg(%1) : f32[2]\n  return %2\n}\n";
    let (graph, stages) = run_pipeline(&parse(text).unwrap(), true).unwrap();
    let names: Vec<&str> = stages.iter().map(|s| s.pass).collect();
    assert_eq!(names, PIPELINE.iter().map(|p| p.name).collect::<Vec<_>>());
    assert_eq!(stages.last().unwrap().text, print(&graph));
    assert_eq!(
        print(&graph),
        "ember-ir 1\nfunc @f(%0: f32[2]) -> (f32[2]) {\n  return %0\n}\n"
    );
}

fn broken(graph: &Graph) -> ember_core::Result<Graph> {
    let mut g = graph.clone();
    g.nodes[0].ty = Type::of(DType::F64, &[2]);
    Ok(g)
}

#[test]
fn the_manager_verifies_between_passes() {
    let text =
        "ember-ir 1\nfunc @f(%0: f32[2]) -> (f32[2]) {\n  %1 = neg(%0) : f32[2]\n  return %1\n}\n";
    let graph = parse(text).unwrap();
    let pass = Pass {
        name: "broken",
        run: broken,
        replaces_values: false,
    };
    let err = run_passes(
        &graph,
        &[pass],
        Options {
            verify: true,
            stages: false,
        },
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("pass broken produced invalid IR: %1 = neg: declared type f64[2]"),
        "{err}"
    );
}

/// xorshift, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[(self.next() % items.len() as u64) as usize]
    }
}

const SPECIAL: [f64; 10] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    2.0,
    0.5,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    -3.25,
];

fn random_graph(rng: &mut Rng) -> Graph {
    let mut g = Graph::new(
        "r",
        vec![
            Type::of(DType::F32, &[4]),
            Type::of(DType::F64, &[4]),
            Type::of(DType::I32, &[4]),
        ],
    );
    let mut values: Vec<ValueId> = (0..3).map(|i| g.param(i)).collect();
    let unary = [
        UnaryOp::Neg,
        UnaryOp::Positive,
        UnaryOp::LogicalNot,
        UnaryOp::BitwiseNot,
        UnaryOp::Sqrt,
        UnaryOp::Abs,
    ];
    let binary = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Pow,
        BinaryOp::Maximum,
        BinaryOp::LogicalAnd,
        BinaryOp::LogicalOr,
        BinaryOp::BitwiseAnd,
        BinaryOp::Fmin,
        BinaryOp::Floordiv,
    ];
    for _ in 0..12 {
        let op = match rng.next() % 6 {
            0 => {
                let weak = rng.next().is_multiple_of(2);
                let (value, dtype) = match rng.next() % 3 {
                    0 => (Scalar::Float(rng.pick(&SPECIAL)), DType::F64),
                    1 => (Scalar::Int(rng.pick(&[0i128, 1, 2, -1])), DType::I64),
                    _ => (Scalar::Bool(rng.next().is_multiple_of(2)), DType::Bool),
                };
                let id = g.add(Op::Const { value, dtype, weak }, vec![]).unwrap();
                values.push(id);
                continue;
            }
            1 => (Op::Unary(rng.pick(&unary)), 1),
            2 => (
                Op::Astype {
                    dtype: rng.pick(&[
                        DType::F32,
                        DType::F64,
                        DType::I32,
                        DType::I64,
                        DType::I8,
                        DType::Bool,
                    ]),
                },
                1,
            ),
            3 => (Op::Where, 3),
            4 => (Op::Copy, 1),
            _ => (Op::Binary(rng.pick(&binary)), 2),
        };
        let inputs: Vec<ValueId> = (0..op.1).map(|_| rng.pick(&values)).collect();
        if let Ok(v) = g.add(op.0, inputs) {
            values.push(v);
        }
    }
    g.results = values[values.len() - 3..].to_vec();
    g
}

#[test]
fn optimised_random_graphs_compute_the_same_bits() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let inputs = [
        HostArray::parse("f32[4]{-0.0, nan, 2.0, -inf}").unwrap(),
        HostArray::parse("f64[4]{0.0, -0.0, 0.5, nan}").unwrap(),
        HostArray::parse("i32[4]{0, -1, 2, 2147483647}").unwrap(),
    ];
    let mut changed = 0;
    for _ in 0..2000 {
        let graph = random_graph(&mut rng);
        let optimised = match run_pipeline(&graph, false) {
            Ok((g, _)) => g,
            // Folding reports errors that running would raise (a negative integer power).
            Err(e) => {
                assert!(
                    interp::run(&graph, &inputs).is_err(),
                    "{e}\n{}",
                    print(&graph)
                );
                continue;
            }
        };
        if optimised != graph {
            changed += 1;
        }
        let before = interp::run(&graph, &inputs);
        let after = interp::run(&optimised, &inputs);
        let show = |r: &ember_core::Result<Vec<HostArray>>| match r {
            Ok(arrays) => arrays
                .iter()
                .map(|a| format!("{a} signs {:?}", signs(a)))
                .collect::<Vec<_>>()
                .join("; "),
            Err(e) => format!("error {}", e.message),
        };
        // DCE may drop a dead statement that would fail (a negative integer power), so the input
        // graph may fail where the optimised one runs; otherwise the results are the same bits.
        if before.is_ok() || after.is_err() {
            assert_eq!(
                show(&before),
                show(&after),
                "\n{}\n{}",
                print(&graph),
                print(&optimised)
            );
        }
    }
    assert!(
        changed > 500,
        "only {changed} graphs were changed by the pipeline"
    );
}

/// The sign bits of float elements, which Display shows for zeros but not for NaN.
fn signs(a: &HostArray) -> Vec<bool> {
    match &a.data {
        interp::Data::F32(v) => v.iter().map(|x| x.is_sign_negative()).collect(),
        interp::Data::F64(v) => v.iter().map(|x| x.is_sign_negative()).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn dce_drops_only_element_accesses_that_cannot_raise() {
    // Dead: a store at constant indices inside the shape (-3 wraps to row 0) and its array.
    // Kept: a store at a row past the end, and a load at an index known only at run time.
    let text = "ember-ir 2\nfunc @f(%0: f64[4], %1: i64[]) -> (i64[]) {\n  %2 = full() value=1 : i64[3,2]\n  %3 = const() value=-3 : i64[] weak\n  %4 = const() value=1 : i64[] weak\n  %5 = store(%2, %1, %3, %4) : i64[3,2]\n  %6 = full() value=2 : i64[3,2]\n  %7 = const() value=3 : i64[] weak\n  %8 = store(%6, %1, %7, %4) : i64[3,2]\n  %9 = load(%0, %1) : f64[]\n  return %1\n}\n";
    let out = optimise(text);
    assert_eq!(out.matches("store(").count(), 1, "{out}");
    assert_eq!(out.matches("full()").count(), 1, "{out}");
    assert!(out.contains("value=2 : i64[3,2]"), "{out}");
    assert_eq!(out.matches("load(").count(), 1, "{out}");
}
