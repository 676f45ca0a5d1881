//! What a merge reads of runs: a shard holding a long stretch of the output alone (one title's
//! items, hashed to one shard; one account's burst in a feed).

use super::costs::{merge_of, uniform};
use super::*;

#[test]
fn a_run_ending_inside_the_page_is_not_read_past_the_page() {
    // Shard 0 starts (in the read's direction) with a run of 60 keys before every other shard's,
    // then holds 2,000 keys after all of them; 20 shards of uniform keys. A page of 100 takes the
    // run and 40 keys of the others: asked for what is still missing once the run filled its
    // first answer, shard 0 reads up to the 100th key known, not 46 keys past its run (266 items
    // read in all without the bound: the first round's 168, 52 of the run, 46 past it).
    for descending in [false, true] {
        let (first, then) =
            if descending { ("9999999999", "0000000000") } else { ("0000000000", "9999999999") };
        let mut partitions = uniform(21, 100, 5);
        let run_keys = (0..60).map(|i| format!("{first}#00#{i:05}"));
        let after = (0..2_000).map(|i| format!("{then}#00#{i:05}"));
        partitions[0].keys = run_keys.chain(after).collect();
        partitions[0].keys.sort();
        let mut setup = merge_of(partitions, 32);
        setup.descending = descending;
        let expected = setup.expected();
        let read = run(&setup, None, Some(100), &[1]);
        assert_eq!(read.output, expected[..100]);
        assert!(read.items_read <= 225, "descending {descending}: {} items read", read.items_read);
    }
}

#[test]
fn a_shard_alone_in_its_stretch_is_asked_for_what_is_missing() {
    // Two runs make the page: 54 keys of shard 0, then 46 of shard 1, each followed by keys after
    // every other shard's; 19 shards of uniform keys after both runs. Once shard 1 answered with
    // its run and no other shard holds anything inside it, it is asked for all that is still
    // missing: one more request, while the other shards wait (23 requests). Asked for its share
    // instead, it went back a unit of items at a time, and the shards after it were asked again
    // beside it (27 requests).
    let mut partitions = uniform(21, 100, 9);
    let tail = |lane: usize| (0..1_000).map(move |i| format!("9999999999#{lane:02}#{i:05}"));
    partitions[0].keys = (0..54).map(|i| format!("0000000001#00#{i:05}")).chain(tail(0)).collect();
    partitions[1].keys = (0..46).map(|i| format!("0000000002#01#{i:05}")).chain(tail(1)).collect();
    let setup = merge_of(partitions, 32);
    let expected = setup.expected();
    let read = run(&setup, None, Some(100), &[1]);
    assert_eq!(read.output, expected[..100]);
    assert!(read.requests <= 24, "{} requests", read.requests);
    assert!(read.items_read <= 255, "{} items read", read.items_read);
}
