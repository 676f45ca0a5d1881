//! What spans cost: the same work with every dynashard span on (exported through
//! `tracing-opentelemetry` into the OpenTelemetry SDK's in-memory exporter, operations and
//! requests alike) against the same subscriber with dynashard's spans filtered out, in
//! alternating rounds. Target: at most 1.03x each.
//!
//! - the item codec: a key built, an item encoded and decoded (no span: the ratio shows the
//!   subscriber alone costs nothing there);
//! - a listing: 2,100 items of 200 B to 4 KB over 21 hash shards, read in order through
//!   DynamoDB Local (one operation span, a request span per shard page);
//! - single gets of one item, with the spans exported, and recorded by a bare `tracing` registry
//!   that exports nothing (dynashard's part alone);
//! - and, for scale, what one span like a get's costs the OpenTelemetry pipeline (batched export).
//!
//! The last line is for scripts:
//!
//! ```text
//! spans: codec_on_vs_off=<x> listing_on_vs_off=<x> get_on_vs_off=<x> get_recorded_vs_off=<x> spans_per_listing=<n> span_export_us=<us>
//! ```
//!
//! ```text
//! cargo bench --bench spans
//! ```

#[path = "support/ratio.rs"]
mod ratio;

use dynashard::{Db, Entity, Table};
use futures::TryStreamExt;
use opentelemetry::trace::TracerProvider;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use serde::{Deserialize, Serialize};
use std::future::IntoFuture;
use std::hint::black_box;
use tracing::Dispatch;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::Layer;

const ITEMS: usize = 2_100;
const BOUND: f64 = 1.03;

#[derive(Table)]
#[table(name = "SpansBench", pk = "pk", sk = "sk")]
#[gsi(GSI1(pk = "gsi1_pk", sk = "gsi1_sk"))]
struct Bench;

/// A track listed by title over 21 hash shards.
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Bench, pk = "track#{id}", sk = "track")]
#[gsi(GSI1(pk = "tracks", sk = "{title}"))]
#[shard(GSI1(hash = 21, by = title))]
struct Track {
    id: u32,
    title: String,
    notes: String,
}

/// A subscriber exporting to `provider`, with dynashard's spans on (down to a request's) or off.
fn subscriber(provider: &SdkTracerProvider, on: bool) -> Dispatch {
    let level = if on { tracing::Level::DEBUG } else { tracing::Level::ERROR };
    let filter = tracing_subscriber::filter::Targets::new().with_target("dynashard", level);
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("bench")).with_filter(filter);
    Dispatch::new(tracing_subscriber::registry().with(layer))
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
    let connection = runtime
        .block_on(dynashard_local::connect_to(
            dynashard_local::Backend::from_env_or(dynashard_local::Backend::Local).expect("a backend"),
        ))
        .expect("DynamoDB Local");
    let db = Db::new(connection.client().clone());
    runtime.block_on(db.create_table::<Bench>()).expect("create table");
    let tracks: Vec<Track> = (0..ITEMS as u32)
        .map(|id| Track {
            id,
            title: format!("title {:05}", id * 7919 % 10_007),
            notes: "n".repeat(200 + (id as usize * 37) % 3_800),
        })
        .collect();
    runtime.block_on(db.batch_put(&tracks).into_future()).expect("the tracks are written");

    // Batched, as a service exports: a span ends into a queue a thread of the SDK drains.
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder().with_batch_exporter(exporter.clone()).build();
    let (on, off) = (subscriber(&provider, true), subscriber(&provider, false));
    // dynashard's spans with a subscriber that records them and exports nothing: its own cost.
    let registry = tracing_subscriber::filter::Targets::new().with_target("dynashard", tracing::Level::DEBUG);
    let registry = Dispatch::new(tracing_subscriber::registry().with(registry));
    let with =
        |dispatch: &Dispatch, work: &mut dyn FnMut()| tracing::dispatcher::with_default(dispatch, work);

    let codec = |track: &Track| {
        black_box(Track::key(track.id).expect("a key"));
        let item = dynashard::item::to_item(track).expect("encodes");
        black_box(dynashard::item::from_item::<Track>(item).expect("decodes"));
    };
    let codec_ratio = ratio::compare(
        31,
        2_000,
        || with(&on, &mut || codec(&tracks[7])),
        || with(&off, &mut || codec(&tracks[7])),
    );
    ratio::report("item codec, spans on vs off", &codec_ratio, BOUND);

    let list = || {
        let listed: Vec<Track> =
            runtime.block_on(db.stream(Track::query_gsi1()).try_collect()).expect("a listing");
        assert_eq!(listed.len(), ITEMS);
    };
    provider.force_flush().expect("the spans are exported");
    exporter.reset();
    with(&on, &mut || list());
    provider.force_flush().expect("the spans are exported");
    let spans_per_listing = exporter.get_finished_spans().map(|spans| spans.len()).unwrap_or_default();
    let listing_ratio = ratio::compare(
        31,
        1,
        || {
            exporter.reset();
            with(&on, &mut || list())
        },
        || {
            exporter.reset();
            with(&off, &mut || list())
        },
    );
    ratio::report("listing, spans on vs off", &listing_ratio, BOUND);
    provider.force_flush().expect("the spans are exported");

    let get = || {
        let found = runtime.block_on(db.get(Track::key(7).expect("a key")).into_future()).expect("a get");
        black_box(found.expect("the track"));
    };
    let get_ratio = ratio::compare(41, 100, || with(&on, &mut || get()), || with(&off, &mut || get()));
    let own = ratio::compare(41, 100, || with(&registry, &mut || get()), || with(&off, &mut || get()));
    ratio::report("get, spans recorded but not exported vs off", &own, BOUND);
    ratio::report("get, spans on vs off", &get_ratio, BOUND);

    // One span like a get's, alone: what the OpenTelemetry pipeline takes for each.
    let one_span = || {
        let span = tracing::info_span!(target: "dynashard", "dynashard.operation", otel.name = "get Track",
            db.system.name = "aws.dynamodb", db.operation.name = "GetItem", aws.dynamodb.table_names = "SpansBench",
            dynashard.entity = "Track", dynashard.read_units = 0.5);
        span.in_scope(|| black_box(1));
    };
    let span_cost =
        ratio::compare(21, 2_000, || with(&on, &mut || one_span()), || with(&off, &mut || one_span()));
    let span_us = span_cost.candidate_median.saturating_sub(span_cost.baseline_median).as_secs_f64() * 1e6;
    println!("one span exported: {span_us:.1} µs");
    println!(
        "spans: codec_on_vs_off={:.3} listing_on_vs_off={:.3} get_on_vs_off={:.3} get_recorded_vs_off={:.3} \
         spans_per_listing={spans_per_listing} span_export_us={span_us:.1}",
        codec_ratio.value(),
        listing_ratio.value(),
        get_ratio.value(),
        own.value()
    );
}
