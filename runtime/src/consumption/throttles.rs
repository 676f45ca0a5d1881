//! Every attempt DynamoDB throttled, counted in the scope of the work that sent it. The SDK sends
//! a throttled request again by itself (three attempts in all, by default) before dynashard sees
//! an error, and a request that then succeeds leaves no error behind: without this, throttling
//! the SDK absorbed would be invisible to [`Measured`](super::Measured) and to spans.
//!
//! [`CountThrottles`] is an SDK interceptor that every `Db` puts on its client: after each attempt
//! it reads the answer's error type (the SDK keeps an error answer's body) and counts a throttle.

use crate::error::is_throttling_code;
use aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};

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
        if response.status().as_u16() == 400 && response.body().bytes().is_some_and(throttled) {
            super::scope::throttled();
        }
        Ok(())
    }
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
