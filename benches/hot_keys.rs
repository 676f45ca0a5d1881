//! Hot keys found by a `Db` against what the partition-limit emulator counted itself.
//!
//! 20,000 puts of items of 200 B to 4 KB (1 to 4 write units), their users drawn from a Zipf law
//! of exponent 1.1 over 10,000 users, 32 at a time through the emulator (each partition limited
//! to 150 write units a second, so the hottest users are throttled too). Then:
//!
//! - the ten users `db.hot_keys(10)` reports by units, against the ten the emulator charged the
//!   most: the recall (target at least 0.9), and the keys held and the memory they take (target
//!   under 1 MB);
//! - the ten it reports by throttles, against the emulator's throttled writes;
//! - the time of a put with tracking on against one with tracking off, in alternating rounds
//!   straight to DynamoDB Local (the cost on the write path).
//!
//! The last line is for scripts:
//!
//! ```text
//! hot_keys: keys=10000 s=1.1 puts=20000 recall_top10=<r> throttled_recall_top10=<r> held_keys=<n> memory_bytes=<b> put_time_on_vs_off=<x>
//! ```
//!
//! ```text
//! cargo bench --bench hot_keys
//! ```

#[path = "support/ratio.rs"]
mod ratio;

use aws_sdk_dynamodb::config::retry::RetryConfig;
use dynashard::{Db, Entity, Table};
use dynashard_local::emulator::{Emulator, PartitionLimits};
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::future::IntoFuture;

const USERS: usize = 10_000;
const EXPONENT: f64 = 1.1;
const PUTS: usize = 20_000;

#[derive(Table)]
#[table(name = "HotKeysBench", pk = "pk", sk = "sk")]
struct Bench;

/// One event of a user.
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Bench, pk = "user#{user}", sk = "event#{n}")]
struct Event {
    user: u32,
    n: u64,
    body: String,
}

/// A fixed generator: 64-bit LCG, the high bits as a fraction.
struct Lcg(u64);

impl Lcg {
    fn fraction(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `draws` users from a Zipf law of `exponent` over `users` users.
fn zipf(users: usize, exponent: f64, draws: usize, random: &mut Lcg) -> Vec<u32> {
    let weights: Vec<f64> = (1..=users).map(|rank| 1.0 / (rank as f64).powf(exponent)).collect();
    let total: f64 = weights.iter().sum();
    let mut cumulative = Vec::with_capacity(users);
    let mut sum = 0.0;
    for weight in weights {
        sum += weight / total;
        cumulative.push(sum);
    }
    (0..draws)
        .map(|_| {
            let uniform = random.fraction();
            cumulative.partition_point(|&edge| edge < uniform).min(users - 1) as u32
        })
        .collect()
}

/// The share of `found` that is in `truth`.
fn recall(found: &BTreeSet<String>, truth: &BTreeSet<String>) -> f64 {
    found.intersection(truth).count() as f64 / truth.len().max(1) as f64
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let connection = runtime
        .block_on(dynashard_local::connect_to(
            dynashard_local::Backend::from_env_or(dynashard_local::Backend::Local).expect("a backend"),
        ))
        .expect("DynamoDB Local");
    let direct = Db::new(connection.client().clone());
    runtime.block_on(direct.create_table::<Bench>()).expect("create table");
    let limits = PartitionLimits::dynamodb().write_units(150.0);
    let emulator = Emulator::start(connection.url(), limits).expect("the emulator");
    let client = dynashard::client_for_endpoint(emulator.endpoint());
    let client = aws_sdk_dynamodb::Client::from_conf(
        client.config().to_builder().retry_config(RetryConfig::disabled()).build(),
    );
    let db = Db::new(client);

    let mut random = Lcg(11);
    let users = zipf(USERS, EXPONENT, PUTS, &mut random);
    let events: Vec<Event> = users
        .iter()
        .enumerate()
        .map(|(n, &user)| {
            let size = 200 + (random.fraction() * 3_800.0) as usize;
            Event { user, n: n as u64, body: "e".repeat(size) }
        })
        .collect();
    let throttled = runtime.block_on(async {
        futures::stream::iter(&events)
            .map(|event| db.put(event).into_future())
            .buffer_unordered(32)
            .filter(|result| futures::future::ready(result.as_ref().is_err_and(|error| error.is_throttled())))
            .count()
            .await
    });

    let usage = emulator.usage();
    let mut charged: Vec<(f64, u64, String)> = usage
        .partitions_of("HotKeysBench", None)
        .map(|(id, consumption)| (consumption.write_units, consumption.throttled_writes, id.key.clone()))
        .collect();
    charged.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.2.cmp(&b.2)));
    let truth: BTreeSet<String> = charged.iter().take(10).map(|(_, _, key)| key.clone()).collect();
    charged.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)));
    let throttled_truth: BTreeSet<String> = charged
        .iter()
        .filter(|(_, throttles, _)| *throttles > 0)
        .take(10)
        .map(|(_, _, key)| key.clone())
        .collect();

    let hot = db.hot_keys(10);
    println!(
        "{} puts, {throttled} throttled; the emulator charged {:.0} write units",
        PUTS,
        usage.total("HotKeysBench", None).write_units
    );
    println!("rank | reported key | units | error | share | emulator's key | units");
    charged.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.2.cmp(&b.2)));
    for (rank, (key, truth)) in hot.consumed.iter().zip(&charged).enumerate() {
        println!(
            "{:4} | {:12} | {:6.0} | {:5.0} | {:5.3} | {:14} | {:6.0}",
            rank + 1,
            key.place.partition_key,
            key.count,
            key.error,
            key.share,
            truth.2,
            truth.0
        );
    }
    let found: BTreeSet<String> = hot.consumed.iter().map(|key| key.place.partition_key.clone()).collect();
    let throttled_found: BTreeSet<String> =
        hot.throttled.iter().map(|key| key.place.partition_key.clone()).collect();
    let top_recall = recall(&found, &truth);
    let throttled_recall = recall(&throttled_found, &throttled_truth);
    let memory = hot.memory_bytes;

    // The write path: a put with tracking on against one without, straight to DynamoDB Local.
    let on = direct.clone();
    let off = direct.clone().without_hot_key_tracking();
    let mut n = PUTS as u64;
    let mut next = || {
        n += 1;
        Event { user: (n % 1_000) as u32, n, body: "w".repeat(500) }
    };
    let events: Vec<Event> = (0..4_000).map(|_| next()).collect();
    let (mut a, mut b) = (events[..2_000].iter(), events[2_000..].iter());
    let ratio = ratio::compare(
        20,
        50,
        || runtime.block_on(on.put(a.next().expect("enough events")).into_future()).expect("a put"),
        || runtime.block_on(off.put(b.next().expect("enough events")).into_future()).expect("a put"),
    );
    ratio::report("a put with hot-key tracking against one without", &ratio, 1.03);
    println!(
        "hot_keys: keys={USERS} s={EXPONENT} puts={PUTS} recall_top10={top_recall:.2} throttled_recall_top10={throttled_recall:.2} held_keys={} memory_bytes={memory} put_time_on_vs_off={:.3}",
        hot.held,
        ratio.value()
    );
    drop(emulator);
    drop(connection);
}
