//! `dynashard route`: the shard id of each key, by range boundaries or by hash, through the
//! library's own router.

use crate::args::RouteArgs;
use crate::error::CliError;
use crate::input::for_each_line;
use crate::limits::MAX_SHARDS;
use dynashard::shard::{Boundaries, Router};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

/// Reads and checks a boundaries file: valid boundaries, at most [`MAX_SHARDS`] of them.
pub fn load_boundaries(path: &Path) -> Result<Boundaries, CliError> {
    let json = std::fs::read_to_string(path).map_err(|source| {
        CliError::Usage(format!("cannot read the boundaries file {}: {source}", path.display()))
    })?;
    let boundaries = Boundaries::from_json(&json)
        .map_err(|source| CliError::Boundaries { path: path.to_owned(), source })?;
    let count = boundaries.values().len();
    if count > MAX_SHARDS as usize {
        return Err(CliError::TooManyBoundaries { path: path.to_owned(), boundaries: count });
    }
    Ok(boundaries)
}

/// Runs `dynashard route`.
pub fn run(args: RouteArgs) -> Result<(), CliError> {
    let router = match (&args.boundaries, args.hash) {
        (Some(path), _) => Router::Range(Arc::new(load_boundaries(path)?), args.normalize.into()),
        (None, Some(shards)) => Router::Hash(shards),
        (None, None) => return Err(CliError::Usage("give --boundaries FILE or --hash N".to_owned())),
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut print = |key: &str| {
        writeln!(out, "{}", router.shard(key)).map_err(|error| CliError::io("writing shard ids", error))
    };
    if args.keys.is_empty() {
        // Every line gets a shard id, empty ones included, so output lines match input lines.
        let stdin = std::io::stdin().lock();
        for_each_line(stdin, "<stdin>", args.lossy, |_| {}, |key, _| print(key))?;
    } else {
        for key in &args.keys {
            print(key)?;
        }
    }
    out.flush().map_err(|error| CliError::io("writing shard ids", error))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dynashard::shard::Normalization;

    #[test]
    fn routes_like_the_library() {
        let boundaries = Boundaries::new(vec!["".into(), "h".into(), "p".into()]).expect("valid");
        let range = Router::Range(Arc::new(boundaries), Normalization::NfkdLower);
        assert_eq!([range.shard("Apple"), range.shard("Heavy"), range.shard("Zed")], [0, 1, 2]);
        let hash = Router::Hash(21);
        assert_eq!([hash.shard("Leaving Home"), hash.shard("Heavy Migration")], [6, 8]);
    }
}
