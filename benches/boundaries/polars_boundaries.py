#!/usr/bin/env python3
"""Range boundaries the way the "Ordered key sharding in DynamoDB" article cuts them with polars.

The recipe: lowercase every title, NFKD-normalize it, sort; with n titles and N shards the shard
size is ceil(n / N); the boundaries are every shard-size-th sorted title (positions 0, size,
2 * size, ...) cut to their first 20 characters, the first replaced by "" (the smallest string).
Duplicate boundaries are kept, as in the article: nothing here separates equal prefixes.

The input is one title per line (no tabs, so it reads as a one-column tab-separated file, like
the article's read of the MusicBrainz dump). Prints the boundaries as a JSON array on stdout and
a one-line summary on stderr.

    python polars_boundaries.py --shards 21 titles.txt > polars_boundaries.json
"""

import argparse
import json
import math
import sys

import polars as pl


def boundaries(path, shards, prefix_chars):
    titles = pl.read_csv(
        path,
        has_header=False,
        separator="\t",
        quote_char=None,
        new_columns=["title"],
        schema_overrides={"title": pl.String},
    )["title"]
    normalized = titles.str.to_lowercase().str.normalize("NFKD").sort()
    shard_size = math.ceil(len(normalized) / shards)
    cut = normalized.gather_every(shard_size).str.slice(0, prefix_chars).to_list()
    cut[0] = ""
    return len(normalized), shard_size, cut


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path")
    parser.add_argument("--shards", type=int, default=21)
    parser.add_argument("--prefix-chars", type=int, default=20)
    args = parser.parse_args()
    count, shard_size, cut = boundaries(args.path, args.shards, args.prefix_chars)
    print(json.dumps(cut, ensure_ascii=False, indent=2))
    print(f"polars {pl.__version__}: {count} titles, shard size {shard_size}, {len(cut)} boundaries "
          f"({len(set(cut))} distinct)", file=sys.stderr)


if __name__ == "__main__":
    main()
