//! A frozen endpoint (it accepts connections and never answers, like a process stopped with
//! SIGSTOP) gives typed timeouts within the client's timeouts, for every kind of request.

use crate::model::*;
use dynashard::{Db, Error, Timeouts, Unprocessed};
use futures::TryStreamExt;
use std::net::TcpListener;
use std::time::{Duration, Instant};

/// An endpoint on loopback that accepts every connection and never answers.
fn frozen_endpoint() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream); // kept open, never read nor written
        }
    });
    format!("http://{address}")
}

fn frozen_db() -> Db {
    let timeouts = Timeouts::default()
        .connect(Duration::from_millis(500))
        .attempt(Duration::from_millis(300))
        .operation(Duration::from_secs(1));
    Db::new(dynashard::client::client_for_endpoint_with(&frozen_endpoint(), timeouts))
}

/// Well within the one-second operation timeout plus scheduling slack, and far below the
/// minutes a request waited before timeouts existed.
const BOUND: Duration = Duration::from_secs(5);

fn song(n: usize) -> Song {
    crate::crud::song("Frozen", "A", &format!("{n:03}"))
}

#[tokio::test]
async fn gets_and_writes_time_out() {
    let db = frozen_db();
    let started = Instant::now();
    let error = db.get(Song::key("Frozen", "A", "1").unwrap()).await.unwrap_err();
    assert!(matches!(error, Error::Timeout { operation: "GetItem", .. }), "{error:?}");
    assert!(error.is_timeout() && !error.is_throttled());
    let error = db.put(&song(1)).await.unwrap_err();
    assert!(matches!(error, Error::Timeout { operation: "PutItem", .. }), "{error:?}");
    let error = db.delete(Song::key("Frozen", "A", "1").unwrap()).await.unwrap_err();
    assert!(error.is_timeout(), "{error:?}");
    assert!(started.elapsed() < 3 * BOUND, "{:?}", started.elapsed());
}

#[tokio::test]
async fn batches_time_out_and_hand_back_everything() {
    let db = frozen_db();
    let songs: Vec<Song> = (0..300).map(song).collect();
    let started = Instant::now();
    let error = db.batch_put(&songs).concurrency(2).await.unwrap_err();
    assert!(started.elapsed() < BOUND, "{:?}", started.elapsed());
    assert!(error.is_timeout(), "{error:?}");
    let Error::BatchIncomplete {
        unprocessed: Unprocessed::Writes { puts, .. }, unknown, succeeded: 0, ..
    } = error
    else {
        panic!("{error:?}")
    };
    let Unprocessed::Writes { puts: sent, .. } = *unknown else { panic!("{unknown:?}") };
    // The two requests in flight went out and got no answer: their writes may be stored. The
    // rest were never sent.
    assert_eq!((sent.len(), puts.len()), (50, 250), "every write is handed back, and how");

    let started = Instant::now();
    let keys = (0..250).map(|n| Song::key("Frozen", "A", &format!("{n:03}")).unwrap());
    let error = db.batch_get(keys).concurrency(1).await.unwrap_err();
    assert!(started.elapsed() < BOUND, "{:?}", started.elapsed());
    let Error::BatchIncomplete { unprocessed: Unprocessed::Keys(keys), .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(keys.len(), 250, "every key is handed back");
    assert!(error.is_timeout());
}

#[tokio::test]
async fn streams_and_pages_time_out() {
    let db = frozen_db();
    let started = Instant::now();
    let listed: Result<Vec<Song>, Error> = db.stream(Song::query("Frozen")).try_collect().await;
    let error = listed.unwrap_err();
    assert!(matches!(error, Error::Timeout { operation: "Query", .. }), "{error:?}");
    let error = db.page(&Song::query("Frozen"), None).await.unwrap_err();
    assert!(error.is_timeout(), "{error:?}");
    let scanned: Result<Vec<Song>, Error> = db.stream(Song::scan()).try_collect().await;
    assert!(scanned.unwrap_err().is_timeout());
    assert!(started.elapsed() < 3 * BOUND, "{:?}", started.elapsed());
}
