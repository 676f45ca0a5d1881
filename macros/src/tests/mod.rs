//! Expansion snapshots: what each derive generates for a sample of each form it accepts (every
//! shard strategy among them), kept in `macros/snapshots/`. A change to generated code shows as
//! a change to a snapshot, reviewed with it; `SNAPSHOTS=overwrite cargo test -p dynashard-macros`
//! writes them anew.

mod expansions;
