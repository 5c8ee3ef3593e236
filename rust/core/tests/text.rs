//! The text form: round trip, located errors, and a mutation fuzzer (never a panic).

use ember_core::error::Location;
use ember_core::interp::{self, HostArray};
use ember_core::ir::{parse, print};
use ember_core::passes::run_pipeline;
use ember_core::verify;

const LAYERNORM: &str = "ember-ir 1
func @layernorm(%0: f32[8,1024], %1: f32[1024], %2: f32[1024]) -> (f32[8,1024]) {
  %3 = mean(%0) axis=[1] keepdims=true : f32[8,1]
  %4 = sub(%0, %3) : f32[8,1024]
  %5 = mul(%4, %4) : f32[8,1024]
  %6 = mean(%5) axis=[1] keepdims=true : f32[8,1]
  %7 = const() value=1e-05 : f64[] weak
  %8 = add(%6, %7) : f32[8,1]
  %9 = sqrt(%8) : f32[8,1]
  %10 = div(%4, %9) : f32[8,1024]
  %11 = mul(%10, %1) : f32[8,1024]
  %12 = add(%11, %2) : f32[8,1024]
  return %12
}
";

const EVERY_ATTR: &str = "ember-ir 1
func @attrs(%0: f32[s0,4], %1: i64[] weak) -> (f32[4,s0], i64[s0], f32[4], f32[3,2], u8[2,3], f64[5], f32[s0,4], i64[]) {
  %2 = transpose(%0) perm=[1,0] : f32[4,s0]
  %3 = argmax(%0) axis=1 keepdims=false : i64[s0]
  %4 = sum(%0) axis=[0] keepdims=false : f32[4]
  %5 = full() value=-0.0 : f32[3,2]
  %6 = eye() k=-1 : u8[2,3]
  %7 = arange() start=0.5 step=-2.5e-07 : f64[5]
  %8 = reshape(%0) shape=[s0,4] : f32[s0,4]
  %9 = const() value=-9223372036854775808 : i64[]
  %10 = slice(%6) start=[1,2] stop=[-1,-1] step=[-1,-2] : u8[2,2]
  %11 = concatenate(%5, %5) axis=0 : f32[6,2]
  %12 = max(%0) axis=none keepdims=true : f32[1,1]
  %13 = const() value=nan : f64[]
  %14 = const() value=-inf : f32[]
  %15 = const() value=true : bool[] weak
  %16 = astype(%0) dtype=u64 : u64[s0,4]
  return %2, %3, %4, %5, %6, %7, %8, %9
}
";

#[test]
fn printer_output_round_trips() {
    for text in [LAYERNORM, EVERY_ATTR] {
        let graph = parse(text).unwrap_or_else(|e| panic!("{e}"));
        verify(&graph).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(print(&graph), text);
    }
}

#[test]
fn dims_in_symbols_print_in_normal_form() {
    let text = "ember-ir 1\nfunc @f(%0: f32[s1+s0*2, 2*s0*s1], %1: f32[3*s0+s0-1, s1*s0+ 1]) -> (f32[s0+s0+s1,s0*s1*2]) {\n  return %0\n}\n";
    let graph = parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        print(&graph),
        "ember-ir 1\nfunc @f(%0: f32[2*s0+s1,2*s0*s1], %1: f32[4*s0-1,s0*s1+1]) -> (f32[2*s0+s1,2*s0*s1]) {\n  return %0\n}\n"
    );
    assert_eq!(graph.params[0].shape[0], graph.result_types()[0].shape[0]);
    // A dim written with a negative term (`s0-s1-1`) may join another into no size: an
    // error, never a panic.
    let text = "ember-ir 1\nfunc @f(%0: f32[s0-s1-1], %1: f32[s1-s0]) -> (f32[]) {\n  %2 = concatenate(%0, %1) axis=0 : f32[0]\n  %3 = reshape(%2) shape=[] : f32[]\n  return %3\n}\n";
    let err = parse(text)
        .and_then(|g| verify(&g))
        .expect_err("a negative size");
    assert!(err.to_string().contains("negative size"), "{err}");
    for bad in ["f32[s0-s0-1]", "f32[2*]", "f32[s0+]"] {
        let text = format!("ember-ir 1\nfunc @f(%0: {bad}) -> ({bad}) {{\n  return %0\n}}\n");
        assert!(parse(&text).is_err(), "{bad}");
    }
}

