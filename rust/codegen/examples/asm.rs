//! Prints the Cranelift IR and machine code of the kernels an ember IR file compiles to.
//!
//! `cargo run --release -p ember-codegen --example asm -- graph.ir`

use std::io::Read;

fn main() {
    let path = std::env::args().nth(1);
    let mut text = String::new();
    match &path {
        Some(p) => text = std::fs::read_to_string(p).expect("readable IR file"),
        None => {
            std::io::stdin()
                .read_to_string(&mut text)
                .expect("IR text on stdin");
        }
    }
    let graph = ember_core::ir::parse(&text).expect("valid ember IR");
    let (graph, _) = ember_core::passes::run_pipeline(&graph, false).expect("optimisable graph");
    for listing in ember_codegen::disassemble(&graph).expect("compilable graph") {
        println!("{listing}");
    }
}
