//! IoT telemetry: a hot sensor bursting past one partition's write limit, and three ways to
//! shard its readings (seed: write sharding for high-velocity time series).
//!
//! A partition takes about 1,000 writes of up to 1 KB per second. `sensor-alpha-001` bursts to
//! 2,000 readings a second, so keyed by sensor alone it would be throttled. One table holds the
//! readings under their event ids, and three indexes answer "one sensor over a time window":
//!
//! - `ByRandomShard`: `{sensor}#{random 0..10}`, sorted by time. Writes spread evenly; a time
//!   window reads all 10 shards and merges them.
//! - `ByEvent`: `{sensor}#{sha256(event id) mod 10}`, sorted by event id. Writes spread evenly and
//!   one event is one request; a time window must read every shard whole.
//! - `ByHour`: `reading#{sha256(sensor) mod 16}#{UTC hour}`, sorted by time. Sensors spread over
//!   16 shards; one sensor's hour is one partition, so a window of one sensor reads one partition
//!   per hour. A burst of one sensor stays in its partition.
//!
//! Last, the same hot sensor meets a real partition limit: through the partition-limit emulator
//! at a twentieth of DynamoDB's limits (50 write units per second per partition), it offers 200
//! readings a second, first keyed by sensor alone, then over 8 hash shards.
//!
//! ```text
//! cargo run --example iot
//! ```

use aws_sdk_dynamodb::types::{AttributeValue, Select};
use dynashard::shard::{hash_shard, TimeBucket};
use dynashard::{Db, Entity, Query, Table};
use futures::TryStreamExt;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Telemetry", pk = "pk", sk = "sk")]
#[gsi(ByRandomShard(pk = "random_pk", sk = "random_sk"))]
#[gsi(ByEvent(pk = "event_pk", sk = "event_sk"))]
#[gsi(ByHour(pk = "hour_pk", sk = "hour_sk"))]
struct Telemetry;

/// `event#3f2a...` / `reading`.
#[derive(Entity, Serialize, Deserialize, Debug, Clone)]
#[entity(table = Telemetry, pk = "event#{event_id}", sk = "reading")]
#[gsi(ByRandomShard(pk = "{sensor}", sk = "{taken_at}"))]
#[shard(ByRandomShard(random = 10))]
#[gsi(ByEvent(pk = "{sensor}", sk = "{event_id}"))]
#[shard(ByEvent(hash = 10, by = event_id))]
#[gsi(ByHour(pk = "reading", sk = "{taken_at}#{sensor}#{event_id}"))]
#[shard(ByHour(hash = 16, by = sensor, bucket = "hour", at = taken_at))]
struct Reading {
    event_id: String,
    sensor: String,
    /// Unix seconds.
    taken_at: i64,
    celsius: f64,
}

const HOT: &str = "sensor-alpha-001";
/// 2023-10-27T15:30:00Z, the example's "now".
const NOW: i64 = 1_698_420_600;
/// 2023-10-27T15:04:07Z: the hot sensor sends 2,000 readings within this second.
const BURST: i64 = 1_698_419_047;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let connection = dynashard_local::connect().await?;
    let db = Db::new(connection.client().clone());
    db.create_table::<Telemetry>().await?;

    let readings = readings();
    let bar = ProgressBar::new(readings.len() as u64)
        .with_style(ProgressStyle::with_template("importing {bar:40} {pos}/{len} readings, {per_sec}")?);
    for chunk in readings.chunks(500) {
        db.batch_put(chunk).await?;
        bar.inc(chunk.len() as u64);
    }
    bar.finish_and_clear();
    let sensors = readings.iter().map(|r| r.sensor.as_str()).collect::<std::collections::BTreeSet<_>>();
    println!(
        "imported {} readings of {} sensors, {} to {}",
        readings.len(),
        sensors.len(),
        TimeBucket::Minute.label(NOW - 4 * 3_600 - 1_800),
        TimeBucket::Minute.label(NOW)
    );

    burst_spread(&db).await?;
    reads(&db, &readings).await?;
    at_the_limit(connection.url()).await?;
    Ok(())
}