#[test]
fn comments_blank_lines_and_spacing_are_accepted() {
    let loose = "# a header comment\n\nember-ir 1\nfunc @f( %0 : f32[2] ) -> ( f32[2] ) {\n\n  %1 = neg( %0 ) : f32[ 2 ]  # negate\n  return %1\n}\n\n";
    let graph = parse(loose).unwrap();
    assert_eq!(
        print(&graph),
        "ember-ir 1\nfunc @f(%0: f32[2]) -> (f32[2]) {\n  %1 = neg(%0) : f32[2]\n  return %1\n}\n"
    );
}

fn error_of(text: &str) -> (usize, usize, String) {
    match parse(text) {
        Ok(_) => panic!("parsed: {text}"),
        Err(e) => match e.location {
            Location::Text { line, col } => (line, col, e.message),
            other => panic!("no position: {other:?}"),
        },
    }
}

#[test]
fn errors_name_line_and_column() {
    let (line, col, msg) = error_of("ember-ir 3\n");
    assert_eq!((line, col), (1, 10));
    assert!(
        msg.contains("version 3") && msg.contains("versions 1 and 2"),
        "{msg}"
    );

    let text =
        "ember-ir 1\nfunc @f(%0: f32[2]) -> (f32[2]) {\n  %1 = nope(%0) : f32[2]\n  return %1\n}\n";
    let (line, col, msg) = error_of(text);
    assert_eq!((line, col, msg.as_str()), (3, 8, "unknown op `nope`"));

    let text =
        "ember-ir 1\nfunc @f(%0: f32[2]) -> (f32[2]) {\n  %1 = neg(%2) : f32[2]\n  return %1\n}\n";
    let (line, col, msg) = error_of(text);
    assert_eq!(
        (line, col, msg.as_str()),
        (3, 12, "%2 is used before it is defined")
    );

    let text = "ember-ir 1\nfunc @f(%0: f32[2]) -> (f32[2]) {\n  %1 = sum(%0) keepdims=true : f32[1]\n  return %1\n}\n";
    let (line, col, msg) = error_of(text);
    assert_eq!((line, col), (3, 16));
    assert!(msg.contains("expected attribute `axis`"), "{msg}");

    let text =
        "ember-ir 1\nfunc @f(%0: f32[2]) -> (f64[2]) {\n  %1 = neg(%0) : f32[2]\n  return %1\n}\n";
    let (line, col, msg) = error_of(text);
    assert_eq!((line, col), (2, 25));
    assert!(msg.contains("differs"), "{msg}");

    let text = "ember-ir 1\nfunc @f(%0: f32[2]) -> (f32[2]) {\n  %1 = astype(%0) dtype=3 : f32[2]\n  return %1\n}\n";
    let (line, col, msg) = error_of(text);
    assert_eq!((line, col), (3, 25));
    assert!(msg.contains("must be a dtype"), "{msg}");
}

#[test]
fn verifier_names_op_and_value() {
    let text = "ember-ir 1\nfunc @f(%0: i32[2], %1: f32[3]) -> (f32[2]) {\n  %2 = add(%0, %1) : f32[2]\n  return %2\n}\n";
    let err = verify(&parse(text).unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "%2 = add: operands could not be broadcast together with shapes (2,) (3,)"
    );
    let text = "ember-ir 1\nfunc @f(%0: i32[2], %1: f32[2]) -> (f32[2]) {\n  %2 = add(%0, %1) : f32[2]\n  return %2\n}\n";
    let err = verify(&parse(text).unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "%2 = add: declared type f32[2] differs from the inferred type f64[2] (operands: i32[2], f32[2])"
    );
}

