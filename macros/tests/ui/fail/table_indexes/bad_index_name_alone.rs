use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

// One index name too short: its own error, and nothing about the table's sort key or its other
// index, which the entity below uses as declared.
#[derive(Table)]
#[table(name = "Feed", pk = "pk", sk = "sk")]
#[gsi(G1(pk = "g1pk", sk = "g1sk"))]
#[gsi(TenantFeed(pk = "tenant_pk", sk = "tenant_sk"))]
struct Feed;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Feed, pk = "{user}", sk = "post#{id}")]
#[gsi(TenantFeed(pk = "{tenant}", sk = "{id}"))]
struct Post {
    user: String,
    tenant: String,
    id: String,
}

fn main() {
    let _ = Feed::TENANT_FEED;
    let _ = Post::query_tenant_feed("acme");
}