#[derive(Table)]
#[table(name = "TelemetryLive", pk = "pk", sk = "sk")]
#[gsi(BySensor(pk = "sensor_pk", sk = "sensor_sk"))]
#[gsi(BySensorShard(pk = "shard_pk", sk = "shard_sk"))]
struct TelemetryLive;

/// A live reading listed by sensor in one partition.
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = TelemetryLive, pk = "live#{event_id}", sk = "reading")]
#[gsi(BySensor(pk = "{sensor}", sk = "{taken_at}#{event_id}"))]
struct LiveReading {
    event_id: String,
    sensor: String,
    taken_at: i64,
    celsius: f64,
}

/// The same, over 8 shards by a hash of the event id.
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = TelemetryLive, pk = "spread#{event_id}", sk = "reading")]
#[gsi(BySensorShard(pk = "{sensor}", sk = "{taken_at}#{event_id}"))]
#[shard(BySensorShard(hash = 8, by = event_id))]
struct SpreadReading {
    event_id: String,
    sensor: String,
    taken_at: i64,
    celsius: f64,
}

/// One hot sensor at a real partition limit: unsharded next to 8 hash shards.
async fn at_the_limit(endpoint: &str) -> Result<(), Box<dyn std::error::Error>> {
    use dynashard_local::emulator::{Emulator, PartitionLimits};
    let limits = PartitionLimits::dynamodb().scaled(0.05);
    let emulator = Emulator::start(endpoint, limits.clone())?;
    let db = Db::new(dynashard::client_for_endpoint(emulator.endpoint()));
    db.create_table::<TelemetryLive>().await?;
    let offered = 4.0 * limits.partition_write_units();
    println!(
        "
{HOT} at a real partition limit ({} write units a second per partition), offering {offered} readings a second for 3 s:",
        limits.partition_write_units()
    );
    let unsharded = offer(&db, offered, |n| LiveReading {
        event_id: format!("live-{n}"),
        sensor: HOT.into(),
        taken_at: NOW + n as i64,
        celsius: 21.5,
    })
    .await?;
    let sharded = offer(&db, offered, |n| SpreadReading {
        event_id: format!("spread-{n}"),
        sensor: HOT.into(),
        taken_at: NOW + n as i64,
        celsius: 21.5,
    })
    .await?;
    let throttled = emulator.usage().total("TelemetryLive", Some("BySensor")).throttled_writes;
    println!(
        "  keyed by sensor alone:   {unsharded:>4.0} readings/s ({throttled} writes throttled and retried)"
    );
    println!("  8 shards by event id:    {sharded:>4.0} readings/s");
    Ok(())
}

/// Offers `rate` puts a second for 3 s from 16 writers that retry throttled puts; the puts
/// acknowledged within the 3 s, per second.
async fn offer<E, F>(db: &Db, rate: f64, item: F) -> Result<f64, Box<dyn std::error::Error>>
where
    E: Entity + Send + Sync + 'static,
    F: Fn(u64) -> E + Clone + Send + 'static,
{
    const WRITERS: u64 = 16;
    let window = std::time::Duration::from_secs(3);
    let start = tokio::time::Instant::now();
    let pace = std::time::Duration::from_secs_f64(WRITERS as f64 / rate);
    let writers = (0..WRITERS).map(|writer| {
        let (db, item) = (db.clone(), item.clone());
        tokio::spawn(async move {
            let (mut due, mut acknowledged) = (start + pace.mul_f64(writer as f64 / WRITERS as f64), 0u64);
            for k in 0.. {
                if due >= start + window {
                    break;
                }
                tokio::time::sleep_until(due).await;
                let reading = item(k * WRITERS + writer);
                loop {
                    match db.put(&reading).await {
                        Ok(()) => break,
                        Err(error) if error.is_throttled() => {
                            tokio::time::sleep(std::time::Duration::from_millis(20)).await
                        }
                        Err(error) => return Err(error),
                    }
                }
                if tokio::time::Instant::now() <= start + window {
                    acknowledged += 1;
                }
                due = (due + pace).max(tokio::time::Instant::now());
            }
            Ok(acknowledged)
        })
    });
    let mut acknowledged = 0;
    for writer in futures::future::join_all(writers).await {
        acknowledged += writer??;
    }
    Ok(acknowledged as f64 / window.as_secs_f64())
}

