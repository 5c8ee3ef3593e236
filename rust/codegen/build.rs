//! Sets `EMBER_CODEGEN_BUILD_ID`: a hash of the sources of this crate and of `ember-core`
//! and of the workspace's lock file, so that files of the persistent compile cache written by
//! one build are never read by another.

use std::fs;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(read) = fs::read_dir(dir) else { return };
    for e in read.flatten() {
        let path = e.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let inputs = [
        here.join("src"),
        here.join("Cargo.toml"),
        here.join("../core/src"),
        here.join("../core/Cargo.toml"),
        here.join("../../Cargo.lock"),
    ];
    let mut all = Vec::new();
    for input in &inputs {
        println!("cargo:rerun-if-changed={}", input.display());
        if input.is_dir() {
            files(input, &mut all);
        } else {
            all.push(input.clone());
        }
    }
    all.sort();
    // FNV-1a over every file's path (relative) and contents: stable, dependency-free.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for path in &all {
        feed(
            path.strip_prefix(&here)
                .unwrap_or(path)
                .to_string_lossy()
                .as_bytes(),
        );
        feed(&fs::read(path).unwrap_or_default());
    }
    println!("cargo:rustc-env=EMBER_CODEGEN_BUILD_ID={hash:016x}");
}
