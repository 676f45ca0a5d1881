//! The command line: every command, flag and its help text.

use crate::limits::MAX_SHARDS;
use crate::validate;
use clap::{Args, Parser, Subcommand, ValueEnum};
use dynashard::shard::Normalization;
use std::path::PathBuf;

/// Tools for sharded DynamoDB indexes: cut range boundaries from your data, route keys to
/// shards, plan shard counts from throughput, inspect shard balance, run a local DynamoDB.
#[derive(Debug, Parser)]
#[command(name = "dynashard", version, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Cut range-shard boundaries from sample keys: prints the JSON array that
    /// `#[shard(range = "...")]` reads, and a balance report on stderr.
    Boundaries(BoundariesArgs),
    /// Print the shard id of each key under range boundaries or hash sharding, one per line.
    Route(RouteArgs),
    /// Work out how many shards a workload needs from DynamoDB's per-partition limits (at most
    /// 10,000 shards per index).
    Plan(PlanArgs),
    /// Count the items in each shard (and time bucket) of a table or index, and show how even
    /// they are.
    Inspect(InspectArgs),
    /// Run a DynamoDB in the foreground for development, until Ctrl-C: the embedded one, or
    /// DynamoDB Local with --backend local.
    Local(LocalArgs),
    /// Show the state and progress of every resharding a shard metadata table records: phase,
    /// segments done, items read and written, workers, rate, time left, the catch-up and the
    /// verification.
    Reshard(ReshardArgs),
    /// Show a heat map of partition keys against time, from a map a program recorded (the JSON
    /// of a dynashard::heat::HeatMap) or from CloudWatch Contributor Insights reports; write it
    /// as SVG or HTML.
    Heat(HeatArgs),
}

/// Whether the terminal view is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorArg {
    /// When standard output is a terminal.
    #[default]
    Auto,
    /// Always (24-bit ANSI colours).
    Always,
    /// Never.
    Never,
}

/// `dynashard heat`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  dynashard heat heat.json --svg heat.svg\n  \
    dynashard heat --table Events --consumed consumed.json --throttled throttled.json --html heat.html\n\n\
    The reports are `aws cloudwatch get-insight-rule-report --output json` of the table's\n\
    DynamoDBContributorInsights-PKC-... and -PKT-... rules, with --period 60.")]
pub struct HeatArgs {
    /// A heat map's JSON, as a program wrote it (serde_json of dynashard::heat::HeatMap).
    #[arg(value_name = "MAP")]
    pub map: Option<PathBuf>,
    /// A Contributor Insights report of the keys that consumed the most (a ...-PKC-... rule's
    /// GetInsightRuleReport, as JSON).
    #[arg(long, value_name = "FILE")]
    pub consumed: Option<PathBuf>,
    /// A Contributor Insights report of the keys throttled the most (a ...-PKT-... rule's).
    #[arg(long, value_name = "FILE")]
    pub throttled: Option<PathBuf>,
    /// The table the reports are of.
    #[arg(long, value_name = "TABLE")]
    pub table: Option<String>,
    /// The index the reports are of, when they are an index's.
    #[arg(long, value_name = "INDEX")]
    pub index: Option<String>,
    /// The reports' period in seconds (their --period).
    #[arg(long, default_value_t = 60, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub period: u64,
    /// Write the map as an SVG picture here.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Write the map as an HTML page here, with the keys over their partition's limit.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// The terminal view's width in columns (default 120).
    #[arg(long, value_name = "COLUMNS", value_parser = clap::value_parser!(usize))]
    pub width: Option<usize>,
    /// Colour the terminal view.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
}

/// How routing values are normalized before they are compared with boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum NormalizeArg {
    /// NFKD of the lowercased value (Python: unicodedata.normalize('NFKD', s.lower())).
    #[default]
    NfkdLower,
    /// The lowercased value.
    Lower,
    /// The value as it is.
    None,
}

impl From<NormalizeArg> for Normalization {
    fn from(value: NormalizeArg) -> Self {
        match value {
            NormalizeArg::NfkdLower => Normalization::NfkdLower,
            NormalizeArg::Lower => Normalization::Lower,
            NormalizeArg::None => Normalization::None,
        }
    }
}

/// Where DynamoDB is.
#[derive(Debug, Clone, Args)]
pub struct ConnectionArgs {
    /// DynamoDB endpoint: an http:// or https:// URL with a host, e.g. http://127.0.0.1:8000 for
    /// DynamoDB Local. Loopback endpoints get a fixed region and dummy credentials; without it,
    /// the standard AWS configuration (environment, profile, SSO, instance role) is used.
    #[arg(long, env = "AWS_ENDPOINT_URL_DYNAMODB", value_name = "URL", value_parser = validate::endpoint)]
    pub endpoint: Option<String>,
    /// Parallel scan segments (Scan's TotalSegments).
    #[arg(long, default_value_t = 8, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub segments: u32,
}

