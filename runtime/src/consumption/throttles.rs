//! Every attempt DynamoDB throttled, counted in the scope of the work that sent it. The SDK sends
//! a throttled request again by itself (three attempts in all, by default) before dynashard sees
//! an error, and a request that then succeeds leaves no error behind: without this, throttling
//! the SDK absorbed would be invisible to [`Measured`](super::Measured) and to spans.
//!
//! [`CountThrottles`] is an SDK interceptor that every `Db` puts on its client: after each attempt
//! it reads the answer's error type (the SDK keeps an error answer's body) and counts a throttle.
//! A request sent [`watched`] also gets each throttled attempt's reasons back, so that the hot
//! keys and a dynamic count's growth see a throttle the SDK's retries absorbed as they see one
//! that failed the request.

use crate::error::is_throttling_code;
use crate::throttling::{reasons_in_body, ThrottlingReason};
use aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The interceptor; see the module documentation.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CountThrottles;

impl CountThrottles {
    const NAME: &'static str = "dynashard::CountThrottles";

    /// `client` counting throttled attempts: with the interceptor unless it has it already (a
    /// `Db` made from another `Db`'s client), so that no attempt is counted twice.
    pub(crate) fn on(client: aws_sdk_dynamodb::Client) -> aws_sdk_dynamodb::Client {
        if client.config().interceptors().any(|interceptor| interceptor.name() == Self::NAME) {
            return client;
        }
        aws_sdk_dynamodb::Client::from_conf(client.config().to_builder().interceptor(CountThrottles).build())
    }
}

impl Intercept for CountThrottles {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn read_after_attempt(
        &self,
        context: &FinalizerInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(response) = context.response() else { return Ok(()) };
        let Some(body) = response.body().bytes() else { return Ok(()) };
        if response.status().as_u16() == 400 && throttled(body) {
            super::scope::throttled();
            Watch::throttled(body);
        }
        Ok(())
    }
}

tokio::task_local! {
    static WATCH: Arc<Watch>;
}

/// The throttled attempts of requests sent while it is the current watch (and of every watch
/// around it).
#[derive(Debug, Default)]
struct Watch {
    attempts: Mutex<Vec<Vec<ThrottlingReason>>>,
    outer: Option<Arc<Watch>>,
}

impl Watch {
    /// The most attempts a watch keeps: the SDK's retries of one request are far fewer.
    const MOST: usize = 64;

    /// Notes a throttled attempt, whose answer is `body`, in the current watch and those around it.
    fn throttled(body: &[u8]) {
        let _ = WATCH.try_with(|watch| {
            let reasons = reasons_in_body(body);
            let mut watch = Some(watch);
            while let Some(current) = watch {
                let mut attempts = current.attempts.lock().unwrap_or_else(PoisonError::into_inner);
                if attempts.len() < Self::MOST {
                    attempts.push(reasons.clone());
                }
                watch = current.outer.as_ref();
            }
        });
    }
}

/// The attempts DynamoDB throttled while a request was [`watched`]: each one's reasons (none when
/// the answer gave none), whether the SDK then sent it again or gave up.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Throttles(Vec<Vec<ThrottlingReason>>);

impl Throttles {
    /// Each throttled attempt's reasons.
    pub(crate) fn attempts(&self) -> &[Vec<ThrottlingReason>] {
        &self.0
    }

    /// Whether no attempt was throttled.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every reason given, over the attempts.
    pub(crate) fn reasons(&self) -> Vec<ThrottlingReason> {
        self.0.iter().flatten().cloned().collect()
    }
}

/// Runs `send` (one SDK request and its retries); returns its output and the attempts
/// DynamoDB throttled meanwhile.
pub(crate) async fn watched<F: Future>(send: F) -> (F::Output, Throttles) {
    let watch = Arc::new(Watch { attempts: Mutex::default(), outer: WATCH.try_with(Arc::clone).ok() });
    let output = WATCH.scope(Arc::clone(&watch), send).await;
    let attempts = std::mem::take(&mut *watch.attempts.lock().unwrap_or_else(PoisonError::into_inner));
    (output, Throttles(attempts))
}

/// Whether an error answer's body says the request was throttled: its `__type`, after the
/// service's prefix (`com.amazonaws.dynamodb.v20120810#ThrottlingException`), is a throttling code.
fn throttled(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Answer<'a> {
        #[serde(rename = "__type", borrow)]
        kind: Option<std::borrow::Cow<'a, str>>,
    }
    let Ok(answer) = serde_json::from_slice::<Answer<'_>>(body) else { return false };
    let Some(kind) = answer.kind else { return false };
    is_throttling_code(kind.rsplit('#').next().unwrap_or(&kind))
}

#[cfg(test)]
mod tests {
    use super::throttled;

    #[test]
    fn a_throttling_answer_is_told_by_its_error_type() {
        let body = |kind: &str| format!(r#"{{"__type":"{kind}","message":"slow down"}}"#);
        assert!(throttled(
            body("com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException").as_bytes()
        ));
        assert!(throttled(body("com.amazonaws.dynamodb.v20120810#ThrottlingException").as_bytes()));
        assert!(throttled(body("RequestLimitExceeded").as_bytes()));
        assert!(!throttled(
            body("com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException").as_bytes()
        ));
        assert!(!throttled(b"not json"));
        assert!(!throttled(b"{}"));
    }
}
