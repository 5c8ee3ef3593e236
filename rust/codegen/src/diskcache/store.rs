//! One file per compiled function: `<dir>/code/<sha256 of salt and key>.bin` holding
//! `MAGIC`, the payload's length (u64, little-endian), the SHA-256 of the file's name and the
//! payload, then the payload (Cranelift's serialized code). A file is used only when all
//! three check; binding the name into the digest makes a file copied under another key fail.
//!
//! Writers write a private temporary file in the same directory and rename it over the
//! final name, so readers in any process see a whole old file, a whole new one or none.
//! After a write takes this process's estimate of the directory over its bound, the least
//! recently used files (modification time, refreshed on every hit) are removed until it
//! holds three quarters of the bound. The bound covers every file the cache directory holds:
//! these machine-code files and the stored entries the embedder writes under `entries/`
//! ([`CACHE_FILES`]), which it reports through [`super::account`].

use super::{Settings, COUNTERS};
use cranelift_codegen::incremental_cache::CacheKvStore;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::cell::Cell;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

const MAGIC: &[u8; 8] = b"EMBERCC1";
const HEADER: usize = 8 + 8 + 32;
/// Temporary files older than this were left by a process that died while writing.
const STALE_TEMP: Duration = Duration::from_secs(3600);

static TEMP_SERIAL: AtomicU64 = AtomicU64::new(0);

/// The folders of the cache directory and the extension of the files each holds, all under
/// one bound: machine code (here) and the embedder's stored entries.
const CACHE_FILES: [(&str, &str); 2] = [("code", "bin"), ("entries", "entry")];

/// A [`CacheKvStore`] over the configured directory; every I/O error is a miss or a skipped
/// write, never a failure of the compile.
pub(crate) struct FileStore {
    settings: Arc<Settings>,
    /// Whether the last `get` handed out a verified file, to tell Cranelift's own rejections
    /// (another version's format) from plain misses.
    served: Cell<bool>,
}

impl FileStore {
    pub(crate) fn new(settings: Arc<Settings>) -> FileStore {
        FileStore {
            settings,
            served: Cell::new(false),
        }
    }

    /// Whether the last lookup found a file whose checks passed.
    pub(crate) fn served(&self) -> bool {
        self.served.get()
    }

    fn code_dir(&self) -> PathBuf {
        self.settings.dir.join("code")
    }

    fn name(&self, key: &[u8]) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update((self.settings.salt.len() as u64).to_le_bytes());
        h.update(&self.settings.salt);
        h.update(key);
        h.finalize().into()
    }

    fn path(&self, name: &[u8; 32]) -> PathBuf {
        let hex: String = name.iter().map(|b| format!("{b:02x}")).collect();
        self.code_dir().join(format!("{hex}.bin"))
    }

    fn write_file(&self, name: &[u8; 32], payload: &[u8]) -> std::io::Result<u64> {
        let dir = self.code_dir();
        fs::create_dir_all(&dir)?;
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let temp = dir.join(format!(
            ".tmp.{}.{nanos}.{}",
            std::process::id(),
            TEMP_SERIAL.fetch_add(1, Ordering::Relaxed)
        ));
        let result = (|| {
            let mut f = fs::File::create(&temp)?;
            f.write_all(&encode(name, payload))?;
            drop(f);
            fs::rename(&temp, self.path(name))
        })();
        if result.is_err() {
            let _ = fs::remove_file(&temp);
        }
        result.map(|()| (HEADER + payload.len()) as u64)
    }
}

/// Adds `written` bytes to the estimate of the directory of `settings` and evicts when it
/// passes the bound.
pub(crate) fn account(settings: &Settings, written: u64) {
    let mut estimate = settings.estimate.lock().unwrap_or_else(|e| e.into_inner());
    let total = match *estimate {
        Some(t) => t + written,
        None => cache_files(&settings.dir).iter().map(|e| e.size).sum(),
    };
    *estimate = Some(if total > settings.max_bytes {
        evict(&settings.dir, settings.max_bytes / 4 * 3)
    } else {
        total
    });
}

