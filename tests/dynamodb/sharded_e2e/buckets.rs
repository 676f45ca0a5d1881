//! Time buckets: readings of six sensors over three hours across midnight (an hour and a day
//! boundary), one of them bursting, read back for all sensors (every shard of every bucket,
//! merged) or for one sensor (its shard only, bucket after bucket).

use super::model::{E2eReading, E2eSensors};
use crate::db;
use crate::requests::watched;
use dynashard::shard::hash_shard;
use dynashard::Db;
use futures::TryStreamExt;
use std::collections::{BTreeSet, HashMap};
use tokio::sync::OnceCell;

/// 2023-10-27T22:00:00Z: the window is 22:00 to 00:59:59 the next day.
const FROM: i64 = 1_698_444_000;
const TO: i64 = FROM + 3 * 3_600 - 1;
const MIDNIGHT: i64 = FROM + 2 * 3_600;
const HOURS: [&str; 3] = ["2023-10-27T22", "2023-10-27T23", "2023-10-28T00"];
const SENSORS: [&str; 6] =
    ["sensor-alpha", "sensor-bravo", "sensor-charlie", "sensor-delta", "sensor-echo", "sensor-foxtrot"];
const HOT: &str = "sensor-alpha";
const SHARDS: u32 = 8;

/// Every sensor every 30 seconds from an hour before the window to an hour after it; the hot
/// sensor also bursts 20 readings a second around midnight.
fn readings() -> Vec<E2eReading> {
    let mut readings = Vec::new();
    for (index, sensor) in SENSORS.iter().enumerate() {
        for step in 0..5 * 120 {
            let taken_at = FROM - 3_600 + step * 30 + index as i64;
            readings.push(E2eReading {
                sensor: (*sensor).into(),
                taken_at,
                seq: 0,
                celsius: step as i32 % 40,
            });
        }
    }
    for taken_at in MIDNIGHT - 10..MIDNIGHT + 10 {
        for seq in 1..=20 {
            readings.push(E2eReading { sensor: HOT.into(), taken_at, seq, celsius: 90 + seq as i32 });
        }
    }
    readings
}

async fn written(db: &Db) -> &'static [E2eReading] {
    static READINGS: OnceCell<Vec<E2eReading>> = OnceCell::const_new();
    READINGS
        .get_or_init(|| async {
            db.create_table::<E2eSensors>().await.expect("create the sensors table");
            let readings = readings();
            db.batch_put(&readings).await.expect("the readings are written");
            readings
        })
        .await
}

type Id = (i64, String, u32);

fn id(reading: &E2eReading) -> Id {
    (reading.taken_at, reading.sensor.clone(), reading.seq)
}

/// The readings `keep` accepts from `from` to `to`, in time order (then sensor, then sequence,
/// as the index sort key `{taken_at}#{sensor}#{seq}` orders them).
fn expected(readings: &[E2eReading], from: i64, to: i64, keep: impl Fn(&E2eReading) -> bool) -> Vec<Id> {
    let mut ids: Vec<Id> =
        readings.iter().filter(|r| (from..=to).contains(&r.taken_at) && keep(r)).map(id).collect();
    ids.sort();
    ids
}

async fn listed(db: &Db, query: dynashard::Query<E2eReading, impl Sized>) -> Vec<Id> {
    let readings: Vec<E2eReading> = db.stream(query).try_collect().await.expect("the stream reads");
    readings.iter().map(id).collect()
}

#[test]
fn the_sensors_share_shards() {
    let shards: BTreeSet<u32> = SENSORS.iter().map(|sensor| hash_shard(sensor, SHARDS)).collect();
    assert!(shards.len() < SENSORS.len(), "some sensors share a shard, so a sensor's reads filter");
    assert!(shards.len() > 2, "{shards:?}");
}

