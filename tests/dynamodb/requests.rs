//! An SDK interceptor that watches a client's requests: how many are in flight at once, how many
//! in all, and the partition key values its queries ask for.

use aws_sdk_dynamodb::config::interceptors::{
    BeforeSerializationInterceptorContextRef, FinalizerInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::operation::query::QueryInput;
use dynashard::Db;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Debug, Default)]
pub struct Requests {
    now: AtomicUsize,
    max: AtomicUsize,
    total: AtomicUsize,
    /// String values of every query's key condition.
    values: Mutex<BTreeSet<String>>,
}

impl Requests {
    /// The most requests that were in flight at once.
    pub fn max_in_flight(&self) -> usize {
        self.max.load(Ordering::SeqCst)
    }

    pub fn total(&self) -> usize {
        self.total.load(Ordering::SeqCst)
    }

    /// Every string value the queries compared keys with, e.g. their partitions.
    pub fn key_values(&self) -> BTreeSet<String> {
        self.values.lock().expect("not poisoned").clone()
    }
}

#[derive(Debug, Clone)]
struct Watch(Arc<Requests>);

impl Intercept for Watch {
    fn name(&self) -> &'static str {
        "Watch"
    }

    fn read_before_execution(
        &self,
        context: &BeforeSerializationInterceptorContextRef<'_>,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let now = self.0.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.0.max.fetch_max(now, Ordering::SeqCst);
        self.0.total.fetch_add(1, Ordering::SeqCst);
        if let Some(query) = context.input().downcast_ref::<QueryInput>() {
            let strings = query.expression_attribute_values().into_iter().flat_map(|values| values.values());
            let strings = strings.filter_map(|value| value.as_s().ok().cloned());
            self.0.values.lock().expect("not poisoned").extend(strings);
        }
        Ok(())
    }

    fn read_after_execution(
        &self,
        _: &FinalizerInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        self.0.now.fetch_sub(1, Ordering::SeqCst);
        Ok(())
    }
}

/// A `Db` on the same endpoint whose requests are watched.
pub fn watched(db: &Db) -> (Db, Arc<Requests>) {
    let requests = Arc::new(Requests::default());
    let config = db.client().config().to_builder().interceptor(Watch(requests.clone()));
    (Db::new(aws_sdk_dynamodb::Client::from_conf(config.build())), requests)
}