#[test]
fn verifier_accepts_a_weak_declaration_only_for_python_scalars() {
    let ok = "ember-ir 2\nfunc @f(%0: u8[]) -> (i64[] weak) {\n  %1 = astype(%0) dtype=i64 : i64[] weak\n  %2 = bitwise_not(%1) : i64[] weak\n  return %2\n}\n";
    verify(&parse(ok).unwrap()).unwrap_or_else(|e| panic!("{e}"));
    for refused in [
        "ember-ir 2\nfunc @f(%0: u8[2]) -> (i64[2] weak) {\n  %1 = astype(%0) dtype=i64 : i64[2] weak\n  return %1\n}\n",
        "ember-ir 2\nfunc @f(%0: u8[]) -> (i32[] weak) {\n  %1 = astype(%0) dtype=i32 : i32[] weak\n  return %1\n}\n",
        "ember-ir 2\nfunc @f(%0: u8[]) -> (f64[] weak) {\n  %1 = astype(%0) dtype=i64 : f64[] weak\n  return %1\n}\n",
    ] {
        assert!(verify(&parse(refused).unwrap()).is_err(), "{refused}");
    }
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn mutated_text_never_panics() {
    const ALPHABET: &[u8] = b"%[](),:=@-#.e0123456789 \nabfiruxw_-";
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut accepted = 0;
    for round in 0..20_000 {
        let base = if round % 2 == 0 {
            LAYERNORM
        } else {
            EVERY_ATTR
        };
        let mut bytes = base.as_bytes().to_vec();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(bytes.len());
            match rng.below(5) {
                0 => bytes.truncate(at),
                1 => {
                    bytes.remove(at);
                }
                2 => bytes.insert(at, ALPHABET[rng.below(ALPHABET.len())]),
                3 => bytes[at] = ALPHABET[rng.below(ALPHABET.len())],
                _ => bytes[at] = (rng.next() & 0xff) as u8,
            }
            if bytes.is_empty() {
                break;
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(graph) = parse(&text) {
            // Accepted text must also verify or fail cleanly, and print.
            let _ = verify(&graph);
            let _ = print(&graph);
            accepted += 1;
        }
    }
    // Some edits (inside numbers, names or comments) keep the text valid.
    assert!(accepted > 100, "only {accepted} mutants parsed");
}

/// The golden files' inputs and their `# run:` input arrays.
fn golden_seeds() -> Vec<(String, Vec<Vec<HostArray>>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut seeds = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "ir") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let input = text.split("\n# ----\n").next().unwrap().to_string();
        let runs = input
            .lines()
            .filter_map(|l| l.strip_prefix("# run:"))
            .filter_map(|r| {
                r.split(';')
                    .filter(|a| !a.trim().is_empty())
                    .map(HostArray::parse)
                    .collect::<Result<Vec<_>, _>>()
                    .ok()
            })
            .collect();
        seeds.push((input, runs));
    }
    seeds.sort_by(|a, b| a.0.cmp(&b.0));
    seeds
}

#[test]
fn mutated_golden_files_never_panic_anywhere() {
    const ALPHABET: &[u8] = b"%[](),:=-0123456789 \nabfiruxw_";
    let seeds = golden_seeds();
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut ran = 0;
    for round in 0..6000 {
        let (base, runs) = &seeds[round % seeds.len()];
        let mut bytes = base.as_bytes().to_vec();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(bytes.len());
            match rng.below(3) {
                0 => {
                    bytes.remove(at);
                }
                1 => bytes.insert(at, ALPHABET[rng.below(ALPHABET.len())]),
                _ => bytes[at] = ALPHABET[rng.below(ALPHABET.len())],
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        let Ok(graph) = parse(&text) else { continue };
        if verify(&graph).is_err() {
            continue;
        }
        let optimised = run_pipeline(&graph, false)
            .map(|(g, _)| g)
            .unwrap_or_else(|_| graph.clone());
        for inputs in runs {
            let _ = interp::run(&graph, inputs);
            let _ = interp::run(&optimised, inputs);
            ran += 1;
        }
    }
    assert!(ran > 500, "only {ran} mutants ran");
}