/// Where the 2,000 readings of the burst went, partition by partition, counted by DynamoDB.
async fn burst_spread(db: &Db) -> Result<(), Box<dyn std::error::Error>> {
    println!("\nthe burst: 2,000 readings of {HOT} at {} (one partition takes ~1,000/s)", label(BURST));
    let layouts = [
        (
            "random, 10 shards",
            "ByRandomShard",
            "random_pk",
            Reading::query_by_random_shard(HOT).plan_shards().cloned(),
        ),
        ("hash of event id, 10", "ByEvent", "event_pk", Reading::query_by_event(HOT).plan_shards().cloned()),
        (
            "hour + hash of sensor, 16",
            "ByHour",
            "hour_pk",
            Reading::query_by_hour(BURST, BURST).plan_shards().cloned(),
        ),
    ];
    for (name, index, attribute, shards) in layouts {
        let shards = shards.ok_or("a sharded index")?;
        let mut counts = Vec::new();
        for partition in &shards.partition_keys(1_000)? {
            counts.push(burst_count(db, index, attribute, partition).await?);
        }
        let busiest = counts.iter().copied().max().unwrap_or(0);
        let spread: Vec<String> = counts.iter().map(|count| format!("{count:>5}")).collect();
        let verdict = if busiest > 1_000 { "over the limit" } else { "fits" };
        println!("  {name:<26}{}  busiest {busiest}/s: {verdict}", spread.join(""));
    }
    let shard = hash_shard(HOT, 16);
    println!(
        "  the hour layout keeps {HOT} in reading#{shard}#{}: ideal for reading it back, but a burst\n  \
         this hot is written through the random or calculated layout (or random shards in each bucket)",
        TimeBucket::Hour.label(BURST)
    );
    Ok(())
}

/// Reads the hot sensor's last three hours (and more) through each layout, with what they cost.
async fn reads(db: &Db, readings: &[Reading]) -> Result<(), Box<dyn std::error::Error>> {
    let (from, to) = (NOW - 3 * 3_600, NOW);
    let expected = readings.iter().filter(|r| r.sensor == HOT && (from..=to).contains(&r.taken_at)).count();
    println!("\n{HOT}, {} to {}: {expected} readings", label(from), label(to));
    println!(
        "  {:<44} {:>8} {:>9} {:>11} {:>11}",
        "read", "readings", "requests", "items read", "read units"
    );

    let by_hour = run(db, Reading::query_by_hour_for(HOT, from, to)).await?;
    by_hour.print("ByHour: its shard, one partition per hour");
    let in_order = by_hour.readings.windows(2).all(|pair| pair[0].taken_at <= pair[1].taken_at);
    let random = run(db, Reading::query_by_random_shard(HOT).between(from, to)).await?;
    random.print("ByRandomShard: 10 shards, merged");
    let mut by_event = run(db, Reading::query_by_event(HOT)).await?;
    by_event.readings.retain(|r| (from..=to).contains(&r.taken_at));
    by_event.print("ByEvent: 10 shards read whole, then filtered");

    let event = &readings.iter().find(|r| r.sensor == HOT && r.taken_at == BURST).ok_or("a burst")?.event_id;
    run(db, Reading::query_by_event(HOT).eq(event)).await?.print("ByEvent: one event by its id");
    run(db, Reading::query_by_hour(NOW - 3_600, NOW)).await?.print("ByHour: every sensor, last hour, merged");

    println!("\nfirst and last readings of {HOT} from ByHour (in time order: {in_order}):");
    let shown = by_hour.readings.iter().take(3).chain(by_hour.readings.iter().rev().take(3).rev());
    for reading in shown {
        println!("  {}  {:>6.1} °C  event {}", label(reading.taken_at), reading.celsius, reading.event_id);
    }
    Ok(())
}

