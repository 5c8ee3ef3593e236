//! Golden files: `tests/golden/*.ir` hold IR input (with `# run:` lines giving input arrays)
//! and, after the `# ----` separator, the expected outputs as comments: the verifier's verdict,
//! each pass's output, and each run's results from the reference interpreter (which must agree
//! on the input graph and the optimised graph). `EMBER_BLESS=1 cargo test -p ember-core`
//! rewrites the expectations.

use std::fmt::Write;
use std::path::Path;

use ember_core::interp::{self, HostArray};
use ember_core::ir::{parse, print};
use ember_core::passes::run_pipeline;
use ember_core::verify;

const SEPARATOR: &str = "# ----";

fn commented(out: &mut String, text: &str) {
    for line in text.lines() {
        writeln!(out, "# {line}").unwrap();
    }
}

fn run_line(graph: &ember_core::ir::Graph, inputs: &str) -> String {
    let arrays: Result<Vec<HostArray>, _> = inputs
        .split(';')
        .filter(|a| !a.trim().is_empty())
        .map(HostArray::parse)
        .collect();
    let arrays = match arrays {
        Ok(a) => a,
        Err(e) => return format!("bad input: {e}"),
    };
    match interp::run(graph, &arrays) {
        Ok(results) => results
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join("; "),
        Err(e) => format!("error: {e}"),
    }
}

/// The expectations for one file's input part.
fn expectations(input: &str) -> Result<String, String> {
    let mut out = String::new();
    let graph = match parse(input) {
        Ok(g) => g,
        Err(e) => {
            writeln!(out, "# parse error: {e}").unwrap();
            return Ok(out);
        }
    };
    let printed = print(&graph);
    let reparsed = parse(&printed).map_err(|e| format!("printer output does not parse: {e}"))?;
    if print(&reparsed) != printed {
        return Err("print(parse(print(g))) differs from print(g)".into());
    }
    if let Err(e) = verify(&graph) {
        writeln!(out, "# verify error: {e}").unwrap();
        return Ok(out);
    }
    writeln!(out, "# verify: ok").unwrap();
    let (optimised, stages) = match run_pipeline(&graph, true) {
        Ok(r) => r,
        Err(e) => {
            writeln!(out, "# pipeline error: {e}").unwrap();
            return Ok(out);
        }
    };
    let mut previous = printed;
    for stage in &stages {
        if stage.text == previous {
            writeln!(out, "# == {}: unchanged", stage.pass).unwrap();
        } else {
            writeln!(out, "# == {}", stage.pass).unwrap();
            commented(&mut out, &stage.text);
        }
        previous = stage.text.clone();
    }
    for line in input.lines() {
        let Some(inputs) = line.strip_prefix("# run:") else {
            continue;
        };
        let inputs = inputs.trim();
        let before = run_line(&graph, inputs);
        let after = run_line(&optimised, inputs);
        if before != after {
            return Err(format!(
                "run {inputs}: the optimised graph gives {after}, the input graph {before}"
            ));
        }
        writeln!(out, "# run: {inputs} -> {before}").unwrap();
    }
    Ok(out)
}

#[test]
fn golden_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let bless = std::env::var_os("EMBER_BLESS").is_some_and(|v| v == "1");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "ir"));
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let (input, expected) = match text.find(&format!("\n{SEPARATOR}\n")) {
            Some(at) => (&text[..at + 1], &text[at + SEPARATOR.len() + 2..]),
            None => (text.as_str(), ""),
        };
        let name = path.file_name().unwrap().to_string_lossy();
        match expectations(input) {
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok(actual) if actual != expected => {
                if bless {
                    std::fs::write(path, format!("{input}{SEPARATOR}\n{actual}")).unwrap();
                } else {
                    failures.push(format!("{name}: expectations differ (EMBER_BLESS=1 to update)\n--- expected\n{expected}--- actual\n{actual}"));
                }
            }
            Ok(_) => {}
        }
    }
    assert!(files.len() >= 30, "only {} golden files", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