/// `dynashard boundaries`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  dynashard boundaries --shards 21 titles.txt > boundaries.json\n  \
    dynashard boundaries --shards 21 --csv-column title releases.csv > boundaries.json\n  \
    dynashard boundaries --shards 21 --from-table Music --attribute title > boundaries.json")]
pub struct BoundariesArgs {
    /// Number of shards (boundaries) to cut: 1 to 10,000, and at most the number of distinct keys.
    #[arg(short = 'n', long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_SHARDS)))]
    pub shards: u32,
    /// Normalization applied to every key before sorting; must match the shard declaration.
    #[arg(long, value_enum, default_value_t = NormalizeArg::NfkdLower, value_name = "FORM")]
    pub normalize: NormalizeArg,
    /// Read keys from this column of CSV input with a header row.
    #[arg(long, value_name = "NAME", conflicts_with = "jsonl_field")]
    pub csv_column: Option<String>,
    /// Read keys from this string field of JSON Lines input (one object per line).
    #[arg(long, value_name = "NAME")]
    pub jsonl_field: Option<String>,
    /// Replace invalid UTF-8 with U+FFFD instead of failing.
    #[arg(long)]
    pub lossy: bool,
    /// How many of the most frequent keys to report (keys longer than 80 characters are shown
    /// cut, with their length in bytes).
    #[arg(long, default_value_t = 10, value_name = "K")]
    pub top: usize,
    /// Also report the size and boundary of every shard.
    #[arg(short, long)]
    pub verbose: bool,
    /// Read keys from this DynamoDB table with a parallel scan instead of files (3 to 255
    /// characters of a-z A-Z 0-9 _ - .).
    #[arg(long, value_name = "TABLE", requires = "attribute", value_parser = validate::table_name,
          conflicts_with_all = ["files", "csv_column", "jsonl_field", "lossy"])]
    pub from_table: Option<String>,
    /// The attribute holding the keys (with --from-table); items without it are skipped.
    #[arg(long, value_name = "NAME", requires = "from_table")]
    pub attribute: Option<String>,
    /// Scan this index of the table instead of the table (with --from-table; 3 to 255
    /// characters of a-z A-Z 0-9 _ - .).
    #[arg(long, value_name = "NAME", requires = "from_table", value_parser = validate::index_name)]
    pub index: Option<String>,
    /// Where DynamoDB is (with --from-table).
    #[command(flatten)]
    pub connection: ConnectionArgs,
    /// Files (or pipes) with keys; none, or -, reads stdin.
    #[arg(value_name = "FILE", value_parser = validate::key_file())]
    pub files: Vec<PathBuf>,
}

/// `dynashard route`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("routing").required(true).args(["boundaries", "hash"]))]
pub struct RouteArgs {
    /// Range routing: a JSON file with an array of boundaries ("" first, strictly increasing, at
    /// most 10,000).
    #[arg(long, value_name = "FILE", value_parser = validate::boundaries_file())]
    pub boundaries: Option<PathBuf>,
    /// Hash routing over N shards (1 to 10,000): SHA-256 of the key's UTF-8, big-endian, modulo N.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_SHARDS)))]
    pub hash: Option<u32>,
    /// Normalization for range routing; must match the shard declaration.
    #[arg(long, value_enum, default_value_t = NormalizeArg::NfkdLower, value_name = "FORM", conflicts_with = "hash")]
    pub normalize: NormalizeArg,
    /// Replace invalid UTF-8 on stdin with U+FFFD instead of failing.
    #[arg(long)]
    pub lossy: bool,
    /// Keys to route; none reads one key per line from stdin.
    #[arg(value_name = "KEY")]
    pub keys: Vec<String>,
}

/// `dynashard plan`.
#[derive(Debug, Args)]
#[command(after_help = "Example (500-byte items, 10,000 queries/s of 100 items, 10,000 writes/s):\n  \
    dynashard plan --item-bytes 500 --reads-per-s 10000 --items-per-read 100 --writes-per-s 10000")]
pub struct PlanArgs {
    /// Average item size in bytes, as stored in the index (at most 400 KB).
    #[arg(long, value_name = "B", value_parser = clap::value_parser!(u64).range(1..=409_600))]
    pub item_bytes: u64,
    /// Read requests (queries) per second at peak.
    #[arg(long, value_name = "R")]
    pub reads_per_s: u64,
    /// Items each read request returns.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub items_per_read: u64,
    /// Items written per second at peak.
    #[arg(long, value_name = "W")]
    pub writes_per_s: u64,
    /// Reads are strongly consistent (twice the read units of eventually consistent reads).
    #[arg(long)]
    pub consistent_reads: bool,
    /// Spare capacity on top of the load, in percent, for the recommended shard count.
    #[arg(long, default_value_t = 20, value_name = "PERCENT")]
    pub headroom: u32,
}