/// The readings a query returned and what it cost.
struct Run {
    readings: Vec<Reading>,
    stats: dynashard::query::QueryStats,
}

impl Run {
    fn print(&self, name: &str) {
        let stats = &self.stats;
        println!(
            "  {name:<44} {:>8} {:>9} {:>11} {:>11.1}",
            self.readings.len(),
            stats.requests(),
            stats.items_read(),
            stats.capacity_units()
        );
    }
}

async fn run<F>(db: &Db, query: Query<Reading, F>) -> Result<Run, Box<dyn std::error::Error>> {
    let stream = db.stream(query);
    let stats = stream.stats().clone();
    Ok(Run { readings: stream.try_collect().await?, stats })
}

/// How many readings of the burst second one index partition holds.
async fn burst_count(
    db: &Db,
    index: &str,
    attribute: &str,
    partition: &str,
) -> Result<usize, Box<dyn std::error::Error>> {
    let (mut count, mut start) = (0, None);
    loop {
        let page = db
            .client()
            .query()
            .table_name(db.table_name::<Telemetry>())
            .index_name(index)
            .key_condition_expression("#pk = :pk")
            .filter_expression("#sensor = :sensor AND #at = :at")
            .expression_attribute_names("#pk", attribute)
            .expression_attribute_names("#sensor", "sensor")
            .expression_attribute_names("#at", "taken_at")
            .expression_attribute_values(":pk", AttributeValue::S(partition.into()))
            .expression_attribute_values(":sensor", AttributeValue::S(HOT.into()))
            .expression_attribute_values(":at", AttributeValue::N(BURST.to_string()))
            .select(Select::Count)
            .set_exclusive_start_key(start)
            .send()
            .await?;
        count += page.count as usize;
        start = page.last_evaluated_key;
        if start.is_none() {
            return Ok(count);
        }
    }
}

/// `2023-10-27T15:04:05`
fn label(unix_seconds: i64) -> String {
    format!("{}:{:02}", TimeBucket::Minute.label(unix_seconds), unix_seconds.rem_euclid(60))
}

/// A small deterministic generator, so every run writes the same readings.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 16
    }

    /// An event id like a device would send: 16 random hex digits.
    fn event_id(&mut self) -> String {
        format!("{:08x}{:08x}", self.next() as u32, self.next() as u32)
    }
}

/// 4.5 hours up to [`NOW`]: a dozen sensors every minute, the hot one every 5 seconds plus its
/// burst.
fn readings() -> Vec<Reading> {
    let mut random = Lcg(4);
    let mut readings = Vec::new();
    let start = NOW - 4 * 3_600 - 1_800;
    let reading = |random: &mut Lcg, sensor: &str, taken_at: i64, base: f64| Reading {
        event_id: random.event_id(),
        sensor: sensor.into(),
        taken_at,
        celsius: base + (random.next() % 100) as f64 / 10.0,
    };
    for n in 2..=13 {
        let sensor = format!("sensor-{n:03}");
        for taken_at in (start..=NOW).step_by(60) {
            readings.push(reading(&mut random, &sensor, taken_at + n, 18.0));
        }
    }
    for taken_at in (start..=NOW).step_by(5) {
        readings.push(reading(&mut random, HOT, taken_at, 35.0));
    }
    for _ in 0..2_000 {
        readings.push(reading(&mut random, HOT, BURST, 95.0));
    }
    readings
}
