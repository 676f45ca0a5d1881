//! `dynashard route`: the shard id of each key, by range boundaries or by hash, through the
//! library's own layout.

use crate::args::RouteArgs;
use crate::error::CliError;
use crate::input::for_each_line;
use crate::limits::MAX_SHARDS;
use dynashard::shard::{Boundaries, Layout};
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
    let layout = match (&args.boundaries, args.hash) {
        (Some(path), _) => Layout::Range {
            boundaries: Arc::new(load_boundaries(path)?).into(),
            normalization: args.normalize.into(),
            overflow: 1,
        },
        (None, Some(shards)) => Layout::hash(shards),
        (None, None) => return Err(CliError::Usage("give --boundaries FILE or --hash N".to_owned())),
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut print = |key: &str| {
        let shard = layout
            .route(key)
            .ok_or_else(|| CliError::Usage("the layout does not route by value".to_owned()))?;
        writeln!(out, "{shard}").map_err(|error| CliError::io("writing shard ids", error))
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
        let range = Layout::Range {
            boundaries: Arc::new(boundaries).into(),
            normalization: Normalization::NfkdLower,
            overflow: 1,
        };
        assert_eq!(
            [range.route("Apple"), range.route("Heavy"), range.route("Zed")],
            [Some(0), Some(1), Some(2)]
        );
        let hash = Layout::hash(21);
        assert_eq!([hash.route("Leaving Home"), hash.route("Heavy Migration")], [Some(6), Some(8)]);
    }
}