/// `dynashard inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The table to scan (3 to 255 characters of a-z A-Z 0-9 _ - .).
    #[arg(long, value_name = "TABLE", value_parser = validate::table_name)]
    pub table: String,
    /// Scan this index instead of the table; shards are its partition key values (3 to 255
    /// characters of a-z A-Z 0-9 _ - .).
    #[arg(long, value_name = "NAME", value_parser = validate::index_name)]
    pub index: Option<String>,
    /// How many sharded keys, hot shards, hot time buckets and largest unsharded partitions to
    /// show.
    #[arg(long, default_value_t = 5, value_name = "K")]
    pub top: usize,
    /// The index's declared shard count (its `#[shard(..., hash = N)]`, or its range shards):
    /// every sharded key then has exactly N shards, empty ones included, and items under ids past
    /// it are counted apart. Without it, a key has the shards its data shows, up to the largest
    /// id seen.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub shards: Option<u32>,
    /// The shard metadata table of a dynamically sharded index: each logical key then has the
    /// shards its recorded count says may hold items (a key with no record falls back to
    /// `--shards`, or to what its data shows). Needs `--index`.
    #[arg(long, value_name = "TABLE", value_parser = validate::table_name, requires = "index")]
    pub metadata_table: Option<String>,
    /// Where DynamoDB is.
    #[command(flatten)]
    pub connection: ConnectionArgs,
}

/// `dynashard reshard`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  dynashard reshard --metadata-table ShardMetadata\n  \
    dynashard reshard --metadata-table ShardMetadata --watch 2")]
pub struct ReshardArgs {
    /// The shard metadata table the reshardings are recorded in.
    #[arg(long, value_name = "TABLE", value_parser = validate::table_name)]
    pub metadata_table: String,
    /// Redraw every N seconds (progress bars on a terminal) until every resharding is finished.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=3_600))]
    pub watch: Option<u64>,
    /// DynamoDB endpoint: an http:// or https:// URL with a host; without it, the standard AWS
    /// configuration is used.
    #[arg(long, env = "AWS_ENDPOINT_URL_DYNAMODB", value_name = "URL", value_parser = validate::endpoint)]
    pub endpoint: Option<String>,
}

/// The DynamoDB `dynashard local` serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// The embedded DynamoDB.
    Embedded,
    /// DynamoDB Local.
    Local,
}

/// `dynashard local`.
#[derive(Debug, Args)]
pub struct LocalArgs {
    /// Which DynamoDB to serve: the embedded one (in this process, nothing to install) or
    /// DynamoDB Local (Java 17 and npm, installed on first use).
    #[arg(long, env = "DYNASHARD_BACKEND", value_enum, default_value_t = BackendArg::Embedded, ignore_case = true)]
    pub backend: BackendArg,
    /// How often the embedded DynamoDB deletes the items whose time to live has passed, in
    /// seconds (default 10; 0: never). DynamoDB Local never deletes them.
    #[arg(long, value_name = "SECONDS")]
    pub ttl_sweep: Option<u64>,
    /// Serve on this loopback port (DynamoDB Local's is forwarded to it); default: a free one.
    #[arg(long, value_name = "P")]
    pub port: Option<u16>,
    /// Serve through the partition-limit emulator: 1,000 write and 3,000 read units per second
    /// per partition key value of every table and index (times --scale), throttled as DynamoDB
    /// throttles, with ThrottlingReasons.
    #[arg(long)]
    pub partition_limits: bool,
    /// Scale every limit by this factor (e.g. 0.1 for a tenth of DynamoDB's), so a small
    /// machine reaches them.
    #[arg(long, value_name = "F", requires = "partition_limits", value_parser = validate::scale)]
    pub scale: Option<f64>,
    /// Write units per second per partition, before scaling (default 1000).
    #[arg(long, value_name = "N", requires = "partition_limits", value_parser = validate::units)]
    pub partition_write_units: Option<f64>,
    /// Read units per second per partition, before scaling (default 3000).
    #[arg(long, value_name = "N", requires = "partition_limits", value_parser = validate::units)]
    pub partition_read_units: Option<f64>,
    /// A limit of a whole table or index, before scaling: TABLE[/INDEX]=KIND:write=N[,read=N],
    /// KIND one of provisioned, on-demand-max, account. Repeatable.
    #[arg(long = "table-limit", value_name = "LIMIT", requires = "partition_limits", value_parser = validate::table_limit)]
    pub table_limits: Vec<validate::TableLimitArg>,
}