#[tokio::test]
async fn every_sensor_in_time_order_across_midnight() {
    let db = db().await;
    let readings = written(&db).await;
    let want = expected(readings, FROM, TO, |_| true);
    assert!(want.len() > 2_000 && want.iter().any(|(_, _, seq)| *seq > 0), "{} readings", want.len());
    let (watched, requests) = watched(&db);
    let stream = watched.stream(E2eReading::query_readings(FROM, TO));
    let stats = stream.stats().clone();
    let got: Vec<E2eReading> = stream.try_collect().await.expect("the stream reads");
    let got: Vec<Id> = got.iter().map(id).collect();
    assert_eq!(got.len(), want.len());
    assert!(got == want, "every reading of the window, in time order");
    // Every shard of every hour, and nothing outside the window's hours.
    let partitions: BTreeSet<String> =
        requests.key_values().into_iter().filter(|value| value.starts_with("reading#")).collect();
    let all: BTreeSet<String> = HOURS
        .iter()
        .flat_map(|hour| (0..SHARDS).map(move |shard| format!("reading#{shard}#{hour}")))
        .collect();
    assert_eq!(partitions, all);
    // Bucket after bucket: requests count under their shard, summed over the buckets.
    assert_eq!(stats.per_shard_requests().len(), SHARDS as usize);
    assert!(stats.per_shard_requests().iter().all(|requests| *requests >= HOURS.len()), "{stats:?}");

    let mut descending = listed(&db, E2eReading::query_readings(FROM, TO).descending()).await;
    descending.reverse();
    assert!(descending == want, "descending is the reverse");
    let counted = db.count(&E2eReading::query_readings(FROM, TO)).await.unwrap();
    assert_eq!(counted, want.len() as u64, "a count covers every shard of every bucket");
}

#[tokio::test]
async fn one_sensor_reads_only_its_shard_one_request_per_bucket() {
    let db = db().await;
    let readings = written(&db).await;
    for sensor in SENSORS {
        let want = expected(readings, FROM, TO, |r| r.sensor == sensor);
        let (watched, requests) = watched(&db);
        let stream = watched.stream(E2eReading::query_readings_for(sensor, FROM, TO));
        let stats = stream.stats().clone();
        let got: Vec<E2eReading> = stream.try_collect().await.expect("the stream reads");
        let got: Vec<Id> = got.iter().map(id).collect();
        assert!(got == want, "{sensor}: its readings in time order ({} of {})", got.len(), want.len());
        let shard = hash_shard(sensor, SHARDS);
        let partitions: Vec<String> =
            requests.key_values().into_iter().filter(|value| value.starts_with("reading#")).collect();
        let own: Vec<String> = HOURS.iter().map(|hour| format!("reading#{shard}#{hour}")).collect();
        assert_eq!(partitions, own, "{sensor}: only its shard");
        assert_eq!(stats.per_shard_requests(), [3], "{sensor}: one request per bucket, under its shard");
        assert_eq!(requests.total(), 3);

        let mut descending = listed(&db, E2eReading::query_readings_for(sensor, FROM, TO).descending()).await;
        descending.reverse();
        assert!(descending == want, "{sensor}: descending is the reverse");
        let counted = db.count(&E2eReading::query_readings_for(sensor, FROM, TO)).await.unwrap();
        assert_eq!(counted, want.len() as u64, "{sensor}: a count of its shard, filtered to it");
    }
    let hot = expected(readings, FROM, TO, |r| r.sensor == HOT);
    let cold = expected(readings, FROM, TO, |r| r.sensor == "sensor-bravo");
    assert!(hot.len() > cold.len() + 300, "the burst is read too: {} vs {}", hot.len(), cold.len());
}

#[tokio::test]
async fn a_window_inside_the_buckets_keeps_only_its_readings() {
    let db = db().await;
    let readings = written(&db).await;
    // 22:30:00 to 00:15:00: the first and last buckets hold readings on both sides.
    let (from, to) = (FROM + 1_800, FROM + 2 * 3_600 + 900);
    let all = listed(&db, E2eReading::query_readings(from, to)).await;
    assert!(all == expected(readings, from, to, |_| true), "{} readings", all.len());
    let counts: HashMap<String, usize> = all.iter().fold(HashMap::new(), |mut counts, (_, sensor, _)| {
        *counts.entry(sensor.clone()).or_default() += 1;
        counts
    });
    assert_eq!(counts.len(), SENSORS.len());
    let hot = listed(&db, E2eReading::query_readings_for(HOT, from, to)).await;
    assert!(hot == expected(readings, from, to, |r| r.sensor == HOT), "{} readings", hot.len());
}
