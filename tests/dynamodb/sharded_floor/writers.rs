//! Pages taken while writers insert: never an item that sorts before the previous page's last,
//! never one twice, and every note written before the first page on some page.

use super::model::{floor, note, Lcg, Note};
use crate::{db, unique};
use std::collections::HashSet;

#[tokio::test]
async fn pages_never_go_back_while_writers_insert() {
    let db = db().await;
    floor(&db).await;
    let group = unique("writers");
    let mut random = Lcg(17);
    let before: Vec<Note> = (0..1_500).map(|n| note(&group, n, &mut random, 0)).collect();
    db.batch_put(&before).await.expect("the first notes are written");

    // Four writers add 800 notes with random titles while the pages are read.
    let writers: Vec<_> = (0..4u32)
        .map(|writer| {
            let (db, group) = (db.clone(), group.clone());
            tokio::spawn(async move {
                let mut random = Lcg(100 + u64::from(writer));
                for i in 0..200 {
                    let n = 10_000 + writer * 1_000 + i;
                    db.put(&note(&group, n, &mut random, 0)).await.expect("a note is written");
                }
            })
        })
        .collect();

    for query in [Note::query_by_title(&group).page_size(40), Note::query_scattered(&group).page_size(40)] {
        let (mut cursor, mut seen, mut last) = (None::<String>, HashSet::new(), None::<(String, u32)>);
        loop {
            let page = db.page(&query, cursor.as_deref()).await.expect("a page");
            for note in &page.items {
                let id = (note.title.clone(), note.n);
                // The index sorts by title, then by `n` as its fixed-width encoding: the same order.
                assert!(last.as_ref().is_none_or(|last| *last < id), "{id:?} after {last:?}");
                assert!(seen.insert(id.clone()), "{id:?} twice");
                last = Some(id);
            }
            match page.cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        let missing = before.iter().filter(|note| !seen.contains(&(note.title.clone(), note.n))).count();
        assert_eq!(missing, 0, "every note written before the first page is read");
    }
    for writer in writers {
        writer.await.expect("the writer finishes");
    }
}
