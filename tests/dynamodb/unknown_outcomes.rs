//! A batch write whose requests reached DynamoDB but whose answers never came back reports those
//! writes as of unknown outcome, apart from the writes it never sent: nothing stored is called
//! unprocessed.

use crate::model::*;
use crate::unique;
use dynashard::{Db, Error, Timeouts, Unprocessed};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A proxy in front of `upstream` that passes every request on and, once `silent` is set, drops
/// every answer: requests are applied, their callers hear nothing.
async fn proxy(upstream: String, silent: Arc<AtomicBool>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let upstream = upstream.trim_start_matches("http://").to_owned();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let (upstream, silent) = (upstream.clone(), Arc::clone(&silent));
            tokio::spawn(async move {
                let Ok(server) = TcpStream::connect(&upstream).await else { return };
                let (mut client_read, mut client_write) = client.into_split();
                let (mut server_read, mut server_write) = server.into_split();
                tokio::spawn(async move { tokio::io::copy(&mut client_read, &mut server_write).await });
                let mut buffer = vec![0; 64 * 1024];
                while let Ok(read @ 1..) = server_read.read(&mut buffer).await {
                    if !silent.load(Ordering::SeqCst)
                        && client_write.write_all(&buffer[..read]).await.is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    format!("http://{address}")
}

fn song(artist: &str, n: usize) -> Song {
    crate::crud::song(artist, "A", &format!("{n:03}"))
}

/// The titles of the songs among `items`.
fn titles(items: &[dynashard::Item]) -> BTreeSet<String> {
    items.iter().map(|item| dynashard::item::from_item::<Song>(item.clone()).unwrap().title).collect()
}

#[tokio::test]
async fn writes_sent_without_an_answer_are_of_unknown_outcome_and_the_rest_unprocessed() {
    let direct = crate::db().await;
    let silent = Arc::new(AtomicBool::new(false));
    let endpoint = proxy(dynashard_local::shared_endpoint().await.unwrap(), Arc::clone(&silent)).await;
    let timeouts = Timeouts::default().attempt(Duration::from_secs(2)).operation(Duration::from_secs(3));
    let db = Db::new(dynashard::client::client_for_endpoint_with(&endpoint, timeouts));
    let artist = unique("Unanswered");
    db.put(&song(&artist, 999)).await.expect("answers pass while the proxy is not silent");

    silent.store(true, Ordering::SeqCst);
    let songs: Vec<Song> = (0..300).map(|n| song(&artist, n)).collect();
    let error = db.batch_put(&songs).concurrency(2).await.unwrap_err();
    assert!(error.is_timeout() && error.outcome_unknown(), "{error:?}");
    let Error::BatchIncomplete {
        unprocessed: Unprocessed::Writes { puts: unprocessed, .. },
        unknown,
        succeeded: 0,
        ..
    } = &error
    else {
        panic!("{error:?}")
    };
    let Unprocessed::Writes { puts: unknown, .. } = unknown.as_ref() else { panic!("{error:?}") };
    // Two requests of 25 went out and were never answered; the other ten were never sent.
    assert_eq!((unknown.len(), unprocessed.len()), (50, 250), "{error}");
    let (unknown, unprocessed) = (titles(unknown), titles(unprocessed));

    let stored: Vec<Song> =
        futures::TryStreamExt::try_collect(direct.stream(Song::query(&artist))).await.unwrap();
    let stored: BTreeSet<String> =
        stored.into_iter().map(|song| song.title).filter(|title| *title != "999").collect();
    assert!(!stored.is_empty(), "the unanswered requests were applied");
    assert!(stored.is_subset(&unknown), "every stored write is one of unknown outcome");
    assert!(stored.is_disjoint(&unprocessed), "no write called unprocessed is stored");
}