impl CacheKvStore for FileStore {
    fn get(&self, key: &[u8]) -> Option<Cow<'_, [u8]>> {
        self.served.set(false);
        let name = self.name(key);
        let path = self.path(&name);
        let bytes = fs::read(&path).ok()?;
        match decode(&name, &bytes) {
            Some(payload) => {
                // The hit refreshes the file's age for least-recently-used eviction.
                if let Ok(f) = fs::File::options().append(true).open(&path) {
                    let _ = f.set_modified(SystemTime::now());
                }
                self.served.set(true);
                Some(Cow::Owned(payload.to_vec()))
            }
            None => {
                COUNTERS.rejected.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    fn insert(&mut self, key: &[u8], val: Vec<u8>) {
        let name = self.name(key);
        if let Ok(written) = self.write_file(&name, &val) {
            COUNTERS.writes.fetch_add(1, Ordering::Relaxed);
            account(&self.settings, written);
        }
    }
}

fn encode(name: &[u8; 32], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&digest(name, payload));
    out.extend_from_slice(payload);
    out
}

/// The payload of a file's bytes when magic, length and digest all check.
fn decode<'a>(name: &[u8; 32], bytes: &'a [u8]) -> Option<&'a [u8]> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return None;
    }
    let len = u64::from_le_bytes(bytes[8..16].try_into().ok()?);
    let payload = &bytes[HEADER..];
    (len == payload.len() as u64 && bytes[16..HEADER] == digest(name, payload)).then_some(payload)
}

fn digest(name: &[u8; 32], payload: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(name);
    h.update(payload);
    h.finalize().into()
}

struct Entry {
    path: PathBuf,
    size: u64,
    modified: SystemTime,
}

/// The cache files under `root` ([`CACHE_FILES`]); temporary files abandoned long ago are
/// removed on the way.
fn cache_files(root: &Path) -> Vec<Entry> {
    let mut out = Vec::new();
    for (folder, extension) in CACHE_FILES {
        files_in(&root.join(folder), extension, &mut out);
    }
    out
}

fn files_in(dir: &Path, extension: &str, out: &mut Vec<Entry>) {
    let Ok(read) = fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for e in read.flatten() {
        let path = e.path();
        let Ok(meta) = e.metadata() else { continue };
        let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        let is_temp = e.file_name().to_string_lossy().starts_with(".tmp");
        if is_temp {
            if now
                .duration_since(modified)
                .is_ok_and(|age| age > STALE_TEMP)
            {
                let _ = fs::remove_file(&path);
            }
        } else if meta.is_file() && path.extension().is_some_and(|x| x == extension) {
            out.push(Entry {
                path,
                size: meta.len(),
                modified,
            });
        }
    }
}

/// Removes the least recently used cache files under `root` until at most `keep` bytes
/// remain; returns the bytes left. Files another process removed first count as removed.
fn evict(root: &Path, keep: u64) -> u64 {
    let mut all = cache_files(root);
    all.sort_by_key(|e| std::cmp::Reverse(e.modified));
    let mut total = 0u64;
    for e in all {
        if total + e.size <= keep {
            total += e.size;
        } else if fs::remove_file(&e.path).is_ok() {
            COUNTERS.evictions.fetch_add(1, Ordering::Relaxed);
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_accepts_only_what_encode_wrote_for_that_name() {
        let name = [7u8; 32];
        let file = encode(&name, b"machine code");
        assert_eq!(decode(&name, &file), Some(&b"machine code"[..]));
        assert_eq!(decode(&[8u8; 32], &file), None, "another key");
        assert_eq!(decode(&name, &file[..file.len() - 1]), None, "truncated");
        assert_eq!(decode(&name, &file[..10]), None, "shorter than a header");
        for i in 0..file.len() {
            let mut bad = file.clone();
            bad[i] ^= 0x10;
            assert_eq!(decode(&name, &bad), None, "byte {i} flipped");
        }
    }
}
